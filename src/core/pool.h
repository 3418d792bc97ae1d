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

#include "../internal.h"
#include "team.h"

struct bp_slot {
    /* The worker's start block: written by whoever starts it (its team's
     * thread 0, or its parent in a large team's fork tree), read by it. */
    alignas(BP_LINE) struct bp_go go;
    /* Read by the worker at each start, written by its starter only when
     * they change: its place partition (0 places: all) and the place it is
     * bound to (-1: none, every allowed CPU; bp_pool_bind moves it). */
    alignas(BP_LINE) int part_first; /* alone: an alignas aligns every declarator */
    int part_count;
    int place;
    int bind_failed; /* the place bp_pool_bind last failed to bind it to; */
                     /* BP_BIND_OK: none */
    int home;        /* the pool's own placement: its place while its team */
                     /* fits the CPUs (-1 when not pinned) */
    /* under a binding asked for, what its place and partition were last
     * computed from (go.c's place_at and place_in); 0: never. The starter
     * writes place and the partition then only through go.c, after this
     * check: whatever else moved them would have to clear placed_at. */
    uint64_t placed_at, placed_in;
    alignas(BP_LINE) pthread_t thread;
    uint32_t go_count; /* starter's copy of go.flag.value: see bp_fork_children */
    /* Written by the worker alone: */
    alignas(BP_LINE) _Atomic uint32_t go_done; /* regions it has finished with, */
                          /* its team's words no longer touched (bp_pool_quiesce) */
};
_Static_assert(offsetof(struct bp_slot, part_first) == BP_LINE,
               "a slot's start block is one BP_LINE");
_Static_assert(sizeof(struct bp_slot) == 4 * BP_LINE,
               "a slot is four BP_LINEs: the start block, the placement, the starter's, "
               "the worker's");

struct bp_pool {
    pthread_mutex_t workers_lock; /* starting workers, reserving and freeing them */
    pthread_once_t init_once;
    _Atomic int max_threads;     /* the pool's cap: BP_MAX_THREADS, lowered when a */
                                 /* worker cannot be started */
    int team_max;                /* a contention group's cap (each application */
                                 /* thread's teams together): the limits, else */
                                 /* BP_MAX_THREADS */
    int default_team;            /* allowed CPUs, lowered by the limits */
    _Atomic int threads;         /* started, slot 0 included; grows under workers_lock */
    _Atomic int shut_down;       /* set once by the destructor or a failed start */
    _Atomic int started;         /* life.c's start has run */
    int ncpus;                   /* CPUs the process may run on */
    int cpu_budget;              /* the CPUs its threads may keep busy: ncpus, */
                                 /* fewer under a CPU quota; threads past it */
                                 /* wait politely */
    int first_place;             /* the first caller's place; worker i starts */
                                 /* on bp_place_near(first_place, i) */
    int caller_place, caller_cpu; /* unbound callers: the place left to them and */
                                 /* the CPU the last fork saw (bp_pool_follow_caller) */
    const struct bp_thread *first_caller; /* the thread that started the pool */
    _Atomic int caller_pinned;   /* bind_caller pinned caller_thread to place 0 */
    pthread_t caller_thread;
    cpu_set_t caller_mask;       /* caller_thread's affinity before that */
    cpu_set_t allowed;           /* the CPUs the process may run on (set up) */
    struct bp_slot *slots;       /* max_threads of them (reserve); slot 0 unused */
    size_t slots_bytes;
    uint64_t *idle;              /* bit w: worker w is started and in no team */
    /* Teams running now, counted once two teams exist (a hint to waits:
     * more threads in regions than CPUs makes every waiter polite) */
    _Atomic int teams_made;      /* teams ever made, to 2 */
    _Atomic int busy_threads;    /* threads in running teams, while counted */
    void (*serve)(struct bp_slot *slot); /* bp_pool_serve's, read by a worker at its start */
};

/* The one pool (pool.c). */
extern struct bp_pool bp_pool;

/* What the pool's start-up found (life.c), for bp_pool_setup. */
struct bp_pool_shape {
    const cpu_set_t *allowed; /* the CPUs the process may run on */
    int ncpus;        /* how many */
    int cpu_budget;   /* those, fewer under a CPU quota (rounded up) */
    int max_threads;  /* the pool's cap */
    int team_max;     /* a contention group's cap */
    int default_team; /* the team when nothing asks for a size */
};
/* The pool's memory for up to max_threads threads (the slots reserved, not
 * committed; the set of idle workers) and its figures: 0, or -1 when out
 * of memory (then a pool of one thread: regions run on their caller
 * alone). Once, by life.c's start. */
int bp_pool_setup(const struct bp_pool_shape *shape);
/* life.c's fork() handlers: workers_lock is held around fork(), and the
 * child's pool starts again from one thread. */
void bp_pool_atfork_prepare(void);
void bp_pool_atfork_parent(void);
void bp_pool_atfork_child(void);
/* The shutdown, no team in use: stop and join every worker; then give the
 * memory back and unbind the caller bp_bind_caller bound. */
void bp_pool_stop(void);
void bp_pool_free(void);
/* omp_pause_resource, no team holding a worker (team.c's bp_teams_pause,
 * under the teams' lock, so that none is reserved meanwhile): stop and join
 * every worker, and start again from one thread, the next region starting
 * new ones (with new thread-local storage). 1, or 0 when a worker was not
 * idle (nothing stopped). */
int bp_pool_stop_idle(void);
/* Bind the worker of slot to place (its starter's call, the worker idle
 * or about to be started on a region): 1, or 0 when the system refused,
 * the worker left where it was (and not tried again for that place until
 * another bind succeeds). */
int bp_pool_bind(struct bp_slot *slot, int place);
/* bind_failed's value when the last bind succeeded (or none was tried). */
enum { BP_BIND_OK = -2 };
/* Reserve up to n workers for a team into ids (idle ones, lowest numbers
 * first, then new ones); how many it got, fewer when no more can start. */
int bp_workers_reserve(int n, int *ids);
/* Worker w is in no team any more. */
void bp_workers_release(int w);
/* Wait until worker w no longer touches the team it last ran a region of:
 * its arrive at the join is seen before it has finished with the flag (the
 * sleepers check). Called before a team's memory is freed or its workers
 * go to another team, when no region is started on it. */
void bp_pool_quiesce(int w);
/* What every worker does with each start block it is given (not a stop):
 * fork.c's worker's half of a region, told before any worker starts. */
void bp_pool_serve(void (*serve)(struct bp_slot *slot));

#endif
