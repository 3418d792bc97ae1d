#!/bin/sh
# ab-builds.sh BUILD OUT COMMIT...: for each COMMIT, its libbuddypool.a
# (RelWithDebInfo, built from the commit's files under OUT/.src) linked with
# BUILD's benchmark objects (bench/overhead and bench/graph, clang), laid
# out as bench/ab.py expects a build: OUT/COMMIT/bench/overhead/overhead-buddypool
# and OUT/COMMIT/bench/graph/graph-buddypool. Only the library differs
# between the builds, so bench/ab.py compares the commits' libraries:
#
#   tools/ab-builds.sh build ab 1b4e9a9 HEAD
#   python3 bench/ab.py ab/1b4e9a9 ab/HEAD --rounds 20 --bind --json ab.json
#
# The programs need only the C library, so OUT (less OUT/.src) can be
# carried to another machine of the same architecture (a lent many-core
# one) and run there with python3. A COMMIT already in OUT is linked again,
# not rebuilt, unless its library is missing. The repository is only
# read (git archive): removing OUT cleans up.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: ab-builds.sh BUILD OUT COMMIT..." >&2
    exit 2
fi
if [ ! -d "$1" ]; then
    echo "ab-builds.sh: BUILD '$1' is no directory (a build of this project: make build)" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
out=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
for b in overhead graph; do
    if [ ! -f "$build/bench/$b/$b-buddypool.o" ]; then
        echo "ab-builds.sh: no $build/bench/$b/$b-buddypool.o: build the benchmarks first (make build)" >&2
        exit 1
    fi
done
mkdir -p "$out/.src"
out=$(cd "$out" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
for c in "$@"; do
    sha=$(git -C "$here" rev-parse --verify -q --short "$c^{commit}") || {
        echo "ab-builds.sh: $c names no commit" >&2
        exit 1
    }
    src=$out/.src/$sha
    if [ ! -f "$src/build/libbuddypool.a" ]; then
        rm -rf "$src"
        mkdir -p "$src/build"
        git -C "$here" archive --format=tar "$sha" | tar -x -C "$src"
        cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DBUDDYPOOL_TESTS=OFF >"$src/build.log" 2>&1 &&
            make -C "$src/build" -j"$jobs" buddypool_static >>"$src/build.log" 2>&1 || {
            echo "ab-builds.sh: $c ($sha) did not build: $src/build.log" >&2
            exit 1
        }
    fi
    # named as given (HEAD, a branch, a short hash), so that the labels read well
    dir=$out/$c
    for b in overhead graph; do
        mkdir -p "$dir/bench/$b"
        cc -O2 -g "$build/bench/$b/$b-buddypool.o" -o "$dir/bench/$b/$b-buddypool" \
            "$src/build/libbuddypool.a" -lm -ldl -lpthread
    done
    echo "ab-builds.sh: $dir ($sha)"
done
