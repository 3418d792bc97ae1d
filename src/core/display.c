/* display.c: OMP_DISPLAY_ENV and omp_display_env: the ICVs as OpenMP names
 * them, in libgomp's format, on stderr; verbose adds buddypool's own
 * settings. It reads the configuration, the calling thread's ICVs and the
 * place list, and is handed the default team, so that the pool's start-up
 * (OMP_DISPLAY_ENV=true prints once there) and the API call (omp_api.c)
 * can both call it without it calling either. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "../internal.h"

static const char *sched_name(int kind)
{
    switch (kind & ~BP_OMP_MONOTONIC) {
    case BP_OMP_DYNAMIC: return "DYNAMIC";
    case BP_OMP_GUIDED: return "GUIDED";
    case BP_OMP_AUTO: return "AUTO";
    case BP_OMP_TRAPEZOIDAL: return "TRAPEZOIDAL";
    default: return "STATIC";
    }
}

void bp_display_env(int verbose, const struct bp_default_team *def)
{
    int default_team = def->size;
    static const char *const bind_names[] = {"FALSE", "TRUE", "PRIMARY", "CLOSE", "SPREAD"};
    const struct bp_icv *icv = bp_icv(bp_self());
    FILE *f = stderr;
    flockfile(f);
    fprintf(f, "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n  _OPENMP = '201511'\n");
    fprintf(f, "  OMP_DYNAMIC = '%s'\n", icv->dynamic ? "TRUE" : "FALSE");
    fprintf(f, "  OMP_NESTED = 'FALSE'\n");
    fprintf(f, "  OMP_NUM_THREADS = '");
    int max_threads = icv->nthreads > 0 ? icv->nthreads : default_team; /* omp_get_max_threads */
    if (bp_config.nthreads_levels > 0)
        for (int i = 0; i < bp_config.nthreads_levels; i++)
            fprintf(f, "%s%d", i ? "," : "", i ? bp_config.nthreads_list[i] : max_threads);
    else
        fprintf(f, "%d", max_threads);
    fprintf(f, "'\n  OMP_SCHEDULE = '%s%s", icv->run_sched & BP_OMP_MONOTONIC ? "MONOTONIC:" : "",
            sched_name(icv->run_sched));
    if (icv->run_chunk > 0)
        fprintf(f, ",%lld", (long long)icv->run_chunk);
    int bind = icv->proc_bind >= 0 && icv->proc_bind <= 4 ? icv->proc_bind : 0;
    fprintf(f, "'\n  OMP_PROC_BIND = '%s'\n  OMP_PLACES = '", bind_names[bind]);
    for (int p = 0; p < bp_places_listed(); p++) {
        const cpu_set_t *set = bp_place_set(p);
        fprintf(f, "%s{", p ? "," : "");
        for (int cpu = 0, i = 0; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, set))
                fprintf(f, "%s%d", i++ ? "," : "", cpu);
        fprintf(f, "}");
    }
    fprintf(f, "'\n  OMP_STACKSIZE = '%zu'\n",
            __atomic_load_n(&bp_config.stack_bytes, __ATOMIC_RELAXED));
    /* spinning for a while, then sleeping, is passive as libgomp names it */
    int64_t spin_ns = __atomic_load_n(&bp_config.spin_ns, __ATOMIC_RELAXED);
    fprintf(f, "  OMP_WAIT_POLICY = '%s'\n", spin_ns == INT64_MAX ? "ACTIVE" : "PASSIVE");
    fprintf(f, "  OMP_THREAD_LIMIT = '%d'\n", bp_thread_limit_var(icv));
    fprintf(f, "  OMP_MAX_ACTIVE_LEVELS = '%d'\n", icv->max_active_levels);
    fprintf(f, "  OMP_NUM_TEAMS = '%d'\n  OMP_TEAMS_THREAD_LIMIT = '%d'\n", bp_nteams_var(),
            bp_teams_thread_limit_var());
    fprintf(f, "  OMP_CANCELLATION = '%s'\n  OMP_DEFAULT_DEVICE = '%d'\n",
            bp_config.cancellation ? "TRUE" : "FALSE", icv->default_device);
    fprintf(f, "  OMP_MAX_TASK_PRIORITY = '%d'\n", bp_config.max_task_priority);
    fprintf(f, "  OMP_DISPLAY_AFFINITY = '%s'\n  OMP_AFFINITY_FORMAT = '%s'\n",
            bp_config.display_affinity ? "TRUE" : "FALSE", bp_affinity_format_var());
    const char *alloc = bp_allocator_name(icv->default_allocator);
    if (alloc != NULL)
        fprintf(f, "  OMP_ALLOCATOR = '%s'\n", alloc);
    else
        fprintf(f, "  OMP_ALLOCATOR = '%#lx'\n", (unsigned long)icv->default_allocator);
    static const char *const offload[] = {"DISABLED", "DEFAULT", "MANDATORY"};
    fprintf(f, "  OMP_TARGET_OFFLOAD = '%s'\n", offload[bp_config.target_offload]);
    /* where the default team came from: always when a CPU quota lowered it */
    if (verbose || def->by_quota)
        fprintf(f, "  BUDDY_THREAD_POOL_DEFAULT_TEAM = '%d' (%s)\n", default_team, def->why);
    if (verbose) {
        fprintf(f, "  BUDDY_THREAD_POOL_THREADS = '%d'\n", bp_config.thread_limit);
        fprintf(f, "  BUDDY_THREAD_POOL_SPIN_US = '%lld'\n",
                spin_ns == INT64_MAX ? -1LL : (long long)(spin_ns / 1000));
        fprintf(f, "  BUDDY_THREAD_POOL_WAIT_PAIR = '%s'\n",
                bp_wait_asymmetric() ? "asymmetric" : "symmetric");
        fprintf(f, "  BUDDY_THREAD_POOL_PROFILE = '%d'\n", bp_config.profile);
    }
    fprintf(f, "OPENMP DISPLAY ENVIRONMENT END\n");
    funlockfile(f);
}
