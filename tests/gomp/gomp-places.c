/* gomp-places.c: the places API under OMP_PLACES, as libgomp and libomp
 * answer it (the peers validate every check): the places cover the CPUs the
 * process may run on, each once; a place lists its CPUs in order; a bound
 * team's thread t sits on place t (modulo the places) and runs on one of
 * its CPUs. Without OMP_PLACES it only prints what it sees (the peers
 * disagree there: libgomp has no places, libomp one, buddypool one per
 * CPU its workers are pinned to). */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "gomp-check.h"

int main(void)
{
    const char *env = getenv("OMP_PLACES");
    int n = omp_get_num_places();
    printf("gomp-places: OMP_PLACES=%s: %d places\n", env ? env : "(unset)", n);
    if (env == NULL)
        return check_summary("gomp-places");
    /* the runtime may have bound this thread already: the process's CPUs
     * are omp_get_num_procs() */
    int procs = omp_get_num_procs();
    cpu_set_t covered;
    CPU_ZERO(&covered);
    EXPECT_GE(n, 1, "places under OMP_PLACES");
    for (int p = 0; p < n; p++) {
        int k = omp_get_place_num_procs(p);
        EXPECT_GE(k, 1, "CPUs in a place");
        int ids[CPU_SETSIZE];
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < k && i < CPU_SETSIZE; i++) {
            EXPECT_EQ(CPU_ISSET(ids[i], &covered), 0, "a CPU in two places");
            CPU_SET(ids[i], &covered);
            if (i > 0)
                EXPECT_GE(ids[i], ids[i - 1] + 1, "a place's CPUs in order");
        }
        printf("gomp-places: place %d: %d CPUs\n", p, k);
    }
    EXPECT_EQ(omp_get_place_num_procs(n), 0, "a place past the last");
    EXPECT_EQ(omp_get_place_num_procs(-1), 0, "a negative place");
    if (strcmp(env, "threads") == 0 || strcmp(env, "cores") == 0 ||
        strcmp(env, "sockets") == 0)
        EXPECT_EQ(CPU_COUNT(&covered), procs, "the places cover the allowed CPUs");
    if (strcmp(env, "threads") == 0)
        EXPECT_EQ(n, procs, "one place per CPU");
    /* CPUs 0 and 1 are there when all online CPUs are allowed */
    if (strcmp(env, "{0:2}") == 0 && procs >= 2 && procs == sysconf(_SC_NPROCESSORS_ONLN)) {
        EXPECT_EQ(n, 1, "{0:2} is one place");
        EXPECT_EQ(omp_get_place_num_procs(0), 2, "{0:2} holds two CPUs");
    }

    int team = n < 4 ? n : 4, wrong_place = 0, wrong_cpu = 0, got = 0;
    PRAGMA(omp parallel num_threads(team))
    {
        int t = omp_get_thread_num(), place = omp_get_place_num(), cpu = sched_getcpu();
        if (place != t % n)
            __atomic_fetch_add(&wrong_place, 1, __ATOMIC_RELAXED);
        int k = place >= 0 ? omp_get_place_num_procs(place) : 0, ids[CPU_SETSIZE], in = 0;
        if (place >= 0)
            omp_get_place_proc_ids(place, ids);
        for (int i = 0; i < k; i++)
            in |= ids[i] == cpu;
        if (!in)
            __atomic_fetch_add(&wrong_cpu, 1, __ATOMIC_RELAXED);
        PRAGMA(omp master)
        got = omp_get_num_threads();
    }
    EXPECT_EQ(got, team, "the bound team");
    EXPECT_EQ(wrong_place, 0, "thread t on place t");
    EXPECT_EQ(wrong_cpu, 0, "a thread runs on a CPU of its place");
    return check_summary("gomp-places");
}
