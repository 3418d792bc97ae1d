/* driver.c: the shared part of the MLIR client tests' drivers; see
 * driver.h. */
#define _GNU_SOURCE
#include "driver.h"

#include <ctype.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* A positive integer at the start of `name`'s value, followed by nothing
 * but spaces (or, with list set, a comma and more); 0 if unset or bad, as
 * buddypool then ignores the variable. */
static int env_count(const char *name, int list)
{
    const char *s = getenv(name);
    if (s == NULL)
        return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v <= 0 || v > 1L << 30)
        return 0;
    if (list && *end == ',')
        return (int)v;
    while (isspace((unsigned char)*end))
        end++;
    return *end == '\0' ? (int)v : 0;
}

int drv_expected_team(int requested)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CHECK_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    int cpus = CPU_COUNT(&set);
    CHECK_GE(cpus, 1);

    int limit = env_count("BUDDY_THREAD_POOL_THREADS", 0);
    int omp_limit = env_count("OMP_THREAD_LIMIT", 0);
    if (omp_limit > 0 && (limit == 0 || omp_limit < limit))
        limit = omp_limit;
    const char *over = getenv("BUDDY_THREAD_POOL_OVERSUBSCRIBE");
    /* The default team: one thread per CPU, lowered by the limit (raised to
     * it by the test-only BUDDY_THREAD_POOL_OVERSUBSCRIBE). */
    int def = cpus;
    if (limit > 0 && over != NULL && strcmp(over, "1") == 0)
        def = limit;
    else if (limit > 0 && limit < def)
        def = limit;

    /* An explicit request (num_threads, OMP_NUM_THREADS) is honoured beyond
     * the CPUs, up to the limit. */
    int want = requested;
    if (want <= 0)
        want = env_count("OMP_NUM_THREADS", 1);
    if (want <= 0)
        return def;
    return limit > 0 && want > limit ? limit : want;
}

static _Atomic int os_threads;
static _Thread_local int os_thread = -1;

int drv_os_thread(void)
{
    if (os_thread < 0)
        os_thread = atomic_fetch_add_explicit(&os_threads, 1, memory_order_relaxed);
    return os_thread;
}

int drv_os_threads_seen(void)
{
    return atomic_load_explicit(&os_threads, memory_order_relaxed);
}

void drv_clear(struct drv_visit *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        atomic_store_explicit(&v[i].hits, 0, memory_order_relaxed);
        atomic_store_explicit(&v[i].omp_thread, -1, memory_order_relaxed);
        atomic_store_explicit(&v[i].omp_threads, -1, memory_order_relaxed);
        atomic_store_explicit(&v[i].os_thread, -1, memory_order_relaxed);
    }
}

void drv_visit(struct drv_visit *v)
{
    /* relaxed throughout: the region's join orders these stores before the
     * driver's reads */
    atomic_fetch_add_explicit(&v->hits, 1, memory_order_relaxed);
    atomic_store_explicit(&v->omp_thread, omp_get_thread_num(), memory_order_relaxed);
    atomic_store_explicit(&v->omp_threads, omp_get_num_threads(), memory_order_relaxed);
    atomic_store_explicit(&v->os_thread, drv_os_thread(), memory_order_relaxed);
}

int drv_check_team(const struct drv_visit *v, int64_t n, int team)
{
    CHECK_GE(team, 1);
    int *os_of = malloc(sizeof(int) * (size_t)team);        /* thread number -> OS thread */
    int64_t *count = calloc((size_t)team, sizeof(int64_t)); /* iterations per thread */
    CHECK(os_of != NULL && count != NULL);
    for (int t = 0; t < team; t++)
        os_of[t] = -1;

    int prev = 0;
    for (int64_t i = 0; i < n; i++) {
        int hits = atomic_load_explicit(&v[i].hits, memory_order_relaxed);
        int tid = atomic_load_explicit(&v[i].omp_thread, memory_order_relaxed);
        int nth = atomic_load_explicit(&v[i].omp_threads, memory_order_relaxed);
        int os = atomic_load_explicit(&v[i].os_thread, memory_order_relaxed);
        if (hits != 1)
            fprintf(stderr, "iteration %lld of %lld\n", (long long)i, (long long)n);
        CHECK_EQ(hits, 1);
        CHECK_EQ(nth, team);
        CHECK_GE(tid, 0);
        CHECK_LT(tid, team);
        CHECK_GE(tid, prev); /* static: one block per thread, in thread order */
        prev = tid;
        if (os_of[tid] < 0)
            os_of[tid] = os;
        CHECK_EQ(os, os_of[tid]);
        count[tid]++;
    }

    int64_t lo = n, hi = 0;
    int distinct = 0;
    for (int t = 0; t < team; t++) {
        lo = count[t] < lo ? count[t] : lo;
        hi = count[t] > hi ? count[t] : hi;
        if (os_of[t] < 0)
            continue;
        distinct++;
        for (int u = 0; u < t; u++)
            CHECK_NE(os_of[u], os_of[t]);
    }
    CHECK_LE(hi - lo, 1);
    CHECK_EQ(distinct, n < team ? n : team);
    if (n > 0)
        CHECK_EQ(os_of[0], drv_os_thread()); /* the caller is thread 0 */
    free(os_of);
    free(count);
    return distinct;
}

void drv_check_outside(void)
{
    CHECK_EQ(omp_get_thread_num(), 0);
    CHECK_EQ(omp_get_num_threads(), 1);
}

static const char *_Atomic phase;

static void report_phase(void)
{
    /* relaxed: exit() may run this on a pool thread; the string is constant */
    const char *what = atomic_load_explicit(&phase, memory_order_relaxed);
    if (what != NULL)
        fprintf(stderr, "failed while: %s\n", what);
}

void drv_phase(const char *what)
{
    static int registered;
    if (!registered) {
        registered = 1;
        atexit(report_phase);
    }
    atomic_store_explicit(&phase, what, memory_order_relaxed);
}

int drv_calls(int argc, char **argv, int dflt)
{
    if (argc < 2)
        return dflt;
    int calls = atoi(argv[1]);
    CHECK_GE(calls, 1);
    return calls;
}

struct drv_visit *drv_visits;
int64_t drv_visits_n;

void visit(int64_t i)
{
    CHECK_GE(i, 0);
    CHECK_LT(i, drv_visits_n);
    drv_visit(&drv_visits[i]);
}
