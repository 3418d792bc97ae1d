/* test-dlopen.c: a model library (a shared object embedding the static
 * libbuddypool) is loaded, run and unloaded many times. Each time the
 * results are exact, and after dlclose the library is gone from the process
 * and no pool thread is left. */
#include <dirent.h>
#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

/* A rank-1 memref descriptor as MLIR's C interface passes it. */
struct memref1 {
    double *allocated, *aligned;
    int64_t offset, size, stride;
};

/* The pool's workers alive in the process: threads named "buddypool-N"
 * (a sanitizer's own threads do not count). */
static int count_workers(void)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[64], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue; /* the thread has just exited */
        if (fgets(comm, sizeof comm, f) != NULL && strncmp(comm, "buddypool-", 10) == 0)
            n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

/* The workers left after an unload: 0 once the kernel has removed the
 * joined threads from /proc. pthread_join returns when a thread has cleared
 * its thread id, a little before the kernel releases its task, so a thread
 * may still be listed for a moment: look again for up to a second. */
static int workers_gone(void)
{
    int n = count_workers();
    for (int i = 0; i < 1000 && n != 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        n = count_workers();
    }
    return n;
}

/* The pool's size after a region: one thread per allowed CPU, lowered by a
 * valid BUDDY_THREAD_POOL_THREADS. */
static int expected_pool(void)
{
    cpu_set_t set;
    CHECK_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    int n = CPU_COUNT(&set);
    const char *s = getenv("BUDDY_THREAD_POOL_THREADS");
    int limit = s ? atoi(s) : 0;
    return limit > 0 && limit < n ? limit : n;
}

int main(int argc, char **argv)
{
    CHECK_EQ(argc >= 2, 1);
    const char *path = argv[1];
    int loads = argc > 2 ? atoi(argv[2]) : 100;
    enum { N = 10007 };
    static double x[N], y[N];
    double expect = 0;
    for (int i = 0; i < N; i++) {
        x[i] = i % 97;
        expect += 2.0 * (i % 97);
    }
    CHECK_EQ(count_workers(), 0);
    /* Each load gets a whole pool: a pool must not shrink the CPUs the next
     * one sees (OMP_PROC_BIND pins the caller; unloading restores it). */
    int pool = expected_pool();
    cpu_set_t mask0, mask;
    CHECK_EQ(sched_getaffinity(0, sizeof mask0, &mask0), 0);
    for (int k = 0; k < loads; k++) {
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        void (*scale)(struct memref1 *, struct memref1 *) =
            (void (*)(struct memref1 *, struct memref1 *))dlsym(lib, "_mlir_ciface_model_scale");
        double (*sum)(struct memref1 *) = (double (*)(struct memref1 *))dlsym(lib, "_mlir_ciface_model_sum");
        CHECK(scale != NULL && sum != NULL);
        struct memref1 mx = {x, x, 0, N, 1}, my = {y, y, 0, N, 1};
        for (int r = 0; r < 3; r++) {
            for (int i = 0; i < N; i++)
                y[i] = -1;
            scale(&mx, &my);
            for (int i = 0; i < N; i++)
                CHECK_DEQ(y[i], 2.0 * x[i]);
            CHECK_DEQ(sum(&my), expect);
        }
        CHECK_EQ(count_workers(), pool - 1);
        CHECK_EQ(dlclose(lib), 0);
        CHECK(dlopen(path, RTLD_NOW | RTLD_NOLOAD) == NULL); /* really unloaded */
        CHECK_EQ(workers_gone(), 0);                        /* workers joined */
        CHECK_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
        CHECK(CPU_EQUAL(&mask, &mask0));                    /* caller as it was */
    }
    printf("test-dlopen: %d loads, runs and unloads right with %d threads, no thread "
           "left\n", loads, pool);
    return 0;
}
