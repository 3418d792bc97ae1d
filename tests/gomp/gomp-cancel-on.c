/* gomp-cancel-on.c: cancellation with cancel-var true (OMP_CANCELLATION=true).
 * Built by gcc (GOMP_cancel, GOMP_cancellation_point, GOMP_barrier_cancel,
 * GOMP_loop_end_cancel, GOMP_sections_end_cancel) and clang (__kmpc_cancel,
 * __kmpc_cancellationpoint, __kmpc_cancel_barrier); run at 1, 2 and 4
 * threads, also with OMP_WAIT_POLICY=passive (waiters asleep in the kernel
 * when cancellation comes).
 *
 * Every check is exact. Where the threads that are not cancelling must
 * meet the cancellation, they wait for it at a cancellation point in a loop
 * (bounded by a deadline, counted as a failure): so code past a
 * cancellation point must never run, whatever the timing. Each case runs
 * many times, and between cancelled regions come regions whose barriers,
 * loops and reductions must still give exact results. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* usleep, under a strict -std */
#endif
#include <omp.h>
#include <time.h>
#include <unistd.h>

#include "gomp-check.h"

enum { ROUNDS = 60, N = 1000, TASKS = 16 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int timeouts; /* waits for a cancellation that never came */

static int late(double start)
{
    if (now() - start < 20.0)
        return 0;
    __atomic_fetch_add(&timeouts, 1, __ATOMIC_RELAXED);
    return 1;
}

/* Wait at a cancellation point of the construct `kind` until its
 * cancellation comes: the code after it must never run (a wait past the
 * deadline is counted, and then it does). */
#define WAIT_FOR_CANCEL(kind)                                                          \
    do {                                                                               \
        double start_ = now();                                                         \
        while (!late(start_)) {                                                        \
            PRAGMA(omp cancellation point kind)                                        \
            usleep(100);                                                               \
        }                                                                              \
    } while (0)

/* A region after a cancelled one: barriers, a loop and a reduction. */
static void normal_region(int team, const char *what)
{
    long sum = 0;
    int arrived = 0, after = 0;
    PRAGMA(omp parallel reduction(+ : sum) shared(arrived, after))
    {
        PRAGMA(omp atomic)
        arrived++;
        PRAGMA(omp barrier)
        EXPECT_EQ(__atomic_load_n(&arrived, __ATOMIC_RELAXED), team, what);
        PRAGMA(omp for schedule(dynamic, 7))
        for (int i = 0; i < N; i++)
            sum += i;
        PRAGMA(omp barrier)
        PRAGMA(omp atomic)
        after++;
    }
    EXPECT_EQ(sum, (long)N * (N - 1) / 2, what);
    EXPECT_EQ(after, team, what);
}

/* cancel parallel: the last thread cancels, after sleeping a while under
 * `slow` (the others are asleep in the barrier by then, under a passive
 * policy); the barrier is a cancellation point, so no thread goes past
 * it. An if(0) cancel before is a cancellation point that finds nothing. */
static void cancel_parallel(int team, int slow)
{
    int before = 0, after = 0, late_code = 0;
    PRAGMA(omp parallel shared(before, after, late_code))
    {
        int me = omp_get_thread_num();
        PRAGMA(omp cancel parallel if (0))
        PRAGMA(omp atomic)
        before++;
        if (me == omp_get_num_threads() - 1) {
            /* every thread past the if(0) cancellation point first */
            double start = now();
            while (__atomic_load_n(&before, __ATOMIC_RELAXED) < omp_get_num_threads() &&
                   !late(start))
                ;
            if (slow)
                usleep(20000);
            PRAGMA(omp cancel parallel)
            PRAGMA(omp atomic)
            late_code++; /* past the cancel: never */
        }
        PRAGMA(omp barrier)
        PRAGMA(omp atomic)
        after++;
    }
    EXPECT_EQ(before, team, "cancel parallel: every thread before it");
    EXPECT_EQ(after, 0, "cancel parallel: no thread past the barrier");
    EXPECT_EQ(late_code, 0, "cancel parallel: the canceller goes to the end");
}

/* cancel parallel while the others are in a loop: they wait at its end
 * (a cancellation point), and none runs past it. */
static void cancel_parallel_in_loop(int team, int dynamic)
{
    int after = 0, iters = 0;
    PRAGMA(omp parallel shared(after, iters))
    {
        if (omp_get_thread_num() == omp_get_num_threads() - 1) {
            usleep(1000);
            PRAGMA(omp cancel parallel)
        }
        if (dynamic) {
            PRAGMA(omp for schedule(dynamic))
            for (int i = 0; i < 64; i++) {
                PRAGMA(omp atomic)
                iters++;
            }
        } else {
            PRAGMA(omp for schedule(static))
            for (int i = 0; i < 64; i++) {
                PRAGMA(omp atomic)
                iters++;
            }
        }
        PRAGMA(omp atomic)
        after++;
    }
    EXPECT_LE(iters, team > 1 ? 64 : 0, "cancel parallel by a loop: its iterations");
    EXPECT_EQ(after, 0, "cancel parallel by a loop: no thread past its end");
}

/* cancel for: thread 0 cancels in its first iteration; every other thread
 * waits for it at a cancellation point in its own first iteration. The
 * team goes on past the loop, and the next loop is not cancelled. */
static void cancel_for(int team)
{
    int first = 0, passed = 0, after = 0, next_iters = 0, late_code = 0;
    PRAGMA(omp parallel shared(first, passed, after, next_iters, late_code))
    {
        PRAGMA(omp for schedule(static, 1))
        for (int i = 0; i < 8 * team; i++) {
            PRAGMA(omp atomic)
            first++;
            if (i == 0) {
                PRAGMA(omp cancel for)
                PRAGMA(omp atomic)
                late_code++;
            } else {
                WAIT_FOR_CANCEL(for);
                PRAGMA(omp atomic)
                passed++;
            }
        }
        PRAGMA(omp atomic)
        after++;
        PRAGMA(omp for schedule(dynamic, 3))
        for (int i = 0; i < N; i++) {
            PRAGMA(omp cancellation point for)
            PRAGMA(omp atomic)
            next_iters++;
        }
    }
    EXPECT_EQ(first, team, "cancel for: one iteration per thread");
    EXPECT_EQ(passed, 0, "cancel for: no thread past its cancellation point");
    EXPECT_EQ(late_code, 0, "cancel for: the canceller leaves the loop");
    EXPECT_EQ(after, team, "cancel for: the team goes on after the loop");
    EXPECT_EQ(next_iters, N, "cancel for: the next loop runs in full");
}

/* cancel sections: the first section cancels; the second waits for it. */
static void cancel_sections(int team)
{
    int ran0 = 0, passed = 0, after = 0, next = 0;
    PRAGMA(omp parallel shared(ran0, passed, after, next))
    {
        PRAGMA(omp sections)
        {
            PRAGMA(omp section)
            {
                PRAGMA(omp atomic)
                ran0++;
                PRAGMA(omp cancel sections)
            }
            PRAGMA(omp section)
            {
                WAIT_FOR_CANCEL(sections);
                PRAGMA(omp atomic)
                passed++;
            }
        }
        PRAGMA(omp atomic)
        after++;
        PRAGMA(omp sections)
        {
            PRAGMA(omp section)
            {
                PRAGMA(omp atomic)
                next++;
            }
            PRAGMA(omp section)
            {
                PRAGMA(omp atomic)
                next++;
            }
        }
    }
    EXPECT_EQ(ran0, 1, "cancel sections: the first section");
    EXPECT_EQ(passed, 0, "cancel sections: the second never past its point");
    EXPECT_EQ(after, team, "cancel sections: the team goes on");
    EXPECT_EQ(next, 2, "cancel sections: the next sections run");
}

/* cancel taskgroup: a task of the taskgroup makes tasks, then cancels it.
 * Each of those waits for the cancellation at a cancellation point, or is
 * discarded unstarted; one that runs on the canceller's thread before the
 * cancellation (at once, as libomp runs tasks in a team of one) cannot
 * wait for it and counts as early. A second taskgroup runs in full. */
static void cancel_taskgroup(void)
{
    int cancelled = 0, passed = 0, late_code = 0, after = 0, second = 0, early = 0;
    int canceller = -1;
    PRAGMA(omp parallel shared(cancelled, passed, late_code, after, second, early, canceller))
    {
        PRAGMA(omp single)
        {
            PRAGMA(omp taskgroup)
            {
                PRAGMA(omp task shared(cancelled, late_code, passed, early, canceller))
                {
                    __atomic_store_n(&canceller, omp_get_thread_num(), __ATOMIC_RELAXED);
                    for (int i = 0; i < TASKS; i++) {
                        PRAGMA(omp task shared(passed, early, canceller, cancelled))
                        {
                            if (omp_get_thread_num() ==
                                    __atomic_load_n(&canceller, __ATOMIC_RELAXED) &&
                                !__atomic_load_n(&cancelled, __ATOMIC_RELAXED)) {
                                PRAGMA(omp atomic)
                                early++;
                            } else {
                                WAIT_FOR_CANCEL(taskgroup);
                                PRAGMA(omp atomic)
                                passed++;
                            }
                        }
                    }
                    PRAGMA(omp atomic)
                    cancelled++;
                    PRAGMA(omp cancel taskgroup)
                    PRAGMA(omp atomic)
                    late_code++;
                }
            }
            after++;
            PRAGMA(omp taskgroup)
            for (int i = 0; i < TASKS; i++) {
                PRAGMA(omp task shared(second))
                {
                    PRAGMA(omp cancellation point taskgroup)
                    PRAGMA(omp atomic)
                    second++;
                }
            }
        }
    }
    EXPECT_EQ(cancelled, 1, "cancel taskgroup: the cancelling task ran");
    EXPECT_EQ(late_code, 0, "cancel taskgroup: the canceller goes to its end");
    EXPECT_EQ(passed, 0, "cancel taskgroup: no task past its cancellation point");
    EXPECT_LE(early, TASKS, "cancel taskgroup: tasks run at most once");
    EXPECT_EQ(after, 1, "cancel taskgroup: the single goes on");
    EXPECT_EQ(second, TASKS, "cancel taskgroup: the next taskgroup runs in full");
}

/* cancel parallel with tasks queued: unstarted ones are discarded, the
 * region ends, and no task runs twice (the count never exceeds those made). */
static void cancel_parallel_tasks(void)
{
    int ran = 0, after = 0;
    PRAGMA(omp parallel shared(ran, after))
    {
        if (omp_get_thread_num() == 0) {
            for (int i = 0; i < TASKS; i++) {
                PRAGMA(omp task shared(ran))
                {
                    PRAGMA(omp atomic)
                    ran++;
                }
            }
            PRAGMA(omp cancel parallel)
        }
        PRAGMA(omp barrier)
        PRAGMA(omp atomic)
        after++;
    }
    EXPECT_LE(ran, TASKS, "cancel parallel: tasks run at most once");
    EXPECT_EQ(after, 0, "cancel parallel with tasks: no thread past the barrier");
}

/* cancel parallel by a worker while thread 0 has not yet met a
 * cancellation point: by the time thread 0 makes its tasks, the others
 * have finished the region's code; then its barrier finds the region
 * cancelled. */
static void cancel_then_tasks(void)
{
    int ran = 0, after = 0;
    PRAGMA(omp parallel shared(ran, after))
    {
        if (omp_get_thread_num() == 0) {
            if (omp_get_num_threads() > 1)
                usleep(2000);
            for (int i = 0; i < TASKS; i++) {
                PRAGMA(omp task shared(ran))
                {
                    PRAGMA(omp atomic)
                    ran++;
                }
            }
        } else if (omp_get_thread_num() == omp_get_num_threads() - 1) {
            PRAGMA(omp cancel parallel)
        }
        PRAGMA(omp barrier)
        PRAGMA(omp atomic)
        after++;
    }
    EXPECT_LE(ran, TASKS, "tasks after a cancel: run at most once");
    EXPECT_EQ(after, omp_get_max_threads() > 1 ? 0 : 1, "tasks after a cancel: the barrier");
}

/* cancel parallel by thread 0 before a loop with task reductions that the
 * others enter; the next such loop, in the next region, is exact. */
static void cancel_task_reduction(int team)
{
    long x = 0;
    PRAGMA(omp parallel shared(x))
    {
        if (omp_get_thread_num() == 0) {
            PRAGMA(omp cancel parallel)
        }
        PRAGMA(omp for reduction(task, + : x))
        for (int i = 0; i < 64; i++) {
            PRAGMA(omp task in_reduction(+ : x))
            x += i;
        }
    }
    long y = 0;
    PRAGMA(omp parallel shared(y))
    {
        PRAGMA(omp for reduction(task, + : y))
        for (int i = 0; i < 64; i++) {
            PRAGMA(omp task in_reduction(+ : y))
            y += i;
        }
    }
    EXPECT_EQ(y, 64 * 63 / 2, "a task reduction after a cancelled one");
    (void)team;
}

/* CANCEL_CASES, if set: the cases to run, by their letters (p
 * parallel, l parallel by a static loop, d by a dynamic one, f for, s sections, g taskgroup, t
 * parallel with tasks, h tasks after a worker's cancel, r a skipped loop
 * with task reductions); all by default. */
int main(void)
{
    const char *cases = getenv("CANCEL_CASES") != NULL ? getenv("CANCEL_CASES") : "pldfsgthr";
    int team = check_team_size("gomp-cancel-on");
    EXPECT_EQ(omp_get_cancellation(), 1, "cancel-var under OMP_CANCELLATION=true");
    for (int r = 0; r < ROUNDS; r++) {
        for (const char *c = cases; *c != '\0'; c++) {
            switch (*c) {
            case 'p': cancel_parallel(team, r % 10 == 0); break;
            case 'l': cancel_parallel_in_loop(team, 0); break;
            case 'd': cancel_parallel_in_loop(team, 1); break;
            case 'f': cancel_for(team); break;
            case 's': cancel_sections(team); break;
            case 'g': cancel_taskgroup(); break;
            case 't': cancel_parallel_tasks(); break;
            case 'h': cancel_then_tasks(); break;
            case 'r': cancel_task_reduction(team); break;
            default: fprintf(stderr, "unknown case '%c'\n", *c); return 2;
            }
            normal_region(team, "a region after a cancelled one");
        }
    }
    EXPECT_EQ(timeouts, 0, "no wait for a cancellation timed out");
    return check_summary("gomp-cancel-on");
}
