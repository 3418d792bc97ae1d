/* gomp.h: what gcc's layers share: gomp_abi.c (regions) and gomp_loop.c
 * (worksharing), the description of a worksharing construct that a
 * combined construct starts on every thread of its team; gomp_task.c, the
 * task reductions of a region and of a worksharing construct. */
#ifndef BUDDYPOOL_GOMP_H
#define BUDDYPOOL_GOMP_H

#include <stdint.h>

#include "../internal.h"

typedef unsigned long long gomp_ull;

/* gcc's task flags (gomp-constants.h): GOMP_task's and GOMP_taskloop's,
 * and target.c's for the task of a target nowait. */
enum {
    GOMP_TASK_FLAG_UNTIED = 1 << 0,
    GOMP_TASK_FLAG_FINAL = 1 << 1,
    GOMP_TASK_FLAG_MERGEABLE = 1 << 2,
    GOMP_TASK_FLAG_DEPEND = 1 << 3,
    GOMP_TASK_FLAG_PRIORITY = 1 << 4,
    GOMP_TASK_FLAG_UP = 1 << 8,
    GOMP_TASK_FLAG_GRAINSIZE = 1 << 9,
    GOMP_TASK_FLAG_IF = 1 << 10,
    GOMP_TASK_FLAG_NOGROUP = 1 << 11,
    GOMP_TASK_FLAG_REDUCTION = 1 << 12,
    GOMP_TASK_FLAG_DETACH = 1 << 13,
    GOMP_TASK_FLAG_STRICT = 1 << 14,
};

/* libgomp's schedule numbers, as gcc passes them to GOMP_loop_start. */
enum {
    GFS_RUNTIME = 0, /* schedule(runtime), and the loops' default */
    GFS_STATIC = 1,
    GFS_DYNAMIC = 2,
    GFS_GUIDED = 3,
    GFS_AUTO = 4, /* gcc's code for schedule(nonmonotonic: runtime) */
};
#define GFS_MONOTONIC 0x80000000ul /* modifier bit: changes no schedule here */

/* A schedule still to be read from the runtime schedule ICV; the engine's
 * BP_LOOP_* are 1 and up. */
/* Beside BP_LOOP_*: the run-sched-var's schedule, and sections (handed out
 * one at a time, as a dynamic loop of chunk 1). */
enum { SCHED_RUNTIME = 0, SCHED_SECTIONS = -1 };

/* Everything one thread needs to start a worksharing loop or sections. */
struct ws_setup {
    int empty;       /* no iteration */
    uint64_t last;   /* indices 0..last */
    int sched;       /* BP_LOOP_*, or SCHED_RUNTIME */
    uint64_t chunk;  /* 0: the schedule's default */
    int ordered;
    uint64_t base, step; /* start and incr in the bits of the loop's type */
};

/* Fill s with the indices of a signed long loop; aborts on incr == 0. */
void bp_gomp_long_space(const char *who, long start, long end, long incr, struct ws_setup *s);
/* The engine's schedule for a named family (BP_LOOP_* or SCHED_RUNTIME). */
void bp_gomp_set_schedule(struct ws_setup *s, int sched, uint64_t chunk, int ordered);
/* Sections as a dynamic loop over count section indices. */
void bp_gomp_sections_setup(unsigned count, struct ws_setup *s);
/* Start t's part of the construct s describes. */
void bp_gomp_ws_begin(struct bp_thread *t, const struct ws_setup *s);
/* gomp_task.c: a parallel region's task reductions (reduction(task, ...)):
 * copies of data's items for `threads` threads, registered by the forking
 * thread; each implicit task then runs in a taskgroup of its own whose
 * reductions they are (begin; its end is bp_taskgroup_end). */
void bp_gomp_parallel_reductions(uintptr_t *data, int threads);
void bp_gomp_reductions_begin(struct bp_thread *t, uintptr_t *data);
/* A worksharing construct's task reductions (data: the thread's own
 * descriptor), and their end (GOMP_workshare_task_reduction_unregister). */
void bp_gomp_workshare_reductions(struct bp_thread *t, uintptr_t *data);
void bp_gomp_workshare_reductions_end(struct bp_thread *t, int cancelled);

#endif
