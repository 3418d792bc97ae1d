/* gomp-edge.c: dynamic and guided chunks far larger than the loop (the
 * shared counter must not wrap past 2^64 as idle threads keep asking): every
 * iteration runs once, 200 times over. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    long long cnt = 0;
    for (int rep = 0; rep < 200; rep++) {
#pragma omp parallel
        {
#pragma omp for schedule(dynamic, 1LL << 62) reduction(+ : cnt)
            for (long long i = 0; i < 10; i++)
                cnt++;
#pragma omp for schedule(guided, 1LL << 62) reduction(+ : cnt)
            for (long long i = 0; i < 10; i++)
                cnt++;
        }
    }
    if (cnt != 200 * 20) {
        printf("gomp-edge: %lld iterations ran, expected %d\n", cnt, 200 * 20);
        return 1;
    }
    printf("gomp-edge: huge chunks right on %d threads\n", omp_get_max_threads());
    return 0;
}
