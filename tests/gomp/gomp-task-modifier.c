/* gomp-task-modifier.c: reductions with the task modifier
 * (reduction(task, ...)) on parallel, for (static and dynamic), sections
 * and, for gcc, scope: gcc's GOMP_parallel_reductions, GOMP_loop_start,
 * GOMP_sections2_start, GOMP_scope_start and
 * GOMP_workshare_task_reduction_unregister; clang's
 * __kmpc_taskred_modifier_init and _modifier_fini. Every implicit task or
 * iteration contributes, and so does every task with in_reduction,
 * whichever thread runs it and whichever made it; results are exact.
 * Validated on libgomp and libomp, at 1, 2 and 4 threads. */
#include <omp.h>

#include "gomp-check.h"

int main(void)
{
    /* the program's first region, of 3 threads: the copies are made for
     * the team it gets, before the pool has started */
    long first = 0;
    int first_team = 0;
    PRAGMA(omp parallel num_threads(3) reduction(task, + : first) shared(first_team))
    {
        first += 1000;
        PRAGMA(omp single)
        first_team = omp_get_num_threads();
        PRAGMA(omp task in_reduction(+ : first))
        first += 1;
    }
    EXPECT_EQ(first_team, 3, "the first region's team");
    EXPECT_EQ(first, 3 * 1001, "the first region's task reduction");

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

    /* worksharing constructs, one after another, in regions one after
     * another: each has its own reduction */
    for (int round = 0; round < 20; round++) {
        long a = 0, b = 0, c = 0, d = 0, e = 0;
        PRAGMA(omp parallel shared(a, b, c, d, e))
        {
            PRAGMA(omp for reduction(task, + : a))
            for (int i = 0; i < 100; i++) {
                a += 1;
                PRAGMA(omp task in_reduction(+ : a) firstprivate(i))
                a += i;
            }
            PRAGMA(omp for schedule(dynamic, 3) reduction(task, + : b))
            for (int i = 0; i < 50; i++) {
                PRAGMA(omp task in_reduction(+ : b) firstprivate(i))
                b += 2 * i;
            }
            PRAGMA(omp sections reduction(task, + : c))
            {
                PRAGMA(omp section)
                {
                    PRAGMA(omp task in_reduction(+ : c))
                    c += 5;
                }
                PRAGMA(omp section)
                c += 7;
            }
#ifndef __clang__ /* clang-22 takes the task modifier on parallel and loops only */
            PRAGMA(omp scope reduction(task, + : d))
            {
                PRAGMA(omp task in_reduction(+ : d))
                d += 3;
                /* a loop with task reductions of its own inside it */
                PRAGMA(omp for reduction(task, + : e))
                for (int i = 0; i < 10; i++) {
                    PRAGMA(omp task in_reduction(+ : e, d) firstprivate(i))
                    {
                        e += i;
                        d += 100;
                    }
                }
            }
#endif
        }
        EXPECT_EQ(a, 100 + 4950, "for reduction(task, +): iterations and their tasks");
        EXPECT_EQ(b, 2 * 1225, "a dynamic loop's own task reduction");
        EXPECT_EQ(c, 12, "sections reduction(task, +)");
#ifndef __clang__
        EXPECT_EQ(d, 3 * team + 1000, "scope reduction(task, +): a task per thread, and the loop's");
        EXPECT_EQ(e, 45, "a loop's task reduction inside a scope's");
#endif
    }
    return check_summary("gomp-task-modifier");
}
