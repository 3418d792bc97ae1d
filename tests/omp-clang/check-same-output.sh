#!/bin/sh
# check-same-output.sh REFERENCE PROGRAM [PRELOAD]: runs both programs in
# the same environment (PROGRAM with LD_PRELOAD=PRELOAD when given) and
# fails unless both exit 0 and print the same lines; the reference (the
# test built on a stock runtime) is what decides each answer.
if [ -n "${BP_SKIP:-}" ]; then
    echo "skipped: $BP_SKIP"
    exit 77
fi
ref=$1
prog=$2
pre=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# run WHO OUT [PRELOAD]: runs WHO, its output in OUT; stops the test if it fails.
run() {
    LD_PRELOAD=$3 "$1" >"$2" 2>"$2.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "$1 failed (exit $rc):"
        tail -n 20 "$2" "$2.err"
        exit 1
    fi
}
# The reference runs a stock runtime, which a sanitizer build does not
# instrument: TSan is told to ignore what that runtime does (its own advice).
(
    TSAN_OPTIONS="${TSAN_OPTIONS:-} ignore_noninstrumented_modules=1"
    export TSAN_OPTIONS
    run "$ref" "$tmp/ref"
) || exit 1
run "$prog" "$tmp/out" "$pre"
if ! diff "$tmp/ref" "$tmp/out" >"$tmp/diff"; then
    echo "$prog answers differently from $ref (< reference, > $prog):"
    head -40 "$tmp/diff"
    exit 1
fi
echo "$(wc -l <"$tmp/out") lines, the same as the reference's"
