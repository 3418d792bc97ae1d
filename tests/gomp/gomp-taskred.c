/* gomp-taskred.c: task reductions, built by gcc
 * (GOMP_taskgroup_reduction_register, GOMP_task_reduction_remap, taskloop
 * reductions) and by clang (__kmpc_taskred_init,
 * __kmpc_task_reduction_get_th_data, the taskgroup's end folding): a
 * taskgroup's task_reduction with in_reduction tasks, from one thread and
 * from all; taskloop reduction; an inner taskgroup's tasks reducing into
 * the outer one's; several operators. Results exact. Run at 1, 2 and 4
 * threads. */
#include <omp.h>

#include "gomp-check.h"

enum { N = 2000 };

static void taskgroup_single(void)
{
    long sum = 0, prod = 1;
    int most = -1;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp taskgroup task_reduction(+: sum) task_reduction(*: prod)
               task_reduction(max: most))
        {
            for (int i = 1; i <= N; i++) {
                PRAGMA(omp task in_reduction(+: sum) in_reduction(*: prod)
                       in_reduction(max: most) firstprivate(i))
                {
                    sum += i;
                    if (i % 500 == 0)
                        prod *= 2;
                    if (i * 7 % N > most)
                        most = i * 7 % N;
                }
            }
        }
        EXPECT_EQ(sum, (long)N * (N + 1) / 2, "task_reduction +: after the taskgroup");
    }
    EXPECT_EQ(sum, (long)N * (N + 1) / 2, "task_reduction +");
    EXPECT_EQ(prod, 16, "task_reduction *");
    EXPECT_EQ(most, N - 1, "task_reduction max");
}

/* Every thread's taskgroup with its own reduction, and nested groups. */
static void taskgroup_all(void)
{
    long total = 0;
    PRAGMA(omp parallel reduction(+: total))
    {
        long mine = 0;
        PRAGMA(omp taskgroup task_reduction(+: mine))
        {
            for (int i = 0; i < 300; i++) {
                PRAGMA(omp task in_reduction(+: mine) firstprivate(i))
                mine += i;
            }
            PRAGMA(omp taskgroup) /* an inner group: its tasks reduce into the outer one */
            for (int i = 0; i < 100; i++) {
                PRAGMA(omp task in_reduction(+: mine))
                mine += 1;
            }
        }
        EXPECT_EQ(mine, 300L * 299 / 2 + 100, "a thread's taskgroup reduction");
        total += mine;
    }
    int threads = 0;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    threads = omp_get_num_threads();
    EXPECT_EQ(total, (300L * 299 / 2 + 100) * threads, "every thread's reductions");
}

static void taskloop_reduction(void)
{
    long sum = 0;
    double dsum = 0;
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp taskloop reduction(+: sum, dsum) grainsize(37))
        for (int i = 0; i < N; i++) {
            sum += i;
            dsum += 0.5 * i;
        }
        EXPECT_EQ(sum, (long)N * (N - 1) / 2, "taskloop reduction, at its end");
        long empty = 5;
        PRAGMA(omp taskloop reduction(+: empty))
        for (int i = 0; i < 0; i++)
            empty += 1;
        EXPECT_EQ(empty, 5, "an empty taskloop reduction");
    }
    EXPECT_EQ(sum, (long)N * (N - 1) / 2, "taskloop reduction +");
    EXPECT_DEQ(dsum, 0.5 * N * (N - 1) / 2, "taskloop reduction + on doubles");
}

int main(void)
{
    check_team_size("gomp-taskred");
    for (int round = 0; round < 3; round++) {
        taskgroup_single();
        taskgroup_all();
        taskloop_reduction();
    }
    return check_summary("gomp-taskred");
}
