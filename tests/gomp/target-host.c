/* target-host.c: target constructs with no offload device, run on the host
 * as libgomp and libomp run them (OpenMP 5.2, 13: the host fallback), and
 * the device memory routines on the initial device. Built by gcc (the
 * GOMP_target_* entry points) and by clang (inline host code; target
 * nowait's __kmpc_omp_target_task_alloc, thread_limit's
 * __kmpc_set_thread_limit), each linked with buddypool and with its own
 * runtime.
 *
 * Where the two compilers' runtimes differ, each is held to its own: a gcc
 * target region starts as a new device's initial thread (level 0, the
 * environment's ICVs, full teams for its regions even inside a parallel
 * region), a clang one runs in the encountering task. libomp alone has no
 * omp_target_* routines (libomptarget's): they are weak here and checked
 * where they exist. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "gomp-check.h"

#pragma weak omp_target_alloc
#pragma weak omp_target_free
#pragma weak omp_target_is_present
#pragma weak omp_target_memcpy
#pragma weak omp_target_memcpy_rect
#pragma weak omp_target_associate_ptr
#pragma weak omp_target_disassociate_ptr

enum { N = 1000 };

static int env_threads(void)
{
    const char *s = getenv("OMP_NUM_THREADS");
    return s != NULL ? atoi(s) : omp_get_num_procs();
}

/* Mapped data is the host's; firstprivate is a copy; a reduction over a
 * combined target teams construct gives the exact sum, each iteration once. */
static void data_and_reductions(void)
{
    static int a[N];
    static unsigned char seen[N];
    long sum = 0;
    for (int i = 0; i < N; i++)
        a[i] = i;
    int fp = 7, out = 0;
    PRAGMA(omp target data map(to: a) map(tofrom: seen))
    {
        PRAGMA(omp target teams distribute parallel for reduction(+: sum) map(tofrom: sum))
        for (int i = 0; i < N; i++) {
            sum += a[i];
            __atomic_fetch_add(&seen[i], 1, __ATOMIC_RELAXED);
        }
        PRAGMA(omp target firstprivate(fp) map(tofrom: out))
        {
            fp += 1;
            out = fp;
        }
    }
    EXPECT_EQ(sum, (long)N * (N - 1) / 2, "target teams reduction");
    int once = 0;
    for (int i = 0; i < N; i++)
        once += seen[i] == 1;
    EXPECT_EQ(once, N, "every iteration of the target loop ran once");
    EXPECT_EQ(out, 8, "firstprivate's copy inside");
    EXPECT_EQ(fp, 7, "firstprivate's original untouched");

    /* the stand-alone data constructs move nothing and change nothing */
    PRAGMA(omp target enter data map(to: a))
    a[3] = 33;
    PRAGMA(omp target update from(a))
    EXPECT_EQ(a[3], 33, "target update keeps the host's data");
    PRAGMA(omp target exit data map(delete: a))
    EXPECT_EQ(a[4], 4, "target exit data keeps the host's data");

    /* a firstprivate array and a double at its alignment */
    double d = 2.5;
    int arr[5] = {1, 2, 3, 4, 5}, copy_sum = 0;
    PRAGMA(omp target firstprivate(arr, d) map(tofrom: copy_sum))
    {
        for (int i = 0; i < 5; i++)
            copy_sum += arr[i]++;
        copy_sum += (int)(d * 2) + (((uintptr_t)&d % _Alignof(double)) != 0) * 1000;
    }
    EXPECT_EQ(copy_sum, 20, "firstprivate array and double copied");
    EXPECT_EQ(arr[0], 1, "firstprivate array's original untouched");
}

/* The data environment inside a target region: gcc's starts afresh (the
 * initial ICVs, level 0), clang's is the encountering task's; both give
 * the encountering task its ICVs back after. */
static void icvs(void)
{
    int threads = env_threads();
    omp_set_num_threads(3);
    int level = -1, max = -1, team = -1;
    PRAGMA(omp target map(tofrom: level, max, team))
    {
        level = omp_get_level();
        max = omp_get_max_threads();
        PRAGMA(omp parallel)
        {
            PRAGMA(omp single)
            team = omp_get_num_threads();
        }
    }
#ifdef __clang__
    EXPECT_EQ(max, 3, "clang: the encountering task's nthreads-var inside target");
    EXPECT_EQ(team, 3, "clang: a region inside target gets nthreads-var's team");
#else
    EXPECT_EQ(max, threads, "gcc: the initial nthreads-var inside target");
    EXPECT_EQ(team, threads, "gcc: a region inside target gets the initial team");
#endif
    EXPECT_EQ(level, 0, "outside any region, level 0 inside target");
    EXPECT_EQ(omp_get_max_threads(), 3, "nthreads-var back after target");
    omp_set_num_threads(threads);

    /* thread_limit on target teams, and on target alone */
    int outer_limit = omp_get_thread_limit();
    int limit = -1, limit2 = -1, team2 = -1;
    PRAGMA(omp target teams num_teams(1) thread_limit(2) map(tofrom: limit))
    {
        PRAGMA(omp parallel)
        {
            PRAGMA(omp single)
            limit = omp_get_thread_limit();
        }
    }
    EXPECT_EQ(limit, 2, "thread_limit(2) of target teams");
    PRAGMA(omp target thread_limit(1) map(tofrom: limit2, team2))
    {
        limit2 = omp_get_thread_limit();
        PRAGMA(omp parallel num_threads(2))
        {
            PRAGMA(omp single)
            team2 = omp_get_num_threads();
        }
    }
    EXPECT_EQ(limit2, 1, "thread_limit(1) of target");
    EXPECT_EQ(team2, 1, "a region inside target thread_limit(1) has one thread");
    EXPECT_EQ(omp_get_thread_limit(), outer_limit, "thread-limit-var back after target");
}

/* A target region in each thread of a region: gcc's regions inside are
 * outermost ones with full teams (libgomp's new initial thread), clang's
 * nested ones of one thread; every thread's sum exact. */
static void inside_parallel(void)
{
    int threads = env_threads();
    enum { MAXT = 8 };
    long sums[MAXT] = {0};
    int levels[MAXT], teams[MAXT];
    PRAGMA(omp parallel num_threads(threads < MAXT ? threads : MAXT))
    {
        int me = omp_get_thread_num();
        long s = 0;
        int level = -1, team = -1;
        PRAGMA(omp target map(tofrom: s, level, team))
        {
            PRAGMA(omp parallel for reduction(+: s))
            for (int i = 1; i <= 100; i++) {
                s += i;
                if (i == 1) {
                    level = omp_get_level();
                    team = omp_get_num_threads();
                }
            }
        }
        sums[me] = s;
        levels[me] = level;
        teams[me] = team;
    }
    int n = threads < MAXT ? threads : MAXT;
    for (int i = 0; i < n; i++) {
        EXPECT_EQ(sums[i], 5050, "a target region's loop in each thread");
#ifdef __clang__
        EXPECT_EQ(levels[i], 2, "clang: the target's region nested in the outer one");
        EXPECT_EQ(teams[i], n > 1 ? 1 : threads, "clang: nested inside an active region");
#else
        EXPECT_EQ(levels[i], 1, "gcc: the target's region is an outermost one");
        EXPECT_EQ(teams[i], threads, "gcc: the target's region gets a full team");
#endif
    }
}

/* target nowait is a deferred task: its dependences order it, its
 * firstprivate data is captured when it is made, and taskwait waits for it. */
static void nowait_and_depend(void)
{
    int x = 0, y = 0, v = 1, order[3] = {0, 0, 0}, step = 0;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single)
        {
            PRAGMA(omp target nowait depend(out: x) map(tofrom: x, order, step) firstprivate(v))
            {
                x = v;
                order[0] = __atomic_add_fetch(&step, 1, __ATOMIC_SEQ_CST);
            }
            v = 2;
            PRAGMA(omp task depend(inout: x) shared(x, order, step))
            {
                x *= 10;
                order[1] = __atomic_add_fetch(&step, 1, __ATOMIC_SEQ_CST);
            }
            PRAGMA(omp target nowait depend(in: x) depend(out: y) map(tofrom: x, y, order, step))
            {
                y = x + 1;
                order[2] = __atomic_add_fetch(&step, 1, __ATOMIC_SEQ_CST);
            }
            PRAGMA(omp taskwait)
        }
    }
    EXPECT_EQ(x, 10, "target nowait's firstprivate taken when made, then the task");
    EXPECT_EQ(y, 11, "the second target nowait after both");
    EXPECT_EQ(order[0], 1, "first target nowait first");
    EXPECT_EQ(order[1], 2, "the task second");
    EXPECT_EQ(order[2], 3, "the second target nowait last");

    /* firstprivate data aligned beyond malloc's, deferred and (outside any
     * parallel region) maybe included */
    typedef struct {
        double v[8];
    } __attribute__((aligned(128))) wide;
    wide w = {{1, 2, 3, 4, 5, 6, 7, 8}};
    int aligned[2] = {0, 0};
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single)
        {
            PRAGMA(omp target nowait firstprivate(w) map(tofrom: aligned))
            aligned[0] = (uintptr_t)&w % 128 == 0 && w.v[7] == 8;
            PRAGMA(omp taskwait)
        }
    }
    PRAGMA(omp target nowait firstprivate(w) map(tofrom: aligned))
    aligned[1] = (uintptr_t)&w % 128 == 0 && w.v[0] == 1;
    PRAGMA(omp taskwait)
    EXPECT_EQ(aligned[0], 1, "target nowait's firstprivate aligned, in a region");
    EXPECT_EQ(aligned[1], 1, "target nowait's firstprivate aligned, outside");

    /* an update's depend clause with nowait, and a target with depend but
     * no nowait: it waits for the task before it */
    int z = 0;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single)
        {
            PRAGMA(omp task depend(out: z) shared(z))
            z = 5;
            PRAGMA(omp target update to(z) depend(inout: z) nowait)
            PRAGMA(omp target depend(in: z) map(tofrom: z))
            z += 1;
        }
    }
    EXPECT_EQ(z, 6, "target depend(in) after the task that writes it");
}

/* The device API with the host as the only device. */
static void routines(void)
{
    int host = omp_get_initial_device();
    EXPECT_EQ(omp_get_num_devices(), 0, "no offload device");
    EXPECT_EQ(host, 0, "the initial device is device number omp_get_num_devices()");
    EXPECT_EQ(omp_is_initial_device(), 1, "on the host");
    EXPECT_EQ(omp_get_device_num(), host, "the device of the initial thread");
    EXPECT_EQ(omp_get_default_device(), 0, "default-device-var's initial value");
    omp_set_default_device(host);
    EXPECT_EQ(omp_get_default_device(), host, "default-device-var set");
    if (omp_target_alloc == NULL) {
        fprintf(stderr, "omp_target_* not defined by this runtime (libomptarget's): not checked\n");
        return;
    }
    int *p = omp_target_alloc(16 * sizeof(int), host);
    EXPECT_EQ(p != NULL, 1, "omp_target_alloc on the host");
    EXPECT_EQ(omp_target_alloc(16, 1) == NULL, 1, "omp_target_alloc on no device");
    EXPECT_EQ(omp_target_is_present(p, host), 1, "host memory is present on the host");
    EXPECT_EQ(omp_target_is_present(p, 1), 0, "nothing is present on no device");
    int src[16], back[16];
    for (int i = 0; i < 16; i++)
        src[i] = i * 3;
    EXPECT_EQ(omp_target_memcpy(p, src, sizeof src, 0, 0, host, host), 0, "memcpy host");
    EXPECT_EQ(memcmp(p, src, sizeof src), 0, "memcpy copied");
    EXPECT_EQ(omp_target_memcpy(back, p, 4 * sizeof(int), 0, 8 * sizeof(int), host, host), 0,
              "memcpy with an offset");
    EXPECT_EQ(back[0] * 1000 + back[3], 24 * 1000 + 33, "memcpy's offset applied");
    EXPECT_EQ(omp_target_memcpy(back, p, 4, 0, 0, 1, host), EINVAL, "memcpy from no device");

    /* a 2x3 block from (1,1) of a 4x5 array into (0,2) of a 3x6 one */
    int m[4][5], r[3][6];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            m[i][j] = i * 10 + j;
    memset(r, 0, sizeof r);
    size_t volume[2] = {2, 3}, dst_off[2] = {0, 2}, src_off[2] = {1, 1};
    size_t dst_dims[2] = {3, 6}, src_dims[2] = {4, 5};
    EXPECT_EQ(omp_target_memcpy_rect(r, m, sizeof(int), 2, volume, dst_off, src_off, dst_dims,
                                     src_dims, host, host), 0, "memcpy_rect");
    int good = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 6; j++) {
            int want = i < 2 && j >= 2 && j < 5 ? (i + 1) * 10 + (j - 2 + 1) : 0;
            good += r[i][j] == want;
        }
    EXPECT_EQ(good, 18, "memcpy_rect copied the block alone");
    EXPECT_EQ(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, host, host),
              INT_MAX, "memcpy_rect's query: no bound on dimensions");
    EXPECT_EQ(omp_target_memcpy_rect(r, m, sizeof(int), 2, volume, dst_off, src_off, dst_dims,
                                     src_dims, 1, host), EINVAL, "memcpy_rect to no device");
    EXPECT_EQ(omp_target_associate_ptr(src, p, 16, 0, host), EINVAL, "nothing to associate");
    EXPECT_EQ(omp_target_disassociate_ptr(src, host), EINVAL, "nothing to disassociate");
    omp_target_free(p, host);
    omp_target_free(NULL, host);
}

/* device(dev) of no device: on the host, unless OMP_TARGET_OFFLOAD is
 * mandatory, when the program stops there (gcc-target-offload-mandatory,
 * with argument "mandatory": the host device still runs before it). */
static int run_on_device(int dev)
{
    int ran = 0;
    PRAGMA(omp target device(dev) map(tofrom: ran))
    ran = 1;
    return ran;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "mandatory") == 0) {
        EXPECT_EQ(run_on_device(omp_get_initial_device()), 1, "the host device runs");
        fprintf(stderr, "the host device ran: %d\n", check_failures == 0);
        run_on_device(1);
        return check_summary("target-host: device 1 ran under mandatory");
    }
    check_team_size("target-host");
    data_and_reductions();
    icvs();
    inside_parallel();
    nowait_and_depend();
    routines();
    EXPECT_EQ(run_on_device(1), 1, "target device(1) ran on the host");
    /* The outermost regions forked, which a profile counts: the team-size
     * check's, the target teams loop's (gcc's region in its one team,
     * clang's league), icvs()'s three, inside_parallel()'s outer one (the
     * target regions' regions in it are nested in it, gcc's too), and
     * nowait_and_depend()'s three; preload-*-target-host compare it with
     * the profile. */
    printf("regions 9\n");
    return check_summary("target-host");
}
