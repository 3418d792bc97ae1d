/* gomp-affinity-display.c: regions for OMP_DISPLAY_AFFINITY to show
 * (check-affinity-display.sh reads the lines): two of 2 threads, one of 1,
 * one of 2 again; then, in a new format, one of 2 and one of 1. Built by
 * gcc and clang. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int sum = 0;
    for (int r = 0; r < 2; r++) {
#pragma omp parallel num_threads(2) reduction(+ : sum)
        sum += 1;
    }
#pragma omp parallel num_threads(1) reduction(+ : sum)
    sum += 1;
#pragma omp parallel num_threads(2) reduction(+ : sum)
    sum += 1;
    /* a new format alone changes nothing a thread shows: no line; a team
     * of one then changes thread 0's, in the new format */
    omp_set_affinity_format("FMT %n/%N");
#pragma omp parallel num_threads(2) reduction(+ : sum)
    sum += 1;
#pragma omp parallel num_threads(1) reduction(+ : sum)
    sum += 1;
    printf("regions ran: %d thread bodies\n", sum);
    return sum == 10 ? 0 : 1;
}
