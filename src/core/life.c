/* life.c: what happens once per process, and the only file that starts and
 * ends every module: the runtime's start-up (at the first region, or the
 * first query that needs the pool's figures), the fork() handlers, and the
 * destructor that stops and joins the workers when the library is unloaded
 * or the process exits. The modules below it offer their own start, fork()
 * and end steps (pool.c, team.c, places.c, wait.c, taskmem.c) and the
 * listeners theirs through hooks.h; life.c calls them in order and nothing
 * below calls life.c but for its start.
 *
 * Start-up is lazy, as libomp's: the environment is read, the waits' pair
 * chosen, the CPUs and places found and the pool's memory reserved when a
 * region or a query first needs them, not when the library is loaded, so a
 * program that sets OMP_* in main before its first region is obeyed, and a
 * process that never uses the runtime (a wrapper such as `timeout` under
 * the same environment) starts nothing and reports nothing. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "buddypool.h"
#include "../internal.h"
#include "pool.h"
#include "team.h"

static void atfork_prepare(void)
{
    bp_hook_atfork_prepare(bp_tls.level > 0);
    bp_teams_lock(); /* no team is half made in the child */
    bp_pool_atfork_prepare();
}

static void atfork_parent(void)
{
    bp_pool_atfork_parent();
    bp_teams_unlock();
    bp_hook_atfork_parent();
}

/* The child has only the thread that called fork(): the workers did not
 * come along, and the pool starts again from one thread. */
static void atfork_child(void)
{
    bp_pool_atfork_child();
    /* relaxed: a hint to waits, and no other thread runs */
    atomic_store_explicit(&bp_oversubscribed, 0, memory_order_relaxed);
    bp_teams_fork_child(); /* the teams' workers did not come along */
    bp_wait_fork_child();
    bp_taskmem_fork_child();
    bp_hook_atfork_child();
}

/* OMP_DISPLAY_ENV: once the pool's configuration is complete, but outside
 * start's once-routine, which omp_display_env's queries enter again. */
static struct bp_default_team default_team; /* set by start */

static void display_env_once(void)
{
    static _Atomic int displayed;
    /* relaxed: only the one display depends on it */
    if (atomic_load_explicit(&displayed, memory_order_relaxed) == 0 &&
        atomic_exchange_explicit(&displayed, 1, memory_order_relaxed) == 0)
        bp_display_env(bp_config.display_env == 2, &default_team);
}

/* The default team: one thread per CPU the process may keep busy (the
 * allowed CPUs, or its CPU quota rounded up where that is fewer: quota.c),
 * at most the limit; *budget is the CPUs' count before the limit. What it
 * is and why goes to default_team for the display. */
static int choose_default(int ncpus, int max, int *budget)
{
    struct bp_quota q;
    int quota = bp_cpu_quota("", &q) ? bp_quota_cpus(&q) : 0;
    int def = quota > 0 && quota < ncpus ? quota : ncpus;
    char *why = default_team.why;
    size_t size = sizeof default_team.why;
    default_team.by_quota = def < ncpus;
    if (def < ncpus)
        snprintf(why, size, "the CPU quota, %.2f CPUs (%lld us every %lld us in %s), rounded "
                 "up; %d CPUs allowed", (double)q.quota_us / (double)q.period_us, q.quota_us,
                 q.period_us, q.file, ncpus);
    else if (quota > 0)
        snprintf(why, size, "one thread per allowed CPU; the CPU quota, %.2f CPUs (%s), "
                 "allows as many", (double)q.quota_us / (double)q.period_us, q.file);
    else
        snprintf(why, size, "one thread per allowed CPU; no CPU quota");
    *budget = def;
    if (bp_config.oversubscribe && bp_config.thread_limit > 0) {
        def = bp_config.thread_limit; /* tests: the default team beyond the CPUs */
        snprintf(why, size, "BUDDY_THREAD_POOL_OVERSUBSCRIBE=1 and the thread limit");
        default_team.by_quota = 0;
    }
    if (def > max) {
        def = max;
        snprintf(why, size, "the thread limit (OMP_THREAD_LIMIT, BUDDY_THREAD_POOL_THREADS)");
        default_team.by_quota = 0;
    }
    default_team.size = def;
    return def;
}

static void start(void)
{
    bp_config_load();
    /* before any worker exists, so before any flag is set or waited for */
    bp_wait_choose(__atomic_load_n(&bp_config.spin_ns, __ATOMIC_RELAXED) > 0);
    cpu_set_t set;
    int n = bp_allowed_cpus(&set);
    if (n <= 0) {
        n = 1;
        CPU_ZERO(&set);
        CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &set);
    }
    if (bp_config.hw_subset != NULL) {
        /* KMP_HW_SUBSET confines the runtime to its CPUs, the application
         * thread too (as libomp's does), unless it is there already (or
         * the value did not apply: then set is every allowed CPU) */
        cpu_set_t now, both;
        if (pthread_getaffinity_np(pthread_self(), sizeof now, &now) == 0) {
            CPU_AND(&both, &now, &set);
            if (!CPU_EQUAL(&both, &now))
                (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
        }
    }
    int places_failed = bp_places_init(&set);
    /* the limits cap each application thread's teams, not the pool */
    struct bp_pool_shape shape = {.allowed = &set, .ncpus = n, .max_threads = BP_MAX_THREADS,
                                  .team_max = bp_config_max_threads()};
    shape.default_team = choose_default(n, shape.team_max, &shape.cpu_budget);
    if (places_failed)
        shape.max_threads = shape.team_max = shape.default_team = 1;
    if (bp_pool_setup(&shape) != 0 || places_failed) {
        bp_warn("out of memory starting the pool; regions run on one thread");
        default_team.size = 1;
        snprintf(default_team.why, sizeof default_team.why, "out of memory");
    }
    bp_hook_start(atomic_load_explicit(&bp_pool.max_threads, memory_order_relaxed));
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    /* release: the pool's set-up before the destructor acts on it */
    atomic_store_explicit(&bp_pool.started, 1, memory_order_release);
}

/* The tool is started after the runtime, so that its initialize may call
 * the runtime (whose start-up is done then); a call from inside it does
 * not wait for itself. Every other thread waits in pthread_once until the
 * tool is started, so no region begins before. */
static pthread_once_t tool_once = PTHREAD_ONCE_INIT;
static _Thread_local int starting_tool;

static void start_tool(void)
{
    starting_tool = 1;
    bp_hook_start_tool(atomic_load_explicit(&bp_pool.max_threads, memory_order_relaxed));
    starting_tool = 0;
}

void bp_pool_ensure_init(void)
{
    pthread_once(&bp_pool.init_once, start);
    if (__builtin_expect(!starting_tool, 1))
        pthread_once(&tool_once, start_tool);
    if (__builtin_expect(bp_config.display_env != 0, 0))
        display_env_once();
}

int bp_max_team(void)
{
    bp_pool_ensure_init();
    return bp_pool.team_max;
}

int bp_default_team(void)
{
    bp_pool_ensure_init();
    return bp_pool.default_team;
}

const struct bp_default_team *bp_default_team_info(void)
{
    bp_pool_ensure_init();
    return &default_team;
}

const cpu_set_t *bp_pool_initial_cpus(void)
{
    bp_pool_ensure_init();
    return &bp_pool.allowed;
}

int bp_pool_cpus(void)
{
    bp_pool_ensure_init();
    return bp_pool.ncpus;
}

void bp_pool_test_set_epoch(uint64_t epoch)
{
    bp_pool_ensure_init();
    bp_teams_test_set_epoch(epoch);
}

/* The profile's calls of buddypool.h. They change the profile between a
 * thread's regions, as its phases do: -EBUSY inside one. The runtime is
 * started first, which sets the profile up, so that a phase named before
 * the first region has a profile to go to; the listener does the rest
 * (hooks.h). They are here, in a file every program that forks a region
 * links in, so that a program linked with the static library that names
 * them weakly (to run on the other runtimes too) finds them. */
static int profile_call(void)
{
    if (bp_tls.level > 0)
        return -EBUSY;
    bp_pool_ensure_init();
    return 0;
}

BP_API int buddypool_profile_phase(const char *name)
{
    if (name == NULL || name[0] == '\0' || strlen(name) >= BP_PHASE_NAME)
        return -EINVAL;
    int err = profile_call();
    return err ? err : bp_hook_profile_phase(name);
}

BP_API int buddypool_profile_reset(void)
{
    int err = profile_call();
    return err ? err : bp_hook_profile_reset();
}

BP_API int buddypool_profile_write(FILE *out)
{
    if (out == NULL)
        return -EINVAL;
    int err = profile_call();
    return err ? err : bp_hook_profile_write(out);
}

int bp_pool_pause(void)
{
    if (bp_tls.level > 0)
        return -1;
    /* acquire: the pool's set-up (start's release); a pool never started
     * has no threads (bp_teams_pause sees a shutdown under its lock) */
    if (!atomic_load_explicit(&bp_pool.started, memory_order_acquire))
        return 0;
    bp_teams_pause();
    return 0;
}

/* Stop and join the workers before the library's code goes away (dlclose)
 * or the process exits, and let the listeners report (hooks.h: the profile
 * is printed). Regions that start later run on their caller alone. Joining
 * is skipped where it cannot finish: when the destructor runs inside a
 * region (exit() from region code: on its thread 0 the profile is still
 * printed, as it is complete up to that region), or when another thread's
 * region does not end within a second; at process exit the kernel ends
 * those threads. */
__attribute__((destructor)) static void stop(void)
{
    /* seq_cst: pairs with the acquire in bp_fork, and with the team's
     * state in bp_team_take (team.c); from now on regions run serially */
    atomic_store_explicit(&bp_pool.shut_down, 1, memory_order_seq_cst);
    /* A process that never used the runtime (a wrapper such as `timeout`
     * under the same environment) has nothing to stop and nothing to say. */
    if (!atomic_load_explicit(&bp_pool.started, memory_order_acquire))
        return;
    if (bp_hook_exit_busy()) /* exit() from a listener's own work: nothing to add */
        return;
    if (bp_tls.level > 0) {
        /* exit() from a region's code: the profile is complete up to the
         * regions still running, whose threads go on */
        bp_hook_exit_in_region();
        return;
    }
    bp_hook_exit_begin();
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    if (!bp_teams_stop(&deadline)) {
        bp_hook_exit_abandon();
        return;
    }
    if (!bp_hook_exit_lock(&deadline))
        return;
    bp_pool_stop(); /* every team is out of use: no worker runs */
    bp_teams_free_all();
    bp_hook_exit_report();
    bp_pool_free();
    bp_places_free();
}
