#!/bin/sh
# check-unsupported.sh PROGRAM PATTERN: the program stops (non-zero exit)
# with a message matching PATTERN instead of running a construct wrongly.
out=$("$1" 2>&1)
rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "$2"; then
    echo "stopped as expected: $(echo "$out" | grep "$2")"
    exit 0
fi
echo "expected a stop with '$2', got exit $rc:"
echo "$out"
exit 1
