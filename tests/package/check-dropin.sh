#!/bin/sh
# check-dropin.sh BUILD_DIR PROGRAM:RUNTIME...: drop-in mode. Each PROGRAM
# (openmp-program.c, linked with the real libgomp, libomp or both, named by
# RUNTIME: gomp, omp or gomp+omp) must
#  - without LD_LIBRARY_PATH, map a real runtime and no buddypool;
#  - with LD_LIBRARY_PATH=BUILD_DIR/dropin, map the drop-in library of each
#    runtime it needs, one libbuddypool (the build's), no real runtime, run
#    its region on a team of OMP_NUM_THREADS, and with
#    BUDDY_THREAD_POOL_PROFILE=1 print buddypool's profile at exit; with no
#    message from the dynamic linker about versions.
# A PROGRAM:missing (tests/preload/libomp-only.c, linked with libomp: it
# calls libomp entry points buddypool lacks, first
# __kmp_get_reduce_method) must, with the drop-in, get buddypool's
# start-up warning naming the drop-in and the entry points and saying that
# a call to one ends the program, which then does at its first.
set -eu
if [ -n "${BP_SKIP:-}" ]; then
    echo "skipped: $BP_SKIP"
    exit 77
fi
build=$(cd "$1" && pwd)
shift
dropin=$build/dropin
lib=$(realpath "$build/libbuddypool.so.0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; exit 1; }
for arg in "$@"; do
    prog=${arg%:*} runtimes=${arg##*:}
    name=$(basename "$prog")
    if [ "$runtimes" = missing ]; then
        if env -u LD_PRELOAD LD_LIBRARY_PATH="$dropin" "$prog" >"$tmp/out" 2>"$tmp/err"; then
            fail "$name runs to its end with the drop-in, though it calls __kmp_get_reduce_method"
        fi
        tr '\n' ' ' <"$tmp/err" | sed 's/  */ /g' >"$tmp/warning"
        grep -q "buddypool: $dropin/libomp.so.5 is buddypool's drop-in, which defines nothing" \
            "$tmp/warning" || fail "$name: no start-up warning naming the drop-in"
        grep -q "a call to one ends the program (undefined symbol):.* __kmp_get_reduce_method,.* kmp_threadprivate_insert_private_data" \
            "$tmp/warning" || fail "$name: the warning does not name the missing entry points"
        grep -q "symbol lookup error.*__kmp_get_reduce_method" "$tmp/err" ||
            fail "$name: did not end at its call of __kmp_get_reduce_method"
        echo "$name: warned at start-up, ended at its call of __kmp_get_reduce_method"
        continue
    fi
    # real runtimes
    env -u LD_LIBRARY_PATH -u LD_PRELOAD OMP_NUM_THREADS=2 "$prog" >"$tmp/out" 2>"$tmp/err" ||
        fail "$name does not run on its own runtime"
    grep -Eq "^mapped .*/lib(g?omp)\.so" "$tmp/out" || fail "$name: no runtime mapped without the drop-in"
    ! grep -q "libbuddypool" "$tmp/out" || fail "$name maps buddypool without the drop-in"
    # drop-in
    env -u LD_PRELOAD LD_LIBRARY_PATH="$dropin" OMP_NUM_THREADS=3 BUDDY_THREAD_POOL_PROFILE=1 \
        "$prog" >"$tmp/out" 2>"$tmp/err" || fail "$name fails with the drop-in"
    grep -qx "team 3" "$tmp/out" || fail "$name: not a team of 3"
    for r in $(echo "$runtimes" | tr + ' '); do
        grep -qx "mapped $dropin/lib$r\.so\.[0-9]*" "$tmp/out" || fail "$name: the drop-in lib$r is not mapped"
    done
    [ "$(grep -c '^mapped ' "$tmp/out")" -eq "$(( $(echo "$runtimes" | tr + '\n' | wc -l) + 1 ))" ] ||
        fail "$name: other runtime files mapped beside the drop-in"
    grep -qx "mapped $lib" "$tmp/out" || fail "$name: $lib is not mapped"
    grep -q "^buddypool profile: 3 threads, 1 regions" "$tmp/err" ||
        fail "$name: no buddypool profile of its region at exit"
    ! grep -qE 'no version information|version `' "$tmp/err" ||
        fail "$name: the dynamic linker complains about versions"
    echo "$name: ran on buddypool through $(grep '^mapped' "$tmp/out" | grep -v libbuddypool | sed 's/^mapped //' | tr '\n' ' ')"
done
echo "check-dropin: every program ran its region on buddypool"
