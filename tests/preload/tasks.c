/* tasks.c: a region that uses `task` and `taskwait`, for the preload tests:
 * under LD_PRELOAD of libbuddypool.so beside libomp or libgomp the task
 * entry points are buddypool's, and the tasks run on the pool's threads.
 * "--no-tasks" runs no region. The last line gives the number of parallel
 * regions run. */
#include <stdio.h>
#include <string.h>

static int fib(int n)
{
    if (n < 2)
        return n;
    int a, b;
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

int main(int argc, char **argv)
{
    int regions = 0;
    if (argc > 1 && strcmp(argv[1], "--no-tasks") == 0) {
        printf("regions %d\n", regions);
        return 0;
    }
    int r = 0;
#pragma omp parallel
    {
#pragma omp single
        r = fib(15);
    }
    regions++;
    printf("fib(15) = %d\n", r);
    printf("regions %d\n", regions);
    return r != 610;
}
