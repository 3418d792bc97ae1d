/* hooks.h: the one seam between the core and whoever listens to it. The
 * core (pool, fork and join, barrier, loops, tasks, waits) says what happens
 * by calling the hooks below at fixed points; the switchboard (listen.c)
 * hands each to the listeners that are on (listeners.h: today the profiler
 * with its trace, steps, call sites and live counters, profile/listen.c),
 * which learn of it there and nowhere else. The
 * core calls no listener by any other name, includes no listener's header
 * and keeps none of a listener's state; a listener calls nothing of the
 * core's, and knows of a region or a thread only what a hook hands it.
 *
 * Cost. Each hook is inline: one test of bp_listening, set once when the
 * pool starts (before any region, never changed: read without ordering),
 * a predictable branch when nothing listens; then one call into the
 * listener. The hooks whose arguments cost something to compute (a lock's
 * name, a chunk's first value, a construct's kind from an ABI's flags) are
 * macros, so that their arguments are evaluated only when a listener is
 * on. In a build with BP_NO_PROFILER (the overhead benchmark's
 * baseline) bp_listening is the constant 0 and the hooks are empty. The
 * lifetime hooks at the bottom (the pool's start, fork(), the process's
 * end) are plain calls: they run once, and say what the listener's
 * settings were in either build.
 *
 * Where a listener keeps what it records: per thread, in thread-local
 * storage of its own; per team, in the block it hands back at
 * bp_hook_team_resize (the core keeps the pointer in the team and passes it
 * to the hooks of that team's regions); between a begin and its end, in a
 * struct bp_hook_span on the caller's stack. bp_listening changes once, at
 * the pool's start, which comes before any region, barrier or wait of the
 * pool; only a task's code can straddle it (see the task hooks). A worker writes its team block
 * before it arrives at the join, and thread 0 reads it after the join:
 * the join's release and acquire order the two, as for the team's own
 * words. Levels are nesting levels of regions (1: outermost); a hook of a
 * nested region is called too, and the listener chooses what to count. */
#ifndef BUDDYPOOL_HOOKS_H
#define BUDDYPOOL_HOOKS_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#ifdef BP_NO_PROFILER
#define bp_listening 0
#else
/* a listener is on (listen.c); hidden, as every symbol of the library but
 * its API is, said here so that each test is one load, not one through the
 * global offset table */
extern int bp_listening __attribute__((visibility("hidden")));
#endif

/* What a hook keeps between a begin and its end (tasks), on the caller's
 * stack: the listener's own, the core only passes it. */
struct bp_hook_span {
    int64_t start_ns, outer_ns; /* the profiler's */
    uint64_t tool[2];           /* the tool interface's (a region's data, its call site) */
};

/* What a synchronization is, for the listeners that name it (the OpenMP
 * tool interface's sync regions): a barrier of the program's (explicit), a
 * worksharing construct's closing one (implicit), one the runtime adds
 * (copyprivate's), a reduction's (its steps: bp_hook_reduce_step), a
 * taskwait, a taskgroup, or none (a barrier's or a join's drain of the
 * team's tasks, an undeferred task's wait for its dependences). */
enum bp_sync {
    BP_SYNC_NONE,
    BP_SYNC_BARRIER,
    BP_SYNC_BARRIER_IMPLICIT,
    BP_SYNC_BARRIER_RUNTIME,
    BP_SYNC_REDUCTION,
    BP_SYNC_TASKWAIT,
    BP_SYNC_TASKGROUP,
};

/* A reduction's steps on each thread, between its barrier_arrive and
 * barrier_release (barrier.c): a thread that does not fold has published
 * its data (ARRIVED) and then waits for the release; the thread that folds
 * has seen every thread's data (GATHERED), folds, and has folded
 * (FOLDED), just before its release. */
enum { BP_REDUCE_ARRIVED, BP_REDUCE_GATHERED, BP_REDUCE_FOLDED };

/* Locks, as the listeners name them: the kind of lock, and what happens to
 * it (ACQUIRE: the thread is about to wait for it; NEST_ACQUIRED and
 * NEST_RELEASED: a nestable lock the thread holds, taken again or let go
 * of once but still held). wait_id: the lock's address (a critical's name,
 * the ordered construct's loop, the atomic fallback's lock). */
enum bp_mutex {
    BP_MUTEX_LOCK,
    BP_MUTEX_TEST_LOCK, /* a lock taken by omp_test_lock */
    BP_MUTEX_NEST_LOCK,
    BP_MUTEX_TEST_NEST_LOCK,
    BP_MUTEX_CRITICAL,
    BP_MUTEX_ATOMIC,
    BP_MUTEX_ORDERED,
};
enum {
    BP_LOCK_INIT,
    BP_LOCK_DESTROY,
    BP_LOCK_ACQUIRE,
    BP_LOCK_ACQUIRED,
    BP_LOCK_RELEASED,
    BP_LOCK_NEST_ACQUIRED,
    BP_LOCK_NEST_RELEASED,
};

/* An explicit task, as the listeners see it made: undeferred (its maker
 * waits for it), included (run at once on its maker's stack), final,
 * untied, mergeable. The listeners keep what they record of it in its
 * word (struct bp_task's `tool`, zero when it is made). */
enum {
    BP_TASKF_UNDEFERRED = 1,
    BP_TASKF_INCLUDED = 2,
    BP_TASKF_FINAL = 4,
    BP_TASKF_UNTIED = 8,
    BP_TASKF_MERGEABLE = 16,
    BP_TASKF_TASKWAIT = 32, /* the empty task of a taskwait with dependences */
};
/* One dependence of a task: its variable and its kind (omp_all_memory's
 * address is 0), as the ABI layers read their clauses and the listeners
 * are told them. */
enum { BP_DEP_IN = 1, BP_DEP_OUT, BP_DEP_INOUT, BP_DEP_MUTEXINOUTSET, BP_DEP_INOUTSET, BP_DEP_ALL };
struct bp_dep {
    uintptr_t addr;
    int kind; /* BP_DEP_* */
};
/* How an explicit task's code stopped (bp_hook_task_end): it completed,
 * it waits for its event (detach), or another part of it comes later. */
enum { BP_TASK_END_COMPLETE, BP_TASK_END_DETACH, BP_TASK_END_PART };

/* Worksharing constructs, as the listeners name them: a loop by its
 * schedule, sections, single (the thread that runs it, and the others),
 * distribute, taskloop. A chunk handed out is a loop's or a taskloop's
 * iterations, or a section. */
enum bp_work {
    BP_WORK_LOOP_STATIC,
    BP_WORK_LOOP_DYNAMIC,
    BP_WORK_LOOP_GUIDED,
    BP_WORK_LOOP_OTHER,
    BP_WORK_SECTIONS,
    BP_WORK_SINGLE,
    BP_WORK_SINGLE_OTHER,
    BP_WORK_DISTRIBUTE,
    BP_WORK_TASKLOOP,
};
/* Cancellation, as the listeners hear of it: what is cancelled, and
 * whether the calling thread cancelled it (activated), found it cancelled
 * (detected) or discarded a task for it. */
enum {
    BP_HOOK_CANCEL_PARALLEL = 1,
    BP_HOOK_CANCEL_SECTIONS = 2,
    BP_HOOK_CANCEL_LOOP = 4,
    BP_HOOK_CANCEL_TASKGROUP = 8,
    BP_HOOK_CANCEL_ACTIVATED = 16,
    BP_HOOK_CANCEL_DETECTED = 32,
    BP_HOOK_CANCEL_DISCARDED_TASK = 64,
};

/* The listener's side of each hook (listen.c). Call the hooks, not these. */
void bp_listen_region_begin(struct bp_hook_span *s, int level, const void *fn, int requested);
void bp_listen_team_obtained(int level);
void bp_listen_device(int level);
void bp_listen_fork(void *team, struct bp_hook_span *s, int level, int team_size,
                    const void *fn);
void bp_listen_primary_begin(struct bp_hook_span *s, int level, int team_size);
void bp_listen_join_begin(int level);
void bp_listen_join_end(struct bp_hook_span *s, void *team, int level, int team_size);
void bp_listen_worker_idle(void);
void bp_listen_share_begin(void *team, int level, int tid, int help);
void bp_listen_share_end(void *team, int level, int tid, int help);
int64_t bp_listen_barrier_arrive(int level, int team_size, int kind);
void bp_listen_barrier_release(int level, int team_size, int64_t arrived_ns, int kind);
void bp_listen_reduce_step(int step);
void bp_listen_share_left(void);
void bp_listen_sync(int kind, int begin);
void bp_listen_mutex(int kind, int what, const void *wait_id);
void bp_listen_task_create(uint64_t *word, int flags, const void *fn,
                           const struct bp_dep *deps, int ndeps);
void bp_listen_task_fulfill(uint64_t *word, int late);
void bp_listen_task_inline(uint64_t *word, int begin);
void bp_listen_task_dependence(uint64_t *pred, uint64_t *succ);
void bp_listen_league(struct bp_hook_span *s, int num_teams, int begin);
void bp_listen_league_team(int team, int num_teams, int begin);
void bp_listen_work(int kind, int begin, uint64_t count);
void bp_listen_dispatch(int kind, uint64_t start, uint64_t count);
void bp_listen_masked(int begin);
void bp_listen_flush(void);
void bp_listen_cancel(int flags, uint64_t *word);
void bp_listen_iterations(uint64_t n);
void bp_listen_task_begin(struct bp_hook_span *s, uint64_t *word);
void bp_listen_task_end(struct bp_hook_span *s, const void *fn, uint64_t *word, int how);
void bp_listen_task_wait_begin(struct bp_hook_span *s, int kind);
void bp_listen_task_wait_end(struct bp_hook_span *s, int kind);
void bp_listen_wait_spun(int64_t since_ns);
int64_t bp_listen_wait_sleep(int64_t since_ns);
void bp_listen_wait_woken(int64_t slept_ns);
void bp_listen_wait_wake(void);
void bp_listen_site(const void *ra, const void *frame, const char *src);
void bp_listen_code_frame(const void *frame);
void bp_listen_enter(const void *frame);
extern _Atomic int bp_listen_sites;

/* ---- regions, on the thread that forks them (thread 0) ------------------ */

/* A region of fn at `level` begins, before its team is obtained (it asks
 * for `requested` threads, before the caps); s, in the region's frame, is
 * handed to its fork, primary_begin and join_end. */
static inline void bp_hook_region_begin(struct bp_hook_span *s, int level, const void *fn,
                                        int requested)
{
    if (bp_listening)
        bp_listen_region_begin(s, level, fn, requested);
}

/* The calling thread starts a target region's code on the host afresh at
 * level 0 (fork.c's bp_device_begin) while it is in regions `level` deep,
 * and (level negative) gives that back at its end: its regions in between
 * are nested in those for the listeners, whatever level the core gives. */
static inline void bp_hook_device(int level)
{
    if (bp_listening && level != 0)
        bp_listen_device(level);
}

/* Its team was made or grown (the pool's slow path), now. */
static inline void bp_hook_team_obtained(int level)
{
    if (bp_listening)
        bp_listen_team_obtained(level);
}

/* A team of team_size is about to start its workers on the region of fn:
 * before their start blocks are published, so that what the listener
 * writes in the team's block (team) is seen by every worker. */
static inline void bp_hook_fork(void *team, struct bp_hook_span *s, int level, int team_size,
                                const void *fn)
{
    if (bp_listening)
        bp_listen_fork(team, s, level, team_size, fn);
}

/* Thread 0 is about to run its share of the region at `level` (its own
 * level now) on a team of team_size (1: a region of one thread). */
static inline void bp_hook_primary_begin(struct bp_hook_span *s, int level, int team_size)
{
    if (bp_listening)
        bp_listen_primary_begin(s, level, team_size);
}

/* Thread 0 has finished its share and reached the join. */
static inline void bp_hook_join_begin(int level)
{
    if (bp_listening)
        bp_listen_join_begin(level);
}

/* The join is over: every thread has arrived and the region's tasks are
 * complete (team: the team's block; a region of one thread has none). */
static inline void bp_hook_join_end(struct bp_hook_span *s, void *team, int level,
                                    int team_size)
{
    if (bp_listening)
        bp_listen_join_end(s, team, level, team_size);
}

/* ---- a worker's share of a region ---------------------------------------- */

/* The worker waits for its next start. */
static inline void bp_hook_worker_idle(void)
{
    if (bp_listening)
        bp_listen_worker_idle();
}

/* It was started as thread tid of a team (help: called back by thread 0 to
 * run the region's tasks, not a region of its own), and has finished. */
static inline void bp_hook_share_begin(void *team, int level, int tid, int help)
{
    if (bp_listening)
        bp_listen_share_begin(team, level, tid, help);
}

static inline void bp_hook_share_end(void *team, int level, int tid, int help)
{
    if (bp_listening)
        bp_listen_share_end(team, level, tid, help);
}

/* Its arrival at the join is stored (after share_end, not for a help): it
 * no longer reads the team's words, nor may a listener. */
static inline void bp_hook_share_left(int help)
{
    if (bp_listening && !help)
        bp_listen_share_left();
}

/* ---- barriers and loops -------------------------------------------------- */

/* A thread arrives at a barrier episode of its team, or a reduction's
 * (kind: enum bp_sync); the value returned is handed to the release. */
static inline int64_t bp_hook_barrier_arrive(int level, int team_size, int kind)
{
    return bp_listening ? bp_listen_barrier_arrive(level, team_size, kind) : 0;
}

/* It leaves it, every thread of the team having arrived. */
static inline void bp_hook_barrier_release(int level, int team_size, int64_t arrived, int kind)
{
    if (bp_listening)
        bp_listen_barrier_release(level, team_size, arrived, kind);
}

/* A reduction's step (BP_REDUCE_*) on the calling thread. */
static inline void bp_hook_reduce_step(int step)
{
    if (bp_listening)
        bp_listen_reduce_step(step);
}

/* A synchronization that is not a barrier's nor a task wait's span begins
 * (begin 1) or ends: a taskgroup's opening, a taskwait with dependences. */
static inline void bp_hook_sync(int kind, int begin)
{
    if (bp_listening)
        bp_listen_sync(kind, begin);
}

/* A lock (enum bp_mutex) is made, destroyed, waited for, taken or let go
 * of (BP_LOCK_*) by the calling thread. */
#define bp_hook_mutex(kind, what, wait_id)                                     \
    do {                                                                       \
        if (bp_listening)                                                      \
            bp_listen_mutex((kind), (what), (wait_id));                        \
    } while (0)

/* The calling thread ran n iterations of a worksharing loop. */
static inline void bp_hook_iterations(uint64_t n)
{
    if (bp_listening)
        bp_listen_iterations(n);
}

/* ---- the host teams construct ------------------------------------------- */

/* A league of num_teams teams begins (begin 1) or ends on the encountering
 * thread, which runs its teams one after another (teams.c); s, in the
 * construct's frame, is handed to its end. */
static inline void bp_hook_league(struct bp_hook_span *s, int num_teams, int begin)
{
    if (bp_listening)
        bp_listen_league(s, num_teams, begin);
}

/* Team number team of the league begins or ends. */
static inline void bp_hook_league_team(int team, int num_teams, int begin)
{
    if (bp_listening)
        bp_listen_league_team(team, num_teams, begin);
}

/* ---- worksharing, masked, flush, cancel ------------------------------------ */

/* The calling thread begins (begin 1) or ends its part of a worksharing
 * construct (kind: enum bp_work) of count iterations (sections, ...; 0
 * where the end does not say). */
#define bp_hook_work(kind, begin, count)                                       \
    do {                                                                       \
        if (bp_listening)                                                      \
            bp_listen_work((kind), (begin), (count));                          \
    } while (0)

/* It was handed a chunk of the construct (kind: enum bp_work): count
 * iterations from the loop variable's value start, or section start. */
#define bp_hook_dispatch(kind, start, count)                                   \
    do {                                                                       \
        if (bp_listening)                                                      \
            bp_listen_dispatch((kind), (start), (count));                      \
    } while (0)

/* It begins (1) or ends a masked (master) construct that it runs. */
static inline void bp_hook_masked(int begin)
{
    if (bp_listening)
        bp_listen_masked(begin);
}

/* It ran a flush. */
static inline void bp_hook_flush(void)
{
    if (bp_listening)
        bp_listen_flush();
}

/* Cancellation (flags: BP_CANCEL_*); word: the discarded task's listeners'
 * word, or NULL. */
#define bp_hook_cancel(flags, word)                                            \
    do {                                                                       \
        if (bp_listening)                                                      \
            bp_listen_cancel((flags), (word));                                 \
    } while (0)

/* ---- tasks --------------------------------------------------------------- */

/* An explicit task is made (its data filled in, before it may run), with
 * its dependences (ndeps of them; none: NULL, 0): flags BP_TASKF_*, fn its
 * function, word its listeners' word. */
static inline void bp_hook_task_create(uint64_t *word, int flags, const void *fn,
                                       const struct bp_dep *deps, int ndeps)
{
    if (bp_listening)
        bp_listen_task_create(word, flags, fn, deps, ndeps);
}

/* An undeferred task whose maker runs its code itself (included, or
 * clang's if(0) task) begins (begin 1) and ends: a listener that follows
 * tasks hears it, the profiler does not time it. */
static inline void bp_hook_task_inline(uint64_t *word, int begin)
{
    if (bp_listening)
        bp_listen_task_inline(word, begin);
}

/* A task (succ) waits for another (pred) through their dependences, now
 * that succ is being registered (both words are their listeners'). */
static inline void bp_hook_task_dependence(uint64_t *pred, uint64_t *succ)
{
    if (bp_listening)
        bp_listen_task_dependence(pred, succ);
}

/* An explicit task's code runs between these (fn: the task's function;
 * how: BP_TASK_END_*). The pool may start, and a listener with it, inside
 * a task's code (its first region forked there): an end is heard only
 * when its begin was (start_ns, the listener's clock reading, is never
 * negative). */
static inline void bp_hook_task_begin(struct bp_hook_span *s, uint64_t *word)
{
    s->start_ns = -1;
    if (bp_listening)
        bp_listen_task_begin(s, word);
}

static inline void bp_hook_task_end(struct bp_hook_span *s, const void *fn, uint64_t *word,
                                    int how)
{
    if (bp_listening && s->start_ns >= 0)
        bp_listen_task_end(s, fn, word, how);
}

/* A detached task's event is fulfilled: late, after its code ended (it
 * completes now), or early, while its code still runs. */
static inline void bp_hook_task_fulfill(uint64_t *word, int late)
{
    if (bp_listening)
        bp_listen_task_fulfill(word, late);
}

/* A task waits (kind: taskwait, taskgroup, or none: a barrier's or a
 * join's drain, an undeferred task's wait for its dependences) between
 * these, running other tasks meanwhile; the same pairing. */
static inline void bp_hook_task_wait_begin(struct bp_hook_span *s, int kind)
{
    s->start_ns = -1;
    if (bp_listening)
        bp_listen_task_wait_begin(s, kind);
}

static inline void bp_hook_task_wait_end(struct bp_hook_span *s, int kind)
{
    if (bp_listening && s->start_ns >= 0)
        bp_listen_task_wait_end(s, kind);
}

/* ---- waits --------------------------------------------------------------- */

/* A wait saw its word after spinning since since_ns (-1: it did not read
 * the clock: a short wait, nothing to count). */
static inline void bp_hook_wait_spun(int64_t since_ns)
{
    if (bp_listening && since_ns >= 0)
        bp_listen_wait_spun(since_ns);
}

/* A wait that spun since since_ns goes to sleep; what it returns is handed
 * to bp_hook_wait_woken when the thread wakes. */
static inline int64_t bp_hook_wait_sleep(int64_t since_ns)
{
    return bp_listening ? bp_listen_wait_sleep(since_ns) : 0;
}

static inline void bp_hook_wait_woken(int64_t slept_ns)
{
    if (bp_listening)
        bp_listen_wait_woken(slept_ns);
}

/* A setter woke sleeping waiters (a system call). */
static inline void bp_hook_wait_wake(void)
{
    if (bp_listening)
        bp_listen_wait_wake();
}

/* ---- call sites ---------------------------------------------------------- */

/* Note the call site of the region the calling ABI entry is about to fork:
 * the entry's return address and its caller's frame (its end: the
 * program's frame that called into the runtime, which the runtime returns
 * to), and
 * clang's source location string (NULL for none). A macro, so that the address is the entry's own. Noted while a
 * listener wants sites, and before the pool has started (the first
 * region's entry runs before the configuration is read). */
/* Where the calling function's caller's frame ends: the calling
 * function's canonical frame address (the caller's stack pointer at the
 * call), which needs no frame pointer in the caller (the program's code
 * keeps none at -O2). */
#define bp_caller_frame() __builtin_dwarf_cfa()

#ifdef BP_NO_PROFILER
#define BP_HOOK_SITE(src) ((void)(src))
#else
#define BP_HOOK_SITE(src)                                                       \
    do {                                                                        \
        /* relaxed: a hint, set once when the pool starts */                    \
        if (atomic_load_explicit(&bp_listen_sites, memory_order_relaxed))       \
            bp_listen_site(__builtin_return_address(0), bp_caller_frame(), (src)); \
    } while (0)
#endif

/* The calling thread's task is about to run its code (a region's share,
 * an explicit task's body) from the calling ABI function: that function's
 * frame is where the runtime's frames end and the program's begin (the
 * task's exit frame, for a tool). A macro, so that the frame is the
 * caller's. */
#ifdef BP_NO_PROFILER
#define BP_HOOK_CODE_FRAME() ((void)0)
#else
#define BP_HOOK_CODE_FRAME()                                                    \
    do {                                                                        \
        if (bp_listening)                                                       \
            bp_listen_code_frame(__builtin_frame_address(0));                   \
    } while (0)
#endif

/* The program's code calls into the runtime through the calling ABI entry,
 * which may wait there or make tasks: the calling task's enter frame (for a
 * tool) is where the program's frame ends (the entry's canonical frame
 * address) until BP_HOOK_LEAVE, as the entry returns. Macros, so that the
 * frame is the entry's. */
#ifdef BP_NO_PROFILER
#define BP_HOOK_ENTER() ((void)0)
#define BP_HOOK_LEAVE() ((void)0)
#else
#define BP_HOOK_ENTER()                                                         \
    do {                                                                        \
        if (bp_listening)                                                       \
            bp_listen_enter(bp_caller_frame());                                 \
    } while (0)
#define BP_HOOK_LEAVE()                                                         \
    do {                                                                        \
        if (bp_listening)                                                       \
            bp_listen_enter(NULL);                                              \
    } while (0)
#endif

/* ---- the process: plain calls, once each --------------------------------- */

/* The pool starts (the configuration read, before any region): the
 * listeners set up from it, max_threads the most threads the pool has.
 * Then, once the runtime is started (outside its start-up, so that a
 * tool may call the runtime), bp_hook_start_tool: an OpenMP tool is
 * looked for and started, still before any region. */
void bp_hook_start(int max_threads);
void bp_hook_start_tool(int max_threads);
/* A pool worker (number worker >= 1) starts, and ends. */
void bp_hook_thread_begin(int worker);
void bp_hook_thread_end(void);
/* A team's block for cap threads (*block: the old one, NULL for a new
 * team; kept when this fails): 1, or 0 when out of memory. Freed with the
 * team. Nothing listens: *block stays NULL. */
int bp_hook_team_resize(void **block, int cap);
void bp_hook_team_free(void *block);
/* fork(): around it (in_region: the forking thread is inside a region), and
 * in the child, which has only the forking thread. */
void bp_hook_atfork_prepare(int in_region);
void bp_hook_atfork_parent(void);
void bp_hook_atfork_child(void);
/* The pool shuts down (its destructor). In order: exit_busy says whether
 * the calling thread is inside a listener's own work (exit() from it: then
 * nothing more is done); exit_in_region, called instead of what follows
 * when exit() was called from a region's code, whose threads go on;
 * exit_begin; exit_abandon when a region still runs at the deadline (the
 * listener says what it cannot report), or exit_lock, which waits until
 * the deadline for a listener's work on another thread (0: it did not end,
 * and it is abandoned as well); then, once no worker runs, exit_report. */
int bp_hook_exit_busy(void);
void bp_hook_exit_in_region(void);
void bp_hook_exit_begin(void);
void bp_hook_exit_abandon(void);
struct timespec;
int bp_hook_exit_lock(const struct timespec *deadline);
void bp_hook_exit_report(void);
/* The profile's calls of include/buddypool.h, which life.c takes (it is
 * always linked in, so that a program linked with the static library that
 * names them weakly finds them): the listener's side, called outside any
 * region with the runtime started; 0 or a negative errno. */
enum { BP_PHASE_NAME = 64 }; /* a phase's name, its final 0 included */
int bp_hook_profile_phase(const char *name);
int bp_hook_profile_reset(void);
int bp_hook_profile_write(FILE *out);
/* omp_control_tool: the tool's answer, or omp_control_tool_notool (-2)
 * when none is started, _nocallback (-1) when it set no callback. */
int bp_hook_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *ra);

#endif
