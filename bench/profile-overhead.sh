#!/bin/sh
# profile-overhead.sh BUILD_DIR [ROUNDS] [STEPS]: the cost of profiling on a
# decode-like step (336 short regions), measured side by side in one run.
# Five variants alternate round by round: `none` (a library built without
# profiler hooks), `off` (the normal library, BUDDY_THREAD_POOL_PROFILE
# unset), `on, no sites` (profiling with BUDDY_THREAD_POOL_PROFILE_CALLERS=0),
# `on` (profiling as it comes: call sites by return address) and `on, 8
# frames` (BUDDY_THREAD_POOL_PROFILE_CALLERS=8, a stack walk per region).
# Each run reports its median step time; the table gives the median and best
# of those over the rounds, and each variant's ratio to the one it adds to.
set -eu
build=$1
rounds=${2:-7}
steps=${3:-300}
bench=$build/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sed -n 's/.*median=\([0-9.]*\).*/\1/p'; }
for r in $(seq "$rounds"); do
    "$bench/step-noprof" "$steps" | median >>"$tmp/none"
    env -u BUDDY_THREAD_POOL_PROFILE "$bench/step" "$steps" | median >>"$tmp/off"
    BUDDY_THREAD_POOL_PROFILE=1 BUDDY_THREAD_POOL_PROFILE_CALLERS=0 "$bench/step" "$steps" \
        2>/dev/null | median >>"$tmp/nosites"
    BUDDY_THREAD_POOL_PROFILE=1 "$bench/step" "$steps" 2>/dev/null | median >>"$tmp/on"
    BUDDY_THREAD_POOL_PROFILE=1 BUDDY_THREAD_POOL_PROFILE_CALLERS=8 "$bench/step" "$steps" \
        2>/dev/null | median >>"$tmp/frames"
done
# a variant that crashed leaves fewer numbers than rounds: stop there
for v in none off nosites on frames; do
    [ "$(wc -l <"$tmp/$v")" -eq "$rounds" ] || { echo "profile-overhead: the '$v' runs failed" >&2; exit 1; }
done
stat() { sort -n "$tmp/$1" | awk '{v[NR]=$1} END {printf "%.1f %.1f", v[int((NR+1)/2)], v[1]}'; }
ratio() { echo "$1 $2" | awk '{printf "%.3f", $1/$2}'; }
set -- $(stat none) $(stat off) $(stat nosites) $(stat on) $(stat frames)
echo "profiling overhead: $(nproc) CPUs, $rounds rounds of $steps steps, 336 regions per step"
echo
echo "| variant | median of medians (us/step) | best (us/step) | ratio |"
echo "| --- | --- | --- | --- |"
echo "| none (no hooks) | $1 | $2 | 1.000 |"
echo "| off | $3 | $4 | $(ratio "$3" "$1") (off/none) |"
echo "| on, no call sites (CALLERS=0) | $5 | $6 | $(ratio "$5" "$3") (on, no sites/off) |"
echo "| on (call sites by return address) | $7 | $8 | $(ratio "$7" "$5") (on/on, no sites); $(ratio "$7" "$3") (on/off) |"
echo "| on, 8 frames (CALLERS=8) | $9 | ${10} | $(ratio "$9" "$7") (8 frames/on) |"
echo
echo "RESULT profile_overhead none_us=$1 off_us=$3 nosites_us=$5 on_us=$7 frames8_us=$9" \
     "off_over_none=$(echo "$3 $1" | awk '{printf "%.4f", $1/$2}')" \
     "on_over_off=$(echo "$7 $3" | awk '{printf "%.4f", $1/$2}')" \
     "sites_over_nosites=$(echo "$7 $5" | awk '{printf "%.4f", $1/$2}')" \
     "frames8_over_on=$(echo "$9 $7" | awk '{printf "%.4f", $1/$2}')"
