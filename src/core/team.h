/* team.h: the types of a team and of a worker's start block, shared by the
 * files that run teams: team.c (carving teams out of the pool's workers),
 * go.c (starting a team's workers, gathering their arrivals), fork.c (fork
 * and join), barrier.c (barrier, reductions, single) and pool.c (the
 * workers, which wait for their start block). */
#ifndef BUDDYPOOL_TEAM_H
#define BUDDYPOOL_TEAM_H

#include <stdalign.h>
#include <stddef.h>

#include "../internal.h"

/* Bytes of a region's context that travel in the line each worker waits on
 * (see bp_fork). */
#define BP_INLINE_CTX 80

struct bp_team;
struct bp_deque;

/* What a thread needs to start its part of a region, in one BP_LINE: the
 * flag it waits on, then everything else, a context of up to BP_INLINE_CTX
 * bytes included, so that one cache miss starts it. A worker's is in its
 * slot; thread 0's is in its team (team->go0), where bp_fork_children
 * copies it from. */
struct bp_go {
    struct bp_flag flag;   /* a worker's: the regions it was asked to join */
    bp_run_fn run;         /* NULL: stop */
    void *ctx;             /* the region's context, or inline_ctx */
    struct bp_team *team;
    int tid;               /* the thread's number in the team */
    uint32_t epoch_base;   /* the team's episode count at the fork */
    int team_size;
    int level;             /* the region's nesting level */
    alignas(16) unsigned char inline_ctx[BP_INLINE_CTX];
};
_Static_assert(sizeof(struct bp_go) == BP_LINE, "a start block is one BP_LINE");

/* A team thread's words, in lines of their own: written by that thread
 * (thread 0 never arrives), read by thread 0 or its parent in the join
 * tree. */
struct bp_member {
    alignas(BP_LINE) struct bp_flag arrive; /* the last episode it reached */
    void *_Atomic reduce_data;              /* its contribution to a reduction */
    uint32_t used_shared;      /* it met loops or singles in the region */
    int worker;                /* its pool worker; 0 for thread 0 */
    /* its queued tasks (task.c): made by the thread on its first task,
     * freed with the team; others steal from it */
    struct bp_deque *_Atomic tasks;
    /* the episode of the last join it reached, written just before arrive
     * there: arrive alone also says a reduction's arrival (taskteam.c's
     * call for help must tell the join) */
    _Atomic uint32_t joined;
    /* the team's tasks this thread made and completed, ever (task.c):
     * written by the thread alone, so making and completing a task writes
     * no line another thread writes */
    alignas(64) _Atomic uint64_t tasks_made;
    _Atomic uint64_t tasks_done;
};

/* A dissemination barrier flag, alone in its lines. */
struct bp_round {
    alignas(BP_LINE) struct bp_flag flag;
};

/* The states of a team (team.c). */
enum { BP_TEAM_IDLE = 0, BP_TEAM_RUNNING = 1, BP_TEAM_TAKEN = 2 };

struct bp_team {
    /* The owner's line: written at every fork and join by the thread that
     * forks with the team (its owner), by others only at shutdown, fork()
     * and when the pool runs out of workers (team.c). */
    alignas(BP_LINE) _Atomic int state; /* BP_TEAM_*: the fork moves IDLE to RUNNING */
    uint64_t epoch;            /* episodes so far, counted by thread 0 */
    uint64_t refreshed;        /* the episode when its words were last brought up */
    struct bp_team *next, *prev; /* every team (team.c's list, under its lock) */
    /* tasks, thread 0's (task.c): the workers help with tasks in an episode
     * of their own (help_open), forked when they had all finished the
     * region's code; what they met of loops and singles; pushes since
     * thread 0 last looked whether they had */
    int help_open;             /* 1: helping; 2: in the join (no help forked) */
    uint32_t help_used;
    uint32_t push_checks;
    int paused;                /* taken by bp_teams_pause, under team.c's lock */
    /* under a thread limit, the busy count of its contention group, which
     * a region nested in this one's counts its threads in (fork.c); read
     * only by such a region's fork */
    _Atomic int *group;
    /* Read by every thread of a region, written only when the team is made
     * or grows (and its list links, under team.c's lock), or when the
     * values change: the workers' copies of the line stay valid from one
     * region to the next. */
    alignas(BP_LINE) int cap;  /* threads: thread 0 and cap - 1 reserved workers */
    int level;                 /* the nesting level of the regions it runs */
    int16_t nrounds;           /* barrier rounds of a team of cap */
    int16_t policy;            /* the bind policy of its regions (omp_proc_bind_t) */
    int place0;                /* thread 0's place (-1: not bound) */
    struct bp_member *members; /* cap of them, member i is thread i */
    struct bp_round *rounds;   /* thread i's round-k flag: rounds[i * nrounds + k] */
    struct bp_loops *loops;    /* the worksharing constructs' shared state (loop.c) */
    struct bp_thread *owner;
    /* the ICVs the implicit tasks start with and thread 0's place
     * partition (a large team's fork tree divides it) */
    struct bp_icv icv;
    int part_first, part_count;
    int active_level;          /* of its regions: the forking thread's, plus one */
    /* the innermost active region enclosing its regions, as the forking
     * thread was in it (omp_get_ancestor_thread_num): its level (0: none),
     * that thread's number and the team size there, and its team */
    int up_level, up_tid, up_size;
    struct bp_team *up_team;
    /* thread 0's start block, copied to its children by bp_fork_children */
    alignas(BP_LINE) struct bp_go go0;
    /* the listeners' block for the team (hooks.h: bp_hook_team_resize),
     * handed to the hooks of its regions; NULL when nothing listens */
    alignas(BP_LINE) void *listen;
    /* single constructs claimed in the running region: the k-th single of a
     * region is run by the thread that moves it from k - 1 to k */
    alignas(BP_LINE) _Atomic uint32_t singles_claimed;
    /* threads arrived at the running nowait reduction; 0 between them */
    alignas(BP_LINE) _Atomic uint32_t reduce_arrived;
    alignas(BP_LINE) struct bp_flag release;
    /* tasks (task.c): whether a task of the region was made (tasking.on:
     * the barrier's and the join's waits watch it, the first task raises
     * it and wakes them, bp_team_wake_waits; thread 0 clears it at the
     * join); how many are not complete is the members' counts' difference
     * (bp_tasks_pending) */
    alignas(BP_LINE) struct bp_watch tasking;
    /* tasks completed by threads outside the team (an event fulfilled
     * there): the members' tasks_done leave them out */
    _Atomic uint64_t tasks_done_outside;
    /* the last barrier episode whose tasks a thread saw all complete: the
     * others then leave that barrier's wait */
    _Atomic uint64_t drained; /* in full: team episodes only grow */
    /* tasks made ready by a thread that could not queue them (one outside
     * the team fulfilled an event, or its deque was full), under
     * inbox_lock; inbox_n is a hint for the polls */
    _Atomic int inbox_n;
    _Atomic uint32_t inbox_lock;
    struct bp_task *inbox;
    /* an ABI's team-wide task reductions (reduction(task, ...)), made by
     * the first thread of the team to reach the construct: a parallel's
     * (0), then one per depth of worksharing constructs open (a scope may
     * hold a loop); NULL between constructs */
    _Atomic(void *) task_red[1 + BP_WS_RED_DEPTH];
    /* cancellation (cancel.c), read only where cancel-var is true: cancel
     * parallel's word (0, or the first canceller's episode plus one, which
     * a thread that gives up a barrier puts its count back to), and the
     * episode of the barrier that ends a cancelled worksharing construct
     * (0: none); both cleared by thread 0 at the join */
    alignas(BP_LINE) _Atomic uint64_t cancelled;
    _Atomic uint64_t ws_cancelled;
};
_Static_assert(offsetof(struct bp_team, go0) == 2 * BP_LINE,
               "a team's read-mostly fields fit one BP_LINE");

/* A team for a region at `level` forked by t with up to `want` threads
 * (want >= 2), in state RUNNING: t's team of that level when it has room,
 * else one carved out of the pool's idle workers, the pool grown when too
 * few are idle. It may have fewer threads than asked (*got) when the pool
 * cannot start more. NULL when the pool is shut down: the region runs on
 * t alone. *slow: the team was made or grown (not the fast path). */
struct bp_team *bp_team_take(struct bp_thread *t, int level, int want, int *got, int *slow);
/* The region is over and every member has arrived: the team is idle, kept
 * for t's next region at its level. */
void bp_team_put(struct bp_thread *t, struct bp_team *team);
/* A thread that starts afresh at level 0 while it is in regions of its
 * own (a target region run on the host, fork.c's bp_device_begin) sets
 * its kept teams aside, those regions' among them, and gets them back at
 * the end; teams it kept in between go back to the pool then. */
void bp_teams_hide(struct bp_thread *t, struct bp_team *saved[BP_HOT_LEVELS]);
void bp_teams_show(struct bp_thread *t, struct bp_team *const saved[BP_HOT_LEVELS]);
/* The default placement follows an unbound caller that moved onto a
 * worker's CPU; before an outermost fork, on the team it takes. */
void bp_team_follow_caller(struct bp_team *team);
/* Bring every episode word of the team up to the current episode (fork.c,
 * at the fork 2^30 episodes after the last refresh); no region runs. */
void bp_team_refresh_words(struct bp_team *team);
/* Shutdown: take every team out of use, waiting for running ones until
 * the deadline (CLOCK_REALTIME); 0 if one still runs then. */
int bp_teams_stop(const struct timespec *deadline);
/* omp_pause_resource, from a thread in no region: take every team out of
 * use and end the pool's workers (pool.c's bp_pool_stop_idle); the next
 * region starts new ones. 1; 0 when a region runs on another thread's
 * team (then nothing is stopped). */
int bp_teams_pause(void);
/* Shutdown, the workers joined: free every team (the calling thread's
 * kept ones forgotten); regions run serially from now on. */
void bp_teams_free_all(void);
/* The child of fork(): no team's workers exist there. */
void bp_teams_fork_child(void);
/* atfork: hold the list of teams around fork(). */
void bp_teams_lock(void);
void bp_teams_unlock(void);
/* Tests only: move every idle team's episode count (bp_pool_test_set_epoch). */
void bp_teams_test_set_epoch(uint64_t epoch);

/* go.c */

/* The fork and join of a team of BP_TREE_JOIN threads or more are trees of
 * fan-out BP_JOIN_FANOUT (go.c). bp_fork_children: thread `from->tid`,
 * its start block read (thread 0's is its team's go0, never published),
 * copies it to its children's slots and starts them. bp_join_children:
 * thread tid waits for its children's arrive == end and returns what they
 * used (used_shared, their subtrees' included), calling poll(arg) while the
 * team has tasks (the waiting thread runs queued ones). A small team's are
 * flat: thread 0 starts and waits for every worker, the workers for none. */
enum { BP_TREE_JOIN = 16, BP_JOIN_FANOUT = 4 };
void bp_fork_children(const struct bp_go *from);
/* Wake every thread asleep in one of the team's waits (its barrier's
 * rounds, the join's and the reductions' words) for a reason other than
 * its flag: a task to run (taskteam.c), a cancellation (cancel.c). */
void bp_team_wake_waits(struct bp_team *team);

/* The threads thread tid starts at the fork and waits for at the join:
 * [first, *end), maybe empty. A large team's tree children; in a small
 * team, every worker for thread 0 and none for the others (flat). */
static inline int bp_go_children(int tid, int team_size, int *end)
{
    if (team_size < BP_TREE_JOIN) {
        *end = tid == 0 ? team_size : 1;
        return 1;
    }
    int first = BP_JOIN_FANOUT * tid + 1;
    *end = first + BP_JOIN_FANOUT < team_size ? first + BP_JOIN_FANOUT : team_size;
    return first;
}

/* Inline: the join is on every region's path, right after its last
 * arrival (thread 0 returns to its caller, which forks the next region). */
static inline uint32_t bp_join_children(struct bp_team *team, int tid, int team_size,
                                        uint32_t end, int (*poll)(void *), void *arg)
{
    uint32_t used = 0;
    int last;
    for (int c = bp_go_children(tid, team_size, &last); c < last; c++) {
        struct bp_member *m = &team->members[c];
        bp_flag_wait_poll(&m->arrive, end, 0, &team->tasking, poll, arg);
        /* A cancelled region: a worker's given-up reduction set its arrive
         * to the join's episode too (barrier.c); its `joined` tells. The
         * joiner gave up that reduction or skipped it, so it sees the
         * cancellation (acquire: what the worker wrote before it joined). */
        if (bp_config.cancellation &&
            atomic_load_explicit(&team->cancelled, memory_order_relaxed) != 0)
            bp_wait_word(&m->joined, end);
        used |= m->used_shared; /* its subtree's, folded before it arrived */
    }
    return used;
}


#endif
