/* step.c: a decode-like step for the profiling overhead benchmark: many
 * layers of the demo's MLIR kernels (RMSNorm, three matrix-vector products,
 * gated activation, residual), 7 short parallel regions per layer. Prints
 * the median and best step time of `steps` steps after a warm-up. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/demo-kernels.h"

double omp_get_wtime(void);


enum { DIM = 256, HIDDEN = 768, LAYERS = 48, REGIONS_PER_LAYER = 7 };


static float *filled(size_t n, float scale)
{
    float *p = malloc(n * sizeof *p);
    uint32_t s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = ((float)(s >> 8) / 16777216.0f - 0.5f) * scale;
    }
    return p;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 200;
    if (steps < 1)
        steps = 1;
    float *norm = filled(DIM, 0.1f), *gate = filled((size_t)HIDDEN * DIM, 0.1f);
    float *up = filled((size_t)HIDDEN * DIM, 0.1f), *down = filled((size_t)DIM * HIDDEN, 0.05f);
    float *x = filled(DIM, 1.0f), h[DIM], g[HIDDEN], u[HIDDEN], a[HIDDEN], y[DIM];
    for (int i = 0; i < DIM; i++)
        norm[i] += 1.0f;
    struct m1 mx = v1(x, DIM), mh = v1(h, DIM), mg = v1(g, HIDDEN), mu = v1(u, HIDDEN);
    struct m1 ma = v1(a, HIDDEN), my = v1(y, DIM), mn = v1(norm, DIM);
    struct m2 wg = v2(gate, HIDDEN, DIM), wu = v2(up, HIDDEN, DIM), wd = v2(down, DIM, HIDDEN);
    double *t = malloc(sizeof(double) * (size_t)steps);
    for (int s = -10; s < steps; s++) {
        double t0 = omp_get_wtime();
        for (int l = 0; l < LAYERS; l++) {
            float scale = 1.0f / sqrtf(_mlir_ciface_sumsq(&mx) / DIM + 1e-6f);
            _mlir_ciface_rms_apply(&mx, &mn, scale, &mh);
            _mlir_ciface_matvec(&wg, &mh, &mg);
            _mlir_ciface_matvec(&wu, &mh, &mu);
            _mlir_ciface_gated(&mg, &mu, &ma);
            _mlir_ciface_matvec(&wd, &ma, &my);
            _mlir_ciface_residual(&mx, &my);
        }
        if (s >= 0)
            t[s] = (omp_get_wtime() - t0) * 1e6;
        for (int i = 0; i < DIM; i++) /* keep the values bounded across steps */
            x[i] = x[i] / (1.0f + fabsf(x[i]));
    }
    qsort(t, (size_t)steps, sizeof *t, cmp);
    printf("step_us median=%.1f best=%.1f regions=%d\n", t[steps / 2], t[0],
           LAYERS * REGIONS_PER_LAYER);
    return 0;
}
