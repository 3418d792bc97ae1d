/* gomp-task-wake.c: a thread asleep in a barrier or at the join wakes when
 * a task is queued. One thread lingers (30 ms: longer than the waits'
 * 2 ms spin, so the others are asleep by then, at once under
 * OMP_WAIT_POLICY=passive), then makes one task per thread of the team;
 * each task waits until all of them have started, so they must run at
 * once, one on every thread. A runtime that left the sleepers asleep would
 * run them one after the other on the maker: each task gives up after 10 s
 * and the failure is counted, not hung. The tasks are made where the
 * others wait: in a single (its barrier), before an explicit barrier, in a
 * single whose maker waits in taskwait, and by thread 0 while the workers
 * are at the join. Built by gcc, validated on libgomp; at 1, 2 and 4
 * threads (4 oversubscribes a 2-CPU machine), also passive. */
#include <omp.h>
#include <sched.h>
#include <time.h>

#include "gomp-check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void linger(void)
{
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static int started, met_all, gave_up;

/* One of n tasks that must run at once: wait until all n have started. */
static void meet(int n)
{
    __atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
    double t0 = now_s();
    while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < n) {
        if (now_s() - t0 > 10) {
            __atomic_fetch_add(&gave_up, 1, __ATOMIC_RELAXED);
            return;
        }
        sched_yield(); /* 4 threads on 2 CPUs: let the others start */
    }
    __atomic_fetch_add(&met_all, 1, __ATOMIC_RELAXED);
}

/* Make n meeting tasks (the caller's team). */
static void make_tasks(int n)
{
    for (int k = 0; k < n; k++) {
        PRAGMA(omp task)
        meet(n);
    }
}

static void check_round(const char *what, int n)
{
    EXPECT_EQ(__atomic_load_n(&started, __ATOMIC_RELAXED), n, what);
    EXPECT_EQ(__atomic_load_n(&met_all, __ATOMIC_RELAXED), n, what);
    EXPECT_EQ(__atomic_load_n(&gave_up, __ATOMIC_RELAXED), 0, what);
    started = met_all = gave_up = 0;
}

int main(void)
{
    int team = check_team_size("gomp-task-wake");
    for (int round = 0; round < 3; round++) {
        /* the others asleep at the single's barrier */
        PRAGMA(omp parallel)
        {
            PRAGMA(omp single)
            {
                linger();
                make_tasks(omp_get_num_threads());
            }
        }
        check_round("tasks made in a single", team);

        /* the others asleep at an explicit barrier */
        PRAGMA(omp parallel)
        {
            if (omp_get_thread_num() == omp_get_num_threads() - 1) {
                linger();
                make_tasks(omp_get_num_threads());
            }
            PRAGMA(omp barrier)
        }
        check_round("tasks made before a barrier", team);

        /* the maker waits in taskwait, the others at the single's barrier */
        PRAGMA(omp parallel)
        {
            PRAGMA(omp single)
            {
                linger();
                make_tasks(omp_get_num_threads());
                PRAGMA(omp taskwait)
                EXPECT_EQ(__atomic_load_n(&started, __ATOMIC_RELAXED), omp_get_num_threads(),
                          "taskwait: every task complete");
            }
        }
        check_round("tasks made in a single, then taskwait", team);

        /* thread 0 makes them while the workers are at the join */
        PRAGMA(omp parallel)
        {
            if (omp_get_thread_num() == 0) {
                linger();
                make_tasks(omp_get_num_threads());
            }
        }
        check_round("tasks made by thread 0 at the join", team);
    }
    return check_summary("gomp-task-wake");
}
