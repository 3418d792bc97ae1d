#!/bin/sh
# profile-overhead.sh BUILD_DIR [ROUNDS] [STEPS]: the cost of profiling on a
# decode-like step (336 short regions), measured side by side in one run.
# Three variants alternate round by round: `none` (a library built without
# profiler hooks), `off` (the normal library, BUDDY_THREAD_POOL_PROFILE
# unset) and `on` (BUDDY_THREAD_POOL_PROFILE=1). Each run reports its median
# step time; the table gives the median and best of those over the rounds,
# and the ratios off/none and on/off.
set -eu
build=$1
rounds=${2:-7}
steps=${3:-300}
bench=$build/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
    "$bench/step-noprof" "$steps" | sed -n 's/.*median=\([0-9.]*\).*/\1/p' >>"$tmp/none"
    env -u BUDDY_THREAD_POOL_PROFILE "$bench/step" "$steps" |
        sed -n 's/.*median=\([0-9.]*\).*/\1/p' >>"$tmp/off"
    BUDDY_THREAD_POOL_PROFILE=1 "$bench/step" "$steps" 2>/dev/null |
        sed -n 's/.*median=\([0-9.]*\).*/\1/p' >>"$tmp/on"
done
# a variant that crashed leaves fewer numbers than rounds: stop there
for v in none off on; do
    [ "$(wc -l <"$tmp/$v")" -eq "$rounds" ] || { echo "profile-overhead: the '$v' runs failed" >&2; exit 1; }
done
stat() { sort -n "$tmp/$1" | awk '{v[NR]=$1} END {printf "%.1f %.1f", v[int((NR+1)/2)], v[1]}'; }
set -- $(stat none) $(stat off) $(stat on)
echo "profiling overhead: $(nproc) CPUs, $rounds rounds of $steps steps, 336 regions per step"
echo
echo "| variant | median of medians (us/step) | best (us/step) | ratio |"
echo "| --- | --- | --- | --- |"
echo "| none (no hooks) | $1 | $2 | 1.000 |"
echo "| off | $3 | $4 | $(echo "$3 $1" | awk '{printf "%.3f", $1/$2}') (off/none) |"
echo "| on | $5 | $6 | $(echo "$5 $3" | awk '{printf "%.3f", $1/$2}') (on/off) |"
echo
echo "RESULT profile_overhead none_us=$1 off_us=$3 on_us=$5 off_over_none=$(echo "$3 $1" | awk '{printf "%.4f", $1/$2}') on_over_off=$(echo "$5 $3" | awk '{printf "%.4f", $1/$2}')"
