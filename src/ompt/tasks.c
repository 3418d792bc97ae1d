/* tasks.c: the tool interface's events of explicit tasks: task_create
 * (with the task's dependences), and task_schedule as a thread starts a
 * task's code, leaves it (complete, waiting for its event, or a part of an
 * untied task done) and as a detached task's event is fulfilled;
 * task_dependence for each pair of tasks a dependence links, as the later
 * one is registered (the earlier one not complete). A
 * taskwait with dependences makes an empty task that its thread waits
 * for; it is created (ompt_task_taskwait) and, once its dependences are
 * met, completes (ompt_taskwait_complete), as libomp reports it.
 *
 * A task's ompt_data_t is the word the core keeps in each task for the
 * listeners (zero when the task is made): the tool sets it at task_create
 * and is handed the same word at every later event of the task. While its
 * code runs the task is the innermost on its thread's stack (ompt.h), so
 * ompt_get_task_info and the sync regions inside it name it; the task
 * that made it, or that its thread returns to, is the one under it.
 *
 * Order. task_create comes once the task's data is filled in and before it
 * may run anywhere; a task's end (task_schedule, complete) comes before
 * its completion is counted, so a tool's record of the end precedes what
 * a taskwait, a taskgroup or a successor learns from the count. */
#include <stdint.h>
#include <stdlib.h>

#include "ompt.h"
#include "../listeners.h"

static void schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    ompt_callback_task_schedule_t cb =
        (ompt_callback_task_schedule_t)bp_ompt_callback(ompt_callback_task_schedule);
    if (cb != NULL)
        cb(prior, status, next);
}

static const ompt_dependence_type_t dep_type[] = {
    [BP_DEP_IN] = ompt_dependence_type_in,
    [BP_DEP_OUT] = ompt_dependence_type_out,
    [BP_DEP_INOUT] = ompt_dependence_type_inout,
    [BP_DEP_MUTEXINOUTSET] = ompt_dependence_type_mutexinoutset,
    [BP_DEP_INOUTSET] = ompt_dependence_type_inoutset,
    [BP_DEP_ALL] = ompt_dependence_type_inout_all_memory,
};

static void dependences(ompt_data_t *task, const struct bp_dep *deps, int ndeps)
{
    ompt_callback_dependences_t cb =
        (ompt_callback_dependences_t)bp_ompt_callback(ompt_callback_dependences);
    if (cb == NULL)
        return;
    enum { ON_STACK = 32 };
    ompt_dependence_t local[ON_STACK] = {0}, *d = local;
    if (ndeps > ON_STACK && (d = malloc(sizeof *d * (size_t)ndeps)) == NULL)
        return; /* out of memory: the tool is not told (the task still runs) */
    for (int i = 0; i < ndeps; i++) {
        d[i].variable.ptr = (void *)deps[i].addr;
        d[i].dependence_type = dep_type[deps[i].kind];
    }
    cb(task, d, ndeps);
    if (d != local)
        free(d);
}

void bp_ompt_task_create(uint64_t *word, int flags, const void *fn,
                         const struct bp_dep *deps, int ndeps)
{
    (void)fn;
    struct bp_ompt_thread *th = &bp_ompt_tls;
    bp_ompt_thread_known(th);
    struct bp_ompt_task *enc = bp_ompt_task_at(th, 0);
    static const ompt_frame_t no_frame;
    int f = ompt_task_explicit;
    if (flags & (BP_TASKF_UNDEFERRED | BP_TASKF_INCLUDED))
        f |= ompt_task_undeferred;
    if (flags & BP_TASKF_FINAL)
        f |= ompt_task_final;
    if (flags & BP_TASKF_UNTIED)
        f |= ompt_task_untied;
    if (flags & BP_TASKF_MERGEABLE)
        f |= ompt_task_mergeable;
    if (flags & BP_TASKF_TASKWAIT) /* taskwait with dependences: its stand-in */
        f = ompt_task_taskwait | ompt_task_undeferred;
    ompt_callback_task_create_t cb =
        (ompt_callback_task_create_t)bp_ompt_callback(ompt_callback_task_create);
    if (cb != NULL)
        cb(bp_ompt_data_of(enc), enc != NULL ? &enc->frame : &no_frame, (ompt_data_t *)word, f,
           ndeps > 0, NULL);
    if (ndeps > 0)
        dependences((ompt_data_t *)word, deps, ndeps);
    if (flags & BP_TASKF_TASKWAIT)
        th->taskwait_task = (ompt_data_t *)word;
}

/* The thread starts the task's code: the task it was in is left (switch)
 * for it, and it is its innermost. */
void bp_ompt_task_begin(uint64_t *word)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    bp_ompt_thread_known(th);
    if ((ompt_data_t *)word == th->taskwait_task)
        return; /* a taskwait's task only completes (bp_ompt_task_end) */
    struct bp_ompt_task *prior = bp_ompt_task_at(th, 0);
    schedule(bp_ompt_data_of(prior), ompt_task_switch, (ompt_data_t *)word);
    bp_ompt_push(th, (ompt_data_t *)word, prior != NULL ? prior->parallel : NULL,
                 prior != NULL ? prior->team_size : 1, prior != NULL ? prior->thread_num : 0,
                 ompt_task_explicit);
    th->state = bp_ompt_work_state(th);
}

void bp_ompt_task_end(uint64_t *word, int how)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    if ((ompt_data_t *)word == th->taskwait_task) {
        th->taskwait_task = NULL;
        schedule((ompt_data_t *)word, ompt_taskwait_complete,
                 bp_ompt_data_of(bp_ompt_task_at(th, 0)));
        return;
    }
    bp_ompt_pop(th);
    ompt_task_status_t status = how == BP_TASK_END_DETACH ? ompt_task_detach
                                : how == BP_TASK_END_PART ? ompt_task_yield
                                                          : ompt_task_complete;
    schedule((ompt_data_t *)word, status, bp_ompt_data_of(bp_ompt_task_at(th, 0)));
    th->state = bp_ompt_work_state(th);
}

void bp_ompt_task_inline(uint64_t *word, int begin)
{
    if (begin)
        bp_ompt_task_begin(word);
    else
        bp_ompt_task_end(word, BP_TASK_END_COMPLETE);
}

void bp_ompt_task_fulfill(uint64_t *word, int late)
{
    schedule((ompt_data_t *)word, late ? ompt_task_late_fulfill : ompt_task_early_fulfill,
             NULL);
}

void bp_ompt_task_dependence(uint64_t *pred, uint64_t *succ)
{
    ompt_callback_task_dependence_t cb =
        (ompt_callback_task_dependence_t)bp_ompt_callback(ompt_callback_task_dependence);
    if (cb != NULL)
        cb((ompt_data_t *)pred, (ompt_data_t *)succ);
}
