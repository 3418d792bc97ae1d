/* test-env.c: the program test-env.sh runs under good and bad environment
 * values and bad calls. `test-env run` runs regions and checks them, then
 * prints the pool's size; `test-env args N` forks a region with N arguments
 * (64 is the most supported: each must arrive; more must abort with a
 * message); `test-env schedule` calls static init with an unsupported
 * schedule type (must abort naming the entry point); `test-env places`
 * prints bind-var and the place list. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buddypool.h"
#include "check.h"

typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);
void __kmpc_fork_call(void *loc, int32_t argc, kmpc_micro fn, ...);
void __kmpc_for_static_init_4(void *loc, int32_t gtid, int32_t sched, int32_t *last,
                              int32_t *lower, int32_t *upper, int32_t *stride, int32_t incr,
                              int32_t chunk);
int omp_get_max_threads(void);
int omp_get_num_places(void);
int omp_get_num_procs(void);
int omp_get_proc_bind(void);
int omp_get_place_num_procs(int place);
void omp_get_place_proc_ids(int place, int *ids);

static _Atomic long sum;

static void add_range(int64_t begin, int64_t end, void *ctx)
{
    for (int64_t i = begin; i < end; i++)
        atomic_fetch_add(&sum, i);
}

#define L8(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7
#define P8(p) void *p##0, void *p##1, void *p##2, void *p##3, void *p##4, void *p##5, \
              void *p##6, void *p##7
static char slot[65];
static _Atomic int args_ok;

static void many(int32_t *g, int32_t *b, P8(a), P8(c), P8(d), P8(e), P8(f), P8(h), P8(k),
                 P8(m))
{
    void *v[64] = {L8(a), L8(c), L8(d), L8(e), L8(f), L8(h), L8(k), L8(m)};
    int ok = 1;
    for (int i = 0; i < 64; i++)
        ok &= v[i] == &slot[i];
    if (ok)
        atomic_fetch_add(&args_ok, 1);
}

#define S8(n) &slot[n], &slot[n + 1], &slot[n + 2], &slot[n + 3], &slot[n + 4], \
              &slot[n + 5], &slot[n + 6], &slot[n + 7]

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "run";
    if (strcmp(mode, "run") == 0) {
        for (int r = 0; r < 100; r++) {
            atomic_store(&sum, 0);
            CHECK_EQ(buddypool_parallel_for(1000, add_range, NULL), 0);
            CHECK_EQ(atomic_load(&sum), 999L * 1000 / 2);
        }
        printf("max_threads=%d default_team=%d\n", buddypool_max_threads(),
               omp_get_max_threads());
        return 0;
    }
    if (strcmp(mode, "args") == 0) {
        int n = argc > 2 ? atoi(argv[2]) : 64;
        if (n == 64) {
            __kmpc_fork_call(NULL, 64, (kmpc_micro)many, S8(0), S8(8), S8(16), S8(24), S8(32),
                             S8(40), S8(48), S8(56));
            CHECK_EQ(atomic_load(&args_ok), omp_get_max_threads());
            printf("64 region arguments arrived on %d threads\n", atomic_load(&args_ok));
            return 0;
        }
        __kmpc_fork_call(NULL, n, (kmpc_micro)many, S8(0), S8(8), S8(16), S8(24), S8(32),
                         S8(40), S8(48), S8(56), &slot[64]);
        return 0; /* not reached: more than 64 aborts */
    }
    if (strcmp(mode, "places") == 0) { /* bind-var and the place list */
        int n = omp_get_num_places();
        printf("procs=%d bind=%d places=%d:", omp_get_num_procs(), (int)omp_get_proc_bind(), n);
        for (int p = 0; p < n; p++) {
            int ids[1024];
            if (omp_get_place_num_procs(p) > 1024)
                return 1;
            omp_get_place_proc_ids(p, ids);
            printf(" {");
            for (int i = 0; i < omp_get_place_num_procs(p); i++)
                printf("%s%d", i ? "," : "", ids[i]);
            printf("}");
        }
        printf("\n");
        return 0;
    }
    if (strcmp(mode, "schedule") == 0) {
        int32_t last, lo = 0, hi = 9, stride;
        __kmpc_for_static_init_4(NULL, 0, 35 /* dynamic */, &last, &lo, &hi, &stride, 1, 1);
        return 0; /* not reached */
    }
    fprintf(stderr, "test-env: unknown mode %s\n", mode);
    return 2;
}
