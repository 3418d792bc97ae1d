/* task-first.c: a program whose first OpenMP construct is a task, whose
 * code forks the program's first region: the pool (and, profiled, the
 * listener) starts inside the task's code. Run profiled by
 * check-taskprof.py first: the task's begin was not heard, so its end is
 * not counted either, and every task row of the profile has a time within
 * the run (none made of a begin that never was). */
#include <omp.h>
#include <stdio.h>

static void work(int *n)
{
#pragma omp parallel
    {
#pragma omp atomic
        (*n)++;
    }
}

int main(void)
{
    int n = 0, tasks = 0;
#pragma omp task shared(n)
    work(&n);
#pragma omp taskwait
    /* then tasks the profile hears whole, in a region */
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 10; i++) {
#pragma omp task shared(tasks)
        {
#pragma omp atomic
            tasks++;
        }
    }
    printf("regions' threads %d, tasks %d\n", n, tasks);
    return n >= 1 && tasks == 10 ? 0 : 1;
}
