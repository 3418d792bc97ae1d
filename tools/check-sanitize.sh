#!/bin/sh
# check-sanitize.sh [asan|tsan]...: build the project with sanitizers
# (BUDDYPOOL_SANITIZE) in build-asan / build-tsan and run the test suite
# there (`make check-sanitize`, run by .ci/run). Default: both.
#
# Tests left out, and why:
# - TSan: the tests that run a peer runtime (LLVM libomp, GNU libgomp: the
#   *-libomp-N, *-libgomp-N and their environment variants (-list, -sched-*,
#   -places-*, -limit, -passive), the affinity display's and the error
#   directive's peer programs,
#   clang-runtime-team-libomp and stress-libgomp(-nested)
#   tests, decode-tokens-identical, overhead-smoke, tasks-smoke and teams-smoke,
#   which run the peer
#   builds, and cli, which preloads the library into them). Those runtimes
#   are not instrumented, so TSan cannot see their
#   synchronisation and reports races inside them; they validate the tests,
#   not buddypool, and run in the plain build. And gomp-detach-wait and
#   gomp-barrier-detach, whose threads wait for each other through atomics
#   of their own: the OpenMP
#   test programs are not instrumented, so TSan does not see that order
#   and reports the fulfilled task's words as raced.
# The preload tests skip themselves under a sanitizer (a sanitizer runtime
# must be loaded first, which LD_PRELOAD of an instrumented library breaks),
# and install-and-link skips (a consumer of an instrumented library must
# link the sanitizer runtime too): both run in the plain build.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)
supp="$(pwd)/tools/lsan-peers.supp" # the peer runtimes' own leaks
peer_tests='-(libomp|libgomp)-[0-9a-z-]+$|^(gomp|clang)-(affinity-display|error-directive)-(libomp|libgomp)$|^clang-runtime-team-libomp$|^stress-libgomp(-nested)?$|^decode-tokens-identical$|^overhead-smoke$|^tasks-smoke$|^teams-smoke$|^gomp-detach-wait-buddypool-[0-9]$|^(clang-)?gomp-barrier-detach-buddypool-[0-9]$|^cli$'
[ $# -gt 0 ] || set -- asan tsan
for kind in "$@"; do
    case $kind in
    asan) san="address,undefined" exclude='^$' cc=gcc ;;
    # clang's TSan: gcc 12's loses track of threads in a child of fork()
    # ("dup thread with used id"), which the fork tests exercise
    tsan) san="thread" exclude=$peer_tests cc=clang-22 ;;
    *) echo "check-sanitize: unknown kind '$kind' (asan or tsan)" >&2; exit 2 ;;
    esac
    dir=build-$kind
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUDDYPOOL_SANITIZE="$san" \
          -DCMAKE_C_COMPILER="$cc" >/dev/null
    cmake --build "$dir" -j "$jobs"
    # halt at the first report; a UBSan report is an error (exit status 1)
    (cd "$dir" &&
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1 \
        LSAN_OPTIONS="suppressions=$supp" \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" \
        ctest --output-on-failure -j "$jobs" -E "$exclude")
done
