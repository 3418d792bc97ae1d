#!/bin/sh
# check-error-directive.sh PROGRAM: gomp-error-directive.c's warning shows
# its message and the program goes on; its fatal error (argument `fatal`)
# shows its message and stops the program with a non-zero status.
prog=$1
out=$("$prog" 2>/tmp/err.$$) || { echo "the warning run failed"; cat /tmp/err.$$; rm -f /tmp/err.$$; exit 1; }
err=$(cat /tmp/err.$$)
case "$err" in *"careful here"*) ;; *) echo "no warning message: $err"; rm -f /tmp/err.$$; exit 1 ;; esac
case "$out" in *"after the fatal error"*) ;; *) echo "did not go on: $out"; rm -f /tmp/err.$$; exit 1 ;; esac
out=$("$prog" fatal 2>/tmp/err.$$) && { echo "the fatal error did not stop it: $out"; rm -f /tmp/err.$$; exit 1; }
err=$(cat /tmp/err.$$)
rm -f /tmp/err.$$
case "$err" in *"stop here"*) ;; *) echo "no fatal message: $err"; exit 1 ;; esac
case "$out" in *"after the fatal error"*) echo "went on past the fatal error"; exit 1 ;; esac
echo "ok: $(echo "$err" | grep -c 'here') messages"
