/* taskteam.h: what task.c and taskteam.c share of each other; the rest of
 * the library calls the functions of tasking.h. */
#ifndef BUDDYPOOL_TASKTEAM_H
#define BUDDYPOOL_TASKTEAM_H

#include "../internal.h"

/* task.c */
/* Run a task to its end (of this part) on t and complete it if it is done. */
void bp_task_run(struct bp_thread *t, struct bp_task *task);
/* Does x descend from anc? */
int bp_task_descends(const struct bp_task *x, const struct bp_task *anc);
/* Wait until ready(arg), running the waiting task's descendants in t's
 * deque meanwhile; ready is asked before each. kind (hooks.h's enum
 * bp_sync: taskwait, taskgroup, none) is what the listeners hear. */
void bp_task_wait_until(struct bp_thread *t, int (*ready)(const void *), const void *arg,
                        struct bp_task *waiting, int kind);
/* Run the team's tasks until done(arg), asked only when none was found
 * (it may read every member's counts), or until stop(arg), a cheap look
 * asked before each task (NULL: none). */
void bp_task_drain_until(struct bp_thread *t, int (*done)(const void *),
                         int (*stop)(const void *), const void *arg);

/* A thread fulfilling an event (omp_fulfill_event) is in bp_task_fulfill:
 * the tasks that makes ready need not descend from the thread's task. */
extern _Thread_local int bp_task_fulfilling;

/* Ask for a stolen task's lines at once, for writing (its run writes its
 * counts): they were written by its maker, and read one by one as the run
 * needs them each would be a miss that the next waits for. The header and
 * the payload's first line, which holds the ABI's data. */
static inline void bp_task_prefetch(const struct bp_task *task)
{
    for (size_t off = 0; off < BP_TASK_HEADER + 64; off += 64)
        __builtin_prefetch((const char *)task + off, 1, 3);
}

/* taskteam.c */
/* The team's counts: a task made by t, a task completed by the caller. */
void bp_task_count_made(struct bp_thread *t, struct bp_team *team);
void bp_task_count_done(struct bp_team *team);
/* Queue task on t's deque; 0 when it is full (the caller runs it). */
int bp_task_queue(struct bp_thread *t, struct bp_task *task);
/* Is t's own deque empty? (Full: tasking.h.) */
int bp_task_queue_empty(struct bp_thread *t);
/* Run a task of t's own deque (or the inbox) that descends from waiting;
 * 1 if it ran one. */
int bp_task_run_own(struct bp_thread *t, struct bp_task *waiting);

#endif
