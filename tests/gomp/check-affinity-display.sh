#!/bin/sh
# check-affinity-display.sh PROGRAM STREAM MODE: PROGRAM (gomp-affinity-
# display.c) run under OMP_DISPLAY_AFFINITY=true with the format
# "AFF %n/%N L%L" shows its threads' lines on STREAM (stdout or stderr),
# and none on the other.
#   MODE first:   the first region's two lines, at least (what every runtime
#                 shows: libgomp shows only those here)
#   MODE changes: also every change, as buddypool shows them: thread 0's
#                 lines are 0/2, 0/1, 0/2 in that order, thread 1's 1/2;
#                 after the format changes, one line, thread 0's FMT 0/1
#                 (the format alone changes nothing shown; libomp agrees)
prog=$1 stream=$2 mode=$3
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
OMP_DISPLAY_AFFINITY=true OMP_AFFINITY_FORMAT='AFF %n/%N L%L' "$prog" >"$out" 2>"$err" ||
    { echo "the program failed"; cat "$out" "$err"; exit 1; }
if [ "$stream" = stdout ]; then on=$out off=$err; else on=$err off=$out; fi
if grep -q '^AFF' "$off"; then
    echo "affinity lines on the other stream:"; cat "$off"; exit 1
fi
grep -q '^AFF 0/2 L1$' "$on" && grep -q '^AFF 1/2 L1$' "$on" ||
    { echo "the first region's lines are missing:"; cat "$on"; exit 1; }
if [ "$mode" = changes ]; then
    t0=$(grep '^AFF 0/' "$on" | tr '\n' ',')
    [ "$t0" = "AFF 0/2 L1,AFF 0/1 L1,AFF 0/2 L1," ] ||
        { echo "thread 0's lines are not each change once: $t0"; exit 1; }
    fmt=$(grep '^FMT' "$on" | tr '\n' ',')
    [ "$fmt" = "FMT 0/1," ] ||
        { echo "after the format changed: '$fmt', not thread 0's one change"; cat "$on"; exit 1; }
fi
echo "ok: $(grep -c '^AFF' "$on") lines on $stream"
