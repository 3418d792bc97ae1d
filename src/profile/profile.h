/* profile.h: the profiler's own declarations, for the profiler's files (the
 * listener behind hooks.h: listen.c, and what it uses). Nothing of the core
 * includes this file; the profiler calls nothing of the core. Grouped
 * under the file that defines each, lowest first. */
#ifndef BUDDYPOOL_PROFILE_H
#define BUDDYPOOL_PROFILE_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "../core/env.h"
#include "../hooks.h"
#include "../core/log.h"
#include "../prim.h"

/* A forking thread's own timeline (profile.c): its regions never overlap,
 * so each gap is its region's start minus its previous one's end. */
struct bp_profile_row;
struct bp_timeline {
    uint64_t epoch;            /* the profile's epoch it counts in; older: empty */
    int64_t last_end_ns;       /* the end of its previous region */
    uint64_t seq;              /* its regions in this epoch */
    struct bp_profile_row *last_row[2]; /* its previous region's rows: the whole */
    uint64_t last_seq[2];               /* run's, a phase's; and their seq */
    int last_phase;            /* the phase of last_row[1] */
    int caller;                /* its entry in the profile's callers' table */
};

/* One thread's barrier episodes in its current outermost region (steps.c):
 * the first bp_config.profile_steps one by one, the rest summed. */
struct bp_step_rec {
    int64_t arrive_ns, release_ns;
};
struct bp_steps_rec {
    struct bp_step_rec *rec;  /* profile_steps entries, or NULL (none yet) */
    int64_t rest_wait_ns;     /* waits of the episodes past the bound */
    int64_t rest_work_ns;     /* and the thread's own time before each */
    int64_t last_release_ns;  /* the thread's previous release (or start) */
    int on;                   /* in a profiled outermost region: record */
};

/* ---- perthread.c: what the profiler keeps per thread ----------------------- */

/* How a thread waited (the wait hooks): written by that thread alone
 * (relaxed), read by the report. */
struct bp_wait_stats {
    _Atomic int64_t spin_ns;  /* spinning and yielding in waits */
    _Atomic int64_t sleep_ns; /* asleep in the kernel in waits */
    _Atomic uint64_t sleeps;  /* times it went to sleep */
    _Atomic uint64_t wakes;   /* futex wakes it issued to sleeping waiters */
};
/* The wait statistics of the pool's threads (perthread.c): the callers'
 * entry (thread 0s, together) and each worker's. make: the workers' entries
 * for a pool of max_threads (0, or -1 when out of memory), which free
 * forgets once no worker runs (the shutdown); begin: worker
 * w's entry (w >= 1; NULL when none was made), the worker counted as
 * started; callers: the callers' entry; count: the callers' entry plus the
 * workers started; read copies entries 0..n-1 while their threads may
 * update them; clear sets them all to 0. set_rec: worker w's steps buffer, which fork_child (in the child of
 * fork(), which has no worker) frees, but keep, the forking thread's own. */
int bp_waits_make(int max_threads);
void bp_waits_free(void);
struct bp_wait_stats *bp_waits_begin(int worker);
struct bp_wait_stats *bp_waits_callers(void);
int bp_waits_count(void);
void bp_waits_read(struct bp_wait_stats *out, int n);
void bp_waits_clear(void);
void bp_waits_set_rec(int worker, struct bp_step_rec *rec);
void bp_waits_fork_child(const struct bp_step_rec *keep);

/* A thread's state as the listener keeps it, in its own thread-local
 * storage (bp_lt): what the hooks of that thread recorded. */
struct bp_trace_ring;
struct bp_listen_thread {
    int worker;                 /* its pool worker number; 0: a thread that forks */
    struct bp_wait_stats *waits; /* a worker's entry; NULL: the callers' */
    int slept;                  /* a wait of it slept since it last waited for a start */
    int holds_lock;             /* it holds the profile's lock (profile.c) */
    /* its part of the current outermost region */
    int64_t wait_ns;            /* barrier waits */
    uint64_t iters;             /* loop iterations */
    int iters_counted;          /* a loop counted them */
    uint32_t barriers;          /* episodes passed (steps.c) */
    struct bp_steps_rec steps;
    int64_t task_inner_ns;      /* tasks run inside the one running: their time */
    /* the levels of the regions it is in around the target regions it
     * runs on the host (bp_prof_device): its levels are counted from
     * there, so that their regions are nested ones */
    int device_base;
    /* thread 0 of an outermost region of its own, timed fork to join */
    int timed;
    const void *fn;
    int64_t start_ns, obtain_ns, joined_ns;
    /* a worker's current share of a region; its team's thread 0 is in a
     * target region nested in a region (team_block.nested) */
    int share_timed, share_nested;
    int64_t woke_ns;
    /* the call site of its next (then current) outermost region, noted by
     * the ABI entry that forks it (BP_HOOK_SITE) */
    const void *site_ra;        /* the entry's return address */
    const char *site_src;       /* clang's ident_t source string, or NULL */
    const void *site_frames[BP_MAX_CALLERS]; /* the current region's site, */
    int site_nframes;                        /* taken at its fork, */
    const char *site_loc;                    /* with the entry's source string */
    struct bp_timeline timeline; /* its outermost regions (profile.c) */
    struct bp_trace_ring *trace; /* its events (trace.c) */
};
extern _Thread_local struct bp_listen_thread bp_lt;

/* ---- profile.c ---------------------------------------------------------- */

/* Profiling is on (BUDDY_THREAD_POOL_PROFILE=1, or tracing, which needs its
 * clock reads). Set before the first region starts and never changed, so
 * reading it needs no ordering. A build with BP_NO_PROFILER has none. */
#ifdef BP_NO_PROFILER
#define bp_profiling 0
#else
extern int bp_profiling;
#endif
/* Set up the profile from bp_config (the listener's start). */
void bp_profile_init(int max_threads);
/* One thread's part of a region's steps, as the join hands it over. */
struct bp_step_view {
    const struct bp_step_rec *rec; /* the episodes kept one by one, or NULL */
    uint32_t n;                    /* episodes before the join */
    int64_t rest_wait_ns, rest_work_ns;
    int64_t last_release_ns;       /* of the episode before the join (or start) */
};
/* One outermost region as the listener measured it (listen.c). */
struct bp_region_sample {
    const void *fn;
    int64_t start_ns, end_ns;   /* fork to join on thread 0 */
    int64_t wait_ns, wait_t0_ns; /* barrier waits: all threads, thread 0 */
    int threads;
    uint32_t barriers;          /* episodes, the join included */
    const int64_t *thread_wait; /* per thread: its barrier waits, the join's too */
    const uint64_t *thread_iters; /* per thread: loop iterations it ran; */
                                /* BP_ITERS_UNCOUNTED: no loop counted them */
    const int64_t *thread_joined; /* per thread: when it reached the join */
    const struct bp_step_view *thread_steps; /* per thread: its episodes */
    int last_at_join;           /* the thread that reached the join last; -1: none */
    int woken;                  /* workers that slept before the fork and were woken */
    int64_t wake_sum_ns, wake_max_ns; /* fork to their start */
    int64_t obtain_ns;          /* making or growing the forking thread's team */
    const void *const *site;    /* the call site's frames, innermost first */
    int nsite;
    const char *site_src;       /* clang's source location string, or NULL */
};
#define BP_ITERS_UNCOUNTED UINT64_MAX
/* Account one outermost region on the timeline of its forking thread (lt:
 * that thread's state): regions of different threads may overlap, each
 * thread's do not. */
void bp_profile_region(struct bp_listen_thread *lt, const struct bp_region_sample *s);
/* Print the report on stderr and write the JSON file; with the profile's
 * lock held. The trace is written only when workers_stopped (no thread
 * records); lt: the calling thread's state. */
void bp_profile_report(struct bp_listen_thread *lt, int workers_stopped);
/* In the child of fork(): forget the parent's regions; report only the
 * child's own, to PATH.<pid>. */
void bp_profile_fork_child(void);
/* Write the report and JSON of everything so far, the process running on
 * (the profile signal's writer thread); takes the profile's lock. */
void bp_profile_dump(_Atomic int *stop);
/* The process is ending by signal sig (dump.c): the final report and JSON,
 * marked so, and the live file removed. */
void bp_profile_end(int sig);
/* The profile's lock: the accounting of a region that ended, the dumps,
 * and the profile API, which changes the profile between a thread's
 * regions. held: the calling thread holds it (an exit() from the profile's
 * own work); timed: until the deadline, 0 when it was not got; fork_child:
 * usable again in the child of fork(). */
void bp_profile_lock(void);
void bp_profile_unlock(void);
int bp_profile_lock_held(void);
int bp_profile_lock_timed(const struct timespec *deadline);
void bp_profile_lock_fork_child(void);
/* The profile's calls of buddypool.h, behind life.c's entry points (through
 * listen.c), which call them outside any region with the runtime started:
 * 0 or a negative errno (-ENOTSUP when the profile is off, or after the
 * shutdown). */
int bp_profile_phase(const char *name);
int bp_profile_reset(void);
int bp_profile_write(FILE *out);

/* ---- sites.c ------------------------------------------------------------ */

/* At an outermost profiled fork: the thread's noted site (BP_HOOK_SITE,
 * listen.c) becomes the region's, as bp_config.profile_callers frames
 * (walked from the stack when more than one); the note is cleared. */
void bp_site_take(struct bp_listen_thread *lt);
/* A function's call sites: an open-addressed table keyed by the frames. */
struct bp_site_frame {
    const void *address;
    char *name, *module;     /* as bp_name_function gives them */
    uintptr_t module_offset;
};
struct bp_site {
    const void *key[BP_MAX_CALLERS];
    int nframes;
    int other;               /* the overflow site: the rest, no frames */
    struct bp_site_frame *frames;
    char *file, *function;   /* the source location; file NULL: none */
    int line, column;
    uint64_t calls;
    int64_t wall_ns, gap_before_ns, wait_ns;
};
struct bp_sites {
    struct bp_site *buckets; /* cap of them; nframes -1: empty */
    uint32_t cap, used;
    struct bp_site other;
};
/* Count a region at its site in s (gap: the gap before it, -1 for none). */
void bp_sites_account(struct bp_sites *s, const struct bp_region_sample *r, int64_t gap);
/* The sites in use, by wall time (the overflow site last); *n of them, a
 * new array (NULL when out of memory or none). */
struct bp_site *bp_sites_sorted(const struct bp_sites *s, size_t *n);
void bp_sites_free(struct bp_sites *s);

/* ---- steps.c ------------------------------------------------------------ */

/* A function's steps: index k for its regions' k-th barrier episode, up to
 * bp_config.profile_steps; the entry at that index (the rest) sums the
 * episodes past it. */
struct bp_step {
    uint64_t calls;
    int64_t wait_ns, work_ns;
    uint64_t *last;          /* per thread: episodes it arrived last; NULL for the rest */
    int last_n;
};
struct bp_steps {
    struct bp_step *s;
    uint32_t n;              /* entries 0..n-1 exist */
};
/* A thread (lt: its state) starts an outermost region at start_ns: no
 * episodes yet. */
void bp_steps_begin(struct bp_listen_thread *lt, int64_t start_ns);
/* The thread passed an episode of its outermost region's team (recorded
 * between bp_steps_begin and bp_steps_end only). */
void bp_steps_record(struct bp_listen_thread *lt, int64_t arrive_ns, int64_t release_ns);
/* Its profiled region is over: nothing more is recorded until the next. */
static inline void bp_steps_end(struct bp_listen_thread *lt)
{
    lt->steps.on = 0;
}
/* Its part of the region, for the join. */
struct bp_step_view bp_steps_view(const struct bp_listen_thread *lt);
/* Count a region's episodes (the join last) in st; threads: entries of
 * each step's last-arrival counts at most. */
void bp_steps_account(struct bp_steps *st, const struct bp_region_sample *r, int threads);
void bp_steps_free(struct bp_steps *st);
/* A worker's buffer, when it stops (or in a child of fork(), whose workers
 * are gone). */
void bp_steps_worker_free(struct bp_step_rec *rec);
/* In a child of fork(): the buffers of the threads it does not have go
 * (self: the forking thread's state). */
void bp_steps_fork_child(struct bp_listen_thread *self);
/* The pool shuts down (self: the thread that does it): its buffer goes. */
void bp_steps_shutdown(struct bp_listen_thread *self);

/* ---- live.c ------------------------------------------------------------- */

/* The live counters of /dev/shm/buddypool-<pid> (docs/profile-format.md),
 * for `buddypool top`: made at the profile's start (rows: the table's
 * slots, the overflow row last), removed at its end. Best effort: without
 * /dev/shm the rest of the profile works as before. */
void bp_live_open(size_t rows);
void bp_live_close(void);
/* A new row of the whole run's table: its live index (rows - 1 for the
 * overflow row), or -1. */
int bp_live_row(size_t index, const char *name, const char *module);
/* Publish a row's counters and the totals after a region. */
struct bp_profile_row;
struct bp_profile_totals;
void bp_live_update(int index, const struct bp_profile_row *r,
                    const struct bp_profile_totals *tot, int64_t first_start_ns,
                    int64_t now_ns);
/* The profile was reset: the rows start again. */
void bp_live_reset(void);
/* In a child of fork(): the parent's file left alone; the child opens its
 * own at its first region. */
void bp_live_fork_child(void);
/* Remove the file now, the mapping kept (an exit that cannot report). */
void bp_live_unlink(void);
/* ---- dump.c ------------------------------------------------------------- */

/* The profile's signals: BUDDY_THREAD_POOL_PROFILE_SIGNAL's handler, the
 * ending signals' (SIGTERM, SIGINT, SIGHUP, SIGQUIT, where their action is
 * the default) and the writer thread, which calls write(its stop word) at
 * each dump signal and end(sig) at an ending signal, then ends the process
 * by it (started again in a child of fork(), at its first region); stop
 * gives the actions back and joins the thread. */
void bp_dump_signal_start(void (*write)(_Atomic int *stop), void (*end)(int sig));
void bp_dump_signal_stop(void);
void bp_dump_signal_fork_child(void);

/* ---- trace.c ------------------------------------------------------------ */

/* Tracing is on (BUDDY_THREAD_POOL_TRACE): set once at start-up, like
 * bp_profiling, which tracing also turns on for its clock reads. Each
 * thread records into a ring of its own (lt: that thread's state). */
#ifdef BP_NO_PROFILER
#define bp_tracing 0
#else
extern int bp_tracing;
#endif
enum { BP_TRACE_REGION = 1, BP_TRACE_BARRIER = 2, BP_TRACE_JOIN = 3, BP_TRACE_PHASE = 4, BP_TRACE_TASK = 5 };
struct bp_trace_ring;
void bp_trace_init(void);
/* Tracing off again (the profile it needs could not be set up). */
void bp_trace_off(void);
/* Record an event of thread t (its own ring): a region of fn, a wait, or a
 * phase mark (fn: the phase's name, kept by the profile). */
void bp_trace_event(struct bp_listen_thread *lt, int kind, const void *fn, int64_t start_ns,
                    int64_t end_ns);
/* Record a region of fn that a worker ran in a team forked by the thread
 * whose OS thread id is forker (bp_trace_tid of that thread). */
void bp_trace_served(struct bp_listen_thread *lt, const void *fn, long forker,
                     int64_t start_ns, int64_t end_ns);
/* The thread's OS thread id, as its track names it. */
long bp_trace_tid(struct bp_listen_thread *lt);
/* Write every thread's events as Chrome trace-event JSON to path (a
 * message naming the path if it cannot); no thread may be recording. */
void bp_trace_write(const char *path);
/* Free every ring (after writing, or in a child of fork()); self's pointer
 * is cleared, other threads must not record again. */
void bp_trace_free(struct bp_listen_thread *self);

/* ---- report.c ----------------------------------------------------------- */

/* One row of the profile: a region function, or the overflow row (fn NULL). */
struct bp_thread_stats {
    int64_t wait_ns;       /* barrier waits, the join's included */
    uint64_t last_at_join; /* regions in which it reached the join last */
    uint64_t iterations;   /* loop iterations it ran */
    int iterations_counted; /* some loop counted them (else not measured) */
};
enum { BP_WALL_BUCKETS = 512 }; /* 8 per octave of nanoseconds */
struct bp_profile_row {
    const void *fn;
    char *name, *module; /* symbol+0xoffset and module path (dladdr) */
    uintptr_t module_offset; /* fn's offset from the module's base */
    uint64_t calls;
    int64_t wall_ns, gap_before_ns, gap_after_ns, wait_ns, wait_t0_ns;
    uint64_t barriers;
    struct bp_thread_stats *per_thread; /* per_thread_n entries, or NULL */
    int per_thread_n;                   /* threads of the largest team seen */
    uint32_t *wall_hist;                /* BP_WALL_BUCKETS counts, or NULL */
    struct bp_sites sites;
    struct bp_steps steps;
    int live;                           /* index in the live counters, or -1 */
};
struct bp_profile_totals {
    int threads;
    int64_t span_ns, regions_ns, gaps_ns, wait_ns;
    uint64_t regions, barriers;
    uint64_t woken;                   /* workers woken from sleep by a fork */
    int64_t obtain_ns;                /* forks making or growing their team */
    int64_t wake_sum_ns, wake_max_ns; /* their fork-to-start latencies */
};
/* A forking thread's figures (the whole run's table): its outermost
 * regions, their time, the gaps between them, and the time its forks spent
 * making or growing its team. tid -1: the threads past the first
 * BP_MAX_CALLER_ROWS, together. */
enum { BP_MAX_CALLER_ROWS = 64 };
struct bp_caller_row {
    long tid;
    uint64_t regions;
    int64_t regions_ns, gaps_ns, obtain_ns;
};
/* One table of the report: the whole run (name NULL, always first) or a
 * phase. */
struct bp_report_part {
    const char *name;
    int max_threads;            /* entries of each row's per_thread */
    const struct bp_wait_stats *waits; /* whole run only: nwaits entries */
    int nwaits;                 /* the pool's threads (the callers' entry first) */
    const struct bp_caller_row *callers; /* whole run only: ncallers entries, */
    int ncallers;                        /* plus the rest's when its regions > 0 */
    struct bp_profile_totals tot;
    struct bp_profile_row *rows;
    size_t nrows;
};
/* What the report says about the process and the settings. */
/* ---- taskprof.c: tasks in the profile ----------------------------------- */
/* One task function's tasks: how many ran and their own code's time (fn
 * NULL: the tasks of functions the table had no room for). */
struct bp_task_row {
    const void *fn;
    uint64_t calls;
    int64_t ns;
};
void bp_taskprof_record(const void *fn, int64_t ns);
/* The rows with tasks, most time first, in a new array (*out; NULL and -1
 * when out of memory). */
int bp_taskprof_snapshot(struct bp_task_row **out);
void bp_taskprof_clear(void);

struct bp_report_meta {
    const char *run;            /* BUDDY_THREAD_POOL_PROFILE_RUN */
    long pid;
    long rank;                  /* the MPI rank; -1: none */
    const char *host;
    int complete;               /* 0: a dump, the process runs on */
    int signal;                 /* the signal that ends the process; 0: none */
    int in_child;               /* a child of fork(): PATH.<pid> */
    int callers, step_bound;    /* BUDDY_THREAD_POOL_PROFILE_CALLERS, _STEPS */
    const struct bp_task_row *tasks; /* the explicit tasks (taskprof.c) */
    int ntasks;
};
/* The MPI rank of this process (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK,
 * SLURM_PROCID); -1 outside MPI. */
long bp_mpi_rank(void);
/* A profile's or trace's path with %p (the pid), %r (the MPI rank, 0
 * outside MPI), %h (the host name) and %% replaced, into out: 2 when it
 * named the pid (the file is then this process's alone), 1 for another
 * replacement, 0 for none. Other % sequences stay (a warning, once). */
int bp_profile_path(const char *pattern, char *out, size_t size);
/* "SIGTERM" for the ending signals (dump.c), "a signal" for others
 * (report_json.c). */
const char *bp_signal_name(int sig);
/* Write the text report (each table sorted by wall time) to `out`, and the
 * JSON profile to `json_path` (or beside it: report_json.c) when not NULL.
 * Sorts the rows in place. */
void bp_report_write(FILE *out, const char *json_path, const struct bp_report_meta *meta,
                     struct bp_report_part *parts, size_t nparts);

/* ---- names.c ------------------------------------------------------------ */

/* The file name of path (after its last '/'); "" for NULL. */
const char *bp_base_name(const char *path);
/* str as a JSON string, bytes that are not UTF-8 as U+FFFD. */
void bp_json_string(FILE *f, const char *str);
/* Name fn as symbol+0xoffset (or module+0xoffset when no symbol covers it)
 * and give its module's path, both newly allocated (NULL when out of
 * memory), and its offset from the module's base (what an offline tool
 * such as eu-addr2line resolves in the module's file). */
void bp_name_function(const void *fn, char **name, char **module, uintptr_t *offset);

/* ---- figures.c ---------------------------------------------------------- */

/* The wall-time bucket of ns, and the middle of a bucket. */
int bp_wall_bucket(int64_t ns);
int64_t bp_wall_bucket_mid(int b);
/* The report's shared figures: the wall time below which a share q of the
 * row's calls fall (-1: no distribution), thread k's figures in a row, the
 * mean fork-to-start latency of woken workers. */
int64_t bp_wall_quantile(const struct bp_profile_row *r, double q);
struct bp_thread_stats bp_thread_stats_of(const struct bp_profile_row *r, int k);
int64_t bp_wake_mean(const struct bp_profile_totals *t);

/* ---- report_json.c ------------------------------------------------------ */

/* Write the JSON profile for path (report_json.c chooses the file: path,
 * or path.<pid> beside another process's file of the same run); the path
 * written into `written` (size bytes). 0, or -errno. */
int bp_report_json(const char *path, const struct bp_report_meta *meta,
                   const struct bp_report_part *parts, size_t nparts, char *written,
                   size_t size);

#endif
