/* test-placement.c: where the pool puts its threads, as docs/placement.md
 * chooses it. Run with one mode argument, under the environment it names:
 *
 *   default  (no OMP_PROC_BIND, no OMP_PLACES) each worker is pinned to one
 *            allowed CPU, no two to the same, none to the CPU the caller ran
 *            on when the pool started; the caller is not pinned: its mask
 *            is the one it had, during and after regions.
 *   bind     (OMP_PROC_BIND=true) the caller is pinned to place 0 (its
 *            first CPU in the pool's order) and worker t to place t: each
 *            to one CPU, all different, omp_get_place_num() == t.
 *   over     (default environment) a team of 2x the CPUs runs unbound:
 *            every thread's mask is the process's, no place; the team of
 *            the CPUs before and after it has its workers pinned apart, the
 *            same CPU each time.
 *   follow   (default environment) the caller moved onto worker w's CPU
 *            (the test moves it there) swaps places with w at the next
 *            region: w is bound to the CPU the caller left, and still no
 *            two threads share a CPU; moved back, they swap back. Another
 *            application thread's region, forked from w's CPU, runs on
 *            workers of its own and moves none of the first thread's.
 *   unbound  (OMP_PROC_BIND=false) nobody is pinned: every thread keeps the
 *            process's mask.
 *
 * Not timed: it reads affinity masks, not speeds. */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "buddypool.h"
#include "check.h"

int omp_get_place_num(void);
int omp_get_max_threads(void);

enum { MAX_TEAM = 1024 };

struct seen {
    cpu_set_t mask[MAX_TEAM];
    int cpu[MAX_TEAM], place[MAX_TEAM], team;
};

static void look(int thread, int team_size, void *ctx)
{
    struct seen *s = ctx;
    if (thread >= MAX_TEAM)
        return;
    CHECK_EQ(pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t), &s->mask[thread]), 0);
    s->cpu[thread] = sched_getcpu();
    s->place[thread] = omp_get_place_num();
    if (thread == 0)
        s->team = team_size;
}

/* The one CPU of a mask that must hold exactly one. */
static int only_cpu(const cpu_set_t *m)
{
    CHECK_EQ(CPU_COUNT(m), 1);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, m))
            return c;
    return -1;
}

static void check_workers_pinned_apart(const struct seen *s, const cpu_set_t *allowed)
{
    cpu_set_t used;
    CPU_ZERO(&used);
    for (int t = 1; t < s->team; t++) {
        int c = only_cpu(&s->mask[t]);
        CHECK(CPU_ISSET(c, allowed));
        CHECK(!CPU_ISSET(c, &used));
        CPU_SET(c, &used);
        CHECK_EQ(s->cpu[t], c); /* it runs there */
    }
}

static struct seen seen;

/* Another application thread, bound to the CPU in arg, runs one region. */
static void *other_caller(void *arg)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(*(int *)arg, &one);
    CHECK_EQ(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
    CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "default";
    cpu_set_t mask0, after;
    CHECK_EQ(pthread_getaffinity_np(pthread_self(), sizeof mask0, &mask0), 0);
    int ncpus = CPU_COUNT(&mask0);
    if (strcmp(mode, "default") == 0) {
        /* The pool starts on the CPU the caller runs on, which it leaves to
         * the caller: the caller is held on one CPU for the first region so
         * that the kernel cannot move it between the pool's look and ours
         * (after the runtime has read the process's CPUs) */
        CHECK_EQ(omp_get_max_threads(), ncpus);
        int start = sched_getcpu();
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(start, &one);
        CHECK_EQ(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
        CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
        CHECK_EQ(seen.team, ncpus);
        CHECK(CPU_EQUAL(&seen.mask[0], &one)); /* the pool did not pin it elsewhere */
        check_workers_pinned_apart(&seen, &mask0);
        for (int t = 1; t < seen.team; t++)
            CHECK_NE(seen.cpu[t], start);
        /* unheld, the caller is not pinned: its mask is the one it had,
         * during and after regions */
        CHECK_EQ(pthread_setaffinity_np(pthread_self(), sizeof mask0, &mask0), 0);
        CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
        CHECK(CPU_EQUAL(&seen.mask[0], &mask0));
        check_workers_pinned_apart(&seen, &mask0);
        CHECK_EQ(pthread_getaffinity_np(pthread_self(), sizeof after, &after), 0);
        CHECK(CPU_EQUAL(&after, &mask0));
    } else if (strcmp(mode, "bind") == 0) {
        CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
        CHECK_EQ(seen.team, ncpus);
        int c0 = only_cpu(&seen.mask[0]);
        CHECK(CPU_ISSET(c0, &mask0));
        check_workers_pinned_apart(&seen, &mask0);
        for (int t = 0; t < seen.team; t++) {
            CHECK_EQ(seen.place[t], t);
            if (t > 0)
                CHECK_NE(only_cpu(&seen.mask[t]), c0);
        }
        /* the caller stays on its place between regions */
        CHECK_EQ(pthread_getaffinity_np(pthread_self(), sizeof after, &after), 0);
        CHECK(CPU_EQUAL(&after, &seen.mask[0]));
    } else if (strcmp(mode, "over") == 0) {
        /* a team that fits: its workers pinned apart (their homes) */
        CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
        CHECK_EQ(seen.team, ncpus);
        check_workers_pinned_apart(&seen, &mask0);
        cpu_set_t home[MAX_TEAM];
        int fit = seen.team;
        memcpy(home, seen.mask, sizeof(cpu_set_t) * (size_t)fit);
        /* twice the CPUs: every worker, those homes' too, unbound */
        int team = 2 * ncpus < MAX_TEAM ? 2 * ncpus : MAX_TEAM;
        CHECK_EQ(buddypool_parallel(team, look, &seen), 0);
        CHECK_EQ(seen.team, team);
        for (int t = 0; t < team; t++) {
            CHECK(CPU_EQUAL(&seen.mask[t], &mask0));
            if (t > 0)
                CHECK_EQ(seen.place[t], -1);
        }
        /* fitting again: the same workers back at their homes */
        CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
        CHECK_EQ(seen.team, fit);
        check_workers_pinned_apart(&seen, &mask0);
        for (int t = 1; t < fit; t++)
            CHECK(CPU_EQUAL(&seen.mask[t], &home[t]));
    } else if (strcmp(mode, "follow") == 0) {
        if (ncpus < 2) {
            printf("test-placement follow: 1 CPU, nothing to follow\n");
            return 0;
        }
        CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
        check_workers_pinned_apart(&seen, &mask0);
        /* The caller's place is the CPU the workers leave free: where it
         * ran when the pool started. (Unbound, it may have been moved off
         * it, onto a worker's, before the region: its CPU in the region
         * would not tell.) */
        CHECK_EQ(seen.team, ncpus);
        int start = -1;
        for (int c = 0; c < CPU_SETSIZE && start < 0; c++) {
            int taken = !CPU_ISSET(c, &mask0);
            for (int t = 1; t < seen.team && !taken; t++)
                taken = only_cpu(&seen.mask[t]) == c;
            if (!taken)
                start = c;
        }
        CHECK_GE(start, 0);
        for (int move = 0; move < 2; move++) {
            /* onto worker 1's CPU, then back to where the caller began */
            int to = move == 0 ? only_cpu(&seen.mask[1]) : start;
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(to, &one);
            CHECK_EQ(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
            CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
            CHECK_EQ(seen.cpu[0], to);
            check_workers_pinned_apart(&seen, &mask0);
            for (int t = 1; t < seen.team; t++)
                CHECK_NE(only_cpu(&seen.mask[t]), to);
            if (move == 0) /* worker 1 took the CPU the caller left */
                CHECK_EQ(only_cpu(&seen.mask[1]), start);
        }
        int w1 = only_cpu(&seen.mask[1]);
        pthread_t other;
        CHECK_EQ(pthread_create(&other, NULL, other_caller, &w1), 0);
        CHECK_EQ(pthread_join(other, NULL), 0);
        CHECK_EQ(seen.cpu[0], w1);
        /* the other thread's region ran on workers of its own and moved
         * none of this thread's: its worker 1 is where it was */
        CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
        CHECK_EQ(seen.cpu[0], start);
        CHECK_EQ(only_cpu(&seen.mask[1]), w1);
        CHECK_EQ(pthread_setaffinity_np(pthread_self(), sizeof mask0, &mask0), 0);
    } else if (strcmp(mode, "unbound") == 0) {
        CHECK_EQ(buddypool_parallel(0, look, &seen), 0);
        for (int t = 0; t < seen.team; t++)
            CHECK(CPU_EQUAL(&seen.mask[t], &mask0));
    } else {
        fprintf(stderr, "test-placement: unknown mode '%s' (default, bind, over, follow, unbound)\n",
                mode);
        return 2;
    }
    printf("test-placement %s: %d threads on %d CPUs placed as chosen\n", mode, seen.team,
           ncpus);
    return 0;
}
