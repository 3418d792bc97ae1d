/* abfork.c: two builds of libbuddypool.so in one process, side by side:
 * the cost of a region (fork and join of an empty region) through each
 * entry compiled code and programs use (the native API's
 * buddypool_parallel, clang's __kmpc_fork_call, gcc's GOMP_parallel), and
 * of a barrier episode, for a change that must not make the pool slower.
 *
 * Two builds measured in two processes see two machines: on a shared 2-CPU
 * guest the host may place the two CPUs anew between runs (a cache-line
 * round trip of 100 ns in one, 450 ns in the next), which moves a region's
 * cost far more than a change of a few instructions does. Here both
 * libraries are loaded (dlopen, RTLD_LOCAL: each has its own pool, its own
 * symbols), with the same CPUs and the same placement, and measured in
 * alternating blocks: a block runs `regions` regions on one library, after a
 * pause in which the other library's workers go to sleep (the default 2 ms
 * spin, then the futex), and after warm-up regions that wake its own
 * workers. Each block gives one time per region (and per barrier episode);
 * the table gives each library's median over the blocks, and the median of
 * the per-pair ratios B / A.
 *
 *   abfork LIB_A LIB_B [--blocks N] [--regions N] [--barriers N] [--threads N]
 *
 * Output: a table, then `RESULT abfork metric=NAME a_ns=X b_ns=Y ratio=R`
 * (NAME: region_native, region_kmpc, region_gomp, barrier).
 * Threads: --threads (default 2) for both libraries' regions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*region_fn)(int tid, int team_size, void *ctx);
typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);
struct lib {
    const char *path;
    int (*parallel)(int team_size, region_fn fn, void *ctx);
    int (*barrier)(void);
    void (*kmpc_fork_call)(void *loc, int32_t argc, kmpc_micro fn, ...);
    void (*kmpc_push_num_threads)(void *loc, int32_t gtid, int32_t n);
    void (*gomp_parallel)(void (*fn)(void *), void *data, unsigned n, unsigned flags);
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void empty_region(int tid, int team_size, void *ctx)
{
    (void)tid, (void)team_size, (void)ctx;
}

static void empty_micro(int32_t *gtid, int32_t *btid) { (void)gtid, (void)btid; }

static void empty_gomp(void *data) { (void)data; }

struct barrier_ctx {
    const struct lib *lib;
    int episodes;
};

static void barrier_region(int tid, int team_size, void *ctx)
{
    (void)tid, (void)team_size;
    const struct barrier_ctx *b = ctx;
    for (int i = 0; i < b->episodes; i++)
        b->lib->barrier();
}

static void load(struct lib *l, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "abfork: %s\n", dlerror());
        exit(2);
    }
    l->path = path;
    l->parallel = (int (*)(int, region_fn, void *))dlsym(h, "buddypool_parallel");
    l->barrier = (int (*)(void))dlsym(h, "buddypool_barrier");
    l->kmpc_fork_call = (void (*)(void *, int32_t, kmpc_micro, ...))dlsym(h, "__kmpc_fork_call");
    l->kmpc_push_num_threads =
        (void (*)(void *, int32_t, int32_t))dlsym(h, "__kmpc_push_num_threads");
    l->gomp_parallel = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(
        h, "GOMP_parallel");
    if (l->parallel == NULL || l->barrier == NULL || l->kmpc_fork_call == NULL ||
        l->kmpc_push_num_threads == NULL || l->gomp_parallel == NULL) {
        fprintf(stderr, "abfork: %s lacks an entry point it measures\n", path);
        exit(2);
    }
}

enum { NATIVE, KMPC, GOMP, ENTRIES };
static const char *const entry_names[ENTRIES] = {"buddypool_parallel", "__kmpc_fork_call",
                                                 "GOMP_parallel"};

static void fork_one(const struct lib *l, int entry, int threads)
{
    switch (entry) {
    case NATIVE:
        l->parallel(threads, empty_region, NULL);
        break;
    case KMPC:
        l->kmpc_push_num_threads(NULL, 0, threads);
        l->kmpc_fork_call(NULL, 0, (kmpc_micro)empty_micro);
        break;
    default:
        l->gomp_parallel(empty_gomp, NULL, (unsigned)threads, 0);
    }
}

/* A block of regions on l through an entry: its time per region, after the
 * other library's workers went to sleep and l's own were woken. */
static double region_block(const struct lib *l, int entry, int threads, int regions)
{
    struct timespec pause = {0, 20 * 1000 * 1000}; /* beyond the 2 ms spin */
    nanosleep(&pause, NULL);
    for (int i = 0; i < 1000; i++) /* wakes l's workers, warms the lines */
        fork_one(l, entry, threads);
    int64_t t0 = now_ns();
    for (int i = 0; i < regions; i++)
        fork_one(l, entry, threads);
    return (double)(now_ns() - t0) / regions;
}

/* The same for barrier episodes, in one region of `episodes` of them. */
static double barrier_block(const struct lib *l, int threads, int episodes)
{
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    struct barrier_ctx warm = {l, 1000}, b = {l, episodes};
    l->parallel(threads, barrier_region, &warm);
    int64_t t0 = now_ns();
    l->parallel(threads, barrier_region, &b);
    return (double)(now_ns() - t0) / episodes;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long arg(int argc, char **argv, int *i, const char *name, long lo)
{
    if (strcmp(argv[*i], name) != 0)
        return -1;
    char *end;
    long v = *i + 1 < argc ? strtol(argv[*i + 1], &end, 10) : 0;
    if (*i + 1 >= argc || *end != '\0' || v < lo) {
        fprintf(stderr, "abfork: %s takes a number of at least %ld\n", name, lo);
        exit(2);
    }
    ++*i;
    return v;
}

int main(int argc, char **argv)
{
    int blocks = 40, regions = 20000, episodes = 50000, threads = 2;
    const char *paths[2];
    int npaths = 0;
    for (int i = 1; i < argc; i++) {
        long v;
        if ((v = arg(argc, argv, &i, "--blocks", 2)) > 0)
            blocks = (int)v;
        else if ((v = arg(argc, argv, &i, "--regions", 1)) > 0)
            regions = (int)v;
        else if ((v = arg(argc, argv, &i, "--barriers", 1)) > 0)
            episodes = (int)v;
        else if ((v = arg(argc, argv, &i, "--threads", 2)) > 0)
            threads = (int)v;
        else if (argv[i][0] != '-' && npaths < 2)
            paths[npaths++] = argv[i];
        else {
            fprintf(stderr, "usage: abfork LIB_A LIB_B [--blocks N] [--regions N] "
                            "[--barriers N] [--threads N]\n");
            return 2;
        }
    }
    if (npaths != 2) {
        fprintf(stderr, "usage: abfork LIB_A LIB_B [--blocks N] [--regions N] "
                        "[--barriers N] [--threads N]\n");
        return 2;
    }
    struct lib libs[2];
    load(&libs[0], paths[0]);
    load(&libs[1], paths[1]);
    /* r[e][k][n]: entry e's (ENTRIES: the barrier's) time on library k in pair n */
    double *r[ENTRIES + 1][2], *ratio[ENTRIES + 1];
    for (int e = 0; e <= ENTRIES; e++) {
        ratio[e] = malloc(sizeof *ratio[e] * (size_t)blocks);
        for (int k = 0; k < 2; k++)
            r[e][k] = malloc(sizeof *r[e][k] * (size_t)blocks);
    }
    for (int n = 0; n < blocks; n++) {
        for (int j = 0; j < 2; j++) { /* the order alternates from pair to pair */
            int k = (n + j) % 2;
            for (int e = 0; e < ENTRIES; e++)
                r[e][k][n] = region_block(&libs[k], e, threads, regions);
            r[ENTRIES][k][n] = barrier_block(&libs[k], threads, episodes);
        }
        for (int e = 0; e <= ENTRIES; e++)
            ratio[e][n] = r[e][1][n] / r[e][0][n];
    }
    printf("%d threads, %d pairs of blocks (%d regions, %d barrier episodes a block), "
           "one process\n\n", threads, blocks, regions, episodes);
    printf("| metric | A (ns) | B (ns) | B / A, median of pairs |\n| --- | --- | --- | --- |\n");
    static const char *const metric[ENTRIES + 1] = {"region_native", "region_kmpc",
                                                    "region_gomp", "barrier"};
    double a[ENTRIES + 1], b[ENTRIES + 1], q[ENTRIES + 1];
    for (int e = 0; e <= ENTRIES; e++) {
        a[e] = median(r[e][0], blocks);
        b[e] = median(r[e][1], blocks);
        q[e] = median(ratio[e], blocks);
        if (e < ENTRIES)
            printf("| region through %s (empty) | %.1f | %.1f | %.3f |\n", entry_names[e], a[e],
                   b[e], q[e]);
        else
            printf("| barrier episode (buddypool_barrier) | %.1f | %.1f | %.3f |\n", a[e], b[e],
                   q[e]);
    }
    printf("A: %s\nB: %s\n", paths[0], paths[1]);
    for (int e = 0; e <= ENTRIES; e++)
        printf("RESULT abfork metric=%s a_ns=%.2f b_ns=%.2f ratio=%.4f\n", metric[e], a[e], b[e],
               q[e]);
    for (int e = 0; e <= ENTRIES; e++) {
        free(ratio[e]);
        for (int k = 0; k < 2; k++)
            free(r[e][k]);
    }
    return 0;
}
