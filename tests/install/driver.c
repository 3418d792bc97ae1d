/* driver.c: a program that links MLIR-lowered kernels against an installed
 * buddypool, the way a user builds one; checks its results. */
#include <stdint.h>
#include <stdio.h>

#include <buddypool.h>

struct memref1 {
    double *allocated, *aligned;
    int64_t offset, size, stride;
};
void _mlir_ciface_model_scale(struct memref1 *x, struct memref1 *y);
double _mlir_ciface_model_sum(struct memref1 *x);

int main(void)
{
    enum { N = 4099 };
    static double x[N], y[N];
    double expect = 0;
    for (int i = 0; i < N; i++) {
        x[i] = i % 13;
        expect += 2.0 * (i % 13);
    }
    struct memref1 mx = {x, x, 0, N, 1}, my = {y, y, 0, N, 1};
    for (int r = 0; r < 50; r++) {
        _mlir_ciface_model_scale(&mx, &my);
        double s = _mlir_ciface_model_sum(&my);
        if (s != expect) {
            fprintf(stderr, "driver: sum %.17g, expected %.17g\n", s, expect);
            return 1;
        }
    }
    printf("driver: right on up to %d threads\n", buddypool_max_threads());
    return 0;
}
