/* gomp_abi.c: the libgomp entry points (`GOMP_*`) that gcc -fopenmp calls,
 * as a thin layer over the pool and loop.c's worksharing engine, so a
 * program built with gcc links with libbuddypool alone.
 *
 * Loops. gcc hands a loop over as start, end (exclusive) and incr, signed
 * long or unsigned long long (with `up` saying which way it counts), and
 * asks for chunks as [*istart, *iend). The engine counts iteration indices
 * 0..last: index k is start + k * incr in the loop type's wrapping
 * arithmetic, exact since every such value lies between start and end.
 * last = (|end - start| - 1) / |incr| is computed in the type's unsigned
 * width, where |end - start| of a non-empty loop is between 1 and 2^64 - 1
 * and nothing overflows. A chunk of indices f..e gets *istart = the value of
 * index f and *iend = the value of index e + 1: for e = last that is the
 * value the loop variable takes after its last iteration, which a loop that
 * terminates in C does not take past the type's range (libgomp gives end
 * there; gcc's code, which stops at `< *iend` or `> *iend`, runs the same).
 * start and incr stay in the engine's base and step of the thread's loop,
 * which a region forked inside the loop saves and restores.
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
#include <stdlib.h>

#include "internal.h"

typedef unsigned long long gomp_ull;

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
enum { SCHED_RUNTIME = 0 };

/* Everything one thread needs to start a worksharing loop or sections. */
struct ws_setup {
    int empty;       /* no iteration */
    uint64_t last;   /* indices 0..last */
    int sched;       /* BP_LOOP_*, or SCHED_RUNTIME */
    uint64_t chunk;  /* 0: the schedule's default */
    int ordered;
    uint64_t base, step; /* start and incr in the bits of the loop's type */
};

/* The lock words of the unnamed critical section and of GOMP_atomic_start
 * (libgomp keeps the two apart too), each on lines of its own. */
static alignas(BP_LINE) _Atomic uint32_t critical_word;
static alignas(BP_LINE) _Atomic uint32_t atomic_word;

/* ---- iteration spaces ---------------------------------------------------- */

/* Fill s with the indices of a signed long loop; aborts on incr == 0. */
static void long_space(const char *who, long start, long end, long incr, struct ws_setup *s)
{
    if (incr == 0)
        bp_fatal("%s: loop increment is 0", who);
    s->base = (uint64_t)start;
    s->step = (uint64_t)incr;
    s->last = 0;
    s->empty = incr > 0 ? start >= end : start <= end;
    if (s->empty)
        return;
    unsigned long span = incr > 0 ? (unsigned long)end - (unsigned long)start
                                  : (unsigned long)start - (unsigned long)end;
    unsigned long step = incr > 0 ? (unsigned long)incr : 0ul - (unsigned long)incr;
    s->last = (span - 1) / step;
}

/* The same for an unsigned long long loop; !up: incr is the negated step. */
static void ull_space(const char *who, bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                      struct ws_setup *s)
{
    if (incr == 0)
        bp_fatal("%s: loop increment is 0", who);
    s->base = start;
    s->step = incr;
    s->last = 0;
    s->empty = up ? start >= end : start <= end;
    if (s->empty)
        return;
    gomp_ull span = up ? end - start : start - end;
    gomp_ull step = up ? incr : 0ull - incr;
    s->last = (uint64_t)((span - 1) / step);
}

/* The engine's schedule for a named family (BP_LOOP_* or SCHED_RUNTIME). */
static void set_schedule(struct ws_setup *s, int sched, uint64_t chunk, int ordered)
{
    s->sched = sched;
    s->chunk = chunk;
    s->ordered = ordered;
}

/* GOMP_loop_start's sched argument (GFS_*, maybe with GFS_MONOTONIC). */
static void set_gfs_schedule(const char *who, struct ws_setup *s, long sched, uint64_t chunk,
                             int ordered)
{
    switch ((unsigned long)sched & ~GFS_MONOTONIC) {
    case GFS_STATIC:
        set_schedule(s, BP_LOOP_STATIC, chunk, ordered);
        break;
    case GFS_DYNAMIC:
        set_schedule(s, BP_LOOP_DYNAMIC, chunk, ordered);
        break;
    case GFS_GUIDED:
        set_schedule(s, BP_LOOP_GUIDED, chunk, ordered);
        break;
    case GFS_RUNTIME:
    case GFS_AUTO:
        set_schedule(s, SCHED_RUNTIME, 0, ordered);
        break;
    default:
        bp_fatal("%s: unsupported schedule %ld (static 1, dynamic 2, guided 3, runtime 0 "
                 "or 4)", who, sched);
    }
}

/* Task reductions need tasks, which are not supported. */
static void refuse_extras(const char *who, uintptr_t *reductions)
{
    if (reductions != NULL)
        bp_fatal("%s: task reductions are not supported", who);
}

/* ---- worksharing --------------------------------------------------------- */

/* Start t's part of the construct s describes. Every thread of the team
 * resolves a runtime schedule alike: the team inherits thread 0's ICV. mem
 * (gcc's generic starts) holds the size of the team-shared memory the
 * construct wants (a scan reduction's partial values), and gets the memory,
 * zeroed and the same for every thread. */
static void ws_begin_mem(struct bp_thread *t, const struct ws_setup *s, void **mem)
{
    int sched = s->sched;
    uint64_t chunk = s->chunk;
    if (sched == SCHED_RUNTIME)
        bp_runtime_schedule(t, &sched, &chunk);
    size_t size = mem != NULL ? (size_t)(uintptr_t)*mem : 0;
    void *shared = bp_loop_start_mem(t, s->empty, s->last, sched, chunk, s->ordered, size);
    if (mem != NULL)
        *mem = shared;
    t->loop.base = s->base;
    t->loop.step = s->step;
}

/* The same without team-shared memory. */
static void ws_begin(struct bp_thread *t, const struct ws_setup *s)
{
    ws_begin_mem(t, s, NULL);
}

/* Leave t's loop or sections if the compiled code has not run them to their
 * end (GOMP_loop_start without istart hands out no chunk): giving up its
 * remaining chunks makes the engine's next call find none and leave. */
static void ws_close(struct bp_thread *t)
{
    if (t->loop.open) {
        uint64_t first, last_idx;
        t->loop.done = 1;
        bp_loop_next(t, &first, &last_idx, NULL);
    }
}

static bool long_next(struct bp_thread *t, long *istart, long *iend)
{
    uint64_t first, last_idx;
    if (!bp_loop_next(t, &first, &last_idx, NULL))
        return false;
    unsigned long base = (unsigned long)t->loop.base, step = (unsigned long)t->loop.step;
    *istart = (long)(base + (unsigned long)first * step);
    *iend = (long)(base + (unsigned long)(last_idx + 1) * step);
    return true;
}

static bool ull_next(struct bp_thread *t, gomp_ull *istart, gomp_ull *iend)
{
    uint64_t first, last_idx;
    if (!bp_loop_next(t, &first, &last_idx, NULL))
        return false;
    gomp_ull base = t->loop.base, step = t->loop.step;
    *istart = base + (gomp_ull)first * step;
    *iend = base + (gomp_ull)(last_idx + 1) * step;
    return true;
}

static bool long_start(const char *who, long start, long end, long incr, int sched,
                       long chunk, int ordered, long *istart, long *iend)
{
    struct bp_thread *t = bp_self();
    struct ws_setup s;
    long_space(who, start, end, incr, &s);
    set_schedule(&s, sched, chunk > 0 ? (uint64_t)chunk : 0, ordered);
    ws_begin(t, &s);
    return long_next(t, istart, iend);
}

static bool ull_start(const char *who, bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                      int sched, gomp_ull chunk, int ordered, gomp_ull *istart,
                      gomp_ull *iend)
{
    struct bp_thread *t = bp_self();
    struct ws_setup s;
    ull_space(who, up, start, end, incr, &s);
    set_schedule(&s, sched, (uint64_t)chunk, ordered);
    ws_begin(t, &s);
    return ull_next(t, istart, iend);
}

/* The next entry points of a family (both widths). */
#define GOMP_LOOP_NEXT(name)                                                             \
    BP_API bool GOMP_loop_##name##_next(long *istart, long *iend)                         \
    {                                                                                     \
        return long_next(bp_self(), istart, iend);                                        \
    }                                                                                     \
    BP_API bool GOMP_loop_ull_##name##_next(gomp_ull *istart, gomp_ull *iend)             \
    {                                                                                     \
        return ull_next(bp_self(), istart, iend);                                         \
    }

/* One loop family: GOMP_loop_<name>_start/_next and GOMP_loop_ull_<name>_*.
 * The next entry points of all families are alike: the engine knows the
 * schedule of the loop the thread is in. */
#define GOMP_LOOP_FAMILY(name, sched, ordered)                                           \
    BP_API bool GOMP_loop_##name##_start(long start, long end, long incr, long chunk,     \
                                         long *istart, long *iend)                        \
    {                                                                                     \
        return long_start("GOMP_loop_" #name "_start", start, end, incr, sched, chunk,    \
                          ordered, istart, iend);                                         \
    }                                                                                     \
    BP_API bool GOMP_loop_ull_##name##_start(bool up, gomp_ull start, gomp_ull end,       \
                                             gomp_ull incr, gomp_ull chunk,               \
                                             gomp_ull *istart, gomp_ull *iend)            \
    {                                                                                     \
        return ull_start("GOMP_loop_ull_" #name "_start", up, start, end, incr, sched,    \
                         chunk, ordered, istart, iend);                                   \
    }                                                                                     \
    GOMP_LOOP_NEXT(name)

/* The runtime families take no chunk. */
#define GOMP_LOOP_RUNTIME_FAMILY(name, ordered)                                          \
    BP_API bool GOMP_loop_##name##_start(long start, long end, long incr, long *istart,   \
                                         long *iend)                                      \
    {                                                                                     \
        return long_start("GOMP_loop_" #name "_start", start, end, incr, SCHED_RUNTIME,   \
                          0, ordered, istart, iend);                                      \
    }                                                                                     \
    BP_API bool GOMP_loop_ull_##name##_start(bool up, gomp_ull start, gomp_ull end,       \
                                             gomp_ull incr, gomp_ull *istart,             \
                                             gomp_ull *iend)                              \
    {                                                                                     \
        return ull_start("GOMP_loop_ull_" #name "_start", up, start, end, incr,           \
                         SCHED_RUNTIME, 0, ordered, istart, iend);                        \
    }                                                                                     \
    GOMP_LOOP_NEXT(name)

/* gcc's schedule(dynamic) and (guided) without modifier are nonmonotonic;
 * monotonic: ones call the plain names. The engine's chunks serve both. */
GOMP_LOOP_FAMILY(static, BP_LOOP_STATIC, 0)
GOMP_LOOP_FAMILY(dynamic, BP_LOOP_DYNAMIC, 0)
GOMP_LOOP_FAMILY(guided, BP_LOOP_GUIDED, 0)
GOMP_LOOP_FAMILY(nonmonotonic_dynamic, BP_LOOP_DYNAMIC, 0)
GOMP_LOOP_FAMILY(nonmonotonic_guided, BP_LOOP_GUIDED, 0)
GOMP_LOOP_RUNTIME_FAMILY(runtime, 0)
GOMP_LOOP_RUNTIME_FAMILY(nonmonotonic_runtime, 0)
GOMP_LOOP_RUNTIME_FAMILY(maybe_nonmonotonic_runtime, 0)
GOMP_LOOP_FAMILY(ordered_static, BP_LOOP_STATIC, 1)
GOMP_LOOP_FAMILY(ordered_dynamic, BP_LOOP_DYNAMIC, 1)
GOMP_LOOP_FAMILY(ordered_guided, BP_LOOP_GUIDED, 1)
GOMP_LOOP_RUNTIME_FAMILY(ordered_runtime, 1)

/* The generic starts gcc calls for loops with task reductions, conditional
 * lastprivate or scan reductions: only the plain loop is supported. Without
 * istart the compiled code divides the iterations itself and wants no
 * chunk. */
static bool long_generic_start(const char *who, long start, long end, long incr, long sched,
                               long chunk, int ordered, long *istart, long *iend,
                               uintptr_t *reductions, void **mem)
{
    refuse_extras(who, reductions);
    struct bp_thread *t = bp_self();
    struct ws_setup s;
    long_space(who, start, end, incr, &s);
    set_gfs_schedule(who, &s, sched, chunk > 0 ? (uint64_t)chunk : 0, ordered);
    ws_begin_mem(t, &s, mem);
    return istart == NULL ? true : long_next(t, istart, iend);
}

static bool ull_generic_start(const char *who, bool up, gomp_ull start, gomp_ull end,
                              gomp_ull incr, long sched, gomp_ull chunk, int ordered,
                              gomp_ull *istart, gomp_ull *iend, uintptr_t *reductions,
                              void **mem)
{
    refuse_extras(who, reductions);
    struct bp_thread *t = bp_self();
    struct ws_setup s;
    ull_space(who, up, start, end, incr, &s);
    set_gfs_schedule(who, &s, sched, (uint64_t)chunk, ordered);
    ws_begin_mem(t, &s, mem);
    return istart == NULL ? true : ull_next(t, istart, iend);
}

BP_API bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
                            long *istart, long *iend, uintptr_t *reductions, void **mem)
{
    return long_generic_start("GOMP_loop_start", start, end, incr, sched, chunk, 0, istart,
                              iend, reductions, mem);
}

BP_API bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                    long *istart, long *iend, uintptr_t *reductions,
                                    void **mem)
{
    return long_generic_start("GOMP_loop_ordered_start", start, end, incr, sched, chunk, 1,
                              istart, iend, reductions, mem);
}

BP_API bool GOMP_loop_ull_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                                long sched, gomp_ull chunk, gomp_ull *istart, gomp_ull *iend,
                                uintptr_t *reductions, void **mem)
{
    return ull_generic_start("GOMP_loop_ull_start", up, start, end, incr, sched, chunk, 0,
                             istart, iend, reductions, mem);
}

BP_API bool GOMP_loop_ull_ordered_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                                        long sched, gomp_ull chunk, gomp_ull *istart,
                                        gomp_ull *iend, uintptr_t *reductions, void **mem)
{
    return ull_generic_start("GOMP_loop_ull_ordered_start", up, start, end, incr, sched,
                             chunk, 1, istart, iend, reductions, mem);
}

BP_API void GOMP_loop_end(void)
{
    struct bp_thread *t = bp_self();
    ws_close(t);
    bp_barrier(t);
}

BP_API void GOMP_loop_end_nowait(void) { ws_close(bp_self()); }

/* libgomp orders chunks (see loop.c): an ordered region waits for the turn
 * of its chunk, which passes on when the thread asks for its next chunk, so
 * the end of a region has nothing to do. */
BP_API void GOMP_ordered_start(void) { bp_ordered_begin(bp_self()); }

BP_API void GOMP_ordered_end(void) {}

/* Sections are a dynamic loop over the section indices, one per chunk;
 * the compiled code numbers sections from 1 and takes 0 for "none left". */
static void sections_setup(unsigned count, struct ws_setup *s)
{
    *s = (struct ws_setup){.empty = count == 0, .last = count == 0 ? 0 : count - 1u,
                           .sched = BP_LOOP_DYNAMIC, .chunk = 1, .base = 0, .step = 1};
}

BP_API unsigned GOMP_sections_next(void)
{
    uint64_t first, last_idx;
    if (!bp_loop_next(bp_self(), &first, &last_idx, NULL))
        return 0;
    return (unsigned)first + 1u;
}

BP_API unsigned GOMP_sections_start(unsigned count)
{
    struct ws_setup s;
    sections_setup(count, &s);
    ws_begin(bp_self(), &s);
    return GOMP_sections_next();
}

BP_API unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    refuse_extras("GOMP_sections2_start", reductions);
    struct ws_setup s;
    sections_setup(count, &s);
    ws_begin_mem(bp_self(), &s, mem);
    return GOMP_sections_next();
}

BP_API void GOMP_sections_end(void)
{
    struct bp_thread *t = bp_self();
    ws_close(t);
    bp_barrier(t);
}

BP_API void GOMP_sections_end_nowait(void) { ws_close(bp_self()); }

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
        ws_begin(bp_self(), &r->ws);
    r->fn(r->data);
}

/* The team size to ask the pool for; 0: the default. */
static int team_request(unsigned num_threads)
{
    return num_threads > INT_MAX ? INT_MAX : (int)num_threads;
}

/* Fork r. flags carry proc_bind, which does not move the pool's pinned
 * threads. */
static void fork_region(struct region *r, unsigned num_threads)
{
    bp_fork(team_request(num_threads), run_region, r, sizeof *r, (const void *)r->fn);
}

BP_API void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                          unsigned flags)
{
    (void)flags;
    struct region r = {.fn = fn, .data = data};
    fork_region(&r, num_threads);
}

BP_API void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                   unsigned count, unsigned flags)
{
    (void)flags;
    struct region r = {.fn = fn, .data = data, .has_ws = 1};
    sections_setup(count, &r.ws);
    fork_region(&r, num_threads);
}

/* A combined parallel loop. A runtime schedule is resolved by each thread
 * from the ICV the team inherits, as in the start entry points. */
static void parallel_loop(const char *who, void (*fn)(void *), void *data,
                          unsigned num_threads, long start, long end, long incr, int sched,
                          long chunk)
{
    struct region r = {.fn = fn, .data = data, .has_ws = 1};
    long_space(who, start, end, incr, &r.ws);
    set_schedule(&r.ws, sched, chunk > 0 ? (uint64_t)chunk : 0, 0);
    fork_region(&r, num_threads);
}

#define GOMP_PARALLEL_LOOP(name, sched)                                                   \
    BP_API void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,                 \
                                          unsigned num_threads, long start, long end,     \
                                          long incr, long chunk, unsigned flags)          \
    {                                                                                     \
        (void)flags;                                                                      \
        parallel_loop("GOMP_parallel_loop_" #name, fn, data, num_threads, start, end,     \
                      incr, sched, chunk);                                                \
    }
#define GOMP_PARALLEL_LOOP_RUNTIME(name)                                                  \
    BP_API void GOMP_parallel_loop_##name(void (*fn)(void *), void *data,                 \
                                          unsigned num_threads, long start, long end,     \
                                          long incr, unsigned flags)                      \
    {                                                                                     \
        (void)flags;                                                                      \
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
    struct split_region *s = malloc(sizeof *s);
    if (s == NULL)
        bp_fatal("%s: out of memory", who);
    s->r = *r;
    s->prev = split_top;
    split_top = s;
    bp_fork_begin(&s->frame, team_request(num_threads), run_region, &s->r, sizeof s->r,
                  (const void *)r->fn);
    if (s->r.has_ws)
        ws_begin(bp_self(), &s->r.ws);
}

BP_API void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    struct region r = {.fn = fn, .data = data};
    split_begin("GOMP_parallel_start", &r, num_threads);
}

/* The combined starts of gcc before 4.9: a team whose threads start the
 * loop or sections, then the caller runs fn(data) and GOMP_parallel_end. */
static void split_loop(const char *who, void (*fn)(void *), void *data, unsigned num_threads,
                       long start, long end, long incr, int sched, long chunk)
{
    struct region r = {.fn = fn, .data = data, .has_ws = 1};
    long_space(who, start, end, incr, &r.ws);
    set_schedule(&r.ws, sched, chunk > 0 ? (uint64_t)chunk : 0, 0);
    split_begin(who, &r, num_threads);
}

#define GOMP_PARALLEL_LOOP_START(name, sched)                                             \
    BP_API void GOMP_parallel_loop_##name##_start(void (*fn)(void *), void *data,         \
                                                  unsigned num_threads, long start,       \
                                                  long end, long incr, long chunk)        \
    {                                                                                     \
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
    split_loop("GOMP_parallel_loop_runtime_start", fn, data, num_threads, start, end, incr,
               SCHED_RUNTIME, 0);
}

BP_API void GOMP_parallel_sections_start(void (*fn)(void *), void *data,
                                         unsigned num_threads, unsigned count)
{
    struct region r = {.fn = fn, .data = data, .has_ws = 1};
    sections_setup(count, &r.ws);
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

BP_API void GOMP_barrier(void) { bp_barrier(bp_self()); }

BP_API bool GOMP_single_start(void) { return bp_single(bp_self()); }

/* single copyprivate: the winner gets NULL, runs the body and passes its
 * data to GOMP_single_copy_end; the others get that data back. gcc follows
 * both paths with GOMP_barrier, after the others have copied, so every
 * thread passes the same two barrier episodes. */
BP_API void *GOMP_single_copy_start(void)
{
    struct bp_thread *t = bp_self();
    if (bp_single(t))
        return NULL;
    return bp_copyprivate(t, NULL, 0);
}

BP_API void GOMP_single_copy_end(void *data) { bp_copyprivate(bp_self(), data, 1); }

BP_API void GOMP_critical_start(void) { bp_lock(&critical_word); }

BP_API void GOMP_critical_end(void) { bp_unlock(&critical_word); }

/* A named critical section's lock word lives in the zero-initialised,
 * pointer-sized and -aligned storage gcc emits per name. */
_Static_assert(sizeof(void *) >= sizeof(uint32_t), "a lock word fits in a pointer");

BP_API void GOMP_critical_name_start(void **pptr) { bp_lock((_Atomic uint32_t *)pptr); }

BP_API void GOMP_critical_name_end(void **pptr) { bp_unlock((_Atomic uint32_t *)pptr); }

/* Atomic updates of types without a hardware atomic (long double, ...), and
 * gcc's combination of several reduction variables. */
BP_API void GOMP_atomic_start(void) { bp_lock(&atomic_word); }

BP_API void GOMP_atomic_end(void) { bp_unlock(&atomic_word); }

/* ---- unsupported: doacross loops (ordered(n) with depend) ----------------
 * Defined only to stop with a clear message: left undefined, a program
 * preloaded beside libgomp would start the loop in libgomp and take its
 * chunks here, and silently skip iterations. */
#define BP_GOMP_DOACROSS_START(name, T)                                              \
    BP_API bool name(unsigned ncounts, T *counts, T chunk, T *istart, T *iend)       \
    {                                                                                \
        (void)ncounts, (void)counts, (void)chunk, (void)istart, (void)iend;          \
        bp_fatal(#name ": doacross loops (ordered(n) with depend) are not supported"); \
    }
BP_GOMP_DOACROSS_START(GOMP_loop_doacross_static_start, long)
BP_GOMP_DOACROSS_START(GOMP_loop_doacross_dynamic_start, long)
BP_GOMP_DOACROSS_START(GOMP_loop_doacross_guided_start, long)
BP_GOMP_DOACROSS_START(GOMP_loop_ull_doacross_static_start, unsigned long long)
BP_GOMP_DOACROSS_START(GOMP_loop_ull_doacross_dynamic_start, unsigned long long)
BP_GOMP_DOACROSS_START(GOMP_loop_ull_doacross_guided_start, unsigned long long)

/* Called after a loop with a task reduction, which GOMP_loop_start refuses:
 * defined so that such a program links and stops there with its message. */
BP_API void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    (void)cancelled;
    bp_fatal("GOMP_workshare_task_reduction_unregister: task reductions are not supported");
}

/* gcc 9 and later call these generic starts for doacross loops with task
 * reductions. */
BP_API bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
                                     long *istart, long *iend, uintptr_t *reductions,
                                     void **mem)
{
    (void)ncounts, (void)counts, (void)sched, (void)chunk, (void)istart, (void)iend;
    (void)reductions, (void)mem;
    bp_fatal("GOMP_loop_doacross_start: doacross loops (ordered(n) with depend) are not "
             "supported");
}

BP_API bool GOMP_loop_ull_doacross_start(unsigned ncounts, unsigned long long *counts,
                                         long sched, unsigned long long chunk,
                                         unsigned long long *istart, unsigned long long *iend,
                                         uintptr_t *reductions, void **mem)
{
    (void)ncounts, (void)counts, (void)sched, (void)chunk, (void)istart, (void)iend;
    (void)reductions, (void)mem;
    bp_fatal("GOMP_loop_ull_doacross_start: doacross loops (ordered(n) with depend) are not "
             "supported");
}

BP_API bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart,
                                             long *iend)
{
    (void)ncounts, (void)counts, (void)istart, (void)iend;
    bp_fatal("GOMP_loop_doacross_runtime_start: doacross loops (ordered(n) with depend) "
             "are not supported");
}

BP_API bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, unsigned long long *counts,
                                                 unsigned long long *istart,
                                                 unsigned long long *iend)
{
    (void)ncounts, (void)counts, (void)istart, (void)iend;
    bp_fatal("GOMP_loop_ull_doacross_runtime_start: doacross loops (ordered(n) with depend) "
             "are not supported");
}

BP_API void GOMP_doacross_post(long *counts)
{
    (void)counts;
    bp_fatal("GOMP_doacross_post: doacross loops (ordered(n) with depend) are not supported");
}

BP_API void GOMP_doacross_wait(long first, ...)
{
    (void)first;
    bp_fatal("GOMP_doacross_wait: doacross loops (ordered(n) with depend) are not supported");
}

BP_API void GOMP_doacross_ull_post(unsigned long long *counts)
{
    (void)counts;
    bp_fatal("GOMP_doacross_ull_post: doacross loops (ordered(n) with depend) are not "
             "supported");
}

BP_API void GOMP_doacross_ull_wait(unsigned long long first, ...)
{
    (void)first;
    bp_fatal("GOMP_doacross_ull_wait: doacross loops (ordered(n) with depend) are not "
             "supported");
}
