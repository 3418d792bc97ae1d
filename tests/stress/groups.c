/* groups.c: each application thread is a contention group of its own.
 *
 *   groups APP_THREADS REGIONS
 *
 * APP_THREADS application threads (1 to 8) fork REGIONS regions each, at
 * the same time; thread i asks num_threads(2 + i % 3). Under a thread
 * limit L (OMP_THREAD_LIMIT, or BUDDY_THREAD_POOL_THREADS on buddypool:
 * omp_get_thread_limit() tells it), every region must get exactly
 * min(asked, L), whatever the other application threads' teams hold: the
 * limit counts one application thread's teams only, as OpenMP's contention
 * groups say and libgomp and libomp give. When max-active-levels allows two
 * levels, thread 0 of each region (alone; the others wait at a barrier)
 * then forks a nested region asking 3, which must get exactly
 * min(3, L - outer + 1): the threads of the outer team count in its group,
 * no other group's do. Every thread of every team marks its presence, so
 * the teams really have the threads they say.
 *
 * Prints one line with the counts and exits 1 at the first wrong size,
 * naming the thread, the region and both sizes; 2 on bad arguments. */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_APP = 8 };

static int limit, nested, regions;
static atomic_int failed;
static atomic_long outer_regions, inner_regions;

static int min(int a, int b) { return a < b ? a : b; }

static void fail(int app, int region, const char *what, int got, int want)
{
    if (atomic_exchange(&failed, 1) == 0)
        fprintf(stderr,
                "groups: application thread %d, region %d: %s team of %d threads, "
                "expected %d (thread limit %d)\n", app, region, what, got, want, limit);
}

static void *app_thread(void *arg)
{
    int me = (int)(long)arg, asked = 2 + me % 3;
    int want = min(asked, limit), inner_want = nested ? min(3, limit - want + 1) : 1;
    for (int r = 0; r < regions && !atomic_load(&failed); r++) {
        atomic_int present = 0, inner_present = 0;
        int got = 0, inner_got = 0;
#pragma omp parallel num_threads(asked)
        {
            atomic_fetch_add(&present, 1);
            if (omp_get_thread_num() == 0) {
                got = omp_get_num_threads();
                if (nested) {
#pragma omp parallel num_threads(3)
                    {
                        atomic_fetch_add(&inner_present, 1);
                        if (omp_get_thread_num() == 0)
                            inner_got = omp_get_num_threads();
                    }
                }
            }
#pragma omp barrier
        }
        if (got != want || atomic_load(&present) != got)
            fail(me, r, "outer", got != want ? got : atomic_load(&present), want);
        else if (nested && (inner_got != inner_want || atomic_load(&inner_present) != inner_got))
            fail(me, r, "nested", inner_got != inner_want ? inner_got : atomic_load(&inner_present),
                 inner_want);
        atomic_fetch_add(&outer_regions, 1);
        atomic_fetch_add(&inner_regions, nested);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    char *end1 = NULL, *end2 = NULL;
    long apps = argc == 3 ? strtol(argv[1], &end1, 10) : 0;
    long n = argc == 3 ? strtol(argv[2], &end2, 10) : 0;
    if (argc != 3 || *end1 != '\0' || *end2 != '\0' || apps < 1 || apps > MAX_APP || n < 1 ||
        n > 1000000) {
        fprintf(stderr, "usage: groups APP_THREADS(1-%d) REGIONS(1-1000000)\n", MAX_APP);
        return 2;
    }
    regions = (int)n;
    limit = omp_get_thread_limit();
    nested = omp_get_max_active_levels() >= 2;
    pthread_t threads[MAX_APP];
    for (long i = 0; i < apps; i++)
        if (pthread_create(&threads[i], NULL, app_thread, (void *)i) != 0) {
            fprintf(stderr, "groups: cannot start application thread %ld\n", i);
            return 1;
        }
    for (long i = 0; i < apps; i++)
        pthread_join(threads[i], NULL);
    printf("groups: %ld application threads, thread limit %d, %s: %ld regions, %ld nested%s\n",
           apps, limit, nested ? "two active levels" : "one active level",
           atomic_load(&outer_regions), atomic_load(&inner_regions),
           atomic_load(&failed) ? ": FAILED" : ", every team its exact size");
    return atomic_load(&failed) ? 1 : 0;
}
