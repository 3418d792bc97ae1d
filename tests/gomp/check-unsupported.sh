#!/bin/sh
# check-unsupported.sh PROGRAM PATTERN [ARG...]: the program, run with the
# arguments, stops (non-zero exit) with a message matching PATTERN instead
# of running a construct wrongly.
prog=$1
pattern=$2
shift 2
out=$("$prog" "$@" 2>&1)
rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "$pattern"; then
    echo "stopped as expected: $(echo "$out" | grep "$pattern")"
    exit 0
fi
echo "expected a stop with '$pattern', got exit $rc:"
echo "$out"
exit 1
