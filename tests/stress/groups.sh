#!/bin/sh
# groups.sh: groups.c under every thread limit, many runs.
#
#   groups.sh PROGRAM RUNS [PRELOAD_LIB]
#
# Runs PROGRAM (groups.c built for some runtime) RUNS times in each
# configuration: the limit from OMP_THREAD_LIMIT and, where buddypool runs
# the program, from BUDDY_THREAD_POOL_THREADS; limits 1 to 4; 2 and 4
# application threads; one and two active levels. With PRELOAD_LIB the
# program runs with LD_PRELOAD=PRELOAD_LIB (buddypool under a libgomp or
# libomp program). Which application thread gets the workers first is a
# race, decided anew in each process: a runtime that lets one thread's
# teams starve another's fails some of the runs, so each configuration is
# run several times. Fails at the first run that fails.
set -u
prog=$1 runs=$2 preload=${3:-}
vars=OMP_THREAD_LIMIT
case "$(basename "$prog")" in
*libgomp*|*libomp*) [ -n "$preload" ] && vars="$vars BUDDY_THREAD_POOL_THREADS" ;;
*) vars="$vars BUDDY_THREAD_POOL_THREADS" ;;
esac
total=0
for var in $vars; do
  for limit in 1 2 3 4; do
    for apps in 2 4; do
      for levels in 1 2; do
        i=0
        while [ $i -lt "$runs" ]; do
          if [ -n "$preload" ]; then
            out=$(env -u OMP_THREAD_LIMIT -u BUDDY_THREAD_POOL_THREADS LD_PRELOAD="$preload" \
                  "$var=$limit" OMP_MAX_ACTIVE_LEVELS=$levels "$prog" $apps 300 2>&1)
          else
            out=$(env -u OMP_THREAD_LIMIT -u BUDDY_THREAD_POOL_THREADS \
                  "$var=$limit" OMP_MAX_ACTIVE_LEVELS=$levels "$prog" $apps 300 2>&1)
          fi
          rc=$?
          if [ $rc -ne 0 ]; then
            echo "FAIL: $var=$limit OMP_MAX_ACTIVE_LEVELS=$levels $prog $apps 300" \
                 "${preload:+(LD_PRELOAD=$preload) }run $((i + 1)) of $runs: exit $rc"
            echo "$out"
            exit 1
          fi
          case "$out" in
          *"thread limit $limit,"*) ;;
          *) echo "FAIL: $var=$limit: the program saw another limit:"; echo "$out"; exit 1 ;;
          esac
          i=$((i + 1))
          total=$((total + 1))
        done
      done
    done
  done
done
echo "groups.sh: $total runs of $prog${preload:+ (preloaded)}, every team its exact size"
