#!/bin/sh
# test-ab-builds.sh SRC BUILD OUT: tools/ab-builds.sh refuses bad arguments
# with a message; HEAD's library, built from git's copy of the commit and
# linked with BUILD's benchmark objects, runs; bench/ab.py takes the
# directory as a build. Exit 77 (skipped) where SRC is not a git checkout.
set -u
src=$1
build=$2
out=$3
log=$out.log
rm -rf "$out" "$log"
fail() {
    echo "FAIL: $1"
    [ -f "$log" ] && cat "$log"
    exit 1
}
sh "$src/tools/ab-builds.sh" >"$log" 2>&1
[ $? -eq 2 ] && grep -q "usage: ab-builds.sh" "$log" || fail "no arguments: not exit 2 with the usage"
if ! git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    echo "skipped: $src is not a git checkout"
    exit 77
fi
if sh "$src/tools/ab-builds.sh" "$build" "$out" no-such-commit >"$log" 2>&1 ||
    ! grep -q "no-such-commit names no commit" "$log"; then
    fail "a bad commit name was not refused by name"
fi
sh "$src/tools/ab-builds.sh" "$build" "$out" HEAD >"$log" 2>&1 || fail "HEAD did not build"
OMP_NUM_THREADS=2 "$out/HEAD/bench/overhead/overhead-buddypool" --only PARALLEL >"$log" 2>&1 &&
    grep -q "^RESULT overhead construct=PARALLEL" "$log" || fail "the linked overhead program"
python3 "$src/bench/ab.py" "$out/HEAD" "$out/HEAD" --rounds 1 --tokens 4 \
    --constructs PARALLEL >"$log" 2>&1 || fail "bench/ab.py on the builds"
[ "$(grep -c '^RESULT ab build=[AB] metric=PARALLEL' "$log")" -eq 2 ] ||
    fail "bench/ab.py: not one PARALLEL result per build"
rm -rf "$out" "$log"
echo ok
