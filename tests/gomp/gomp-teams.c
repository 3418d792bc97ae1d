/* gomp-teams.c: the host teams construct. Built by gcc (GOMP_teams_reg,
 * distribute expanded inline over omp_get_team_num) and by clang
 * (__kmpc_push_num_teams, __kmpc_fork_teams, __kmpc_for_static_init with
 * the distribute schedules). Every team's body runs once with its own
 * number, regions forked in a team see that number, distribute runs every
 * iteration once with the split OpenMP gives, and the league and team
 * sizes are those of the runtime the compiler targets (libgomp for gcc,
 * libomp for clang): see src/abi/teams.c. Run at 1, 2 and 4 threads, and with
 * OMP_NUM_TEAMS and OMP_TEAMS_THREAD_LIMIT set. */
#include <limits.h>
#include <omp.h>
#include <string.h>
#include <unistd.h>

#include <time.h>

#include "gomp-check.h"

enum { MAXT = 64, N = 1000 };

static int ran[MAXT];          /* bodies run per team number */
static int league_seen[MAXT];  /* omp_get_num_teams() each body saw */
static int inner_threads[MAXT]; /* threads of the region each team forked */
static int inner_limit[MAXT];  /* omp_get_thread_limit() in that region */
static int inner_bad[MAXT];    /* its threads that saw another team number */

static int env_int(const char *name)
{
    const char *s = getenv(name);
    return s != NULL ? atoi(s) : 0;
}

static int min_int(int a, int b) { return a < b ? a : b; }

/* libomp caps a league at the machine's CPUs online, not the allowed ones
 * (omp_get_num_procs) */
__attribute__((unused)) static int online(void) { return (int)sysconf(_SC_NPROCESSORS_ONLN); }

/* The league a teams construct asking for `asked` teams (0: none asked)
 * gets, and the threads a region in one of its teams gets when it asks
 * for none, with `limit` the thread_limit clause (0: none). */
static int expect_teams(int asked)
{
    int nteams = omp_get_max_teams();
#ifdef __clang__
    if (asked == 0)
        asked = nteams > 0 ? nteams : 1;
    return min_int(asked, online());
#else
    if (asked == 0)
        return nteams > 0 ? nteams : 3;
    return asked;
#endif
}

static int expect_threads(int teams, int limit)
{
    int nthreads = omp_get_max_threads();
#ifdef __clang__
    int procs = omp_get_num_procs(), nth = limit;
    if (nth == 0)
        nth = omp_get_teams_thread_limit() > 0 ? omp_get_teams_thread_limit() : procs / teams;
    nth = min_int(nth, nthreads);
    if (teams * nth > online())
        nth = online() / teams > 0 ? online() / teams : 1;
    return nth > 0 ? nth : 1;
#else
    (void)teams;
    if (limit == 0)
        limit = omp_get_teams_thread_limit();
    return limit > 0 ? min_int(limit, nthreads) : nthreads;
#endif
}

/* thread-limit-var in a team's region: libgomp sets it from the clause,
 * else from teams-thread-limit-var; libomp from the clause alone. */
static int expect_limit(int limit, int limit0)
{
#ifndef __clang__
    if (limit == 0)
        limit = omp_get_teams_thread_limit();
#endif
    return limit > 0 ? limit : limit0;
}

static void reset(void)
{
    memset(ran, 0, sizeof ran);
    memset(league_seen, 0, sizeof league_seen);
    memset(inner_threads, 0, sizeof inner_threads);
    memset(inner_limit, 0, sizeof inner_limit);
    memset(inner_bad, 0, sizeof inner_bad);
}

/* A team's body: called in a teams region, outside any parallel one. */
__attribute__((noinline)) static void team_body(int fork)
{
    int me = omp_get_team_num();
    if (me < 0 || me >= MAXT) {
        EXPECT_EQ(me, 0, "team number in range");
        return;
    }
    __atomic_fetch_add(&ran[me], 1, __ATOMIC_RELAXED);
    league_seen[me] = omp_get_num_teams();
    EXPECT_EQ(omp_get_level(), 0, "a team's level");
    EXPECT_EQ(omp_in_parallel(), 0, "a team is in no parallel region");
    EXPECT_EQ(omp_get_thread_num(), 0, "a team's initial thread");
    if (!fork)
        return;
    PRAGMA(omp parallel)
    {
        if (omp_get_team_num() != me)
            __atomic_fetch_add(&inner_bad[me], 1, __ATOMIC_RELAXED);
        EXPECT_EQ(omp_get_level(), 1, "a team's region's level");
        EXPECT_EQ(omp_get_ancestor_thread_num(1), omp_get_thread_num(), "ancestor at level 1");
        PRAGMA(omp single)
        {
            inner_threads[me] = omp_get_num_threads();
            inner_limit[me] = omp_get_thread_limit();
        }
    }
}

/* Each team 0..teams-1 ran once and saw the league's size; none other ran. */
static void check_league(int teams, const char *what)
{
    for (int i = 0; i < MAXT; i++) {
        EXPECT_EQ(ran[i], i < teams, what);
        if (i < teams)
            EXPECT_EQ(league_seen[i], teams, what);
    }
}

static void check_inner(int teams, int threads, int limit, const char *what)
{
    for (int i = 0; i < teams && i < MAXT; i++) {
        EXPECT_EQ(inner_threads[i], threads, what);
        EXPECT_EQ(inner_limit[i], limit, what);
        EXPECT_EQ(inner_bad[i], 0, what);
    }
}

#ifdef __clang__
/* libomp's entry points, in no header */
int __kmpc_global_thread_num(void *loc);
void __kmpc_push_num_teams_51(void *loc, int gtid, int lower, int upper, int thread_limit);
#endif

/* buddypool's own, to tell which runtime runs the test */
const char *buddypool_version(void) __attribute__((weak));

int main(void)
{
#ifdef __clang__
    int strict_group = buddypool_version != NULL; /* libomp: see the group's check */
#else
    int strict_group = 1;
#endif
    /* the program's first calls: the environment's values already */
    int first_nteams = omp_get_max_teams(), first_limit = omp_get_teams_thread_limit();
    EXPECT_EQ(first_nteams, env_int("OMP_NUM_TEAMS"), "nteams-var at the first call");
    EXPECT_EQ(first_limit, env_int("OMP_TEAMS_THREAD_LIMIT"),
              "teams-thread-limit-var at the first call");
    check_team_size("gomp-teams");
    int limit0 = omp_get_thread_limit();
    EXPECT_EQ(omp_get_num_teams(), 1, "no league outside a teams construct");
    EXPECT_EQ(omp_get_team_num(), 0, "team 0 outside a teams construct");
    EXPECT_EQ(omp_get_max_teams(), env_int("OMP_NUM_TEAMS"), "nteams-var from the environment");
    EXPECT_EQ(omp_get_teams_thread_limit(), env_int("OMP_TEAMS_THREAD_LIMIT"),
              "teams-thread-limit-var from the environment");

    /* no clause: the runtime's default league */
    reset();
    PRAGMA(omp teams)
    team_body(1);
    int teams = expect_teams(0);
    printf("gomp-teams: %d teams by default\n", teams);
    check_league(teams, "default league");
    check_inner(teams, expect_threads(teams, 0), expect_limit(0, limit0), "default league's regions");

    /* num_teams */
    for (int asked = 1; asked <= 5; asked++) {
        reset();
        PRAGMA(omp teams num_teams(asked))
        team_body(1);
        teams = expect_teams(asked);
        check_league(teams, "num_teams");
        check_inner(teams, expect_threads(teams, 0), expect_limit(0, limit0), "num_teams' regions");
    }

    /* thread_limit: thread-limit-var in the teams, and their regions' size */
    for (int limit = 1; limit <= 3; limit++) {
        reset();
        PRAGMA(omp teams num_teams(2) thread_limit(limit))
        team_body(1);
        teams = expect_teams(2);
        check_league(teams, "thread_limit");
        check_inner(teams, expect_threads(teams, limit), limit, "thread_limit's regions");
    }
    EXPECT_EQ(omp_get_thread_limit(), limit0, "thread-limit-var after the construct");
    EXPECT_EQ(omp_get_num_teams(), 1, "no league after a teams construct");

    /* distribute: every iteration once, blocks in team order */
    static int owner[N];
    int asked = 3;
    teams = expect_teams(asked);
    memset(owner, -1, sizeof owner);
    PRAGMA(omp teams distribute num_teams(asked))
    for (int i = 0; i < N; i++)
        owner[i] = omp_get_team_num();
    for (int i = 0, q = N / teams, r = N % teams; i < N; i++) {
        /* teams below r run q + 1 iterations, the others q */
        int expect = i < r * (q + 1) ? i / (q + 1) : r + (i - r * (q + 1)) / q;
        EXPECT_EQ(owner[i], expect, "distribute's blocks");
    }
    memset(owner, -1, sizeof owner);
    PRAGMA(omp teams distribute dist_schedule(static, 7) num_teams(asked))
    for (int i = 0; i < N; i++)
        owner[i] = omp_get_team_num();
    for (int i = 0; i < N; i++)
        EXPECT_EQ(owner[i], (i / 7) % teams, "dist_schedule(static, 7)'s chunks");

    /* distribute parallel for, with a reduction: exact */
    static int hits[N];
    memset(hits, 0, sizeof hits);
    long sum = 0;
    PRAGMA(omp teams distribute parallel for num_teams(2) reduction(+ : sum))
    for (int i = 0; i < N; i++) {
        sum += i;
        __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
    }
    EXPECT_EQ(sum, (long)N * (N - 1) / 2, "distribute parallel for's reduction");
    for (int i = 0; i < N; i++)
        EXPECT_EQ(hits[i], 1, "distribute parallel for: each iteration once");

    /* a reduction on teams */
    long total = 0;
    PRAGMA(omp teams num_teams(4) reduction(+ : total))
    total += omp_get_team_num() + 1;
    teams = expect_teams(4);
    EXPECT_EQ(total, (long)teams * (teams + 1) / 2, "teams reduction");

    /* Each team is a contention group: thread_limit(3) bounds the threads of
     * its nested regions together, while they run at once (a barrier
     * before the inner regions, 10 ms in them). */
    {
        int saved = omp_get_max_active_levels(), cur = 0, peak = 0;
        omp_set_max_active_levels(2);
        PRAGMA(omp teams num_teams(1) thread_limit(3))
        {
            PRAGMA(omp parallel num_threads(2))
            {
                PRAGMA(omp barrier)
                PRAGMA(omp parallel num_threads(3))
                {
                    int v = __atomic_add_fetch(&cur, 1, __ATOMIC_RELAXED);
                    int p = __atomic_load_n(&peak, __ATOMIC_RELAXED);
                    while (v > p && !__atomic_compare_exchange_n(&peak, &p, v, 0,
                                                                 __ATOMIC_RELAXED,
                                                                 __ATOMIC_RELAXED))
                        ;
                    struct timespec ms10 = {0, 10000000};
                    nanosleep(&ms10, NULL);
                    __atomic_sub_fetch(&cur, 1, __ATOMIC_RELAXED);
                }
            }
        }
        /* libomp 22 bounds each region, not the group: 6 threads there */
        if (strict_group)
            EXPECT_LE(peak, 3, "a team's thread_limit bounds its nested regions' threads together");
        EXPECT_GE(peak, 1, "the nested regions ran");
        omp_set_max_active_levels(saved);
    }

#ifdef __clang__
    /* libomp's num_teams(lower: upper) entry: no lower bound means the upper,
     * an exact league, beyond the CPUs too (libomp's kmp_num_teams) */
    reset();
    __kmpc_push_num_teams_51(NULL, __kmpc_global_thread_num(NULL), 0, 4, 0);
    PRAGMA(omp teams)
    team_body(0);
    check_league(4, "num_teams(0: 4), libomp's entry: exactly 4 teams");
#endif

    /* nteams-var and teams-thread-limit-var set by the program */
    omp_set_num_teams(2);
    omp_set_teams_thread_limit(1);
    EXPECT_EQ(omp_get_max_teams(), 2, "omp_set_num_teams");
    EXPECT_EQ(omp_get_teams_thread_limit(), 1, "omp_set_teams_thread_limit");
    reset();
    PRAGMA(omp teams)
    team_body(1);
    teams = expect_teams(0);
    check_league(teams, "league of omp_set_num_teams");
    check_inner(teams, 1, expect_limit(0, limit0), "regions under omp_set_teams_thread_limit");
    return check_summary("gomp-teams");
}
