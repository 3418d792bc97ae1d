#!/bin/sh
# test-env.sh PROGRAM: bad environment values get one warning naming the
# variable and the value, and the run is still right; bad calls abort with a
# message naming the entry point.
set -u
prog=$1
cpus=$(nproc)
fails=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# expect_warn VAR VALUE: one warning naming VAR='VALUE', exit 0, results right
expect_warn() {
    env "$1=$2" "$prog" run >"$out" 2>&1
    rc=$?
    n=$(grep -c "^buddypool: $1='$2'" "$out")
    if [ $rc -ne 0 ] || [ "$n" -ne 1 ]; then
        echo "FAIL: $1='$2': exit $rc, $n warnings naming it:"; cat "$out"; fails=$((fails + 1))
    fi
}
# expect_quiet VAR VALUE PATTERN: no warning, and stdout matches PATTERN
expect_quiet() {
    env "$1=$2" "$prog" run >"$out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || grep -q "^buddypool:" "$out" || ! grep -q "$3" "$out"; then
        echo "FAIL: $1='$2': exit $rc, expected no warning and '$3':"; cat "$out"; fails=$((fails + 1))
    fi
}
# expect_abort PATTERN ARGS...: the program aborts with a message matching PATTERN
expect_abort() {
    pattern=$1
    shift
    "$prog" "$@" >"$out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] || ! grep -q "$pattern" "$out"; then
        echo "FAIL: $*: exit $rc, expected an abort saying '$pattern':"; cat "$out"; fails=$((fails + 1))
    fi
}

for v in abc -2 0 99999999999999999999 4x '' ' '; do
    expect_warn BUDDY_THREAD_POOL_THREADS "$v"
    expect_warn OMP_NUM_THREADS "$v"
    expect_warn OMP_THREAD_LIMIT "$v"
done
grep -q "max_threads=$cpus " "$out" || { echo "FAIL: a bad limit is not 'no limit'"; fails=$((fails + 1)); }
for v in abc -5 10Q 0 16 1K 99999999999999999999G 4MB; do
    expect_warn OMP_STACKSIZE "$v"
done
# malformed, negative, zero (where it is not a valid value), huge, trailing
# garbage
for v in sometimes 1 '' -1 0 99999999999999999999 activex; do expect_warn OMP_WAIT_POLICY "$v"; done
for v in -1 x 1.5 99999999999999999999 10x; do expect_warn BUDDY_THREAD_POOL_SPIN_US "$v"; done
for v in maybe 2 closed truex -1 0 99999999999999999999; do expect_warn OMP_PROC_BIND "$v"; done
for v in 3,abc 2,,1 1,0; do expect_warn OMP_NUM_THREADS "$v"; done
for v in yes 2 -1 99999999999999999999 1x; do expect_warn BUDDY_THREAD_POOL_OVERSUBSCRIBE "$v"; done
for v in yes 1 sym '' asymmetric2; do expect_warn BUDDY_THREAD_POOL_WAIT_PAIR "$v"; done
for v in auto symmetric ' Symmetric '; do expect_quiet BUDDY_THREAD_POOL_WAIT_PAIR "$v" "max_threads"; done
env BUDDY_THREAD_POOL_WAIT_PAIR=symmetric OMP_DISPLAY_ENV=verbose "$prog" run >"$out" 2>&1
grep -q "BUDDY_THREAD_POOL_WAIT_PAIR = 'symmetric'" "$out" ||
    { echo "FAIL: the verbose display does not name the symmetric pair"; cat "$out"; fails=$((fails + 1)); }
env BUDDY_THREAD_POOL_WAIT_PAIR=asymmetric OMP_WAIT_POLICY=passive "$prog" run >"$out" 2>&1
grep -q "^buddypool: BUDDY_THREAD_POOL_WAIT_PAIR=asymmetric: waits do not spin" "$out" ||
    { echo "FAIL: an asymmetric pair asked under a passive policy is not refused aloud"; cat "$out"; fails=$((fails + 1)); }
for v in yes 2 on '' -1 99999999999999999999 1x; do expect_warn BUDDY_THREAD_POOL_PROFILE "$v"; done
for v in 0 -1 abc 99999999999 16x; do expect_warn BUDDY_THREAD_POOL_PROFILE_SLOTS "$v"; done
for v in bogus dynamic,-1 dynamic,0 guided,99999999999999999999 static,4x 'static x' \
         monotonic: ''; do
    expect_warn OMP_SCHEDULE "$v"
done
for v in bogus '' '{' '{0:' '{0}x' '{99999}' '{1000}' 'threads(0)' 'cores(x)' 'sockets(2' '{0},' \
         '{0:100000000000:0}' '{1000}:1000000000000:0'; do
    expect_warn OMP_PLACES "$v"
done
for v in maybe 1 ''; do expect_warn OMP_DYNAMIC "$v"; expect_warn OMP_NESTED "$v"; done
for v in -1 x 99999999999999999999; do
    expect_warn OMP_MAX_ACTIVE_LEVELS "$v"
    expect_warn OMP_MAX_TASK_PRIORITY "$v"
done
for v in yes 1; do expect_warn OMP_DISPLAY_ENV "$v"; done
for v in yes 1 '' default2 'mandatory x'; do expect_warn OMP_TARGET_OFFLOAD "$v"; done
for v in -1 x 99999999999999999999; do expect_warn OMP_DEFAULT_DEVICE "$v"; done
for v in bogus omp_default_mem_alloc2 '' 'omp_default_mem_space:alignment=64' \
    'omp_large_cap_mem_space x'; do expect_warn OMP_ALLOCATOR "$v"; done
expect_warn BUDDY_THREAD_POOL_PROFILE_OUT ''
expect_warn BUDDY_THREAD_POOL_TRACE ''
for v in 0 -1 abc 15 99999999999 16x; do expect_warn BUDDY_THREAD_POOL_TRACE_EVENTS "$v"; done
# a path too long to keep: one warning giving its length, no JSON written
long=$(printf '/tmp/%05000d' 0)
env BUDDY_THREAD_POOL_PROFILE=1 BUDDY_THREAD_POOL_PROFILE_OUT="$long" "$prog" run >"$out" 2>&1
if [ $? -ne 0 ] || [ "$(grep -c '^buddypool: BUDDY_THREAD_POOL_PROFILE_OUT is a path of 5005 bytes' "$out")" -ne 1 ]; then
    echo "FAIL: a 5005-byte BUDDY_THREAD_POOL_PROFILE_OUT:"; head -c 2000 "$out"; fails=$((fails + 1))
fi

expect_quiet BUDDY_THREAD_POOL_THREADS 1 "max_threads=1 "
expect_quiet BUDDY_THREAD_POOL_THREADS " 1 " "max_threads=1 "
expect_quiet OMP_NUM_THREADS 1 "default_team=1"
expect_quiet OMP_NUM_THREADS 1,4 "default_team=1"
expect_quiet OMP_THREAD_LIMIT 1 "max_threads=1 "
expect_quiet OMP_STACKSIZE 2M "max_threads=$cpus "
expect_quiet OMP_STACKSIZE 512 "max_threads=$cpus "
expect_quiet OMP_STACKSIZE " 64 k " "max_threads=$cpus "
expect_quiet OMP_WAIT_POLICY passive "max_threads"
expect_quiet OMP_WAIT_POLICY ACTIVE "max_threads"
expect_quiet BUDDY_THREAD_POOL_SPIN_US 0 "max_threads"
expect_quiet OMP_PROC_BIND false "max_threads"
expect_quiet BUDDY_THREAD_POOL_PROFILE 1 "max_threads"
expect_quiet BUDDY_THREAD_POOL_PROFILE 0 "max_threads"
expect_quiet OMP_PROC_BIND spread,close "max_threads"
expect_quiet OMP_PROC_BIND TRUE "max_threads"
expect_quiet OMP_SCHEDULE dynamic,4 "max_threads"
expect_quiet OMP_SCHEDULE monotonic:guided "max_threads"
expect_quiet OMP_SCHEDULE " static " "max_threads"
for v in threads cores sockets 'threads(1)' '{0}' '{0:2}' '{0,1}:1:1' ' { 0 : 1 } '; do
    expect_quiet OMP_PLACES "$v" "max_threads"
done
expect_quiet OMP_DYNAMIC TRUE "max_threads"
expect_quiet OMP_NESTED false "max_threads"
expect_quiet OMP_MAX_ACTIVE_LEVELS 0 "max_threads"
expect_quiet OMP_MAX_TASK_PRIORITY 5 "max_threads"
expect_quiet OMP_DISPLAY_ENV true "OPENMP DISPLAY ENVIRONMENT END"
expect_quiet OMP_DISPLAY_ENV VERBOSE "BUDDY_THREAD_POOL_SPIN_US"
expect_quiet OMP_DISPLAY_ENV true "OMP_TARGET_OFFLOAD = 'DEFAULT'"
# libomp's KMP_SETTINGS: the verbose display, in libomp's boolean words
for v in 1 true ON yes .TRUE.; do expect_quiet KMP_SETTINGS "$v" "BUDDY_THREAD_POOL_SPIN_US"; done
for v in maybe 2 ''; do expect_warn KMP_SETTINGS "$v"; done
# libomp's KMP_TEAMS_PROC_BIND: host teams are not placed here, said
for v in spread close primary; do expect_warn KMP_TEAMS_PROC_BIND "$v"; done
env KMP_SETTINGS=0 "$prog" run >"$out" 2>&1
! grep -q "DISPLAY ENVIRONMENT" "$out" || { echo "FAIL: KMP_SETTINGS=0 displays"; fails=$((fails + 1)); }
env KMP_SETTINGS=1 OMP_DISPLAY_ENV=false "$prog" run >"$out" 2>&1
! grep -q "DISPLAY ENVIRONMENT" "$out" || { echo "FAIL: OMP_DISPLAY_ENV=false does not win over KMP_SETTINGS"; fails=$((fails + 1)); }
expect_quiet OMP_TARGET_OFFLOAD " Mandatory " "max_threads"
expect_quiet OMP_TARGET_OFFLOAD disabled "max_threads"
expect_quiet OMP_DEFAULT_DEVICE 3 "max_threads"
for v in bogus 'granularity=tile,compact' 'granularity=core' 'explicit,proclist=' \
    'explicit'; do expect_warn KMP_AFFINITY "$v"; done
# KMP_HW_SUBSET (libomp's): what is not understood, or asks for more than
# the machine has, warns and keeps every CPU
for v in xx 1c:intel_core 1L2 99999s 1c,1c 0t; do expect_warn KMP_HW_SUBSET "$v"; done
expect_warn KMP_PLACE_THREADS 1q
# KMP_AFFINITY (libomp's) as places and bind-var, unless OMP_* say otherwise
# places_is ENV... PATTERN: the places mode prints PATTERN, with no warning
places_is() {
    pattern=$(eval echo "\${$#}")
    env_args=""
    while [ $# -gt 1 ]; do env_args="$env_args $1"; shift; done
    # shellcheck disable=SC2086
    env $env_args "$prog" places >"$out" 2>&1
    if [ $? -ne 0 ] || grep -q "^buddypool:" "$out" || ! grep -q "$pattern" "$out"; then
        echo "FAIL:$env_args: expected no warning and '$pattern':"; cat "$out"; fails=$((fails + 1))
    fi
}
places_is KMP_AFFINITY=disabled "bind=0 places=0:"
places_is KMP_AFFINITY=none "bind=0 places=0:"
places_is KMP_AFFINITY=granularity=fine,scatter "bind=4 places=$cpus:"
places_is KMP_AFFINITY=verbose,granularity=thread,compact "bind=3 places=$cpus:"
places_is KMP_AFFINITY=granularity=socket,compact "bind=3 places=[1-9]"
places_is KMP_AFFINITY=explicit,proclist=[0] "bind=3 places=1: {0}$"
places_is KMP_AFFINITY=disabled OMP_PROC_BIND=spread "bind=4"
# one socket's first core's first thread: one CPU on any machine, under
# either name, and the abstract places over it
places_is KMP_HW_SUBSET=1s,1c,1t "procs=1 bind=3 places=1: {[0-9]*}$"
places_is KMP_PLACE_THREADS=1s,1c,1t "procs=1 bind=3 places=1: {[0-9]*}$"
places_is KMP_HW_SUBSET=1s,1c,1t OMP_PLACES=cores "procs=1 bind=1 places=1: {[0-9]*}$"
if [ "$cpus" -ge 2 ]; then
    places_is 'KMP_AFFINITY=granularity=fine,explicit,proclist=[1,0]' "places=2: {1} {0}$"
    places_is KMP_AFFINITY=explicit,proclist=[0-1] "places=2: {0} {1}$"
    places_is KMP_AFFINITY=scatter OMP_PLACES={1} "bind=1 places=1: {1}$"
    # the exclusion operator before a place: the places equal to it go
    places_is 'OMP_PLACES={0},{1},!{1}' "places=1: {0}$"
    places_is 'OMP_PLACES={0}:2,!{0}' "places=1: {1}$"
    places_is 'OMP_PLACES={0,1},!{1}' "places=1: {0,1}$"
fi
# nothing left, or no place after the operator
for v in '!' '!{0}' '{0},!' '{0},!x' '{0},!{0}'; do expect_warn OMP_PLACES "$v"; done
expect_quiet OMP_DISPLAY_ENV true "OMP_ALLOCATOR = 'omp_default_mem_alloc'"
expect_quiet OMP_DISPLAY_ENV true "OMP_AFFINITY_FORMAT = 'level %L thread %i affinity %A'"
# OMP_ALLOCATOR: an allocator's name, or a memory space's (its allocator)
for v in omp_thread_mem_alloc:omp_thread_mem_alloc ' OMP_PTEAM_MEM_ALLOC ':omp_pteam_mem_alloc \
    omp_high_bw_mem_space:omp_high_bw_mem_alloc; do
    env "OMP_ALLOCATOR=${v%%:*}" OMP_DISPLAY_ENV=true "$prog" run >"$out" 2>&1
    if [ $? -ne 0 ] || grep -q "^buddypool:" "$out" || ! grep -q "OMP_ALLOCATOR = '${v#*:}'" "$out"; then
        echo "FAIL: OMP_ALLOCATOR='${v%%:*}': expected no warning and ${v#*:}:"; cat "$out"
        fails=$((fails + 1))
    fi
done

"$prog" args 64 >"$out" 2>&1 || { echo "FAIL: 64 region arguments:"; cat "$out"; fails=$((fails + 1)); }
expect_abort "__kmpc_fork_call: 65 region arguments; at most 64" args 65
expect_abort "__kmpc_for_static_init_4: unsupported schedule type 35" schedule

if [ $fails -ne 0 ]; then
    echo "test-env: $fails failures"
    exit 1
fi
echo "test-env: every bad value warned once and the runs were right"
