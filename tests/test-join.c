/* test-join.c: the join waits for every thread of a team, flat or tree
 * (fork.c: teams of BP_TREE_JOIN threads or more). Every thread of a team
 * writes its mark after its last synchronisation, the deeper threads of the
 * tree after some work of their own, with no barrier in the region: when
 * buddypool_parallel returns, every mark of this round must be there.
 * Team sizes around the tree's threshold and its levels (fan-out 4: 1 + 4
 * + 16 + ...), up to 64 threads, on whatever CPUs there are (explicit team
 * sizes are honoured beyond the CPUs). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buddypool.h"
#include "check.h"

enum { MAX_TEAM = 64, ROUNDS = 300 };

static _Atomic int mark[MAX_TEAM];
static int round_no;

static void body(int tid, int team, void *ctx)
{
    (void)ctx;
    CHECK_LE(team, MAX_TEAM);
    /* the threads far down the tree finish last */
    volatile uint64_t x = 0;
    for (int i = 0; i < tid * 50; i++)
        x += (uint64_t)i;
    atomic_store_explicit(&mark[tid], round_no, memory_order_relaxed);
}

int main(void)
{
    static const int sizes[] = {2, 15, 16, 17, 20, 21, 22, 37, 63, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int team = sizes[s];
        for (int r = 0; r < ROUNDS; r++) {
            round_no = (int)(s * ROUNDS) + r + 1;
            CHECK_EQ(buddypool_parallel(team, body, NULL), 0);
            for (int i = 0; i < team; i++)
                if (atomic_load_explicit(&mark[i], memory_order_relaxed) != round_no) {
                    fprintf(stderr, "FAIL: team of %d, round %d: thread %d had not finished "
                                    "at the join\n", team, r, i);
                    return 1;
                }
        }
        printf("ok: %d rounds of a team of %d\n", ROUNDS, team);
    }
    printf("test-join: passed\n");
    return 0;
}
