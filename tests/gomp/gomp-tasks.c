/* gomp-tasks.c: explicit tasks, built by gcc (GOMP_task, GOMP_taskwait,
 * GOMP_taskyield, GOMP_taskgroup_*) and by clang (__kmpc_omp_task_alloc,
 * __kmpc_omp_task, the if(0) pair, __kmpc_omp_taskwait, __kmpc_taskgroup):
 * every task runs exactly once, a taskwait waits for the children, a
 * taskgroup for every descendant, a barrier and the region's end for every
 * task; if(0) and final tasks run at once, on the thread that makes them;
 * firstprivate data of any size and alignment arrives intact; detach waits
 * for omp_fulfill_event. Run at 1, 2 and 4 threads. */
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "gomp-check.h"

enum { MANY = 20000, PER_THREAD = 1000, MAX_THREADS = 64 };

static int hits[MANY];

static void clear_hits(void) { memset(hits, 0, sizeof hits); }

static void expect_each_once(int n, const char *what)
{
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (hits[i] != 1)
            bad++;
    EXPECT_EQ(bad, 0, what);
}

static void hit(int i) { __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED); }

/* One thread makes many tasks (more than a thread's queue holds); the
 * single's barrier completes them. */
static void single_producer(void)
{
    clear_hits();
    int ran_on[MAX_THREADS] = {0};
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single)
        for (int i = 0; i < MANY; i++) {
            PRAGMA(omp task firstprivate(i) shared(ran_on))
            {
                hit(i);
                int me = omp_get_thread_num();
                EXPECT_GE(me, 0, "single producer: thread number");
                EXPECT_LE(me, omp_get_num_threads() - 1, "single producer: thread number");
                if (me < MAX_THREADS)
                    __atomic_fetch_add(&ran_on[me], 1, __ATOMIC_RELAXED);
            }
        }
        /* the single's barrier: every task is complete */
        expect_each_once(MANY, "single producer, after the barrier");
    }
    int sum = 0;
    for (int i = 0; i < MAX_THREADS; i++)
        sum += ran_on[i];
    EXPECT_EQ(sum, MANY, "single producer: tasks counted by thread");
}

/* The primary thread makes them with no barrier after: the region's end
 * completes them. */
static void master_producer(void)
{
    clear_hits();
    PRAGMA(omp parallel)
    {
        PRAGMA(omp master)
        for (int i = 0; i < MANY; i++) {
            PRAGMA(omp task firstprivate(i))
            hit(i);
        }
    }
    expect_each_once(MANY, "master producer, after the region");
}

/* Every thread makes its own; a taskwait completes the thread's children,
 * the barrier everyone's. */
static void all_produce(void)
{
    clear_hits();
    PRAGMA(omp parallel)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        int first = me * PER_THREAD;
        if (n * PER_THREAD <= MANY) {
            for (int i = first; i < first + PER_THREAD; i++) {
                PRAGMA(omp task firstprivate(i))
                hit(i);
            }
            PRAGMA(omp taskwait)
            int bad = 0;
            for (int i = first; i < first + PER_THREAD; i++)
                if (__atomic_load_n(&hits[i], __ATOMIC_RELAXED) != 1)
                    bad++;
            EXPECT_EQ(bad, 0, "all produce: a thread's tasks after its taskwait");
            for (int i = first; i < first + PER_THREAD; i++) {
                PRAGMA(omp task firstprivate(i))
                hit(i);
            }
            PRAGMA(omp barrier)
            bad = 0;
            for (int i = 0; i < n * PER_THREAD; i++)
                if (__atomic_load_n(&hits[i], __ATOMIC_RELAXED) != 2)
                    bad++;
            EXPECT_EQ(bad, 0, "all produce: every task after the barrier");
        }
    }
}

static long fib(int n)
{
    if (n < 2)
        return n;
    long a, b;
    PRAGMA(omp task shared(a) firstprivate(n))
    a = fib(n - 1);
    PRAGMA(omp task shared(b) firstprivate(n))
    b = fib(n - 2);
    PRAGMA(omp taskwait)
    return a + b;
}

/* Recursive tasks, each waiting for its two children. */
static void recursive(void)
{
    long r = 0;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single)
        r = fib(20);
    }
    EXPECT_EQ(r, 6765, "fib(20) with tasks");
}

/* A taskwait waits for the children, not for the grandchildren; a
 * taskgroup for all descendants. */
static void group(void)
{
    int children = 0, grandchildren = 0;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single)
        {
            PRAGMA(omp taskgroup)
            {
                for (int i = 0; i < 50; i++) {
                    PRAGMA(omp task shared(children, grandchildren))
                    {
                        for (int j = 0; j < 20; j++) {
                            PRAGMA(omp task shared(grandchildren))
                            __atomic_fetch_add(&grandchildren, 1, __ATOMIC_RELAXED);
                        }
                        __atomic_fetch_add(&children, 1, __ATOMIC_RELAXED);
                    }
                }
            }
            EXPECT_EQ(__atomic_load_n(&children, __ATOMIC_RELAXED), 50, "taskgroup: children");
            EXPECT_EQ(__atomic_load_n(&grandchildren, __ATOMIC_RELAXED), 1000,
                      "taskgroup: grandchildren");
            int k = 0;
            PRAGMA(omp task shared(k))
            {
                PRAGMA(omp task shared(k))
                __atomic_fetch_add(&k, 1, __ATOMIC_RELAXED);
                PRAGMA(omp taskwait)
                __atomic_fetch_add(&k, 10, __ATOMIC_RELAXED);
            }
            PRAGMA(omp taskwait)
            EXPECT_EQ(__atomic_load_n(&k, __ATOMIC_RELAXED), 11, "taskwait in a task");
        }
    }
}

/* if(0) runs the task at once on its maker; final makes every descendant
 * run at once too, and omp_in_final says so. */
static void undeferred(void)
{
    PRAGMA(omp parallel)
    {
        int me = omp_get_thread_num();
        int ran = 0, on = -1, in_final = -1;
        PRAGMA(omp task if (0) shared(ran, on))
        {
            ran = 1;
            on = omp_get_thread_num();
        }
        EXPECT_EQ(ran, 1, "if(0): ran before the construct's end");
        EXPECT_EQ(on, me, "if(0): on its maker");
        EXPECT_EQ(omp_in_final(), 0, "omp_in_final outside a final task");
#ifdef __clang__ /* OpenMP 5.2: LLVM's header and libomp have it, gcc 12's not */
        EXPECT_EQ(omp_in_explicit_task(), 0, "omp_in_explicit_task in an implicit task");
        int explicit_in = -1;
        PRAGMA(omp task shared(explicit_in))
        explicit_in = omp_in_explicit_task();
        PRAGMA(omp taskwait)
        EXPECT_EQ(explicit_in, 1, "omp_in_explicit_task in a task");
#endif
        ran = 0;
        PRAGMA(omp task final(1) shared(ran, in_final))
        {
            in_final = omp_in_final();
            int inner = 0;
            PRAGMA(omp task shared(inner))
            inner = omp_in_final() ? 2 : 1;
            EXPECT_EQ(inner, 2, "final: a child runs at once, final too");
            ran = 1;
        }
        PRAGMA(omp taskwait)
        EXPECT_EQ(ran, 1, "final task ran");
        EXPECT_EQ(in_final, 1, "omp_in_final in a final task");
        int m = 0;
        PRAGMA(omp task mergeable shared(m))
        m = 1;
        PRAGMA(omp taskwait)
        EXPECT_EQ(m, 1, "mergeable");
    }
}

struct big {
    _Alignas(64) double v[40];
    int tag;
};

/* firstprivate data: a large aligned struct and a variable-length array
 * (gcc copies those with a copy function), as they were at the task's
 * making. */
static void data(void)
{
    int bad = 0;
    PRAGMA(omp parallel shared(bad))
    {
        PRAGMA(omp single)
        for (int k = 0; k < 200; k++) {
            struct big b;
            for (int i = 0; i < 40; i++)
                b.v[i] = k * 100 + i;
            b.tag = k;
            int n = 1 + k % 17;
#ifdef __clang__ /* clang takes no variable-length array in firstprivate */
            int vla[17];
#else
            int vla[n];
#endif
            for (int i = 0; i < n; i++)
                vla[i] = k + i;
            PRAGMA(omp task firstprivate(b, vla, k, n) shared(bad))
            {
                int wrong = ((uintptr_t)&b % 64) != 0 || b.tag != k;
                for (int i = 0; i < 40; i++)
                    wrong |= b.v[i] != k * 100 + i;
                for (int i = 0; i < n; i++)
                    wrong |= vla[i] != k + i;
                if (wrong)
                    __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
            }
            b.tag = -1; /* the task has its own copy */
            for (int i = 0; i < n; i++)
                vla[i] = -1;
        }
    }
    EXPECT_EQ(bad, 0, "firstprivate data arrives intact");
}

/* Untied tasks with scheduling points inside (clang splits them in parts). */
static void untied(void)
{
    clear_hits();
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single)
        for (int i = 0; i < 500; i++) {
            PRAGMA(omp task untied firstprivate(i))
            {
                PRAGMA(omp task firstprivate(i))
                hit(i);
                PRAGMA(omp taskyield)
                PRAGMA(omp taskwait)
                EXPECT_EQ(__atomic_load_n(&hits[i], __ATOMIC_RELAXED), 1,
                          "untied: child done after taskwait");
                hit(i + 500);
            }
        }
    }
    expect_each_once(1000, "untied tasks and their children");
}

/* detach: the task is complete when its body has run and its event has
 * been fulfilled, by another task here. */
static void detach(void)
{
    int body = 0, after = 0;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single)
        {
            omp_event_handle_t ev;
            memset(&ev, 0, sizeof ev);
            PRAGMA(omp task detach(ev) shared(body))
            __atomic_store_n(&body, 1, __ATOMIC_RELAXED);
            PRAGMA(omp task firstprivate(ev) shared(after))
            {
                __atomic_store_n(&after, 1, __ATOMIC_RELAXED);
                omp_fulfill_event(ev);
            }
            PRAGMA(omp taskwait)
            EXPECT_EQ(body, 1, "detach: body ran");
            EXPECT_EQ(after, 1, "detach: fulfilled");
        }
    }
}

/* A task that forks a region, and tasks inside nested regions. */
static void nested(void)
{
    int inner_threads = 0, inner_tasks = 0, outer = 0;
    omp_set_max_active_levels(2);
    PRAGMA(omp parallel num_threads(2))
    {
        PRAGMA(omp single)
        {
            outer = omp_get_num_threads();
            PRAGMA(omp task shared(inner_threads))
            {
                PRAGMA(omp parallel num_threads(2))
                {
                    PRAGMA(omp atomic)
                    inner_threads++;
                }
            }
        }
        PRAGMA(omp parallel num_threads(2) shared(inner_tasks))
        {
            for (int i = 0; i < 100; i++) {
                PRAGMA(omp task shared(inner_tasks))
                __atomic_fetch_add(&inner_tasks, 1, __ATOMIC_RELAXED);
            }
        }
    }
    omp_set_max_active_levels(1);
    EXPECT_EQ(outer, 2, "nested: the outer team");
    EXPECT_EQ(inner_threads, 2, "a region forked by a task");
    EXPECT_EQ(inner_tasks, outer * 2 * 100, "tasks in nested regions, each once");
}

/* The primary thread makes tasks while the others wait in a blocking
 * reduction (clang's __kmpc_reduce) that follows the master: they are not
 * at the join, and must not be taken for it. */
static void master_then_reduction(void)
{
    long s = 0;
    int made = 0;
    PRAGMA(omp parallel shared(made))
    {
        PRAGMA(omp master)
        {
            struct timespec ts = {0, 20 * 1000 * 1000}; /* the others reach the reduction */
            nanosleep(&ts, NULL);
            for (int i = 0; i < 20; i++) {
                PRAGMA(omp task shared(made))
                __atomic_fetch_add(&made, 1, __ATOMIC_RELAXED);
            }
        }
        PRAGMA(omp for reduction(+: s))
        for (int i = 0; i < 100; i++)
            s += i;
    }
    EXPECT_EQ(s, 4950, "a reduction after a master that makes tasks");
    EXPECT_EQ(made, 20, "the master's tasks");
}

/* Outside any region, and in a team of one: tasks run at once. */
static void serial(void)
{
    int x = 0;
    PRAGMA(omp task shared(x))
    x = 1;
    EXPECT_EQ(x, 1, "a task outside any region runs at once");
    PRAGMA(omp taskwait)
    PRAGMA(omp parallel num_threads(1))
    {
        PRAGMA(omp task shared(x))
        x = 2;
    }
    EXPECT_EQ(x, 2, "a task in a team of one, after the region");
}

/* The affinity clause (OpenMP 5.0) is a hint: the tasks still each run
 * once (clang calls __kmpc_omp_reg_task_with_affinity; gcc drops it). */
static void affinity(void)
{
    clear_hits();
    int near[MANY];
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    for (int i = 0; i < MANY; i++) {
        PRAGMA(omp task firstprivate(i) affinity(near[i]))
        hit(i);
    }
    expect_each_once(MANY, "tasks with an affinity clause");
    (void)near;
}

int main(void)
{
    check_team_size("gomp-tasks");
    affinity();
    for (int round = 0; round < 3; round++) {
        single_producer();
        master_producer();
        all_produce();
        recursive();
        group();
        undeferred();
        data();
        untied();
        detach();
        nested();
        master_then_reduction();
        serial();
    }
    return check_summary("gomp-tasks");
}
