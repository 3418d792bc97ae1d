/* tasks.c: a region that uses `task` and `taskwait`, which buddypool does not
 * implement, for the preload tests: under LD_PRELOAD of libbuddypool.so the
 * task entry points bind to the program's own runtime, and buddypool warns
 * once that they run there. With "--no-tasks" the task code is not run, only
 * the warning at start-up is looked at: libomp's task entry points cannot run
 * on buddypool's threads (they take a global thread number only libomp can
 * give). The last line gives the number of parallel regions run. */
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
