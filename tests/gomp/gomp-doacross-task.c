/* gomp-doacross-task.c: a doacross loop with a task reduction, for which
 * gcc calls the generic GOMP_loop_doacross_start: it links against
 * buddypool alone and stops there with a message naming the entry point
 * (check-unsupported.sh). */
#include <stdio.h>

int main(void)
{
    static int a[1000];
    long s = 0;
#pragma omp parallel
#pragma omp for ordered(1) reduction(task, + : s)
    for (int i = 1; i < 1000; i++) {
#pragma omp ordered depend(sink : i - 1)
        a[i] = a[i - 1] + 1;
        s += a[i];
#pragma omp ordered depend(source)
    }
    printf("a[999] = %d, s = %ld\n", a[999], s);
    return 0;
}
