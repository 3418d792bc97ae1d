/* gomp-legacy.c: the region calls gcc before 4.9 emitted, made here by
 * hand: GOMP_parallel_start(fn, data, n); fn(data); GOMP_parallel_end().
 * Every thread of the team runs fn once, worksharing inside works, a region
 * started inside one runs, and the caller is thread 0. */
#include <omp.h>
#include <string.h>

#include "gomp-check.h"

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);

enum { N = 500, MAXT = 64 };

struct run {
    int ran[MAXT];   /* times thread k ran the body */
    int team;        /* omp_get_num_threads() in the region */
    int hits[N];
    int nested_ran;
    int in_parallel;
};

static volatile int v_n = N;

static void nested_body(void *p)
{
    struct run *r = p;
    __atomic_fetch_add(&r->nested_ran, 1, __ATOMIC_RELAXED);
}

static void body(void *p)
{
    struct run *r = p;
    int me = omp_get_thread_num(), n = v_n;
    if (me < MAXT)
        __atomic_fetch_add(&r->ran[me], 1, __ATOMIC_RELAXED);
    if (omp_in_parallel() || omp_get_num_threads() == 1)
        __atomic_store_n(&r->in_parallel, 1, __ATOMIC_RELAXED);
    PRAGMA(omp single)
    r->team = omp_get_num_threads();
    PRAGMA(omp for schedule(dynamic, 3))
    for (int i = 0; i < n; i++) {
        PRAGMA(omp atomic)
        r->hits[i]++;
    }
    /* a region begun inside this one, the old way too */
    GOMP_parallel_start(nested_body, r, 2);
    nested_body(r);
    GOMP_parallel_end();
}

/* want_team: the team size expected, or 0 for between 1 and num_threads. */
static void legacy(const char *what, unsigned num_threads, int want_team)
{
    static struct run r;
    memset(&r, 0, sizeof r);
    GOMP_parallel_start(body, &r, num_threads);
    body(&r);
    int caller_tid = omp_get_thread_num();
    GOMP_parallel_end();
    EXPECT_EQ(caller_tid, 0, what);
    EXPECT_EQ(omp_in_parallel(), 0, what);
    if (want_team > 0)
        EXPECT_EQ(r.team, want_team, what);
    else
        EXPECT_LE(r.team, (int)num_threads, what);
    EXPECT_GE(r.team, 1, what);
    for (int k = 0; k < MAXT; k++)
        EXPECT_EQ(r.ran[k], k < r.team, what);
    for (int i = 0; i < N; i++)
        if (r.hits[i] != 1) {
            EXPECT_EQ(r.hits[i], 1, what);
            break;
        }
    EXPECT_GE(r.nested_ran, r.team, what); /* each thread's nested region ran */
    EXPECT_EQ(r.in_parallel, 1, what);
}

int main(void)
{
    int team = check_team_size("gomp-legacy");
    legacy("GOMP_parallel_start(fn, data, 0)", 0, team);
    legacy("GOMP_parallel_start(fn, data, 1)", 1, 1);
    legacy("GOMP_parallel_start(fn, data, 2)", 2, 0);
    for (int i = 0; i < 100; i++)
        legacy("GOMP_parallel_start(fn, data, 0), repeated", 0, team);
    return check_summary("gomp-legacy");
}
