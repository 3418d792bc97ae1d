/* task.c: explicit tasks, run by the threads of the team that made them.
 *
 * Queues. Each member of a team has a deque of its own (deque.h), made on
 * its first task: the thread pushes the tasks it makes at the bottom and
 * pops there (the newest first, whose data is in its cache); a thread with
 * nothing of its own steals the oldest from another's top. A deque holds
 * 2^BP_TASK_QUEUE_LOG2 tasks; a task made when its maker's is full runs at
 * once, as libgomp and libomp do past their own bounds, and then counts
 * nowhere (it completes before its maker goes on, as an included task
 * does). A team of one, and a final task, make included tasks: they run at
 * once, to completion, with their descendants.
 *
 * Lifetimes (the counts are struct bp_task's). A task counts in its parent
 * (refs), in the taskgroup it was made in (count) and in its team
 * (tasks_left) until it completes: its body has run (every part, for an
 * untied task clang splits) and its event, if it has one (detach), is
 * fulfilled (pending reaches 0). Its memory is held apart (mem_holds): by
 * itself until it and its children are complete, by each child of it not
 * yet freed, and by its siblings' dependence lists, so a queued task's
 * chain of parents can always be read. A completion writes its taskgroup,
 * its parent, itself and its team in that order: whoever waits for the
 * team's count to reach 0 (the region's end) may reuse everything, so it
 * comes last, and an implicit or stack parent is not touched after its
 * count.
 *
 * Where tasks run. A thread runs queued tasks at the task scheduling
 * points: at a barrier and at the region's end it runs any task of its
 * team, its own first, while it waits (bp_tasks_poll, which the barrier's
 * and the join's waits call while the team's `tasking` word is set, see
 * bp_flag_wait_poll), and then until the team's tasks_left is 0. In a
 * taskwait, a taskgroup's end and a taskyield it runs only tasks of its
 * own deque that descend from the waiting task (the task scheduling
 * constraint of OpenMP, which libomp enforces too): the waiting task's
 * children are always in that deque, or taken by others, and every task
 * pushed there while it waits descends from it, so a popped task that does
 * not descend from it means none is left there (it is pushed back).
 *
 * The region's end. A worker that finished the region's code while tasks
 * were queued runs them until none is left before it arrives at the join.
 * Workers that had arrived before thread 0 queued its tasks (a `master`
 * that makes them) come back to help: thread 0, seeing every worker arrived
 * (it looks every BP_HELP_CHECK_EVERY pushes), completes that join and
 * forks an episode of its own on the team, in which the workers run tasks
 * until tasks_left, which holds one more for thread 0's code until it
 * ends, is 0; its join is the region's. Thread 0 does the same at the join
 * when tasks are left once every worker has arrived. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "deque.h"
#include "internal.h"
#include "pool.h"
#include "prim.h"
#include "team.h"

enum {
    BP_TASK_QUEUE_LOG2 = 6,  /* 64 queued tasks per thread; more run at once */
    BP_HELP_CHECK_EVERY = 8, /* thread 0's pushes between looks at the arrivals */
    BP_TASK_IDLE_SPINS = 64, /* polls that found nothing before a wait yields */
};

static void wait_until(struct bp_thread *t, int (*ready)(const void *), const void *arg,
                       struct bp_task *waiting);
static int preds_complete(const void *arg);

struct bp_task *bp_task_current(struct bp_thread *t)
{
    if (t->task != NULL)
        return t->task;
    struct bp_task *it = &t->initial_task;
    if (!(it->flags & BP_TASK_IMPLICIT))
        bp_task_implicit(t, it);
    t->task = it;
    return it;
}

void bp_task_implicit(struct bp_thread *t, struct bp_task *task)
{
    memset(task, 0, sizeof *task);
    atomic_init(&task->refs, 1);
    atomic_init(&task->mem_holds, 1);
    atomic_init(&task->pending, 1);
    task->flags = BP_TASK_IMPLICIT;
    t->task = task;
}

int bp_task_included(struct bp_thread *t)
{
    return t->team_size <= 1 || t->team_ptr == NULL ||
           (bp_task_current(t)->flags & BP_TASK_FINAL) != 0;
}

int bp_task_in_final(struct bp_thread *t)
{
    return t->task != NULL && (t->task->flags & BP_TASK_FINAL) != 0;
}

struct bp_task *bp_task_new(size_t payload, size_t align, void (*body)(struct bp_task *),
                            uint32_t flags, const void *fn)
{
    if (align < 64)
        align = 64;
    /* the payload at an `align` boundary, the header just before it */
    size_t off = (BP_TASK_HEADER + align - 1) & ~(align - 1);
    char *mem = bp_taskmem_alloc(off + payload, align);
    if (mem == NULL)
        bp_fatal("a task of %zu bytes: out of memory", payload);
    struct bp_task *task = (struct bp_task *)(mem + off - BP_TASK_HEADER);
    /* every field a heap task reads before it is placed or linked (icv,
     * depth and the frame are written then): no memset of the header */
    task->body = body;
    task->parent = NULL;
    task->in_group = task->group = NULL;
    task->team = NULL;
    atomic_init(&task->refs, 1);
    atomic_init(&task->mem_holds, 1);
    task->children_made = 0;
    atomic_init(&task->pending, 1);
    task->flags = flags;
    task->depth = 0;
    task->fn = fn;
    task->mem = mem;
    task->payload_size = payload;
    atomic_init(&task->requeues, 0);
    atomic_init(&task->npred, 0);
    task->dep = NULL;
    task->dep_table = NULL;
    task->next_ready = NULL;
    atomic_init(&task->children_done, 0);
    return task;
}

void bp_task_free(struct bp_task *task)
{
    struct bp_task *parent = (task->flags & BP_TASK_HOLDS_PARENT) ? task->parent : NULL;
    bp_task_deps_free(task);
    bp_task_node_free(task);
    bp_taskmem_free(task->mem);
    if (parent != NULL)
        bp_task_unref(parent);
}

void bp_task_hold(struct bp_task *task)
{
    /* relaxed: the holder has a hold already, or the table's lock */
    atomic_fetch_add_explicit(&task->mem_holds, 1, memory_order_relaxed);
}

void bp_task_unref(struct bp_task *task)
{
    /* acq_rel: the freeing thread sees every write made to the task */
    if (atomic_fetch_sub_explicit(&task->mem_holds, 1, memory_order_acq_rel) == 1 &&
        task->mem != NULL)
        bp_task_free(task);
}

/* One of task's children completed, or task itself: at 0 its children's
 * table goes, and the hold refs kept on its memory. */
static void task_unalive(struct bp_task *task)
{
    /* acq_rel: the waiter of a taskwait sees the children's writes */
    if (atomic_fetch_sub_explicit(&task->refs, 1, memory_order_acq_rel) == 1 &&
        task->mem != NULL) {
        bp_task_deps_free(task);
        bp_task_unref(task);
    }
}

/* The team's counts (team.h): the calling thread's member's, when it is
 * one of the team in the team's region, else the count of outsiders. */
static void count_done(struct bp_team *team)
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

static void count_made(struct bp_thread *t, struct bp_team *team)
{
    _Atomic uint64_t *c = &team->members[t->tid].tasks_made;
    /* relaxed: read by a waiter after it reads the completions, which the
     * queue or the completion orders after this */
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    if (!atomic_load_explicit(&team->tasking, memory_order_relaxed))
        atomic_store_explicit(&team->tasking, 1, memory_order_relaxed);
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

/* Its body has run and its event is fulfilled: tell its successors, the
 * taskgroup, the parent, itself and the team, in that order (see the top
 * of the file). The parent's count is the last word of a parent that holds
 * no memory of its own (an implicit or stack task) this touches. */
static void task_complete(struct bp_task *task)
{
    struct bp_taskgroup *group = task->in_group;
    struct bp_task *parent = (task->flags & BP_TASK_LINKED) ? task->parent : NULL;
    struct bp_team *team = task->team;
    if (task->dep != NULL) /* its successors may run */
        bp_deps_release(task);
    /* release: what the task wrote reaches the thread the count frees */
    if (group != NULL)
        atomic_fetch_add_explicit(&group->done, 1, memory_order_release);
    if (parent != NULL) {
        if (parent->flags & BP_TASK_IMPLICIT)
            atomic_fetch_add_explicit(&parent->children_done, 1, memory_order_release);
        else
            task_unalive(parent);
    }
    task_unalive(task);
    if (team != NULL)
        count_done(team);
}

static void pending_done(struct bp_task *task)
{
    /* acq_rel: the completing thread sees the body's and the event's writes */
    if (atomic_fetch_sub_explicit(&task->pending, 1, memory_order_acq_rel) == 1)
        task_complete(task);
}

void *bp_task_add_event(struct bp_task *task)
{
    /* relaxed: the task is not yet queued, or is its caller's own */
    atomic_fetch_add_explicit(&task->pending, 1, memory_order_relaxed);
    return task;
}

void bp_task_fulfill(void *event) { pending_done(event); }

/* t runs task: it becomes t's task, with its ICVs, and its own task number
 * for nestable locks. */
static void task_enter(struct bp_thread *t, struct bp_task *task, struct bp_task_frame *fr)
{
    fr->prev = bp_task_current(t);
    fr->icv = *bp_icv(t);
    fr->icv_ready = t->icv_ready;
    fr->task_id = t->task_id;
    t->task = task;
    t->icv = task->icv;
    t->icv_ready = 1;
    t->task_id = 0;
    /* once: an untied task's later parts may run beside the end of an
     * earlier one, which reads the flags */
    if (!(task->flags & BP_TASK_STARTED))
        task->flags |= BP_TASK_STARTED;
}

static void task_leave(struct bp_thread *t, const struct bp_task_frame *fr)
{
    t->task = fr->prev;
    t->icv = fr->icv;
    t->icv_ready = fr->icv_ready;
    t->task_id = fr->task_id;
}

/* Profiling: the task's own time, the tasks run inside it and its waits
 * (taskwait, taskgroup, dependences) taken out: they add their whole time
 * to task_inner_ns. And its trace event. */
static void run_profiled(struct bp_thread *t, struct bp_task *task)
{
    int64_t outer = t->task_inner_ns;
    t->task_inner_ns = 0;
    int64_t start = bp_now_ns();
    task->body(task);
    int64_t end = bp_now_ns();
    bp_taskprof_record(task->fn, end - start - t->task_inner_ns);
    t->task_inner_ns = outer + (end - start);
    if (bp_tracing)
        bp_trace_event(t, BP_TRACE_TASK, task->fn, start, end);
}

static void run_task(struct bp_thread *t, struct bp_task *task)
{
    struct bp_task_frame fr;
    task_enter(t, task, &fr);
    if (bp_profiling)
        run_profiled(t, task);
    else
        task->body(task);
    task_leave(t, &fr);
    pending_done(task);
}

static struct bp_deque *own_deque(struct bp_team *team, int tid)
{
    /* relaxed: the owner made it */
    return atomic_load_explicit(&team->members[tid].tasks, memory_order_relaxed);
}

/* Make task t's task's child, its data environment the task's own. */
static void task_place(struct bp_thread *t, struct bp_task *task)
{
    struct bp_task *parent = bp_task_current(t);
    task->parent = parent;
    task->depth = parent->depth + 1;
    task->icv = *bp_icv(t);
    if (parent->flags & BP_TASK_FINAL)
        task->flags |= BP_TASK_FINAL;
    task->group = parent->group;
    if (parent->mem != NULL) { /* a heap parent stays readable while task lives */
        bp_task_hold(parent);
        task->flags |= BP_TASK_HOLDS_PARENT;
    }
}

/* A placed task that runs now, counted nowhere (bp_task_submit): with the
 * ICVs t holds, which are its own, and freed at once when nothing else
 * came to hold it (no child, no dependence). */
static void run_uncounted(struct bp_thread *t, struct bp_task *task)
{
    struct bp_task_frame fr;
    fr.prev = bp_task_current(t);
    fr.icv = *bp_icv(t);
    fr.icv_ready = t->icv_ready;
    fr.task_id = t->task_id;
    t->task = task;
    t->task_id = 0;
    task->flags |= BP_TASK_STARTED;
    if (bp_profiling)
        run_profiled(t, task);
    else
        task->body(task);
    task_leave(t, &fr);
    /* acquire: a child that was freed (its hold dropped) is seen whole */
    if (atomic_load_explicit(&task->mem_holds, memory_order_acquire) == 1 &&
        atomic_load_explicit(&task->refs, memory_order_acquire) == 1 && task->dep_table == NULL) {
        bp_task_free(task);
        return;
    }
    pending_done(task);
}

/* The same, counted in the parent, its taskgroup and its team. */
static void task_link(struct bp_thread *t, struct bp_task *task)
{
    task_place(t, task);
    task->in_group = task->group;
    task->team = t->team_size > 1 ? t->team_ptr : NULL;
    task->flags |= BP_TASK_LINKED;
    /* relaxed: each count is read after the queue's or the completion's
     * release, which the increment is sequenced before */
    if (task->in_group != NULL)
        atomic_fetch_add_explicit(&task->in_group->made, 1, memory_order_relaxed);
    if (task->parent->flags & BP_TASK_IMPLICIT)
        task->parent->children_made++; /* its own thread's */
    else
        atomic_fetch_add_explicit(&task->parent->refs, 1, memory_order_relaxed);
    if (task->team != NULL)
        count_made(t, task->team);
}

/* Is t's own deque full (a task made now would run at once)? */
static int queue_full(struct bp_thread *t)
{
    struct bp_deque *d = t->team_ptr != NULL ? own_deque(t->team_ptr, t->tid) : NULL;
    return d != NULL && bp_deque_size(d) > d->mask;
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
    for (int i = 1; i < t->team_size; i++)
        /* relaxed: bp_join_children below acquires */
        if (atomic_load_explicit(&team->members[i].arrive.value, memory_order_relaxed) != end)
            return;
    t->epoch++;
    team->help_used = bp_join_children(t, team, 0, t->team_size, end);
    count_made(t, team); /* thread 0's code: one more until it ends */
    team->help_open = 1;
    fork_help(t, team);
}

/* Queue task on t's deque; 0 when it is full (the caller runs it). */
static int task_queue(struct bp_thread *t, struct bp_task *task)
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
    /* relaxed: a hint for the waits; the deque publishes the task */
    if (!atomic_load_explicit(&team->tasking, memory_order_relaxed))
        atomic_store_explicit(&team->tasking, 1, memory_order_relaxed);
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
    if (!atomic_load_explicit(&team->tasking, memory_order_relaxed))
        atomic_store_explicit(&team->tasking, 1, memory_order_relaxed);
    bp_unlock(&team->inbox_lock);
}

/* Take a task from the inbox: any (waiting NULL), or one that descends from
 * waiting; NULL if there is none. */
static struct bp_task *inbox_take(struct bp_team *team, const struct bp_task *waiting);

void bp_task_ready(struct bp_task *task)
{
    struct bp_thread *t = bp_self();
    struct bp_team *team = task->team;
    if (t->team_ptr == team && t->team_size > 1 && task_queue(t, task))
        return;
    inbox_push(team, task);
}

void bp_task_submit(struct bp_thread *t, struct bp_task *task, int deferred)
{
    if (task->flags & BP_TASK_STARTED) { /* an untied task's next part */
        /* relaxed: the running part holds the task */
        atomic_fetch_add_explicit(&task->requeues, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&task->pending, 1, memory_order_relaxed);
    } else if ((!deferred || (t->team_size > 1 && queue_full(t))) &&
               !(task->flags & BP_TASK_UNTIED) &&
               atomic_load_explicit(&task->pending, memory_order_relaxed) == 1) {
        /* It runs now, to completion (it waits for no event, and no untied
         * part of it can be queued for later) before its maker goes on:
         * nothing need count it, as an included task; its own children are
         * counted as any. */
        task_place(t, task);
        run_uncounted(t, task);
        return;
    } else {
        task_link(t, task);
    }
    if (deferred && task->team != NULL && task_queue(t, task))
        return;
    run_task(t, task);
}

void bp_task_submit_deps(struct bp_thread *t, struct bp_task *task, const struct bp_dep *deps,
                         int ndeps, int deferred)
{
    task_link(t, task);
    int waited = !deferred || task->team == NULL;
    if (waited)
        task->flags |= BP_TASK_WAITED;
    atomic_init(&task->npred, 1); /* its registration's own */
    bp_deps_register(task->parent, task, deps, ndeps);
    /* acq_rel: as a predecessor's decrement */
    if (atomic_fetch_sub_explicit(&task->npred, 1, memory_order_acq_rel) != 1) {
        if (!waited)
            return; /* its last predecessor queues it */
        /* its predecessors are siblings: the maker's descendants */
        wait_until(t, preds_complete, task, task->parent);
    }
    if (!waited && task_queue(t, task))
        return;
    run_task(t, task);
}

static void empty_body(struct bp_task *task) { (void)task; }

void bp_taskwait_deps(struct bp_thread *t, const struct bp_dep *deps, int ndeps)
{
    /* an empty undeferred task with those dependences, as OpenMP says */
    struct bp_task *task = bp_task_new(0, 1, empty_body, 0, NULL);
    bp_task_submit_deps(t, task, deps, ndeps, 0);
}

void bp_task_begin_undeferred(struct bp_thread *t, struct bp_task *task, int linked,
                              struct bp_task_frame *fr)
{
    if (linked) {
        task_link(t, task);
    } else {
        struct bp_task *parent = bp_task_current(t);
        task->parent = parent;
        task->depth = parent->depth + 1;
        task->icv = *bp_icv(t);
        task->flags |= parent->flags & BP_TASK_FINAL;
        task->group = parent->group;
        task->in_group = NULL;
        task->team = NULL;
        task->mem = NULL;
        task->dep = NULL;
        task->dep_table = NULL;
        atomic_init(&task->refs, 1);
        atomic_init(&task->mem_holds, 1);
        atomic_init(&task->pending, 1);
    }
    task_enter(t, task, fr);
}

static void wait_children(struct bp_thread *t, struct bp_task *task);

void bp_task_begin_included(struct bp_thread *t, struct bp_task *task, uint32_t flags,
                            const void *fn, struct bp_task_frame *fr)
{
    struct bp_task *parent = bp_task_current(t);
    task->parent = parent;
    task->depth = parent->depth + 1;
    task->flags = flags | (parent->flags & BP_TASK_FINAL) | BP_TASK_STARTED;
    task->fn = fn;
    task->group = parent->group;
    task->in_group = NULL;
    task->team = NULL;
    task->mem = NULL;
    task->dep = NULL;
    task->dep_table = NULL;
    atomic_init(&task->refs, 1);
    atomic_init(&task->mem_holds, 1);
    atomic_init(&task->pending, 1);
    /* its ICVs are its parent's, which t holds: kept, and given back at
     * its end (its code may change them); task->icv is not read */
    fr->prev = parent;
    fr->icv = *bp_icv(t);
    fr->icv_ready = t->icv_ready;
    fr->task_id = t->task_id;
    t->task = task;
    t->icv_ready = 1;
    t->task_id = 0;
}

void bp_task_end_included(struct bp_thread *t, struct bp_task *task,
                          const struct bp_task_frame *fr)
{
    /* relaxed: a hint; the wait acquires (a detached child's event) */
    if (atomic_load_explicit(&task->refs, memory_order_relaxed) != 1)
        wait_children(t, task);
    if (task->dep_table != NULL)
        bp_task_deps_free(task);
    task_leave(t, fr);
}

void bp_task_end_undeferred(struct bp_thread *t, struct bp_task *task,
                            struct bp_task_frame *fr)
{
    if (!(task->flags & BP_TASK_LINKED)) {
        /* a stack task: nothing may point at it once it returns (only a
         * detached child can, which is waited for) */
        wait_children(t, task);
        bp_task_deps_free(task);
        task_leave(t, fr);
        return;
    }
    task_leave(t, fr);
    pending_done(task);
}

/* Does x descend from anc? Walk x's parents up to anc's depth (a queued or
 * running task keeps its parents). */
static int descends(const struct bp_task *x, const struct bp_task *anc)
{
    while (x->depth > anc->depth)
        x = x->parent;
    return x == anc;
}

static struct bp_task *inbox_take(struct bp_team *team, const struct bp_task *waiting)
{
    /* relaxed: a hint; the lock orders the list */
    if (atomic_load_explicit(&team->inbox_n, memory_order_relaxed) == 0)
        return NULL;
    bp_lock(&team->inbox_lock);
    struct bp_task **p = &team->inbox, *x;
    while ((x = *p) != NULL && waiting != NULL && !descends(x, waiting))
        p = &x->next_ready;
    if (x != NULL) {
        *p = x->next_ready;
        atomic_fetch_sub_explicit(&team->inbox_n, 1, memory_order_relaxed);
    }
    bp_unlock(&team->inbox_lock);
    return x;
}

/* Run a task of t's own deque that descends from `waiting`; 1 if it ran one. */
static int run_own(struct bp_thread *t, struct bp_task *waiting)
{
    struct bp_team *team = t->team_ptr;
    if (team == NULL || t->team_size <= 1)
        return 0;
    struct bp_deque *d = own_deque(team, t->tid);
    void *x;
    if (d != NULL && bp_deque_pop(d, &x) == BP_DEQUE_GOT) {
        if (descends(x, waiting)) {
            run_task(t, x);
            return 1;
        }
        bp_deque_push(d, x); /* the slot it left is free: it fits */
    }
    struct bp_task *ready = inbox_take(team, waiting);
    if (ready == NULL)
        return 0;
    run_task(t, ready);
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
        run_task(t, x);
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
            run_task(t, x);
            return 1;
        }
    }
    struct bp_task *ready = inbox_take(team, NULL);
    if (ready == NULL)
        return 0;
    run_task(t, ready);
    return 1;
}

/* Wait until ready(arg), running tasks meanwhile: any of the team's
 * (waiting NULL), or the waiting task's descendants in t's deque. */
static void wait_until(struct bp_thread *t, int (*ready)(const void *), const void *arg,
                       struct bp_task *waiting)
{
    int idle = 0;
    /* profiling: the wait is not the waiting task's own time (the tasks
     * run meanwhile add theirs, which the whole wait replaces) */
    int64_t inner = t->task_inner_ns, start = bp_profiling ? bp_now_ns() : 0;
    while (!ready(arg)) {
        if (waiting != NULL ? run_own(t, waiting) : bp_tasks_poll(t)) {
            idle = 0;
        } else if (++idle < BP_TASK_IDLE_SPINS) {
            bp_cpu_relax();
        } else {
            sched_yield(); /* the tasks it waits for run elsewhere */
        }
    }
    if (bp_profiling)
        t->task_inner_ns = inner + (bp_now_ns() - start);
}

/* The conditions, each read with acquire: the completed tasks' writes are
 * seen after the wait. */
static int children_complete(const void *arg)
{
    const struct bp_task *task = arg;
    if (task->flags & BP_TASK_IMPLICIT) /* its own thread reads children_made */
        return atomic_load_explicit(&task->children_done, memory_order_acquire) ==
               task->children_made;
    return atomic_load_explicit(&task->refs, memory_order_acquire) == 1;
}

static int group_complete(const void *arg)
{
    const struct bp_taskgroup *g = arg;
    /* completions first: as bp_tasks_pending */
    uint32_t done = atomic_load_explicit(&g->done, memory_order_acquire);
    return done == atomic_load_explicit(&g->made, memory_order_acquire);
}

static int preds_complete(const void *arg)
{
    const struct bp_task *task = arg;
    return atomic_load_explicit(&task->npred, memory_order_acquire) == 0;
}

static int team_quiet(const void *arg) { return bp_tasks_pending((struct bp_team *)arg) == 0; }

static void wait_children(struct bp_thread *t, struct bp_task *task)
{
    wait_until(t, children_complete, task, task);
}

void bp_taskwait(struct bp_thread *t)
{
    wait_children(t, bp_task_current(t));
}

void bp_taskyield(struct bp_thread *t)
{
    run_own(t, bp_task_current(t));
}

void bp_taskgroup_begin(struct bp_thread *t)
{
    struct bp_task *task = bp_task_current(t);
    struct bp_taskgroup *g = malloc(sizeof *g);
    if (g == NULL)
        bp_fatal("taskgroup: out of memory");
    g->prev = task->group;
    atomic_init(&g->made, 0);
    atomic_init(&g->done, 0);
    g->gomp_reductions = g->prev != NULL ? g->prev->gomp_reductions : NULL;
    g->kmp_reductions = NULL;
    g->finish = NULL;
    task->group = g;
}

struct bp_taskgroup *bp_taskgroup_current(struct bp_thread *t)
{
    return bp_task_current(t)->group;
}

void bp_taskgroup_end(struct bp_thread *t)
{
    struct bp_task *task = bp_task_current(t);
    struct bp_taskgroup *g = task->group;
    if (g == NULL)
        bp_fatal("the end of a taskgroup that was not begun");
    wait_until(t, group_complete, g, task);
    if (g->finish != NULL) /* its reductions, folded */
        g->finish(g);
    task->group = g->prev;
    free(g);
}

void bp_tasks_drain(struct bp_thread *t)
{
    struct bp_team *team = t->team_ptr;
    if (team != NULL && t->team_size > 1)
        wait_until(t, team_quiet, team, NULL);
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
    if (helping) { /* the workers help: thread 0's code is over */
        used |= team->help_used;
        count_done(team); /* thread 0's code is over */
        bp_tasks_drain(t);
        uint32_t end = (uint32_t)++t->epoch;
        bp_join_children(t, team, 0, team_size, end);
    } else {
        uint32_t end = (uint32_t)++t->epoch;
        used |= bp_join_children(t, team, 0, team_size, end);
        /* relaxed: the join's acquire orders it */
        if (atomic_load_explicit(&team->tasking, memory_order_relaxed) &&
            bp_tasks_pending(team) != 0) {
            fork_help(t, team); /* tasks are left, and every worker is gone */
            bp_tasks_drain(t);
            end = (uint32_t)++t->epoch;
            bp_join_children(t, team, 0, team_size, end);
        }
    }
    if (atomic_load_explicit(&team->tasking, memory_order_relaxed))
        atomic_store_explicit(&team->tasking, 0, memory_order_relaxed);
    team->push_checks = 0;
    team->help_open = 0;
    bp_task_deps_free(bp_task_current(t)); /* thread 0's implicit task's table */
    return used;
}
