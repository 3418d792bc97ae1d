/* fork.h: regions: their fork and join, team sizes and nesting
 * (fork.c), and what the rest of the library asks of a region's enclosing
 * teams (team.c). */
#ifndef BUDDYPOOL_FORK_H
#define BUDDYPOOL_FORK_H

#include <stddef.h>

#include "../hooks.h"
#include "thread.h"

/* A region between bp_fork_begin and bp_fork_end, on the caller's stack. */
struct bp_fork_frame {
    int team_size;          /* 1: the region runs on the caller alone */
    struct bp_team *team;   /* its team, when it has more than one thread */
    int counted;            /* its threads are counted in the pool's busy threads */
    int outermost;          /* forked outside any region */
    int bind;               /* its proc_bind clause (omp_proc_bind_t), 0 none */
    /* under a thread limit: the busy count of the contention group the
     * team's threads count in (NULL: no limit), and the threads this
     * region added to it that its end takes off (0 for the group's
     * outermost region, whose threads are the count) */
    _Atomic int *group;
    int group_added;
    int group_outer;        /* the group's outermost active region */
    struct bp_hook_span hook; /* the listeners' (hooks.h) */
    struct bp_implicit_task implicit; /* thread 0's implicit task in the region */
    struct team_state saved;
};

/* The caller's state around a target region run on the host
 * (bp_device_begin). */
struct bp_device_frame {
    int hidden;                       /* its kept teams were set aside */
    struct bp_team *hot[BP_HOT_LEVELS];
    struct bp_implicit_task implicit; /* the region's initial task */
    struct team_state saved;
};

/* Run a target region's code on the host between the two calls: the
 * caller starts afresh as a device's initial thread would, and gets its
 * state back at the end (fork.c). thread_limit: the construct's, 0 none. */
void bp_device_begin(struct bp_device_frame *f, int thread_limit);
void bp_device_end(struct bp_device_frame *f);

/* num_threads(strict: ...)'s severities: a team smaller than asked warns,
 * or stops the program (OpenMP's error termination). */
enum { BP_STRICT_WARNING = 1, BP_STRICT_FATAL = 2 };

/* bp_fork in two halves, for an ABI whose caller runs its own share between
 * them (GOMP_parallel_start/end): begin starts the workers on run(tid, ctx)
 * and makes the caller thread 0; end joins them. */
void bp_fork_begin(struct bp_fork_frame *f, int team_size, bp_run_fn run, void *ctx,
                   size_t ctx_size, const void *fn);
void bp_fork_end(struct bp_fork_frame *f);

/* Run `run` on a team of up to `team_size` threads (0: the default), the
 * caller as thread 0; returns when all have finished. Nested calls, calls
 * after shutdown and teams of one run serially on the caller. `fn` is the
 * region's function as the profile names it (the outlined function).
 * A ctx of 1..BP_INLINE_CTX bytes (ctx_size) that no thread writes during
 * the region is copied to each worker with its start signal, and a worker
 * runs on its copy: one cache miss starts it. With ctx_size 0 every thread
 * gets the pointer ctx. */
void bp_fork(int team_size, bp_run_fn run, void *ctx, size_t ctx_size, const void *fn);
/* The proc_bind clause of the calling thread's next region (an
 * omp_proc_bind_t: true, primary, close or spread; anything else none). */
void bp_push_proc_bind(int policy);
/* The team a region forked now by t asking for team_size threads (0: the
 * default) would get, unless the pool cannot start the workers. */
int bp_region_size(struct bp_thread *t, int team_size);
/* Enter and leave a serialized (one-thread) region; fn names it in the
 * profile when it is outermost. */
void bp_serial_begin(struct bp_thread *t, const void *fn);
void bp_serial_end(struct bp_thread *t);

/* team.c */

/* The thread of t's enclosing regions at `level` (0: the initial task's):
 * its number there and that team's size; 0 when t has no such level. The
 * walk over the teams' links to their enclosing regions. */
int bp_ancestor(const struct bp_thread *t, int level, int *tid, int *size);

#endif
