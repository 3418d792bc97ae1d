/* gomp-doacross.c: a doacross loop (ordered(1) with depend), built by
 * clang, whose doacross entry points buddypool does not support yet: the
 * run must stop with a message naming the entry point
 * (check-unsupported.sh), never skip iterations silently. gcc's doacross
 * loops run (doacross.c). */
#include <stdio.h>

int main(void)
{
    static int a[1000];
    int ran = 0;
#pragma omp parallel for ordered(1) schedule(dynamic)
    for (int i = 1; i < 1000; i++) {
#pragma omp ordered depend(sink : i - 1)
        a[i] = a[i - 1] + 1;
#pragma omp atomic
        ran++;
#pragma omp ordered depend(source)
    }
    printf("ran %d iterations, a[999] = %d\n", ran, a[999]);
    return 0;
}
