/* gomp_abi.c: the libgomp entry points (`GOMP_*`) that gcc -fopenmp calls
 * for regions and synchronisation, as a thin layer over the pool, so a
 * program built with gcc links with libbuddypool alone; gomp_loop.c has
 * the worksharing ones.
 *
 * Combined constructs (GOMP_parallel_loop_*, GOMP_parallel_sections) start
 * a team whose function calls the *_next entry point without a start call:
 * every thread of the team, a team of one too, starts the worksharing
 * construct in run_region before it calls the function. */
#include <limits.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"
#include "abi.h"
#include "../internal.h"

/* The lock word of the unnamed critical section, on a line of its own
 * (atomic.c keeps GOMP_atomic_start's apart, as libgomp does). */
static alignas(BP_LINE) _Atomic uint32_t critical_word;

/* ---- parallel regions ---------------------------------------------------- */

struct region {
    void (*fn)(void *);
    void *data;
    int has_ws;         /* a combined construct: start ws first */
    struct ws_setup ws;
};

static void run_region(int tid, void *ctx)
{
    (void)tid;
    const struct region *r = ctx;
    if (r->has_ws)
        bp_gomp_ws_begin(bp_self(), &r->ws);
    BP_HOOK_CODE_FRAME();
    r->fn(r->data);
}

/* The team size to ask the pool for; 0: the default. */
static int team_request(unsigned num_threads)
{
    if (num_threads == 0) /* the ICV's: libgomp's beside may have set it (peer.c) */
        bp_peers_check(bp_self());
    return num_threads > INT_MAX ? INT_MAX : (int)num_threads;
}

/* Fork r. The regions' flags carry their proc_bind clause in the low three
 * bits (bp_push_proc_bind before each fork). */
static void fork_region(struct region *r, unsigned num_threads)
{
    bp_fork(team_request(num_threads), run_region, r, sizeof *r, (const void *)r->fn);
}

BP_API void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                          unsigned flags)
{
    bp_push_proc_bind((int)(flags & 7));
    BP_HOOK_SITE(NULL);
    struct region r = {.fn = fn, .data = data};
    fork_region(&r, num_threads);
}

/* parallel with reduction(task, ...): the descriptor is the first word of
 * the region's data. The copies are made for the team the region will get;
 * every implicit task runs in a taskgroup whose task reductions they are,
 * so that a task of any thread finds its thread's copy
 * (GOMP_task_reduction_remap), and its end completes the tasks. The
 * compiled code folds the copies of the threads returned, then
 * unregisters them (GOMP_taskgroup_reduction_unregister). */
struct reduction_region {
    void (*fn)(void *);
    void *data;
    uintptr_t *red;
    int *team; /* thread 0 notes the team the region got */
};

static void run_reduction_region(int tid, void *ctx)
{
    const struct reduction_region *r = ctx;
    struct bp_thread *t = bp_self();
    if (tid == 0)
        *r->team = t->team_size;
    bp_gomp_reductions_begin(t, r->red);
    BP_HOOK_CODE_FRAME();
    r->fn(r->data);
    bp_taskgroup_end(t);
}

BP_API unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                         unsigned flags)
{
    bp_push_proc_bind((int)(flags & 7));
    BP_HOOK_SITE(NULL);
    struct bp_thread *t = bp_self();
    int want = bp_region_size(t, team_request(num_threads));
    int team = 1;
    struct reduction_region r = {.fn = fn, .data = data, .red = *(uintptr_t **)data,
                                 .team = &team};
    bp_gomp_parallel_reductions(r.red, want);
    /* the size resolved: the fork gets no more, and fewer only when the pool
     * cannot start the workers */
    bp_fork(want, run_reduction_region, &r, sizeof r, (const void *)fn);
    return (unsigned)team;
}

BP_API void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                   unsigned count, unsigned flags)
{
    bp_push_proc_bind((int)(flags & 7));
    BP_HOOK_SITE(NULL);
    struct region r = {.fn = fn, .data = data, .has_ws = 1};
    bp_gomp_sections_setup(count, &r.ws);
    fork_region(&r, num_threads);
}

/* A combined parallel loop. A runtime schedule is resolved by each thread
 * from the ICV the team inherits, as in the start entry points. */
static void parallel_loop(const char *who, void (*fn)(void *), void *data,
                          unsigned num_threads, long start, long end, long incr, int sched,
                          long chunk)
{
    struct region r = {.fn = fn, .data = data, .has_ws = 1};
    bp_gomp_long_space(who, start, end, incr, &r.ws);
    bp_gomp_set_schedule(&r.ws, sched, chunk > 0 ? (uint64_t)chunk : 0, 0);
    fork_region(&r, num_threads);
}

#define GOMP_PARALLEL_LOOP(name, sched)                                                   \
    BP_API void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,                 \
                                          unsigned num_threads, long start, long end,     \
                                          long incr, long chunk, unsigned flags)          \
    {                                                                                     \
        bp_push_proc_bind((int)(flags & 7));                                              \
        BP_HOOK_SITE(NULL);                                                               \
        parallel_loop("GOMP_parallel_loop_" #name, fn, data, num_threads, start, end,     \
                      incr, sched, chunk);                                                \
    }
#define GOMP_PARALLEL_LOOP_RUNTIME(name)                                                  \
    BP_API void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,                 \
                                          unsigned num_threads, long start, long end,     \
                                          long incr, unsigned flags)                      \
    {                                                                                     \
        bp_push_proc_bind((int)(flags & 7));                                              \
        BP_HOOK_SITE(NULL);                                                               \
        parallel_loop("GOMP_parallel_loop_" #name, fn, data, num_threads, start, end,     \
                      incr, SCHED_RUNTIME, 0);                                            \
    }

GOMP_PARALLEL_LOOP(static, BP_LOOP_STATIC)
GOMP_PARALLEL_LOOP(dynamic, BP_LOOP_DYNAMIC)
GOMP_PARALLEL_LOOP(guided, BP_LOOP_GUIDED)
GOMP_PARALLEL_LOOP(nonmonotonic_dynamic, BP_LOOP_DYNAMIC)
GOMP_PARALLEL_LOOP(nonmonotonic_guided, BP_LOOP_GUIDED)
GOMP_PARALLEL_LOOP_RUNTIME(runtime)
GOMP_PARALLEL_LOOP_RUNTIME(nonmonotonic_runtime)
GOMP_PARALLEL_LOOP_RUNTIME(maybe_nonmonotonic_runtime)

/* GOMP_parallel_start/GOMP_parallel_end, what gcc before 4.9 emitted: the
 * caller runs its own share, fn(data), between the two. The fork frame and
 * the region the workers read live on the heap until the end; the regions a
 * thread has open form a stack (a nested one may start inside). */
struct split_region {
    struct split_region *prev;
    struct region r;
    struct bp_fork_frame frame;
};
static _Thread_local struct split_region *split_top;

/* Begin the region r (copied) with the caller as thread 0; a combined
 * construct's worksharing starts on the caller too, as on the workers. */
static void split_begin(const char *who, const struct region *r, unsigned num_threads)
{
    /* aligned as its fork frame's implicit task needs (a line of its own
     * for the count its children's completions write) */
    struct split_region *s = NULL;
    if (posix_memalign((void **)&s, _Alignof(struct split_region), sizeof *s) != 0)
        bp_fatal("%s: out of memory", who);
    s->r = *r;
    s->prev = split_top;
    split_top = s;
    bp_fork_begin(&s->frame, team_request(num_threads), run_region, &s->r, sizeof s->r,
                  (const void *)r->fn);
    if (s->r.has_ws)
        bp_gomp_ws_begin(bp_self(), &s->r.ws);
}

BP_API void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    BP_HOOK_SITE(NULL);
    struct region r = {.fn = fn, .data = data};
    split_begin("GOMP_parallel_start", &r, num_threads);
}

/* The combined starts of gcc before 4.9: a team whose threads start the
 * loop or sections, then the caller runs fn(data) and GOMP_parallel_end. */
static void split_loop(const char *who, void (*fn)(void *), void *data, unsigned num_threads,
                       long start, long end, long incr, int sched, long chunk)
{
    struct region r = {.fn = fn, .data = data, .has_ws = 1};
    bp_gomp_long_space(who, start, end, incr, &r.ws);
    bp_gomp_set_schedule(&r.ws, sched, chunk > 0 ? (uint64_t)chunk : 0, 0);
    split_begin(who, &r, num_threads);
}

#define GOMP_PARALLEL_LOOP_START(name, sched)                                             \
    BP_API void GOMP_parallel_loop_##name##_start(void (*fn)(void *), void *data,         \
                                                  unsigned num_threads, long start,       \
                                                  long end, long incr, long chunk)        \
    {                                                                                     \
        BP_HOOK_SITE(NULL);                                                               \
        split_loop("GOMP_parallel_loop_" #name "_start", fn, data, num_threads, start,    \
                   end, incr, sched, chunk);                                              \
    }
GOMP_PARALLEL_LOOP_START(static, BP_LOOP_STATIC)
GOMP_PARALLEL_LOOP_START(dynamic, BP_LOOP_DYNAMIC)
GOMP_PARALLEL_LOOP_START(guided, BP_LOOP_GUIDED)

BP_API void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data,
                                             unsigned num_threads, long start, long end,
                                             long incr)
{
    BP_HOOK_SITE(NULL);
    split_loop("GOMP_parallel_loop_runtime_start", fn, data, num_threads, start, end, incr,
               SCHED_RUNTIME, 0);
}

BP_API void GOMP_parallel_sections_start(void (*fn)(void *), void *data,
                                         unsigned num_threads, unsigned count)
{
    BP_HOOK_SITE(NULL);
    struct region r = {.fn = fn, .data = data, .has_ws = 1};
    bp_gomp_sections_setup(count, &r.ws);
    split_begin("GOMP_parallel_sections_start", &r, num_threads);
}

BP_API void GOMP_parallel_end(void)
{
    struct split_region *s = split_top;
    if (s == NULL)
        bp_fatal("GOMP_parallel_end: no region begun by GOMP_parallel_start is open");
    bp_fork_end(&s->frame);
    split_top = s->prev;
    free(s);
}

/* ---- synchronisation ----------------------------------------------------- */

BP_API void GOMP_barrier(void)
{
    BP_HOOK_ENTER();
    bp_barrier(bp_self(), BP_SYNC_BARRIER);
    BP_HOOK_LEAVE();
}

/* The listeners hear of a single on each thread at once (begin and end):
 * gcc tells the runtime nothing at the end of the one that runs it. */
static bool single_heard(bool won)
{
    int kind = won ? BP_WORK_SINGLE : BP_WORK_SINGLE_OTHER;
    bp_hook_work(kind, 1, 1);
    bp_hook_work(kind, 0, 1);
    return won;
}

BP_API bool GOMP_single_start(void) { return single_heard(bp_single(bp_self())); }

/* single copyprivate: the winner gets NULL, runs the body and passes its
 * data to GOMP_single_copy_end; the others get that data back. gcc follows
 * both paths with GOMP_barrier, after the others have copied, so every
 * thread passes the same two barrier episodes. */
BP_API void *GOMP_single_copy_start(void)
{
    struct bp_thread *t = bp_self();
    if (single_heard(bp_single(t)))
        return NULL;
    return bp_copyprivate(t, NULL, 0);
}

BP_API void GOMP_single_copy_end(void *data) { bp_copyprivate(bp_self(), data, 1); }

BP_API void GOMP_critical_start(void)
{
    bp_abi_lock(&critical_word, BP_MUTEX_CRITICAL, &critical_word);
}

BP_API void GOMP_critical_end(void)
{
    bp_abi_unlock(&critical_word, BP_MUTEX_CRITICAL, &critical_word);
}

/* A named critical section's lock word lives in the zero-initialised,
 * pointer-sized and -aligned storage gcc emits per name. */
_Static_assert(sizeof(void *) >= sizeof(uint32_t), "a lock word fits in a pointer");

BP_API void GOMP_critical_name_start(void **pptr)
{
    bp_abi_lock((_Atomic uint32_t *)pptr, BP_MUTEX_CRITICAL, pptr);
}

BP_API void GOMP_critical_name_end(void **pptr)
{
    bp_abi_unlock((_Atomic uint32_t *)pptr, BP_MUTEX_CRITICAL, pptr);
}

/* ---- the error directive at run time (OpenMP 5.1) --------------------------
 * msg has len bytes, or ends at its NUL when len is (size_t)-1; NULL: no
 * message clause. A warning goes on; a fatal error exits with status 1,
 * as libgomp does. */
static void error_directive(const char *msg, size_t len, int fatal)
{
    int n = msg == NULL ? 0 : len == (size_t)-1 ? (int)strlen(msg) : len > INT_MAX ? INT_MAX : (int)len;
    fprintf(stderr, "buddypool: %s: error directive encountered%s%.*s\n",
            fatal ? "fatal" : "warning", n > 0 ? ": " : "", n, msg != NULL ? msg : "");
    if (fatal) {
        fflush(NULL);
        exit(EXIT_FAILURE);
    }
}

BP_API void GOMP_warning(const char *msg, size_t len) { error_directive(msg, len, 0); }

BP_API void GOMP_error(const char *msg, size_t len) { error_directive(msg, len, 1); }

/* ---- cancellation (cancel.c): each returns whether the construct was cancelled */

enum { GOMP_CANCEL_PARALLEL = 1, GOMP_CANCEL_LOOP = 2, GOMP_CANCEL_SECTIONS = 4,
       GOMP_CANCEL_TASKGROUP = 8 };

static int gomp_kind(int which)
{
    if (which & (GOMP_CANCEL_LOOP | GOMP_CANCEL_SECTIONS))
        return BP_CANCEL_WS;
    return which & GOMP_CANCEL_TASKGROUP ? BP_CANCEL_TASKGROUP : BP_CANCEL_PARALLEL;
}

/* What the listeners hear a cancel of gcc's `which` cancels (hooks.h). */
static int gomp_cancel_heard(int which)
{
    return (which & GOMP_CANCEL_PARALLEL ? BP_HOOK_CANCEL_PARALLEL : 0) |
           (which & GOMP_CANCEL_LOOP ? BP_HOOK_CANCEL_LOOP : 0) |
           (which & GOMP_CANCEL_SECTIONS ? BP_HOOK_CANCEL_SECTIONS : 0) |
           (which & GOMP_CANCEL_TASKGROUP ? BP_HOOK_CANCEL_TASKGROUP : 0);
}

static bool cancellation_point(int which)
{
    struct bp_thread *t = bp_self();
    int kind = gomp_kind(which);
    if (kind == BP_CANCEL_TASKGROUP) /* cancel parallel cancels the tasks too */
        return bp_task_cancelled(t);
    return bp_cancelled(t, kind);
}

BP_API bool GOMP_cancellation_point(int which)
{
    if (!bp_config.cancellation)
        return false;
    bool got = cancellation_point(which);
    if (got)
        bp_hook_cancel(gomp_cancel_heard(which) | BP_HOOK_CANCEL_DETECTED, NULL);
    return got;
}

BP_API bool GOMP_cancel(int which, bool do_cancel)
{
    if (!bp_config.cancellation)
        return false;
    if (!do_cancel) /* if(false): a cancellation point */
        return GOMP_cancellation_point(which);
    bp_cancel(bp_self(), gomp_kind(which));
    bp_hook_cancel(gomp_cancel_heard(which) | BP_HOOK_CANCEL_ACTIVATED, NULL);
    return true;
}

BP_API bool GOMP_barrier_cancel(void)
{
    BP_HOOK_ENTER();
    bool got = bp_barrier_cancel(bp_self(), BP_SYNC_BARRIER);
    BP_HOOK_LEAVE();
    if (got)
        bp_hook_cancel(BP_HOOK_CANCEL_PARALLEL | BP_HOOK_CANCEL_DETECTED, NULL);
    return got;
}
