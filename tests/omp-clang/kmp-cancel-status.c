/* kmp-cancel-status.c: libomp's kmp_get_cancellation_status(kind), under
 * both of its names (the Fortran one takes the kind by value too): 1 while
 * cancellation of the kind is active for the calling thread, 0 otherwise,
 * on buddypool and on libomp (run with OMP_CANCELLATION=true; at 1, 2 and
 * 4 threads). A thread that activates a cancellation leaves the construct
 * at once, so another thread of the team asks: it waits (bounded) until
 * the canceller has said it is about to cancel, then until the status
 * turns to 1. */
#include <omp.h>
#include <sched.h>
#include <time.h>

#include "gomp-check.h"

/* libomp's exports, in no header; libomp's kinds (those of __kmpc_cancel) */
int kmp_get_cancellation_status(int kind);
int kmp_get_cancellation_status_(int kind);
enum { PARALLEL = 1, LOOP = 2, SECTIONS = 3, TASKGROUP = 4 };

/* the threads that checked before the cancel; the canceller is about to
 * cancel; the threads that saw it (no barrier before the cancel: libomp
 * 22 sometimes deadlocks on one there) */
static int ready, told, seen;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wait up to 10 s for the kind's status to turn to 1; its value then. */
static int status_soon(int kind)
{
    double end = now() + 10;
    while (!kmp_get_cancellation_status(kind) && now() < end)
        sched_yield();
    return kmp_get_cancellation_status(kind);
}

static void none_active(const char *where)
{
    for (int kind = 0; kind <= 5; kind++) {
        EXPECT_EQ(kmp_get_cancellation_status(kind), 0, where);
        EXPECT_EQ(kmp_get_cancellation_status_(kind), 0, where);
    }
}

int main(void)
{
    int team = check_team_size("kmp-cancel-status");
    EXPECT_EQ(omp_get_cancellation(), 1, "cancel-var under OMP_CANCELLATION=true");
    none_active("outside any region");

    /* cancel parallel: seen by the other threads, parallel only */
    PRAGMA(omp parallel)
    {
        none_active("a region, nothing cancelled yet");
        __atomic_fetch_add(&ready, 1, __ATOMIC_RELEASE);
        if (omp_get_thread_num() == 0) {
            while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < omp_get_num_threads())
                sched_yield();
            __atomic_store_n(&told, 1, __ATOMIC_RELEASE);
            PRAGMA(omp cancel parallel)
        } else {
            while (!__atomic_load_n(&told, __ATOMIC_ACQUIRE))
                sched_yield();
            EXPECT_EQ(status_soon(PARALLEL), 1, "cancel parallel: another thread's status");
            EXPECT_EQ(kmp_get_cancellation_status_(PARALLEL), 1, "the Fortran name");
            EXPECT_EQ(kmp_get_cancellation_status(TASKGROUP), 0, "no taskgroup cancelled");
            __atomic_fetch_add(&seen, 1, __ATOMIC_RELAXED);
            PRAGMA(omp cancellation point parallel)
        }
    }
    EXPECT_EQ(seen, team - 1, "every other thread saw the region cancelled");
    none_active("after the cancelled region");

    /* cancel for: seen by the other threads, the loop's kind only */
    told = 0;
    seen = 0;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp for schedule(static, 1))
        for (int i = 0; i < omp_get_num_threads(); i++) {
            if (i == 0) {
                __atomic_store_n(&told, 1, __ATOMIC_RELEASE);
                PRAGMA(omp cancel for)
            } else {
                while (!__atomic_load_n(&told, __ATOMIC_ACQUIRE))
                    sched_yield();
                EXPECT_EQ(status_soon(LOOP), 1, "cancel for: another thread's status");
                EXPECT_EQ(kmp_get_cancellation_status(PARALLEL), 0, "the region goes on");
                __atomic_fetch_add(&seen, 1, __ATOMIC_RELAXED);
                PRAGMA(omp cancellation point for)
            }
        }
        /* libomp 22's team of one keeps the loop's request after the loop */
        if (omp_get_num_threads() > 1)
            none_active("after the cancelled loop");
    }
    EXPECT_EQ(seen, team - 1, "every other thread saw the loop cancelled");

    /* cancel taskgroup: the generating task's taskgroup, once its task ran */
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp taskgroup)
        {
            EXPECT_EQ(kmp_get_cancellation_status(TASKGROUP), 0, "a taskgroup, not cancelled");
            PRAGMA(omp task)
            {
                PRAGMA(omp cancel taskgroup)
            }
            PRAGMA(omp taskwait)
            EXPECT_EQ(kmp_get_cancellation_status(TASKGROUP), 1, "cancel taskgroup");
            EXPECT_EQ(kmp_get_cancellation_status(PARALLEL), 0, "the region goes on");
        }
        EXPECT_EQ(kmp_get_cancellation_status(TASKGROUP), 0, "after the taskgroup");
    }
    none_active("at the end");
    return check_summary("kmp-cancel-status");
}
