/* test-profile.c: known regions for the profiling tests (check-profile.py
 * runs it with BUDDY_THREAD_POOL_PROFILE=1 and reads the JSON it leaves).
 * Prints the address of each region function, then runs:
 *   region_a  3 calls, 2 barriers each, a nested region inside (not counted)
 *   region_b  5 calls (buddypool_parallel_for), no barrier
 *   region_c  7 calls (__kmpc_fork_call), one reduction and one barrier each
 *   region_d  4 calls on a team of one, one barrier each
 * with 2 ms of serial work before each region but the first. The functions
 * are exported (the test links with -rdynamic) so dladdr names them. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "buddypool.h"
#include "check.h"

typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);
typedef int32_t kmp_critical_name[8];
void __kmpc_fork_call(void *loc, int32_t argc, kmpc_micro fn, ...);
void __kmpc_barrier(void *loc, int32_t gtid);
int32_t __kmpc_reduce(void *loc, int32_t gtid, int32_t nvars, size_t size, void *data,
                      void (*fn)(void *, void *), kmp_critical_name *lck);
void __kmpc_end_reduce(void *loc, int32_t gtid, kmp_critical_name *lck);
int omp_get_thread_num(void);

void region_a(int thread, int team_size, void *ctx);
void region_b(int64_t begin, int64_t end, void *ctx);
void region_c(int32_t *gtid, int32_t *btid, long *total);
void region_d(int thread, int team_size, void *ctx);

static void nested(int thread, int team_size, void *ctx) {}

void region_a(int thread, int team_size, void *ctx)
{
    buddypool_barrier();
    buddypool_parallel(0, nested, NULL);
    buddypool_barrier();
}

void region_b(int64_t begin, int64_t end, void *ctx)
{
    _Atomic long *sum = ctx;
    for (int64_t i = begin; i < end; i++)
        atomic_fetch_add(sum, (long)i);
}

static void add_longs(void *lhs, void *rhs) { **(long **)lhs += **(long **)rhs; }

void region_c(int32_t *gtid, int32_t *btid, long *total)
{
    static kmp_critical_name lck;
    long mine = omp_get_thread_num() + 1;
    void *data[1] = {&mine};
    if (__kmpc_reduce(NULL, *gtid, 1, sizeof data, data, add_longs, &lck) == 1) {
        *total += mine;
        __kmpc_end_reduce(NULL, *gtid, &lck);
    }
    __kmpc_barrier(NULL, *gtid);
}

void region_d(int thread, int team_size, void *ctx)
{
    CHECK_EQ(team_size, 1);
    buddypool_barrier();
}

static void serial_work(void)
{
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

int main(void)
{
    printf("region_a=%p\nregion_b=%p\nregion_c=%p\nregion_d=%p\n", (void *)region_a,
           (void *)region_b, (void *)region_c, (void *)region_d);
    fflush(stdout);
    int first = 1;
    for (int k = 0; k < 7; k++) {
        if (k < 3) {
            if (!first)
                serial_work();
            first = 0;
            CHECK_EQ(buddypool_parallel(0, region_a, NULL), 0);
        }
        if (k < 5) {
            serial_work();
            _Atomic long sum = 0;
            CHECK_EQ(buddypool_parallel_for(1000, region_b, &sum), 0);
            CHECK_EQ(atomic_load(&sum), 999L * 1000 / 2);
        }
        serial_work();
        long total = 0;
        __kmpc_fork_call(NULL, 1, (kmpc_micro)region_c, &total);
        int n = buddypool_max_threads();
        CHECK_EQ(total, (long)n * (n + 1) / 2);
        if (k < 4) {
            serial_work();
            CHECK_EQ(buddypool_parallel(1, region_d, NULL), 0);
        }
    }
    return 0;
}
