/* demo-kernels.h: the C interface of demo.mlir's kernels (MLIR's memref
 * descriptors and the _mlir_ciface_ entry points), shared by the demo and
 * the profiling overhead benchmark. */
#ifndef BUDDYPOOL_DEMO_KERNELS_H
#define BUDDYPOOL_DEMO_KERNELS_H

#include <stdint.h>

struct m1 { float *alloc, *data; int64_t off, size, stride; };
struct m2 { float *alloc, *data; int64_t off, size[2], stride[2]; };
float _mlir_ciface_sumsq(struct m1 *x);
void _mlir_ciface_rms_apply(struct m1 *x, struct m1 *w, float scale, struct m1 *out);
void _mlir_ciface_matvec(struct m2 *w, struct m1 *x, struct m1 *y);
void _mlir_ciface_gated(struct m1 *g, struct m1 *u, struct m1 *out);
void _mlir_ciface_residual(struct m1 *x, struct m1 *y);

static inline struct m1 v1(float *p, int64_t n) { return (struct m1){p, p, 0, n, 1}; }
static inline struct m2 v2(float *p, int64_t r, int64_t c)
{
    return (struct m2){p, p, 0, {r, c}, {c, 1}};
}

#endif
