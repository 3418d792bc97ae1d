/* taskteam.c: a team's tasks: the queues, the polls that the barrier's
 * and the join's waits make, and the region's end. task.c makes, runs and
 * completes the tasks.
 *
 * Queues. Each member of a team has a deque of its own (deque.h), made on
 * its first task: the thread pushes the tasks it makes at the bottom and
 * pops there (the newest first, whose data is in its cache); a thread with
 * nothing of its own steals the oldest from another's top. A deque holds
 * 2^BP_TASK_QUEUE_LOG2 tasks; a task made when its maker's is full runs at
 * once, as libgomp and libomp do past their own bounds (unless
 * KMP_ENABLE_TASK_THROTTLING=false: it then waits in the inbox). A task made ready
 * where it cannot be queued (by a thread outside the team, or one whose
 * deque is full) waits in the team's inbox, which the polls take from too.
 *
 * Counts. Each member counts the team's tasks it made and completed
 * (tasks_made, tasks_done, written by that thread alone; completions by
 * threads outside the team have one shared count), so making and
 * completing a task writes no line another thread writes;
 * bp_tasks_pending reads them all.
 *
 * Where tasks run. At a barrier and at the region's end a thread runs any
 * task of its team, its own first, while it waits (bp_tasks_poll, which
 * the barrier's and the join's waits call while the team's `tasking` word
 * is set, see bp_flag_wait_poll), and then until none is pending; at a
 * barrier, until none made before it is: once one thread has seen none
 * pending after every thread arrived, it notes the barrier's episode in
 * the team's `drained` word, and the others stop waiting, so that tasks
 * made by a thread that has already left (which may wait for one that
 * has not) do not hold them: a drain looks at `drained` before each task
 * it takes. The look and the take are not one step, so a thread that
 * looked just before the note may still take one task made after it
 * (OpenMP allows a thread in a barrier to run any task of the region, and
 * libgomp and libomp do); tasks marked with the phase they were made in
 * would close that window.
 *
 * The region's end. A worker that finished the region's code while tasks
 * were pending runs them until none is left before it arrives at the join.
 * Workers that had arrived before thread 0 queued its tasks (a `master`
 * that makes them) come back to help: thread 0, seeing every worker arrived
 * (it looks every BP_HELP_CHECK_EVERY pushes), completes that join and
 * forks an episode of its own on the team, in which the workers run tasks
 * until none is pending, thread 0's code counting as one until it ends;
 * its join is the region's. Thread 0 does the same at the join when tasks
 * are pending once every worker has arrived. */
#include <stdlib.h>

#include "deque.h"
#include "../internal.h"
#include "../core/pool.h"
#include "../prim.h"
#include "taskteam.h"
#include "../core/team.h"

enum {
    BP_TASK_QUEUE_LOG2 = 6,  /* 64 queued tasks per thread; more run at once */
    BP_HELP_CHECK_EVERY = 8, /* thread 0's pushes between looks at the arrivals */
};

/* A task of the team's is made or queued: the barrier's and the join's
 * waits poll the queues from now on, and those asleep wake to (the first
 * of a region). relaxed: a hint, the queue or the counts publish the task. */
static void tasks_raise(struct bp_team *team)
{
    if (!atomic_load_explicit(&team->tasking.on, memory_order_relaxed) &&
        bp_watch_raise(&team->tasking))
        bp_team_wake_waits(team);
}

/* The team's counts (team.h): the calling thread's member's, when it is
 * one of the team in the team's region, else the count of outsiders. */
void bp_task_count_done(struct bp_team *team)
{
    struct bp_thread *t = bp_self();
    if (t->team_ptr == team) {
        _Atomic uint64_t *c = &team->members[t->tid].tasks_done;
        /* release: the task's writes, before a waiter counts it done; the
         * member's own count: no other thread writes it */
        atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                              memory_order_release);
    } else {
        atomic_fetch_add_explicit(&team->tasks_done_outside, 1, memory_order_release);
    }
}

void bp_task_count_made(struct bp_thread *t, struct bp_team *team)
{
    _Atomic uint64_t *c = &team->members[t->tid].tasks_made;
    /* relaxed: read by a waiter after it reads the completions, which the
     * queue or the completion orders after this */
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    tasks_raise(team);
}

/* Completions are read before makings: every task made before a
 * completion it counts is counted as made too, so the difference is never
 * below the tasks not complete at the first read, and 0 once none is and
 * no implicit task can make more (a task made after the first read was
 * made by a task not complete then). The whole team's members are read,
 * the ones past the region's size too: their counts stay balanced. */
int64_t bp_tasks_pending(struct bp_team *team)
{
    int n = team->cap;
    uint64_t done = atomic_load_explicit(&team->tasks_done_outside, memory_order_acquire);
    for (int i = 0; i < n; i++)
        done += atomic_load_explicit(&team->members[i].tasks_done, memory_order_acquire);
    uint64_t made = 0;
    for (int i = 0; i < n; i++)
        made += atomic_load_explicit(&team->members[i].tasks_made, memory_order_acquire);
    return (int64_t)(made - done);
}

static struct bp_deque *own_deque(struct bp_team *team, int tid)
{
    /* relaxed: the owner made it */
    return atomic_load_explicit(&team->members[tid].tasks, memory_order_relaxed);
}

/* Is t's own deque full (a task made now would run at once)? Looked at
 * lazily (deque.h): it may have room when it says full. */
int bp_task_queue_full(struct bp_thread *t)
{
    struct bp_deque *d = t->team_ptr != NULL ? own_deque(t->team_ptr, t->tid) : NULL;
    return d != NULL && bp_deque_full_lazy(d);
}

_Atomic(void *) *bp_team_reduction_slot(struct bp_thread *t, int which)
{
    if (which < 0 || which > BP_WS_RED_DEPTH)
        bp_fatal("reduction(task, ...): more than %d worksharing constructs with task "
                 "reductions open at once", BP_WS_RED_DEPTH);
    return t->team_size > 1 && t->team_ptr != NULL ? &t->team_ptr->task_red[which] : NULL;
}

int bp_task_queue_empty(struct bp_thread *t)
{
    struct bp_deque *d = t->team_ptr != NULL ? own_deque(t->team_ptr, t->tid) : NULL;
    return d == NULL || bp_deque_empty(d);
}

/* The workers' help episode: they run the team's tasks with the thread 0. */
static void fork_help(struct bp_thread *t, struct bp_team *team)
{
    struct bp_go *own = &team->go0;
    own->run = bp_tasks_help;
    own->ctx = NULL;
    own->epoch_base = (uint32_t)t->epoch;
    bp_fork_children(own);
}

/* Thread 0 queued a task: if every worker has finished the region's code,
 * none of them would run it; complete their join and ask them back. */
static void maybe_help(struct bp_thread *t, struct bp_team *team)
{
    uint32_t end = (uint32_t)(t->epoch + 1);
    for (int i = 1; i < t->team_size; i++) {
        /* at the join, not in a blocking reduction, which sets arrive to
         * the same episode (relaxed: bp_join_children below acquires) */
        struct bp_member *m = &team->members[i];
        if (atomic_load_explicit(&m->arrive.value, memory_order_relaxed) != end ||
            atomic_load_explicit(&m->joined, memory_order_relaxed) != end)
            return;
    }
    /* A cancelled region's workers may have skipped barriers thread 0 is
     * still to give up, which would put its count back past this join
     * (cancel.c): its tasks are discarded anyway, and the join's own help
     * episode comes after. acquire: a worker cancelled before it arrived. */
    if (bp_config.cancellation) {
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&team->cancelled, memory_order_relaxed) != 0)
            return;
    }
    t->epoch++;
    team->help_used = bp_join_children(team, 0, t->team_size, end, bp_tasks_poll, t);
    bp_task_count_made(t, team); /* thread 0's code: one more until it ends */
    team->help_open = 1;
    fork_help(t, team);
}

/* Queue task on t's deque; 0 when it is full (the caller runs it). */
int bp_task_queue(struct bp_thread *t, struct bp_task *task)
{
    struct bp_team *team = task->team;
    struct bp_member *m = &team->members[t->tid];
    struct bp_deque *d = own_deque(team, t->tid);
    if (d == NULL) {
        void *mem = NULL;
        if (posix_memalign(&mem, BP_LINE, sizeof *d) != 0)
            return 0;
        d = mem;
        if (bp_deque_init(d, BP_TASK_QUEUE_LOG2) != 0) {
            free(d);
            return 0;
        }
        /* release: thieves see a made deque */
        atomic_store_explicit(&m->tasks, d, memory_order_release);
    }
    if (!bp_deque_push(d, task))
        return 0;
    tasks_raise(team);
    if (t->tid == 0 && team->help_open == 0 &&
        ++team->push_checks % BP_HELP_CHECK_EVERY == 1)
        maybe_help(t, team);
    return 1;
}

/* The inbox: tasks made ready where they could not be queued. */
static void inbox_push(struct bp_team *team, struct bp_task *task)
{
    bp_lock(&team->inbox_lock);
    task->next_ready = team->inbox;
    team->inbox = task;
    /* relaxed: hints; the lock publishes the task */
    atomic_fetch_add_explicit(&team->inbox_n, 1, memory_order_relaxed);
    tasks_raise(team); /* under the lock: the team's region is not over */
    bp_unlock(&team->inbox_lock);
}

void bp_task_inbox(struct bp_task *task) { inbox_push(task->team, task); }

/* A task made ready by a completion goes on the completing thread's deque,
 * where it descends from the thread's task when that completion ended a
 * task the thread ran (their parent is the same). One made ready by an
 * event the thread's own code fulfilled may not: on the deque it could lie
 * above the children of a task that then waits, which takes only its
 * descendants and would stop at it; it goes to the inbox, which every
 * poll and wait reads, instead. */
void bp_task_ready(struct bp_task *task)
{
    struct bp_thread *t = bp_self();
    struct bp_team *team = task->team;
    if (t->team_ptr == team && t->team_size > 1 &&
        (!bp_task_fulfilling || bp_task_descends(task, bp_task_current(t))) &&
        bp_task_queue(t, task))
        return;
    inbox_push(team, task);
}

/* Take a task from the inbox: any (waiting NULL), or one that descends from
 * waiting; NULL if there is none. */
static struct bp_task *inbox_take(struct bp_team *team, const struct bp_task *waiting)
{
    /* relaxed: a hint; the lock orders the list */
    if (atomic_load_explicit(&team->inbox_n, memory_order_relaxed) == 0)
        return NULL;
    bp_lock(&team->inbox_lock);
    struct bp_task **p = &team->inbox, *x;
    while ((x = *p) != NULL && waiting != NULL && !bp_task_descends(x, waiting))
        p = &x->next_ready;
    if (x != NULL) {
        *p = x->next_ready;
        atomic_fetch_sub_explicit(&team->inbox_n, 1, memory_order_relaxed);
    }
    bp_unlock(&team->inbox_lock);
    return x;
}

/* Run a task of t's own deque that descends from `waiting`; 1 if it ran one. */
int bp_task_run_own(struct bp_thread *t, struct bp_task *waiting)
{
    struct bp_team *team = t->team_ptr;
    if (team == NULL || t->team_size <= 1)
        return 0;
    struct bp_deque *d = own_deque(team, t->tid);
    void *x;
    if (d != NULL && bp_deque_pop(d, &x) == BP_DEQUE_GOT) {
        if (bp_task_descends(x, waiting)) {
            bp_task_run(t, x);
            return 1;
        }
        bp_deque_push(d, x); /* the slot it left is free: it fits */
    }
    struct bp_task *ready = inbox_take(team, waiting);
    if (ready == NULL)
        return 0;
    bp_task_run(t, ready);
    return 1;
}

int bp_tasks_poll(void *arg)
{
    struct bp_thread *t = arg;
    struct bp_team *team = t->team_ptr;
    int n = t->team_size, me = t->tid;
    if (team == NULL || n <= 1)
        return 0;
    void *x;
    struct bp_deque *d = own_deque(team, me);
    if (d != NULL && bp_deque_pop(d, &x) == BP_DEQUE_GOT) {
        bp_task_run(t, x);
        return 1;
    }
    for (int k = 1; k < n; k++) {
        int i = me + k < n ? me + k : me + k - n;
        /* acquire: pairs with the release that published the deque */
        d = atomic_load_explicit(&team->members[i].tasks, memory_order_acquire);
        if (d == NULL)
            continue;
        int got;
        while ((got = bp_deque_steal(d, &x)) == BP_DEQUE_LOST)
            bp_cpu_relax();
        if (got == BP_DEQUE_GOT) {
            bp_task_prefetch(x);
            bp_task_run(t, x);
            return 1;
        }
    }
    struct bp_task *ready = inbox_take(team, NULL);
    if (ready == NULL)
        return 0;
    bp_task_run(t, ready);
    return 1;
}

static int team_quiet(const void *arg) { return bp_tasks_pending((struct bp_team *)arg) == 0; }

/* t waits at a barrier or the region's end: its deque's lazy look starts
 * afresh (deque.h). */
static void forget_full(struct bp_thread *t, struct bp_team *team)
{
    struct bp_deque *d = own_deque(team, t->tid);
    if (d != NULL)
        bp_deque_full_reset(d);
}

void bp_tasks_drain(struct bp_thread *t)
{
    struct bp_team *team = t->team_ptr;
    if (team != NULL && t->team_size > 1) {
        forget_full(t, team);
        bp_task_drain_until(t, team_quiet, NULL, team);
    }
}

struct barrier_drain {
    struct bp_team *team;
    uint64_t e; /* the barrier's episode in full, as the team counts them */
};

/* Has a thread noted the barrier drained? The cheap look, before each task
 * a drain runs: once one is noted, tasks made since (by threads that have
 * left) do not hold the others. */
static int barrier_noted(const void *arg)
{
    const struct barrier_drain *b = arg;
    /* acquire: the tasks' writes, seen complete by the thread that noted it */
    return atomic_load_explicit(&b->team->drained, memory_order_acquire) >= b->e;
}

static int barrier_quiet(const void *arg)
{
    const struct barrier_drain *b = arg;
    if (barrier_noted(arg))
        return 1;
    if (bp_tasks_pending(b->team) != 0)
        return 0;
    /* release: what the completions made visible here, to those who read it;
     * the episodes only grow, and every thread notes the same e */
    atomic_store_explicit(&b->team->drained, b->e, memory_order_release);
    return 1;
}

/* Every thread that leaves goes through barrier_quiet, so that the first
 * to see none pending notes it before it can make a task past the barrier. */
void bp_tasks_drain_barrier(struct bp_thread *t, uint64_t e)
{
    struct barrier_drain b = {t->team_ptr, e};
    if (b.team == NULL || t->team_size <= 1)
        return;
    forget_full(t, b.team);
    if (!barrier_quiet(&b))
        bp_task_drain_until(t, barrier_quiet, barrier_noted, &b);
}

void bp_tasks_help(int tid, void *ctx)
{
    (void)tid;
    (void)ctx;
    bp_tasks_drain(bp_self());
}

uint32_t bp_tasks_join(struct bp_thread *t, struct bp_team *team, int team_size, uint32_t used)
{
    int helping = team->help_open == 1;
    team->help_open = 2; /* no call for help from here on: this is the join */
    /* relaxed: thread 0's own tasks set it; a region without tasks skips */
    if (atomic_load_explicit(&team->tasking.on, memory_order_relaxed))
        forget_full(t, team);
    if (helping) { /* the workers help: thread 0's code is over */
        used |= team->help_used;
        bp_task_count_done(team); /* thread 0's code is over */
        bp_tasks_drain(t);
        uint32_t end = (uint32_t)++t->epoch;
        bp_join_children(team, 0, team_size, end, bp_tasks_poll, t);
    } else {
        uint32_t end = (uint32_t)++t->epoch;
        used |= bp_join_children(team, 0, team_size, end, bp_tasks_poll, t);
        /* relaxed: the join's acquire orders it */
        if (atomic_load_explicit(&team->tasking.on, memory_order_relaxed) &&
            bp_tasks_pending(team) != 0) {
            fork_help(t, team); /* tasks are left, and every worker is gone */
            bp_tasks_drain(t);
            end = (uint32_t)++t->epoch;
            bp_join_children(team, 0, team_size, end, bp_tasks_poll, t);
        }
    }
    if (atomic_load_explicit(&team->tasking.on, memory_order_relaxed))
        atomic_store_explicit(&team->tasking.on, 0, memory_order_relaxed);
    team->push_checks = 0;
    team->help_open = 0;
    bp_task_deps_free(bp_task_current(t)); /* thread 0's implicit task's table */
    return used;
}
