/* idle.c: what a runtime's threads cost while the program does no parallel
 * work, and how fast the first region after such a pause runs. Built for
 * each runtime like the overhead benchmark (idle-libomp, idle-libgomp,
 * idle-buddypool).
 *
 * Method. The program runs regions until the pool is warm, then repeats,
 * --trials times: no region for --idle-ms (default 1000 ms: past the spin
 * period of every runtime's default, so its threads have gone to sleep),
 * then one more --measure-ms (default 1000) with no region while the process'
 * CPU time is read before and after (getrusage: the main thread sleeps in
 * nanosleep, so the time is the pool threads'), then one empty `parallel`
 * region whose fork-to-join time is the wake latency; every thread records
 * when it started, so the time until the last thread ran is shown too.
 *
 * Checks: every region ran on the full team, each thread exactly once. With
 * --check the program also fails (exit 1) when an idle pool thread used 1%
 * of a CPU or more: that is the promise of a pool whose threads sleep in the
 * kernel once idle, not a timing (a sleeping thread uses no CPU on a loaded
 * machine either).
 *
 * Output: a table, then one line for scripts:
 *   RESULT idle threads=T idle_cpu_pct=X wake_us=Y all_started_us=Z
 * idle_cpu_pct is the largest over the trials, per pool thread (% of one
 * CPU); wake_us and all_started_us are medians over the trials. */
#define _GNU_SOURCE
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../cli.h"

enum { MAX_THREADS = 1024, MAX_TRIALS = 1000, WARM_REGIONS = 2000 };

/* one line per thread, so the entry stamps do not share lines */
static struct {
    _Alignas(128) double started;
    int runs;
} entry[MAX_THREADS];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* One empty region; returns its team size, or 0 after printing what went
 * wrong (a thread missing or run twice). */
static int region(void)
{
    int team = 0;
    for (int i = 0; i < MAX_THREADS; i++)
        entry[i].runs = 0;
#pragma omp parallel
    {
        int id = omp_get_thread_num();
        if (id < MAX_THREADS) {
            entry[id].started = now_s();
            entry[id].runs++;
        }
        if (id == 0)
            team = omp_get_num_threads();
    }
    if (team < 1 || team > MAX_THREADS) {
        fprintf(stderr, "idle: team of %d threads (at most %d supported)\n", team, MAX_THREADS);
        return 0;
    }
    for (int i = 0; i < team; i++)
        if (entry[i].runs != 1) {
            fprintf(stderr, "idle: thread %d of %d ran the region %d times\n", i, team,
                    entry[i].runs);
            return 0;
        }
    return team;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static long parse_long(const char *flag, const char *s, long lo, long hi)
{
    return cli_parse_long("idle", flag, s, lo, hi);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: idle [--idle-ms N] [--measure-ms N] [--trials N] [--check]\n"
               "  --idle-ms N     pause before each measurement (default 1000)\n"
               "  --measure-ms N  idle window whose CPU time is measured (default 1000)\n"
               "  --trials N      pauses, each ended by one timed region (default 3)\n"
               "  --check         exit 1 if an idle pool thread used >= 1%% of a CPU\n"
               "Threads: OMP_NUM_THREADS or the runtime's default.\n");
}

int main(int argc, char **argv)
{
    long idle_ms = 1000, measure_ms = 1000, trials = 3;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--idle-ms") == 0)
            idle_ms = parse_long("--idle-ms", i + 1 < argc ? argv[++i] : NULL, 0, 3600000);
        else if (strcmp(argv[i], "--measure-ms") == 0)
            measure_ms = parse_long("--measure-ms", i + 1 < argc ? argv[++i] : NULL, 1, 3600000);
        else if (strcmp(argv[i], "--trials") == 0)
            trials = parse_long("--trials", i + 1 < argc ? argv[++i] : NULL, 1, MAX_TRIALS);
        else if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "idle: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    int team = 0;
    for (int i = 0; i < WARM_REGIONS; i++)
        if ((team = region()) == 0)
            return 1;
    if (check && team < 2) {
        fprintf(stderr, "idle: FAIL: --check needs a team of 2 or more (got %d): with no pool "
                        "thread there is nothing to check\n", team);
        return 1;
    }

    double wake[MAX_TRIALS], started[MAX_TRIALS], worst_cpu = 0.0;
    printf("%d threads; %ld ms idle, then %ld ms measured idle, then one region; %ld trials\n",
           team, idle_ms, measure_ms, trials);
    printf("trial  idle CPU per pool thread  wake (fork to join)  last thread started\n");
    for (long k = 0; k < trials; k++) {
        sleep_ms(idle_ms);
        double c0 = cpu_s(), w0 = now_s();
        sleep_ms(measure_ms);
        double c1 = cpu_s(), w1 = now_s();
        double t0 = now_s();
        if (region() != team) {
            fprintf(stderr, "idle: the region after the pause did not run on all %d threads\n",
                    team);
            return 1;
        }
        double t1 = now_s();
        double last = t0;
        for (int i = 0; i < team; i++)
            if (entry[i].started > last)
                last = entry[i].started;
        double cpu = team > 1 ? (c1 - c0) / (w1 - w0) / (team - 1) * 100.0 : 0.0;
        if (cpu > worst_cpu)
            worst_cpu = cpu;
        wake[k] = (t1 - t0) * 1e6;
        started[k] = (last - t0) * 1e6;
        printf("%5ld  %22.3f%%  %16.1f us  %16.1f us\n", k + 1, cpu, wake[k], started[k]);
    }
    qsort(wake, (size_t)trials, sizeof wake[0], cmp_double);
    qsort(started, (size_t)trials, sizeof started[0], cmp_double);
    printf("RESULT idle threads=%d idle_cpu_pct=%.3f wake_us=%.1f all_started_us=%.1f\n", team,
           worst_cpu, wake[trials / 2], started[trials / 2]);
    if (check && worst_cpu >= 1.0) {
        fprintf(stderr, "idle: FAIL: an idle pool thread used %.3f%% of a CPU (limit 1%%)\n",
                worst_cpu);
        return 1;
    }
    return 0;
}
