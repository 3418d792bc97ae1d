/* internal.h: declarations shared between buddypool's source files, grouped
 * under the file that defines them. Nothing here is part of the public API;
 * non-static internals carry the bp_ prefix and hidden visibility. */
#ifndef BUDDYPOOL_INTERNAL_H
#define BUDDYPOOL_INTERNAL_H

#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hooks.h"

#define BP_API __attribute__((visibility("default")))

/* Hot shared words sit alone in 128 bytes: two cache lines, since x86 cores
 * prefetch the adjacent line and would otherwise couple neighbours. */
#define BP_LINE 128

/* ---- log.c ------------------------------------------------------------- */

/* Print one "buddypool: ..." line on stderr. */
void bp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print a message naming what went wrong and abort. */
void bp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- wait.c ------------------------------------------------------------ */

/* A 32-bit word that one thread sets and others wait for. `value` only ever
 * moves forward to the value its waiters wait for; `sleepers` counts waiters
 * parked in futex_wait on `value`, so a setter makes a system call only when
 * somebody sleeps. */
struct bp_flag {
    _Atomic uint32_t value;
    _Atomic uint32_t sleepers;
};

/* Set while the running team has more threads than allowed CPUs: waiters
 * then yield from the start, since the thread they wait for may need their
 * CPU. */
extern _Atomic int bp_oversubscribed;
/* The calling thread always waits politely (yields from the start), set for
 * a worker that shares its CPU with another pool thread. */
void bp_wait_set_polite(int polite);

/* Wait until f->value == target (acquire): spin with the pause hint, yield
 * after a while (at once when oversubscribed), sleep on the futex after
 * bp_config.spin_ns. */
void bp_flag_wait(struct bp_flag *f, uint32_t target);
/* The same, until f->value is target or past it (wrapping order): for a
 * flag whose setter may move on by one before this waiter looks. */
void bp_flag_wait_reached(struct bp_flag *f, uint32_t target);
/* Either wait (reached: the second), which meanwhile calls poll(arg)
 * whenever *watch is non-zero, and does not sleep while it is: a barrier
 * or join runs queued tasks while it waits (task.c). */
void bp_flag_wait_poll(struct bp_flag *f, uint32_t target, int reached, const _Atomic int *watch,
                       int (*poll)(void *), void *arg);
/* bp_flag_wait_poll (reached) that gives up once *stop is non-zero: 1 when
 * the flag reached target, 0 when stopped. Whoever sets *stop (seq_cst)
 * then calls bp_flag_wake_sleepers on the flag. */
int bp_flag_wait_cancel(struct bp_flag *f, uint32_t target, const _Atomic int *watch,
                        int (*poll)(void *), void *arg, const _Atomic uint64_t *stop);
/* Store value (release, ordered before the sleepers check: see wait.c),
 * then wake sleepers if there are any. */
void bp_flag_set(struct bp_flag *f, uint32_t value);
/* bp_flag_set in two halves for setting many flags at once: publish stores
 * the value (release); after them all, the caller calls
 * bp_flag_publish_fence once and bp_flag_wake_sleepers on each flag. */
void bp_flag_publish(struct bp_flag *f, uint32_t value);
void bp_flag_publish_fence(void);
void bp_flag_wake_sleepers(struct bp_flag *f);
/* Choose the setters' and sleepers' pair (wait.c), once, before any flag is
 * used: asymmetric when waits spin (spins) and the kernel has membarrier.
 * bp_wait_asymmetric says which was chosen. */
void bp_wait_choose(int spins);
int bp_wait_asymmetric(void);

/* In the child of fork(): make the portable futex (prim.h) usable again. */
void bp_wait_fork_child(void);

/* A mutex in one 32-bit word (0 unlocked, 1 locked, 2 locked with sleepers),
 * usable inside zero-initialised storage such as a kmp_critical_name. */
void bp_lock(_Atomic uint32_t *word);
void bp_unlock(_Atomic uint32_t *word);
/* 1 and the lock taken, or 0 when it is held. */
int bp_trylock(_Atomic uint32_t *word);
/* Waiting for a lock to be free before sleeping on it: each call pauses
 * twice as long as the one before, up to a bound, and returns 1; it returns
 * 0 once the wait policy's spin time is spent (then sleep). Start from {0}. */
struct bp_lock_backoff {
    int backoff, yielding;
    int64_t start_ns;
};
int bp_lock_backoff(struct bp_lock_backoff *b);
/* Wait while *slot is busy, as a lock waits (backing off, then yielding):
 * for a pointer another thread publishes after a short piece of work.
 * Its value then. */
void *bp_wait_while(_Atomic(void *) *slot, void *busy);
/* The same until *word is value (acquire), for a word with no futex. */
void bp_wait_word(const _Atomic uint32_t *word, uint32_t value);

/* ---- env.c ------------------------------------------------------------- */

/* omp_sched_t values of the runtime schedule ICV (omp_set_schedule), and
 * the modifier bit it may carry. */
enum { BP_OMP_STATIC = 1, BP_OMP_DYNAMIC = 2, BP_OMP_GUIDED = 3, BP_OMP_AUTO = 4 };
#define BP_OMP_MONOTONIC ((int)0x80000000u)

/* The ICVs of an implicit task (the OpenMP data environment). The implicit
 * tasks of a region start with a copy of the forking task's (nthreads from
 * the next entry of the OMP_NUM_THREADS list, where it has one); a change
 * stays in the task that makes it. A thread that is in no region of the pool
 * runs the initial task of its own, with the values the environment gives. */
struct bp_icv {
    int nthreads;          /* nthreads-var; 0: the default team */
    int run_sched;         /* run-sched-var: BP_OMP_*, maybe | BP_OMP_MONOTONIC */
    int64_t run_chunk;     /* its chunk; 0: the schedule's default */
    int dynamic;           /* dyn-var: teams no larger than the allowed CPUs */
    int max_active_levels; /* max-active-levels-var */
    int proc_bind;         /* bind-var: omp_proc_bind_t (reported; the pool binds close,
                            * or all on the caller's place under primary) */
    /* a host teams construct's (teams.c) */
    int team_num;          /* the task's team; 0 outside a teams construct */
    int num_teams;         /* the teams of its league; 1 outside */
    int thread_limit;      /* thread-limit-var the construct set; 0: OMP_THREAD_LIMIT's */
    int team_cap;          /* the most threads a region forked in the team gets; 0: none */
};

/* Active levels of nested regions supported (libgomp's count). */
#define BP_SUPPORTED_LEVELS 255

/* Most threads the pool ever has, whatever is asked. */
#define BP_MAX_THREADS 4096
/* Frames a call site of the profile keeps, at most
 * (BUDDY_THREAD_POOL_PROFILE_CALLERS). */
enum { BP_MAX_CALLERS = 16 };
/* Entries of OMP_NUM_THREADS kept (one per nesting level). */
#define BP_NTHREADS_LEVELS 16

struct bp_config {
    int thread_limit;      /* BUDDY_THREAD_POOL_THREADS / OMP_THREAD_LIMIT; 0 = none */
    struct bp_icv icv;     /* the initial task's ICVs, from OMP_* */
    int nthreads_levels;   /* entries of the OMP_NUM_THREADS list (0: unset) */
    int nthreads_list[BP_NTHREADS_LEVELS]; /* nthreads-var of level i's tasks */
    int max_task_priority; /* OMP_MAX_TASK_PRIORITY */
    int nteams;            /* OMP_NUM_TEAMS: nteams-var; 0 unset */
    int teams_thread_limit; /* OMP_TEAMS_THREAD_LIMIT: teams-thread-limit-var; 0 unset */
    int display_env;       /* OMP_DISPLAY_ENV: 0 false, 1 true, 2 verbose */
    int display_affinity;  /* OMP_DISPLAY_AFFINITY=true */
    int cancellation;      /* OMP_CANCELLATION=true: cancel-var (cancel.c) */
    size_t stack_bytes;    /* OMP_STACKSIZE */
    int64_t spin_ns;       /* spin before sleeping; INT64_MAX = never sleep */
    int pin;               /* pin workers: OMP_PROC_BIND is not false */
    int pin_caller;        /* also pin a region's caller: OMP_PROC_BIND set to bind,
                            * or OMP_PLACES set and OMP_PROC_BIND not */
    int bind_levels;       /* entries of the OMP_PROC_BIND list (0: unset) */
    int bind_list[BP_NTHREADS_LEVELS]; /* bind-var of level i's tasks */
    const char *places;    /* OMP_PLACES, or NULL (parsed by places.c) */
    int oversubscribe;     /* BUDDY_THREAD_POOL_OVERSUBSCRIBE: the default team is the limit */
    int profile;           /* BUDDY_THREAD_POOL_PROFILE=1 */
    int profile_slots;     /* BUDDY_THREAD_POOL_PROFILE_SLOTS */
    const char *profile_out; /* BUDDY_THREAD_POOL_PROFILE_OUT, or NULL */
    int profile_callers;   /* BUDDY_THREAD_POOL_PROFILE_CALLERS: frames per call site */
    int profile_steps;     /* BUDDY_THREAD_POOL_PROFILE_STEPS: steps kept one by one */
    int profile_signal;    /* BUDDY_THREAD_POOL_PROFILE_SIGNAL: signal number, 0 none */
    const char *trace_out; /* BUDDY_THREAD_POOL_TRACE, or NULL */
    int trace_events;      /* BUDDY_THREAD_POOL_TRACE_EVENTS: ring size per thread */
};
extern struct bp_config bp_config;
/* Parse the environment once (thread-safe, idempotent). */
void bp_config_load(void);
/* The most threads the pool may have: the limits (BUDDY_THREAD_POOL_THREADS,
 * OMP_THREAD_LIMIT), at most BP_MAX_THREADS (the configuration loaded). */
int bp_config_max_threads(void);
/* nteams-var and teams-thread-limit-var (OMP_NUM_TEAMS,
 * OMP_TEAMS_THREAD_LIMIT, then omp_set_num_teams and
 * omp_set_teams_thread_limit); 0: unset. */
int bp_nteams_var(void);
int bp_teams_thread_limit_var(void);
void bp_set_nteams_var(int n);
void bp_set_teams_thread_limit_var(int n);
/* thread-limit-var of a task with the ICVs icv: a teams construct's
 * thread_limit, else the limit set (BUDDY_THREAD_POOL_THREADS,
 * OMP_THREAD_LIMIT), else INT_MAX as libgomp and libomp give it (the pool
 * itself stops at BP_MAX_THREADS). */
int bp_thread_limit_var(const struct bp_icv *icv);

/* ---- display.c ---------------------------------------------------------- */

/* Print the ICVs (OMP_DISPLAY_ENV, omp_display_env); default_team is what
 * omp_get_max_threads gives where nthreads-var is unset. */
void bp_display_env(int verbose, int default_team);

/* ---- omp_api.c ---------------------------------------------------------- */

/* omp.h's enums, as the omp_* functions of omp_api.c take and give them
 * (fortran.c calls those too). */
typedef enum omp_sched_t {
    omp_sched_static = 1,
    omp_sched_dynamic = 2,
    omp_sched_guided = 3,
    omp_sched_auto = 4,
    omp_sched_monotonic = (int)0x80000000u,
} omp_sched_t;
typedef enum omp_proc_bind_t {
    omp_proc_bind_false = 0,
    omp_proc_bind_true = 1,
    omp_proc_bind_primary = 2,
    omp_proc_bind_close = 3,
    omp_proc_bind_spread = 4,
} omp_proc_bind_t;

void omp_display_env(int verbose);
/* places.c's places API, which omp_display_env prints */
int omp_get_num_places(void);
int omp_get_place_num_procs(int place);
void omp_get_place_proc_ids(int place, int *ids);
/* the league queries and thread-limit-var (teams.c, omp_api.c) */
int omp_get_team_num(void);
int omp_get_num_teams(void);
int omp_get_max_teams(void);
int omp_get_teams_thread_limit(void);
int omp_get_thread_limit(void);

/* ---- affinity.c ------------------------------------------------------- */

struct bp_thread;
/* OMP_DISPLAY_AFFINITY: t has entered a region as one of its threads. */
void bp_affinity_region(struct bp_thread *t);
/* The region's code is clang's: the display goes to stdout, as libomp's
 * (a read of a word that is written once). */
void bp_affinity_clang(void);
static inline void bp_display_affinity(struct bp_thread *t)
{
    if (__builtin_expect(bp_config.display_affinity, 0))
        bp_affinity_region(t);
}

/* ---- topology.c -------------------------------------------------------- */

/* A CPU list as sysfs writes it ("0-3,8,10-11") at path into *set; 0 if
 * unreadable or empty. */
int bp_read_cpu_list(const char *path, cpu_set_t *set);
/* Read the topology under path instead of /sys/devices/system (tests). */
void bp_topo_set_root(const char *path);
/* Forget what was read (the pool's shutdown). */
void bp_topo_free(void);
/* The key that groups CPUs into places of kind ("threads", "cores",
 * "ll_caches", "numa_domains", "sockets"): CPUs with equal keys share a
 * place; a CPU whose key the machine does not tell gets one of its own. */
long bp_topo_group_key(const char *kind, int cpu);
/* The allowed CPUs in the pool's placement order (the top of topology.c):
 * first threads of cores before SMT siblings, a NUMA node's CPUs together.
 * At most max into cpus, with each one's SMT rank in its core and its NUMA
 * node; their count, or -1 when out of memory. */
int bp_topo_order(const cpu_set_t *allowed, int *cpus, long *smt, long *node, int max);

/* ---- places.c ---------------------------------------------------------- */

/* The CPUs the process may run on into *set; their count, 0 if unknown. */
int bp_allowed_cpus(cpu_set_t *set);
/* The place list over the allowed CPUs, from OMP_PLACES or one place per
 * CPU; by the pool's start-up. 0, or -1 when out of memory. */
int bp_places_init(const cpu_set_t *allowed);
int bp_places_count(void);
/* Free the list (the pool's shutdown); no place is left. */
void bp_places_free(void);
/* The places the API lists: OMP_PLACES's, or the pool's one place per CPU
 * unless OMP_PROC_BIND=false (no place when threads are not bound). */
int bp_places_listed(void);
/* Place p's CPUs (NULL when there is no place p). */
const cpu_set_t *bp_place_set(int p);
/* The first place holding cpu, or -1. */
int bp_place_of_cpu(int cpu);
/* The place of thread i of a team whose thread 0 is on place first: under
 * OMP_PLACES the i-th place after it (close); on the pool's own list the
 * i-th nearest: the other first SMT threads of first's NUMA node, then of
 * the other nodes, then the siblings in the same order (i = 0: first). */
int bp_place_near(int first, int i);
/* Thread tid's place partition in a team of nth forked by a task whose
 * partition is *first, *count (0 places: the whole list), as
 * proc_bind(spread) divides it; other policies keep the forker's. */
void bp_place_partition(int policy, int tid, int nth, int *first, int *count);

/* ---- task.c: explicit tasks ---------------------------------------------- */
struct bp_team;
struct bp_thread;
struct bp_dep_node;
struct bp_dep_table;

/* A taskgroup: how many of the tasks made in it (and their descendants)
 * are not complete. On the heap, made and freed by the task whose code
 * opens and closes it. */
struct bp_taskgroup {
    struct bp_taskgroup *prev; /* the one enclosing it in the same task */
    /* its tasks made and complete, on lines of their own: the maker's
     * count stays in its cache while other threads complete the tasks */
    alignas(64) _Atomic uint32_t made;
    alignas(64) _Atomic uint32_t done;
    /* task reductions, the ABI layers': gcc's descriptors (the group's
     * own, chained to those it inherits from prev), and libomp's items,
     * which `finish` folds once the group's tasks are complete */
    uintptr_t *gomp_reductions;
    void *kmp_reductions;
    void (*finish)(struct bp_taskgroup *g);
    _Atomic int cancelled;     /* cancel taskgroup (cancel.c) */
};

/* BP_TASK_UNTIED and BP_TASK_FINAL have the bits of gcc's GOMP_task flags,
 * which GOMP_task then takes as they are (gomp_task.c). */
enum {
    BP_TASK_UNTIED = 1u << 0,   /* untied (run as tied, which OpenMP allows) */
    BP_TASK_FINAL = 1u << 1,    /* final: its descendants are included tasks */
    BP_TASK_LINKED = 1u << 2,   /* counted in its parent, taskgroup and team */
    BP_TASK_IMPLICIT = 1u << 3, /* an implicit task (never freed here) */
    BP_TASK_STARTED = 1u << 4,  /* its body has begun (an untied task's next */
                                /* part is queued again, not anew) */
    BP_TASK_WAITED = 1u << 5,   /* undeferred with dependences: its maker */
                                /* waits for them, then runs it */
    BP_TASK_HOLDS_PARENT = 1u << 6, /* it holds its parent's memory */
    BP_TASK_DISCARD_BODY = 1u << 7, /* discarded (cancel.c), its body still runs, */
                                    /* with BP_TASK_DISCARDED, to undo what it must */
    BP_TASK_DISCARDED = 1u << 8,
    BP_TASK_ON_STACK = 1u << 9, /* an included task on its maker's stack */
};

/* A task. The ABI layer puts its data after the header (bp_task_payload)
 * and says how to run it (body). Two counts keep it:
 *   refs  1 until it completes, plus one per child not complete: a
 *         taskwait waits for 1; at 0 (complete, and every child too) its
 *         children's dependence table goes, then its own hold on its memory;
 *   mem   holds on its memory: that one, one per child not yet freed (a
 *         heap task's children hold it, BP_TASK_HOLDS_PARENT), one per
 *         dependence list that names it (taskdep.c); at 0 it is freed.
 * So a task's chain of parents can always be read while it lives, whatever
 * the parents' state. */
struct bp_task {
    void (*body)(struct bp_task *task); /* runs it, or its next untied part */
    struct bp_task *parent;
    struct bp_taskgroup *in_group; /* the taskgroup it counts in; NULL: none */
    struct bp_taskgroup *group;    /* the innermost one its own code is in */
    struct bp_team *team;          /* the team that counts it; NULL: none */
    _Atomic int32_t refs;          /* a heap or stack task's; an implicit one's is */
                                   /* children_made - children_done, plus 1 */
    _Atomic int32_t mem_holds;
    uint32_t children_made;        /* an implicit task's children, made by its */
                                   /* own thread */
    _Atomic int32_t pending;       /* runs of its body to come, plus one while an */
                                   /* event (detach) is not fulfilled: 0 is complete */
    uint32_t flags;                /* BP_TASK_* */
    int depth;                     /* its parent's plus one; implicit tasks 0 */
    const void *fn;                /* the task's function, as the profile names it */
    void *mem;                     /* what to free; NULL: not on the heap */
    size_t payload_size;           /* bytes of the ABI's data (bp_task_new) */
    _Atomic uint32_t requeues;     /* times its untied parts were queued again */
    struct bp_icv icv;             /* its data environment's ICVs */
    /* dependences (taskdep.c): its predecessors not complete (plus one
     * while it is being registered), its own successors, and its
     * children's table; a task readied by another's completion waits in
     * its team's inbox through next_ready when it cannot be queued; a
     * task on the stack (BP_TASK_ON_STACK) that made a counted child has
     * its heap stand-in there (task.c) */
    _Atomic int32_t npred;
    struct bp_dep_node *dep;
    struct bp_dep_table *dep_table;
    struct bp_task *next_ready;
    /* an undeferred task's creator, as it was (bp_task_begin_undeferred) */
    struct bp_task_frame {
        struct bp_task *prev;
        struct bp_icv icv;     /* the ICVs to give back, when icv_saved */
        int icv_ready;
        int icv_saved;         /* an included task's: its ICVs were lent */
        uint32_t task_id;
        struct bp_task_frame *lender; /* the thread's icv_lender, as it was */
    } frame;
};
/* An implicit task: a task whose children's completions are counted on a
 * line of their own (children_done; children_made, its own thread's, is in
 * the task). Only these need the alignment, so a struct bp_task on a stack
 * (an included task's) needs none: its maker does not realign the stack. */
struct bp_implicit_task {
    struct bp_task task;
    alignas(64) _Atomic uint32_t children_done;
};
/* The implicit task that task (flags BP_TASK_IMPLICIT) is. */
static inline struct bp_implicit_task *bp_implicit_of(struct bp_task *task)
{
    return (struct bp_implicit_task *)((char *)task - offsetof(struct bp_implicit_task, task));
}

/* ---- pool.c, fork.c: the state of a thread and its team ------------------ */

/* What every thread of a team runs: run(thread number, ctx). */
typedef void (*bp_run_fn)(int tid, void *ctx);

/* Loop schedules of the worksharing engine (loop.c). */
enum { BP_LOOP_STATIC = 1, BP_LOOP_DYNAMIC = 2, BP_LOOP_GUIDED = 3,
       BP_LOOP_GUIDED_SIMD = 4 /* guided, each chunk a multiple of chunk (the simd width) */ };

/* A thread's part in the worksharing loop it is in (loop.c). */
struct bp_loop {
    struct bp_ws *ws;      /* the team's shared state; NULL in a team of one */
    int open;              /* started and not yet left by this thread */
    int done;              /* no chunk left for this thread to take */
    int sched;             /* BP_LOOP_* */
    int ordered;           /* the loop has an ordered clause */
    uint64_t last;         /* iteration indices 0..last */
    uint64_t chunk;        /* 0 with static: one block per thread */
    uint64_t next;         /* static: chunks taken; team of one: next index */
    int chunk_open;        /* cur_first..cur_last was handed out, not finished */
    uint64_t cur_first, cur_last;
    uint64_t ord_next;     /* ordered: this thread's next iteration to order */
    int ord_bumped;        /* ordered: the current iteration passed its turn */
    uint64_t base, step;   /* the ABI layer's typed bounds: index i is base + i * step */
    void *own_mem;         /* a team of one's construct memory (bp_loop_start_mem) */
    struct mem_block *shared; /* the team's construct memory, until bp_loop_finish */
};

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
    /* the teams this thread forked with at levels 1..BP_HOT_LEVELS, kept
     * for its next region there (team.c) */
    struct bp_team *hot[BP_HOT_LEVELS];
    int pushed_threads;   /* __kmpc_push_num_threads for the next region; 0 none */
    int pushed_teams, pushed_teams_low, pushed_teams_limit; /* __kmpc_push_num_teams
                           * for the next teams construct; 0 none (teams.c) */
    int icv_ready;        /* icv is set (else the initial values: bp_icv) */
    int gtid;             /* unique number of this thread, -1 until asked */
    struct bp_serial *serial; /* saved states of __kmpc_serialized_parallel */
    int place;            /* the place the thread is bound to; -1: not bound */
    int pool_id;          /* worker number; 0 for a thread that forks regions */
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

/* ---- fork.c ------------------------------------------------------------ */

/* A region between bp_fork_begin and bp_fork_end, on the caller's stack. */
struct bp_fork_frame {
    int team_size;          /* 1: the region runs on the caller alone */
    struct bp_team *team;   /* its team, when it has more than one thread */
    int counted;            /* its threads are counted in the pool's busy threads */
    int outermost;          /* forked outside any region */
    struct bp_hook_span hook; /* the listeners' (hooks.h) */
    struct bp_implicit_task implicit; /* thread 0's implicit task in the region */
    struct team_state saved;
};
/* Bytes of a region's context that travel in the line each worker waits on
 * (see bp_fork). */
#define BP_INLINE_CTX 80

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
/* The team a region forked now by t asking for team_size threads (0: the
 * default) would get, unless the pool cannot start the workers. */
int bp_region_size(struct bp_thread *t, int team_size);
/* The thread of t's enclosing regions at `level` (0: the initial task's):
 * its number there and that team's size; 0 when t has no such level
 * (team.c, which walks the teams' links to their enclosing regions). */
int bp_ancestor(const struct bp_thread *t, int level, int *tid, int *size);
/* Enter and leave a serialized (one-thread) region; fn names it in the
 * profile when it is outermost. */
void bp_serial_begin(struct bp_thread *t, const void *fn);
void bp_serial_end(struct bp_thread *t);

/* ---- barrier.c ---------------------------------------------------------- */

/* Barrier of t's team. */
void bp_barrier(struct bp_thread *t);
/* A cancellable barrier (a cancellation point of cancel parallel): 1 when
 * the region is cancelled, at once if it was, or while t waits there. */
int bp_barrier_cancel(struct bp_thread *t);
/* Reduction gather: thread 0 combines every thread's data into its own with
 * combine(lhs, rhs), in thread order, and gets 1; the others get 0 once their
 * data has been consumed (nowait) or once thread 0 calls bp_reduce_end. */
int bp_reduce(struct bp_thread *t, void *data, void (*combine)(void *, void *), int nowait);
void bp_reduce_end(struct bp_thread *t);
/* The single construct: 1 for the one thread of t's team that runs it. */
int bp_single(struct bp_thread *t);

/* ---- cancel.c ----------------------------------------------------------- */

/* The constructs a cancel names; all of it is inert while cancel-var
 * (bp_config.cancellation) is false. */
enum { BP_CANCEL_PARALLEL = 1, BP_CANCEL_WS = 2 /* for, sections */, BP_CANCEL_TASKGROUP = 3 };
/* `cancel`: activate cancellation of t's innermost construct of the kind;
 * 1 when t is to leave it (0: a taskgroup cancel outside any taskgroup). */
int bp_cancel(struct bp_thread *t, int kind);
/* `cancellation point`: is cancellation of the kind active for t? */
int bp_cancelled(struct bp_thread *t, int kind);
/* Is t's region cancelled? Its taskgroup? Tasks made there are discarded. */
int bp_cancelled_region(const struct bp_thread *t);
int bp_task_cancelled(struct bp_thread *t);
/* A queued task about to begin on t: discarded (its body never runs) when
 * its region or its taskgroup is cancelled. */
int bp_task_discarded(const struct bp_thread *t, const struct bp_task *task);
/* t gives up a barrier of its cancelled region in team: its episode count
 * back to the canceller's. bp_cancel_clear: thread 0's, at the join once
 * every thread has arrived. */
void bp_cancel_rejoin(struct bp_thread *t, struct bp_team *team);
void bp_cancel_clear(struct bp_team *team);

/* ---- task.c (the calls) ------------------------------------------------- */

/* Where the ABI layer's data starts in a task of bp_task_new. */
#define BP_TASK_HEADER ((sizeof(struct bp_task) + 63) & ~(size_t)63)
static inline void *bp_task_payload(struct bp_task *task)
{
    return (char *)task + BP_TASK_HEADER;
}
static inline struct bp_task *bp_task_of_payload(void *payload)
{
    return (struct bp_task *)((char *)payload - BP_TASK_HEADER);
}
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
/* A task on the heap with `payload` bytes of the ABI's data aligned to
 * `align` (a power of two, at most 64; more is an error the ABI reports),
 * not yet made part of anything. */
struct bp_task *bp_task_new(size_t payload, size_t align, void (*body)(struct bp_task *),
                            uint32_t flags, const void *fn);
/* Free a task of bp_task_new that was never made part of anything. */
void bp_task_free(struct bp_task *task);
/* taskmem.c: a task's memory (size bytes, the returned pointer aligned to
 * `align`, at least 64), from the calling thread's blocks when it fits
 * one; freed from any thread. */
void *bp_taskmem_alloc(size_t size, size_t align);
void bp_taskmem_free(void *p);
void bp_taskmem_fork_child(void);
/* Make task a child of t's task and queue it (deferred), or run it now
 * (undeferred: if(0), or included); a started untied task is queued again
 * for its next part. The task may be freed before this returns. */
void bp_task_submit(struct bp_thread *t, struct bp_task *task, int deferred);
/* Is t's own queue full (a deferred task made now would run at once)?
 * Looked at lazily: it may have room when this says full (deque.h). */
int bp_task_queue_full(struct bp_thread *t);
/* An undeferred task of bp_task_new whose body its creator runs itself,
 * between these two (__kmpc_omp_task_begin_if0); an included one on the
 * stack uses bp_task_begin_included instead. */
void bp_task_begin_undeferred(struct bp_thread *t, struct bp_task *task,
                              struct bp_task_frame *fr);
void bp_task_end_undeferred(struct bp_thread *t, struct bp_task *task,
                            struct bp_task_frame *fr);
/* An included task on the caller's stack (bp_task_included said so; no
 * event, no dependences), whose body its creator runs between these: only
 * the fields an included task reads are set. Inline: a task of one
 * thread's team costs this and the body. */
static inline void bp_task_begin_included(struct bp_thread *t, struct bp_task *task,
                                          uint32_t flags, const void *fn,
                                          struct bp_task_frame *fr)
{
    struct bp_task *parent = bp_task_current(t);
    task->parent = parent;
    task->depth = parent->depth + 1;
    task->flags = flags | (parent->flags & BP_TASK_FINAL) | BP_TASK_STARTED | BP_TASK_ON_STACK;
    task->fn = fn;
    task->next_ready = NULL; /* no stand-in yet */
    task->group = parent->group;
    task->in_group = NULL;
    task->team = NULL;
    task->mem = NULL;
    task->dep = NULL;
    task->dep_table = NULL;
    atomic_init(&task->refs, 1);
    atomic_init(&task->mem_holds, 1);
    atomic_init(&task->pending, 1);
    /* its ICVs are its parent's, which t holds: lent, and saved in fr
     * only when its code changes one (bp_icv_set); task->icv is not read */
    (void)bp_icv(t); /* set, so that a lent copy is never the initial one */
    fr->prev = parent;
    fr->icv_saved = 0;
    fr->lender = t->icv_lender;
    fr->task_id = t->task_id;
    t->task = task;
    t->icv_lender = fr;
    t->task_id = 0;
}
/* Its end when it made a counted child: the stand-in that holds its
 * children (task.c) completes with them. A task on the stack has nothing
 * else to wait for: every counted child, and the dependences and holds
 * that come with it, is its stand-in's. */
void bp_task_end_included_slow(struct bp_task *task);
static inline int bp_task_included_busy(const struct bp_task *task)
{
    return task->next_ready != NULL;
}
static inline void bp_task_end_included(struct bp_thread *t, struct bp_task *task,
                                        const struct bp_task_frame *fr)
{
    if (__builtin_expect(bp_task_included_busy(task), 0))
        bp_task_end_included_slow(task);
    t->task = fr->prev;
    if (fr->icv_saved)
        t->icv = fr->icv;
    t->icv_lender = fr->lender;
    t->task_id = fr->task_id;
}
/* Between two included tasks made one after the other by the same task
 * (a taskloop's, on one thread): the first ends, the next starts in its
 * place with the same flags, without looking up the parent again. */
static inline void bp_task_next_included(struct bp_thread *t, struct bp_task *task,
                                         struct bp_task_frame *fr)
{
    if (__builtin_expect(bp_task_included_busy(task), 0))
        bp_task_end_included_slow(task);
    if (fr->icv_saved) { /* the parent's, which the next one borrows */
        t->icv = fr->icv;
        fr->icv_saved = 0;
    }
    t->task = task;
    t->icv_lender = fr;
    t->task_id = 0;
}
/* A task's completion waits for one more event (detach); the handle. */
void *bp_task_add_event(struct bp_task *task);
void bp_task_fulfill(void *event);
/* The task scheduling points. */
void bp_taskwait(struct bp_thread *t);
void bp_taskyield(struct bp_thread *t);
void bp_taskgroup_begin(struct bp_thread *t);
void bp_taskgroup_end(struct bp_thread *t);
/* The team's word for an ABI's team-wide task reductions of a parallel
 * (which 0), or of the worksharing construct open at depth which - 1 (1:
 * the outermost; a scope may hold another construct); NULL in a team of
 * one. */
#define BP_WS_RED_DEPTH 8
_Atomic(void *) *bp_team_reduction_slot(struct bp_thread *t, int which);
/* What a word holds: NULL, BP_TEAM_RED_BUSY while its first thread makes
 * the copies, then an ABI's block, which begins with how to free it and
 * its copies when a cancelled region's join finds it still there
 * (cancel.c: the threads that would have freed it skipped the construct). */
#define BP_TEAM_RED_BUSY ((void *)1)
struct bp_team_red {
    void (*drop)(struct bp_team_red *self);
};
/* The innermost taskgroup of t's task; NULL: none. */
static inline struct bp_taskgroup *bp_taskgroup_current(struct bp_thread *t)
{
    return bp_task_current(t)->group;
}
/* Is t's task final (omp_in_final)? */
int bp_task_in_final(struct bp_thread *t);
/* A barrier's or join's wait: run one task of t's team, if one is queued;
 * 1 if it ran one (arg: t). */
int bp_tasks_poll(void *arg);
/* The end of a barrier or region: run the team's tasks until all are
 * complete. */
void bp_tasks_drain(struct bp_thread *t);
/* The end of barrier episode e, every thread arrived: the same, until all
 * tasks made before the barrier are complete, which the first thread to
 * see none pending tells the others (tasks made after it, by a thread
 * that has left, are not the barrier's to wait for). */
void bp_tasks_drain_barrier(struct bp_thread *t, uint64_t e);
/* Tasks of the team not complete (made minus completed; 0 is final once
 * no implicit task can make more). */
int64_t bp_tasks_pending(struct bp_team *team);
/* Thread 0's join: its team's tasks complete, the workers helping when
 * they finished the region's code before the tasks did. */
uint32_t bp_tasks_join(struct bp_thread *t, struct bp_team *team, int team_size,
                       uint32_t used);
/* What a worker runs when thread 0 asks it back to help with tasks. */
void bp_tasks_help(int tid, void *ctx);
/* A region's implicit task, for t's region now beginning. */
void bp_task_implicit(struct bp_thread *t, struct bp_implicit_task *task);

/* ---- taskdep.c ---------------------------------------------------------- */

/* One dependence of a task, as the ABI layers read their clauses. */
enum { BP_DEP_IN = 1, BP_DEP_OUT, BP_DEP_INOUT, BP_DEP_MUTEXINOUTSET, BP_DEP_INOUTSET, BP_DEP_ALL };
struct bp_dep {
    uintptr_t addr;
    int kind; /* BP_DEP_* */
};
/* Make t's task's child `task` (bp_task_new) wait for its dependences on
 * its siblings, then queue it (deferred) or run it now, its maker running
 * other tasks meanwhile. */
void bp_task_submit_deps(struct bp_thread *t, struct bp_task *task, const struct bp_dep *deps,
                         int ndeps, int deferred);
/* taskwait depend(...): wait for the sibling tasks those name. */
void bp_taskwait_deps(struct bp_thread *t, const struct bp_dep *deps, int ndeps);
/* task.c's side: enter n in its parent's table (n->npred counts what it
 * waits for); a completing task's successors lose it; freeing a task's
 * table and node. */
void bp_deps_register(struct bp_task *parent, struct bp_task *n, const struct bp_dep *deps,
                      int ndeps);
void bp_deps_release(struct bp_task *task);
/* Free task's children's table (all complete), or its own node (the task
 * is freed). */
void bp_task_deps_free(struct bp_task *task);
void bp_task_node_free(struct bp_task *task);
/* task.c: a deferred task whose predecessors are all complete: queue it. */
void bp_task_ready(struct bp_task *task);
/* Drop a hold on a task's memory (the last frees it). */
void bp_task_unref(struct bp_task *task);
/* Take one. */
void bp_task_hold(struct bp_task *task);

/* ---- taskloop.c ---------------------------------------------------------- */

/* A taskloop's n iterations in tasks: ntasks of base iterations, the first
 * `extra` of them one more; strict: each of base, the last one `last`. */
enum { BP_TASKLOOP_DEFAULT = 0, BP_TASKLOOP_GRAINSIZE = 1, BP_TASKLOOP_NUM_TASKS = 2 };
struct bp_taskloop_plan {
    uint64_t ntasks, base, extra, last;
    int strict;
};
void bp_taskloop_plan(struct bp_taskloop_plan *p, uint64_t n, int sched, uint64_t param,
                      int strict, uint64_t default_tasks);
/* Iterations of task k of the plan. */
static inline uint64_t bp_taskloop_count(const struct bp_taskloop_plan *p, uint64_t k)
{
    if (p->strict)
        return k + 1 == p->ntasks ? p->last : p->base;
    return p->base + (k < p->extra);
}
/* Running a grouped, deferred taskloop of a team of several threads by lazy
 * splitting (taskloop.c): the ABI's task(t, r, scratch, k, first, count)
 * runs task k of the plan (iterations first..first+count-1) at once as an
 * included task, its data copied into scratch (scratch_size bytes aligned
 * to scratch_align, the calling thread's). The ABI's own state follows r
 * in a struct of its own; fn names the range tasks in the profile. */
struct bp_taskloop_run {
    void (*task)(struct bp_thread *t, const struct bp_taskloop_run *r, void *scratch,
                 uint64_t k, uint64_t first, uint64_t count);
    size_t scratch_size, scratch_align;
    const void *fn;
    struct bp_taskloop_plan plan;
};
void bp_taskloop_lazy(struct bp_thread *t, const struct bp_taskloop_run *r);

/* ---- pool.c (the threads) ------------------------------------------------ */

/* Number of pool threads running now, the callers' slot included. */
int bp_pool_threads(void);

/* ---- life.c ------------------------------------------------------------- */

/* Start the runtime once: the configuration, the places and the pool's
 * memory (threads start with regions). */
void bp_pool_ensure_init(void);
/* The pool's figures, the runtime started: the most threads a team can
 * have (the limits, BUDDY_THREAD_POOL_THREADS and OMP_THREAD_LIMIT, else
 * BP_MAX_THREADS); the team a region gets when nothing asks for a size (one
 * thread per allowed CPU, lowered by the limits); the CPUs the process may
 * run on, as the pool found them. */
int bp_max_team(void);
int bp_default_team(void);
int bp_pool_cpus(void);

/* ---- teams.c ----------------------------------------------------------- */

/* Bind the calling application thread to place 0 if a binding is asked for
 * (OMP_PROC_BIND, OMP_PLACES) and no thread has been bound yet. */
void bp_bind_caller(void);
/* Tests only (test-wrap; life.c): move the episode count, as if that many
 * barrier episodes had passed, without touching the words or the last
 * refresh. */
void bp_pool_test_set_epoch(uint64_t epoch);

/* ---- loop.c ------------------------------------------------------------- */

/* Start t's next worksharing loop over iteration indices 0..last (empty:
 * none at all), with sched (BP_LOOP_*) and chunk (0: the schedule's default).
 * Every thread of the team calls it, in the same order as every other
 * worksharing loop; the first to arrive sets up the shared state. */
void bp_loop_start(struct bp_thread *t, int empty, uint64_t last, int sched, uint64_t chunk,
                   int ordered);
/* The same with mem_size bytes (0: none) of zeroed memory shared by the
 * team for the construct, kept past its end until a later construct (see
 * loop.c): every thread gets the same pointer (NULL when mem_size is 0). */
void *bp_loop_start_mem(struct bp_thread *t, int empty, uint64_t last, int sched,
                        uint64_t chunk, int ordered, size_t mem_size);
/* Free what a team of one's construct kept (its memory), when the region
 * whose state l is ends. */
void bp_loop_discard(struct bp_loop *l);
/* t has ended its construct (the ABI's loop or sections end): it reads its
 * team-shared memory no more. */
void bp_loop_finish(struct bp_thread *t);
/* t's next chunk: 1 with its indices *first..*last_idx (and *is_last when it
 * holds index last), or 0 when the loop is over for t (its end). */
int bp_loop_next(struct bp_thread *t, uint64_t *first, uint64_t *last_idx, int *is_last);
/* The ordered region of t's current iteration: wait for its turn. */
void bp_ordered_begin(struct bp_thread *t);
/* libomp's end of an ordered region: the turn passes to the next iteration
 * (libgomp's passes at the end of the chunk: it must not call this). */
void bp_ordered_end(struct bp_thread *t);
/* libomp's end of an iteration of an ordered loop (__kmpc_dispatch_fini). */
void bp_ordered_iteration_done(struct bp_thread *t);
/* Resolve a runtime schedule from t's ICV into *sched and *chunk. */
void bp_runtime_schedule(struct bp_thread *t, int *sched, uint64_t *chunk);
/* Copyprivate: the thread with didit publishes data; every thread gets the
 * published pointer back after a barrier. The caller copies, then calls
 * bp_barrier before the data may change. */
void *bp_copyprivate(struct bp_thread *t, void *data, int didit);
/* A team's worksharing state: new (NULL when out of memory), reset by
 * thread 0 after a region that used it, freed with its team. */
struct bp_loops;
struct bp_loops *bp_loops_new(void);
void bp_loops_reset(struct bp_loops *loops);
void bp_loops_free(struct bp_loops *loops);

/* ---- sched.c ----------------------------------------------------------- */

/* The static schedule over the iteration indices 0..last (last + 1 of them;
 * last may be UINT64_MAX). chunk 0 is the block schedule: each thread one
 * contiguous block, sizes differing by at most one. chunk >= 1 deals chunks
 * round-robin. Returns 0 when thread tid of nth gets no iteration, else 1
 * with its first block in *first..*block_last (inclusive). Sets *is_last to
 * whether tid runs index last. */
int bp_static_split(uint64_t last, uint64_t chunk, int tid, int nth,
                    uint64_t *first, uint64_t *block_last, int *is_last);

/* The typed loop bounds of __kmpc_for_static_init_*, for thread tid of nth;
 * returns the thread's iteration count. */
#define BP_STATIC_INIT_DECL(sfx, T, ST)                                          \
    uint64_t bp_for_static_init_##sfx(const char *who, int tid, int nth,       \
                                  int32_t schedtype, int32_t *plastiter,       \
                                  T *plower, T *pupper, ST *pstride, ST incr,  \
                                  ST chunk);
BP_STATIC_INIT_DECL(4, int32_t, int32_t)
BP_STATIC_INIT_DECL(4u, uint32_t, int32_t)
BP_STATIC_INIT_DECL(8, int64_t, int64_t)
BP_STATIC_INIT_DECL(8u, uint64_t, int64_t)

/* libomp schedule numbers (kmp.h's enum sched_type) that static init takes. */
enum {
    BP_SCH_STATIC_CHUNKED = 33,
    BP_SCH_STATIC = 34,
    BP_SCH_ORD_STATIC_CHUNKED = 65,
    BP_SCH_STATIC_BALANCED_CHUNKED = 45, /* schedule(simd: static) */
    BP_SCH_ORD_STATIC = 66,
    BP_SCH_MONOTONIC = 1 << 29,          /* modifier bits */
    BP_SCH_NONMONOTONIC = 1 << 30,
};

#endif
