/* gomp_loop.c: the libgomp worksharing entry points (`GOMP_loop_*`,
 * `GOMP_ordered_*`, `GOMP_sections_*`, the doacross loops) over loop.c's
 * engine; gomp_abi.c has the regions and synchronisation.
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
 * which a region forked inside the loop saves and restores. */
#include <limits.h>
#include <stdarg.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "gomp.h"
#include "abi.h"
#include "../internal.h"

/* ---- iteration spaces ---------------------------------------------------- */

/* Fill s with the indices of a signed long loop; aborts on incr == 0. */
void bp_gomp_long_space(const char *who, long start, long end, long incr, struct ws_setup *s)
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
void bp_gomp_set_schedule(struct ws_setup *s, int sched, uint64_t chunk, int ordered)
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
        bp_gomp_set_schedule(s, BP_LOOP_STATIC, chunk, ordered);
        break;
    case GFS_DYNAMIC:
        bp_gomp_set_schedule(s, BP_LOOP_DYNAMIC, chunk, ordered);
        break;
    case GFS_GUIDED:
        bp_gomp_set_schedule(s, BP_LOOP_GUIDED, chunk, ordered);
        break;
    case GFS_RUNTIME:
    case GFS_AUTO:
        bp_gomp_set_schedule(s, SCHED_RUNTIME, 0, ordered);
        break;
    default:
        bp_fatal("%s: unsupported schedule %ld (static 1, dynamic 2, guided 3, runtime 0 "
                 "or 4)", who, sched);
    }
}

/* A construct's task reductions (reduction(task, ...)): gomp_task.c. */
static void task_reductions(uintptr_t *reductions)
{
    if (reductions != NULL)
        bp_gomp_workshare_reductions(bp_self(), reductions);
}

/* ---- worksharing --------------------------------------------------------- */

/* Start t's part of the construct s describes. Every thread of the team
 * resolves a runtime schedule alike: the team inherits thread 0's ICV. mem
 * (gcc's generic starts) holds the size of the team-shared memory the
 * construct wants (a scan reduction's partial values), and gets the memory,
 * zeroed and the same for every thread. */
static void ws_begin_mem(struct bp_thread *t, const struct ws_setup *s, void **mem)
{
    int sched = s->sched == SCHED_SECTIONS ? BP_LOOP_DYNAMIC : s->sched;
    uint64_t chunk = s->chunk;
    if (sched == SCHED_RUNTIME)
        bp_runtime_schedule(t, &sched, &chunk);
    size_t size = mem != NULL ? (size_t)(uintptr_t)*mem : 0;
    int work = s->sched == SCHED_SECTIONS ? BP_WORK_SECTIONS : bp_loop_work(sched);
    void *shared =
        bp_loop_start_mem(t, s->empty, s->last, sched, chunk, s->ordered, size, work);
    if (mem != NULL)
        *mem = shared;
    t->loop.base = s->base;
    t->loop.step = s->step;
}

/* The same without team-shared memory. */
void bp_gomp_ws_begin(struct bp_thread *t, const struct ws_setup *s)
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
    bp_loop_finish(t); /* done with the construct's memory, if it has one */
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
    bp_gomp_long_space(who, start, end, incr, &s);
    bp_gomp_set_schedule(&s, sched, chunk > 0 ? (uint64_t)chunk : 0, ordered);
    bp_gomp_ws_begin(t, &s);
    return long_next(t, istart, iend);
}

static bool ull_start(const char *who, bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                      int sched, gomp_ull chunk, int ordered, gomp_ull *istart,
                      gomp_ull *iend)
{
    struct bp_thread *t = bp_self();
    struct ws_setup s;
    ull_space(who, up, start, end, incr, &s);
    bp_gomp_set_schedule(&s, sched, (uint64_t)chunk, ordered);
    bp_gomp_ws_begin(t, &s);
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
    task_reductions(reductions);
    struct bp_thread *t = bp_self();
    struct ws_setup s;
    bp_gomp_long_space(who, start, end, incr, &s);
    set_gfs_schedule(who, &s, sched, chunk > 0 ? (uint64_t)chunk : 0, ordered);
    ws_begin_mem(t, &s, mem);
    return istart == NULL ? true : long_next(t, istart, iend);
}

static bool ull_generic_start(const char *who, bool up, gomp_ull start, gomp_ull end,
                              gomp_ull incr, long sched, gomp_ull chunk, int ordered,
                              gomp_ull *istart, gomp_ull *iend, uintptr_t *reductions,
                              void **mem)
{
    task_reductions(reductions);
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

/* The end of a loop or sections: the thread leaves the construct, then
 * its barrier, a cancellation point in a region with cancel constructs
 * (cancel.c: true when the region is cancelled). */
static void ws_end(void)
{
    struct bp_thread *t = bp_self();
    ws_close(t);
    bp_barrier(t, BP_SYNC_BARRIER_IMPLICIT);
}

static bool ws_end_cancel(void)
{
    struct bp_thread *t = bp_self();
    ws_close(t);
    bool got = bp_barrier_cancel(t, BP_SYNC_BARRIER_IMPLICIT);
    if (got)
        bp_hook_cancel(BP_HOOK_CANCEL_PARALLEL | BP_HOOK_CANCEL_DETECTED, NULL);
    return got;
}

BP_API void GOMP_loop_end(void)
{
    BP_HOOK_ENTER();
    ws_end();
    BP_HOOK_LEAVE();
}

BP_API void GOMP_loop_end_nowait(void) { ws_close(bp_self()); }

BP_API bool GOMP_loop_end_cancel(void) { return ws_end_cancel(); }

/* libgomp orders chunks (see loop.c): an ordered region waits for the turn
 * of its chunk, which passes on when the thread asks for its next chunk, so
 * the end of a region has nothing to do. */
BP_API void GOMP_ordered_start(void) { bp_ordered_begin(bp_self()); }

BP_API void GOMP_ordered_end(void) { bp_ordered_leave(bp_self()); }

/* Sections are a dynamic loop over the section indices, one per chunk;
 * the compiled code numbers sections from 1 and takes 0 for "none left". */
void bp_gomp_sections_setup(unsigned count, struct ws_setup *s)
{
    *s = (struct ws_setup){.empty = count == 0, .last = count == 0 ? 0 : count - 1u,
                           .sched = SCHED_SECTIONS, .chunk = 1, .base = 0, .step = 1};
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
    bp_gomp_sections_setup(count, &s);
    bp_gomp_ws_begin(bp_self(), &s);
    return GOMP_sections_next();
}

BP_API unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    task_reductions(reductions);
    struct ws_setup s;
    bp_gomp_sections_setup(count, &s);
    ws_begin_mem(bp_self(), &s, mem);
    return GOMP_sections_next();
}

BP_API void GOMP_sections_end(void)
{
    BP_HOOK_ENTER();
    ws_end();
    BP_HOOK_LEAVE();
}

BP_API void GOMP_sections_end_nowait(void) { ws_close(bp_self()); }

BP_API bool GOMP_sections_end_cancel(void) { return ws_end_cancel(); }

/* ---- doacross loops (ordered(n) with depend(sink: ...) and depend(source)) --
 * gcc numbers the iterations of each of the n ordered loops from 0
 * (counts[d] of them) and workshares the first (or the first ones,
 * collapsed). As libgomp and libomp, the construct keeps one bit per
 * iteration of the whole nest (its index row-major over the n loops), set
 * by depend(source) with release and waited for by depend(sink) with
 * acquire, spinning then yielding: the iteration waited for is running or
 * next on another thread. A sink outside the iteration space is no
 * dependence (OpenMP) and waits for nothing. The bits are the loop's
 * team-shared construct memory (bp_loop_start_mem, kept in bp_loop.mem),
 * after each thread's copy of the geometry in a slot of its own, so that
 * no word of it is written by two threads; it lives until every thread
 * has ended the loop (bp_loop_finish). */
struct doacross {
    unsigned n;
    gomp_ull *counts; /* n of them, after every thread's struct */
    _Atomic uint64_t *bits;
};

/* Loop d's iteration count: gcc's long counts are never negative (an
 * empty loop has 0); the ull forms' are as given. */
static gomp_ull count_at(const long *lcounts, const gomp_ull *ucounts, unsigned d)
{
    if (ucounts != NULL)
        return ucounts[d];
    return lcounts[d] > 0 ? (gomp_ull)lcounts[d] : 0;
}

/* Bytes of construct memory ahead of a doacross loop's own (user) part:
 * each thread's struct, then each thread's counts, then the bits. */
static size_t doacross_size(const char *who, unsigned ncounts, const long *lcounts,
                            const gomp_ull *ucounts, int nth)
{
    bp_doacross_dims(who, (long)ncounts);
    uint64_t total = 1;
    for (unsigned d = 0; d < ncounts; d++)
        if (__builtin_mul_overflow(total, count_at(lcounts, ucounts, d), &total))
            total = UINT64_MAX;
    size_t head = (size_t)nth * (sizeof(struct doacross) + ncounts * sizeof(gomp_ull));
    size_t bytes = bp_doacross_bytes(who, total, head);
    return (bytes + 63) & ~(size_t)63;
}

/* Start t's part of a doacross loop of ncounts ordered loops (their counts
 * as longs or as ull) with the schedule (BP_LOOP_*, SCHED_RUNTIME) and
 * chunk; *user: the size of the construct memory the compiled code wants
 * after ours, then its address. */
static void doacross_begin(const char *who, struct bp_thread *t, unsigned ncounts,
                           const long *lcounts, const gomp_ull *ucounts, int sched,
                           uint64_t chunk, void **user)
{
    int nth = t->team_size;
    size_t ours = doacross_size(who, ncounts, lcounts, ucounts, nth);
    size_t extra = user != NULL ? (size_t)(uintptr_t)*user : 0;
    gomp_ull outer = count_at(lcounts, ucounts, 0);
    struct ws_setup s = {.empty = outer == 0, .last = outer - 1, .base = 0, .step = 1};
    bp_gomp_set_schedule(&s, sched, chunk, 0);
    void *mem = (void *)(uintptr_t)(ours + extra);
    ws_begin_mem(t, &s, &mem);
    struct doacross *own = (struct doacross *)mem + t->tid;
    gomp_ull *counts = (gomp_ull *)((struct doacross *)mem + nth);
    own->n = ncounts;
    own->counts = counts + (size_t)t->tid * ncounts;
    for (unsigned d = 0; d < ncounts; d++)
        own->counts[d] = count_at(lcounts, ucounts, d);
    own->bits = (_Atomic uint64_t *)(counts + (size_t)nth * ncounts);
    if (user != NULL)
        *user = extra ? (char *)mem + ours : NULL;
}

/* The calling thread's doacross loop. */
static struct doacross *doacross_of(const char *who, struct bp_thread *t)
{
    if (t->loop.mem == NULL || !t->loop.open)
        bp_fatal("%s: not inside a doacross loop", who);
    return (struct doacross *)t->loop.mem + t->tid;
}

/* The bit of an iteration vector, built loop by loop: index so far, times
 * loop d's count, plus v (UINT64_MAX once a v is outside the space; a
 * negative long is outside too). */
static uint64_t doacross_index(const struct doacross *a, unsigned d, uint64_t index, gomp_ull v)
{
    if (index == UINT64_MAX || v >= a->counts[d])
        return UINT64_MAX;
    return index * a->counts[d] + v;
}

#define BP_GOMP_DOACROSS_START(name, sched)                                                \
    BP_API bool GOMP_loop_doacross_##name##_start(unsigned ncounts, long *counts,          \
                                                  long chunk, long *istart, long *iend)    \
    {                                                                                      \
        struct bp_thread *t = bp_self();                                                   \
        doacross_begin("GOMP_loop_doacross_" #name "_start", t, ncounts, counts, NULL,     \
                       sched, chunk > 0 ? (uint64_t)chunk : 0, NULL);                      \
        return long_next(t, istart, iend);                                                 \
    }                                                                                      \
    BP_API bool GOMP_loop_ull_doacross_##name##_start(unsigned ncounts, gomp_ull *counts,  \
                                                      gomp_ull chunk, gomp_ull *istart,    \
                                                      gomp_ull *iend)                      \
    {                                                                                      \
        struct bp_thread *t = bp_self();                                                   \
        doacross_begin("GOMP_loop_ull_doacross_" #name "_start", t, ncounts, NULL, counts, \
                       sched, chunk, NULL);                                                \
        return ull_next(t, istart, iend);                                                  \
    }
BP_GOMP_DOACROSS_START(static, BP_LOOP_STATIC)
BP_GOMP_DOACROSS_START(dynamic, BP_LOOP_DYNAMIC)
BP_GOMP_DOACROSS_START(guided, BP_LOOP_GUIDED)

/* After a worksharing construct with task reductions (or a scope), once
 * thread 0 has folded the copies. */
BP_API void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    bp_gomp_workshare_reductions_end(bp_self(), cancelled);
}

/* A scope construct with task reductions (OpenMP 5.1): worksharing only in
 * who makes the copies; its barrier and the unregister are the compiled
 * code's. */
BP_API void GOMP_scope_start(uintptr_t *reductions) { task_reductions(reductions); }

/* gcc 9 and later call these generic starts for doacross loops with task
 * reductions; mem: construct memory the compiled code wants besides. */
BP_API bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
                                     long *istart, long *iend, uintptr_t *reductions,
                                     void **mem)
{
    static const char who[] = "GOMP_loop_doacross_start";
    task_reductions(reductions);
    struct ws_setup s;
    set_gfs_schedule(who, &s, sched, chunk > 0 ? (uint64_t)chunk : 0, 0);
    struct bp_thread *t = bp_self();
    doacross_begin(who, t, ncounts, counts, NULL, s.sched, s.chunk, mem);
    return istart == NULL ? true : long_next(t, istart, iend);
}

BP_API bool GOMP_loop_ull_doacross_start(unsigned ncounts, unsigned long long *counts,
                                         long sched, unsigned long long chunk,
                                         unsigned long long *istart, unsigned long long *iend,
                                         uintptr_t *reductions, void **mem)
{
    static const char who[] = "GOMP_loop_ull_doacross_start";
    task_reductions(reductions);
    struct ws_setup s;
    set_gfs_schedule(who, &s, sched, (uint64_t)chunk, 0);
    struct bp_thread *t = bp_self();
    doacross_begin(who, t, ncounts, NULL, counts, s.sched, s.chunk, mem);
    return istart == NULL ? true : ull_next(t, istart, iend);
}

BP_API bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart,
                                             long *iend)
{
    static const char who[] = "GOMP_loop_doacross_runtime_start";
    struct bp_thread *t = bp_self();
    doacross_begin(who, t, ncounts, counts, NULL, SCHED_RUNTIME, 0, NULL);
    return long_next(t, istart, iend);
}

BP_API bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, unsigned long long *counts,
                                                 unsigned long long *istart,
                                                 unsigned long long *iend)
{
    struct bp_thread *t = bp_self();
    doacross_begin("GOMP_loop_ull_doacross_runtime_start", t, ncounts, NULL, counts,
                   SCHED_RUNTIME, 0, NULL);
    return ull_next(t, istart, iend);
}

/* depend(source): the iteration vector, counted from 0 in each loop. */
BP_API void GOMP_doacross_post(long *counts)
{
    struct doacross *a = doacross_of("GOMP_doacross_post", bp_self());
    uint64_t bit = 0;
    for (unsigned d = 0; d < a->n; d++)
        bit = doacross_index(a, d, bit, (gomp_ull)counts[d]); /* a negative one: outside */
    if (bit != UINT64_MAX)
        bp_doacross_post(a->bits, bit);
}

BP_API void GOMP_doacross_ull_post(unsigned long long *counts)
{
    struct doacross *a = doacross_of("GOMP_doacross_ull_post", bp_self());
    uint64_t bit = 0;
    for (unsigned d = 0; d < a->n; d++)
        bit = doacross_index(a, d, bit, counts[d]);
    if (bit != UINT64_MAX)
        bp_doacross_post(a->bits, bit);
}

/* depend(sink: ...): the sink's vector, one argument per ordered loop; a
 * sink outside the space is no dependence. */
BP_API void GOMP_doacross_wait(long first, ...)
{
    struct doacross *a = doacross_of("GOMP_doacross_wait", bp_self());
    uint64_t bit = doacross_index(a, 0, 0, (gomp_ull)first);
    va_list ap;
    va_start(ap, first);
    for (unsigned d = 1; d < a->n; d++)
        bit = doacross_index(a, d, bit, (gomp_ull)va_arg(ap, long));
    va_end(ap);
    if (bit != UINT64_MAX)
        bp_doacross_wait(a->bits, bit);
}

BP_API void GOMP_doacross_ull_wait(unsigned long long first, ...)
{
    struct doacross *a = doacross_of("GOMP_doacross_ull_wait", bp_self());
    uint64_t bit = doacross_index(a, 0, 0, first);
    va_list ap;
    va_start(ap, first);
    for (unsigned d = 1; d < a->n; d++)
        bit = doacross_index(a, d, bit, va_arg(ap, unsigned long long));
    va_end(ap);
    if (bit != UINT64_MAX)
        bp_doacross_wait(a->bits, bit);
}
