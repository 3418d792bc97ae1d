/* gomp-ordered.c: ordered loops compiled by gcc -fopenmp
 * (GOMP_loop_ordered_*, GOMP_loop_ull_ordered_*, GOMP_ordered_start/end):
 * under every schedule the ordered regions run in iteration order, each
 * once, also when only some iterations have one and when iterations take
 * uneven time. */
#include <omp.h>
#include <string.h>

#include "gomp-check.h"

enum { N = 600 };

static volatile int v_n = N;
static volatile long v_hi = 3000, v_lo = -600;
static volatile unsigned long long v_top = ~0ull;

/* Written only inside the ordered regions of one loop, so plain accesses
 * suffice; two loops in a row (the first mostly nowait) each have their own. */
static long seq[N], seq2[N];
static int pos, pos2;

/* Uneven work, so threads reach their ordered regions out of turn. */
static void spin(int i)
{
    volatile int sink = 0;
    for (int k = 0; k < (i * 7919) % 13 * 200; k++)
        sink += k;
}

static void expect_sequence(const char *what, int count, long first, long step)
{
    EXPECT_EQ(pos, count, what);
    for (int k = 0; k < count && k < pos; k++)
        if (seq[k] != first + k * step) {
            EXPECT_EQ(seq[k], first + k * step, what);
            break;
        }
}

/* NOWAIT: nowait, or nothing; libgomp 12 loses the order, or deadlocks, when
 * an ordered loop with a chunked static schedule and nowait is followed by
 * another ordered loop, so those schedules run without it. */
#define ORDERED_TEST(tag, NOWAIT, ...)                                                 \
    static void ordered_##tag(const char *what)                                        \
    {                                                                                  \
        int n = v_n;                                                                   \
        long hi = v_hi, lo = v_lo;                                                     \
        unsigned long long top = v_top;                                                \
        char label[160];                                                               \
        pos = 0;                                                                       \
        PRAGMA(omp parallel)                                                           \
        {                                                                              \
            PRAGMA(omp for ordered __VA_ARGS__)                                        \
            for (int i = 0; i < n; i++) {                                              \
                spin(i);                                                               \
                PRAGMA(omp ordered)                                                    \
                seq[pos++] = i;                                                        \
            }                                                                          \
        }                                                                              \
        snprintf(label, sizeof label, "%s, int up", what);                             \
        expect_sequence(label, n, 0, 1);                                               \
                                                                                       \
        pos = pos2 = 0;                                                                \
        PRAGMA(omp parallel)                                                           \
        {                                                                              \
            /* two loops in a row, the first NOWAIT; every third iteration */          \
            /* has no ordered region */                                                \
            PRAGMA(omp for ordered NOWAIT __VA_ARGS__)                                 \
            for (long i = hi; i > lo; i -= 6) {                                        \
                spin((int)i);                                                          \
                if (i % 18 != 0) {                                                     \
                    PRAGMA(omp ordered)                                                \
                    seq[pos++] = i;                                                    \
                }                                                                      \
            }                                                                          \
            PRAGMA(omp for ordered __VA_ARGS__)                                        \
            for (unsigned long long i = top; i > top - 3 * (unsigned long long)n;      \
                 i -= 3) {                                                             \
                spin((int)i);                                                          \
                PRAGMA(omp ordered)                                                    \
                seq2[pos2++] = (long)(top - i);                                        \
            }                                                                          \
        }                                                                              \
        snprintf(label, sizeof label, "%s, long down, some ordered", what);            \
        int some = 0;                                                                  \
        for (long i = hi; i > lo; i -= 6)                                              \
            if (i % 18 != 0) {                                                         \
                if (seq[some] != i) {                                                  \
                    EXPECT_EQ(seq[some], i, label);                                    \
                    break;                                                             \
                }                                                                      \
                some++;                                                                \
            }                                                                          \
        EXPECT_EQ(some, 400, label);                                                   \
        EXPECT_EQ(pos, some, label);                                                   \
        snprintf(label, sizeof label, "%s, unsigned long long down", what);            \
        EXPECT_EQ(pos2, n, label);                                                     \
        for (int k = 0; k < n && k < pos2; k++)                                        \
            if (seq2[k] != 3l * k) {                                                   \
                EXPECT_EQ(seq2[k], 3l * k, label);                                     \
                break;                                                                 \
            }                                                                          \
    }

ORDERED_TEST(default, nowait, )
ORDERED_TEST(static, nowait, schedule(static))
ORDERED_TEST(static1, , schedule(static, 1))
ORDERED_TEST(static7, , schedule(static, 7))
ORDERED_TEST(dynamic, nowait, schedule(dynamic))
ORDERED_TEST(dynamic3, nowait, schedule(dynamic, 3))
ORDERED_TEST(monotonic_dynamic, nowait, schedule(monotonic: dynamic, 2))
ORDERED_TEST(guided, nowait, schedule(guided))
ORDERED_TEST(guided4, nowait, schedule(guided, 4))
ORDERED_TEST(runtime, , schedule(runtime))

/* A combined parallel for with ordered: gcc calls GOMP_parallel and the
 * ordered start inside. */
static void parallel_for_ordered(void)
{
    pos = 0;
    PRAGMA(omp parallel for ordered schedule(dynamic, 2))
    for (int i = 0; i < N; i++) {
        spin(i);
        PRAGMA(omp ordered)
        seq[pos++] = i;
    }
    expect_sequence("parallel for ordered schedule(dynamic, 2)", N, 0, 1);
}

int main(void)
{
    check_team_size("gomp-ordered");
    ordered_default("ordered");
    ordered_static("ordered schedule(static)");
    ordered_static1("ordered schedule(static, 1)");
    ordered_static7("ordered schedule(static, 7)");
    ordered_dynamic("ordered schedule(dynamic)");
    ordered_dynamic3("ordered schedule(dynamic, 3)");
    ordered_monotonic_dynamic("ordered schedule(monotonic: dynamic, 2)");
    ordered_guided("ordered schedule(guided)");
    ordered_guided4("ordered schedule(guided, 4)");
    static const struct {
        omp_sched_t kind;
        int chunk;
        const char *name;
    } runtime[] = {
        {omp_sched_static, 0, "ordered schedule(runtime) as static"},
        {omp_sched_static, 2, "ordered schedule(runtime) as static,2"},
        {omp_sched_dynamic, 0, "ordered schedule(runtime) as dynamic"},
        {omp_sched_dynamic, 4, "ordered schedule(runtime) as dynamic,4"},
        {omp_sched_guided, 3, "ordered schedule(runtime) as guided,3"},
        {omp_sched_auto, 0, "ordered schedule(runtime) as auto"},
    };
    for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++) {
        omp_set_schedule(runtime[i].kind, runtime[i].chunk);
        ordered_runtime(runtime[i].name);
    }
    parallel_for_ordered();
    return check_summary("gomp-ordered");
}
