/* kmp-task-modifier-ws.c: reductions with the task modifier on worksharing
 * loops (clang: __kmpc_taskred_modifier_init with is_ws, then
 * __kmpc_task_reduction_modifier_fini), on buddypool and on libomp, which
 * validates the test: every iteration and every task it makes contribute,
 * whichever thread runs the task; consecutive loops each have their own
 * reduction. At 1, 2 and 4 threads. */
#include <omp.h>

#include "../gomp/gomp-check.h"

int main(void)
{
    check_team_size("kmp-task-modifier-ws");
    for (int round = 0; round < 20; round++) {
        long x = 0, y = 0;
        PRAGMA(omp parallel shared(x, y))
        {
            PRAGMA(omp for reduction(task, + : x))
            for (int i = 0; i < 100; i++) {
                x += 1;
                PRAGMA(omp task in_reduction(+ : x) firstprivate(i))
                x += i;
            }
            PRAGMA(omp for schedule(dynamic, 3) reduction(task, + : y))
            for (int i = 0; i < 50; i++) {
                PRAGMA(omp task in_reduction(+ : y) firstprivate(i))
                y += 2 * i;
            }
        }
        EXPECT_EQ(x, 100 + 4950, "for reduction(task, +): iterations and their tasks");
        EXPECT_EQ(y, 2 * 1225, "a second loop's own task reduction");
    }
    return check_summary("kmp-task-modifier-ws");
}
