/* barrier.c: the team's barrier, reductions and single construct, over the
 * team's per-thread words (team.h); episodes as fork.c counts them.
 *
 * Barrier: dissemination (Hensgen, Finkel and Manber 1988). In round k
 * (k < ceil(log2 T)) thread i sets its round-k flag to the episode and
 * waits for that of thread (i - 2^k) mod T. Each flag has one writer and
 * one reader and its own line; nothing is gathered and released, so with
 * two threads a barrier costs one cache-line transfer each way, at the same
 * time. A thread may set its round-k flag for episode e + 1 before its
 * reader has seen e, never e + 2, so readers wait for "reached".
 * Reduction: each worker sets its arrive to e with its data beside it and
 * waits for release == e; thread 0 folds every arrive == e in thread order
 * (so float results do not depend on timing), then sets release to e.
 * A nowait reduction is folded by the last thread to arrive instead (it
 * counts arrivals in reduce_arrived), still in thread order and into thread
 * 0's data; the folder does not wait, and thread 0 waits for the release
 * unless it folded. In a `parallel reduction` the worker that arrives last
 * thus goes straight on to the join. */
#include "../internal.h"
#include "../prim.h"
#include "team.h"

/* The barrier completes the team's tasks: its waits run queued ones, and
 * once every thread has arrived each runs them until none made before the
 * barrier is left (taskteam.c). A cancellable one (cancel.c) does not
 * begin once its region is cancelled, and gives up its wait when that
 * happens meanwhile: 1 then, with t's episode count put back to the
 * canceller's. */
static inline int barrier_wait(struct bp_thread *t, int cancellable)
{
    struct bp_team *team = t->team_ptr;
    /* acquire: the canceller's writes before its cancel */
    if (cancellable && atomic_load_explicit(&team->cancelled, memory_order_acquire) != 0)
        goto cancelled;
    uint32_t e = (uint32_t)++t->epoch;
    int n = t->team_size, i = t->tid;
    int nrounds = team->nrounds;
    struct bp_round *rounds = team->rounds; /* read once: the calls may not change it */
    struct bp_round *mine = &rounds[i * nrounds];
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        int from = i >= d ? i - d : i - d + n;
        bp_flag_set(&mine[k].flag, e);
        struct bp_flag *f = &rounds[from * nrounds + k].flag;
        if (!cancellable)
            bp_flag_wait_poll(f, e, 1, &team->tasking, bp_tasks_poll, t);
        else if (!bp_flag_wait_cancel(f, e, &team->tasking, bp_tasks_poll, t, &team->cancelled))
            goto cancelled;
    }
    /* relaxed: the rounds' acquires order it */
    if (atomic_load_explicit(&team->tasking.on, memory_order_relaxed))
        bp_tasks_drain_barrier(t, t->epoch); /* e in full */
    if (!cancellable || atomic_load_explicit(&team->cancelled, memory_order_acquire) == 0)
        return 0;
cancelled:
    bp_cancel_rejoin(t, team);
    return 1;
}

/* A reduction's wait for f to reach episode e. Under cancel-var true it
 * gives up when the region is cancelled (a thread that skipped the
 * reduction never comes; the result is then undefined, as OpenMP says):
 * 0, t's episode count put back to the canceller's (cancel.c). */
static int reduce_wait(struct bp_thread *t, struct bp_flag *f, uint32_t e)
{
    if (!bp_config.cancellation) {
        bp_flag_wait(f, e);
        return 1;
    }
    struct bp_team *team = t->team_ptr;
    if (bp_flag_wait_cancel(f, e, NULL, NULL, NULL, &team->cancelled))
        return 1;
    bp_cancel_rejoin(t, team);
    return 0;
}

/* A blocking reduction: thread 0 folds, and releases at bp_reduce_end. */
static int reduce_gather(struct bp_thread *t, void *data, void (*combine)(void *, void *))
{
    uint32_t e = (uint32_t)++t->epoch;
    struct bp_team *team = t->team_ptr;
    if (t->tid != 0) {
        struct bp_member *m = &team->members[t->tid];
        /* relaxed: published by the release in bp_flag_set */
        atomic_store_explicit(&m->reduce_data, data, memory_order_relaxed);
        bp_flag_set(&m->arrive, e);
        bp_hook_reduce_step(BP_REDUCE_ARRIVED);
        reduce_wait(t, &team->release, e);
        return 0;
    }
    if (__builtin_expect(bp_listening, 0)) { /* every arrival seen before the fold */
        for (int i = 1; i < t->team_size; i++)
            if (!reduce_wait(t, &team->members[i].arrive, e))
                return 0;
        bp_hook_reduce_step(BP_REDUCE_GATHERED);
    }
    for (int i = 1; i < t->team_size; i++) {
        struct bp_member *m = &team->members[i];
        if (!reduce_wait(t, &m->arrive, e))
            return 0;
        /* relaxed: ordered after the acquire in bp_flag_wait */
        combine(data, atomic_load_explicit(&m->reduce_data, memory_order_relaxed));
    }
    t->reduce_open = 1;
    return 1;
}

/* A nowait reduction, folded by the last thread to arrive. */
static int reduce_last_folds(struct bp_thread *t, void *data, void (*combine)(void *, void *))
{
    uint32_t e = (uint32_t)++t->epoch;
    int n = t->team_size;
    struct bp_team *team = t->team_ptr;
    struct bp_member *m = team->members;
    /* relaxed: published by the release half of the fetch_add below */
    atomic_store_explicit(&m[t->tid].reduce_data, data, memory_order_relaxed);
    /* acq_rel: the last arriver sees every thread's data pointer and data */
    if (atomic_fetch_add_explicit(&team->reduce_arrived, 1, memory_order_acq_rel) + 1 !=
        (uint32_t)n) { /* wait until the folder no longer reads data */
        bp_hook_reduce_step(BP_REDUCE_ARRIVED);
        return reduce_wait(t, &team->release, e) && t->tid == 0;
    }
    bp_hook_reduce_step(BP_REDUCE_GATHERED);
    void *into = atomic_load_explicit(&m[0].reduce_data, memory_order_relaxed);
    for (int i = 1; i < n; i++)
        combine(into, atomic_load_explicit(&m[i].reduce_data, memory_order_relaxed));
    /* relaxed: every thread has arrived; the release store publishes it */
    atomic_store_explicit(&team->reduce_arrived, 0, memory_order_relaxed);
    bp_hook_reduce_step(BP_REDUCE_FOLDED);
    bp_flag_set(&team->release, e);
    return t->tid == 0;
}

/* Each barrier and reduction tells the listeners (hooks.h) when t arrived
 * and when it left, and what it is (kind: enum bp_sync); a reduction its
 * steps too, the fold after every arrival has been seen: on a path of its own, so that when nothing listens a
 * barrier tests the seam's flag once, not once per hook. */
static __attribute__((noinline)) void barrier_listened(struct bp_thread *t, int kind)
{
    int64_t arrived = bp_hook_barrier_arrive(t->level, t->team_size, kind);
    if (t->team_size > 1)
        barrier_wait(t, 0);
    bp_hook_barrier_release(t->level, t->team_size, arrived, kind);
}

/* Under cancel-var true every barrier the program meets is a cancellation
 * point (OpenMP 5.2, 18.2), the ones its compiler emitted as plain
 * barriers too: clang calls __kmpc_barrier, not __kmpc_cancel_barrier,
 * for a loop's implicit barrier inside a taskgroup, and a thread that
 * cancelled the region never comes to it. Such a barrier is given up as a
 * cancellable one is, and its thread goes on (its code cannot be told);
 * each barrier after it is given up at once, so the thread reaches the
 * region's end, where the join gathers the team. libgomp and libomp wait
 * there for ever. The runtime's own barriers (BP_SYNC_BARRIER_RUNTIME,
 * which keep its shared words consistent) still wait. */
void bp_barrier(struct bp_thread *t, int kind)
{
    if (__builtin_expect(bp_config.cancellation, 0) && kind != BP_SYNC_BARRIER_RUNTIME) {
        bp_barrier_cancel(t, kind);
        return;
    }
    if (__builtin_expect(bp_listening, 0)) {
        barrier_listened(t, kind);
        return;
    }
    if (t->team_size > 1)
        barrier_wait(t, 0);
}

int bp_barrier_cancel(struct bp_thread *t, int kind)
{
    if (!bp_config.cancellation) {
        bp_barrier(t, kind); /* which comes back here only under cancel-var true */
        return 0;
    }
    int64_t arrived = bp_hook_barrier_arrive(t->level, t->team_size, kind);
    int got = t->team_size > 1 ? barrier_wait(t, 1) : 0;
    bp_hook_barrier_release(t->level, t->team_size, arrived, kind);
    return got;
}

static int reduce(struct bp_thread *t, void *data, void (*combine)(void *, void *), int nowait)
{
    if (t->team_size <= 1)
        return 1;
    if (bp_config.cancellation && bp_cancelled_region(t))
        return 0; /* the others may have gone: no thread folds */
    return nowait ? reduce_last_folds(t, data, combine) : reduce_gather(t, data, combine);
}

int bp_reduce(struct bp_thread *t, void *data, void (*combine)(void *, void *), int nowait)
{
    if (__builtin_expect(bp_listening, 0)) { /* as in bp_barrier */
        int64_t arrived = bp_hook_barrier_arrive(t->level, t->team_size, BP_SYNC_REDUCTION);
        int got = reduce(t, data, combine, nowait);
        bp_hook_barrier_release(t->level, t->team_size, arrived, BP_SYNC_REDUCTION);
        return got;
    }
    return reduce(t, data, combine, nowait);
}

int bp_single(struct bp_thread *t)
{
    if (t->team_size <= 1)
        return 1;
    uint32_t k = ++t->singles;
    uint32_t expected = k - 1;
    /* relaxed: the winner is decided by the value alone; what the single
     * writes is published by the barrier that follows it (or by none, under
     * nowait, as OpenMP says) */
    return atomic_compare_exchange_strong_explicit(&t->team_ptr->singles_claimed, &expected, k,
                                                   memory_order_relaxed,
                                                   memory_order_relaxed);
}

void bp_reduce_end(struct bp_thread *t)
{
    if (t->reduce_open) {
        t->reduce_open = 0;
        bp_hook_reduce_step(BP_REDUCE_FOLDED);
        bp_flag_set(&t->team_ptr->release, (uint32_t)t->epoch);
    }
}
