#!/bin/sh
# test-install-deps.sh SOURCE_DIR: tools/install-deps.sh with stand-ins for
# dpkg-query, apt-get and id on PATH (the machine's packages are not
# touched). It must install only what is missing, and name every installed
# package the install removes or replaces in a line printed before
# apt-get installs anything; with nothing missing it must not call apt-get.
set -eu
script=$1/tools/install-deps.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- output"; cat "$tmp/out"; exit 1; }
mkdir "$tmp/bin"
# installed: gcc and libomp-dev
cat >"$tmp/bin/dpkg-query" <<'STUB'
#!/bin/sh
for p; do :; done
case $p in gcc | libomp-dev) printf 'install ok installed' ;; *) exit 1 ;; esac
STUB
cat >"$tmp/bin/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >>"$BP_TEST_LOG"
case " $* " in
    *" -s "*)
        echo "Remv libomp-dev [1:14.0-55.7~deb12u1]"
        echo "Inst libomp5 [1:14.0-55.7~deb12u1] (1:22.1.8-1~deb12u1 Debian:12 [amd64])"
        echo "Inst libomp-22-dev (1:22.1.8-1~deb12u1 Debian:12 [amd64])" ;;
    *" install "*) echo "STUB apt-get installs" ;;
esac
STUB
printf '#!/bin/sh\necho 0\n' >"$tmp/bin/id"
chmod +x "$tmp/bin/"*
export BP_TEST_LOG="$tmp/log" PATH="$tmp/bin:$PATH"

sh "$script" gcc libomp-22-dev >"$tmp/out" 2>&1 || fail "install-deps failed"
grep -qx "installing Debian packages: libomp-22-dev" "$tmp/out" || fail "not the missing package alone"
removes=$(grep -n "REMOVES these installed packages: libomp-dev$" "$tmp/out" | cut -d: -f1)
replaces=$(grep -n "replaces these installed packages' versions: libomp5 (1:14.0-55.7~deb12u1 -> 1:22.1.8-1~deb12u1)$" \
    "$tmp/out" | cut -d: -f1)
installs=$(grep -n "^STUB apt-get installs" "$tmp/out" | cut -d: -f1)
[ -n "$removes" ] || fail "the removal of libomp-dev is not named"
[ -n "$replaces" ] || fail "the replaced libomp5 is not named"
[ -n "$installs" ] || fail "apt-get install was not run"
[ "$removes" -lt "$installs" ] && [ "$replaces" -lt "$installs" ] ||
    fail "the removal is named after the install"
grep -q "^apt-get install -y -q --no-install-recommends libomp-22-dev$" "$tmp/log" ||
    fail "apt-get install was not asked for libomp-22-dev alone: $(cat "$tmp/log")"

: >"$tmp/log"
sh "$script" gcc >"$tmp/out" 2>&1 || fail "install-deps failed with nothing missing"
[ ! -s "$tmp/log" ] || fail "apt-get called with nothing missing: $(cat "$tmp/log")"
echo "test-install-deps: removals and replacements named before the install"
