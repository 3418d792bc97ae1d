/* kmp_loop.c: libomp's worksharing-loop entry points, as a thin layer over
 * sched.c's static arithmetic and loop.c's loops handed out at run time:
 * static loops (__kmpc_for_static_init_*), the distribute loops of a
 * teams construct (schedules 91 and 92, __kmpc_dist_for_static_init_*,
 * __kmpc_team_static_init_*, __kmpc_dist_dispatch_init_*), dynamic,
 * guided and runtime loops (__kmpc_dispatch_*), ordered, and doacross
 * loops. */
#include <stdatomic.h>
#include <stdint.h>

#include "abi.h"
#include "../internal.h"
#include "kmp.h"

/* ---- static loops ------------------------------------------------------- */

/* A `distribute` loop (schedules 92, and 91 for dist_schedule(static, n))
 * is split over the league's teams as a static loop is over a team's
 * threads: returns that static schedule, its "thread" the team. */
enum { KMP_DISTRIBUTE_STATIC_CHUNKED = 91, KMP_DISTRIBUTE_STATIC = 92 };

static int32_t distribute_split(struct bp_thread *t, int32_t schedtype, int *tid, int *nth)
{
    const struct bp_icv *icv = bp_icv(t);
    *tid = icv->team_num;
    *nth = icv->num_teams;
    return schedtype == KMP_DISTRIBUTE_STATIC ? BP_SCH_STATIC : BP_SCH_STATIC_CHUNKED;
}

/* What the listeners hear a static loop is: clang marks sections and
 * distribute loops in the location's flags (KMP_IDENT_WORK_SECTIONS 0x400,
 * KMP_IDENT_WORK_DISTRIBUTE 0x800); __kmpc_for_static_fini ends it. */
static int static_work(const ident_t *loc, int32_t schedtype)
{
    int flags = loc != NULL ? loc->flags : 0;
    if (flags & 0x400)
        return BP_WORK_SECTIONS;
    if ((flags & 0x800) || schedtype == KMP_DISTRIBUTE_STATIC ||
        schedtype == KMP_DISTRIBUTE_STATIC_CHUNKED)
        return BP_WORK_DISTRIBUTE;
    return BP_WORK_LOOP_STATIC;
}

#define BP_KMPC_STATIC_INIT(sfx, T, ST)                                              \
    BP_API void __kmpc_for_static_init_##sfx(ident_t *loc, int32_t gtid,            \
                                             int32_t schedtype, int32_t *plastiter, \
                                             T *plower, T *pupper, ST *pstride,     \
                                             ST incr, ST chunk)                     \
    {                                                                               \
        (void)loc;                                                                  \
        (void)gtid;                                                                 \
        struct bp_thread *t = bp_self();                                            \
        int tid = t->tid, nth = t->team_size;                                       \
        if (schedtype == KMP_DISTRIBUTE_STATIC ||                                   \
            schedtype == KMP_DISTRIBUTE_STATIC_CHUNKED)                             \
            schedtype = distribute_split(t, schedtype, &tid, &nth);                 \
        uint64_t n = bp_for_static_init_##sfx("__kmpc_for_static_init_" #sfx, tid, nth, \
                                              schedtype, plastiter, plower, pupper, \
                                              pstride, incr, chunk);                \
        bp_hook_iterations(n);                                                       \
        int work = static_work(loc, schedtype);                                      \
        bp_hook_work(work, 1, n);                                                    \
        if (bp_listening && work == BP_WORK_SECTIONS) /* its sections, one by one */ \
            for (uint64_t k = 0; k < n; k++)                                         \
                bp_hook_dispatch(work, (uint64_t)*plower + k, 1);                    \
    }
BP_KMPC_STATIC_INIT(4, int32_t, int32_t)
BP_KMPC_STATIC_INIT(4u, uint32_t, int32_t)
BP_KMPC_STATIC_INIT(8, int64_t, int64_t)
BP_KMPC_STATIC_INIT(8u, uint64_t, int64_t)

/* `distribute parallel for` in one call, from a thread of a region forked
 * in a team (MLIR's composite lowering): the team's block of the loop as
 * distribute's static schedule gives it (its upper bound in *pupperD),
 * then the thread's part of that block by `schedtype` (static or static
 * chunked). The last iteration is the thread's when its team has the
 * loop's last block and it has the block's last iteration. */
#define BP_KMPC_DIST_STATIC_INIT(sfx, T, ST)                                            \
    BP_API void __kmpc_dist_for_static_init_##sfx(ident_t *loc, int32_t gtid,          \
                                                  int32_t schedtype, int32_t *plastiter, \
                                                  T *plower, T *pupper, T *pupperD,    \
                                                  ST *pstride, ST incr, ST chunk)      \
    {                                                                                  \
        (void)loc;                                                                     \
        (void)gtid;                                                                    \
        struct bp_thread *t = bp_self();                                               \
        const struct bp_icv *icv = bp_icv(t);                                          \
        int32_t team_last = 0, thread_last = 0;                                        \
        uint64_t n = bp_for_static_init_##sfx("__kmpc_dist_for_static_init_" #sfx,     \
                                              icv->team_num, icv->num_teams,           \
                                              BP_SCH_STATIC, &team_last, plower,       \
                                              pupper, pstride, incr, 0);               \
        *pupperD = *pupper;                                                            \
        if (n > 0)                                                                     \
            n = bp_for_static_init_##sfx("__kmpc_dist_for_static_init_" #sfx, t->tid,  \
                                         t->team_size, schedtype, &thread_last, plower, \
                                         pupper, pstride, incr, chunk);                \
        if (plastiter)                                                                 \
            *plastiter = n > 0 && team_last && thread_last;                            \
        bp_hook_iterations(n);                                                          \
    }                                                                                  \
    /* dist_schedule(static, chunk) on its own: chunks dealt over the teams */        \
    BP_API void __kmpc_team_static_init_##sfx(ident_t *loc, int32_t gtid,              \
                                              int32_t *plastiter, T *plower, T *pupper, \
                                              ST *pstride, ST incr, ST chunk)          \
    {                                                                                  \
        (void)loc;                                                                     \
        (void)gtid;                                                                    \
        const struct bp_icv *icv = bp_icv(bp_self());                                  \
        bp_for_static_init_##sfx("__kmpc_team_static_init_" #sfx, icv->team_num,       \
                                 icv->num_teams, BP_SCH_STATIC_CHUNKED, plastiter,     \
                                 plower, pupper, pstride, incr, chunk);                \
    }
BP_KMPC_DIST_STATIC_INIT(4, int32_t, int32_t)
BP_KMPC_DIST_STATIC_INIT(4u, uint32_t, int32_t)
BP_KMPC_DIST_STATIC_INIT(8, int64_t, int64_t)
BP_KMPC_DIST_STATIC_INIT(8u, uint64_t, int64_t)

BP_API void __kmpc_for_static_fini(ident_t *loc, int32_t gtid)
{
    (void)gtid;
    bp_hook_work(static_work(loc, 0), 0, 0);
}

/* ---- loops with schedules decided at run time (__kmpc_dispatch_*) ------- */

enum {
    KMP_SCH_LOWER = 32,
    KMP_ORD_LOWER = 64,
    KMP_NM_LOWER = 160,
};

/* The block of schedule(simd: static) (kmp_sch_static_balanced_chunked):
 * one chunk per thread, ceil(iterations / nth) rounded up to a multiple of
 * the simd width; a team of one takes the loop in one chunk. */
static uint64_t balanced_chunk(uint64_t last, int nth, uint64_t width)
{
    if (nth <= 1 || width == 0)
        return 0;
    uint64_t block = last / (uint64_t)nth + 1, rounded = (block + width - 1) / width * width;
    return rounded >= block ? rounded : block; /* overflow: keep the block */
}

/* libomp's schedule number -> the engine's schedule and chunk, for a loop
 * over indices 0..last on a team of nth. */
static void dispatch_schedule(const char *who, int32_t schedule, int64_t chunk_arg,
                              uint64_t last, int nth, int *sched, uint64_t *chunk, int *ordered)
{
    int s = schedule & ~(BP_SCH_MONOTONIC | BP_SCH_NONMONOTONIC);
    if (s > KMP_NM_LOWER)
        s -= KMP_NM_LOWER - KMP_SCH_LOWER; /* the nomerge variants */
    *ordered = s > KMP_ORD_LOWER && s < KMP_ORD_LOWER + 32;
    if (*ordered)
        s -= KMP_ORD_LOWER - KMP_SCH_LOWER;
    uint64_t c = chunk_arg > 0 ? (uint64_t)chunk_arg : 0;
    switch (s) {
    case 33: /* static_chunked */
        *sched = BP_LOOP_STATIC;
        *chunk = c ? c : 1;
        return;
    case 34: /* static */
    case 38: /* auto: the runtime's choice */
    case 40: /* static_greedy */
    case 41: /* static_balanced */
        *sched = BP_LOOP_STATIC;
        *chunk = 0;
        return;
    case 45: /* static_balanced_chunked (simd: static); chunk: the simd width */
        *sched = BP_LOOP_STATIC;
        *chunk = balanced_chunk(last, nth, c);
        return;
    case 35: /* dynamic_chunked */
    case 44: /* static_steal: chunks taken at run time */
        *sched = BP_LOOP_DYNAMIC;
        *chunk = c;
        return;
    case 36: /* guided_chunked */
    case 39: /* trapezoidal */
    case 42: /* guided_iterative_chunked */
    case 43: /* guided_analytical_chunked */
        *sched = BP_LOOP_GUIDED;
        *chunk = c;
        return;
    case 46: /* guided_simd: chunks a multiple of the simd width */
        *sched = BP_LOOP_GUIDED_SIMD;
        *chunk = c;
        return;
    case 37: /* runtime */
        bp_runtime_schedule(bp_self(), sched, chunk);
        return;
    case 47: { /* runtime_simd; chunk: the simd width. As libomp: a static
                * schedule without chunk is the balanced simd one, the others
                * take chunk * width (guided in whole simd chunks) */
        uint64_t rc, width = c ? c : 1;
        bp_runtime_schedule(bp_self(), sched, &rc);
        if (*sched == BP_LOOP_STATIC && rc == 0) {
            *chunk = balanced_chunk(last, nth, width);
            return;
        }
        *chunk = (rc ? rc : 1) * width;
        if (*sched == BP_LOOP_GUIDED)
            *sched = BP_LOOP_GUIDED_SIMD;
        return;
    }
    default:
        bp_fatal("%s: unsupported schedule type %d", who, (int)schedule);
    }
}

/* One pair of entry points per width, as in sched.c: T the loop type, UT its
 * unsigned twin, ST the signed type of the stride. */
#define BP_KMPC_DISPATCH(sfx, T, UT, ST)                                                  \
    BP_API void __kmpc_dispatch_init_##sfx(ident_t *loc, int32_t gtid, int32_t schedule,  \
                                           T lb, T ub, ST st, ST chunk)                   \
    {                                                                                     \
        (void)loc;                                                                        \
        (void)gtid;                                                                       \
        int sched, ordered;                                                               \
        uint64_t c;                                                                       \
        if (st == 0)                                                                      \
            bp_fatal("__kmpc_dispatch_init_" #sfx ": loop increment is 0");               \
        UT span = st > 0 ? (UT)ub - (UT)lb : (UT)lb - (UT)ub;                             \
        UT step = st > 0 ? (UT)st : (UT)0 - (UT)st;                                       \
        uint64_t last = (uint64_t)(span / step);                                          \
        /* as static init: a whole-type range (trip count 2^bits) is empty */             \
        int empty = (st > 0 ? lb > ub : lb < ub) || last == (uint64_t)(UT)~(UT)0;         \
        struct bp_thread *t = bp_self();                                                  \
        dispatch_schedule("__kmpc_dispatch_init_" #sfx, schedule, (int64_t)chunk, last,   \
                          t->team_size, &sched, &c, &ordered);                            \
        bp_loop_start(t, empty, last, sched, c, ordered, bp_loop_work(sched));            \
        t->loop.base = (uint64_t)(UT)lb;                                                  \
        t->loop.step = (uint64_t)(UT)st;                                                  \
    }                                                                                     \
    BP_API int32_t __kmpc_dispatch_next_##sfx(ident_t *loc, int32_t gtid, int32_t *plast, \
                                              T *plb, T *pub, ST *pst)                    \
    {                                                                                     \
        (void)loc;                                                                        \
        (void)gtid;                                                                       \
        struct bp_thread *t = bp_self();                                                  \
        uint64_t first, last;                                                             \
        int is_last;                                                                      \
        if (!bp_loop_next(t, &first, &last, &is_last))                                    \
            return 0;                                                                     \
        UT base = (UT)t->loop.base, step = (UT)t->loop.step;                              \
        *plb = (T)(base + (UT)first * step);                                              \
        *pub = (T)(base + (UT)last * step);                                               \
        if (pst)                                                                          \
            *pst = (ST)step;                                                              \
        if (plast)                                                                        \
            *plast = is_last;                                                             \
        return 1;                                                                         \
    }                                                                                     \
    BP_API void __kmpc_dispatch_fini_##sfx(ident_t *loc, int32_t gtid)                    \
    {                                                                                     \
        (void)loc;                                                                        \
        (void)gtid;                                                                       \
        bp_ordered_iteration_done(bp_self()); /* after each iteration of an ordered loop */ \
    }
BP_KMPC_DISPATCH(4, int32_t, uint32_t, int32_t)
BP_KMPC_DISPATCH(4u, uint32_t, uint32_t, int32_t)
BP_KMPC_DISPATCH(8, int64_t, uint64_t, int64_t)
BP_KMPC_DISPATCH(8u, uint64_t, uint64_t, int64_t)

/* `distribute parallel for` with a dynamic schedule, in one call: the
 * team's block of the loop (distribute's static schedule), handed out by
 * `schedule` to the threads of the team's region. *plastiter: the team has
 * the loop's last block. */
#define BP_KMPC_DIST_DISPATCH(sfx, T, ST)                                                 \
    BP_API void __kmpc_dist_dispatch_init_##sfx(ident_t *loc, int32_t gtid,              \
                                                int32_t schedule, int32_t *plastiter,    \
                                                T lb, T ub, ST st, ST chunk)             \
    {                                                                                    \
        const struct bp_icv *icv = bp_icv(bp_self());                                    \
        T lo = lb, hi = ub;                                                              \
        ST stride;                                                                       \
        int32_t team_last = 0;                                                           \
        uint64_t n = bp_for_static_init_##sfx("__kmpc_dist_dispatch_init_" #sfx,         \
                                              icv->team_num, icv->num_teams,             \
                                              BP_SCH_STATIC, &team_last, &lo, &hi,       \
                                              &stride, st, 0);                           \
        if (plastiter)                                                                   \
            *plastiter = n > 0 && team_last;                                             \
        __kmpc_dispatch_init_##sfx(loc, gtid, schedule, lo, hi, st, chunk);              \
    }
BP_KMPC_DIST_DISPATCH(4, int32_t, int32_t)
BP_KMPC_DIST_DISPATCH(4u, uint32_t, int32_t)
BP_KMPC_DIST_DISPATCH(8, int64_t, int64_t)
BP_KMPC_DIST_DISPATCH(8u, uint64_t, int64_t)

/* The loop ended when __kmpc_dispatch_next returned 0. */
BP_API void __kmpc_dispatch_deinit(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

/* Sections by dispatch (the Intel compilers'): each thread calls init,
 * then, when init answered 1, next with the number of sections until it
 * returns that number, then end; init answers 0 in a team of one, whose
 * thread runs every section itself (libomp's next fails there; this one
 * hands out the sections all the same). The sections are a dynamic loop
 * of chunk 1 over 0..n-1, started at a thread's first next, the first
 * call that knows n. */
static _Thread_local int sections_open; /* init called, the loop not begun */

BP_API int32_t __kmpc_sections_init(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    sections_open = 1;
    return bp_self()->team_size > 1;
}

BP_API int32_t __kmpc_next_section(ident_t *loc, int32_t gtid, int32_t sections)
{
    if (sections_open) {
        sections_open = 0;
        if (sections <= 0)
            return sections;
        __kmpc_dispatch_init_4(loc, gtid, BP_SCH_DYNAMIC_CHUNKED, 0, sections - 1, 1, 1);
    }
    int32_t last, lo, hi, stride;
    if (sections <= 0 || !__kmpc_dispatch_next_4(loc, gtid, &last, &lo, &hi, &stride))
        return sections;
    return lo;
}

BP_API void __kmpc_end_sections(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    sections_open = 0;
}

BP_API void __kmpc_ordered(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    bp_ordered_begin(bp_self());
}

BP_API void __kmpc_end_ordered(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    bp_ordered_end(bp_self());
}

/* ---- doacross loops (ordered(n) with depend(sink: ...) and depend(source)) --
 * clang describes each of the n ordered loops at __kmpc_doacross_init,
 * before the loop's own init, by lo, up and st, in its normalized space
 * (0, the iteration count, 1: up is exclusive), and names iterations by
 * vectors in that space. As libomp, the
 * construct keeps one bit per iteration of the whole nest (its index
 * row-major over the n loops), set by depend(source) with release and
 * waited for by depend(sink) with acquire, spinning then yielding: any
 * thread may run any iteration (a collapsed nest too). A sink outside the
 * iteration space, or between its steps, is no dependence. The bits live in
 * team-shared construct memory (loop.c's bp_construct_begin), after each
 * thread's copy of the geometry in a slot of its own, until every thread
 * has called __kmpc_doacross_fini. */
struct kmp_dim {
    int64_t lo, up, st;
};
struct kmp_loop_dim {
    int64_t lo, st;
    uint64_t count;
};
struct kmp_doacross {
    int n;
    struct kmp_loop_dim *dim; /* n of them, after every thread's struct */
    _Atomic uint64_t *bits;
};

/* The iterations of one loop: lo, lo + st, ... short of up, which clang
 * sets to the loop's iteration count, lo to 0 and st to 1 (a sink past the
 * last iteration, such as j + 1 in the last column, is outside). */
static uint64_t dim_count(const struct kmp_dim *d)
{
    if (d->st > 0)
        return d->up <= d->lo ? 0
                              : ((uint64_t)d->up - (uint64_t)d->lo - 1) / (uint64_t)d->st + 1;
    if (d->st < 0)
        return d->lo <= d->up ? 0
                              : ((uint64_t)d->lo - (uint64_t)d->up - 1) / (0 - (uint64_t)d->st) + 1;
    bp_fatal("__kmpc_doacross_init: a loop of step 0");
}

BP_API void __kmpc_doacross_init(ident_t *loc, int32_t gtid, int32_t num_dims, const void *dims)
{
    (void)loc, (void)gtid;
    static const char who[] = "__kmpc_doacross_init";
    bp_doacross_dims(who, num_dims);
    const struct kmp_dim *d = dims;
    uint64_t total = 1;
    for (int i = 0; i < num_dims; i++)
        if (__builtin_mul_overflow(total, dim_count(&d[i]), &total))
            total = UINT64_MAX;
    /* each thread's struct, then each thread's loops, then the bits */
    struct bp_thread *t = bp_self();
    size_t nth = (size_t)t->team_size, n = (size_t)num_dims;
    size_t head = nth * (sizeof(struct kmp_doacross) + n * sizeof(struct kmp_loop_dim));
    struct kmp_doacross *all = bp_construct_begin(t, bp_doacross_bytes(who, total, head), who);
    struct kmp_loop_dim *dim = (struct kmp_loop_dim *)(all + nth);
    size_t me = nth > 1 ? (size_t)t->tid : 0;
    struct kmp_doacross *g = &all[me];
    g->n = num_dims;
    g->dim = dim + me * n;
    for (size_t i = 0; i < n; i++)
        g->dim[i] = (struct kmp_loop_dim){d[i].lo, d[i].st, dim_count(&d[i])};
    g->bits = (_Atomic uint64_t *)(dim + nth * n);
}

/* The bit of the iteration vec names; -1 when it is outside the space. */
static int64_t doacross_bit(const char *who, struct kmp_doacross **out, const int64_t *vec)
{
    struct bp_thread *t = bp_self();
    struct kmp_doacross *all = bp_construct_mem(t);
    if (all == NULL)
        bp_fatal("%s: not inside a doacross loop", who);
    struct kmp_doacross *g = &all[t->team_size > 1 ? t->tid : 0];
    *out = g;
    uint64_t index = 0;
    for (int i = 0; i < g->n; i++) {
        const struct kmp_loop_dim *l = &g->dim[i];
        int64_t off = l->st > 0 ? vec[i] - l->lo : l->lo - vec[i];
        uint64_t step = l->st > 0 ? (uint64_t)l->st : 0 - (uint64_t)l->st;
        if (off < 0 || (uint64_t)off % step != 0)
            return -1;
        uint64_t k = (uint64_t)off / step;
        if (k >= l->count)
            return -1;
        index = index * l->count + k;
    }
    return (int64_t)index;
}

BP_API void __kmpc_doacross_wait(ident_t *loc, int32_t gtid, const int64_t *vec)
{
    (void)loc, (void)gtid;
    struct kmp_doacross *g;
    int64_t bit = doacross_bit("__kmpc_doacross_wait", &g, vec);
    if (bit >= 0) /* else no such iteration: no dependence */
        bp_doacross_wait(g->bits, (uint64_t)bit);
}

BP_API void __kmpc_doacross_post(ident_t *loc, int32_t gtid, const int64_t *vec)
{
    (void)loc, (void)gtid;
    struct kmp_doacross *g;
    int64_t bit = doacross_bit("__kmpc_doacross_post", &g, vec);
    if (bit >= 0)
        bp_doacross_post(g->bits, (uint64_t)bit);
}

BP_API void __kmpc_doacross_fini(ident_t *loc, int32_t gtid)
{
    (void)loc, (void)gtid;
    bp_construct_end(bp_self(), "__kmpc_doacross_fini");
}
