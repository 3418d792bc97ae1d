/* work.c: the tool interface's events of worksharing (work, dispatch),
 * masked, flush and cancel. Each names the calling thread's innermost
 * task and its region (ompt.h). A loop is named by its schedule
 * (ompt_work_loop_static, _dynamic, _guided, _other, as libomp does); a
 * chunk handed out is told as ompt_dispatch_ws_loop_chunk (its first
 * value of the loop variable and its iterations, in an
 * ompt_dispatch_chunk_t that lives until the callback returns), a section
 * as ompt_dispatch_section (its number). */
#include <stdint.h>

#include "ompt.h"
#include "../listeners.h"

static const ompt_work_t work_of[] = {
    [BP_WORK_LOOP_STATIC] = ompt_work_loop_static,
    [BP_WORK_LOOP_DYNAMIC] = ompt_work_loop_dynamic,
    [BP_WORK_LOOP_GUIDED] = ompt_work_loop_guided,
    [BP_WORK_LOOP_OTHER] = ompt_work_loop_other,
    [BP_WORK_SECTIONS] = ompt_work_sections,
    [BP_WORK_SINGLE] = ompt_work_single_executor,
    [BP_WORK_SINGLE_OTHER] = ompt_work_single_other,
    [BP_WORK_DISTRIBUTE] = ompt_work_distribute,
    [BP_WORK_TASKLOOP] = ompt_work_taskloop,
};

/* The calling thread's innermost task, and its region's data. */
static struct bp_ompt_task *innermost(ompt_data_t **parallel)
{
    struct bp_ompt_task *t = bp_ompt_task_at(&bp_ompt_tls, 0);
    *parallel = t != NULL ? t->parallel : NULL;
    return t;
}

void bp_ompt_work(int kind, int begin, uint64_t count)
{
    ompt_callback_work_t cb = (ompt_callback_work_t)bp_ompt_callback(ompt_callback_work);
    if (cb == NULL)
        return;
    ompt_data_t *parallel;
    struct bp_ompt_task *t = innermost(&parallel);
    cb(work_of[kind], begin ? ompt_scope_begin : ompt_scope_end, parallel, bp_ompt_data_of(t),
       count, NULL);
}

void bp_ompt_dispatch(int kind, uint64_t start, uint64_t count)
{
    ompt_callback_dispatch_t cb =
        (ompt_callback_dispatch_t)bp_ompt_callback(ompt_callback_dispatch);
    if (cb == NULL)
        return;
    ompt_data_t *parallel;
    struct bp_ompt_task *t = innermost(&parallel);
    ompt_dispatch_chunk_t chunk = {start, count};
    ompt_data_t instance;
    if (kind == BP_WORK_SECTIONS) {
        instance.value = start;
        cb(parallel, bp_ompt_data_of(t), ompt_dispatch_section, instance);
        return;
    }
    instance.ptr = &chunk;
    cb(parallel, bp_ompt_data_of(t),
       kind == BP_WORK_TASKLOOP     ? ompt_dispatch_taskloop_chunk
       : kind == BP_WORK_DISTRIBUTE ? ompt_dispatch_distribute_chunk
                                    : ompt_dispatch_ws_loop_chunk,
       instance);
}

void bp_ompt_masked(int begin)
{
    ompt_callback_masked_t cb = (ompt_callback_masked_t)bp_ompt_callback(ompt_callback_masked);
    if (cb == NULL)
        return;
    ompt_data_t *parallel;
    struct bp_ompt_task *t = innermost(&parallel);
    cb(begin ? ompt_scope_begin : ompt_scope_end, parallel, bp_ompt_data_of(t), NULL);
}

void bp_ompt_flush(void)
{
    ompt_callback_flush_t cb = (ompt_callback_flush_t)bp_ompt_callback(ompt_callback_flush);
    struct bp_ompt_thread *th = &bp_ompt_tls;
    bp_ompt_thread_known(th);
    if (cb != NULL)
        cb(&th->data, NULL);
}

_Static_assert(BP_HOOK_CANCEL_PARALLEL == (int)ompt_cancel_parallel &&
                   BP_HOOK_CANCEL_SECTIONS == (int)ompt_cancel_sections &&
                   BP_HOOK_CANCEL_LOOP == (int)ompt_cancel_loop &&
                   BP_HOOK_CANCEL_TASKGROUP == (int)ompt_cancel_taskgroup &&
                   BP_HOOK_CANCEL_ACTIVATED == (int)ompt_cancel_activated &&
                   BP_HOOK_CANCEL_DETECTED == (int)ompt_cancel_detected &&
                   BP_HOOK_CANCEL_DISCARDED_TASK == (int)ompt_cancel_discarded_task,
               "hooks.h's cancel bits are OMPT's");

/* The flags are ompt_cancel_flag_t's bits (hooks.h keeps them so). A
 * discarded task is named by its own data, the rest by the innermost. */
void bp_ompt_cancel(int flags, uint64_t *word)
{
    ompt_callback_cancel_t cb = (ompt_callback_cancel_t)bp_ompt_callback(ompt_callback_cancel);
    if (cb == NULL)
        return;
    ompt_data_t *parallel;
    ompt_data_t *task = word != NULL ? (ompt_data_t *)word : bp_ompt_data_of(innermost(&parallel));
    cb(task, flags, NULL);
}
