/* gomp-loops.c: worksharing loops compiled by gcc -fopenmp (GOMP_loop_*,
 * GOMP_loop_ull_*, GOMP_parallel_loop_*) under every schedule: each
 * iteration of every loop shape runs exactly once, the barrier at a loop's
 * end holds, static schedules deal iterations as OpenMP says, monotonic
 * ones hand a thread its chunks in order.
 *
 * Every shape is first run serially (the same loops without the directive)
 * into ref[][], which is also checked against the known trip counts; a
 * parallel run must then hit every iteration exactly as often.
 *
 * Signed loops span less than 2^63 - step and chunks less than 2^63 / step:
 * gcc's own code for wider ones (inlined static schedules) and libgomp's
 * count their trips wrongly; buddypool's would not. Nor do they start or
 * end at LONG_MAX, where gcc's inlined static code overflows (UBSan). */
#include <limits.h>
#include <omp.h>
#include <string.h>

#include "gomp-check.h"

enum { NSHAPES = 13, MAXN = 2048, N = 1000 };

static const char *const shape_names[NSHAPES] = {
    "int 0..n-1",
    "long down by 3",
    "unsigned long long up by 5 below ULLONG_MAX",
    "unsigned long long down by 7 from ULLONG_MAX",
    "long from LONG_MIN by 2^53",
    "unsigned long long from 0 by ULLONG_MAX/10",
    "long up by 2 to LONG_MAX - 1",
    "collapse(2) 25 x 40",
    "one iteration",
    "empty loops",
    "int down by 1 to 0",
    "step past the end",
    "long from LONG_MAX - 1 down by 2^53",
};
static const int shape_trips[NSHAPES] = {N, 2000, 1000, 1000, N, 10, 750, N, 1, 0, N, 1, N};

static int hits[NSHAPES][MAXN];
static int stray[NSHAPES]; /* iterations whose index fell outside 0..MAXN-1 */
static int ref[NSHAPES][MAXN];

/* The bounds, read through volatiles so gcc cannot fold the loops. */
static volatile int v_n = N, v_zero = 0, v_one_end = 8, v_rows = 25, v_cols = 40, v_big = 100;
static volatile long v_lhi = 5000, v_llo = -1000, v_lmax = LONG_MAX, v_lstep = 1l << 53;
static volatile unsigned long long v_ua = ULLONG_MAX - 5000, v_ub = ULLONG_MAX - 3,
                                   v_ua2 = ULLONG_MAX - 7000, v_ub2 = ULLONG_MAX,
                                   v_ustep = ULLONG_MAX / 10;

#define HIT(s, idx)                                                                    \
    do {                                                                               \
        unsigned long long hit_k_ = (unsigned long long)(idx);                         \
        if (hit_k_ < MAXN) {                                                           \
            PRAGMA(omp atomic)                                                         \
            hits[s][hit_k_]++;                                                         \
        } else {                                                                       \
            PRAGMA(omp atomic)                                                         \
            stray[s]++;                                                                \
        }                                                                              \
    } while (0)

/* Every thread: all of shape s's iterations are done (after a barrier). */
static void expect_done(int s, const char *what)
{
    int total = 0;
    for (int k = 0; k < MAXN; k++)
        total += __atomic_load_n(&hits[s][k], __ATOMIC_RELAXED);
    EXPECT_EQ(total, shape_trips[s], what);
}

/* The loop shapes, each under directive D(clauses). D_SERIAL runs them
 * without one. Local copies of the bounds are shared by the region. */
#define D_OMP(...) PRAGMA(omp for __VA_ARGS__)
#define D_SERIAL(...)
#define SHAPES(D, what, ...)                                                           \
    D(__VA_ARGS__ nowait)                                                              \
    for (int i = 0; i < n; i++)                                                        \
        HIT(0, i);                                                                     \
    D(__VA_ARGS__)                                                                     \
    for (long i = lhi; i > llo; i -= 3)                                                \
        HIT(1, (lhi - i) / 3);                                                         \
    expect_done(1, what);                                                              \
    D(__VA_ARGS__ nowait)                                                              \
    for (unsigned long long i = ua; i < ub; i += 5)                                    \
        HIT(2, (i - ua) / 5);                                                          \
    D(__VA_ARGS__ nowait)                                                              \
    for (unsigned long long i = ub2; i > ua2; i -= 7)                                  \
        HIT(3, (ub2 - i) / 7);                                                         \
    D(__VA_ARGS__ nowait)                                                              \
    for (long i = LONG_MIN; i < LONG_MIN + 1000 * lstep; i += lstep)                   \
        HIT(4, ((unsigned long)i - (unsigned long)LONG_MIN) / (unsigned long)lstep);   \
    D(__VA_ARGS__ nowait)                                                              \
    for (unsigned long long i = 0; i < ULLONG_MAX - ustep; i += ustep)                 \
        HIT(5, i / ustep);                                                             \
    D(__VA_ARGS__ nowait)                                                              \
    for (long i = lmax - 1501; i < lmax - 1; i += 2)                                   \
        HIT(6, (i - (lmax - 1501)) / 2);                                               \
    D(__VA_ARGS__ collapse(2))                                                         \
    for (int i = 0; i < rows; i++)                                                     \
        for (int j = 0; j < cols; j++)                                                 \
            HIT(7, i * cols + j);                                                      \
    expect_done(7, what);                                                              \
    D(__VA_ARGS__ nowait)                                                              \
    for (int i = 7; i < one_end; i++)                                                  \
        HIT(8, i - 7);                                                                 \
    D(__VA_ARGS__ nowait)                                                              \
    for (int i = n; i < zero; i++)                                                     \
        HIT(9, 0);                                                                     \
    D(__VA_ARGS__ nowait)                                                              \
    for (long i = llo; i > lhi; i--)                                                   \
        HIT(9, 0);                                                                     \
    D(__VA_ARGS__ nowait)                                                              \
    for (unsigned long long i = ub; i < ua; i++)                                       \
        HIT(9, 0);                                                                     \
    D(__VA_ARGS__ nowait)                                                              \
    for (unsigned long long i = ua; i > ub; i -= 2)                                    \
        HIT(9, 0);                                                                     \
    D(__VA_ARGS__ nowait)                                                              \
    for (int i = n - 1; i >= 0; i--)                                                   \
        HIT(10, i);                                                                    \
    D(__VA_ARGS__ nowait)                                                              \
    for (int i = 0; i < 10; i += big)                                                  \
        HIT(11, i);                                                                    \
    D(__VA_ARGS__)                                                                     \
    for (long i = lmax - 1; i > lmax - 1 - 1000 * lstep; i -= lstep)                   \
        HIT(12, ((unsigned long)(lmax - 1) - (unsigned long)i) / (unsigned long)lstep); \
    expect_done(12, what);

#define LOCAL_BOUNDS                                                                   \
    int n = v_n, zero = v_zero, one_end = v_one_end, rows = v_rows, cols = v_cols,     \
        big = v_big;                                                                   \
    long lhi = v_lhi, llo = v_llo, lmax = v_lmax, lstep = v_lstep;                     \
    unsigned long long ua = v_ua, ub = v_ub, ua2 = v_ua2, ub2 = v_ub2, ustep = v_ustep;

static void clear(void)
{
    memset(hits, 0, sizeof hits);
    memset(stray, 0, sizeof stray);
}

/* The shapes in mask ran as often as serially; the others did not run. */
static void compare(const char *what, unsigned mask)
{
    char buf[200];
    for (int s = 0; s < NSHAPES; s++) {
        snprintf(buf, sizeof buf, "%s, %s", what, shape_names[s]);
        EXPECT_EQ(stray[s], 0, buf);
        for (int k = 0; k < MAXN; k++) {
            int want = mask >> s & 1 ? ref[s][k] : 0;
            if (hits[s][k] != want) {
                snprintf(buf, sizeof buf, "%s, %s, iteration %d", what, shape_names[s], k);
                EXPECT_EQ(hits[s][k], want, buf);
                break;
            }
        }
    }
}

static void make_reference(void)
{
    LOCAL_BOUNDS
    clear();
    SHAPES(D_SERIAL, "serial")
    for (int s = 0; s < NSHAPES; s++) {
        int total = 0;
        for (int k = 0; k < MAXN; k++) {
            EXPECT_LE(hits[s][k], 1, shape_names[s]);
            total += hits[s][k];
        }
        EXPECT_EQ(total, shape_trips[s], shape_names[s]);
        EXPECT_EQ(stray[s], 0, shape_names[s]);
    }
    memcpy(ref, hits, sizeof ref);
}

#define ALL_SHAPES ((1u << NSHAPES) - 1)

/* Orphaned loops: several in one region, so gcc calls the start entry
 * points (and GOMP_loop_end where no nowait). */
#define LOOP_TEST(tag, ...)                                                            \
    static void loops_##tag(const char *what)                                          \
    {                                                                                  \
        LOCAL_BOUNDS                                                                   \
        clear();                                                                       \
        PRAGMA(omp parallel)                                                           \
        {                                                                              \
            SHAPES(D_OMP, what, __VA_ARGS__)                                           \
        }                                                                              \
        compare(what, ALL_SHAPES);                                                     \
    }

LOOP_TEST(static, schedule(static))
LOOP_TEST(static3, schedule(static, 3))
LOOP_TEST(auto, schedule(auto))
LOOP_TEST(dynamic, schedule(dynamic))
LOOP_TEST(dynamic7, schedule(dynamic, 7))
LOOP_TEST(dynamic_huge, schedule(dynamic, 1000))
LOOP_TEST(monotonic_dynamic3, schedule(monotonic: dynamic, 3))
LOOP_TEST(nonmonotonic_dynamic2, schedule(nonmonotonic: dynamic, 2))
LOOP_TEST(guided, schedule(guided))
LOOP_TEST(guided5, schedule(guided, 5))
LOOP_TEST(monotonic_guided4, schedule(monotonic: guided, 4))
LOOP_TEST(nonmonotonic_guided, schedule(nonmonotonic: guided))
LOOP_TEST(runtime, schedule(runtime))
LOOP_TEST(monotonic_runtime, schedule(monotonic: runtime))
LOOP_TEST(nonmonotonic_runtime, schedule(nonmonotonic: runtime))

/* Combined parallel loops over constant bounds, which gcc turns into
 * GOMP_parallel_loop_* (the team starts with the loop set up). */
#define PAR_SHAPE_MASK                                                                 \
    (1u << 0 | 1u << 1 | 1u << 4 | 1u << 7 | 1u << 8 | 1u << 9 | 1u << 10 | 1u << 11)
#define PAR_LOOP_TEST(tag, ...)                                                        \
    static void par_loops_##tag(const char *what)                                      \
    {                                                                                  \
        clear();                                                                       \
        PRAGMA(omp parallel for __VA_ARGS__)                                           \
        for (int i = 0; i < 1000; i++)                                                 \
            HIT(0, i);                                                                 \
        PRAGMA(omp parallel for __VA_ARGS__)                                           \
        for (long i = 5000; i > -1000; i -= 3)                                         \
            HIT(1, (5000 - i) / 3);                                                    \
        PRAGMA(omp parallel for __VA_ARGS__)                                           \
        for (long i = LONG_MIN; i < LONG_MIN + 1000 * (1l << 53); i += 1l << 53)       \
            HIT(4, ((unsigned long)i - (unsigned long)LONG_MIN) >> 53);                \
        PRAGMA(omp parallel for __VA_ARGS__ collapse(2))                               \
        for (int i = 0; i < 25; i++)                                                   \
            for (int j = 0; j < 40; j++)                                               \
                HIT(7, i * 40 + j);                                                    \
        PRAGMA(omp parallel for __VA_ARGS__)                                           \
        for (int i = 7; i < 8; i++)                                                    \
            HIT(8, i - 7);                                                             \
        PRAGMA(omp parallel for __VA_ARGS__)                                           \
        for (int i = 1000; i < 0; i++)                                                 \
            HIT(9, 0);                                                                 \
        PRAGMA(omp parallel for __VA_ARGS__)                                           \
        for (int i = 999; i >= 0; i--)                                                 \
            HIT(10, i);                                                                \
        PRAGMA(omp parallel for __VA_ARGS__ num_threads(3))                            \
        for (int i = 0; i < 10; i += 100)                                              \
            HIT(11, i);                                                                \
        compare(what, PAR_SHAPE_MASK);                                                 \
    }

PAR_LOOP_TEST(static, schedule(static))
PAR_LOOP_TEST(static3, schedule(static, 3))
PAR_LOOP_TEST(dynamic, schedule(dynamic))
PAR_LOOP_TEST(dynamic4, schedule(dynamic, 4))
PAR_LOOP_TEST(monotonic_dynamic, schedule(monotonic: dynamic))
PAR_LOOP_TEST(nonmonotonic_dynamic3, schedule(nonmonotonic: dynamic, 3))
PAR_LOOP_TEST(guided, schedule(guided))
PAR_LOOP_TEST(monotonic_guided2, schedule(monotonic: guided, 2))
PAR_LOOP_TEST(nonmonotonic_guided, schedule(nonmonotonic: guided))
PAR_LOOP_TEST(runtime, schedule(runtime))
PAR_LOOP_TEST(monotonic_runtime, schedule(monotonic: runtime))
PAR_LOOP_TEST(nonmonotonic_runtime, schedule(nonmonotonic: runtime))

/* schedule(static, c), also reached as schedule(runtime): chunks go to the
 * threads round-robin by thread number. schedule(static): two loops of the
 * same trip count give each thread the same iterations, one block each. */
static void static_assignment(const char *what, omp_sched_t kind, int chunk)
{
    static int owner[N], owner2[N];
    int n = v_n;
    omp_set_schedule(kind, chunk);
    PRAGMA(omp parallel)
    {
        int me = omp_get_thread_num(), nth = omp_get_num_threads();
        PRAGMA(omp for schedule(runtime))
        for (int i = 0; i < n; i++)
            owner[i] = me;
        PRAGMA(omp for schedule(runtime))
        for (int i = 0; i < n; i++)
            owner2[i] = me;
        PRAGMA(omp single)
        {
            int changes = 0;
            for (int i = 0; i < n; i++) {
                EXPECT_EQ(owner2[i], owner[i], what);
                if (chunk > 0)
                    EXPECT_EQ(owner[i], (i / chunk) % nth, what);
                if (i > 0 && owner[i] != owner[i - 1])
                    changes++;
            }
            if (chunk == 0)
                EXPECT_LE(changes, nth - 1, what); /* one block per thread */
        }
    }
}

/* Monotonic schedules: each thread gets its chunks in increasing order. */
#define MONOTONIC_TEST(tag, ...)                                                       \
    static void monotonic_##tag(const char *what)                                      \
    {                                                                                  \
        int n = v_n;                                                                   \
        PRAGMA(omp parallel)                                                           \
        {                                                                              \
            int prev = -1;                                                             \
            PRAGMA(omp for __VA_ARGS__)                                                \
            for (int i = 0; i < n; i++) {                                              \
                EXPECT_GE(i, prev + 1, what);                                          \
                prev = i;                                                              \
            }                                                                          \
            long lprev = LONG_MAX;                                                     \
            PRAGMA(omp for __VA_ARGS__)                                                \
            for (long i = 3 * (long)n; i > -3 * (long)n; i -= 3) {                     \
                EXPECT_LE(i, lprev - 3, what);                                         \
                lprev = i;                                                             \
            }                                                                          \
        }                                                                              \
    }
MONOTONIC_TEST(dynamic, schedule(monotonic: dynamic, 3))
MONOTONIC_TEST(guided, schedule(monotonic: guided))
MONOTONIC_TEST(runtime, schedule(monotonic: runtime))

int main(void)
{
    check_team_size("gomp-loops");
    make_reference();

    loops_static("for schedule(static)");
    loops_static3("for schedule(static, 3)");
    loops_auto("for schedule(auto)");
    loops_dynamic("for schedule(dynamic)");
    loops_dynamic7("for schedule(dynamic, 7)");
    loops_dynamic_huge("for schedule(dynamic, 1000)");
    loops_monotonic_dynamic3("for schedule(monotonic: dynamic, 3)");
    loops_nonmonotonic_dynamic2("for schedule(nonmonotonic: dynamic, 2)");
    loops_guided("for schedule(guided)");
    loops_guided5("for schedule(guided, 5)");
    loops_monotonic_guided4("for schedule(monotonic: guided, 4)");
    loops_nonmonotonic_guided("for schedule(nonmonotonic: guided)");
    par_loops_static("parallel for schedule(static)");
    par_loops_static3("parallel for schedule(static, 3)");
    par_loops_dynamic("parallel for schedule(dynamic)");
    par_loops_dynamic4("parallel for schedule(dynamic, 4)");
    par_loops_monotonic_dynamic("parallel for schedule(monotonic: dynamic)");
    par_loops_nonmonotonic_dynamic3("parallel for schedule(nonmonotonic: dynamic, 3)");
    par_loops_guided("parallel for schedule(guided)");
    par_loops_monotonic_guided2("parallel for schedule(monotonic: guided, 2)");
    par_loops_nonmonotonic_guided("parallel for schedule(nonmonotonic: guided)");

    static const struct {
        omp_sched_t kind;
        int chunk;
        const char *name;
    } runtime[] = {
        {omp_sched_static, 0, "static"},   {omp_sched_static, 3, "static,3"},
        {omp_sched_dynamic, 0, "dynamic"}, {omp_sched_dynamic, 5, "dynamic,5"},
        {omp_sched_guided, 0, "guided"},   {omp_sched_guided, 7, "guided,7"},
        {omp_sched_auto, 0, "auto"},
    };
    char what[100];
    for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++) {
        omp_set_schedule(runtime[i].kind, runtime[i].chunk);
#define RUNTIME_CASE(fn, label)                                                        \
    snprintf(what, sizeof what, label " with omp_set_schedule(%s)", runtime[i].name);  \
    fn(what);
        RUNTIME_CASE(loops_runtime, "for schedule(runtime)")
        RUNTIME_CASE(loops_monotonic_runtime, "for schedule(monotonic: runtime)")
        RUNTIME_CASE(loops_nonmonotonic_runtime, "for schedule(nonmonotonic: runtime)")
        RUNTIME_CASE(par_loops_runtime, "parallel for schedule(runtime)")
        RUNTIME_CASE(par_loops_monotonic_runtime, "parallel for schedule(monotonic: runtime)")
        RUNTIME_CASE(par_loops_nonmonotonic_runtime,
                     "parallel for schedule(nonmonotonic: runtime)")
        if (runtime[i].kind != omp_sched_auto) {
            RUNTIME_CASE(monotonic_runtime, "monotonic order, schedule(monotonic: runtime)")
        }
    }

    static_assignment("schedule(runtime) as static,3", omp_sched_static, 3);
    static_assignment("schedule(runtime) as static,1", omp_sched_static, 1);
    static_assignment("schedule(runtime) as static", omp_sched_static, 0);
    monotonic_dynamic("monotonic order, schedule(monotonic: dynamic, 3)");
    monotonic_guided("monotonic order, schedule(monotonic: guided)");
    return check_summary("gomp-loops");
}
