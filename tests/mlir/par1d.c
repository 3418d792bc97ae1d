/* par1d.c: drives par1d.mlir, a 1-D parallel loop lowered to the libomp ABI
 * (with num_threads(DRV_NUM_THREADS) when that is not 0), many times over on
 * one pool: results exact, every iteration once, the team as expected. */
#include <stdlib.h>

#include "check.h"
#include "driver.h"

void _mlir_ciface_par1d(memref_i64_1d *out, int64_t scale);

static void run(int64_t *buf, int64_t n, int64_t scale, int team)
{
    for (int64_t i = 0; i < n + 1; i++)
        buf[i] = -7;
    memref_i64_1d out = {buf, buf, 0, {n}, {1}};
    drv_visits_n = n;
    drv_clear(drv_visits, n);
    _mlir_ciface_par1d(&out, scale);
    drv_check_outside();
    for (int64_t i = 0; i < n; i++)
        CHECK_EQ(buf[i], i * scale + 1);
    CHECK_EQ(buf[n], -7); /* nothing written past the end */
    drv_check_team(drv_visits, n, team);
}

int main(int argc, char **argv)
{
    drv_os_thread(); /* the main thread is OS thread 0 */
    int team = drv_expected_team(DRV_NUM_THREADS);
    int calls = drv_calls(argc, argv, 200);
    int64_t big = 64 * (int64_t)team + 13; /* >= team: every thread works */
    int64_t max_n = big + team;
    int64_t *buf = malloc(sizeof(int64_t) * (size_t)(max_n + 1));
    drv_visits = malloc(sizeof *drv_visits * (size_t)max_n);
    CHECK(buf != NULL && drv_visits != NULL);

    drv_phase("repeated calls with n >= team");
    for (int c = 0; c < calls; c++)
        run(buf, big + c % team, c % 5 + 1, team);
    drv_phase("edge sizes: n = 1, team - 1, team, team + 1, 0");
    int64_t edge[] = {1, team - 1, team, team + 1, 0};
    for (int r = 0; r < 3; r++)
        for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++)
            run(buf, edge[k], 3, team);
    drv_phase("counting OS threads");
    CHECK_EQ(drv_os_threads_seen(), team); /* the pool kept its threads */
    drv_phase(NULL);

    printf("mlir par1d (num_threads %d): %d calls, team of %d, all iterations once\n",
           DRV_NUM_THREADS, calls, team);
    free(buf);
    free(drv_visits);
    return 0;
}
