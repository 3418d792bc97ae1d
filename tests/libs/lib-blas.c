/* lib-blas.c OPENBLAS_SO: Debian's OpenMP build of OpenBLAS, loaded by its
 * path (no alternative of the machine is changed), runs threaded sgemm and
 * dgemm through lib-check.h's calling contexts. OpenBLAS plans its threads
 * with omp_get_max_threads() and its gemm threads wait for each other's
 * partial blocks: a team smaller than planned hangs, a wrong one gives
 * wrong blocks. Prints the thread count OpenBLAS plans and one hash per
 * call. */
#include <dlfcn.h>

#include "lib-check.h"

enum { ROW_MAJOR = 101, NO_TRANS = 111 };
/* large enough that OpenBLAS splits them over threads, odd enough that the
 * blocks have edges */
enum { M = 301, N = 283, K = 197 };

static void (*sgemm)(int, int, int, int, int, int, float, const float *, int, const float *,
                     int, float, float *, int);
static void (*dgemm)(int, int, int, int, int, int, double, const double *, int,
                     const double *, int, double, double *, int);

static uint64_t case_sgemm(uint32_t seed)
{
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * K * N);
    float *c = malloc(sizeof(float) * M * N);
    lib_fill(a, NULL, (size_t)M * K, seed);
    lib_fill(b, NULL, (size_t)K * N, seed + 100);
    memset(c, 0, sizeof(float) * M * N);
    sgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
    lib_check_gemm_float("sgemm", a, b, c, M, N, K, 1e-5);
    uint64_t h = lib_hash(c, sizeof(float) * M * N);
    free(a), free(b), free(c);
    return h;
}

static uint64_t case_dgemm(uint32_t seed)
{
    double *a = malloc(sizeof(double) * M * K), *b = malloc(sizeof(double) * K * N);
    double *c = malloc(sizeof(double) * M * N);
    lib_fill(NULL, a, (size_t)M * K, seed);
    lib_fill(NULL, b, (size_t)K * N, seed + 100);
    memset(c, 0, sizeof(double) * M * N);
    dgemm(ROW_MAJOR, NO_TRANS, NO_TRANS, M, N, K, 1.0, a, K, b, N, 0.0, c, N);
    lib_check_gemm_double("dgemm", a, b, c, M, N, K, 1e-13);
    uint64_t h = lib_hash(c, sizeof(double) * M * N);
    free(a), free(b), free(c);
    return h;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OPENBLAS_SO\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "lib-blas: %s\n", dlerror());
        return 2;
    }
    sgemm = (__typeof__(sgemm))dlsym(lib, "cblas_sgemm");
    dgemm = (__typeof__(dgemm))dlsym(lib, "cblas_dgemm");
    int (*threads)(void) = (int (*)(void))dlsym(lib, "openblas_get_num_threads");
    char *(*config)(void) = (char *(*)(void))dlsym(lib, "openblas_get_config");
    if (sgemm == NULL || dgemm == NULL || threads == NULL || config == NULL) {
        fprintf(stderr, "lib-blas: %s lacks cblas_sgemm, cblas_dgemm or openblas_*\n", argv[1]);
        return 2;
    }
    if (strstr(config(), "USE_OPENMP") == NULL) {
        fprintf(stderr, "lib-blas: %s is not an OpenMP build (%s)\n", argv[1], config());
        return 2;
    }
    run_cases("sgemm", case_sgemm);
    run_cases("dgemm", case_dgemm);
    printf("openblas threads %d\n", threads());
    return lib_summary("lib-blas");
}
