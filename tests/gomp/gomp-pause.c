/* gomp-pause.c: omp_pause_resource and omp_pause_resource_all on the host
 * (OpenMP 5.2, 18.6), built by gcc and clang, on buddypool and on libgomp
 * or libomp, which validate the checks every runtime must pass:
 *   - 0 from outside any region, for both kinds; non-zero for a device
 *     there is not (buddypool: -1 for an unknown kind too);
 *   - after a hard pause the pool's threads are gone and the next region starts new ones, whose threadprivate
 *     data start afresh; every region after it computes exactly;
 *   - after a soft pause the threads were either ended (libgomp) or kept
 *     asleep (libomp): the workers' threadprivate data agree with which;
 *   - inside a region the call ends none of the team's threads; inside a
 *     target region run on the host the regions after it are exact;
 *   - nested teams (whose workers own teams of their own) and tasks run
 *     before and after;
 *   - another application thread forking regions all the while (a few
 *     ahead of the pauses at most): every one of its regions exact,
 *     whichever of its teams the pause took.
 * On buddypool (argv[1] "buddypool", or GOMP_PAUSE_BUDDYPOOL=1 when
 * preloaded) a soft pause ends the threads as a hard one does (libgomp's
 * choice), and the call inside a region returns -1 (libgomp's; libomp
 * returns 0). libomp 22 is checked less: its hard pause keeps the threads
 * of nested teams, resets the ICVs (which OpenMP allows), crashes when
 * another thread forks regions meanwhile and hangs after a pause in a
 * target region, so there it gets soft pauses beside the other thread, no
 * count of threads and no target region. */
#include <dirent.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gomp-check.h"

static int tp = 128;
PRAGMA(omp threadprivate(tp))

/* The pool's threads alive now besides the initial one: on buddypool the
 * threads it names "buddypool-N" (its profiler may have a thread of its
 * own), elsewhere every other thread of the process. */
static int workers_alive(int ours)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    if (d == NULL)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (!ours) {
            n++;
            continue;
        }
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f != NULL) {
            if (fgets(comm, sizeof comm, f) == NULL)
                comm[0] = '\0';
            fclose(f);
        }
        n += strncmp(comm, "buddypool-", 10) == 0;
    }
    closedir(d);
    return ours ? n : n - 1;
}

/* The pool's threads left after a pause. A runtime that ends its workers
 * joins them (buddypool, libgomp), but pthread_join returns when the
 * kernel clears the thread's id, a moment before the thread leaves
 * /proc/self/task: count again, for at most two seconds, until none is
 * left. A thread kept asleep (libomp's soft pause) stays listed, so there
 * the count after the two seconds is what the caller sees. */
static int workers_after_pause(int ours)
{
    int n = workers_alive(ours);
    for (int tries = 0; n > 0 && tries < 200; tries++) {
        struct timespec ms10 = {0, 10 * 1000 * 1000};
        nanosleep(&ms10, NULL);
        n = workers_alive(ours);
    }
    return n;
}

/* Sum of 0..n-1 in a parallel loop: exact, or the pause broke a team. */
static long long loop_sum(int n)
{
    long long s = 0;
    PRAGMA(omp parallel for reduction(+ : s) schedule(dynamic, 7))
    for (int i = 0; i < n; i++)
        s += i;
    return s;
}

/* Each thread of a region writes base + its number into tp. */
static void mark(int base)
{
    PRAGMA(omp parallel)
    tp = base + omp_get_thread_num();
}

/* The workers' tp: how many are fresh (128), how many hold base + number. */
static void look(int base, int *fresh, int *kept, int *team)
{
    int f = 0, k = 0, n = 1;
    PRAGMA(omp parallel reduction(+ : f, k))
    {
        if (omp_get_thread_num() != 0) {
            f += tp == 128;
            k += tp == base + omp_get_thread_num();
        } else {
            EXPECT_EQ(tp, base, "the initial thread's threadprivate data are kept");
        }
        PRAGMA(omp single)
        n = omp_get_num_threads();
    }
    *fresh = f, *kept = k, *team = n;
}

static void nested_and_tasks(const char *when)
{
    int inner = 0, tasks = 0;
    omp_set_max_active_levels(2); /* a hard pause may reset it */
    PRAGMA(omp parallel num_threads(2) reduction(+ : inner))
    {
        PRAGMA(omp parallel num_threads(2) reduction(+ : inner))
        inner += 1;
    }
    EXPECT_EQ(inner, 4, when);
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    for (int i = 0; i < 50; i++) {
        PRAGMA(omp task)
        __atomic_fetch_add(&tasks, 1, __ATOMIC_RELAXED);
    }
    EXPECT_EQ(tasks, 50, when);
}

static int stop_other, pauses_done;

/* Another application thread's regions beside the pauses: at most
 * OTHER_PER_PAUSE ahead of the main thread's pauses, so that they go on
 * beside every pause but do not pile up while a loaded machine slows the
 * pauses down (they reached 35,000, past what a profile's trace keeps of a
 * thread); at least 20 in all. */
enum { OTHER_PER_PAUSE = 8 };

static void *other(void *unused)
{
    (void)unused;
    int n = 0;
    while (!__atomic_load_n(&stop_other, __ATOMIC_ACQUIRE) || n < 20) {
        /* relaxed: a pace, not a publication */
        if (n >= OTHER_PER_PAUSE * (__atomic_load_n(&pauses_done, __ATOMIC_RELAXED) + 1) &&
            n >= 20 && !__atomic_load_n(&stop_other, __ATOMIC_RELAXED)) {
            sched_yield();
            continue;
        }
        EXPECT_EQ(loop_sum(1000), 499500LL, "another thread's region beside the pauses");
        n++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int ours = (argc > 1 && strcmp(argv[1], "buddypool") == 0) ||
               getenv("GOMP_PAUSE_BUDDYPOOL") != NULL;
    int team = check_team_size("gomp-pause");
#ifdef __clang__
    int strict = ours; /* libomp: see the top */
#else
    int strict = 1;
#endif
    int dev = omp_get_initial_device();

    EXPECT_OP(omp_pause_resource(omp_pause_soft, omp_get_num_devices() + 5), !=, 0,
              "a device there is not");
    if (ours) { /* libgomp 12 ignores the kind */
        EXPECT_EQ(omp_pause_resource(3, dev), -1, "an unknown kind");
        EXPECT_EQ(omp_pause_resource_all(3), -1, "an unknown kind, every device");
    }

    /* hard: the threads end, the next region's are new */
    mark(256);
    nested_and_tasks("before a hard pause");
    EXPECT_EQ(omp_pause_resource_all(omp_pause_hard), 0, "a hard pause");
    int fresh, kept, n;
    if (strict)
        EXPECT_EQ(workers_after_pause(ours), 0, "no pool thread left after a hard pause");
    look(256, &fresh, &kept, &n);
    EXPECT_EQ(n, team, "the team after a hard pause");
    if (strict)
        EXPECT_EQ(fresh, team - 1, "the workers' threadprivate data afresh after a hard pause");
    EXPECT_EQ(loop_sum(100000), 4999950000LL, "a loop after a hard pause");
    nested_and_tasks("after a hard pause");

    /* soft: ended or kept, consistently */
    mark(384);
    EXPECT_EQ(omp_pause_resource(omp_pause_soft, dev), 0, "a soft pause");
    int ended = workers_after_pause(ours) == 0;
    look(384, &fresh, &kept, &n);
    EXPECT_EQ(fresh, ended ? team - 1 : 0, "threadprivate data agree with the threads ended");
    EXPECT_EQ(kept, ended ? 0 : team - 1, "threadprivate data agree with the threads kept");
    if (ours)
        EXPECT_EQ(ended, 1, "buddypool ends its workers at a soft pause too");
    EXPECT_EQ(loop_sum(100000), 4999950000LL, "a loop after a soft pause");

    /* inside a region: the team's threads go on */
    mark(512);
    PRAGMA(omp parallel)
    {
        PRAGMA(omp barrier)
        PRAGMA(omp master)
        {
            int r = omp_pause_resource(omp_pause_soft, dev);
            if (ours)
                EXPECT_EQ(r, -1, "a pause inside a region is refused");
        }
        PRAGMA(omp barrier)
        EXPECT_EQ(tp, 512 + omp_get_thread_num(), "a thread of the region kept its data");
    }
    look(512, &fresh, &kept, &n);
    EXPECT_EQ(kept, team - 1, "the region's threads outlived a pause inside it");

    /* inside a target region run on the host, itself in a region of one
     * thread: the caller's kept teams are set aside there, and given back
     * at its end (whatever the runtime answers) */
    if (strict) { /* libomp 22 hangs there */
        PRAGMA(omp parallel if (0))
        {
            PRAGMA(omp target)
            {
                (void)omp_pause_resource_all(omp_pause_hard);
            }
        }
        EXPECT_EQ(loop_sum(1000), 499500LL, "a region after a pause in a target region");
        nested_and_tasks("after a pause in a target region");
    }

    /* another application thread forks regions meanwhile */
    pthread_t th;
    if (pthread_create(&th, NULL, other, NULL) != 0) {
        fprintf(stderr, "gomp-pause: pthread_create failed\n");
        return 1;
    }
    for (int i = 0; i < 200; i++) {
        EXPECT_EQ(omp_pause_resource_all(i % 2 || !strict ? omp_pause_soft : omp_pause_hard), 0,
                  "a pause beside another thread's regions");
        EXPECT_EQ(loop_sum(1000), 499500LL, "a region between the pauses");
        if (i % 50 == 0)
            nested_and_tasks("between pauses beside another thread");
        __atomic_store_n(&pauses_done, i + 1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&stop_other, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    EXPECT_EQ(omp_pause_resource_all(omp_pause_hard), 0, "a pause after the other thread ended");
    if (strict)
        EXPECT_EQ(workers_after_pause(ours), 0, "no pool thread left at the end");
    EXPECT_EQ(loop_sum(1000), 499500LL, "the last region");
    return check_summary("gomp-pause");
}
