#!/bin/sh
# test-deb.sh SOURCE_DIR MODEL_OBJECT: build the Debian packages with
# tools/build-deb.sh (dpkg-buildpackage), then check them the ways a user
# meets them:
#  - each package's version is the header's, and lintian reports no error;
#  - installed into a scratch root with dpkg --root (a dpkg database of its
#    own; as root only) and removed again, they leave nothing behind;
#  - unpacked into a scratch root, the MLIR-lowered kernels (MODEL_OBJECT,
#    tests/install/driver.c) link against the root's files with pkg-config
#    (shared and static) and with CMake's find_package, a gcc -fopenmp
#    program (openmp-program.c) links against them with no libgomp and runs
#    its region on the root's library, and the root's buddypool command
#    tells its version, preloads the root's library and has its man page.
set -eu
if [ -n "${BP_SKIP:-}" ]; then
    echo "skipped: $BP_SKIP"
    exit 77
fi
src=$(cd "$1" && pwd)
model=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cc=${CC:-cc}

version=$(sed -n 's/^#define BUDDYPOOL_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
    "$src/include/buddypool.h" | paste -sd.)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
sh "$src/tools/build-deb.sh" -o "$work/deb" -j 2
packages="libbuddypool0 libbuddypool-dev buddypool-tools"
for p in $packages; do
    deb=$work/deb/${p}_${version}_$arch.deb
    [ -f "$deb" ] || fail "no $(basename "$deb") (the header says $version)"
    [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "$p: version $(dpkg-deb -f "$deb" Version)"
done

# lintian: no error (E:) tags; the rest is printed
lintian --tag-display-limit 0 "$work/deb/buddypool_${version}_$arch.changes" >"$work/lintian" 2>&1 || true
grep -v "^running with root privileges" "$work/lintian" || true
! grep -q "^E:" "$work/lintian" || fail "lintian reports errors"

debs=""
for p in $packages; do debs="$debs $work/deb/${p}_${version}_$arch.deb"; done

# install and remove with dpkg into a root of its own
if [ "$(id -u)" -eq 0 ]; then
    droot=$work/dpkg-root
    mkdir -p "$droot/var/lib/dpkg/updates" "$droot/var/lib/dpkg/info"
    touch "$droot/var/lib/dpkg/status"
    # its database knows no libc6 or python3: those dependencies are forced
    # shellcheck disable=SC2086
    dpkg --root="$droot" --force-depends --force-script-chrootless -i $debs >"$work/dpkg.log" 2>&1 ||
        { cat "$work/dpkg.log"; fail "dpkg -i into a scratch root"; }
    for p in $packages; do
        dpkg --root="$droot" -s "$p" | grep -q "^Status: install ok installed" || fail "$p is not installed"
    done
    [ -e "$droot/usr/lib/$multiarch/libbuddypool.so.0" ] || fail "dpkg -i: no libbuddypool.so.0"
    dpkg --root="$droot" --force-depends --force-script-chrootless --purge buddypool-tools \
        libbuddypool-dev libbuddypool0 >>"$work/dpkg.log" 2>&1 ||
        { cat "$work/dpkg.log"; fail "dpkg --purge from the scratch root"; }
    left=$(find "$droot" -mindepth 1 -not -path "$droot/var/lib/dpkg*" -not -type d)
    [ -z "$left" ] || fail "left after dpkg --purge: $left"
    echo "test-deb: dpkg -i and dpkg --purge in a scratch root: clean"
else
    echo "test-deb: not root, the dpkg -i/--purge round trip is not run"
fi

# unpacked into a scratch root
root=$work/root
for d in $debs; do dpkg-deb -x "$d" "$root"; done
lib=$root/usr/lib/$multiarch
export PKG_CONFIG_PATH="$lib/pkgconfig" LD_LIBRARY_PATH="$lib"
cflags=$(pkg-config --cflags buddypool)
libs=$(pkg-config --libs buddypool)
echo "test-deb: pkg-config --cflags --libs buddypool: $cflags $libs"
[ "$(pkg-config --modversion buddypool)" = "$version" ] || fail "pkg-config --modversion"
no_omp() { # the program maps no OpenMP runtime but the root's buddypool
    if ldd "$1" | grep -E 'lib(g?omp|iomp)'; then fail "$1 loads an OpenMP runtime"; fi
}
# 1. MLIR kernels, the shared library
$cc $cflags "$src/tests/install/driver.c" "$model" $libs -o "$work/driver-shared"
no_omp "$work/driver-shared"
loaded=$(ldd "$work/driver-shared" | awk '/libbuddypool/ {print $3}')
[ "$(realpath "$loaded")" = "$(realpath "$lib/libbuddypool.so.$version")" ] ||
    fail "driver-shared loads '$loaded', not the root's library"
"$work/driver-shared"
# 2. MLIR kernels, the static library
$cc $cflags "$src/tests/install/driver.c" "$model" -Wl,-Bstatic $(pkg-config --libs --static buddypool) \
    -Wl,-Bdynamic -o "$work/driver-static"
! ldd "$work/driver-static" | grep -q libbuddypool || fail "driver-static loads libbuddypool.so"
"$work/driver-static"
# 3. a gcc -fopenmp program, linked without libgomp
gcc -fopenmp $cflags -c "$here/openmp-program.c" -o "$work/openmp-program.o"
gcc "$work/openmp-program.o" $libs -o "$work/openmp-program"
no_omp "$work/openmp-program"
OMP_NUM_THREADS=2 BUDDY_THREAD_POOL_PROFILE=1 "$work/openmp-program" >"$work/out" 2>"$work/err" ||
    { cat "$work/out" "$work/err"; fail "openmp-program"; }
grep -qx "team 2" "$work/out" || fail "openmp-program: not a team of 2"
grep -qx "mapped $lib/libbuddypool.so.$version" "$work/out" || fail "openmp-program: the root's library is not mapped"
[ "$(grep -c '^mapped' "$work/out")" -eq 1 ] || fail "openmp-program maps another runtime: $(cat "$work/out")"
grep -q "^buddypool profile: 2 threads, 1 regions" "$work/err" || fail "openmp-program: no profile"
# 4. CMake's find_package and the exported target (static)
cmake -S "$src/tests/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$root/usr" \
    -DMODEL_OBJECT="$model" >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "find_package"; }
grep -q "$lib/cmake/buddypool" "$work/consumer/CMakeCache.txt" || fail "find_package found another buddypool"
cmake --build "$work/consumer" >/dev/null
no_omp "$work/consumer/driver-cmake"
"$work/consumer/driver-cmake"
# 5. the command and its man page
[ "$("$root/usr/bin/buddypool" --version)" = "buddypool $version" ] || fail "buddypool --version"
preload=$("$root/usr/bin/buddypool" run -- sh -c 'echo "$LD_PRELOAD"')
[ "$(realpath "$preload")" = "$(realpath "$lib/libbuddypool.so.0")" ] ||
    fail "buddypool run preloads '$preload'"
gzip -dc "$root/usr/share/man/man1/buddypool.1.gz" | grep -q "^\.TH BUDDYPOOL \"1\" .*buddypool $version" ||
    fail "the man page does not name buddypool $version"
echo "test-deb: buddypool $version packages: lintian clean, linked from a scratch root with pkg-config and CMake"
