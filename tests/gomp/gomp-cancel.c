/* gomp-cancel.c: cancellation with cancel-var false (OMP_CANCELLATION
 * unset: the default of every runtime): `cancel` does nothing and
 * `cancellation point` is no point, so every construct runs to completion.
 * Built by gcc (GOMP_cancel, GOMP_cancellation_point, GOMP_barrier_cancel,
 * GOMP_loop_end_cancel, GOMP_sections_end_cancel) and clang (__kmpc_cancel,
 * __kmpc_cancellationpoint, __kmpc_cancel_barrier). Run at 1, 2 and 4
 * threads. */
#include <omp.h>

#include "gomp-check.h"

enum { N = 1000 };

int main(void)
{
    int team = check_team_size("gomp-cancel");
    EXPECT_EQ(omp_get_cancellation(), 0, "cancel-var");
    int after = 0, iters = 0, sections = 0, tasks = 0;
    PRAGMA(omp parallel shared(after, iters, sections, tasks))
    {
        if (omp_get_thread_num() == 0) {
            PRAGMA(omp cancel parallel)
        }
        PRAGMA(omp cancellation point parallel)
        PRAGMA(omp atomic)
        after++;
        PRAGMA(omp for)
        for (int i = 0; i < N; i++) {
            if (i == 3) {
                PRAGMA(omp cancel for)
            }
            PRAGMA(omp cancellation point for)
            PRAGMA(omp atomic)
            iters++;
        }
        PRAGMA(omp sections)
        {
            PRAGMA(omp section)
            {
                PRAGMA(omp cancel sections)
                PRAGMA(omp atomic)
                sections++;
            }
            PRAGMA(omp section)
            {
                PRAGMA(omp atomic)
                sections++;
            }
        }
        PRAGMA(omp single)
        PRAGMA(omp taskgroup)
        for (int i = 0; i < 100; i++) {
            PRAGMA(omp task shared(tasks))
            {
                if (i == 5) {
                    PRAGMA(omp cancel taskgroup)
                }
                PRAGMA(omp atomic)
                tasks++;
            }
        }
        PRAGMA(omp barrier)
    }
    EXPECT_EQ(after, team, "cancel parallel: every thread goes on");
    EXPECT_EQ(iters, N, "cancel for: every iteration");
    EXPECT_EQ(sections, 2, "cancel sections: every section");
    EXPECT_EQ(tasks, 100, "cancel taskgroup: every task");
    return check_summary("gomp-cancel");
}
