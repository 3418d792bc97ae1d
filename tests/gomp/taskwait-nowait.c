/* taskwait-nowait.c: `taskwait depend(...) nowait` (OpenMP 5.1) is an
 * empty task with those dependences: it does not hold the thread that
 * meets it, and the tasks after it that depend on its items wait for it,
 * so for the tasks before it. clang calls __kmpc_omp_taskwait_deps_51 with
 * has_no_wait set; gcc 13 and later call GOMP_taskwait_depend_nowait,
 * which gcc 12 cannot emit, so the gcc build calls that entry point
 * itself (libgomp 12 lacks it: buddypool only). Each round: A
 * (out: x) waits for a gate; the taskwait (in: x, out: y) nowait; B
 * (in: y) must see A's write. The maker opens the gate only once the
 * taskwait has returned, so a taskwait that waited for A would wait for
 * ever: A gives up after 5 s and the round fails. With one thread a task
 * may run at once when made, so there is no gate. Nor is there on a peer
 * (argv[1] is not "buddypool"): OpenMP lets the empty task run at once
 * too, which means waiting for A, and libomp 22 does (libgomp runs it
 * later, as buddypool does); the order of B after A holds everywhere. */
#include <omp.h>
#include <string.h>
#include <time.h>

#include "gomp-check.h"

#ifdef __clang__
static void taskwait_nowait(int *x, int *y)
{
    (void)x;
    (void)y;
#pragma omp taskwait depend(in : x[0]) depend(out : y[0]) nowait
}
#else
void GOMP_taskwait_depend_nowait(void **depend);
static void taskwait_nowait(int *x, int *y)
{
    /* gcc's layout: the count, the out/inout count, then those, then ins */
    void *depend[4] = {(void *)2, (void *)1, y, x};
    GOMP_taskwait_depend_nowait(depend);
}
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int team = check_team_size("taskwait-nowait");
    int buddypool = argc > 1 && strcmp(argv[1], "buddypool") == 0;
    int x = 0, y = 0, gate = 0, gave_up = 0, seen = 0;
    printf("taskwait-nowait: %s\n", buddypool ? "the taskwait must not wait" : "order only");
    for (int round = 1; round <= 20; round++) {
#pragma omp parallel shared(x, y, gate, gave_up, seen, buddypool)
#pragma omp single
        {
            int gated = buddypool && omp_get_num_threads() > 1;
            __atomic_store_n(&gate, !gated, __ATOMIC_RELEASE);
#pragma omp task depend(out : x) shared(x, gate, gave_up)
            {
                double t0 = now_s();
                while (!__atomic_load_n(&gate, __ATOMIC_ACQUIRE))
                    if (now_s() - t0 > 5) {
                        __atomic_store_n(&gave_up, 1, __ATOMIC_RELAXED);
                        break;
                    }
                x = round;
            }
            taskwait_nowait(&x, &y);
            EXPECT_EQ(__atomic_load_n(&gave_up, __ATOMIC_RELAXED), 0,
                      "the taskwait did not wait for the task before it");
            __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
#pragma omp task depend(in : y) shared(x, seen)
            seen = x;
#pragma omp taskwait
            EXPECT_EQ(seen, round, "a task after the taskwait saw the task before it");
        }
    }
    (void)team;
    return check_summary("taskwait-nowait");
}
