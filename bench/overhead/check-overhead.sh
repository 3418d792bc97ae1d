#!/bin/sh
# check-overhead.sh PROGRAM...: the overhead-smoke test. Each program runs
# with --quick --trials 2, must exit 0 and print one RESULT line with numbers
# for each of the eleven constructs; a bad flag must exit 2 naming the flag.
# Timings are not judged: this runs on loaded CI machines.
fail=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
for prog in "$@"; do
    name=$(basename "$prog")
    before=$fail
    fail=0
    "$prog" --quick --trials 2 >"$out" 2>&1
    rc=$?
    if [ "$rc" != 0 ]; then
        echo "FAIL $name: exit status $rc from --quick --trials 2"
        cat "$out"
        fail=1
        continue
    fi
    for c in PARALLEL FOR PARALLEL_FOR BARRIER SINGLE CRITICAL REDUCTION LOCK ORDERED \
             FOR_DYNAMIC FOR_GUIDED; do
        num='-?[0-9]+(\.[0-9]+)?'
        n=$(grep -Ec "^RESULT overhead construct=$c threads=[0-9]+ median_us=$num best_us=$num\$" "$out")
        if [ "$n" != 1 ]; then
            echo "FAIL $name: $n RESULT lines for $c, expected 1"
            fail=1
        fi
    done
    if [ "$(grep -c '^RESULT ' "$out")" != 11 ]; then
        echo "FAIL $name: $(grep -c '^RESULT ' "$out") RESULT lines, expected 11"
        fail=1
    fi
    "$prog" --trials abc >"$out" 2>&1
    rc=$?
    if [ "$rc" != 2 ] || ! grep -q -- "--trials: 'abc'" "$out"; then
        echo "FAIL $name: --trials abc gave exit status $rc and:"
        cat "$out"
        fail=1
    fi
    [ "$fail" = 0 ] && echo "ok $name"
    [ "$before" = 1 ] && fail=1
done
exit $fail
