/* test-wrap.c: barrier episodes past 32 bits. The pool's words hold the
 * low 32 bits of the episode; this moves the episode count (a test hook)
 * as if billions of barriers had passed, then runs regions whose barriers
 * and joins cross 2^31 and 2^32, with teams of 2 and then of every thread
 * (workers started late, whose words were never used), and checks every
 * barrier: each thread's slot after it, each thread once per region. */
#include "barrier-check.h"
#include "../src/internal.h"

enum { BARRIERS = 300 };

static void run(int team, int regions)
{
    for (int r = 0; r < regions; r++)
        barrier_check_run(team, BARRIERS, NULL);
}

int main(void)
{
    int max = buddypool_max_threads();
    CHECK_LE(max, BC_MAX_THREADS);
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
