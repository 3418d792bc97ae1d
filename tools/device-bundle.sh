#!/bin/sh
# device-bundle.sh BUILD OUT: the benchmark programs of BUILD (bench/overhead,
# bench/decode, bench/idle, bench/graph), the peer runtimes they load (libomp.so.5,
# libgomp.so.1) and bench/compare.py, contention.py and teams.py, copied into OUT and laid out as
# compare.py expects a build directory, for a machine that has no compilers
# or peer runtimes installed (a lent many-core machine):
#
#   tools/device-bundle.sh build build-device
#   build-device/run.sh --rounds 3 --threads 8,16 --only overhead,decode,graph
#
# run.sh passes its arguments to compare.py and writes the results under
# OUT/bench-results; run-contention.sh and run-teams.sh pass theirs to
# bench/contention.py and bench/teams.py:
#
#   build-device/run-teams.sh --shapes 1x16,2x8,4x4,8x2 --rounds 3
#   build-device/run-contention.sh --threads 16 --rounds 3 The programs need a glibc at least as new as the
# building machine's (Debian 12: 2.36) and python3 on the machine.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: device-bundle.sh BUILD OUT" >&2
    exit 2
fi
build=$1
out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
# OUT is removed first: never the build itself, nor a directory that is not
# an earlier bundle
if [ -e "$out" ]; then
    if [ "$(cd "$out" && pwd -P)" = "$(cd "$build" 2>/dev/null && pwd -P)" ]; then
        echo "device-bundle.sh: OUT is BUILD ($out); give another directory" >&2
        exit 2
    fi
    if [ ! -f "$out/run.sh" ] || [ ! -f "$out/compare.py" ]; then
        echo "device-bundle.sh: $out exists and is not a bundle (no run.sh): not replacing it" >&2
        exit 2
    fi
fi
for d in overhead decode idle graph; do
    if [ ! -d "$build/bench/$d" ]; then
        echo "device-bundle.sh: no $build/bench/$d: build the project first (make build)" >&2
        exit 1
    fi
done
rm -rf "$out"
mkdir -p "$out/lib"
for d in overhead decode idle graph; do
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
    [ -f "$prog" ] || continue # reported below
    ldd "$prog" | awk '/lib(g?omp)\.so/ { print $3 }' | while read -r lib; do
        cp -L "$lib" "$out/lib/"
    done
done
cp "$here/bench/compare.py" "$here/bench/contention.py" "$here/bench/teams.py" \
   "$here/bench/cgroup.py" "$out/"
# every runtime's programs and both peer libraries, or no bundle
missing=
for p in overhead/overhead-buddypool overhead/overhead-gcc-buddypool overhead/overhead-libomp \
         overhead/overhead-libgomp decode/decode-buddypool decode/decode-gcc-buddypool \
         decode/decode-libomp decode/decode-libgomp idle/idle-buddypool idle/idle-libomp \
         idle/idle-libgomp graph/graph-buddypool graph/graph-gcc-buddypool graph/graph-libomp \
         graph/graph-libgomp graph/graph-ggmlpool graph/graph-ggmlpool-clang; do
    [ -x "$out/bench/$p" ] || missing="$missing bench/$p"
done
for l in libomp.so.5 libgomp.so.1; do
    [ -f "$out/lib/$l" ] || missing="$missing lib/$l"
done
if [ -n "$missing" ]; then
    echo "device-bundle.sh: $build lacks what the bundle needs:$missing (build it first: make build)" >&2
    rm -rf "$out"
    exit 1
fi
cat >"$out/run.sh" <<'RUN'
#!/bin/sh
# Runs bench/compare.py on the programs next to this script (see
# tools/device-bundle.sh); arguments go to compare.py.
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec python3 "$here/compare.py" "$here" "$@"
RUN
chmod +x "$out/run.sh"
# the same for contention.py (the decode benchmarks under load) and teams.py
# (several application threads decoding at once)
for tool in contention teams; do
    cat >"$out/run-$tool.sh" <<RUN
#!/bin/sh
# Runs bench/$tool.py on the programs next to this script (see
# tools/device-bundle.sh); arguments go to $tool.py.
here=\$(cd "\$(dirname "\$0")" && pwd)
LD_LIBRARY_PATH="\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec python3 "\$here/$tool.py" "\$here" "\$@"
RUN
    chmod +x "$out/run-$tool.sh"
done
echo "device-bundle.sh: $(du -sh "$out" | cut -f1) in $out; run $out/run.sh [compare.py arguments]"
