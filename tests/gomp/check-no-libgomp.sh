#!/bin/sh
# check-no-libgomp.sh PROGRAM...: each program, built by gcc -fopenmp and
# linked with libbuddypool, loads no OpenMP runtime (libgomp, libomp).
status=0
for p in "$@"; do
    libs=$(ldd "$p") || { echo "ldd $p failed"; exit 1; }
    if echo "$libs" | grep -E 'lib(g|i)?omp' >/dev/null; then
        echo "$p loads an OpenMP runtime:"
        echo "$libs" | grep -E 'lib(g|i)?omp'
        status=1
    fi
done
[ $status -eq 0 ] && echo "no OpenMP runtime in $# programs"
exit $status
