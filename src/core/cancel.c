/* cancel.c: cancellation (cancel-var true: OMP_CANCELLATION=true), for both
 * ABIs, whose entry points (GOMP_cancel..., __kmpc_cancel...) are in
 * gomp_abi.c and kmp_abi.c. With cancel-var false, OpenMP's default and
 * every runtime's, a cancel does nothing, a cancellation point is none, and
 * a cancellable barrier is a barrier: nothing here is read.
 *
 * cancel parallel. The first canceller stores its episode (plus one) in
 * team->cancelled and wakes whoever sleeps on a barrier flag of the team.
 * Every thread is then at that episode E, or inside barrier E + 1: the
 * canceller left barrier E, so every thread reached it, and none can leave
 * E + 1 without the canceller. The cancellable barriers (barrier.c) give up
 * their wait when they see the word, or do not begin it, and the thread
 * goes to the region's end; a thread that gives up barrier E + 1 puts its
 * episode count back to E (bp_cancel_rejoin). So at the join every thread
 * is at E, whether it saw the cancellation or not, and the join is episode
 * E + 1 for all, as for any region; the help episodes of the team's tasks
 * that may follow it too. The barrier flags a given-up wait set to E + 1
 * are behind the next region's first episode, E + 2, as every word must
 * be; no barrier past E completed, so no task drain noted one. A thread in a barrier that is not
 * cancellable (an orphaned construct's) would wait for the canceller for
 * ever, as in libgomp: OpenMP leaves such a program undefined.
 *
 * cancel for / sections. Every thread of the construct is at the same
 * episode until the barrier that ends it, so the construct is named by
 * that barrier's episode: the canceller stores it in team->ws_cancelled,
 * and a cancellation point compares. Nothing has to be cleared between
 * constructs (the next one has a later episode); thread 0 clears the word
 * at the join, for the episode counts of tests that move them.
 *
 * cancel taskgroup sets the taskgroup's word; cancellation points read it.
 *
 * Tasks. A task not yet begun when its region or its taskgroup is
 * cancelled is discarded: it completes without running its body (its
 * dependences are released and its event, if it has one, still has to be
 * fulfilled: the encountering task holds the handle). gcc's GOMP_task does
 * not make a task in a cancelled region or taskgroup at all, as libgomp.
 *
 * The answers follow each ABI's runtime where they differ: gcc's
 * `cancellation point taskgroup` is also true once the region is
 * cancelled (libgomp), clang's only for the taskgroup (libomp); a gcc
 * cancel taskgroup outside a taskgroup still leaves the task. Where
 * libomp departs from OpenMP, buddypool keeps to OpenMP: the cancellable
 * barrier that ends a cancelled loop says "not cancelled", where libomp's
 * answer makes clang code leave the whole region. */
#include <stdint.h>

#include "../internal.h"
#include "team.h"

static struct bp_team *team_of(const struct bp_thread *t)
{
    return t->team_size > 1 ? t->team_ptr : NULL;
}

int bp_cancelled_region(const struct bp_thread *t)
{
    struct bp_team *team = team_of(t);
    /* acquire: the canceller's writes before its cancel */
    return team != NULL && atomic_load_explicit(&team->cancelled, memory_order_acquire) != 0;
}

/* acquire: pairs with the canceller's release (bp_cancel) */
static int group_cancelled(const struct bp_taskgroup *g)
{
    return g != NULL && atomic_load_explicit(&g->cancelled, memory_order_acquire) != 0;
}

static void cancel_region(struct bp_thread *t, struct bp_team *team)
{
    uint64_t none = 0;
    /* seq_cst: the Dekker pair with the barrier's sleepers (wait.c) */
    if (!atomic_compare_exchange_strong_explicit(&team->cancelled, &none, t->epoch + 1,
                                                 memory_order_seq_cst, memory_order_relaxed))
        return; /* cancelled already */
    bp_team_wake_waits(team);
}

int bp_cancel(struct bp_thread *t, int kind)
{
    struct bp_team *team = team_of(t);
    switch (kind) {
    case BP_CANCEL_PARALLEL:
        if (team != NULL)
            cancel_region(t, team);
        return 1;
    case BP_CANCEL_WS:
        /* relaxed: a cancellation point only compares it */
        if (team != NULL)
            atomic_store_explicit(&team->ws_cancelled, t->epoch + 1, memory_order_relaxed);
        return 1;
    default: {
        struct bp_taskgroup *g = bp_taskgroup_current(t);
        if (g == NULL)
            return 0;
        /* release: pairs with the acquire of the discarding thread */
        atomic_store_explicit(&g->cancelled, 1, memory_order_release);
        return 1;
    }
    }
}

int bp_cancelled(struct bp_thread *t, int kind)
{
    struct bp_team *team = team_of(t);
    switch (kind) {
    case BP_CANCEL_PARALLEL:
        return bp_cancelled_region(t);
    case BP_CANCEL_WS:
        return team != NULL &&
               atomic_load_explicit(&team->ws_cancelled, memory_order_relaxed) == t->epoch + 1;
    default:
        return group_cancelled(bp_taskgroup_current(t));
    }
}

int bp_task_cancelled(struct bp_thread *t)
{
    return bp_cancelled_region(t) || bp_cancelled(t, BP_CANCEL_TASKGROUP);
}

int bp_task_discarded(const struct bp_thread *t, const struct bp_task *task)
{
    return group_cancelled(task->group) || bp_cancelled_region(t);
}

void bp_cancel_rejoin(struct bp_thread *t, struct bp_team *team)
{
    uint64_t c = atomic_load_explicit(&team->cancelled, memory_order_acquire);
    if (c != 0)
        t->epoch = c - 1;
}

void bp_cancel_clear(struct bp_team *team)
{
    /* relaxed: every thread has arrived; the next go publishes them */
    if (atomic_load_explicit(&team->cancelled, memory_order_relaxed) != 0) {
        atomic_store_explicit(&team->cancelled, 0, memory_order_relaxed);
        /* A construct with task reductions that some threads skipped is
         * never closed by them: its copies go now, its tasks complete. */
        for (int i = 0; i <= BP_WS_RED_DEPTH; i++) {
            struct bp_team_red *r = atomic_load_explicit(&team->task_red[i],
                                                         memory_order_relaxed);
            if (r == NULL)
                continue;
            if (r != BP_TEAM_RED_BUSY) /* never: its maker publishes before it goes on */
                r->drop(r);
            atomic_store_explicit(&team->task_red[i], NULL, memory_order_relaxed);
        }
        /* a nowait reduction some threads never reached */
        atomic_store_explicit(&team->reduce_arrived, 0, memory_order_relaxed);
    }
    if (atomic_load_explicit(&team->ws_cancelled, memory_order_relaxed) != 0)
        atomic_store_explicit(&team->ws_cancelled, 0, memory_order_relaxed);
}
