/* gomp-ring.c: many nowait dynamic loops in a row with one slow thread, so
 * the others run far ahead of it: they must wait for the slow one to leave
 * an old loop before its shared slot is reused, and then share the slot
 * whoever of them takes it first. Every iteration of every loop runs once. */
#include <omp.h>
#include <stdio.h>

enum { LOOPS = 64, N = 1000 };
static int hits[LOOPS][N];

int main(void)
{
    for (int rep = 0; rep < 20; rep++) {
#pragma omp parallel
        {
            for (int r = 0; r < LOOPS; r++) {
#pragma omp for schedule(dynamic, 3) nowait
                for (int i = 0; i < N; i++)
                    __atomic_fetch_add(&hits[r][i], 1, __ATOMIC_RELAXED);
                if (omp_get_thread_num() == 0 && r % 7 == 0) {
                    volatile long x = 0; /* thread 0 falls behind */
                    for (long k = 0; k < 100000; k++)
                        x += k;
                }
            }
        }
        for (int r = 0; r < LOOPS; r++)
            for (int i = 0; i < N; i++)
                if (hits[r][i] != rep + 1) {
                    printf("gomp-ring: loop %d iteration %d ran %d times, expected %d\n", r, i,
                           hits[r][i], rep + 1);
                    return 1;
                }
    }
    printf("gomp-ring: %d x %d nowait loops right on %d threads\n", 20, LOOPS,
           omp_get_max_threads());
    return 0;
}
