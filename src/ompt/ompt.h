/* ompt.h: what the files of the tool interface share. start.c finds and
 * starts the tool, answers its lookups and sets the callbacks it
 * registered; events.c (threads, regions, implicit tasks), sync.c (sync
 * regions, reductions, locks), tasks.c (explicit tasks) and work.c
 * (worksharing, masked, flush, cancel) turn the hooks the switchboard
 * hands them into the callbacks; records.c, under them all, holds what
 * they keep, in the listener's own storage: per thread a record of the
 * thread and a stack of the tasks it is in (what ompt_get_task_info and
 * ompt_get_parallel_info read), per region the words of the span the core
 * keeps on the forking thread's stack, per team a block the core keeps for
 * the listeners, per explicit task the word the core keeps in it. */
#ifndef BUDDYPOOL_OMPT_H
#define BUDDYPOOL_OMPT_H

#include "tools.h"

/* The callbacks the tool set, by event (records.c): written by ompt_set_callback
 * (release), read by the events (acquire: the tool's writes before it set
 * the callback are seen by the thread that calls it). */
extern ompt_callback_t bp_ompt_cb[BP_OMPT_EVENTS];
static inline ompt_callback_t bp_ompt_callback(int event)
{
    return __atomic_load_n(&bp_ompt_cb[event], __ATOMIC_ACQUIRE);
}

/* A task the thread is in, innermost last: its data (an implicit task's
 * in the record, an explicit task's in the task's own word, which the core
 * keeps for the listeners), its region's data and size, the thread's
 * number in it, its ompt_task_flag_t flags, its frame, and (an implicit
 * task) whether its region's closing barrier has begun. */
struct bp_ompt_task {
    ompt_data_t data;
    ompt_data_t *dp;
    ompt_data_t *parallel;
    unsigned team_size, thread_num;
    int flags;
    int joining;
    ompt_frame_t frame;
};
/* Tasks kept per thread; deeper ones are counted, not described. */
enum { BP_OMPT_DEPTH = 16 };

struct bp_ompt_thread {
    ompt_data_t data;           /* ompt_get_thread_data's */
    int begun;                  /* thread_begin sent */
    int worker;                 /* a pool worker (else an application thread) */
    ompt_state_t state;
    ompt_wait_id_t wait_id;
    int reduce;                 /* a reduction's sync region open (sync.c) */
    ompt_data_t *taskwait_task; /* a taskwait's with dependences, not yet complete (tasks.c) */
    int depth;                  /* tasks it is in */
    struct bp_ompt_task tasks[BP_OMPT_DEPTH];
    ompt_data_t initial_parallel; /* the initial task's implicit region */
    const void *ra;             /* the next region's call site (BP_HOOK_SITE) */
    const void *enter;          /* and its entry's frame: the encountering task's enter frame */
    ompt_data_t *league;        /* the host teams construct it runs: its data */
};
extern _Thread_local struct bp_ompt_thread bp_ompt_tls;

/* The task ancestor_level levels out from the innermost, or NULL. */
struct bp_ompt_task *bp_ompt_task_at(struct bp_ompt_thread *th, int ancestor_level);
/* A task entered (its data dp, or NULL: the record's own) and left. */
struct bp_ompt_task *bp_ompt_push(struct bp_ompt_thread *th, ompt_data_t *dp,
                                  ompt_data_t *parallel, unsigned team_size,
                                  unsigned thread_num, int flags);
void bp_ompt_pop(struct bp_ompt_thread *th);
/* A task's data for a callback: valid storage even for a task past
 * BP_OMPT_DEPTH (t NULL). */
ompt_data_t *bp_ompt_data_of(struct bp_ompt_task *t);
/* The state of a thread that works in its innermost task. */
ompt_state_t bp_ompt_work_state(struct bp_ompt_thread *th);
/* A sync region (ompt_sync_region_t) begins or ends on the calling thread,
 * with its wait (records.c): parallel may be NULL (a worker's closing barrier
 * of a region that may be gone). */
void bp_ompt_sync_send(int kind, int begin, ompt_data_t *parallel, ompt_data_t *task);
/* The tool's callback of type ompt_callback_sync_region_t for event (sync
 * region, its wait, reduction), when it set one. */
void bp_ompt_sync_cb(int event, int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task);
/* The calling thread is known to the tool: thread_begin sent once, and an
 * application thread's initial task begun (events.c). */
void bp_ompt_thread_known(struct bp_ompt_thread *th);
/* The initial thread's and task's ends, once, at finalization (events.c). */
void bp_ompt_initial_end(void);

/* A team's block: written by thread 0 at the fork, before the go that
 * publishes it, read by the workers at their start. */
struct bp_ompt_team {
    ompt_data_t *parallel;
    unsigned team_size;
};

#endif
