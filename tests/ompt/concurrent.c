/* concurrent.c: concurrent teams for the OMPT tests (tests/ompt): the
 * initial thread forks a region of 2 threads, then it and two other
 * application threads (pthreads) each fork 20 regions of 2 threads at once,
 * every fifth with a nested region of 2 inside each of its threads, whose
 * single makes a task; the two
 * threads exit before the end (their end is an OMPT event too). Prints
 * what a tool must have seen:
 *   REGIONS regions=N implicit=N control=R app_threads=3
 * (implicit counts every thread of every region: its implicit task; the
 * teams the pool can give may be smaller than asked: the counts are the
 * program's own). */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef __clang__
int omp_control_tool(int command, int modifier, void *arg) __attribute__((weak));
#endif
enum { CONTROL_FLUSH = 3 };

static _Atomic long implicit, regions, tasks_ran;

static void *forker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20; i++) {
#pragma omp parallel num_threads(2)
        {
            atomic_fetch_add(&implicit, 1);
#pragma omp single
            atomic_fetch_add(&regions, 1);
            if (i % 5 == 0) {
#pragma omp parallel num_threads(2)
                {
                    atomic_fetch_add(&implicit, 1);
#pragma omp single
                    {
                        atomic_fetch_add(&regions, 1);
#pragma omp task
                        atomic_fetch_add(&tasks_ran, 1);
                    }
                }
            }
        }
    }
    return NULL;
}

int main(void)
{
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
        atomic_fetch_add(&implicit, 1);
#pragma omp single
        atomic_fetch_add(&regions, 1);
    }
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        if (pthread_create(&th[k], NULL, forker, NULL) != 0) {
            fprintf(stderr, "concurrent: pthread_create failed\n");
            return 1;
        }
    forker(NULL);
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    int control = &omp_control_tool != NULL ? omp_control_tool(CONTROL_FLUSH, 1, NULL) : -2;
    printf("REGIONS regions=%ld implicit=%ld control=%d app_threads=3\n", atomic_load(&regions),
           atomic_load(&implicit), control);
    /* each nested region's single made one task: one per nested region */
    return atomic_load(&tasks_ran) != 3 * 4 * 2;
}
