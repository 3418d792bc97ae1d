/* constructs.c: OpenMP constructs buddypool runs, for the preload tests: one
 * parallel region each for parallel for (static, static with a chunk,
 * dynamic), reductions, single, critical and barrier. Built with clang
 * (libomp) and gcc (libgomp); run with and without LD_PRELOAD of
 * libbuddypool.so. Every result is exact and independent of the team size,
 * so the output is the same under every runtime; the last line gives the
 * number of parallel regions run, which the profile must count. Exits 1 on a
 * wrong result. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define N 10007
#define MAX_THREADS 1024

static int hits[N];
static int regions;
static int failed;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);    \
            printf(__VA_ARGS__);                           \
            printf("\n");                                  \
            failed = 1;                                    \
        }                                                  \
    } while (0)

/* Every index ran exactly once; clears hits for the next loop. */
static void check_once(const char *what)
{
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        if (hits[i] != 1)
            wrong++;
        hits[i] = 0;
    }
    CHECK(wrong == 0, "%s: %d indices not run exactly once", what, wrong);
    printf("%s: %d indices once\n", what, N - wrong);
}

int main(void)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        hits[i]++;
    regions++;
    check_once("for static");

#pragma omp parallel for schedule(static, 3)
    for (int i = 0; i < N; i++)
        hits[i]++;
    regions++;
    check_once("for static,3");

#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < N; i++)
        hits[i]++;
    regions++;
    check_once("for dynamic");

#pragma omp parallel for schedule(dynamic, 7)
    for (int i = 0; i < N; i++)
        hits[i]++;
    regions++;
    check_once("for dynamic,7");

    /* Integer-valued doubles below 2^53 add exactly in any order. */
    long long isum = 0;
    int imax = -1;
    double dsum = 0.0;
#pragma omp parallel for reduction(+ : isum, dsum) reduction(max : imax)
    for (int i = 0; i < N; i++) {
        isum += i;
        dsum += (double)i;
        imax = i > imax ? i : imax;
    }
    regions++;
    long long expect = (long long)N * (N - 1) / 2;
    CHECK(isum == expect && dsum == (double)expect && imax == N - 1,
          "reduction: %lld %.1f %d, expected %lld %d", isum, dsum, imax, expect, N - 1);
    printf("reduction: sum %lld, double sum %.1f, max %d\n", isum, dsum, imax);

    /* single: one thread runs each of 100 singles; the implied barrier after
     * each makes the count seen by every thread exact. */
    int singles = 0, single_wrong = 0;
#pragma omp parallel
    for (int k = 0; k < 100; k++) {
#pragma omp single
        singles++;
        if (singles != k + 1) {
#pragma omp atomic
            single_wrong++;
        }
#pragma omp barrier
    }
    regions++;
    CHECK(singles == 100 && single_wrong == 0, "single: %d runs, %d wrong counts", singles,
          single_wrong);
    printf("single: %d runs\n", singles);

    /* critical: a plain read-modify-write that only mutual exclusion keeps
     * exact. */
    long long crit_sum = 0;
#pragma omp parallel for schedule(static, 1)
    for (int i = 0; i < N; i++) {
#pragma omp critical
        {
            long long v = crit_sum;
            crit_sum = v + i;
        }
    }
    regions++;
    CHECK(crit_sum == expect, "critical: %lld, expected %lld", crit_sum, expect);
    printf("critical: sum %lld\n", crit_sum);

    /* barrier: in phase p every thread writes its slot, and after a barrier
     * every thread sees every slot at p. */
    static int phase_of[MAX_THREADS];
    int team = 0, barrier_wrong = 0, tids_wrong = 0;
    static int seen[MAX_THREADS];
    memset(seen, 0, sizeof seen);
#pragma omp parallel
    {
        /* A thread with a wrong number takes no slot but meets every
         * barrier, so a wrong result cannot hang the test. */
        int me = omp_get_thread_num(), nth = omp_get_num_threads();
        int valid = nth <= MAX_THREADS && me >= 0 && me < nth;
        if (valid) {
#pragma omp atomic
            seen[me]++;
        } else {
#pragma omp atomic
            tids_wrong++;
        }
#pragma omp single
        team = nth;
        for (int p = 1; p <= 200; p++) {
            if (valid)
                phase_of[me] = p;
#pragma omp barrier
            for (int t = 0; valid && t < nth; t++)
                if (phase_of[t] != p) {
#pragma omp atomic
                    barrier_wrong++;
                }
#pragma omp barrier
        }
    }
    regions++;
    for (int t = 0; t < team && t < MAX_THREADS; t++)
        if (seen[t] != 1)
            tids_wrong++;
    CHECK(team >= 1 && tids_wrong == 0 && barrier_wrong == 0,
          "barrier: team %d, %d thread numbers wrong, %d phases wrong", team, tids_wrong,
          barrier_wrong);
    printf("barrier: 200 phases, every thread number once\n");

    printf("regions %d\n", regions);
    return failed;
}
