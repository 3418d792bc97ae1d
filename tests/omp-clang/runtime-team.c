/* runtime-team.c: thread 0 changes the runtime schedule inside a region,
 * then the team runs a schedule(runtime) loop: every thread must follow one
 * schedule (libomp's team schedule; libgomp differs, so this is clang-only),
 * and every iteration runs once. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    for (int rep = 0; rep < 100; rep++) {
        int cnt = 0;
        omp_set_schedule(omp_sched_static, 0);
#pragma omp parallel
        {
#pragma omp master
            omp_set_schedule(omp_sched_dynamic, 1);
#pragma omp barrier
#pragma omp for schedule(runtime) reduction(+ : cnt)
            for (int i = 0; i < 1000; i++)
                cnt++;
        }
        if (cnt != 1000) {
            printf("runtime-team: %d iterations ran, expected 1000\n", cnt);
            return 1;
        }
    }
    printf("runtime-team: right on %d threads\n", omp_get_max_threads());
    return 0;
}
