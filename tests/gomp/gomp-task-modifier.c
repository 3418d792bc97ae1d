/* gomp-task-modifier.c: reductions with the task modifier on parallel
 * (reduction(task, ...): gcc's GOMP_parallel_reductions). Every implicit
 * task contributes, and so does every task with in_reduction, whichever
 * thread runs it and whichever made it; results are exact. Built by gcc
 * and clang (__kmpc_taskred_modifier_init, _modifier_fini), validated on
 * libgomp and libomp, at 1, 2 and 4 threads. */
#include <omp.h>

#include "gomp-check.h"

int main(void)
{
    int team = check_team_size("gomp-task-modifier");
    long x = 0;
    double p = 1;
    int seen = 0;
    PRAGMA(omp parallel reduction(task, + : x) reduction(task, * : p) shared(seen))
    {
        x += 1; /* the implicit task's own part */
        PRAGMA(omp single)
        {
            seen = omp_get_num_threads();
            for (int i = 0; i < 100; i++) {
                PRAGMA(omp task in_reduction(+ : x) in_reduction(* : p) firstprivate(i))
                {
                    x += i;
                    if (i % 10 == 0)
                        p *= 2;
                }
            }
        }
    }
    EXPECT_EQ(seen, team, "the region's team");
    EXPECT_EQ(x, (long)team + 4950, "reduction(task, +) over the implicit tasks and 100 tasks");
    EXPECT_DEQ(p, 1024.0, "reduction(task, *) over 10 tasks");

    /* every thread makes tasks; a nested taskgroup has a reduction of its own */
    long y = 0, z = 0;
    PRAGMA(omp parallel num_threads(3) reduction(task, + : y))
    {
        int me = omp_get_thread_num();
        for (int k = 0; k < 10; k++) {
            PRAGMA(omp task in_reduction(+ : y) firstprivate(me))
            y += me + 1;
        }
        long local = 0;
        PRAGMA(omp taskgroup task_reduction(+ : local))
        {
            for (int k = 0; k < 5; k++) {
                PRAGMA(omp task in_reduction(+ : local, y))
                {
                    local += 2;
                    y += 100;
                }
            }
        }
        PRAGMA(omp atomic)
        z += local;
    }
    EXPECT_EQ(y, 10 * (1 + 2 + 3) + 3 * 5 * 100, "tasks of every thread, nested taskgroups too");
    EXPECT_EQ(z, 3 * 10, "a nested taskgroup's own reduction");
    return check_summary("gomp-task-modifier");
}
