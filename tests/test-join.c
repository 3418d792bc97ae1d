/* test-join.c: the fork starts and the join waits for every thread of a
 * team, flat or tree (fork.c: teams of BP_TREE_JOIN threads or more).
 *
 * Fork: every thread of every region runs its body exactly once, with its
 * own number, the team's size and the region's context (a pointer through
 * buddypool_parallel; an inline copy through __kmpc_fork_call, whose
 * arguments a tree's inner workers pass on to their children). Join: every
 * thread writes its mark after its last synchronisation, the deeper threads
 * of the tree after some work of their own, with no barrier in the region:
 * when the region returns, every mark of this round must be there.
 * Team sizes around the tree's threshold and its levels (fan-out 4: 1 + 4
 * + 16 + ...), up to 64 threads, on whatever CPUs there are (explicit team
 * sizes are honoured beyond the CPUs).
 *
 * With the argument "spread" (run under OMP_PROC_BIND=spread), it checks
 * that every thread of a tree-started team got the place partition that
 * spread gives it: thread i of n over c places, c < n, has the one place
 * i * c / n. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buddypool.h"
#include "check.h"

/* The libomp ABI, as clang calls it. */
typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);
void __kmpc_fork_call(void *loc, int32_t argc, kmpc_micro microtask, ...);
void __kmpc_push_num_threads(void *loc, int32_t gtid, int32_t num_threads);
int32_t __kmpc_global_thread_num(void *loc);
int omp_get_num_places(void);
int omp_get_partition_num_places(void);
void omp_get_partition_place_nums(int *place_nums);

enum { MAX_TEAM = 64, ROUNDS = 300 };

static _Atomic int mark[MAX_TEAM];
static _Atomic int ran[MAX_TEAM];
static _Atomic int wrong;
static int round_no;
/* Each round's context in a place of its own: a worker handed an earlier
 * round's context sees an earlier round number. */
static struct region {
    int round, team;
} regions[ROUNDS];
static int round_cell[ROUNDS];

static void finish(int tid)
{
    /* the threads far down the tree finish last */
    volatile uint64_t x = 0;
    for (int i = 0; i < tid * 50; i++)
        x += (uint64_t)i;
    atomic_fetch_add_explicit(&ran[tid], 1, memory_order_relaxed);
    atomic_store_explicit(&mark[tid], round_no, memory_order_relaxed);
}

static void body(int tid, int team, void *ctx)
{
    const struct region *r = ctx;
    if (team > MAX_TEAM || tid < 0 || tid >= team || r->round != round_no || r->team != team) {
        atomic_fetch_add(&wrong, 1);
        return;
    }
    finish(tid);
}

/* Two arguments by value-pointer: the runtime copies them inline. */
static void micro(int32_t *gtid, int32_t *btid, int *round, int *team)
{
    (void)gtid;
    int tid = *btid;
    if (tid < 0 || tid >= *team || tid >= MAX_TEAM || *round != round_no) {
        atomic_fetch_add(&wrong, 1);
        return;
    }
    finish(tid);
}

/* Every thread ran once this round and had finished at the join. */
static int check_round(const char *how, int team, int r)
{
    for (int i = 0; i < team; i++) {
        int m = atomic_load_explicit(&mark[i], memory_order_relaxed);
        int n = atomic_exchange_explicit(&ran[i], 0, memory_order_relaxed);
        if (m != round_no || n != 1) {
            fprintf(stderr, "FAIL: %s, team of %d, round %d: thread %d ran %d times and had "
                            "%sfinished at the join\n", how, team, r, i, n,
                    m == round_no ? "" : "not ");
            return 0;
        }
    }
    if (atomic_load(&wrong) != 0) {
        fprintf(stderr, "FAIL: %s, team of %d, round %d: %d threads saw a wrong number, team "
                        "or context\n", how, team, r, atomic_load(&wrong));
        return 0;
    }
    return 1;
}

static int part_first[MAX_TEAM], part_count[MAX_TEAM];

static void note_partition(int tid, int team, void *ctx)
{
    (void)team;
    (void)ctx;
    int n = omp_get_partition_num_places();
    part_count[tid] = n;
    int nums[4096];
    if (n >= 1 && n <= 4096) {
        omp_get_partition_place_nums(nums);
        part_first[tid] = nums[0];
    }
}

static int check_spread(void)
{
    int places = omp_get_num_places();
    CHECK_GE(places, 1);
    for (int team = 16; team <= MAX_TEAM; team += 7) {
        if (places >= team)
            continue; /* the check below is for more threads than places */
        memset(part_count, 0, sizeof part_count);
        CHECK_EQ(buddypool_parallel(team, note_partition, NULL), 0);
        for (int i = 0; i < team; i++) {
            CHECK_EQ(part_count[i], 1);
            CHECK_EQ(part_first[i], (int)((int64_t)i * places / team));
        }
        printf("ok: spread partitions of a team of %d over %d places\n", team, places);
    }
    printf("test-join spread: passed\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "spread") == 0)
        return check_spread();
    static const int sizes[] = {2, 15, 16, 17, 20, 21, 22, 37, 63, 64};
    int32_t gtid = __kmpc_global_thread_num(NULL);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int team = sizes[s];
        for (int r = 0; r < ROUNDS; r++) {
            round_no = (int)(s * ROUNDS) + r + 1;
            regions[r] = (struct region){round_no, team};
            CHECK_EQ(buddypool_parallel(team, body, &regions[r]), 0);
            if (!check_round("buddypool_parallel", team, r))
                return 1;
            round_cell[r] = round_no;
            __kmpc_push_num_threads(NULL, gtid, team);
            __kmpc_fork_call(NULL, 2, (kmpc_micro)micro, &round_cell[r], &team);
            if (!check_round("__kmpc_fork_call", team, r))
                return 1;
        }
        printf("ok: %d rounds of a team of %d, each way\n", ROUNDS, team);
    }
    printf("test-join: passed\n");
    return 0;
}
