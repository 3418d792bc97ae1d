/* test-pool.c: the pool through its native API and the libomp entry points
 * that MLIR does not exercise directly: team sizes and thread numbers,
 * parallel_for coverage, barriers, nested and serialized regions, critical
 * sections, reductions in thread order, wake-up after the workers slept,
 * argument errors, and the waits' Dekker pair: asymmetric (membarrier) on
 * x86-64 and AArch64 when the kernel has it and waits spin, not under
 * OMP_WAIT_POLICY=passive or a spin of 0. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#if defined(__linux__) && !defined(BP_PORTABLE_PRIMS)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "buddypool.h"
#include "check.h"

typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);
typedef int32_t kmp_critical_name[8];
void __kmpc_fork_call(void *loc, int32_t argc, kmpc_micro fn, ...);
void __kmpc_fork_call_if(void *loc, int32_t argc, kmpc_micro fn, int32_t cond, void *args);
void __kmpc_critical_with_hint(void *loc, int32_t gtid, kmp_critical_name *crit, uint32_t hint);
void __kmpc_flush(void *loc);
int32_t __kmpc_single(void *loc, int32_t gtid);
void __kmpc_end_single(void *loc, int32_t gtid);
int32_t __kmpc_master(void *loc, int32_t gtid);
void __kmpc_end_master(void *loc, int32_t gtid);
int32_t __kmpc_masked(void *loc, int32_t gtid, int32_t filter);
void __kmpc_end_masked(void *loc, int32_t gtid);
void __kmpc_push_num_threads(void *loc, int32_t gtid, int32_t n);
void __kmpc_barrier(void *loc, int32_t gtid);
void __kmpc_critical(void *loc, int32_t gtid, kmp_critical_name *crit);
void __kmpc_end_critical(void *loc, int32_t gtid, kmp_critical_name *crit);
int32_t __kmpc_reduce(void *loc, int32_t gtid, int32_t nvars, size_t size, void *data,
                      void (*fn)(void *, void *), kmp_critical_name *lck);
void __kmpc_end_reduce(void *loc, int32_t gtid, kmp_critical_name *lck);
int32_t __kmpc_reduce_nowait(void *loc, int32_t gtid, int32_t nvars, size_t size, void *data,
                             void (*fn)(void *, void *), kmp_critical_name *lck);
void __kmpc_end_reduce_nowait(void *loc, int32_t gtid, kmp_critical_name *lck);
void __kmpc_serialized_parallel(void *loc, int32_t gtid);
void __kmpc_end_serialized_parallel(void *loc, int32_t gtid);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
void omp_set_num_threads(int n);
int omp_in_parallel(void);
double omp_get_wtime(void);

static int max_threads;
static int limit; /* BUDDY_THREAD_POOL_THREADS; 0: none */

/* ---- team sizes and thread numbers ---- */
struct seen {
    _Atomic int count[256];
    _Atomic int team;
    pthread_t os[256];
};

static void record(int thread, int team_size, void *ctx)
{
    struct seen *s = ctx;
    CHECK_LT(thread, team_size);
    CHECK_EQ(thread, buddypool_thread_num());
    CHECK_EQ(team_size, buddypool_team_size());
    CHECK_EQ(thread, omp_get_thread_num());
    CHECK_EQ(team_size, omp_get_num_threads());
    CHECK_EQ(omp_in_parallel(), team_size > 1);
    atomic_fetch_add(&s->count[thread], 1);
    atomic_store(&s->team, team_size);
    s->os[thread] = pthread_self();
}

static void test_team_sizes(void)
{
    for (int want = 0; want <= max_threads + 2; want++) {
        struct seen s;
        memset(&s, 0, sizeof s);
        CHECK_EQ(buddypool_parallel(want, record, &s), 0);
        /* a size asked for is honoured, beyond the CPUs too, up to the limit */
        int expect = want == 0 ? max_threads : (limit > 0 && want > limit ? limit : want);
        CHECK_EQ(atomic_load(&s.team), expect);
        for (int i = 0; i < 256; i++)
            CHECK_EQ(atomic_load(&s.count[i]), i < expect);
        CHECK(pthread_equal(s.os[0], pthread_self())); /* the caller is thread 0 */
        for (int i = 0; i < expect; i++)
            for (int j = 0; j < i; j++)
                CHECK(!pthread_equal(s.os[i], s.os[j]));
    }
    CHECK_EQ(buddypool_parallel(-1, record, NULL), -EINVAL);
    CHECK_EQ(buddypool_parallel(1, NULL, NULL), -EINVAL);
    CHECK_EQ(buddypool_thread_num(), 0);
    CHECK_EQ(buddypool_team_size(), 1);
    CHECK_EQ(omp_in_parallel(), 0);
}

/* ---- parallel_for: every index once, one contiguous range per thread ---- */
struct cover {
    int64_t n;
    _Atomic unsigned char *hits;
    _Atomic int calls;
};

static void cover_range(int64_t begin, int64_t end, void *ctx)
{
    struct cover *c = ctx;
    CHECK_LT(begin, end);
    CHECK_LE(end, c->n);
    atomic_fetch_add(&c->calls, 1);
    for (int64_t i = begin; i < end; i++)
        atomic_fetch_add(&c->hits[i], 1);
}

static void test_parallel_for(void)
{
    static const int64_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 100003};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int64_t n = sizes[k];
        struct cover c = {n, calloc((size_t)n + 1, 1), 0};
        CHECK_EQ(buddypool_parallel_for(n, cover_range, &c), 0);
        for (int64_t i = 0; i < n; i++)
            CHECK_EQ(atomic_load(&c.hits[i]), 1);
        int64_t expect_calls = n < max_threads ? n : max_threads;
        CHECK_EQ(atomic_load(&c.calls), expect_calls);
        free((void *)c.hits);
    }
    CHECK_EQ(buddypool_parallel_for(-1, cover_range, NULL), -EINVAL);
    CHECK_EQ(buddypool_parallel_for(5, NULL, NULL), -EINVAL);
}

/* ---- barriers: no thread passes episode k before all reached it ---- */
enum { ROUNDS = 2000 };
struct phases {
    _Atomic int arrived[ROUNDS];
    _Atomic int errors;
};

static void barrier_rounds(int thread, int team_size, void *ctx)
{
    struct phases *p = ctx;
    for (int r = 0; r < ROUNDS; r++) {
        atomic_fetch_add(&p->arrived[r], 1);
        buddypool_barrier();
        if (atomic_load(&p->arrived[r]) != team_size)
            atomic_fetch_add(&p->errors, 1);
    }
}

static void test_barrier(void)
{
    struct phases *p = calloc(1, sizeof *p);
    CHECK_EQ(buddypool_parallel(0, barrier_rounds, p), 0);
    CHECK_EQ(atomic_load(&p->errors), 0);
    CHECK_EQ(atomic_load(&p->arrived[ROUNDS - 1]), max_threads);
    CHECK_EQ(buddypool_barrier(), 0); /* outside a region: returns at once */
    free(p);
}

/* ---- nested regions run serially on the calling thread ---- */
static void inner(int thread, int team_size, void *ctx)
{
    pthread_t *outer = ctx;
    CHECK_EQ(thread, 0);
    CHECK_EQ(team_size, 1);
    CHECK(pthread_equal(*outer, pthread_self()));
}

static void outer(int thread, int team_size, void *ctx)
{
    pthread_t me = pthread_self();
    _Atomic int *ran = ctx;
    CHECK_EQ(buddypool_parallel(0, inner, &me), 0);
    CHECK_EQ(buddypool_thread_num(), thread); /* restored after the nested region */
    CHECK_EQ(buddypool_team_size(), team_size);
    atomic_fetch_add(ran, 1);
    buddypool_barrier(); /* the team's barrier still works after nesting */
}

static void test_nested(void)
{
    _Atomic int ran = 0;
    CHECK_EQ(buddypool_parallel(0, outer, &ran), 0);
    CHECK_EQ(atomic_load(&ran), max_threads);
}

/* ---- libomp entry points: critical, reductions, serialized regions ---- */
static kmp_critical_name crit;
static long shared_counter; /* guarded by crit only */

static void critical_body(int32_t *gtid, int32_t *btid, int *rounds)
{
    for (int i = 0; i < *rounds; i++) {
        if (i % 2)
            __kmpc_critical_with_hint(NULL, *gtid, &crit, 1 /* uncontended */);
        else
            __kmpc_critical(NULL, *gtid, &crit);
        shared_counter++;
        __kmpc_end_critical(NULL, *gtid, &crit);
    }
}

/* reduce_func: lhs and rhs are arrays of one pointer each */
static void add_longs(void *lhs, void *rhs)
{
    **(long **)lhs += **(long **)rhs;
}

/* Order of the fold: appending thread numbers as decimal digits. */
static void append_order(void *lhs, void *rhs)
{
    long *l = *(long **)lhs, *r = *(long **)rhs;
    *l = *l * 100 + *r;
}

struct red {
    long total, order;
    int nowait;
};

static void reduce_body(int32_t *gtid, int32_t *btid, struct red *r)
{
    static kmp_critical_name lck;
    for (int round = 0; round < 500; round++) {
        long mine = omp_get_thread_num() + 1;
        void *data[1] = {&mine};
        int32_t ret = r->nowait
            ? __kmpc_reduce_nowait(NULL, *gtid, 1, sizeof data, data, add_longs, &lck)
            : __kmpc_reduce(NULL, *gtid, 1, sizeof data, data, add_longs, &lck);
        CHECK_EQ(ret, omp_get_thread_num() == 0 ? 1 : 0);
        if (ret == 1) {
            r->total += mine;
            r->nowait ? __kmpc_end_reduce_nowait(NULL, *gtid, &lck)
                      : __kmpc_end_reduce(NULL, *gtid, &lck);
        }
        __kmpc_barrier(NULL, *gtid);
    }
    long pos = omp_get_thread_num() + 10;
    void *data[1] = {&pos};
    if (__kmpc_reduce(NULL, *gtid, 1, sizeof data, data, append_order, &lck) == 1) {
        r->order = pos;
        __kmpc_end_reduce(NULL, *gtid, &lck);
    }
}

static void serialized_body(int32_t *gtid, int32_t *btid, _Atomic int *ok)
{
    int me = omp_get_thread_num(), team = omp_get_num_threads();
    __kmpc_serialized_parallel(NULL, *gtid);
    int inside = omp_get_thread_num() == 0 && omp_get_num_threads() == 1;
    __kmpc_barrier(NULL, *gtid); /* a team of one: returns at once */
    __kmpc_end_serialized_parallel(NULL, *gtid);
    if (inside && omp_get_thread_num() == me && omp_get_num_threads() == team)
        atomic_fetch_add(ok, 1);
}

/* single: each of 3000 constructs runs on exactly one thread, with and
 * without the barrier after it; master and masked on the named thread. */
enum { SINGLES = 3000 };
struct singles {
    _Atomic int ran[SINGLES];
    _Atomic int master, masked, wrong;
};

static void singles_body(int32_t *gtid, int32_t *btid, struct singles *s)
{
    for (int k = 0; k < SINGLES; k++) {
        if (__kmpc_single(NULL, *gtid)) {
            atomic_fetch_add(&s->ran[k], 1);
            __kmpc_end_single(NULL, *gtid);
        }
        if (k % 3 == 0)
            __kmpc_barrier(NULL, *gtid); /* the others are nowait */
    }
    if (__kmpc_master(NULL, *gtid)) {
        if (omp_get_thread_num() != 0)
            atomic_fetch_add(&s->wrong, 1);
        atomic_fetch_add(&s->master, 1);
        __kmpc_end_master(NULL, *gtid);
    }
    int filter = omp_get_num_threads() - 1;
    if (__kmpc_masked(NULL, *gtid, filter)) {
        if (omp_get_thread_num() != filter)
            atomic_fetch_add(&s->wrong, 1);
        atomic_fetch_add(&s->masked, 1);
        __kmpc_end_masked(NULL, *gtid);
    }
}

static void test_kmpc(void)
{
    struct singles *sg = calloc(1, sizeof *sg);
    for (int r = 0; r < 3; r++) {
        memset(sg, 0, sizeof *sg);
        __kmpc_fork_call(NULL, 1, (kmpc_micro)singles_body, sg);
        for (int k = 0; k < SINGLES; k++)
            CHECK_EQ(atomic_load(&sg->ran[k]), 1);
        CHECK_EQ(atomic_load(&sg->master), 1);
        CHECK_EQ(atomic_load(&sg->masked), 1);
        CHECK_EQ(atomic_load(&sg->wrong), 0);
    }
    free(sg);

    int rounds = 20000;
    shared_counter = 0;
    __kmpc_fork_call(NULL, 1, (kmpc_micro)critical_body, &rounds);
    CHECK_EQ(shared_counter, (long)rounds * max_threads);

    for (int nowait = 0; nowait <= 1; nowait++) {
        struct red r = {0, 0, nowait};
        __kmpc_fork_call(NULL, 1, (kmpc_micro)reduce_body, &r);
        CHECK_EQ(r.total, 500L * max_threads * (max_threads + 1) / 2);
        long order = 0;
        for (int t = 0; t < max_threads && t < 8; t++)
            order = order * 100 + 10 + t;
        if (max_threads <= 8)
            CHECK_EQ(r.order, order); /* folded in thread order 0, 1, 2, ... */
    }

    _Atomic int ok = 0;
    __kmpc_fork_call(NULL, 1, (kmpc_micro)serialized_body, &ok);
    CHECK_EQ(atomic_load(&ok), max_threads);
    __kmpc_serialized_parallel(NULL, 0);
    CHECK_EQ(omp_get_num_threads(), 1);
    __kmpc_end_serialized_parallel(NULL, 0);
}

/* ---- omp_set_num_threads and push_num_threads ---- */
static void report_team_kmpc(int32_t *gtid, int32_t *btid, int *team)
{
    if (omp_get_thread_num() == 0)
        *team = omp_get_num_threads();
}

static void test_thread_counts(void)
{
    struct seen s;
    CHECK_EQ(omp_get_max_threads(), max_threads);
    omp_set_num_threads(1);
    CHECK_EQ(omp_get_max_threads(), 1);
    memset(&s, 0, sizeof s);
    buddypool_parallel(0, record, &s);
    CHECK_EQ(atomic_load(&s.team), 1);
    omp_set_num_threads(0); /* ignored with a warning */
    CHECK_EQ(omp_get_max_threads(), 1);
    omp_set_num_threads(max_threads);
    /* a pushed count applies to the next region only */
    __kmpc_push_num_threads(NULL, 0, 1);
    int team = 0;
    __kmpc_fork_call(NULL, 1, (kmpc_micro)report_team_kmpc, &team);
    CHECK_EQ(team, 1);
    __kmpc_fork_call(NULL, 1, (kmpc_micro)report_team_kmpc, &team);
    CHECK_EQ(team, max_threads);
    /* if(cond): a team of one when cond is false */
    __kmpc_fork_call_if(NULL, 1, (kmpc_micro)report_team_kmpc, 0, &team);
    CHECK_EQ(team, 1);
    __kmpc_fork_call_if(NULL, 1, (kmpc_micro)report_team_kmpc, 1, &team);
    CHECK_EQ(team, max_threads);
    __kmpc_flush(NULL);
    /* clang pushes num_threads before it tests if(): a serialized region
     * consumes the pushed count */
    __kmpc_push_num_threads(NULL, 0, 1);
    __kmpc_serialized_parallel(NULL, 0);
    __kmpc_end_serialized_parallel(NULL, 0);
    __kmpc_fork_call(NULL, 1, (kmpc_micro)report_team_kmpc, &team);
    CHECK_EQ(team, max_threads);
}

/* ---- the waits' pair (wait.c) ---- */
int bp_wait_asymmetric(void); /* the library's own: the static library's */

#if defined(__x86_64__)
/* Whether the processor is Intel's, as /proc/cpuinfo names its vendor
 * (the library asks CPUID). */
static int cpu_is_intel(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    int intel = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "vendor_id", 9) == 0) {
            intel = strstr(line, "GenuineIntel") != NULL;
            break;
        }
    fclose(f);
    return intel;
}
#endif

static void test_wait_pair(void)
{
    const char *policy = getenv("OMP_WAIT_POLICY"), *spin = getenv("BUDDY_THREAD_POOL_SPIN_US");
    const char *pair = getenv("BUDDY_THREAD_POOL_WAIT_PAIR");
    int passive = (policy != NULL && strcasecmp(policy, "passive") == 0) ||
                  (spin != NULL && strcmp(spin, "0") == 0);
    /* named, or by the processor: all but Intel's x86-64 */
    int pays = pair != NULL && strcmp(pair, "symmetric") == 0    ? 0
               : pair != NULL && strcmp(pair, "asymmetric") == 0 ? 1
#if defined(__x86_64__)
                                                                  : !cpu_is_intel();
#else
                                                                  : 1;
#endif
    int want = 0;
#if defined(__linux__) && !defined(BP_PORTABLE_PRIMS) && defined(__NR_membarrier) && \
    (defined(__x86_64__) || defined(__aarch64__))
    long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    want = !passive && pays && cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0;
#endif
    (void)passive;
    (void)pays;
    printf("test-pool: the waits' pair is %s\n", bp_wait_asymmetric() ? "asymmetric" : "symmetric");
    CHECK_EQ(bp_wait_asymmetric(), want);
}

/* ---- the first region after the workers went to sleep ---- */
static void test_wake_after_idle(void)
{
    for (int k = 0; k < 5; k++) {
        struct timespec ts = {0, 30 * 1000 * 1000}; /* beyond the 2 ms spin */
        nanosleep(&ts, NULL);
        struct seen s;
        memset(&s, 0, sizeof s);
        buddypool_parallel(0, record, &s);
        for (int i = 0; i < max_threads; i++)
            CHECK_EQ(atomic_load(&s.count[i]), 1);
    }
}

int main(void)
{
    const char *lim = getenv("BUDDY_THREAD_POOL_THREADS");
    limit = lim != NULL ? atoi(lim) : 0;
    max_threads = buddypool_max_threads();
    CHECK_GE(max_threads, 1);
    CHECK_LE(max_threads, 256);
    CHECK_GE(omp_get_wtime(), 0.0);
    test_team_sizes();
    test_parallel_for();
    test_barrier();
    test_nested();
    test_kmpc();
    test_thread_counts();
    test_wake_after_idle();
    test_wait_pair();
    printf("test-pool: passed with %d threads\n", max_threads);
    return 0;
}
