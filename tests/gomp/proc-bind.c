/* proc-bind.c: where the proc_bind clause puts a team's threads, checked
 * against the rules of OpenMP 5.2 (10.1.3), not against one runtime's
 * numbers. For every policy and team size up to 7 (outermost also 17, a
 * team the pool starts as a tree), outermost and nested in a spread team,
 * each thread records its place, its place partition and
 * the CPU it runs on; thread 0 then checks, for a team of T threads forked
 * by a thread on place f of a partition of P places:
 *   every thread runs on a CPU of its place, inside its partition;
 *   primary: every thread on f, the partition kept;
 *   close: the partition kept; T <= P: thread i on the i-th place after f
 *     (wrapping in the partition); T > P: consecutive threads on each
 *     place, floor(T/P) or ceil(T/P) of them, thread 0's run on f, then
 *     the next places in turn;
 *   spread, T <= P: the partitions cut the forker's into T runs of
 *     consecutive places, floor(P/T) or ceil(P/T) long, each following the
 *     one before (wrapping); thread 0 on f in its run, thread i > 0 on the
 *     first place of its;
 *   spread, T > P: placed as close, each partition the thread's place.
 * A region without the clause binds as bind-var says (OMP_PROC_BIND).
 * Then the same team forks with the policies in turn, four rounds, each
 * region checked: a worker's place kept from the region before must be
 * computed again when the policy changes.
 * Under OMP_PROC_BIND=false every thread is unbound (place -1): the
 * clause binds nothing then. With neither OMP_PROC_BIND nor OMP_PLACES
 * set (the pool's own placement) the clause binds nothing either, as in
 * libgomp: every thread's partition stays the whole list, and each runs
 * on a CPU of the place it reports.
 * The stock runtimes miss some of these rules (libgomp 12 leaves a reused
 * thread where it was and splits T > P unevenly; libomp 22 binds primary
 * teams elsewhere), so this runs on buddypool alone. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <string.h>

#include "gomp-check.h"

/* teams of 1..MAX_T, and outermost also of BIG_T, which the pool starts
 * as a tree (a worker starts its children and computes their places) */
enum { MAX_T = 7, BIG_T = 17, MAX_PLACES = 64 };
/* omp_proc_bind_t, named alike in both compilers' omp.h */
enum { PRIMARY = 2, CLOSE = 3, SPREAD = 4 };

struct seen {
    int place, first, count, on_place, contiguous;
};

struct parent {
    int place, first, count;
};

static void record(struct seen *s)
{
    int i = omp_get_thread_num(), p = omp_get_place_num(), ids[CPU_SETSIZE];
    int nums[MAX_PLACES];
    int count = omp_get_partition_num_places();
    s[i].place = p;
    s[i].count = count;
    s[i].contiguous = 1;
    s[i].first = -1;
    if (count > 0 && count <= MAX_PLACES) {
        omp_get_partition_place_nums(nums);
        s[i].first = nums[0];
        for (int k = 1; k < count; k++)
            s[i].contiguous &= nums[k] == nums[0] + k;
    }
    int cpu = sched_getcpu(), n = p >= 0 ? omp_get_place_num_procs(p) : 0;
    if (p >= 0)
        omp_get_place_proc_ids(p, ids);
    s[i].on_place = p < 0;
    for (int k = 0; k < n && k < CPU_SETSIZE; k++)
        s[i].on_place |= ids[k] == cpu;
}

/* noinline: clang 22's OpenMP optimization (OpenMPOpt) passed a constant
 * ident_t, not nums, to omp_get_partition_place_nums when main held
 * several inlined calls of it, and the program crashed; one call in a
 * function of its own is left alone (-mllvm -openmp-opt-disable also
 * avoids it) */
static __attribute__((noinline)) struct parent me(void)
{
    struct parent m = {omp_get_place_num(), 0, omp_get_partition_num_places()};
    int nums[MAX_PLACES];
    if (m.count > 0 && m.count <= MAX_PLACES) {
        omp_get_partition_place_nums(nums);
        m.first = nums[0];
    }
    return m;
}

/* Steps from the forker's place to p, inside the partition. */
static int steps(const struct parent *par, int p)
{
    return ((p - par->first) - (par->place - par->first) + par->count) % par->count;
}

/* Threads on each place of a close (or T > P spread) team: runs of
 * consecutive threads, thread 0's on the forker's place, floor or ceil of
 * T/P each, the places in turn. */
static void check_runs(const char *what, const struct parent *par, int T, const struct seen *s)
{
    int P = par->count, prev = 0, run = 0;
    EXPECT_EQ(steps(par, s[0].place), 0, what);
    for (int i = 0; i < T; i++) {
        int d = steps(par, s[i].place);
        if (T <= P) {
            EXPECT_EQ(d, i, what);
            continue;
        }
        if (d != prev) { /* a new run: on the next place, the last one's size right */
            EXPECT_EQ(d, prev + 1, what);
            EXPECT_GE(run, T / P, what);
            EXPECT_LE(run, (T + P - 1) / P, what);
            run = 0;
        }
        prev = d;
        run++;
    }
    if (T > P) {
        EXPECT_EQ(prev, P - 1, what); /* every place holds threads */
        EXPECT_GE(run, T / P, what);
        EXPECT_LE(run, (T + P - 1) / P, what);
    }
}

static void check_team(const char *what, int policy, const struct parent *par, int T,
                       const struct seen *s)
{
    int P = par->count;
    for (int i = 0; i < T; i++) {
        EXPECT_EQ(s[i].on_place, 1, what);
        EXPECT_EQ(s[i].contiguous, 1, what);
        EXPECT_GE(steps(par, s[i].place), 0, what);
        EXPECT_GE(s[i].place, s[i].first, what);
        EXPECT_LE(s[i].place, s[i].first + s[i].count - 1, what);
    }
    if (policy == PRIMARY || policy == CLOSE || T == 1) {
        for (int i = 0; i < T; i++) {
            EXPECT_EQ(s[i].first, par->first, what);
            EXPECT_EQ(s[i].count, par->count, what);
            if (policy == PRIMARY || T == 1)
                EXPECT_EQ(s[i].place, par->place, what);
        }
        if (policy == CLOSE && T > 1)
            check_runs(what, par, T, s);
        return;
    }
    /* spread */
    if (T > P) {
        for (int i = 0; i < T; i++) {
            EXPECT_EQ(s[i].count, 1, what);
            EXPECT_EQ(s[i].first, s[i].place, what);
        }
        check_runs(what, par, T, s);
        return;
    }
    EXPECT_EQ(s[0].place, par->place, what);
    int total = 0;
    for (int i = 0; i < T; i++) {
        EXPECT_GE(s[i].count, P / T, what);
        EXPECT_LE(s[i].count, (P + T - 1) / T, what);
        total += s[i].count;
        if (i > 0)
            EXPECT_EQ(s[i].place, s[i].first, what);
        /* the next run starts where this one ends, wrapping in the parent's */
        int next = s[(i + 1) % T].first;
        int end = par->first + (s[i].first - par->first + s[i].count) % P;
        EXPECT_EQ(next, end, what);
    }
    EXPECT_EQ(total, P, what); /* T runs that follow each other cover P places once */
}

static const char *name_of(int policy)
{
    return policy == PRIMARY ? "primary" : policy == CLOSE ? "close" : "spread";
}

int main(void)
{
    int places = omp_get_num_places();
    const char *bind = getenv("OMP_PROC_BIND");
    int unbound = bind != NULL && strcmp(bind, "false") == 0;
    int pool_placement = bind == NULL && getenv("OMP_PLACES") == NULL;
    printf("proc-bind: %d places%s\n", places,
           unbound ? ", OMP_PROC_BIND=false" : pool_placement ? ", the pool's placement" : "");
    struct seen s[BIG_T];
    char what[96];
    /* 0: no clause, bind-var's policy (true binds as close) */
    int policies[] = {PRIMARY, CLOSE, SPREAD, 0};
    int var = omp_get_proc_bind() == omp_proc_bind_true ? CLOSE : (int)omp_get_proc_bind();
    for (int k = 0; k < 4; k++) {
        int policy = policies[k];
        for (int T = 1; T <= MAX_T + 1; T++) {
            if (T == MAX_T + 1)
                T = BIG_T;
            memset(s, 0, sizeof s);
            struct parent par = me();
            int got = 0;
            switch (policy) {
            case PRIMARY:
                PRAGMA(omp parallel num_threads(T) proc_bind(primary))
                {
                    record(s);
                    got = omp_get_num_threads();
                }
                break;
            case CLOSE:
                PRAGMA(omp parallel num_threads(T) proc_bind(close))
                {
                    record(s);
                    got = omp_get_num_threads();
                }
                break;
            case SPREAD:
                PRAGMA(omp parallel num_threads(T) proc_bind(spread))
                {
                    record(s);
                    got = omp_get_num_threads();
                }
                break;
            default:
                PRAGMA(omp parallel num_threads(T))
                {
                    record(s);
                    got = omp_get_num_threads();
                }
                policy = var;
            }
            snprintf(what, sizeof what, "%s%s, %d threads, outermost", name_of(policy),
                     k == 3 ? " (bind-var)" : "", T);
            EXPECT_EQ(got, T, what);
            if (unbound) {
                for (int i = 0; i < T; i++)
                    EXPECT_EQ(s[i].place, -1, what);
                continue;
            }
            if (pool_placement) {
                for (int i = 0; i < T; i++) {
                    EXPECT_EQ(s[i].first, 0, what);
                    EXPECT_EQ(s[i].count, places, what);
                    EXPECT_EQ(s[i].on_place, 1, what);
                }
                continue;
            }
            check_team(what, policy, &par, T, s);
        }
    }
    if (unbound || pool_placement)
        return check_summary("proc-bind");

    /* the same team, region after region, its policy alternating: the
     * pool keeps each worker's place between regions and must place it
     * again whenever the policy changes back (every region is checked) */
    for (int round = 0; round < 4; round++)
        for (int k = 0; k < 3; k++) {
            int T = places >= 4 ? 4 : 2, policy = policies[(k + round) % 3];
            struct parent par = me();
            memset(s, 0, sizeof s);
            if (policy == PRIMARY) {
                PRAGMA(omp parallel num_threads(T) proc_bind(primary))
                record(s);
            } else if (policy == CLOSE) {
                PRAGMA(omp parallel num_threads(T) proc_bind(close))
                record(s);
            } else {
                PRAGMA(omp parallel num_threads(T) proc_bind(spread))
                record(s);
            }
            snprintf(what, sizeof what, "%s, %d threads, round %d of alternating policies",
                     name_of(policy), T, round);
            check_team(what, policy, &par, T, s);
        }

    /* nested in a spread team: each outer thread forks from its own place
     * and partition */
    omp_set_max_active_levels(2);
    for (int outer = 2; outer <= 3; outer++)
        for (int k = 0; k < 3; k++)
            for (int T = 1; T <= MAX_T; T++) {
                struct seen in[3][MAX_T];
                struct parent par[3];
                memset(in, 0, sizeof in);
                int policy = policies[k];
                PRAGMA(omp parallel num_threads(outer) proc_bind(spread))
                {
                    int o = omp_get_thread_num();
                    par[o] = me();
                    if (policy == PRIMARY) {
                        PRAGMA(omp parallel num_threads(T) proc_bind(primary))
                        record(in[o]);
                    } else if (policy == CLOSE) {
                        PRAGMA(omp parallel num_threads(T) proc_bind(close))
                        record(in[o]);
                    } else {
                        PRAGMA(omp parallel num_threads(T) proc_bind(spread))
                        record(in[o]);
                    }
                }
                for (int o = 0; o < outer; o++) {
                    snprintf(what, sizeof what, "%s, %d threads, in thread %d of a spread %d",
                             name_of(policy), T, o, outer);
                    check_team(what, policy, &par[o], T, in[o]);
                }
            }
    return check_summary("proc-bind");
}
