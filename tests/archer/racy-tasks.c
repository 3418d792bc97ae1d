/* racy-tasks.c: a data race between two tasks, which Archer must report
 * (tests/archer): both write one variable, with no dependence between
 * them. Each waits to meet the other, so that they run on two threads at
 * once (10 s at most, then the test fails): a race between two tasks on
 * one thread is not one ThreadSanitizer can see. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Atomic int met;

static void meet(void)
{
    atomic_fetch_add(&met, 1);
    time_t t0 = time(NULL);
    while (atomic_load(&met) < 2)
        if (time(NULL) - t0 > 10) {
            fprintf(stderr, "racy-tasks: the two tasks never ran at once\n");
            exit(2);
        }
}

int main(void)
{
    int x = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task shared(x)
        {
            meet();
            x = 1;
        }
#pragma omp task shared(x)
        {
            meet();
            x = 2; /* the race */
        }
    }
    printf("racy-tasks: %d\n", x);
    return 0;
}
