#!/bin/sh
# device-bundle.sh BUILD OUT: the benchmark programs of BUILD (bench/overhead,
# bench/decode, bench/idle), the peer runtimes they load (libomp.so.5,
# libgomp.so.1) and bench/compare.py, copied into OUT and laid out as
# compare.py expects a build directory, for a machine that has no compilers
# or peer runtimes installed (a lent many-core machine):
#
#   tools/device-bundle.sh build build-device
#   build-device/run.sh --rounds 3 --threads 8,16 --only overhead,decode
#
# run.sh passes its arguments to compare.py and writes the results under
# OUT/bench-results. The programs need a glibc at least as new as the
# building machine's (Debian 12: 2.36) and python3 on the machine.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: device-bundle.sh BUILD OUT" >&2
    exit 2
fi
build=$1
out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
for d in overhead decode idle; do
    if [ ! -d "$build/bench/$d" ]; then
        echo "device-bundle.sh: no $build/bench/$d: build the project first (make build)" >&2
        exit 1
    fi
done
rm -rf "$out"
mkdir -p "$out/lib"
for d in overhead decode idle; do
    mkdir -p "$out/bench/$d"
    for f in "$build/bench/$d"/"$d"-*; do
        case $f in
        *.o | *.ll | *.mlir) ;;
        *) [ -x "$f" ] && [ -f "$f" ] && cp "$f" "$out/bench/$d/" ;;
        esac
    done
done
# the peer runtimes, as the programs resolve them here
for prog in "$out/bench/overhead/overhead-libomp" "$out/bench/overhead/overhead-libgomp"; do
    ldd "$prog" | awk '/lib(g?omp)\.so/ { print $3 }' | while read -r lib; do
        cp -L "$lib" "$out/lib/"
    done
done
cp "$here/bench/compare.py" "$out/"
cat >"$out/run.sh" <<'RUN'
#!/bin/sh
# Runs bench/compare.py on the programs next to this script (see
# tools/device-bundle.sh); arguments go to compare.py.
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec python3 "$here/compare.py" "$here" "$@"
RUN
chmod +x "$out/run.sh"
echo "device-bundle.sh: $(du -sh "$out" | cut -f1) in $out; run $out/run.sh [compare.py arguments]"
