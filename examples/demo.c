/* demo.c: a small model-like program on buddypool. A stack of MLP blocks
 * (RMSNorm, gate/up/down projections, gated activation, residual) whose
 * kernels were lowered from MLIR runs for some steps, first on one thread,
 * then on the whole pool; it checks the two agree with a plain C reference
 * and prints what it computed and how long each step took. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo-kernels.h"

#include "buddypool.h"

double omp_get_wtime(void);
void omp_set_num_threads(int n);


enum { DIM = 512, HIDDEN = 1536, LAYERS = 4, STEPS = 40, REGIONS_PER_LAYER = 7 };

struct layer { float norm[DIM], *gate, *up, *down; };


static uint64_t rng = 0x9e3779b97f4a7c15u;
static float frand(void) /* deterministic, in [-0.5, 0.5) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (float)((rng >> 40) / 16777216.0 - 0.5);
}

static float *alloc_matrix(int rows, int cols, float scale)
{
    float *m = malloc(sizeof(float) * (size_t)rows * cols);
    for (long i = 0; i < (long)rows * cols; i++)
        m[i] = frand() * scale;
    return m;
}

/* One step of the model on x, with the MLIR kernels. */
static void step_mlir(struct layer *L, float *x)
{
    static float h[DIM], g[HIDDEN], u[HIDDEN], a[HIDDEN], y[DIM];
    struct m1 mx = v1(x, DIM), mh = v1(h, DIM), mg = v1(g, HIDDEN), mu = v1(u, HIDDEN);
    struct m1 ma = v1(a, HIDDEN), my = v1(y, DIM);
    for (int l = 0; l < LAYERS; l++) {
        struct m1 mn = v1(L[l].norm, DIM);
        struct m2 wg = v2(L[l].gate, HIDDEN, DIM), wu = v2(L[l].up, HIDDEN, DIM);
        struct m2 wd = v2(L[l].down, DIM, HIDDEN);
        float scale = 1.0f / sqrtf(_mlir_ciface_sumsq(&mx) / DIM + 1e-6f);
        _mlir_ciface_rms_apply(&mx, &mn, scale, &mh);
        _mlir_ciface_matvec(&wg, &mh, &mg);
        _mlir_ciface_matvec(&wu, &mh, &mu);
        _mlir_ciface_gated(&mg, &mu, &ma);
        _mlir_ciface_matvec(&wd, &ma, &my);
        _mlir_ciface_residual(&mx, &my);
    }
}

/* The same step in plain C, for reference. */
static void step_ref(struct layer *L, float *x)
{
    static float h[DIM], a[HIDDEN], y[DIM];
    for (int l = 0; l < LAYERS; l++) {
        float ss = 0;
        for (int i = 0; i < DIM; i++)
            ss += x[i] * x[i];
        float scale = 1.0f / sqrtf(ss / DIM + 1e-6f);
        for (int i = 0; i < DIM; i++)
            h[i] = x[i] * scale * L[l].norm[i];
        for (int r = 0; r < HIDDEN; r++) {
            float sg = 0, su = 0;
            for (int c = 0; c < DIM; c++) {
                sg += L[l].gate[(long)r * DIM + c] * h[c];
                su += L[l].up[(long)r * DIM + c] * h[c];
            }
            a[r] = (sg > 0 ? sg : 0) * su;
        }
        for (int r = 0; r < DIM; r++) {
            float s = 0;
            for (int c = 0; c < HIDDEN; c++)
                s += L[l].down[(long)r * HIDDEN + c] * a[c];
            y[r] = s;
        }
        for (int i = 0; i < DIM; i++)
            x[i] += y[i];
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Run STEPS steps on `threads` threads; gives the median and best step time. */
static void run(struct layer *L, const float *x0, float *x, int threads, double *median_ms,
                double *best_ms)
{
    double ms[STEPS];
    omp_set_num_threads(threads);
    memcpy(x, x0, sizeof(float) * DIM);
    for (int s = 0; s < STEPS; s++) {
        double a = omp_get_wtime();
        step_mlir(L, x);
        ms[s] = (omp_get_wtime() - a) * 1e3;
    }
    qsort(ms, STEPS, sizeof ms[0], by_value);
    *median_ms = ms[STEPS / 2];
    *best_ms = ms[0];
}

int main(void)
{
    static struct layer L[LAYERS];
    static float x0[DIM], x1[DIM], xn[DIM], xr[DIM];
    for (int l = 0; l < LAYERS; l++) {
        for (int i = 0; i < DIM; i++)
            L[l].norm[i] = 1.0f + 0.1f * frand();
        L[l].gate = alloc_matrix(HIDDEN, DIM, 0.1f);
        L[l].up = alloc_matrix(HIDDEN, DIM, 0.1f);
        L[l].down = alloc_matrix(DIM, HIDDEN, 0.05f);
    }
    for (int i = 0; i < DIM; i++)
        x0[i] = frand();

    int n = buddypool_max_threads();
    printf("buddypool demo: %d MLP blocks (dim %d, hidden %d), %d steps, "
           "%d parallel regions per step\n", LAYERS, DIM, HIDDEN, STEPS,
           LAYERS * REGIONS_PER_LAYER);
    double ms1, best1, msn, bestn;
    run(L, x0, x1, 1, &ms1, &best1);
    run(L, x0, xn, n, &msn, &bestn);

    memcpy(xr, x0, sizeof xr);
    for (int s = 0; s < STEPS; s++)
        step_ref(L, xr);
    double maxdiff = 0, scale = 0, sum = 0;
    for (int i = 0; i < DIM; i++) {
        double d1 = fabs(x1[i] - xr[i]), dn = fabs(xn[i] - xr[i]);
        maxdiff = fmax(maxdiff, fmax(d1, dn));
        scale = fmax(scale, fabs(xr[i]));
        sum += xn[i];
    }
    printf("  output: x[0..3] = %.5f %.5f %.5f %.5f, sum %.5f\n", xn[0], xn[1], xn[2],
           xn[3], sum);
    printf("  agrees with the plain C reference: max |diff| %.2e (values up to %.2f)\n",
           maxdiff, scale);
    printf("  %2d thread : %7.3f ms/step median (best %.3f)\n", 1, ms1, best1);
    printf("  %2d threads: %7.3f ms/step median (best %.3f): %.2fx the one-thread speed\n", n,
           msn, bestn, ms1 / msn);
    int ok = maxdiff <= 1e-3 * (scale > 1 ? scale : 1);
    printf("demo: %s\n", ok ? "ok" : "MISMATCH against the reference");
    return ok ? 0 : 1;
}
