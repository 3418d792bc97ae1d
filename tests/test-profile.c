/* test-profile.c: known regions for the profiling tests (check-profile.py
 * runs it with BUDDY_THREAD_POOL_PROFILE=1 and reads the JSON it leaves).
 * Prints the address of each region function and the order it runs them in
 * (`sequence=`), with 2 ms of serial work before every region but the first:
 *   a  buddypool_parallel, 2 barriers and a nested region (not counted)
 *   b  buddypool_parallel_for, no barrier
 *   c  __kmpc_fork_call, one reduction and one barrier
 *   d  buddypool_parallel on a team of one, one barrier
 *   e  buddypool_parallel whose last thread arrives 20 ms late at its barrier
 *   f  an outermost __kmpc_serialized_parallel region (clang's if(0)), named
 *      by its call site in main
 * The functions are exported (the test links with -rdynamic) so dladdr
 * names them. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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
void __kmpc_serialized_parallel(void *loc, int32_t gtid);
void __kmpc_end_serialized_parallel(void *loc, int32_t gtid);
int omp_get_thread_num(void);

void region_a(int thread, int team_size, void *ctx);
void region_b(int64_t begin, int64_t end, void *ctx);
void region_c(int32_t *gtid, int32_t *btid, long *total);
void region_d(int thread, int team_size, void *ctx);
void region_e(int thread, int team_size, void *ctx);

static const char sequence[] = "abcdabcdabcdbcbcceefff";

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000L * 1000L};
    nanosleep(&ts, NULL);
}

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

void region_e(int thread, int team_size, void *ctx)
{
    if (thread == team_size - 1)
        sleep_ms(20);
    buddypool_barrier();
}

int main(void)
{
    printf("region_a=%p\nregion_b=%p\nregion_c=%p\nregion_d=%p\nregion_e=%p\nsequence=%s\n",
           (void *)region_a, (void *)region_b, (void *)region_c, (void *)region_d,
           (void *)region_e, sequence);
    printf("threads=%d\n", buddypool_max_threads());
    fflush(stdout);
    int n = buddypool_max_threads();
    for (const char *p = sequence; *p; p++) {
        if (p != sequence)
            sleep_ms(2);
        long total = 0;
        _Atomic long sum = 0;
        switch (*p) {
        case 'a':
            CHECK_EQ(buddypool_parallel(0, region_a, NULL), 0);
            break;
        case 'b':
            CHECK_EQ(buddypool_parallel_for(1000, region_b, &sum), 0);
            CHECK_EQ(atomic_load(&sum), 999L * 1000 / 2);
            break;
        case 'c':
            __kmpc_fork_call(NULL, 1, (kmpc_micro)region_c, &total);
            CHECK_EQ(total, (long)n * (n + 1) / 2);
            break;
        case 'd':
            CHECK_EQ(buddypool_parallel(1, region_d, NULL), 0);
            break;
        case 'e':
            CHECK_EQ(buddypool_parallel(0, region_e, NULL), 0);
            break;
        case 'f':
            __kmpc_serialized_parallel(NULL, 0);
            __kmpc_end_serialized_parallel(NULL, 0);
            break;
        }
    }
    return 0;
}
