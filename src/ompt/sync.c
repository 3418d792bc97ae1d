/* sync.c: the tool interface's synchronization events: sync regions and
 * their waits (barriers, reductions, taskwait, taskgroup; the closing
 * barrier of a region is events.c's), reductions, and locks of every kind.
 *
 * A sync region's begin comes with its wait's begin, and its end after
 * its wait's end: buddypool's waits are the regions' whole span. The
 * task handed over is the thread's innermost, the region its team's; a
 * thread's state says what it waits for, and for a lock which one (its
 * wait id, the lock's address).
 *
 * Reductions. A tool that orders memory by the callbacks (Archer) must see
 * every thread's data published before the folding thread reads it, and
 * the fold over before any thread reuses its data. So a reduction is two
 * implementation barriers: the first from each thread's arrival to the
 * folder having seen every thread's data (a thread that does not fold ends
 * it when it has published its own), the second from there to the fold's
 * release (the folder begins and ends it as it releases); the fold itself
 * is a reduction event between the two. thread->reduce says which is open:
 * 1 the first, 2 the second, 3 the fold. */
#include <stdint.h>

#include "ompt.h"
#include "../listeners.h"

/* The sync region of a bp_sync kind, and the state of a thread that waits
 * there. */
static int region_of(int kind)
{
    switch (kind) {
    case BP_SYNC_BARRIER:
        return ompt_sync_region_barrier_explicit;
    case BP_SYNC_BARRIER_IMPLICIT:
        return ompt_sync_region_barrier_implicit_workshare;
    case BP_SYNC_TASKWAIT:
        return ompt_sync_region_taskwait;
    case BP_SYNC_TASKGROUP:
        return ompt_sync_region_taskgroup;
    default: /* the runtime's barriers, a reduction's */
        return ompt_sync_region_barrier_implementation;
    }
}

static ompt_state_t wait_state(int region)
{
    switch (region) {
    case ompt_sync_region_barrier_explicit:
        return ompt_state_wait_barrier_explicit;
    case ompt_sync_region_barrier_implicit_workshare:
        return ompt_state_wait_barrier_implicit_workshare;
    case ompt_sync_region_taskwait:
        return ompt_state_wait_taskwait;
    case ompt_sync_region_taskgroup:
        return ompt_state_wait_taskgroup;
    default:
        return ompt_state_wait_barrier_implementation;
    }
}

/* The calling thread's innermost task begins or ends a sync region. */
static void send(int region, int begin)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    bp_ompt_sync_send(region, begin, t != NULL ? t->parallel : NULL, bp_ompt_data_of(t));
    th->state = begin ? wait_state(region) : bp_ompt_work_state(th);
}

static void reduction_cb(int endpoint)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    bp_ompt_sync_cb(ompt_callback_reduction, ompt_sync_region_reduction, endpoint,
            t != NULL ? t->parallel : NULL, bp_ompt_data_of(t));
    th->state = endpoint == ompt_scope_begin ? ompt_state_work_reduction : bp_ompt_work_state(th);
}

void bp_ompt_barrier_arrive(int kind)
{
    send(region_of(kind), 1);
    if (kind == BP_SYNC_REDUCTION)
        bp_ompt_tls.reduce = 1;
}

void bp_ompt_barrier_release(int kind)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    if (kind != BP_SYNC_REDUCTION) {
        send(region_of(kind), 0);
        return;
    }
    int open = th->reduce;
    th->reduce = open == 3 ? 3 : 0; /* a fold goes on: its end closes it */
    if (open == 1 || open == 2) /* the first barrier (a team of one, a
                                 * cancelled reduction) or the second */
        send(ompt_sync_region_barrier_implementation, 0);
}

void bp_ompt_reduce_step(int step)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    switch (step) {
    case BP_REDUCE_ARRIVED: /* published: the first barrier is over, the second begins */
        send(ompt_sync_region_barrier_implementation, 0);
        send(ompt_sync_region_barrier_implementation, 1);
        th->reduce = 2;
        break;
    case BP_REDUCE_GATHERED: /* every thread's data seen: the fold begins */
        send(ompt_sync_region_barrier_implementation, 0);
        reduction_cb(ompt_scope_begin);
        th->reduce = 3;
        break;
    case BP_REDUCE_FOLDED: /* the release follows: the second barrier, at once */
        if (th->reduce != 3)
            break;
        reduction_cb(ompt_scope_end);
        send(ompt_sync_region_barrier_implementation, 1);
        send(ompt_sync_region_barrier_implementation, 0);
        th->reduce = 0;
        break;
    }
}

void bp_ompt_sync(int kind, int begin)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    /* a taskgroup opens with its region alone, its wait comes at its end;
     * a taskwait with dependences is all wait */
    int region = region_of(kind);
    if (kind == BP_SYNC_TASKGROUP) {
        bp_ompt_sync_cb(ompt_callback_sync_region, region, begin ? ompt_scope_begin : ompt_scope_end,
                t != NULL ? t->parallel : NULL, bp_ompt_data_of(t));
        return;
    }
    send(region, begin);
}

/* A task wait: a taskwait's region and wait, or a taskgroup's wait and
 * the end of its region (bp_ompt_sync began it). */
void bp_ompt_task_wait(int kind, int begin)
{
    if (kind == BP_SYNC_NONE)
        return;
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    ompt_data_t *parallel = t != NULL ? t->parallel : NULL, *task = bp_ompt_data_of(t);
    int region = region_of(kind);
    if (kind == BP_SYNC_TASKGROUP) {
        bp_ompt_sync_cb(ompt_callback_sync_region_wait, region, begin ? ompt_scope_begin : ompt_scope_end,
                parallel, task);
        if (!begin)
            bp_ompt_sync_cb(ompt_callback_sync_region, region, ompt_scope_end, parallel, task);
    } else {
        bp_ompt_sync_send(region, begin, parallel, task);
    }
    th->state = begin ? wait_state(region) : bp_ompt_work_state(th);
}

/* ---- locks ---------------------------------------------------------------- */

static const ompt_mutex_t mutex_of[] = {
    [BP_MUTEX_LOCK] = ompt_mutex_lock,
    [BP_MUTEX_TEST_LOCK] = ompt_mutex_test_lock,
    [BP_MUTEX_NEST_LOCK] = ompt_mutex_nest_lock,
    [BP_MUTEX_TEST_NEST_LOCK] = ompt_mutex_test_nest_lock,
    [BP_MUTEX_CRITICAL] = ompt_mutex_critical,
    [BP_MUTEX_ATOMIC] = ompt_mutex_atomic,
    [BP_MUTEX_ORDERED] = ompt_mutex_ordered,
};

static ompt_state_t lock_state(ompt_mutex_t kind)
{
    switch (kind) {
    case ompt_mutex_critical:
        return ompt_state_wait_critical;
    case ompt_mutex_atomic:
        return ompt_state_wait_atomic;
    case ompt_mutex_ordered:
        return ompt_state_wait_ordered;
    default:
        return ompt_state_wait_lock;
    }
}

/* The implementation the tool is told (ompt_enumerate_mutex_impls): a
 * spin-then-futex lock for every kind. */
enum { MUTEX_IMPL = 1 };

void bp_ompt_mutex(int kind, int what, const void *wait_id)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    ompt_mutex_t k = mutex_of[kind];
    ompt_wait_id_t id = (ompt_wait_id_t)(uintptr_t)wait_id;
    switch (what) {
    case BP_LOCK_INIT:
    case BP_LOCK_ACQUIRE: {
        int event = what == BP_LOCK_INIT ? ompt_callback_lock_init : ompt_callback_mutex_acquire;
        ompt_callback_mutex_acquire_t cb = (ompt_callback_mutex_acquire_t)bp_ompt_callback(event);
        if (what == BP_LOCK_ACQUIRE) {
            th->state = lock_state(k);
            th->wait_id = id;
        }
        if (cb != NULL)
            cb(k, 0, MUTEX_IMPL, id, NULL);
        break;
    }
    case BP_LOCK_DESTROY:
    case BP_LOCK_ACQUIRED:
    case BP_LOCK_RELEASED: {
        int event = what == BP_LOCK_DESTROY    ? ompt_callback_lock_destroy
                    : what == BP_LOCK_ACQUIRED ? ompt_callback_mutex_acquired
                                               : ompt_callback_mutex_released;
        if (what == BP_LOCK_ACQUIRED) {
            th->state = bp_ompt_work_state(th);
            th->wait_id = 0;
        }
        ompt_callback_mutex_t cb = (ompt_callback_mutex_t)bp_ompt_callback(event);
        if (cb != NULL)
            cb(k, id, NULL);
        break;
    }
    case BP_LOCK_NEST_ACQUIRED:
    case BP_LOCK_NEST_RELEASED: {
        ompt_callback_nest_lock_t cb =
            (ompt_callback_nest_lock_t)bp_ompt_callback(ompt_callback_nest_lock);
        if (what == BP_LOCK_NEST_ACQUIRED) {
            th->state = bp_ompt_work_state(th);
            th->wait_id = 0;
        }
        if (cb != NULL)
            cb(what == BP_LOCK_NEST_ACQUIRED ? ompt_scope_begin : ompt_scope_end, id, NULL);
        break;
    }
    }
}
