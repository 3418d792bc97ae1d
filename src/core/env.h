/* env.h: the configuration read from the environment, the ICVs of
 * the OpenMP data environment and the program-wide ones (env.c), and their
 * display (display.c). */
#ifndef BUDDYPOOL_ENV_H
#define BUDDYPOOL_ENV_H

#include <stddef.h>
#include <stdint.h>

/* omp_sched_t values of the runtime schedule ICV (omp_set_schedule), and
 * the modifier bit it may carry. */
/* target-offload-var (OMP_TARGET_OFFLOAD), numbered as libomp's
 * __kmpc_get_target_offload answers. */
enum { BP_OFFLOAD_DISABLED = 0, BP_OFFLOAD_DEFAULT = 1, BP_OFFLOAD_MANDATORY = 2 };
enum { BP_OMP_STATIC = 1, BP_OMP_DYNAMIC = 2, BP_OMP_GUIDED = 3, BP_OMP_AUTO = 4 };
/* libomp's extension kind (kmp_sched_trapezoidal), from OMP_SCHEDULE or
 * omp_set_schedule: run as guided, which also hands out chunks that shrink
 * from the first to the last, and reported as set. */
enum { BP_OMP_TRAPEZOIDAL = 101 };
#define BP_OMP_MONOTONIC ((int)0x80000000u)

/* The ICVs of an implicit task (the OpenMP data environment). The implicit
 * tasks of a region start with a copy of the forking task's (nthreads from
 * the next entry of the OMP_NUM_THREADS list, where it has one); a change
 * stays in the task that makes it. A thread that is in no region of the pool
 * runs the initial task of its own, with the values the environment gives. */
struct bp_icv {
    int nthreads;          /* nthreads-var; 0: the default team */
    int run_sched;         /* run-sched-var: BP_OMP_*, maybe | BP_OMP_MONOTONIC */
    int run_chunk;         /* its chunk (an int, as omp_set_schedule's); 0: the default */
    int8_t dynamic;        /* dyn-var: teams no larger than the allowed CPUs */
    int8_t nthreads_pushed; /* nthreads-var's list came from a num_threads list */
                           /* (its last item goes on for the levels below), */
                           /* not from OMP_NUM_THREADS's */
    int16_t proc_bind;     /* bind-var: omp_proc_bind_t (a region's policy when a */
                           /* binding is asked for, and no proc_bind clause) */
    int max_active_levels; /* max-active-levels-var */
    /* a host teams construct's (teams.c) */
    int team_num;          /* the task's team; 0 outside a teams construct */
    int num_teams;         /* the teams of its league; 1 outside */
    int thread_limit;      /* thread-limit-var the construct set; 0: OMP_THREAD_LIMIT's */
    int team_cap;          /* the most threads a region forked in the team gets; 0: none */
    int default_device;    /* default-device-var (OMP_DEFAULT_DEVICE); it also fills */
                           /* what would be padding, so that a copy keeps every byte */
                           /* and two sets compare whole (fork.c's icv_same) */
    uintptr_t default_allocator; /* def-allocator-var (OMP_ALLOCATOR): an */
                           /* omp_allocator_handle_t, 1 omp_default_mem_alloc */
};
/* A team keeps its ICVs in its read-mostly line (team.h): keep them small. */
_Static_assert(sizeof(struct bp_icv) == 48, "struct bp_icv is 48 bytes");
_Static_assert(offsetof(struct bp_icv, default_allocator) + sizeof(uintptr_t) ==
                   sizeof(struct bp_icv),
               "struct bp_icv has no padding");

/* The name of a predefined allocator (1 omp_default_mem_alloc ..
 * 8 omp_thread_mem_alloc); NULL for any other handle. */
const char *bp_allocator_name(uintptr_t a);

/* Active levels of nested regions supported (libgomp's count). */
#define BP_SUPPORTED_LEVELS 255

/* Most threads the pool ever has, whatever is asked. */
#define BP_MAX_THREADS 4096
/* Frames a call site of the profile keeps, at most
 * (BUDDY_THREAD_POOL_PROFILE_CALLERS). */
enum { BP_MAX_CALLERS = 16 };
/* Entries of OMP_NUM_THREADS kept (one per nesting level). */
#define BP_NTHREADS_LEVELS 16

/* The waits' setter and sleeper pair (wait.c): chosen by the processor,
 * or named. */
enum { BP_WAIT_PAIR_AUTO, BP_WAIT_PAIR_SYMMETRIC, BP_WAIT_PAIR_ASYMMETRIC };

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
    int task_throttle;     /* a task made on a full deque runs at once (1); 0: it waits */
                           /* in the team's inbox (KMP_ENABLE_TASK_THROTTLING=false) */
    int target_offload;    /* OMP_TARGET_OFFLOAD: BP_OFFLOAD_* (target.c) */
    size_t stack_bytes;    /* OMP_STACKSIZE */
    int64_t spin_ns;       /* spin before sleeping; INT64_MAX = never sleep */
    int spin_chosen;       /* spin_ns was chosen (OMP_WAIT_POLICY, BUDDY_THREAD_POOL_SPIN_US,
                            * kmp_set_blocktime): waits do not adapt it (wait.c) */
    int wait_pair;         /* BUDDY_THREAD_POOL_WAIT_PAIR: BP_WAIT_PAIR_* (wait.c) */
    int pin;               /* pin workers: OMP_PROC_BIND is not false */
    int affinity_reset;    /* KMP_AFFINITY=reset: the caller's own mask back */
                           /* after each outermost region (pool.c) */
    int pin_caller;        /* also pin a region's caller: OMP_PROC_BIND set to bind,
                            * or OMP_PLACES set and OMP_PROC_BIND not */
    int bind_levels;       /* entries of the OMP_PROC_BIND list (0: unset) */
    int bind_list[BP_NTHREADS_LEVELS]; /* bind-var of level i's tasks */
    const char *places;    /* OMP_PLACES, or NULL (parsed by places.c) */
    const char *hw_subset; /* KMP_HW_SUBSET, or NULL (topology.c), */
    const char *hw_subset_name; /* or KMP_PLACE_THREADS, its older name */
    int oversubscribe;     /* BUDDY_THREAD_POOL_OVERSUBSCRIBE: the default team is the limit */
    int profile;           /* BUDDY_THREAD_POOL_PROFILE=1 */
    int profile_slots;     /* BUDDY_THREAD_POOL_PROFILE_SLOTS */
    const char *profile_out; /* BUDDY_THREAD_POOL_PROFILE_OUT, or NULL */
    int profile_callers;   /* BUDDY_THREAD_POOL_PROFILE_CALLERS: frames per call site */
    int profile_steps;     /* BUDDY_THREAD_POOL_PROFILE_STEPS: steps kept one by one */
    int profile_signal;    /* BUDDY_THREAD_POOL_PROFILE_SIGNAL: signal number, 0 none */
    const char *trace_out; /* BUDDY_THREAD_POOL_TRACE, or NULL */
    const char *live_dir;  /* BUDDY_THREAD_POOL_LIVE_DIR, or NULL: /dev/shm */
    int trace_events;      /* BUDDY_THREAD_POOL_TRACE_EVENTS: ring size per thread */
};
extern struct bp_config bp_config;
/* Parse the environment once (thread-safe, idempotent). */
void bp_config_load(void);
/* The most threads a contention group (an application thread's teams,
 * nested ones included) may have: the limits (BUDDY_THREAD_POOL_THREADS,
 * OMP_THREAD_LIMIT), at most BP_MAX_THREADS (the configuration loaded). */
int bp_config_max_threads(void);
/* Is this process a Python interpreter (its executable python*)? Where
 * Python's habits call for another behaviour (peer.c, dump.c). */
int bp_process_is_python(void);
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

/* display.c */

/* The team a region gets when nothing asks for a size, and where that
 * came from (life.c's start-up, for the display). */
struct bp_default_team {
    int size;
    int by_quota; /* a CPU quota made it smaller than the allowed CPUs */
    char why[4400];
};
/* Print the ICVs (OMP_DISPLAY_ENV, omp_display_env); def->size is what
 * omp_get_max_threads gives where nthreads-var is unset. */
void bp_display_env(int verbose, const struct bp_default_team *def);

#endif
