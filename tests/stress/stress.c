/* stress.c: many OpenMP regions of random shapes, forked from several
 * application threads at once, every result checked. Built with clang
 * (libomp ABI) and gcc (GOMP ABI) on libbuddypool, and by the cross
 * compilers for riscv64 and aarch64.
 *
 *   stress [--regions N] [--app-threads K] [--seed S]
 *
 * N regions in all (default 20000; a million by hand), split over K
 * application threads (default 4, at most 8), each with its own random
 * stream from S. A region is one of:
 *   loop      parallel for, schedule(runtime) set at random (static,
 *             dynamic, guided; chunk 0-7), random bounds and step (+-1..3),
 *             sum reduction; every iteration must run exactly once and the
 *             sum must equal the serial one
 *   barriers  1-4 phases: every thread writes its slot, barrier, checks all
 *             slots, barrier; then a `for` with a sum reduction inside the
 *             region (a blocking reduction in clang's code)
 *   reduce    parallel reduction of thread numbers (+ and max)
 *   nested    a region inside a region: level 2, the right ancestors and
 *             team sizes at each level, an exact sum over both levels;
 *             the inner team serial when the outer one is active, unless
 *             max-active-levels allows two (then both levels are teams)
 *   single    single (with copyprivate) and critical: one winner, every
 *             thread sees its value, the critical count equals the team
 *   tasks     a random tree of up to 256 tasks made from a single, each
 *             with at most one in or inout dependence on three shared
 *             variables, some waiting for their children: every task runs
 *             once, a taskwait finds its children done, and of two siblings
 *             that share a variable, one writing, the later made starts
 *             after the earlier ends
 * with a random num_threads (1 to one more than the default team), which
 * every region must get exactly, whatever the other threads run. The
 * program prints a line per kind with its count and exits 1 at the first
 * wrong result, naming it. */
#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/cli.h"

enum { MAX_APP = 8, MAX_TEAM = 256, MAX_ITERS = 2048, KINDS = 6, MAX_NODES = 256, TVARS = 3 };
static const char *const kind_name[KINDS] = {"loop", "barriers", "reduce", "nested", "single",
                                             "tasks"};

/* tasks: one node of a random task tree */
struct tnode {
    int parent;            /* -1: made by the region's single */
    int var, kind;         /* its dependence: kind 0 none, 1 in, 2 inout, on vars[var] */
    long start, end;       /* on the tree's clock */
    _Atomic int runs;
};

struct app {
    pthread_t thread;
    int index;
    long regions;
    uint64_t rng;
    long done[KINDS];
    _Atomic int hits[MAX_ITERS];  /* loop: runs of each iteration */
    long slots[MAX_TEAM];         /* barriers: one per thread */
    struct tnode nodes[MAX_NODES]; /* tasks */
    _Atomic int nnodes;
    _Atomic long clock;
    int vars[TVARS];
    _Atomic int waits_bad;        /* tasks: a taskwait that found a child not done */
};

static int max_team;
static atomic_int failed;

static uint64_t next_rand(uint64_t *s)
{
    /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static int rand_in(uint64_t *s, int lo, int hi) /* lo..hi inclusive */
{
    return lo + (int)(next_rand(s) % (uint64_t)(hi - lo + 1));
}

static int fail(struct app *a, const char *what, long got, long want)
{
    if (atomic_fetch_add(&failed, 1) < 10)
        fprintf(stderr, "stress: app thread %d, region %ld: %s: got %ld, expected %ld\n",
                a->index, a->done[0] + a->done[1] + a->done[2] + a->done[3] + a->done[4], what,
                got, want);
    return 1;
}

static int run_loop(struct app *a, int team)
{
    static const omp_sched_t kinds[] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided};
    omp_set_schedule(kinds[rand_in(&a->rng, 0, 2)], rand_in(&a->rng, 0, 7));
    int n = rand_in(&a->rng, 0, MAX_ITERS - 1);
    int step = rand_in(&a->rng, 1, 3);
    int up = rand_in(&a->rng, 0, 1);
    int first = rand_in(&a->rng, -1000, 1000);
    int bound = up ? first + n * step : first - n * step; /* exclusive */
    for (int i = 0; i < n; i++)
        atomic_store_explicit(&a->hits[i], 0, memory_order_relaxed);
    long sum = 0, want = 0;
    for (int k = 0; k < n; k++)
        want += up ? first + k * step : first - k * step;
    _Atomic int *hits = a->hits;
    if (up) {
#pragma omp parallel for schedule(runtime) reduction(+ : sum) num_threads(team)
        for (int i = first; i < bound; i += step) {
            atomic_fetch_add_explicit(&hits[(i - first) / step], 1, memory_order_relaxed);
            sum += i;
        }
    } else {
#pragma omp parallel for schedule(runtime) reduction(+ : sum) num_threads(team)
        for (int i = first; i > bound; i -= step) {
            atomic_fetch_add_explicit(&hits[(first - i) / step], 1, memory_order_relaxed);
            sum += i;
        }
    }
    for (int k = 0; k < n; k++) {
        int h = atomic_load_explicit(&a->hits[k], memory_order_relaxed);
        if (h != 1)
            return fail(a, "loop: runs of one iteration", h, 1);
    }
    if (sum != want)
        return fail(a, "loop: sum", sum, want);
    return 0;
}

static int run_barriers(struct app *a, int team)
{
    int phases = rand_in(&a->rng, 1, 4);
    long *slots = a->slots;
    int bad = 0, got_team = 0;
#pragma omp parallel num_threads(team) reduction(+ : bad)
    {
        int id = omp_get_thread_num(), nt = omp_get_num_threads();
        if (id == 0)
            got_team = nt;
        for (int p = 1; p <= phases; p++) {
            slots[id] = (long)p * 1000 + id;
#pragma omp barrier
            for (int j = 0; j < nt; j++)
                if (slots[j] != (long)p * 1000 + j)
                    bad++;
#pragma omp barrier
        }
    }
    if (got_team != team)
        return fail(a, "barriers: team size", got_team, team);
    if (bad)
        return fail(a, "barriers: slots wrong after a barrier", bad, 0);
    long sum = 0, seen = -1;
    int n = rand_in(&a->rng, 0, 500);
#pragma omp parallel num_threads(team)
    {
#pragma omp for schedule(static) reduction(+ : sum)
        for (int i = 0; i < n; i++)
            sum += i;
        /* the loop's barrier: every thread sees the reduced sum */
        if (omp_get_thread_num() == 0)
            seen = sum;
    }
    if (sum != (long)n * (n - 1) / 2 || seen != sum)
        return fail(a, "barriers: for reduction sum", sum, (long)n * (n - 1) / 2);
    return 0;
}

static int run_reduce(struct app *a, int team)
{
    long sum = 0;
    int max = -1, got_team = 0;
#pragma omp parallel num_threads(team) reduction(+ : sum) reduction(max : max)
    {
        int id = omp_get_thread_num();
        sum += id + 1;
        max = id > max ? id : max;
        if (id == 0)
            got_team = omp_get_num_threads();
    }
    if (got_team != team)
        return fail(a, "reduce: team size", got_team, team);
    if (sum != (long)got_team * (got_team + 1) / 2)
        return fail(a, "reduce: sum of thread numbers + 1", sum,
                    (long)got_team * (got_team + 1) / 2);
    if (max != got_team - 1)
        return fail(a, "reduce: max thread number", max, got_team - 1);
    return 0;
}

/* A region inside each thread of a region: at level 2, with the outer
 * thread as ancestor and the enclosing teams' sizes, each inner thread
 * running once, and a sum over both levels exact. When the outer team is
 * active, the inner one is active only if max-active-levels allows two
 * levels (OMP_MAX_ACTIVE_LEVELS=2: the stress-*-nested tests), else it runs
 * on its thread alone (the default of one active level in both runtimes;
 * libgomp's run of the test sets it to be sure). */
static int run_nested(struct app *a, int team)
{
    int bad = 0, got_team = 0;
    long sum = 0;
    int two_levels = omp_get_max_active_levels() >= 2;
#pragma omp parallel num_threads(team) reduction(+ : bad, sum)
    {
        int outer = omp_get_thread_num();
        int active = omp_get_num_threads() > 1;
        if (outer == 0)
            got_team = omp_get_num_threads();
        int want_inner = active && !two_levels ? 1 : 2;
        int inner_team = 0, inner_runs = 0;
        long inner_sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : inner_sum)
        {
            int me = omp_get_thread_num();
            if (me == 0)
                inner_team = omp_get_num_threads();
#pragma omp atomic
            inner_runs++;
            if (omp_get_level() != 2)
                bad += 1;
            if (omp_get_ancestor_thread_num(1) != outer || omp_get_ancestor_thread_num(2) != me ||
                omp_get_ancestor_thread_num(0) != 0)
                bad += 10;
            if (omp_get_team_size(1) != team || omp_get_team_size(2) != omp_get_num_threads() ||
                omp_get_active_level() != active + (omp_get_num_threads() > 1))
                bad += 1000;
            inner_sum += 1000 * outer + me + 1;
        }
        if (inner_runs != inner_team || inner_team != want_inner)
            bad += 100;
        sum += inner_sum;
    }
    if (got_team != team)
        return fail(a, "nested: team size", got_team, team);
    if (bad)
        return fail(a, "nested: inner regions wrong (1: level, 10: ancestor, 100: team or "
                       "runs, 1000: team sizes or active level; summed over threads)", bad, 0);
    /* outer thread o adds 1000 o + 1 (inner team of 1) or 2000 o + 3 */
    long want = 0;
    int inner = team > 1 && !two_levels ? 1 : 2;
    for (int o = 0; o < team; o++)
        want += inner == 1 ? 1000L * o + 1 : 2000L * o + 3;
    if (sum != want)
        return fail(a, "nested: the sum over both levels", sum, want);
    return 0;
}

static int run_single(struct app *a, int team)
{
    int winners = 0, crit = 0, bad = 0, got_team = 0;
    int token = rand_in(&a->rng, 1, 1000000);
#pragma omp parallel num_threads(team) reduction(+ : bad)
    {
        int mine = -1;
        if (omp_get_thread_num() == 0)
            got_team = omp_get_num_threads();
#pragma omp single copyprivate(mine)
        {
            mine = token;
#pragma omp atomic
            winners++;
        }
        if (mine != token)
            bad++;
#pragma omp critical
        crit++;
    }
    if (got_team != team)
        return fail(a, "single: team size", got_team, team);
    if (winners != 1)
        return fail(a, "single: threads that ran it", winners, 1);
    if (bad)
        return fail(a, "single: threads without the copyprivate value", bad, 0);
    if (crit != got_team)
        return fail(a, "critical: entries", crit, got_team);
    return 0;
}

/* Make up to three children of `parent`, each a task with at most one
 * dependence on the tree's vars, which makes its own children; some wait
 * for theirs (and check they ran). */
static void tree(struct app *a, int parent, int depth, uint64_t seed)
{
    uint64_t s = seed;
    int kids = depth < 4 ? rand_in(&s, 0, 3) : 0, made[3], nmade = 0;
    for (int k = 0; k < kids; k++) {
        int id = atomic_fetch_add(&a->nnodes, 1);
        if (id >= MAX_NODES)
            break;
        struct tnode *n = &a->nodes[id];
        n->parent = parent;
        n->var = rand_in(&s, 0, TVARS - 1);
        n->kind = rand_in(&s, 0, 2);
        made[nmade++] = id;
        uint64_t child_seed = next_rand(&s);
        int *v = &a->vars[n->var];
#define TBODY                                                                                \
    {                                                                                        \
        n->start = atomic_fetch_add(&a->clock, 1) + 1;                                       \
        tree(a, id, depth + 1, child_seed);                                                  \
        n->end = atomic_fetch_add(&a->clock, 1) + 1;                                         \
        atomic_fetch_add(&n->runs, 1);                                                       \
    }
        if (n->kind == 1) {
#pragma omp task firstprivate(id, child_seed, n, v) depend(in : v[0])
            TBODY
        } else if (n->kind == 2) {
#pragma omp task firstprivate(id, child_seed, n, v) depend(inout : v[0])
            TBODY
        } else {
#pragma omp task firstprivate(id, child_seed, n)
            TBODY
        }
#undef TBODY
    }
    if (rand_in(&s, 0, 1)) {
#pragma omp taskwait
        for (int k = 0; k < nmade; k++)
            if (atomic_load(&a->nodes[made[k]].runs) != 1)
                atomic_fetch_add(&a->waits_bad, 1);
    }
}

static int run_tasks(struct app *a, int team)
{
    atomic_store(&a->nnodes, 0);
    atomic_store(&a->clock, 0);
    atomic_store(&a->waits_bad, 0);
    for (int i = 0; i < MAX_NODES; i++)
        atomic_store(&a->nodes[i].runs, 0);
    uint64_t seed = next_rand(&a->rng);
    int got_team = 0;
#pragma omp parallel num_threads(team)
    {
        if (omp_get_thread_num() == 0)
            got_team = omp_get_num_threads();
#pragma omp single
        tree(a, -1, 0, seed);
    }
    if (got_team != team)
        return fail(a, "tasks: team size", got_team, team);
    int n = atomic_load(&a->nnodes);
    if (n > MAX_NODES)
        n = MAX_NODES;
    for (int i = 0; i < n; i++)
        if (atomic_load(&a->nodes[i].runs) != 1)
            return fail(a, "tasks: runs of a task", atomic_load(&a->nodes[i].runs), 1);
    if (atomic_load(&a->waits_bad) != 0)
        return fail(a, "tasks: children not done after a taskwait", atomic_load(&a->waits_bad), 0);
    /* siblings made in this order that share a variable, one writing: the
     * later starts after the earlier ends */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++) {
            const struct tnode *x = &a->nodes[i], *y = &a->nodes[j];
            if (x->parent == y->parent && x->var == y->var && x->kind && y->kind &&
                (x->kind == 2 || y->kind == 2) && !(y->start > x->end))
                return fail(a, "tasks: a dependence not kept (the later task's start)",
                            y->start, x->end + 1);
        }
    return 0;
}

static void *app_main(void *arg)
{
    struct app *a = arg;
    for (long r = 0; r < a->regions && atomic_load(&failed) == 0; r++) {
        int kind = rand_in(&a->rng, 0, KINDS - 1);
        int team = rand_in(&a->rng, 1, max_team + 1 < MAX_TEAM ? max_team + 1 : MAX_TEAM);
        int bad = 0;
        switch (kind) {
        case 0: bad = run_loop(a, team); break;
        case 1: bad = run_barriers(a, team); break;
        case 2: bad = run_reduce(a, team); break;
        case 3: bad = run_nested(a, team); break;
        case 4: bad = run_single(a, team); break;
        default: bad = run_tasks(a, team); break;
        }
        if (bad)
            break;
        a->done[kind]++;
    }
    return NULL;
}

static long parse_long(const char *flag, const char *s, long lo, long hi)
{
    return cli_parse_long("stress", flag, s, lo, hi);
}

int main(int argc, char **argv)
{
    long regions = 20000, apps = 4, seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--regions") == 0)
            regions = parse_long("--regions", v, 1, 1000000000L), i++;
        else if (strcmp(argv[i], "--app-threads") == 0)
            apps = parse_long("--app-threads", v, 1, MAX_APP), i++;
        else if (strcmp(argv[i], "--seed") == 0)
            seed = parse_long("--seed", v, 0, 1000000000L), i++;
        else {
            fprintf(stderr, "stress: unknown argument '%s'\n"
                            "usage: stress [--regions N] [--app-threads 1-8] [--seed S]\n",
                    argv[i]);
            return 2;
        }
    }
    max_team = omp_get_max_threads();
    if (max_team > MAX_TEAM - 1)
        max_team = MAX_TEAM - 1;
    static struct app app[MAX_APP];
    for (int k = 0; k < apps; k++) {
        app[k].index = k;
        app[k].regions = regions / apps + (k < regions % apps);
        app[k].rng = 0x9e3779b97f4a7c15ull * (uint64_t)(seed * MAX_APP + k + 1);
        int err = pthread_create(&app[k].thread, NULL, app_main, &app[k]);
        if (err) {
            fprintf(stderr, "stress: pthread_create: %s\n", strerror(err));
            return 1;
        }
    }
    long done[KINDS] = {0};
    for (int k = 0; k < apps; k++) {
        pthread_join(app[k].thread, NULL);
        for (int j = 0; j < KINDS; j++)
            done[j] += app[k].done[j];
    }
    long total = 0;
    for (int j = 0; j < KINDS; j++) {
        printf("stress: %-8s %ld regions right\n", kind_name[j], done[j]);
        total += done[j];
    }
    if (atomic_load(&failed) || total != regions) {
        printf("stress: FAILED: %ld of %ld regions right\n", total, regions);
        return 1;
    }
    printf("stress: all %ld regions right, %ld application threads, teams up to %d\n",
           regions, apps, max_team);
    return 0;
}
