/* task-throttle.c: libomp's KMP_ENABLE_TASK_THROTTLING, on buddypool and
 * on libomp. The primary thread of a team of two makes 2000 tasks that
 * spin until the primary itself runs one of them; the other thread can
 * take one at a time and then spins. Throttled (the default, and =1), a
 * task made when its maker's queue is full runs at once, so the primary
 * runs one before it has made them all; with =0 every task is queued
 * (buddypool: the team's inbox past the deque), so the primary runs none
 * before it has made the last. Either way every task runs exactly once. */
#include <omp.h>
#include <string.h>

#include "gomp-check.h"

#define NUM_TASKS 2000

int main(void)
{
    const char *env = getenv("KMP_ENABLE_TASK_THROTTLING");
    int throttled = env == NULL || strcmp(env, "0") != 0;
    int made = 0, made_at_first = -1, ran = 0, block = 1;
    PRAGMA(omp parallel num_threads(2))
    PRAGMA(omp master)
    {
        for (int i = 0; i < NUM_TASKS; i++) {
            __atomic_store_n(&made, i + 1, __ATOMIC_RELAXED);
            PRAGMA(omp task)
            {
                if (omp_get_thread_num() == 0) {
                    int none = -1;
                    __atomic_compare_exchange_n(&made_at_first, &none,
                                                __atomic_load_n(&made, __ATOMIC_RELAXED), 0,
                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
                    __atomic_store_n(&block, 0, __ATOMIC_RELEASE);
                }
                while (__atomic_load_n(&block, __ATOMIC_ACQUIRE))
                    ;
                __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
            }
        }
    }
    EXPECT_EQ(ran, NUM_TASKS, "every task ran once");
    if (throttled)
        EXPECT_OP(made_at_first, <, NUM_TASKS, "throttled: the primary ran a task early");
    else
        EXPECT_EQ(made_at_first, NUM_TASKS, "not throttled: every task was queued first");
    printf("task-throttle: throttled %d, the primary's first task after %d made\n", throttled,
           made_at_first);
    return check_summary("task-throttle");
}
