/* reduce-order.c: buddypool folds a reduction's partial results in thread
 * order, whichever thread arrives last, so a float reduction gives the same
 * bits every run: init + (((p0 + p1) + p2) + ...). The partial values are
 * chosen so that other orders round differently (libomp's atomic method for
 * small teams does not promise this, so the test is buddypool's alone).
 * Covers __kmpc_reduce_nowait (parallel reduction; a worker is usually the
 * last to arrive) and __kmpc_reduce (for reduction inside a region, with its
 * barrier), with thread 0 made late or early in turn. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

static double part(int tid)
{
    static const double v[] = {1e16, 1.0, -1e16, 3.0, 1e-3, 7e15, -7e15, 0.5};
    return v[tid % 8] * (1 + tid / 8);
}

static void spin_us(int us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

int main(void)
{
    int fails = 0, team = 0;
    for (int rep = 0; rep < 400; rep++) {
        int late = rep % 4; /* 0: thread 0 late; 1: a worker late; 2, 3: no delay */
        double x = 0.25, y = 0.25;
#pragma omp parallel reduction(+ : x)
        {
            int id = omp_get_thread_num();
            if ((late == 0 && id == 0) || (late == 1 && id == omp_get_num_threads() - 1))
                spin_us(20);
            x += part(id);
            if (id == 0)
                team = omp_get_num_threads();
        }
#pragma omp parallel
        {
            int id = omp_get_thread_num();
            if ((late == 0 && id == 0) || (late == 1 && id == omp_get_num_threads() - 1))
                spin_us(20);
#pragma omp for schedule(static, 1) reduction(+ : y)
            for (int i = 0; i < omp_get_num_threads(); i++)
                y += part(i);
        }
        /* the private copies start at 0: p_i = 0 + part(i) */
        double acc = 0.0 + part(0);
        for (int i = 1; i < team; i++)
            acc += 0.0 + part(i);
        double want = 0.25 + acc;
        if (x != want || y != want) {
            if (fails++ < 5)
                printf("reduce-order: rep %d, %d threads: parallel %.17g, for %.17g, "
                       "thread order gives %.17g\n", rep, team, x, y, want);
        }
    }
    if (team != omp_get_max_threads()) {
        printf("reduce-order: teams of %d threads, %d asked for\n", team, omp_get_max_threads());
        return 1;
    }
    if (fails) {
        printf("reduce-order: %d of 400 runs not in thread order\n", fails);
        return 1;
    }
    printf("reduce-order: 400 runs in thread order on %d threads\n", team);
    return 0;
}
