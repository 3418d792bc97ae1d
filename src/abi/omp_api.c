/* omp_api.c: the OpenMP user calls (`omp_*`): queries of the pool's
 * threads and teams, the settings a program may change, the places API
 * over places.c's list, and locks. */
#include <sched.h>
#include <stdint.h>

#include "abi.h"
#include "../internal.h"
#include "../prim.h"

BP_API int omp_get_thread_num(void) { return bp_self()->tid; }

BP_API int omp_get_num_threads(void) { return bp_self()->team_size; }

/* nthreads-var of the calling task (the default team when unset), as
 * libgomp and libomp answer it: the team a region gets may still be
 * smaller (the limits, dyn-var, a nested region inside an active one). */
BP_API int omp_get_max_threads(void)
{
    struct bp_thread *t = bp_self();
    bp_peers_look(t); /* libgomp's set behind buddypool's back (peer.c) */
    int n = bp_icv(t)->nthreads;
    return n > 0 ? n : bp_default_team();
}

BP_API void omp_set_num_threads(int num_threads)
{
    if (num_threads <= 0) {
        bp_warn("omp_set_num_threads(%d): the count must be positive; ignored",
                num_threads);
        return;
    }
    struct bp_thread *t = bp_self();
    bp_icv_set(t)->nthreads = num_threads;
    bp_peers_set(t, num_threads); /* and libgomp's, loaded beside (peer.c) */
}

BP_API int omp_in_parallel(void) { return bp_self()->active_level > 0; }

BP_API double omp_get_wtime(void) { return (double)bp_now_ns() * 1e-9; }

/* The CPUs the process may run on: as the pool found them when the calling
 * thread may be bound to a place of them, else its own affinity now. */
BP_API int omp_get_num_procs(void)
{
    bp_config_load();
    if (bp_config.pin_caller || bp_config.hw_subset != NULL)
        return bp_pool_cpus();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    return CPU_COUNT(&set);
}

BP_API int omp_get_level(void) { return bp_self()->level; }

BP_API int omp_get_active_level(void) { return bp_self()->active_level; }

BP_API int omp_get_ancestor_thread_num(int level)
{
    int tid, size;
    return bp_ancestor(bp_self(), level, &tid, &size) ? tid : -1;
}

BP_API int omp_get_team_size(int level)
{
    int tid, size;
    return bp_ancestor(bp_self(), level, &tid, &size) ? size : -1;
}

BP_API int omp_get_thread_limit(void) { return bp_thread_limit_var(bp_icv(bp_self())); }

/* dyn-var, of the calling task: when true, a team is no larger than the
 * allowed CPUs (libgomp and libomp shrink such teams too). */
BP_API void omp_set_dynamic(int dynamic) { bp_icv_set(bp_self())->dynamic = dynamic != 0; }

BP_API int omp_get_dynamic(void) { return bp_icv(bp_self())->dynamic; }

/* max-active-levels-var, of the calling task: regions nested in that many
 * active ones run on one thread. A request beyond the supported levels sets
 * them all, as OpenMP says; 0 makes every region inactive. */
BP_API void omp_set_max_active_levels(int levels)
{
    if (levels < 0) {
        bp_warn("omp_set_max_active_levels(%d): the count must not be negative; ignored",
                levels);
        return;
    }
    bp_icv_set(bp_self())->max_active_levels =
        levels < BP_SUPPORTED_LEVELS ? levels : BP_SUPPORTED_LEVELS;
}

BP_API int omp_get_max_active_levels(void) { return bp_icv(bp_self())->max_active_levels; }

BP_API int omp_get_supported_active_levels(void) { return BP_SUPPORTED_LEVELS; }

/* run-sched-var of the calling task, the monotonic modifier kept, libomp's
 * trapezoidal kind (101) too. A chunk below 1 means the default (0 for static, as libgomp and libomp give it
 * back; 1 for the others). */
BP_API void omp_set_schedule(omp_sched_t kind, int chunk)
{
    int k = (int)((unsigned)kind & ~(unsigned)omp_sched_monotonic);
    if ((k < omp_sched_static || k > omp_sched_auto) && k != BP_OMP_TRAPEZOIDAL) {
        bp_warn("omp_set_schedule(%d, %d): unknown schedule kind; ignored", (int)kind, chunk);
        return;
    }
    struct bp_icv *icv = bp_icv_set(bp_self());
    icv->run_sched = (int)kind;
    icv->run_chunk = chunk > 0 && k != omp_sched_auto ? chunk : 0; /* auto takes no chunk */
}

BP_API void omp_get_schedule(omp_sched_t *kind, int *chunk)
{
    const struct bp_icv *icv = bp_icv(bp_self());
    int k = icv->run_sched & ~omp_sched_monotonic;
    *kind = (omp_sched_t)icv->run_sched;
    *chunk = icv->run_chunk > 0 ? (int)icv->run_chunk : (k == omp_sched_static ? 0 : 1);
}

BP_API double omp_get_wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}

/* bind-var of the calling task: OMP_PROC_BIND's entry for its level; unset,
 * close (worker i sits on the i-th place from its forker's), true with
 * OMP_PLACES. With a binding asked for, each region's threads are placed
 * by its policy (go.c, places.c's bp_place_assign). */
BP_API omp_proc_bind_t omp_get_proc_bind(void)
{
    return (omp_proc_bind_t)bp_icv(bp_self())->proc_bind;
}

/* ---- locks -------------------------------------------------------------
 * A simple lock is one 32-bit word (bp_lock), so it fits gcc's 4-byte
 * omp_lock_t as well as libomp's pointer-sized one. A nestable lock is two
 * words, fitting libomp's 8-byte omp_nest_lock_t and gcc's 16 bytes:
 *   owner: 0 free, else the owning task's number (nest_id), with bit 31
 *          set while a thread may sleep on it;
 *   count: how many times the owner holds it. */
typedef struct {
    _Atomic uint32_t word;
} bp_omp_lock;
typedef struct {
    _Atomic uint32_t owner;
    uint32_t count; /* read and written by the owner only */
} bp_omp_nest_lock;

#define WAITERS 0x80000000u

__attribute__((noinline)) void bp_abi_lock_heard(_Atomic uint32_t *word, int kind,
                                                const void *id)
{
    bp_hook_mutex(kind, BP_LOCK_ACQUIRE, id);
    bp_lock(word);
    bp_hook_mutex(kind, BP_LOCK_ACQUIRED, id);
}

__attribute__((noinline)) void bp_abi_unlock_heard(_Atomic uint32_t *word, int kind,
                                                  const void *id)
{
    bp_hook_mutex(kind, BP_LOCK_RELEASED, id);
    bp_unlock(word);
}

/* A lock's creation is an OpenMP event a tool hears of: the runtime (and
 * its tool) starts here if nothing started it before, as libomp's does. */
BP_API void omp_init_lock(void *lock)
{
    bp_pool_ensure_init();
    atomic_store_explicit(&((bp_omp_lock *)lock)->word, 0, memory_order_relaxed);
    bp_hook_mutex(BP_MUTEX_LOCK, BP_LOCK_INIT, lock);
}

BP_API void omp_init_lock_with_hint(void *lock, int hint)
{
    (void)hint;
    omp_init_lock(lock);
}

BP_API void omp_destroy_lock(void *lock) { bp_hook_mutex(BP_MUTEX_LOCK, BP_LOCK_DESTROY, lock); }

/* The listeners hear of every lock taken and let go of (hooks.h), each
 * release before the lock is free for another thread. */
BP_API void omp_set_lock(void *lock)
{
    bp_abi_lock(&((bp_omp_lock *)lock)->word, BP_MUTEX_LOCK, lock);
}

BP_API void omp_unset_lock(void *lock)
{
    bp_abi_unlock(&((bp_omp_lock *)lock)->word, BP_MUTEX_LOCK, lock);
}

BP_API int omp_test_lock(void *lock)
{
    bp_hook_mutex(BP_MUTEX_TEST_LOCK, BP_LOCK_ACQUIRE, lock);
    int got = bp_trylock(&((bp_omp_lock *)lock)->word);
    if (got)
        bp_hook_mutex(BP_MUTEX_TEST_LOCK, BP_LOCK_ACQUIRED, lock);
    return got;
}

BP_API void omp_init_nest_lock(void *lock)
{
    bp_pool_ensure_init();
    bp_omp_nest_lock *l = lock;
    atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
    l->count = 0;
    bp_hook_mutex(BP_MUTEX_NEST_LOCK, BP_LOCK_INIT, lock);
}

BP_API void omp_init_nest_lock_with_hint(void *lock, int hint)
{
    (void)hint;
    omp_init_nest_lock(lock);
}

BP_API void omp_destroy_nest_lock(void *lock)
{
    bp_hook_mutex(BP_MUTEX_NEST_LOCK, BP_LOCK_DESTROY, lock);
}

/* A nestable lock is owned by a task, as OpenMP says (and libgomp does):
 * the implicit task of a region the owner forks, even a team of one, is
 * another owner. Each implicit task that uses one gets a number of its own
 * (a region's tasks start without one). */
static _Atomic uint32_t next_task_id;

static uint32_t nest_id(void)
{
    struct bp_thread *t = bp_self();
    while (t->task_id == 0)
        /* relaxed: the numbers only need to differ; 0 and the WAITERS bit
         * are never one */
        t->task_id = (atomic_fetch_add_explicit(&next_task_id, 1, memory_order_relaxed) + 1) &
                     ~WAITERS;
    return t->task_id;
}

/* Take the nest lock if it is free (or already ours): its new count, else 0. */
static int nest_try(bp_omp_nest_lock *l, uint32_t me, uint32_t mark)
{
    uint32_t cur = atomic_load_explicit(&l->owner, memory_order_relaxed);
    if ((cur & ~WAITERS) == me)
        return (int)++l->count;
    uint32_t expected = 0;
    /* acquire: the section reads what the last owner wrote */
    if (atomic_compare_exchange_strong_explicit(&l->owner, &expected, me | mark,
                                                memory_order_acquire, memory_order_relaxed)) {
        l->count = 1;
        return 1;
    }
    return 0;
}

/* What the listeners hear of a nestable lock taken: the first time, or
 * again by its owner (n its count). */
static int nest_heard(void *lock, int kind, int n)
{
    if (n > 0)
        bp_hook_mutex(kind, n == 1 ? BP_LOCK_ACQUIRED : BP_LOCK_NEST_ACQUIRED, lock);
    return n;
}

BP_API int omp_test_nest_lock(void *lock)
{
    bp_hook_mutex(BP_MUTEX_TEST_NEST_LOCK, BP_LOCK_ACQUIRE, lock);
    return nest_heard(lock, BP_MUTEX_TEST_NEST_LOCK, nest_try(lock, nest_id(), 0));
}

static void nest_set(void *lock)
{
    bp_omp_nest_lock *l = lock;
    uint32_t me = nest_id();
    if (nest_heard(lock, BP_MUTEX_NEST_LOCK, nest_try(l, me, 0)))
        return;
    /* spin a while, as bp_lock does, before sleeping */
    struct bp_lock_backoff b = {0};
    while (bp_lock_backoff(&b))
        if (atomic_load_explicit(&l->owner, memory_order_relaxed) == 0 &&
            nest_heard(lock, BP_MUTEX_NEST_LOCK, nest_try(l, me, 0)))
            return;
    for (;;) {
        uint32_t cur = atomic_load_explicit(&l->owner, memory_order_relaxed);
        /* mark the lock so its owner wakes us, then sleep while it is held;
         * once woken, take it marked: others may still sleep on it */
        if (cur != 0 && !(cur & WAITERS) &&
            !atomic_compare_exchange_weak_explicit(&l->owner, &cur, cur | WAITERS,
                                                   memory_order_relaxed, memory_order_relaxed))
            continue;
        if (cur != 0)
            bp_futex_wait(&l->owner, cur | WAITERS);
        if (nest_heard(lock, BP_MUTEX_NEST_LOCK, nest_try(l, me, WAITERS)))
            return;
    }
}

BP_API void omp_set_nest_lock(void *lock)
{
    bp_hook_mutex(BP_MUTEX_NEST_LOCK, BP_LOCK_ACQUIRE, lock);
    nest_set(lock);
}

BP_API void omp_unset_nest_lock(void *lock)
{
    bp_omp_nest_lock *l = lock;
    if (--l->count > 0) {
        bp_hook_mutex(BP_MUTEX_NEST_LOCK, BP_LOCK_NEST_RELEASED, lock);
        return;
    }
    bp_hook_mutex(BP_MUTEX_NEST_LOCK, BP_LOCK_RELEASED, lock);
    /* release: publishes the section to the next owner */
    if (atomic_exchange_explicit(&l->owner, 0, memory_order_release) & WAITERS)
        bp_futex_wake(&l->owner, 1);
}

/* ---- the rest of the calls older and device-aware programs make --------- */

/* Deprecated (OpenMP 5.0): nested parallelism, as max-active-levels-var
 * expresses it now. As in libgomp: true allows every supported level, false
 * brings a count above one down to one; nested is on while more than one
 * level, and more than the enclosing active ones, may be active. */
BP_API void omp_set_nested(int nested)
{
    struct bp_icv *icv = bp_icv_set(bp_self());
    if (nested)
        icv->max_active_levels = BP_SUPPORTED_LEVELS;
    else if (icv->max_active_levels > 1)
        icv->max_active_levels = 1;
}

BP_API int omp_get_nested(void)
{
    struct bp_thread *t = bp_self();
    int max = bp_icv(t)->max_active_levels;
    return max > 1 && max > t->active_level;
}

/* Is the calling task final (or included in a final one)? */
BP_API int omp_in_final(void) { return bp_task_in_final(bp_self()); }

/* No offload devices: everything runs on the host, the initial device. */
BP_API int omp_get_num_devices(void) { return 0; }

BP_API int omp_get_initial_device(void) { return 0; }

/* default-device-var: any number is kept (libgomp checks none); target.c
 * says what a number other than the host's means. */
BP_API int omp_get_default_device(void) { return bp_icv(bp_self())->default_device; }

BP_API void omp_set_default_device(int device) { bp_icv_set(bp_self())->default_device = device; }

BP_API int omp_is_initial_device(void) { return 1; }

BP_API int omp_get_device_num(void) { return 0; }

/* cancel-var: OMP_CANCELLATION (cancel.c). */
BP_API int omp_get_cancellation(void)
{
    bp_config_load();
    return bp_config.cancellation;
}

/* max-task-priority-var (OMP_MAX_TASK_PRIORITY); priorities are hints. */
BP_API int omp_get_max_task_priority(void)
{
    bp_config_load();
    return bp_config.max_task_priority;
}

/* Pausing the host (1 soft, 2 hard, alike): the pool's workers end, as
 * libgomp's do for both kinds, and the next region starts new ones
 * (life.c's bp_pool_pause); -1 inside a region, for a device there is
 * not, or an unknown kind. The host is its device number or
 * omp_initial_device (-1), as OpenMP 5.1 has it. */
BP_API int omp_pause_resource(int kind, int device_num)
{
    if ((kind != 1 && kind != 2) || (device_num != omp_get_initial_device() && device_num != -1))
        return -1;
    return bp_pool_pause();
}

BP_API int omp_pause_resource_all(int kind)
{
    return kind == 1 || kind == 2 ? bp_pool_pause() : -1;
}

/* ---- the OpenMP places API ------------------------------------------------ */

/* The places listed (bp_places_listed), the pool's configuration started. */
static int listed(void)
{
    bp_max_team(); /* starts the pool's configuration, places included */
    return bp_places_listed();
}

BP_API int omp_get_num_places(void) { return listed(); }

BP_API int omp_get_place_num_procs(int place)
{
    if (place < 0 || place >= listed())
        return 0;
    return CPU_COUNT(bp_place_set(place));
}

BP_API void omp_get_place_proc_ids(int place, int *ids)
{
    if (place < 0 || place >= listed() || ids == NULL)
        return;
    const cpu_set_t *set = bp_place_set(place);
    int k = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, set))
            ids[k++] = cpu;
}

/* The place the calling thread is bound to; -1 when it is not bound (an
 * application thread that OMP_PROC_BIND does not pin). */
BP_API int omp_get_place_num(void)
{
    if (listed() == 0)
        return -1;
    struct bp_thread *t = bp_self();
    if (t->level == 0)
        bp_bind_caller(); /* the initial thread is bound from the start */
    return t->place;
}

/* The calling task's place partition: the whole list, divided among a
 * team's threads by proc_bind(spread) (places.c, bp_place_assign). */
BP_API int omp_get_partition_num_places(void)
{
    if (listed() == 0)
        return 0;
    int c = bp_self()->part_count;
    return c > 0 ? c : bp_places_count();
}

BP_API void omp_get_partition_place_nums(int *place_nums)
{
    int n = omp_get_partition_num_places();
    int first = bp_self()->part_count > 0 ? bp_self()->part_first : 0;
    for (int p = 0; p < n && place_nums != NULL; p++)
        place_nums[p] = first + p;
}

/* ---- omp_display_env ----------------------------------------------------
 * The ICVs as OpenMP names them, on stderr (display.c). */
BP_API void omp_display_env(int verbose) { bp_display_env(verbose, bp_default_team_info()); }

/* ---- libomp's other names and symbols --------------------------------------
 * libomp exports the ompc_* names of some routines (older kmp headers call
 * them), the predefined allocators and memory spaces as constants (headers
 * that declared them extern), omp_in_explicit_task and omp_control_tool. */
BP_API void ompc_set_num_threads(int n) __attribute__((alias("omp_set_num_threads")));
BP_API void ompc_set_dynamic(int d) __attribute__((alias("omp_set_dynamic")));
BP_API void ompc_set_nested(int n) __attribute__((alias("omp_set_nested")));
BP_API void ompc_set_max_active_levels(int l) __attribute__((alias("omp_set_max_active_levels")));
BP_API void ompc_set_schedule(omp_sched_t kind, int chunk)
    __attribute__((alias("omp_set_schedule")));
BP_API int ompc_get_ancestor_thread_num(int level)
    __attribute__((alias("omp_get_ancestor_thread_num")));
BP_API int ompc_get_team_size(int level) __attribute__((alias("omp_get_team_size")));

BP_API const uintptr_t omp_null_allocator = 0, omp_default_mem_alloc = 1,
                       omp_large_cap_mem_alloc = 2, omp_const_mem_alloc = 3,
                       omp_high_bw_mem_alloc = 4, omp_low_lat_mem_alloc = 5,
                       omp_cgroup_mem_alloc = 6, omp_pteam_mem_alloc = 7,
                       omp_thread_mem_alloc = 8;
/* gcc's numbering (the default space 0), which alloc.c takes with LLVM's 99 */
BP_API const uintptr_t omp_default_mem_space = 0, omp_large_cap_mem_space = 1,
                       omp_const_mem_space = 2, omp_high_bw_mem_space = 3,
                       omp_low_lat_mem_space = 4;

/* Is the calling task an explicit one (OpenMP 5.2)? */
BP_API int omp_in_explicit_task(void)
{
    struct bp_thread *t = bp_self();
    return t->task != NULL && !(t->task->flags & BP_TASK_IMPLICIT);
}

/* Passed to the OMPT tool's control_tool callback (the runtime started
 * first: that is when a tool is found); omp_control_tool_notool (-2)
 * without a tool, _nocallback (-1) when it set none. */
BP_API int omp_control_tool(int command, int modifier, void *arg)
{
    bp_pool_ensure_init();
    return bp_hook_control_tool((uint64_t)(int64_t)command, (uint64_t)(int64_t)modifier, arg,
                                __builtin_return_address(0));
}
