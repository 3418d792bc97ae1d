/* kmp-simd.c: libomp's simd schedules through __kmpc_dispatch_init_4, as
 * clang emits them for `for simd`: schedule(simd: static) is
 * kmp_sch_static_balanced_chunked (45), schedule(simd: guided) guided_simd
 * (46) and schedule(simd: runtime) runtime_simd (47), each with the simd
 * width in the chunk argument. Every thread of the team takes its chunks;
 * every iteration must be taken once, and each chunk must start at a
 * multiple of the width and hold a whole number of widths (the last excepted),
 * with the sizes libomp gives: one rounded block per thread for the static
 * kinds, chunk * width for dynamic. Linked with libbuddypool and with libomp,
 * which validates the checks. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} ident_t;
void __kmpc_dispatch_init_4(ident_t *, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t);
int32_t __kmpc_dispatch_next_4(ident_t *, int32_t, int32_t *, int32_t *, int32_t *, int32_t *);
int32_t __kmpc_global_thread_num(ident_t *);

static ident_t loc = {0, 2, 0, 0, ";kmp-simd.c;main;1;1;;"};
enum { N = 1001, WIDTH = 8, MAX_CHUNKS = 4096 };

static int failures;
#define EXPECT(cond, ...)                                                              \
    do {                                                                               \
        if (!(cond) && __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED) < 20) {      \
            fprintf(stderr, "kmp-simd: CHECK failed: %s: ", #cond);                   \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
        }                                                                              \
    } while (0)

struct chunk {
    int lb, ub, tid;
};

/* Take every chunk of a loop 0..N-1 under schedule/width on the team; returns
 * the team size; chunks in out[], their count in *n. */
static int take_all(int32_t schedule, struct chunk *out, int *n)
{
    int team = 0;
    *n = 0;
#pragma omp parallel
    {
        int32_t gtid = __kmpc_global_thread_num(&loc);
        int32_t last, lb, ub, st;
        __kmpc_dispatch_init_4(&loc, gtid, schedule, 0, N - 1, 1, WIDTH);
        while (__kmpc_dispatch_next_4(&loc, gtid, &last, &lb, &ub, &st)) {
            int k = __atomic_fetch_add(n, 1, __ATOMIC_RELAXED);
            if (k < MAX_CHUNKS)
                out[k] = (struct chunk){lb, ub, omp_get_thread_num()};
        }
#pragma omp master
        team = omp_get_num_threads();
    }
    return team;
}

/* What the chunks of one loop must be: each start a multiple of `align`,
 * each size a multiple of it but the one that ends the loop; `size` > 0:
 * exactly that size but the last; `per_thread`: one chunk a thread. */
static void check(const char *what, int32_t schedule, int align, int size, int per_thread)
{
    static struct chunk c[MAX_CHUNKS];
    int n, seen[N] = {0}, chunks_of[64] = {0};
    int team = take_all(schedule, c, &n);
    EXPECT(n <= MAX_CHUNKS, "%s: %d chunks", what, n);
    for (int k = 0; k < n && k < MAX_CHUNKS; k++) {
        EXPECT(c[k].lb >= 0 && c[k].lb <= c[k].ub && c[k].ub < N, "%s: chunk %d..%d", what,
               c[k].lb, c[k].ub);
        if (c[k].lb < 0 || c[k].ub >= N || c[k].lb > c[k].ub)
            continue;
        for (int i = c[k].lb; i <= c[k].ub; i++)
            seen[i]++;
        int len = c[k].ub - c[k].lb + 1;
        EXPECT(c[k].lb % align == 0, "%s: chunk %d..%d starts off a multiple of %d", what,
               c[k].lb, c[k].ub, align);
        if (c[k].ub != N - 1) {
            EXPECT(len % align == 0, "%s: chunk %d..%d is not whole widths of %d", what,
                   c[k].lb, c[k].ub, align);
            if (size > 0)
                EXPECT(len == size, "%s: chunk %d..%d, size %d expected", what, c[k].lb,
                       c[k].ub, size);
        }
        if (c[k].tid < 64)
            chunks_of[c[k].tid]++;
    }
    for (int i = 0; i < N; i++)
        EXPECT(seen[i] == 1, "%s: iteration %d taken %d times", what, i, seen[i]);
    if (per_thread)
        for (int t = 0; t < team && t < 64; t++)
            EXPECT(chunks_of[t] <= 1, "%s: thread %d took %d chunks", what, t, chunks_of[t]);
    printf("kmp-simd: %s on %d threads: %d chunks\n", what, team, n);
}

int main(void)
{
    int nth = omp_get_max_threads();
    /* the balanced block: ceil(N / nth) rounded up to the width */
    int block = nth > 1 ? ((N + nth - 1) / nth + WIDTH - 1) / WIDTH * WIDTH : N;
    check("static_balanced_chunked", 45, WIDTH, block, 1);
    check("guided_simd", 46, WIDTH, 0, 0);
    omp_set_schedule(omp_sched_static, 0);
    check("runtime_simd, static", 47, WIDTH, block, 1);
    omp_set_schedule(omp_sched_static, 3);
    check("runtime_simd, static 3", 47, 3 * WIDTH, 3 * WIDTH, 0);
    omp_set_schedule(omp_sched_dynamic, 1);
    check("runtime_simd, dynamic", 47, WIDTH, WIDTH, 0);
    omp_set_schedule(omp_sched_dynamic, 5);
    check("runtime_simd, dynamic 5", 47, 5 * WIDTH, 5 * WIDTH, 0);
    omp_set_schedule(omp_sched_guided, 2);
    check("runtime_simd, guided 2", 47, WIDTH, 0, 0);
    if (failures) {
        fprintf(stderr, "kmp-simd: %d checks failed\n", failures);
        return 1;
    }
    printf("kmp-simd: all checks passed\n");
    return 0;
}
