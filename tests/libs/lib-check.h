/* lib-check.h: what the real-library tests share. A case computes into its
 * own buffers; run_cases calls it from the main thread, inside a
 * num_threads(1) region, inside an if(0) region, and from two application
 * threads at once, and prints one line per call: the case, where it was
 * called from, and a hash of its output bytes, which must be the same on
 * every runtime at the same team size. Each case compares its output with
 * a naive reference itself and counts a failure when it is off. */
#ifndef LIB_CHECK_H
#define LIB_CHECK_H

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lib_failures;

static void lib_fail(const char *what, const char *detail)
{
    __atomic_fetch_add(&lib_failures, 1, __ATOMIC_RELAXED);
    fprintf(stderr, "FAIL: %s: %s\n", what, detail);
}

/* FNV-1a over n bytes. */
static uint64_t lib_hash(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Deterministic values in [-1, 1) from a seed. */
static void lib_fill(float *f, double *d, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        double v = (double)(x >> 8) / (double)(1u << 23) - 1.0;
        if (f)
            f[i] = (float)v;
        if (d)
            d[i] = v;
    }
}

/* |got - want| within rel of scale (the sum of the magnitudes that made it). */
static int lib_close(double got, double want, double scale, double rel)
{
    return fabs(got - want) <= rel * (scale > 1e-30 ? scale : 1e-30);
}

/* Compare C = A B (row-major: A m x k, B k x n) of element type T with a
 * naive reference in double, each element within rel of the sum of the
 * magnitudes that made it; the first element off is one failure of what. */
#define LIB_DEFINE_GEMM_CHECK(T)                                                       \
    __attribute__((unused)) static void lib_check_gemm_##T(                           \
        const char *what, const T *a, const T *b, const T *c, int m, int n, int k,    \
        double rel)                                                                    \
    {                                                                                  \
        for (int i = 0; i < m; i++)                                                    \
            for (int j = 0; j < n; j++) {                                              \
                double want = 0, scale = 0;                                            \
                for (int x = 0; x < k; x++) {                                          \
                    double p = (double)a[i * k + x] * (double)b[x * n + j];            \
                    want += p;                                                         \
                    scale += fabs(p);                                                  \
                }                                                                      \
                if (!lib_close(c[i * n + j], want, scale, rel)) {                      \
                    char d[128];                                                       \
                    snprintf(d, sizeof d, "C[%d][%d] = %.17g, reference %.17g", i, j,  \
                             (double)c[i * n + j], want);                              \
                    lib_fail(what, d);                                                 \
                    return;                                                            \
                }                                                                      \
            }                                                                          \
    }
LIB_DEFINE_GEMM_CHECK(float)
LIB_DEFINE_GEMM_CHECK(double)

/* A case: compute with inputs from seed, check against the reference, and
 * return the hash of the output. */
typedef uint64_t (*lib_case_fn)(uint32_t seed);

struct lib_call {
    lib_case_fn fn;
    uint32_t seed;
    uint64_t hash;
};

static void *lib_thread(void *arg)
{
    struct lib_call *c = arg;
    c->hash = c->fn(c->seed);
    return NULL;
}

static void run_cases(const char *name, lib_case_fn fn)
{
    printf("%s main %016llx\n", name, (unsigned long long)fn(1));
    uint64_t h = 0;
#pragma omp parallel num_threads(1)
    {
        if (omp_in_parallel())
            lib_fail(name, "omp_in_parallel() in a team of one");
        h = fn(1);
    }
    printf("%s num_threads(1) %016llx\n", name, (unsigned long long)h);
    volatile int no = 0;
#pragma omp parallel if (no)
    h = fn(1);
    printf("%s if(0) %016llx\n", name, (unsigned long long)h);
    struct lib_call calls[2] = {{fn, 2, 0}, {fn, 3, 0}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&threads[i], NULL, lib_thread, &calls[i]) != 0)
            lib_fail(name, "pthread_create");
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < 2; i++)
        printf("%s app-thread-%d %016llx\n", name, i, (unsigned long long)calls[i].hash);
}

static int lib_summary(const char *prog)
{
    if (lib_failures) {
        fprintf(stderr, "%s: %d checks failed\n", prog, lib_failures);
        return 1;
    }
    printf("%s: results match the reference\n", prog);
    return 0;
}

#endif
