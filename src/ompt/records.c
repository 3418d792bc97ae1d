/* records.c: what the tool interface keeps per thread (ompt.h): the
 * thread's record and its stack of tasks, which every file of the
 * interface reads and the events push and pop, the callbacks the tool set,
 * and the sending of a sync region with its wait, which the closing
 * barriers of regions (events.c) and the others (sync.c) share. The files
 * that send events call down into this one; it calls none of them. */
#include <stddef.h>
#include <stdint.h>

#include "ompt.h"

_Thread_local struct bp_ompt_thread bp_ompt_tls;
/* the tool's callbacks (start.c sets them; ompt.h) */
ompt_callback_t bp_ompt_cb[BP_OMPT_EVENTS];
/* What a callback is handed for a task past BP_OMPT_DEPTH, or for one the
 * thread has no record of: valid storage, its own per thread. */
static _Thread_local ompt_data_t scratch;

struct bp_ompt_task *bp_ompt_task_at(struct bp_ompt_thread *th, int ancestor_level)
{
    if (ancestor_level < 0 || ancestor_level >= th->depth)
        return NULL;
    int i = th->depth - 1 - ancestor_level;
    return i < BP_OMPT_DEPTH ? &th->tasks[i] : NULL;
}

struct bp_ompt_task *bp_ompt_push(struct bp_ompt_thread *th, ompt_data_t *dp,
                                  ompt_data_t *parallel, unsigned team_size,
                                  unsigned thread_num, int flags)
{
    struct bp_ompt_task *t = th->depth < BP_OMPT_DEPTH ? &th->tasks[th->depth] : NULL;
    th->depth++;
    if (t != NULL) {
        *t = (struct bp_ompt_task){.parallel = parallel, .team_size = team_size,
                                   .thread_num = thread_num, .flags = flags};
        t->dp = dp != NULL ? dp : &t->data;
    }
    return t;
}

void bp_ompt_pop(struct bp_ompt_thread *th)
{
    if (th->depth > 0)
        th->depth--;
}

ompt_data_t *bp_ompt_data_of(struct bp_ompt_task *t) { return t != NULL ? t->dp : &scratch; }

ompt_state_t bp_ompt_work_state(struct bp_ompt_thread *th)
{
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    if (t == NULL && th->depth > 0) /* past the records: in a region */
        return ompt_state_work_parallel;
    return t == NULL || (t->flags & ompt_task_initial) ? ompt_state_work_serial
                                                       : ompt_state_work_parallel;
}

void bp_ompt_sync_cb(int event, int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task)
{
    ompt_callback_sync_region_t cb = (ompt_callback_sync_region_t)bp_ompt_callback(event);
    if (cb != NULL)
        cb((ompt_sync_region_t)kind, (ompt_scope_endpoint_t)endpoint, parallel, task, NULL);
}

void bp_ompt_sync_send(int kind, int begin, ompt_data_t *parallel, ompt_data_t *task)
{
    if (begin) {
        bp_ompt_sync_cb(ompt_callback_sync_region, kind, ompt_scope_begin, parallel, task);
        bp_ompt_sync_cb(ompt_callback_sync_region_wait, kind, ompt_scope_begin, parallel, task);
    } else {
        bp_ompt_sync_cb(ompt_callback_sync_region_wait, kind, ompt_scope_end, parallel, task);
        bp_ompt_sync_cb(ompt_callback_sync_region, kind, ompt_scope_end, parallel, task);
    }
}

