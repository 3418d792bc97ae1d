/* thread.c: the calling thread's state (struct bp_thread, internal.h), in
 * thread-local storage: its place in the current team and region, the
 * implicit task it runs and that task's ICVs. Every layer reads it through
 * bp_self(); this file defines it, sets up its implicit tasks (the initial
 * one outside any region, and a region's) and its ICVs, and calls nothing
 * but the environment's loader, so any file may use it without joining a
 * circle. */
#include <string.h>

#include "../internal.h"

_Thread_local struct bp_thread bp_tls = {.team_size = 1, .gtid = -1, .place = -1};
static _Atomic int next_gtid;

int bp_gtid(struct bp_thread *t)
{
    if (t->gtid < 0)
        t->gtid = atomic_fetch_add_explicit(&next_gtid, 1, memory_order_relaxed);
    return t->gtid;
}

void bp_icv_init(struct bp_thread *t)
{
    bp_config_load();
    /* the ICVs come late but the task is the same: a nestable lock it took
     * before its first look at them stays its own */
    uint32_t id = t->task_id;
    bp_task_icvs(t, &bp_config.icv);
    t->task_id = id;
}

void bp_icv_own(struct bp_thread *t)
{
    struct bp_task_frame *fr = t->icv_lender;
    fr->icv = t->icv;
    fr->icv_saved = 1;
    t->icv_lender = NULL;
}

struct bp_task *bp_task_current_initial(struct bp_thread *t)
{
    struct bp_task *it = &t->initial_task.task;
    if (!(it->flags & BP_TASK_IMPLICIT))
        bp_task_implicit(t, &t->initial_task);
    t->task = it;
    return it;
}

void bp_task_implicit_init(struct bp_implicit_task *implicit)
{
    /* the fields an implicit task reads: all but the ICVs and the creator's
     * frame, which struct bp_task keeps last; a region's fork pays this */
    bp_zero_fixed(implicit, offsetof(struct bp_task, icv));
    atomic_init(&implicit->children_done, 0);
    struct bp_task *task = &implicit->task;
    atomic_init(&task->refs, 1);
    atomic_init(&task->mem_holds, 1);
    atomic_init(&task->pending, 1);
    task->flags = BP_TASK_IMPLICIT;
}

void bp_task_implicit(struct bp_thread *t, struct bp_implicit_task *implicit)
{
    bp_task_implicit_init(implicit);
    t->task = &implicit->task;
}
