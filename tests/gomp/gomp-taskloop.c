/* gomp-taskloop.c: taskloop, built by gcc (GOMP_taskloop, _ull) and by
 * clang (__kmpc_taskloop, __kmpc_taskloop_5): every iteration runs once;
 * grainsize gives tasks of g to 2g-1 iterations and num_tasks exactly that
 * many tasks (each task marks the first iteration it runs, through a
 * firstprivate flag, so the marks count the tasks and measure them);
 * nogroup, downward and unsigned loops, collapse, lastprivate, firstprivate.
 * Run at 1, 2 and 4 threads. */
#include <omp.h>
#include <string.h>
#include <time.h>

#include "gomp-check.h"

enum { N = 1000 };

static int hits[N], marks[N];

static void clear(void)
{
    memset(hits, 0, sizeof hits);
    memset(marks, 0, sizeof marks);
}

static int each_once(int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += hits[i] != 1;
    return bad;
}

/* The tasks' sizes from the marks: their number, smallest and largest. */
static void chunks(int n, int *count, int *least, int *most)
{
    *count = 0;
    *least = n + 1;
    *most = 0;
    int start = -1;
    for (int i = 0; i <= n; i++) {
        if (i == n || marks[i]) {
            if (start >= 0) {
                int len = i - start;
                if (len < *least)
                    *least = len;
                if (len > *most)
                    *most = len;
            }
            if (i < n) {
                start = i;
                ++*count;
            }
        }
    }
}

#define BODY(i)                                                                              \
    do {                                                                                     \
        if (!mine) {                                                                         \
            mine = 1;                                                                        \
            marks[i] = 1;                                                                    \
        }                                                                                    \
        __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);                                   \
    } while (0)

static void grainsize(int g)
{
    clear();
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        int mine = 0;
        PRAGMA(omp taskloop grainsize(g) firstprivate(mine))
        for (int i = 0; i < N; i++)
            BODY(i);
        EXPECT_EQ(each_once(N), 0, "grainsize: each iteration once, at the taskloop's end");
    }
    int count, least, most;
    chunks(N, &count, &least, &most);
    EXPECT_EQ(count, N / g > 0 ? N / g : 1, "grainsize: the number of tasks");
    EXPECT_GE(least, g < N ? g : N, "grainsize: at least g iterations a task");
    EXPECT_LE(most, g < N ? 2 * g - 1 : N, "grainsize: under 2g iterations a task");
}

static void num_tasks(int k)
{
    clear();
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        int mine = 0;
        PRAGMA(omp taskloop num_tasks(k) firstprivate(mine))
        for (int i = 0; i < N; i++)
            BODY(i);
    }
    EXPECT_EQ(each_once(N), 0, "num_tasks: each iteration once");
    int count, least, most;
    chunks(N, &count, &least, &most);
    EXPECT_EQ(count, k < N ? k : N, "num_tasks: that many tasks");
    EXPECT_LE(most - least, 1, "num_tasks: even tasks");
}

static void shapes(void)
{
    /* downward, by 3 */
    clear();
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    PRAGMA(omp taskloop)
    for (int i = N - 1; i >= 0; i -= 3)
        __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += hits[i] != ((N - 1 - i) % 3 == 0);
    EXPECT_EQ(bad, 0, "a downward taskloop by 3");

    /* unsigned long long, upward and downward */
    clear();
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp taskloop grainsize(7))
        for (unsigned long long u = 5; u < N; u += 2)
            __atomic_fetch_add(&hits[u], 1, __ATOMIC_RELAXED);
        PRAGMA(omp taskloop num_tasks(5))
        for (unsigned long long u = N - 2; u > 4; u -= 2)
            __atomic_fetch_add(&hits[u], 1, __ATOMIC_RELAXED);
    }
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += hits[i] != (i >= 5 && i % 2 == 1) + (i > 4 && i % 2 == 0 && i <= N - 2);
    EXPECT_EQ(bad, 0, "unsigned taskloops");

    /* collapse(2) */
    static int grid[40][25];
    memset(grid, 0, sizeof grid);
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    PRAGMA(omp taskloop collapse(2) grainsize(30))
    for (int a = 0; a < 40; a++)
        for (int b = 0; b < 25; b++)
            __atomic_fetch_add(&grid[a][b], 1, __ATOMIC_RELAXED);
    bad = 0;
    for (int a = 0; a < 40; a++)
        for (int b = 0; b < 25; b++)
            bad += grid[a][b] != 1;
    EXPECT_EQ(bad, 0, "collapse(2)");

    /* an empty loop makes no task */
    int ran = 0;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    PRAGMA(omp taskloop shared(ran))
    for (int i = 10; i < 10; i++)
        ran = 1;
    EXPECT_EQ(ran, 0, "an empty taskloop");
}

static void clauses(void)
{
    /* nogroup: complete at the taskwait */
    clear();
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp taskloop nogroup)
        for (int i = 0; i < N; i++)
            __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
        PRAGMA(omp taskwait)
        EXPECT_EQ(each_once(N), 0, "nogroup: complete after the taskwait");
    }

    /* lastprivate and firstprivate */
    int last = -1, base = 100, bad = 0;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    PRAGMA(omp taskloop lastprivate(last) firstprivate(base) grainsize(16) shared(bad))
    for (int i = 0; i < N; i++) {
        if (base != 100)
            __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        last = i * 2;
    }
    EXPECT_EQ(last, (N - 1) * 2, "lastprivate: the last iteration's value");
    EXPECT_EQ(bad, 0, "firstprivate in every task");

    /* if(0) and final: every task runs at once; all iterations done */
    clear();
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp taskloop if (0) num_tasks(4))
        for (int i = 0; i < N; i++)
            __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
        PRAGMA(omp taskloop final(1) grainsize(100))
        for (int i = 0; i < N; i++)
            __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
    }
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += hits[i] != 2;
    EXPECT_EQ(bad, 0, "if(0) and final taskloops");

    /* every thread runs its own taskloop */
    static int per_thread[64][100];
    memset(per_thread, 0, sizeof per_thread);
    int team = 0;
    PRAGMA(omp parallel shared(team))
    {
        int me = omp_get_thread_num();
        PRAGMA(omp single)
        team = omp_get_num_threads();
        if (me < 64) {
            PRAGMA(omp taskloop grainsize(3))
            for (int i = 0; i < 100; i++)
                per_thread[me][i]++;
        }
    }
    bad = 0;
    for (int m = 0; m < team && m < 64; m++)
        for (int i = 0; i < 100; i++)
            bad += per_thread[m][i] != 1;
    EXPECT_EQ(bad, 0, "a taskloop on every thread");
}

/* A taskloop's tasks make a task each that makes another, which outlives
 * both (it sleeps): every one runs once, and none reads a task of the
 * taskloop after it is gone (an ASan build with detect_stack_use_after_return
 * sees a taskloop task on its thread's stack read after it returned). */
static void grandchildren(void)
{
    enum { M = 16 };
    static int child[M], grand[M];
    memset(child, 0, sizeof child);
    memset(grand, 0, sizeof grand);
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    PRAGMA(omp taskloop num_tasks(M))
    for (int i = 0; i < M; i++) {
        PRAGMA(omp task firstprivate(i))
        {
            __atomic_fetch_add(&child[i], 1, __ATOMIC_RELAXED);
            PRAGMA(omp task firstprivate(i))
            {
                struct timespec ts = {0, 200000};
                nanosleep(&ts, NULL);
                __atomic_fetch_add(&grand[i], 1, __ATOMIC_RELAXED);
            }
        }
    }
    int bad = 0;
    for (int i = 0; i < M; i++)
        bad += child[i] != 1 || grand[i] != 1;
    EXPECT_EQ(bad, 0, "a taskloop's tasks' children and grandchildren, once each");
}

int main(void)
{
    check_team_size("gomp-taskloop");
    grandchildren();
    for (int round = 0; round < 2; round++) {
        grainsize(1);
        grainsize(7);
        grainsize(64);
        grainsize(5000);
        num_tasks(1);
        num_tasks(3);
        num_tasks(37);
        num_tasks(5000);
        shapes();
        clauses();
    }
    return check_summary("gomp-taskloop");
}
