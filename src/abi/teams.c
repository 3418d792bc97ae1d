/* teams.c: the host teams construct, for both ABIs: a league of
 * num_teams teams, each an initial thread of its own that may fork
 * regions, with no barrier between them and no way for one to wait for
 * another (OpenMP forbids it).
 *
 * The league runs on the encountering thread, one team after another, as
 * libgomp runs it: the construct's function is called once per team with
 * the team's number in the task's ICVs. A team is then the encountering
 * task itself, at its level (omp_get_level, omp_in_parallel and
 * omp_get_num_threads say what they said before the construct), and every
 * region a team forks is an ordinary region of the pool, on the pool's
 * threads, which inherit the team's number from the ICVs (libgomp and
 * libomp both answer omp_get_team_num there too). Running the teams side
 * by side, each on a thread of its own, would make each team's initial
 * thread a member of a region, whose level, thread number and nested
 * regions OpenMP defines differently from a team's; one after another,
 * every answer is a team's. The cost: where libomp runs a league's teams
 * at once, each region on its share of the CPUs, buddypool runs their
 * regions one at a time.
 *
 * What the ICVs carry (struct bp_icv):
 *   team_num, num_teams  omp_get_team_num, omp_get_num_teams, and the
 *                        split of a `distribute` loop (kmp_abi.c)
 *   thread_limit         thread-limit-var as the construct set it
 *                        (omp_get_thread_limit); 0: OMP_THREAD_LIMIT's
 *   team_cap             the most threads a region forked in a team gets;
 *                        0: no cap beyond the pool's
 * All four are put back when the construct ends.
 *
 * The two runtimes size a league differently, and a program built for one
 * gets that one's answers:
 *   gcc (GOMP_teams_reg)  num_teams 0: nteams-var, else 3 teams; any count
 *                         is kept. thread_limit 0: teams-thread-limit-var;
 *                         a limit sets thread-limit-var and caps regions.
 *   clang (__kmpc_fork_teams, after __kmpc_push_num_teams)
 *                         num_teams 0: nteams-var, else 1 team; at most one
 *                         team per CPU online (the machine's, not only the
 *                         allowed ones), whatever asked for more (a warning
 *                         says so, once), but at least num_teams' lower
 *                         bound (OpenMP 5.1's num_teams(lower: upper); a
 *                         lower bound not given is the upper, so
 *                         num_teams(4) through that entry is exactly 4).
 *                         Each team's regions get at most
 *                         thread_limit, else teams-thread-limit-var, else
 *                         allowed CPUs / teams threads, no more than
 *                         nthreads-var, and no more than CPUs online / teams
 *                         (a warning, once, when that lowers a thread_limit
 *                         clause); thread_limit sets
 *                         thread-limit-var as given.
 * One libomp answer is not taken: inside a clang teams region outside any
 * parallel region libomp's omp_get_num_threads gives the team's thread
 * count; OpenMP says 1, as libgomp and buddypool answer.
 *
 * gcc's GOMP_teams4 is the form for a teams construct inside a target
 * region run on the host: the caller loops while it returns true, one pass
 * per team (target.c runs the target region on the host). */
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "abi.h"
#include "../internal.h"
#include "kmp.h"

BP_API void omp_set_num_teams(int num_teams)
{
    if (num_teams <= 0) {
        bp_warn("omp_set_num_teams(%d): the count must be positive; ignored", num_teams);
        return;
    }
    bp_set_nteams_var(num_teams);
}

BP_API int omp_get_max_teams(void) { return bp_nteams_var(); }

BP_API void omp_set_teams_thread_limit(int limit)
{
    if (limit <= 0) {
        bp_warn("omp_set_teams_thread_limit(%d): the limit must be positive; ignored", limit);
        return;
    }
    bp_set_teams_thread_limit_var(limit);
}

BP_API int omp_get_teams_thread_limit(void) { return bp_teams_thread_limit_var(); }

BP_API int omp_get_num_teams(void) { return bp_icv(bp_self())->num_teams; }

BP_API int omp_get_team_num(void) { return bp_icv(bp_self())->team_num; }

/* The league ICVs as they were before a construct. */
struct league_saved {
    int team_num, num_teams, thread_limit, team_cap;
};

static void league_save(const struct bp_icv *icv, struct league_saved *s)
{
    s->team_num = icv->team_num;
    s->num_teams = icv->num_teams;
    s->thread_limit = icv->thread_limit;
    s->team_cap = icv->team_cap;
}

static void league_restore(struct bp_icv *icv, const struct league_saved *s)
{
    icv->team_num = s->team_num;
    icv->num_teams = s->num_teams;
    icv->thread_limit = s->thread_limit;
    icv->team_cap = s->team_cap;
}

/* Run body(arg) once per team of a league of num_teams, regions in each
 * capped at team_cap threads (0: no cap), thread-limit-var thread_limit
 * (0: unchanged). */
static void league_run(int num_teams, int thread_limit, int team_cap, void (*body)(void *),
                       void *arg)
{
    struct bp_thread *t = bp_self();
    struct league_saved saved;
    league_save(bp_icv(t), &saved);
    struct bp_hook_span span;
    bp_hook_league(&span, num_teams, 1);
    for (int i = 0; i < num_teams; i++) {
        /* again for each team: the body's regions and tasks leave the
         * task's ICVs as they found them, but the body may set its own */
        struct bp_icv *icv = bp_icv_set(t);
        icv->num_teams = num_teams;
        icv->team_num = i;
        if (thread_limit > 0)
            icv->thread_limit = thread_limit;
        icv->team_cap = team_cap;
        bp_hook_league_team(i, num_teams, 1);
        body(arg);
        bp_hook_league_team(i, num_teams, 0);
    }
    bp_hook_league(&span, num_teams, 0);
    league_restore(bp_icv_set(t), &saved);
}

static int clamp_int(unsigned v) { return v > INT_MAX ? INT_MAX : (int)v; }

/* ---- gcc ------------------------------------------------------------------ */

struct gomp_body {
    void (*fn)(void *);
    void *data;
};

static void gomp_body(void *arg)
{
    const struct gomp_body *b = arg;
    BP_HOOK_CODE_FRAME();
    b->fn(b->data);
}

BP_API void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                           unsigned thread_limit, unsigned flags)
{
    (void)flags;
    BP_HOOK_SITE(NULL); /* the league's call site */
    int limit = thread_limit ? clamp_int(thread_limit) : bp_teams_thread_limit_var();
    int n = clamp_int(num_teams);
    if (n == 0)
        n = bp_nteams_var() > 0 ? bp_nteams_var() : 3;
    struct gomp_body b = {fn, data};
    league_run(n, limit, limit, gomp_body, &b);
}

/* The teams construct of a target region run on the host: true for each
 * team, the first call (first) starting the league. The league ICVs,
 * thread-limit-var with them, are put back when it ends (and the target
 * region's end gives back the rest, target.c). */
static _Thread_local struct league_saved teams4_saved;

BP_API bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit,
                        bool first)
{
    (void)num_teams_high;
    struct bp_icv *icv = bp_icv_set(bp_self());
    if (first) {
        league_save(icv, &teams4_saved);
        if (thread_limit)
            icv->thread_limit = icv->team_cap = clamp_int(thread_limit);
        icv->num_teams = num_teams_low ? clamp_int(num_teams_low) : 1;
        icv->team_num = 0;
        return true;
    }
    if (icv->team_num + 1 < icv->num_teams) {
        icv->team_num++;
        return true;
    }
    league_restore(icv, &teams4_saved);
    return false;
}

/* GCC 4.9 to 8's teams inside a target region, with no call at its end:
 * one team, whose thread_limit sets thread-limit-var as libgomp's does,
 * until the target region's end gives the caller its ICVs back
 * (target.c). */
BP_API void GOMP_teams(unsigned num_teams, unsigned thread_limit)
{
    (void)num_teams;
    if (thread_limit) {
        struct bp_icv *icv = bp_icv_set(bp_self());
        icv->thread_limit = icv->team_cap = clamp_int(thread_limit);
    }
}

/* ---- clang ---------------------------------------------------------------- */

/* Once per process, as libomp warns once: a league cut to fit the CPUs. */
static void warn_league_once(const char *what, int asked, int cpus, int got)
{
    static _Atomic int warned;
    /* relaxed: only the one warning depends on it */
    if (atomic_exchange_explicit(&warned, 1, memory_order_relaxed) == 0)
        bp_warn("teams construct: %s %d is more than the %d CPUs online take; using %d, "
                "as libomp does (said once)", what, asked, cpus, got);
}

BP_API void __kmpc_push_num_teams(ident_t *loc, int32_t gtid, int32_t num_teams,
                                  int32_t num_threads)
{
    (void)loc, (void)gtid;
    struct bp_thread *t = bp_self();
    t->pushed_teams_low = 0; /* no lower bound: the CPUs cap the count */
    t->pushed_teams = num_teams > 0 ? num_teams : 0;
    t->pushed_teams_limit = num_threads > 0 ? num_threads : 0;
}

/* num_teams(lower: upper), OpenMP 5.1; a lower bound of 0 is the upper
 * (libomp's kmp_num_teams test: num_teams(0, 4) gives exactly 4 teams,
 * beyond the CPUs too). */
BP_API void __kmpc_push_num_teams_51(ident_t *loc, int32_t gtid, int32_t lower, int32_t upper,
                                     int32_t num_threads)
{
    (void)loc, (void)gtid;
    if (lower > upper && upper > 0) {
        bp_warn("__kmpc_push_num_teams_51: num_teams(%d:%d) has its lower bound above the "
                "upper; using %d", (int)lower, (int)upper, (int)upper);
        lower = upper;
    }
    if (lower <= 0 && upper > 0)
        lower = upper; /* num_teams(upper): the lower bound is the upper (5.1) */
    struct bp_thread *t = bp_self();
    t->pushed_teams_low = lower > 0 ? lower : 0;
    t->pushed_teams = upper > 0 ? upper : 0;
    t->pushed_teams_limit = num_threads > 0 ? num_threads : 0;
}

/* libomp's sizing (see the top of the file): the teams, the thread limit
 * the construct sets (0: none) and each team's cap. */
static void kmp_league(struct bp_thread *t, int *teams, int *limit, int *cap)
{
    /* libomp's cap is the machine's CPUs online, its split the allowed ones */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int cpus = online > 0 && online < INT_MAX ? (int)online : bp_pool_cpus();
    int allowed = bp_pool_cpus();
    int n = t->pushed_teams, low = t->pushed_teams_low, tl = t->pushed_teams_limit;
    t->pushed_teams = t->pushed_teams_low = t->pushed_teams_limit = 0;
    if (n == 0)
        n = bp_nteams_var() > 0 ? bp_nteams_var() : 1;
    if (n > cpus) { /* but never below num_teams' lower bound */
        int got = low > cpus ? low : cpus;
        if (got < n)
            warn_league_once("a league of", n, cpus, got);
        n = got;
    }
    const struct bp_icv *icv = bp_icv(t);
    int nthreads = icv->nthreads > 0 ? icv->nthreads : bp_default_team();
    int nth = tl;
    if (nth == 0) {
        nth = bp_teams_thread_limit_var() > 0 ? bp_teams_thread_limit_var() : allowed / n;
        int global = omp_get_thread_limit();
        if (nth > global)
            nth = global;
    }
    if (nth > nthreads)
        nth = nthreads;
    if ((long long)n * nth > cpus) {
        int got = cpus / n > 0 ? cpus / n : 1;
        if (tl > 0 && got < tl)
            warn_league_once("thread_limit", tl, cpus, got); /* per team, times the teams */
        nth = got;
    }
    *teams = n;
    *limit = tl;
    *cap = nth > 0 ? nth : 1;
}

struct kmp_body {
    kmpc_micro fn;
    int argc;
    void *args[BP_MAX_REGION_ARGS];
};

static void kmp_body(void *arg)
{
    struct kmp_body *b = arg;
    int32_t gtid = bp_gtid(bp_self());
    int32_t btid = 0; /* each team's initial thread is its thread 0 */
    BP_HOOK_CODE_FRAME();
    bp_kmpc_invoke(b->fn, &gtid, &btid, b->argc, b->args);
}

BP_API void __kmpc_fork_teams(ident_t *loc, int32_t argc, kmpc_micro microtask, ...)
{
    BP_HOOK_SITE(loc != NULL ? loc->psource : NULL); /* the league's call site */
    struct kmp_body b;
    b.fn = microtask;
    b.argc = argc;
    va_list ap;
    va_start(ap, microtask);
    bp_kmpc_read_args("__kmpc_fork_teams", argc, b.args, ap);
    va_end(ap);
    int teams, limit, cap;
    kmp_league(bp_self(), &teams, &limit, &cap);
    league_run(teams, limit, cap, kmp_body, &b);
}
