/* affinity-reset.c: libomp's KMP_AFFINITY=reset, on buddypool and libomp.
 * Under KMP_AFFINITY=[reset,]granularity=thread,compact the primary thread
 * is bound to one CPU while a region runs (its mask differs from the one
 * it started with, on a machine of two CPUs or more); after each outermost
 * region it has its own mask back with reset, and keeps its place
 * without. Nested regions (OMP_NUM_THREADS=2,2) are inside the outermost
 * one and leave the binding alone. */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "gomp-check.h"

static int same_as(const cpu_set_t *want)
{
    cpu_set_t now;
    CPU_ZERO(&now);
    pthread_getaffinity_np(pthread_self(), sizeof now, &now);
    return CPU_EQUAL(&now, want);
}

int main(void)
{
    const char *env = getenv("KMP_AFFINITY");
    int reset = env != NULL && strncmp(env, "reset", 5) == 0;
    cpu_set_t initial;
    CPU_ZERO(&initial);
    pthread_getaffinity_np(pthread_self(), sizeof initial, &initial);
    if (CPU_COUNT(&initial) < 2) {
        printf("affinity-reset: one CPU; nothing to check\n");
        return 0;
    }
    omp_set_max_active_levels(2);
    for (int i = 0; i < 10; i++) {
        int inside = -1, nested = -1;
        PRAGMA(omp parallel)
        {
            PRAGMA(omp master)
            inside = same_as(&initial);
            PRAGMA(omp parallel if (i % 2))
            PRAGMA(omp master)
            if (omp_get_ancestor_thread_num(1) == 0)
                nested = same_as(&initial);
        }
        EXPECT_EQ(inside, 0, "the primary is bound to its place in a region");
        EXPECT_EQ(nested, 0, "and in a region nested in it");
        EXPECT_EQ(same_as(&initial), reset, reset ? "reset: its own mask back after the region"
                                                  : "no reset: it keeps its place");
    }
    return check_summary("affinity-reset");
}
