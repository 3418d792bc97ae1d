/* tasking.h: the calls of explicit tasks: making, running and waiting
 * for them (task.c), their memory (taskmem.c), dependences (taskdep.c),
 * taskloops (taskloop.c) and the team's queues (taskteam.c). */
#ifndef BUDDYPOOL_TASKING_H
#define BUDDYPOOL_TASKING_H

#include <stddef.h>
#include <stdint.h>

#include "task.h"
#include "../hooks.h"
#include "../core/thread.h"

struct bp_team;

/* A task's dependences are hooks.h's struct bp_dep (the listeners are
 * told them as they are). */

/* task.c */

/* A task on the heap with `payload` bytes of the ABI's data aligned to
 * `align` (a power of two, at most 64; more is an error the ABI reports),
 * not yet made part of anything. */
struct bp_task *bp_task_new(size_t payload, size_t align, void (*body)(struct bp_task *),
                            uint32_t flags, const void *fn);
/* Free a task of bp_task_new that was never made part of anything. */
void bp_task_free(struct bp_task *task);
/* Make task a child of t's task and queue it (deferred), or run it now
 * (undeferred: if(0), or included); a started untied task is queued again
 * for its next part. The task may be freed before this returns. */
void bp_task_submit(struct bp_thread *t, struct bp_task *task, int deferred);
/* An undeferred task of bp_task_new whose body its creator runs itself,
 * between these two (__kmpc_omp_task_begin_if0); an included one on the
 * stack uses bp_task_begin_included instead. */
void bp_task_begin_undeferred(struct bp_thread *t, struct bp_task *task,
                              struct bp_task_frame *fr);
void bp_task_end_undeferred(struct bp_thread *t, struct bp_task *task,
                            struct bp_task_frame *fr);
/* The listeners hear of an included task: made, and begun (task.c). */
void bp_task_included_heard(struct bp_task *task);
/* An included task on the caller's stack (bp_task_included said so; no
 * event, no dependences), whose body its creator runs between these: only
 * the fields an included task reads are set. Inline: a task of one
 * thread's team costs this and the body. */
static inline void bp_task_begin_included(struct bp_thread *t, struct bp_task *task,
                                          uint32_t flags, const void *fn,
                                          struct bp_task_frame *fr)
{
    struct bp_task *parent = bp_task_current(t);
    task->parent = parent;
    task->depth = parent->depth + 1;
    task->flags = flags | (parent->flags & BP_TASK_FINAL) | BP_TASK_STARTED | BP_TASK_ON_STACK;
    task->fn = fn;
    task->tool = 0;
    task->next_ready = NULL; /* no stand-in yet */
    task->group = parent->group;
    task->in_group = NULL;
    task->team = NULL;
    task->mem = NULL;
    task->dep = NULL;
    task->dep_table = NULL;
    atomic_init(&task->refs, 1);
    atomic_init(&task->mem_holds, 1);
    atomic_init(&task->pending, 1);
    /* its ICVs are its parent's, which t holds: lent, and saved in fr
     * only when its code changes one (bp_icv_set); task->icv is not read */
    (void)bp_icv(t); /* set, so that a lent copy is never the initial one */
    fr->prev = parent;
    fr->icv_saved = 0;
    fr->lender = t->icv_lender;
    fr->task_id = t->task_id;
    t->task = task;
    t->icv_lender = fr;
    t->task_id = 0;
    if (bp_listening) /* made and run at once */
        bp_task_included_heard(task);
}
/* Its end when it made a counted child: the stand-in that holds its
 * children (task.c) completes with them. A task on the stack has nothing
 * else to wait for: every counted child, and the dependences and holds
 * that come with it, is its stand-in's. */
void bp_task_end_included_slow(struct bp_task *task);
static inline int bp_task_included_busy(const struct bp_task *task)
{
    return task->next_ready != NULL;
}
static inline void bp_task_end_included(struct bp_thread *t, struct bp_task *task,
                                        const struct bp_task_frame *fr)
{
    bp_hook_task_inline(&task->tool, 0);
    if (__builtin_expect(bp_task_included_busy(task), 0))
        bp_task_end_included_slow(task);
    t->task = fr->prev;
    if (fr->icv_saved)
        t->icv = fr->icv;
    t->icv_lender = fr->lender;
    t->task_id = fr->task_id;
}
/* Between two included tasks made one after the other by the same task
 * (a taskloop's, on one thread): the first ends, the next starts in its
 * place with the same flags, without looking up the parent again. */
static inline void bp_task_next_included(struct bp_thread *t, struct bp_task *task,
                                         struct bp_task_frame *fr)
{
    bp_hook_task_inline(&task->tool, 0);
    if (__builtin_expect(bp_task_included_busy(task), 0))
        bp_task_end_included_slow(task);
    if (fr->icv_saved) { /* the parent's, which the next one borrows */
        t->icv = fr->icv;
        fr->icv_saved = 0;
    }
    t->task = task;
    t->icv_lender = fr;
    t->task_id = 0;
    if (bp_listening) /* the next one: made and run at once */
        bp_task_included_heard(task);
}
/* A task's completion waits for one more event (detach); the handle. */
void *bp_task_add_event(struct bp_task *task);
void bp_task_fulfill(void *event);
/* The task scheduling points. */
void bp_taskwait(struct bp_thread *t);
/* The same wait where no taskwait is (the end of a region of one thread):
 * the listeners hear of no sync region. */
void bp_task_children_wait(struct bp_thread *t);
void bp_taskyield(struct bp_thread *t);
void bp_taskgroup_begin(struct bp_thread *t);
void bp_taskgroup_end(struct bp_thread *t);
/* Is t's task final (omp_in_final)? */
int bp_task_in_final(struct bp_thread *t);

/* Drop a hold on a task's memory (the last frees it). */
void bp_task_unref(struct bp_task *task);
/* Take one. */
void bp_task_hold(struct bp_task *task);
/* Make t's task's child `task` (bp_task_new) wait for its dependences on
 * its siblings, then queue it (deferred) or run it now, its maker running
 * other tasks meanwhile. */
void bp_task_submit_deps(struct bp_thread *t, struct bp_task *task, const struct bp_dep *deps,
                         int ndeps, int deferred);
/* taskwait depend(...): wait for the sibling tasks those name. With
 * nowait, an empty deferred task with those dependences instead (OpenMP
 * 5.2, 15.5), which the tasks after it that depend on the same items wait
 * for, and nothing else does. */
void bp_taskwait_deps(struct bp_thread *t, const struct bp_dep *deps, int ndeps, int nowait);

/* taskteam.c */

/* Is t's own queue full (a deferred task made now would run at once)?
 * Looked at lazily: it may have room when this says full (deque.h). */
int bp_task_queue_full(struct bp_thread *t);
/* A barrier's or join's wait: run one task of t's team, if one is queued;
 * 1 if it ran one (arg: t). */
int bp_tasks_poll(void *arg);
/* The end of a barrier or region: run the team's tasks until all are
 * complete. */
void bp_tasks_drain(struct bp_thread *t);
/* The end of barrier episode e, every thread arrived: the same, until all
 * tasks made before the barrier are complete, which the first thread to
 * see none pending tells the others (tasks made after it, by a thread
 * that has left, are not the barrier's to wait for). */
void bp_tasks_drain_barrier(struct bp_thread *t, uint64_t e);
/* Tasks of the team not complete (made minus completed; 0 is final once
 * no implicit task can make more). */
int64_t bp_tasks_pending(struct bp_team *team);
/* Thread 0's join: its team's tasks complete, the workers helping when
 * they finished the region's code before the tasks did. */
uint32_t bp_tasks_join(struct bp_thread *t, struct bp_team *team, int team_size,
                       uint32_t used);
/* What a worker runs when thread 0 asks it back to help with tasks. */
void bp_tasks_help(int tid, void *ctx);
/* A deferred task whose predecessors are all complete: queue it. */
void bp_task_ready(struct bp_task *task);
/* Queue a task in its team's inbox, which every poll and wait reads
 * (taskteam.c): where its maker's deque is full and tasks are not
 * throttled. */
void bp_task_inbox(struct bp_task *task);
/* The team's word for an ABI's team-wide task reductions of a parallel
 * (which 0), or of the worksharing construct open at depth which - 1 (1:
 * the outermost; a scope may hold another construct); NULL in a team of
 * one. */
#define BP_WS_RED_DEPTH 8
_Atomic(void *) *bp_team_reduction_slot(struct bp_thread *t, int which);
/* What a word holds: NULL, BP_TEAM_RED_BUSY while its first thread makes
 * the copies, then an ABI's block, which begins with how to free it and
 * its copies when a cancelled region's join finds it still there
 * (cancel.c: the threads that would have freed it skipped the construct). */
#define BP_TEAM_RED_BUSY ((void *)1)
struct bp_team_red {
    void (*drop)(struct bp_team_red *self);
};

/* taskmem.c */

/* A task's memory (size bytes, the returned pointer aligned to
 * `align`, at least 64), from the calling thread's blocks when it fits
 * one; freed from any thread. */
void *bp_taskmem_alloc(size_t size, size_t align);
void bp_taskmem_free(void *p);
void bp_taskmem_fork_child(void);

/* taskdep.c */

/* task.c's side of them: enter n in its parent's table (n->npred counts
 * what it waits for); a completing task's successors lose it. */
void bp_deps_register(struct bp_task *parent, struct bp_task *n, const struct bp_dep *deps,
                      int ndeps);
void bp_deps_release(struct bp_task *task);
/* Free task's children's table (all complete), if it has one: inline, for
 * the end of every region's implicit tasks, which rarely have one. */
void bp_task_deps_table_free(struct bp_task *task);
static inline void bp_task_deps_free(struct bp_task *task)
{
    if (__builtin_expect(task->dep_table != NULL, 0))
        bp_task_deps_table_free(task);
}
/* Free its own node (the task is freed). */
void bp_task_node_free(struct bp_task *task);
/* libomp's introspection of the graph (__kmpc_task_get_depnode,
 * __kmpc_task_get_successors): the task's node, NULL if it has no
 * dependences, whose first word is its successors' list ({node, next}
 * entries, node the successor's node), made now from the tasks that wait
 * for it and kept until the node is freed; NULL when none waits. */
void *bp_task_depnode(struct bp_task *task);
void *bp_task_successors(struct bp_task *task);

/* taskloop.c */

/* A taskloop's n iterations in tasks: ntasks of base iterations, the first
 * `extra` of them one more; strict: each of base, the last one `last`. */
enum { BP_TASKLOOP_DEFAULT = 0, BP_TASKLOOP_GRAINSIZE = 1, BP_TASKLOOP_NUM_TASKS = 2 };
struct bp_taskloop_plan {
    uint64_t ntasks, base, extra, last;
    int strict;
};
void bp_taskloop_plan(struct bp_taskloop_plan *p, uint64_t n, int sched, uint64_t param,
                      int strict, uint64_t default_tasks);
/* Iterations of task k of the plan. */
static inline uint64_t bp_taskloop_count(const struct bp_taskloop_plan *p, uint64_t k)
{
    if (p->strict)
        return k + 1 == p->ntasks ? p->last : p->base;
    return p->base + (k < p->extra);
}
/* Running a grouped, deferred taskloop of a team of several threads by lazy
 * splitting (taskloop.c): the ABI's task(t, r, scratch, k, first, count)
 * runs task k of the plan (iterations first..first+count-1) at once as an
 * included task, its data copied into scratch (scratch_size bytes aligned
 * to scratch_align, the calling thread's). The ABI's own state follows r
 * in a struct of its own; fn names the range tasks in the profile. */
struct bp_taskloop_run {
    void (*task)(struct bp_thread *t, const struct bp_taskloop_run *r, void *scratch,
                 uint64_t k, uint64_t first, uint64_t count);
    size_t scratch_size, scratch_align;
    const void *fn;
    struct bp_taskloop_plan plan;
};
void bp_taskloop_lazy(struct bp_thread *t, const struct bp_taskloop_run *r);

#endif
