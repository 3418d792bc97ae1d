/* thread.h: a thread's state (thread.c): its place in the current
 * team and region, the implicit task it runs and that task's ICVs, in
 * thread-local storage; the calls every layer makes on it. */
#ifndef BUDDYPOOL_THREAD_H
#define BUDDYPOOL_THREAD_H

#include <stdint.h>

#include "env.h"
#include "loop.h"
#include "../tasks/task.h"

struct shared_block; /* loop.c's */

/* What every thread of a team runs: run(thread number, ctx). */
typedef void (*bp_run_fn)(int tid, void *ctx);



/* The parts of a thread's state that belong to its current team and the
 * implicit task it runs there: a region saves them and gives them back
 * whole (struct team_state), and the thread reads them by name. */
#define BP_TEAM_STATE                                                                   \
    int tid;              /* number in the current team */                             \
    int team_size;        /* 1 outside any region */                                   \
    int level;            /* nesting depth of parallel regions, serial ones too */     \
    int active_level;     /* depth of regions with more than one thread */             \
    uint64_t epoch;       /* barrier episodes passed, continues across regions; */     \
                          /* words hold its low 32 bits (a worker knows only those) */ \
    uint32_t singles;     /* single constructs met in the current region */            \
    uint32_t constructs;  /* worksharing loops and sections met in the region */       \
    int ws_red_depth;     /* worksharing constructs with task reductions open in it */ \
    struct bp_loop loop;  /* the worksharing loop this thread is in */                 \
    struct shared_block *construct; /* its construct memory (loop.c's */             \
                          /* bp_construct_begin) until the construct ends */        \
    struct bp_icv icv;    /* the ICVs of the implicit task the thread runs */          \
    int team_sched;       /* the runtime schedule of the team's loops, fixed at */     \
    int64_t team_chunk;   /* the fork from the forking task's run-sched-var */         \
    uint32_t task_id;     /* the implicit task as a nestable lock's owner; 0: none */  \
    /* the innermost active region among the thread's enclosing regions: */            \
    /* its level (0: none), the thread's number in it, its team size and */            \
    /* its team, whose up_* name the active region enclosing that one */               \
    int act_level, act_tid, act_team;                                                  \
    struct bp_team *act_ptr;                                                           \
    int part_first, part_count; /* the task's place partition; 0 places: all */ \
    struct bp_team *team_ptr;     /* the team of the current region; NULL: none */   \
    struct bp_loops *team_loops;  /* its worksharing state (loop.c); NULL: none */   \
    struct bp_task *task;         /* the task it runs; NULL: the initial task */  \
    /* the included task running now whose ICVs are its parent's, lent */           \
    /* (bp_task_begin_included): a write saves them in its frame first */          \
    struct bp_task_frame *icv_lender;
struct team_state {
    BP_TEAM_STATE
};

/* Nesting levels at which a thread keeps the team it forked with (team.c). */
enum { BP_HOT_LEVELS = 4 };

/* Per-thread state, reached through thread-local storage. */
struct bp_thread {
    union {
        struct {
            BP_TEAM_STATE
        };
        struct team_state team;
    };
    int reduce_open;      /* thread 0 holds a blocking reduction's release */
    struct bp_implicit_task initial_task; /* the implicit task outside any region (task.c) */
    /* a pool worker's implicit task in its next region, set up after it
     * arrived at its last join, off the path of a region (fork.c) */
    struct bp_implicit_task worker_task;
    int worker_task_ready;
    /* the teams this thread forked with at levels 1..BP_HOT_LEVELS, kept
     * for its next region there (team.c) */
    struct bp_team *hot[BP_HOT_LEVELS];
    int pushed_threads;   /* __kmpc_push_num_threads for the next region; 0 none */
    int pushed_bind;      /* its proc_bind clause (omp_proc_bind_t); 0 none */
    /* num_threads(list) and num_threads(strict: ...) for the next region
     * (kmp_abi.c): the nthreads-var of its implicit tasks (0: as usual),
     * and the severity (BP_STRICT_*; 0: not strict) and message of a
     * team smaller than asked */
    int pushed_nested, pushed_strict;
    const char *pushed_message;
    int pushed_teams, pushed_teams_low, pushed_teams_limit; /* __kmpc_push_num_teams
                           * for the next teams construct; 0 none (teams.c) */
    int icv_ready;        /* icv is set (else the initial values: bp_icv) */
    int gtid;             /* unique number of this thread, -1 until asked */
    struct bp_serial *serial; /* saved states of __kmpc_serialized_parallel */
    int place;            /* the place the thread is bound to; -1: not bound */
    int pool_worker;      /* a pool worker's number (pool.c); 0: an application thread */
    /* an application thread's contention group under a thread limit: the
     * threads its running teams have, nested ones included (fork.c) */
    _Atomic int group_busy;
};
/* The calling thread's state (thread.c). */
extern _Thread_local struct bp_thread bp_tls;
static inline struct bp_thread *bp_self(void) { return &bp_tls; }
int bp_gtid(struct bp_thread *t);
void bp_icv_init(struct bp_thread *t);
/* The ICVs of t's current task, to read. */
static inline const struct bp_icv *bp_icv(struct bp_thread *t)
{
    if (__builtin_expect(!t->icv_ready, 0))
        bp_icv_init(t);
    return &t->icv;
}
/* The same, to change: an included task's ICVs are lent by its parent
 * until it writes one (bp_task_begin_included), when the parent's are
 * saved in its frame to be given back at its end. */
void bp_icv_own(struct bp_thread *t);
static inline struct bp_icv *bp_icv_set(struct bp_thread *t)
{
    if (!t->icv_ready)
        bp_icv_init(t);
    if (__builtin_expect(t->icv_lender != NULL, 0))
        bp_icv_own(t);
    return &t->icv;
}

/* t starts an implicit task with the ICVs icv: its team's runtime loops
 * follow icv's schedule, and it owns no nestable lock yet. */
static inline void bp_task_icvs(struct bp_thread *t, const struct bp_icv *icv)
{
    t->icv = *icv;
    t->icv_ready = 1;
    t->icv_lender = NULL;
    t->team_sched = icv->run_sched;
    t->team_chunk = icv->run_chunk;
    t->task_id = 0;
}
/* A region's implicit task, for t's region now beginning. */
void bp_task_implicit(struct bp_thread *t, struct bp_implicit_task *task);
/* The same, set up beforehand: t is not made to run it. */
void bp_task_implicit_init(struct bp_implicit_task *task);
/* The task t runs now (the initial task outside any region). */
struct bp_task *bp_task_current_initial(struct bp_thread *t);
static inline struct bp_task *bp_task_current(struct bp_thread *t)
{
    return t->task != NULL ? t->task : bp_task_current_initial(t);
}
/* Would a task made now by t be included (run at once, to completion, with
 * its descendants): t's team has one thread, or t's task is final. */
static inline int bp_task_included(struct bp_thread *t)
{
    return t->team_size <= 1 || t->team_ptr == NULL ||
           (bp_task_current(t)->flags & BP_TASK_FINAL) != 0;
}
/* The innermost taskgroup of t's task; NULL: none. */
static inline struct bp_taskgroup *bp_taskgroup_current(struct bp_thread *t)
{
    return bp_task_current(t)->group;
}

#endif
