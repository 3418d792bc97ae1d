/* gomp-legacy.c: the region calls gcc before 4.9 emitted, made here by
 * hand: GOMP_parallel_start(fn, data, n); fn(data); GOMP_parallel_end().
 * Every thread of the team runs fn once, worksharing inside works, a region
 * started inside one runs, and the caller is thread 0. The combined starts
 * of that ABI (GOMP_parallel_loop_{static,dynamic,guided,runtime}_start,
 * GOMP_parallel_sections_start) begin the loop or sections on every thread,
 * the caller too, before fn takes its chunks with the _next calls. */
#include <omp.h>
#include <string.h>

#include "gomp-check.h"

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);
void GOMP_parallel_loop_static_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_dynamic_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_guided_start(void (*)(void *), void *, unsigned, long, long, long, long);
void GOMP_parallel_loop_runtime_start(void (*)(void *), void *, unsigned, long, long, long);
void GOMP_parallel_sections_start(void (*)(void *), void *, unsigned, unsigned);
_Bool GOMP_loop_static_next(long *, long *);
_Bool GOMP_loop_dynamic_next(long *, long *);
_Bool GOMP_loop_guided_next(long *, long *);
_Bool GOMP_loop_runtime_next(long *, long *);
void GOMP_loop_end_nowait(void);
unsigned GOMP_sections_next(void);
void GOMP_sections_end_nowait(void);

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

/* The body of a combined loop: take chunks with `next` until none is left. */
struct combined {
    _Bool (*next)(long *, long *);
    int hits[N];
    int team;
};

static void loop_body(void *p)
{
    struct combined *c = p;
    long s, e;
    while (c->next(&s, &e))
        for (long i = s; i < e; i += 2) /* the loop runs 0, 2, 4, ... */
            __atomic_fetch_add(&c->hits[i], 1, __ATOMIC_RELAXED);
    GOMP_loop_end_nowait();
    PRAGMA(omp master)
    c->team = omp_get_num_threads();
}

static void sections_body(void *p)
{
    struct combined *c = p;
    for (unsigned k = GOMP_sections_next(); k != 0; k = GOMP_sections_next())
        __atomic_fetch_add(&c->hits[k], 1, __ATOMIC_RELAXED);
    GOMP_sections_end_nowait();
    PRAGMA(omp master)
    c->team = omp_get_num_threads();
}

static void combined_starts(int team)
{
    static struct combined c;
    static const struct {
        const char *what;
        int kind; /* 0 static, 1 dynamic, 2 guided, 3 runtime */
    } kinds[] = {{"GOMP_parallel_loop_static_start", 0},
                 {"GOMP_parallel_loop_dynamic_start", 1},
                 {"GOMP_parallel_loop_guided_start", 2},
                 {"GOMP_parallel_loop_runtime_start", 3}};
    _Bool (*nexts[])(long *, long *) = {GOMP_loop_static_next, GOMP_loop_dynamic_next,
                                        GOMP_loop_guided_next, GOMP_loop_runtime_next};
    for (int k = 0; k < 4; k++) {
        memset(&c, 0, sizeof c);
        c.next = nexts[kinds[k].kind];
        switch (kinds[k].kind) {
        case 0: GOMP_parallel_loop_static_start(loop_body, &c, 0, 0, N, 2, 3); break;
        case 1: GOMP_parallel_loop_dynamic_start(loop_body, &c, 0, 0, N, 2, 3); break;
        case 2: GOMP_parallel_loop_guided_start(loop_body, &c, 0, 0, N, 2, 3); break;
        default: GOMP_parallel_loop_runtime_start(loop_body, &c, 0, 0, N, 2); break;
        }
        loop_body(&c);
        GOMP_parallel_end();
        for (int i = 0; i < N; i++)
            if (c.hits[i] != (i % 2 == 0)) {
                EXPECT_EQ(c.hits[i], i % 2 == 0, kinds[k].what);
                break;
            }
        EXPECT_EQ(c.team, team, kinds[k].what);
    }
    memset(&c, 0, sizeof c);
    GOMP_parallel_sections_start(sections_body, &c, 0, 9);
    sections_body(&c);
    GOMP_parallel_end();
    for (int i = 0; i < N; i++)
        EXPECT_EQ(c.hits[i], i >= 1 && i <= 9, "GOMP_parallel_sections_start");
    EXPECT_EQ(c.team, team, "GOMP_parallel_sections_start");
}

int main(void)
{
    int team = check_team_size("gomp-legacy");
    legacy("GOMP_parallel_start(fn, data, 0)", 0, team);
    legacy("GOMP_parallel_start(fn, data, 1)", 1, 1);
    legacy("GOMP_parallel_start(fn, data, 2)", 2, 0);
    for (int i = 0; i < 100; i++)
        legacy("GOMP_parallel_start(fn, data, 0), repeated", 0, team);
    combined_starts(team);
    return check_summary("gomp-legacy");
}
