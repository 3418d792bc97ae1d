/* reduce.c: drives reduce.mlir, parallel reductions lowered to
 * __kmpc_reduce: i64 addi, f64 addf, f32 addf, and the three in one loop.
 * The values are small integers (and halves), so every sum is exact and
 * compared with ==; every iteration once, the team as expected. */
#include <stdlib.h>

#include "check.h"
#include "driver.h"

int64_t _mlir_ciface_sum_i64(memref_i64_1d *in, int64_t init);
double _mlir_ciface_sum_f64(memref_f64_1d *in, double init);
float _mlir_ciface_sum_f32(memref_f32_1d *in, float init);
void _mlir_ciface_sum_mixed(memref_i64_1d *in_i, memref_f64_1d *in_d, memref_f32_1d *in_f,
                            memref_i64_1d *res_i, memref_f64_1d *res_d,
                            memref_f32_1d *res_f);

static int64_t *in_i;
static double *in_d;
static float *in_f;

static void start(int64_t n)
{
    drv_visits_n = n;
    drv_clear(drv_visits, n);
}

static void finish(int64_t n, int team)
{
    drv_check_outside();
    drv_check_team(drv_visits, n, team);
}

static void run(int64_t n, int c, int team)
{
    int64_t want_i = 0;
    double want_d = 0;
    float want_f = 0;
    for (int64_t i = 0; i < n; i++) {
        want_i += in_i[i];
        want_d += in_d[i];
        want_f += in_f[i];
    }
    memref_i64_1d mi = {in_i, in_i, 0, {n}, {1}};
    memref_f64_1d md = {in_d, in_d, 0, {n}, {1}};
    memref_f32_1d mf = {in_f, in_f, 0, {n}, {1}};

    int64_t init_i = 1000003 + c;
    start(n);
    CHECK_EQ(_mlir_ciface_sum_i64(&mi, init_i), init_i + want_i);
    finish(n, team);

    double init_d = c + 0.25;
    start(n);
    CHECK_DEQ(_mlir_ciface_sum_f64(&md, init_d), init_d + want_d);
    finish(n, team);

    float init_f = (float)(c % 100) - 0.5f;
    start(n);
    float got_f = _mlir_ciface_sum_f32(&mf, init_f);
    CHECK_DEQ(got_f, init_f + want_f);
    finish(n, team);

    int64_t ri = -1;
    double rd = -1;
    float rf = -1;
    memref_i64_1d mri = {&ri, &ri, 0, {1}, {1}};
    memref_f64_1d mrd = {&rd, &rd, 0, {1}, {1}};
    memref_f32_1d mrf = {&rf, &rf, 0, {1}, {1}};
    start(n);
    _mlir_ciface_sum_mixed(&mi, &md, &mf, &mri, &mrd, &mrf);
    finish(n, team);
    CHECK_EQ(ri, want_i);
    CHECK_DEQ(rd, want_d);
    CHECK_DEQ(rf, want_f);
}

int main(int argc, char **argv)
{
    drv_os_thread(); /* the main thread is OS thread 0 */
    int team = drv_expected_team(DRV_NUM_THREADS);
    int calls = drv_calls(argc, argv, 200);
    int64_t big = 64 * (int64_t)team + 5, max_n = big + 7;
    in_i = malloc(sizeof *in_i * (size_t)max_n);
    in_d = malloc(sizeof *in_d * (size_t)max_n);
    in_f = malloc(sizeof *in_f * (size_t)max_n);
    drv_visits = malloc(sizeof *drv_visits * (size_t)max_n);
    CHECK(in_i != NULL && in_d != NULL && in_f != NULL && drv_visits != NULL);
    for (int64_t i = 0; i < max_n; i++) {
        in_i[i] = i * i % 1000 - 300;
        in_d[i] = (double)(i % 97) - 40;
        in_f[i] = (float)(i % 9) - 4.5f;
    }

    drv_phase("repeated calls with n >= team");
    for (int c = 0; c < calls; c++)
        run(big + c % 7, c, team);
    drv_phase("edge sizes: n = 1, team - 1, team + 1, 0");
    int64_t edge[] = {1, team - 1, team + 1, 0};
    for (int r = 0; r < 3; r++)
        for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++)
            run(edge[k], r, team);
    drv_phase("counting OS threads");
    CHECK_EQ(drv_os_threads_seen(), team); /* the pool kept its threads */
    drv_phase(NULL);

    printf("mlir reduce (num_threads %d): %d calls of 4 kernels, team of %d, sums exact\n",
           DRV_NUM_THREADS, calls, team);
    free(in_i);
    free(in_d);
    free(in_f);
    free(drv_visits);
    return 0;
}
