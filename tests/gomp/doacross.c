/* doacross.c: doacross loops (ordered(n) with depend(sink: ...) and
 * depend(source), OpenMP 5.2's doacross), built by gcc (GOMP_doacross_*)
 * and by clang (__kmpc_doacross_*): every iteration
 * runs once and after the iterations its sinks name, which the results
 * show exactly (each value is computed from values the sinks order
 * before it; a missed wait reads a value not yet written). Every schedule
 * (static, static with a chunk, dynamic, guided, runtime), a 2-D nest with
 * sinks in both dimensions and sinks outside the iteration space, the same
 * nest collapsed (a row's iterations on several threads), an
 * unsigned long long loop, a nowait loop, and a loop with a task
 * reduction (gcc's generic GOMP_loop_doacross_start), and a nest of 20
 * ordered loops. */
#include <string.h>

#include "gomp-check.h"

enum { N = 2000, R = 40, C = 60 };

static long a[N];
static int runs[N];

static void reset(void)
{
    memset(a, 0, sizeof a);
    memset(runs, 0, sizeof runs);
    a[0] = 1;
}

static void check_chain(const char *what)
{
    int once = 0, right = 0;
    for (int i = 1; i < N; i++) {
        once += runs[i] == 1;
        right += a[i] == a[i - 1] + i;
    }
    EXPECT_EQ(once, N - 1, what);
    EXPECT_EQ(right, N - 1, what);
}

/* a[i] = a[i-1] + i, in order through the sink on i - 1 */
#define CHAIN(schedule_clause, what)                                                    \
    do {                                                                                \
        reset();                                                                        \
        PRAGMA(omp parallel for ordered(1) schedule_clause)                             \
        for (int i = 1; i < N; i++) {                                                   \
            PRAGMA(omp ordered depend(sink : i - 1))                                    \
            a[i] = a[i - 1] + i;                                                        \
            __atomic_fetch_add(&runs[i], 1, __ATOMIC_RELAXED);                          \
            PRAGMA(omp ordered depend(source))                                          \
        }                                                                               \
        check_chain(what);                                                              \
    } while (0)

/* A 2-D wavefront: g[i][j] from its upper and left neighbours (sinks
 * (i-1, j) and (i, j-1)), and a sink two rows up and one column right
 * (far = 1), outside the space at the edges, past the last column too;
 * the same serially in want. libomp 22 waits for ever on clang's sink past
 * the last column (it takes clang's upper bound, the iteration count, as
 * inclusive), so there the far sink is one column left (far = -1). */
static long g[R][C], want[R][C];
static int seen[R][C];
static int far;

static long cell(long (*m)[C], int i, int j)
{
    long up = i > 0 ? m[i - 1][j] : 0, left = j > 0 ? m[i][j - 1] : 0;
    int fj = j + far;
    long diag = i > 1 && fj >= 0 && fj < C ? m[i - 2][fj] : 0;
    return (up + left + diag) % 1000003 + 1;
}

static void check_wave(const char *what)
{
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            want[i][j] = cell(want, i, j);
    int same = 0, once = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            same += g[i][j] == want[i][j];
            once += seen[i][j] == 1;
        }
    EXPECT_EQ(same, R * C, what);
    EXPECT_EQ(once, R * C, what);
}

#define WAVE(clauses, op, what)                                                         \
    do {                                                                                \
        far = 0 op 1;                                                                   \
        memset(g, 0, sizeof g);                                                         \
        memset(seen, 0, sizeof seen);                                                   \
        PRAGMA(omp parallel for clauses)                                                \
        for (int i = 0; i < R; i++)                                                     \
            for (int j = 0; j < C; j++) {                                               \
                PRAGMA(omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)      \
                           depend(sink : i - 2, j op 1))                                \
                g[i][j] = cell(g, i, j);                                                \
                seen[i][j]++;                                                           \
                PRAGMA(omp ordered depend(source))                                      \
            }                                                                           \
        check_wave(what);                                                               \
    } while (0)

static void wavefront(int past_end)
{
    if (past_end) {
        WAVE(ordered(2) schedule(dynamic, 1), +, "2-D doacross");
        /* both loops workshared: a row's iterations on different threads */
        WAVE(collapse(2) ordered(2) schedule(dynamic, 3), +, "collapsed 2-D doacross");
        WAVE(collapse(2) ordered(2) schedule(static, 1), +, "collapsed 2-D doacross, static");
    } else {
        WAVE(ordered(2) schedule(dynamic, 1), -, "2-D doacross");
        WAVE(collapse(2) ordered(2) schedule(dynamic, 3), -, "collapsed 2-D doacross");
        WAVE(collapse(2) ordered(2) schedule(static, 1), -, "collapsed 2-D doacross, static");
    }
}

/* An unsigned long long loop (gcc's _ull entry points); its first sink,
 * u - 1 = 0, is outside the space. */
static void ull_loop(void)
{
    reset();
    unsigned long long n = N;
    PRAGMA(omp parallel for ordered(1) schedule(static, 3))
    for (unsigned long long u = 1; u < n; u++) {
        int i = (int)u;
        PRAGMA(omp ordered depend(sink : u - 1))
        a[i] = a[i - 1] + i;
        __atomic_fetch_add(&runs[i], 1, __ATOMIC_RELAXED);
        PRAGMA(omp ordered depend(source))
    }
    check_chain("unsigned long long doacross loop");
}

/* Two doacross loops in one region, the first nowait, and one with a task
 * reduction (GOMP_loop_doacross_start). */
static void in_region(void)
{
    reset();
    static long b[N];
    memset(b, 0, sizeof b);
    long sum = 0;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp for ordered(1) schedule(dynamic, 7) nowait)
        for (int i = 1; i < N; i++) {
            PRAGMA(omp ordered depend(sink : i - 1))
            a[i] = a[i - 1] + i;
            __atomic_fetch_add(&runs[i], 1, __ATOMIC_RELAXED);
            PRAGMA(omp ordered depend(source))
        }
        PRAGMA(omp for ordered(1) reduction(task, + : sum))
        for (int i = 1; i < N; i++) {
            PRAGMA(omp ordered depend(sink : i - 1))
            b[i] = b[i - 1] + 2;
            sum += b[i];
            PRAGMA(omp ordered depend(source))
        }
    }
    check_chain("a nowait doacross loop");
    EXPECT_EQ(b[N - 1], 2L * (N - 1), "doacross loop with a task reduction");
    EXPECT_EQ(sum, (long)(N - 1) * N, "its task reduction");
}

/* ordered(20): the outer loop, eighteen loops of one iteration each, and
 * a loop of two, whose sinks name the row before ((i - 1, ..., k)) and the
 * iteration before in the row ((i, ..., k - 1), outside the space when k
 * is 0): deeper than a fixed table of loops would hold. */
#define ONE(v) for (int v = 0; v < 1; v++)
static long deep[N][2];
static void deep_nest(void)
{
    memset(deep, 0, sizeof deep);
    memset(runs, 0, sizeof runs);
    PRAGMA(omp parallel for ordered(20) schedule(dynamic, 3))
    for (int i = 1; i < N; i++)
        ONE(j1) ONE(j2) ONE(j3) ONE(j4) ONE(j5) ONE(j6) ONE(j7) ONE(j8) ONE(j9)
        ONE(j10) ONE(j11) ONE(j12) ONE(j13) ONE(j14) ONE(j15) ONE(j16) ONE(j17) ONE(j18)
        for (int k = 0; k < 2; k++) {
            _Pragma("omp ordered depend(sink : i - 1, j1, j2, j3, j4, j5, j6, j7, j8, j9, \
j10, j11, j12, j13, j14, j15, j16, j17, j18, k) \
depend(sink : i, j1, j2, j3, j4, j5, j6, j7, j8, j9, \
j10, j11, j12, j13, j14, j15, j16, j17, j18, k - 1)")
            deep[i][k] = deep[i - 1][k] + (k == 1 ? deep[i][0] : 1);
            __atomic_fetch_add(&runs[i], 1, __ATOMIC_RELAXED);
            PRAGMA(omp ordered depend(source))
        }
    for (int i = 1; i < N; i++) {
        EXPECT_EQ(runs[i], 2, "ordered(20): each iteration once");
        EXPECT_EQ(deep[i][0], i, "ordered(20): after the row before");
        EXPECT_EQ(deep[i][1], (long)i * (i + 1) / 2, "ordered(20): after the iteration before");
    }
}

int main(int argc, char **argv)
{
    /* argument "buddypool": the runtime under test is buddypool */
    int on_buddypool = argc > 1 && strcmp(argv[1], "buddypool") == 0;
#ifdef __clang__
    int past_end = on_buddypool;
#else
    int past_end = 1;
    (void)on_buddypool;
#endif
    check_team_size("doacross");
    CHAIN(schedule(static), "static doacross loop");
    CHAIN(schedule(static, 5), "static,5 doacross loop");
    CHAIN(schedule(dynamic), "dynamic doacross loop");
    CHAIN(schedule(guided, 4), "guided doacross loop");
    CHAIN(schedule(runtime), "runtime doacross loop");
    wavefront(past_end);
    ull_loop();
    in_region();
    deep_nest();
    return check_summary("doacross");
}
