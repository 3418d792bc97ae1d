/* gomp-taskprof.c: tasks for the profile's check (check-taskprof.py):
 * 1000 tasks that do nothing, then 10 tasks that each sleep 1 ms, make two
 * children that sleep 5 ms each and wait for them: the thread runs a child
 * inside its parent or waits for another thread to, and either way the
 * parent's own time holds its 1 ms alone. Prints the count of tasks run. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

int main(void)
{
    int done = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < 1000; i++) {
#pragma omp task shared(done)
            __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
        }
#pragma omp taskwait
        for (int i = 0; i < 10; i++) {
#pragma omp task shared(done)
            {
                sleep_ms(1);
                for (int k = 0; k < 2; k++) {
#pragma omp task shared(done)
                    {
                        sleep_ms(5);
                        __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
                    }
                }
#pragma omp taskwait
                __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
            }
        }
    }
    printf("tasks %d\n", done);
    return done != 1030;
}
