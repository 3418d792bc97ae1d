/* task.c: explicit tasks: how one is made, run and completed, and the
 * waits of a task (taskwait, taskgroup, dependences). The team's side (the
 * queues, the polls of the barrier's and join's waits, the region's end)
 * is taskteam.c's.
 *
 * Lifetimes (the counts are struct bp_task's). A task counts in its parent
 * (refs, or an implicit parent's children_done), in the taskgroup it was
 * made in (made, done) and in its team (its members' tasks_made and
 * tasks_done) until it completes: its body has run (every part, for an
 * untied task clang splits) and its event, if it has one (detach), is
 * fulfilled (pending reaches 0). Its memory is held apart (mem_holds): by
 * itself until it and its children are complete, by each child of it not
 * yet freed, and by its siblings' dependence lists, so a queued task's
 * chain of parents can always be read. A completion writes its taskgroup,
 * its parent, itself and its team in that order: whoever waits for the
 * team's tasks to be complete (the region's end) may reuse everything, so
 * it comes last, and an implicit or stack parent is not touched after its
 * count. A task that runs at once and cannot outlive that (tied, no event:
 * if(0), included, or its maker's queue full) counts nowhere.
 *
 * Waits. In a taskwait, a taskgroup's end and a taskyield a thread runs
 * only tasks of its own deque that descend from the waiting task (the task
 * scheduling constraint of OpenMP, which libomp enforces too): the waiting
 * task's children are always in that deque, or taken by others, and every
 * task pushed there while it waits descends from it, so a popped task that
 * does not descend from it means none is left there (it is pushed back).
 * Included tasks (a team of one, a final task; gcc's undeferred ones too)
 * run at once on the caller's stack; one that makes a counted child hands
 * its children to a heap stand-in (stand_in) and ends without them. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "../prim.h"
#include "taskteam.h"
#include "../core/team.h"

enum { BP_TASK_IDLE_SPINS = 64 }; /* polls that found nothing before a wait yields */

static int preds_complete(const void *arg);

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
    task->tool = 0;
    task->mem = mem;
    task->payload_size = payload;
    atomic_init(&task->requeues, 0);
    atomic_init(&task->npred, 0);
    task->dep = NULL;
    task->dep_table = NULL;
    task->next_ready = NULL;
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
            atomic_fetch_add_explicit(&bp_implicit_of(parent)->children_done, 1,
                                      memory_order_release);
        else
            task_unalive(parent);
    }
    task_unalive(task);
    if (team != NULL)
        bp_task_count_done(team);
}

static void pending_done(struct bp_task *task)
{
    /* acq_rel: the completing thread sees the body's and the event's writes */
    if (atomic_fetch_sub_explicit(&task->pending, 1, memory_order_acq_rel) == 1)
        task_complete(task);
}

/* Give up one unit of task's `pending` unless it is the last: 1 when given
 * up, 0 when the caller holds the last (the task completes with it). */
static int give_up_unit(struct bp_task *task)
{
    int32_t v = atomic_load_explicit(&task->pending, memory_order_relaxed);
    while (v > 1) /* acq_rel: as pending_done's decrement */
        if (atomic_compare_exchange_weak_explicit(&task->pending, &v, v - 1,
                                                  memory_order_acq_rel, memory_order_relaxed))
            return 1;
    return 0;
}

void *bp_task_add_event(struct bp_task *task)
{
    /* relaxed: the task is not yet queued, or is its caller's own */
    atomic_fetch_add_explicit(&task->pending, 1, memory_order_relaxed);
    return task;
}

_Thread_local int bp_task_fulfilling;

/* The listeners hear of a fulfilment: late when the event's unit is the
 * last (the code has ended: the task completes now, the caller's
 * pending_done completes it, 1), early when the code still runs (the unit
 * is given up here, as end_how gives up the body's, 0). */
static int fulfill_heard(struct bp_task *task)
{
    /* a hold of its memory: once the unit is given up, the task may end
     * and complete on another thread while the hook still reads its tool
     * word (the last hold frees it, here or there) */
    bp_task_hold(task);
    int last = !give_up_unit(task);
    bp_hook_task_fulfill(&task->tool, last);
    bp_task_unref(task);
    return last;
}

void bp_task_fulfill(void *event)
{
    struct bp_task *task = event;
    if (bp_listening && !fulfill_heard(task))
        return;
    bp_task_fulfilling = 1; /* the tasks it makes ready: see bp_task_ready */
    pending_done(event);
    bp_task_fulfilling = 0;
}

/* t runs task: it becomes t's task, with its ICVs, and its own task number
 * for nestable locks. */
static void task_enter(struct bp_thread *t, struct bp_task *task, struct bp_task_frame *fr)
{
    fr->prev = bp_task_current(t);
    fr->icv = *bp_icv(t);
    fr->icv_ready = t->icv_ready;
    fr->task_id = t->task_id;
    fr->lender = t->icv_lender; /* an included task's lent ICVs stay its */
    t->task = task;
    t->icv = task->icv;
    t->icv_ready = 1;
    t->icv_lender = NULL;
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
    t->icv_lender = fr->lender;
    t->task_id = fr->task_id;
}

/* How a task's code that ran stopped, for the listeners (hooks.h's
 * BP_TASK_END_*): another part of it was queued meanwhile (requeues moved
 * on from `requeues`), it waits for its event (detach), or it completes.
 * The body's unit of `pending` decides it: with the event's unit still
 * there it is given up here, by a compare-and-swap that a concurrent
 * fulfilment (bp_task_fulfill) cannot pass unseen, and *held is 0; when it
 * is the last unit, the task completes and the caller's pending_done
 * completes it (*held 1). */
static int end_how(struct bp_task *task, uint32_t requeues, int *held)
{
    *held = 1;
    /* relaxed: this thread's own part queued it, or the count is a hint */
    if (atomic_load_explicit(&task->requeues, memory_order_relaxed) != requeues)
        return BP_TASK_END_PART;
    if (give_up_unit(task)) {
        *held = 0;
        return BP_TASK_END_DETACH;
    }
    return BP_TASK_END_COMPLETE;
}

/* The task's code, between the listeners' hooks (hooks.h): 1 when the
 * caller still holds the body's unit of `pending` (pending_done). */
static int run_body(struct bp_task *task)
{
    struct bp_hook_span span;
    /* relaxed: as end_how */
    uint32_t requeues =
        bp_listening ? atomic_load_explicit(&task->requeues, memory_order_relaxed) : 0;
    bp_hook_task_begin(&span, &task->tool);
    task->body(task);
    int held = 1, how = bp_listening ? end_how(task, requeues, &held) : 0;
    bp_hook_task_end(&span, task->fn, &task->tool, how);
    return held;
}

/* The listeners learn of a task made (flags: hooks.h's BP_TASKF_*, to
 * which the task's own are added). */
static void task_made(struct bp_task *task, int flags, const struct bp_dep *deps, int ndeps)
{
    flags |= ((task->flags & BP_TASK_FINAL) ? BP_TASKF_FINAL : 0) |
             ((task->flags & BP_TASK_UNTIED) ? BP_TASKF_UNTIED : 0);
    bp_hook_task_create(&task->tool, flags, task->fn, deps, ndeps);
}

/* A task discarded by cancellation completes without running its code;
 * its ABI may still have to undo something (clang's destructors). */
static void task_discard(struct bp_task *task)
{
    bp_hook_cancel(BP_HOOK_CANCEL_DISCARDED_TASK, &task->tool);
    task->flags |= BP_TASK_STARTED | BP_TASK_DISCARDED;
    if (task->flags & BP_TASK_DISCARD_BODY)
        task->body(task);
}

void bp_task_run(struct bp_thread *t, struct bp_task *task)
{
    if (bp_config.cancellation && !(task->flags & BP_TASK_STARTED) &&
        bp_task_discarded(t, task)) {
        task_discard(task);
        pending_done(task);
        return;
    }
    struct bp_task_frame fr;
    task_enter(t, task, &fr);
    int held = run_body(task);
    task_leave(t, &fr);
    if (held)
        pending_done(task);
}

/* An included task on the stack that makes a counted child (one that may
 * outlive it: queued, detached, with dependences) gets a heap stand-in,
 * which becomes the thread's task in its place: its children are the
 * stand-in's, and so are its taskwaits and taskgroups from then on. So
 * the stack task ends without waiting for them (a detached child may
 * complete only after the code past the task has run, and OpenMP lets an
 * undeferred task end before its children); the stand-in completes when
 * they have. s is t's task; fr, its frame: t's icv_lender (set by
 * bp_task_begin_included), whose lender is the enclosing task's frame. An
 * enclosing task on the stack gets its stand-in first, which s's frame
 * gives back to the thread when s ends. */
static struct bp_task *stand_in(struct bp_thread *t, struct bp_task *s, struct bp_task_frame *fr)
{
    if (s->next_ready != NULL)
        return s->next_ready;
    struct bp_task *p = s->parent;
    if (p->flags & BP_TASK_ON_STACK)
        p = stand_in(t, p, fr->lender);
    struct bp_task *h = bp_task_new(0, 1, NULL, s->flags & ~BP_TASK_ON_STACK, s->fn);
    h->parent = p;
    h->depth = s->depth;
    h->group = s->group;
    h->icv = *bp_icv(t);
    if (p->mem != NULL) { /* as task_place holds a parent */
        bp_task_hold(p);
        h->flags |= BP_TASK_HOLDS_PARENT;
    }
    s->next_ready = h;
    fr->prev = p;
    if (t->task == s)
        t->task = h;
    return h;
}

/* Make task t's task's child, its data environment the task's own. */
static void task_place(struct bp_thread *t, struct bp_task *task)
{
    struct bp_task *parent = bp_task_current(t);
    if (parent->flags & BP_TASK_ON_STACK)
        parent = stand_in(t, parent, t->icv_lender);
    task->parent = parent;
    task->depth = parent->depth + 1;
    task->icv = *bp_icv(t);
    if (parent->flags & BP_TASK_FINAL)
        task->flags |= BP_TASK_FINAL;
    task->group = parent->group;
    /* a heap parent stays readable while task lives (a parent is on the
     * heap, a stand-in included, or implicit: implicit tasks outlive
     * their team's tasks) */
    if (parent->mem != NULL) {
        bp_task_hold(parent);
        task->flags |= BP_TASK_HOLDS_PARENT;
    }
}

/* A placed task that runs now, counted nowhere (bp_task_submit): with the
 * ICVs t holds, which are its own, and freed at once when nothing else
 * came to hold it (no child, no dependence). Discarded (not run) when its
 * region or taskgroup is cancelled, as a queued one. */
static void run_uncounted(struct bp_thread *t, struct bp_task *task)
{
    if (bp_config.cancellation && bp_task_discarded(t, task)) {
        task_discard(task);
    } else {
        struct bp_task_frame fr;
        fr.prev = bp_task_current(t);
        fr.icv = *bp_icv(t);
        fr.icv_ready = t->icv_ready;
        fr.task_id = t->task_id;
        fr.lender = t->icv_lender;
        t->icv_lender = NULL;
        t->task = task;
        t->task_id = 0;
        task->flags |= BP_TASK_STARTED;
        (void)run_body(task); /* no event, no other part: its unit is held */
        task_leave(t, &fr);
    }
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
        bp_task_count_made(t, task->team);
}

void bp_task_submit(struct bp_thread *t, struct bp_task *task, int deferred)
{
    if (task->flags & BP_TASK_STARTED) { /* an untied task's next part */
        /* relaxed: the running part holds the task */
        atomic_fetch_add_explicit(&task->requeues, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&task->pending, 1, memory_order_relaxed);
    } else {
        task_made(task, deferred ? 0 : BP_TASKF_UNDEFERRED, NULL, 0);
        if ((!deferred ||
             (t->team_size > 1 && bp_config.task_throttle && bp_task_queue_full(t))) &&
            !(task->flags & BP_TASK_UNTIED) &&
            atomic_load_explicit(&task->pending, memory_order_relaxed) == 1) {
            /* It runs now, to completion (it waits for no event, and no
             * untied part of it can be queued for later) before its maker
             * goes on: nothing need count it, as an included task; its own
             * children are counted as any. */
            task_place(t, task);
            run_uncounted(t, task);
            return;
        }
        task_link(t, task);
    }
    if (deferred && task->team != NULL) {
        if (bp_task_queue(t, task))
            return;
        if (!bp_config.task_throttle && t->team_size > 1) {
            bp_task_inbox(task); /* its maker's deque is full: no throttling */
            return;
        }
    }
    bp_task_run(t, task);
}

static void submit_deps(struct bp_thread *t, struct bp_task *task, const struct bp_dep *deps,
                        int ndeps, int deferred, int flags)
{
    task_made(task, flags | (deferred ? 0 : BP_TASKF_UNDEFERRED), deps, ndeps);
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
        bp_task_wait_until(t, preds_complete, task, task->parent, BP_SYNC_NONE);
    }
    if (!waited && bp_task_queue(t, task))
        return;
    bp_task_run(t, task);
}

void bp_task_submit_deps(struct bp_thread *t, struct bp_task *task, const struct bp_dep *deps,
                         int ndeps, int deferred)
{
    submit_deps(t, task, deps, ndeps, deferred, 0);
}

static void empty_body(struct bp_task *task) { (void)task; }

void bp_taskwait_deps(struct bp_thread *t, const struct bp_dep *deps, int ndeps, int nowait)
{
    /* an empty task with those dependences, as OpenMP says: undeferred, or
     * deferred under nowait (the thread goes on) */
    struct bp_task *task = bp_task_new(0, 1, empty_body, 0, NULL);
    if (nowait) {
        submit_deps(t, task, deps, ndeps, 1, 0);
        return;
    }
    bp_hook_sync(BP_SYNC_TASKWAIT, 1);
    submit_deps(t, task, deps, ndeps, 0, BP_TASKF_TASKWAIT);
    bp_hook_sync(BP_SYNC_TASKWAIT, 0);
}

void bp_task_included_heard(struct bp_task *task)
{
    task->tool = 0; /* the next of bp_task_next_included is a new task */
    task_made(task, BP_TASKF_INCLUDED, NULL, 0);
    bp_hook_task_inline(&task->tool, 1);
}

void bp_task_begin_undeferred(struct bp_thread *t, struct bp_task *task,
                              struct bp_task_frame *fr)
{
    task_made(task, BP_TASKF_UNDEFERRED, NULL, 0);
    task_link(t, task);
    task_enter(t, task, fr);
    bp_hook_task_inline(&task->tool, 1);
}

void bp_task_end_included_slow(struct bp_task *task)
{
    struct bp_task *h = task->next_ready; /* its children hold it, not the task */
    task->next_ready = NULL;
    pending_done(h);
}

void bp_task_end_undeferred(struct bp_thread *t, struct bp_task *task,
                            struct bp_task_frame *fr)
{
    bp_hook_task_inline(&task->tool, 0);
    task_leave(t, fr);
    pending_done(task);
}

/* Does x descend from anc? Walk x's parents up to anc's depth (a queued or
 * running task keeps its parents). */
int bp_task_descends(const struct bp_task *x, const struct bp_task *anc)
{
    while (x->depth > anc->depth)
        x = x->parent;
    return x == anc;
}

/* The waits that run tasks. A task's wait (waiting set) asks ready(arg)
 * before each task it runs. A drain (waiting NULL: the team's tasks, any of
 * them) asks the cheap stop(arg), when there is one, before each task, and
 * ready(arg) only when it found none: ready reads the team's counts, on the
 * lines that every task made or completed writes. */
static void wait_loop(struct bp_thread *t, int (*ready)(const void *),
                      int (*stop)(const void *), const void *arg, struct bp_task *waiting,
                      int kind)
{
    int idle = 0;
    struct bp_hook_span span;
    bp_hook_task_wait_begin(&span, kind);
    for (;;) {
        int ran;
        if (waiting != NULL) {
            if (ready(arg))
                break;
            ran = bp_task_run_own(t, waiting);
        } else {
            if (stop != NULL && stop(arg))
                break;
            ran = bp_tasks_poll(t);
            if (!ran && ready(arg))
                break;
        }
        if (ran) {
            idle = 0;
        } else if (++idle < BP_TASK_IDLE_SPINS) {
            bp_cpu_relax();
        } else {
            sched_yield(); /* the tasks it waits for run elsewhere */
        }
    }
    bp_hook_task_wait_end(&span, kind);
}

void bp_task_wait_until(struct bp_thread *t, int (*ready)(const void *), const void *arg,
                        struct bp_task *waiting, int kind)
{
    wait_loop(t, ready, NULL, arg, waiting, kind);
}

void bp_task_drain_until(struct bp_thread *t, int (*done)(const void *),
                         int (*stop)(const void *), const void *arg)
{
    wait_loop(t, done, stop, arg, NULL, BP_SYNC_NONE);
}

/* The conditions, each read with acquire: the completed tasks' writes are
 * seen after the wait. */
static int children_complete(const void *arg)
{
    const struct bp_task *task = arg;
    if (task->flags & BP_TASK_IMPLICIT) /* its own thread reads children_made */
        return atomic_load_explicit(&bp_implicit_of((struct bp_task *)task)->children_done,
                                    memory_order_acquire) == task->children_made;
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

void bp_taskwait(struct bp_thread *t)
{
    struct bp_task *task = bp_task_current(t);
    bp_task_wait_until(t, children_complete, task, task, BP_SYNC_TASKWAIT);
}

void bp_task_children_wait(struct bp_thread *t)
{
    struct bp_task *task = bp_task_current(t);
    bp_task_wait_until(t, children_complete, task, task, BP_SYNC_NONE);
}

void bp_taskyield(struct bp_thread *t)
{
    bp_task_run_own(t, bp_task_current(t));
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
    atomic_init(&g->cancelled, 0);
    task->group = g;
    bp_hook_sync(BP_SYNC_TASKGROUP, 1);
}

void bp_taskgroup_end(struct bp_thread *t)
{
    struct bp_task *task = bp_task_current(t);
    struct bp_taskgroup *g = task->group;
    if (g == NULL)
        bp_fatal("the end of a taskgroup that was not begun");
    bp_task_wait_until(t, group_complete, g, task, BP_SYNC_TASKGROUP);
    if (g->finish != NULL) /* its reductions, folded */
        g->finish(g);
    task->group = g->prev;
    free(g);
}

