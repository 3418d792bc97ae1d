/* pool.h: the pool's state, shared by the files that make the pool alone:
 * pool.c (threads, slots, growth, binding, fork(), shutdown), fork.c (teams:
 * fork, join, the team state of each thread) and barrier.c (barrier,
 * reductions, single). The rest of the library reaches the pool through
 * internal.h. */
#ifndef BUDDYPOOL_POOL_H
#define BUDDYPOOL_POOL_H

#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stddef.h>

#include "internal.h"

struct bp_slot {
    /* What the worker needs first comes first: with a context of up to 32
     * bytes (a kmp microtask with two arguments) it is one 64-byte line. */
    alignas(BP_LINE) struct bp_flag go;
    bp_run_fn run;        /* NULL: stop */
    void *ctx;            /* the region's context, or inline_ctx */
    int team_size;
    uint32_t epoch_base;
    alignas(16) unsigned char inline_ctx[BP_INLINE_CTX];
    int level;            /* the region's nesting level */
    int part_first, part_count; /* the worker's place partition (0 places: all) */
    int place;            /* the place it is bound to, -1 none (bp_pool_follow_caller) */
    alignas(BP_LINE) struct bp_flag arrive;
    void *_Atomic reduce_data;
    uint32_t used_shared; /* the worker met loops or singles in the region */
    _Atomic int64_t wait_ns;   /* profiling: the worker's barrier waits in the region */
    _Atomic int64_t joined_ns; /* profiling: when the worker reached the join */
    _Atomic uint64_t iters;    /* profiling: the worker's loop iterations in the region */
    _Atomic int64_t woke_late_ns; /* profiling: fork to start if it slept, else -1 */
    alignas(BP_LINE) pthread_t thread;
    uint32_t go_count; /* starter's copy of go.value: see bp_fork_children */
    /* Written by the starter too, read only by a worker that starts others
     * (a large team's fork tree): */
    int policy;        /* the region's bind policy (4: spread divides team_part) */
    int team_part_first, team_part_count; /* thread 0's partition */
    const void *trace_fn; /* tracing: the region's function, for the worker's track */
    int64_t fork_ns;      /* profiling: when the region's fork began */
    const struct bp_step_rec *steps_rec; /* profiling: the worker's episodes, set once */
    alignas(BP_LINE) struct bp_wait_stats wait_stats; /* profiling: the worker's waits */
    /* profiling: its episodes past the step bound, written (and read at the
     * join) only in a region that had such episodes: off the join's line */
    int64_t rest_wait_ns, rest_work_ns;
};
_Static_assert(offsetof(struct bp_slot, arrive) == BP_LINE,
               "a slot's go block is one BP_LINE");

/* A dissemination barrier flag, alone in its lines. */
struct bp_round {
    alignas(BP_LINE) struct bp_flag flag;
};

struct bp_pool {
    pthread_mutex_t fork_lock;
    pthread_once_t init_once;
    _Atomic int max_threads;     /* cap: the limits, else BP_MAX_THREADS */
    int default_team;            /* allowed CPUs, lowered by the limits */
    _Atomic int threads;         /* started, slot 0 included; grows under fork_lock */
    _Atomic int shut_down;       /* set once by the destructor or a failed start */
    _Atomic int started;         /* pool_init has run */
    int ncpus;                   /* CPUs the process may run on */
    int first_place;             /* the first caller's place; worker i starts */
                                 /* on bp_place_near(first_place, i) */
    int caller_place, caller_cpu; /* unbound callers: the place left to them and */
                                 /* the CPU the last fork saw (bp_pool_follow_caller) */
    const struct bp_thread *first_caller; /* the thread that started the pool */
    _Atomic int caller_pinned;   /* bind_caller pinned caller_thread to place 0 */
    pthread_t caller_thread;
    cpu_set_t caller_mask;       /* caller_thread's affinity before that */
    struct bp_slot *slots;       /* max_threads of them (reserve) */
    size_t slots_bytes, rounds_bytes;
    int64_t *prof_wait;          /* profiling: per thread, the region's waits */
    uint64_t *prof_iters;        /* profiling: per thread, the region's iterations */
    int64_t *prof_joined;        /* profiling: per thread, its arrival at the join */
    struct bp_step_view *prof_steps; /* profiling: per thread, its episodes */
    struct bp_round *rounds;     /* slot i's round-k flag: rounds[i * nrounds + k] */
    int nrounds;                 /* ceil(log2(max_threads)) */
    uint64_t epoch;              /* episodes so far, under fork_lock */
    uint64_t refreshed;          /* the episode when words were last brought up */
    /* The ICVs the implicit tasks of the running region start with, under
     * fork_lock: written by thread 0 before the go stores publish it, and
     * only when they change, so the workers' copies of the line stay valid
     * from region to region. */
    alignas(BP_LINE) struct bp_icv team_icv;
    /* single constructs claimed in the running region: the k-th single of a
     * region is run by the thread that moves it from k - 1 to k */
    alignas(BP_LINE) _Atomic uint32_t singles_claimed;
    /* threads arrived at the running nowait reduction; 0 between them */
    alignas(BP_LINE) _Atomic uint32_t reduce_arrived;
    alignas(BP_LINE) struct bp_flag release;
};

/* The one pool (pool.c). */
extern struct bp_pool bp_pool;
/* The calling thread's state (bp_self() for the other files). */
extern _Thread_local struct bp_thread bp_tls;

/* t starts an implicit task with the ICVs icv: its team's runtime loops
 * follow icv's schedule, and it owns no nestable lock yet. */
static inline void bp_task_icvs(struct bp_thread *t, const struct bp_icv *icv)
{
    t->icv = *icv;
    t->icv_ready = 1;
    t->team_sched = icv->run_sched;
    t->team_chunk = icv->run_chunk;
    t->task_id = 0;
}

/* Start the pool's configuration once (threads start with regions). */
void bp_pool_ensure_init(void);
/* The fork and join of a team of BP_TREE_JOIN threads or more are trees of
 * fan-out BP_JOIN_FANOUT (fork.c). bp_fork_children: thread tid, its go
 * block read (thread 0's is slot 0's, never published), copies it to its
 * children's slots and starts them. bp_join_children: thread tid waits for
 * its children's arrive == end and returns what they used (used_shared,
 * their subtrees' included). */
enum { BP_TREE_JOIN = 16, BP_JOIN_FANOUT = 4 };
void bp_fork_children(int tid, int team_size);
uint32_t bp_join_children(int tid, int team_size, uint32_t end);
/* fork_lock, with the holding thread marked in its own state. */
void bp_fork_lock(void);
void bp_fork_unlock(void);
/* Start workers up to `want` threads in all; fork_lock held. */
void bp_pool_grow(int want);
/* The default placement follows an unbound caller that moved onto a
 * worker's CPU; fork_lock held, before an outermost team's fork. */
void bp_pool_follow_caller(void);
/* Slot i's episode words at epoch (published by the next go). */
void bp_set_slot_words(int i, uint32_t epoch);

#endif
