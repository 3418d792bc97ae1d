/* test-wrap.c: barrier episodes past 32 bits. The pool's words hold the
 * low 32 bits of the episode; this moves the episode count (a test hook)
 * as if billions of barriers had passed, then runs regions whose barriers
 * and joins cross 2^31 and 2^32, with teams of 2 and then of every thread
 * (workers started late, whose words were never used), and checks every
 * barrier: each thread's slot after it, each thread once per region. */
#include <stdatomic.h>
#include <string.h>

#include "buddypool.h"
#include "check.h"
#include "../src/internal.h"

enum { MAX_THREADS = 64, BARRIERS = 300 };

struct shared {
    atomic_int runs[MAX_THREADS];
    int phase[MAX_THREADS];
    atomic_int bad;
};

static void region(int tid, int team, void *ctx)
{
    struct shared *s = ctx;
    atomic_fetch_add(&s->runs[tid], 1);
    for (int b = 1; b <= BARRIERS; b++) {
        s->phase[tid] = b;
        buddypool_barrier();
        for (int j = 0; j < team; j++)
            if (s->phase[j] != b)
                atomic_fetch_add(&s->bad, 1);
        buddypool_barrier();
    }
}

static void run(int team, int regions)
{
    for (int r = 0; r < regions; r++) {
        static struct shared s;
        memset(&s, 0, sizeof s);
        CHECK_EQ(buddypool_parallel(team, region, &s), 0);
        for (int i = 0; i < team; i++)
            CHECK_EQ(atomic_load(&s.runs[i]), 1);
        CHECK_EQ(atomic_load(&s.bad), 0);
    }
}

int main(void)
{
    int max = buddypool_max_threads();
    CHECK_LE(max, MAX_THREADS);
    int small = max < 2 ? max : 2;
    run(small, 2); /* only the first workers start */
    /* 2^31 and 2^32 - a few hundred: the next regions' barriers cross them */
    const uint64_t marks[] = {((uint64_t)1 << 31) - 250, ((uint64_t)1 << 32) - 250,
                              ((uint64_t)3 << 32) - 250, ((uint64_t)1 << 31) * 7 - 3};
    for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++) {
        bp_pool_test_set_epoch(marks[m]);
        run(small, 3);
        run(max, 3); /* late workers join, their words untouched so far */
    }
    printf("test-wrap: barriers right across 2^31 and 2^32 episodes with %d threads\n", max);
    return 0;
}
