/* teams.c: drives teams.mlir, the host teams construct as MLIR lowers it,
 * linked with buddypool alone and with libomp (which validates the test).
 * For leagues of 1 to 4 teams (MLIR asks num_teams(n: n), whose lower
 * bound libomp honours beyond the CPUs) and loops of 0 to 1001 iterations: every iteration runs once,
 * on the team OpenMP's distribute schedule gives it (balanced blocks in
 * team order; chunks of 3 dealt round robin), and in the composite
 * distribute + worksharing loop, each team's block is split over the
 * threads of its region in balanced blocks in thread order. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

/* From the OpenMP API (no omp.h: the test links no OpenMP header). */
int omp_get_team_num(void);
int omp_get_num_teams(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);

void teams_distribute(int32_t n, int32_t nt);
void teams_distribute_chunked(int32_t n, int32_t nt);
void teams_distribute_parallel(int32_t n, int32_t nt);

enum { MAXN = 1001 };

static _Atomic int hits[MAXN];
static _Atomic int team_of[MAXN], league_of[MAXN], thread_of[MAXN], threads_of[MAXN];
static int32_t limit_n;

void visit(int32_t i)
{
    CHECK(i >= 0 && i < limit_n);
    atomic_fetch_add_explicit(&hits[i], 1, memory_order_relaxed);
    atomic_store_explicit(&team_of[i], omp_get_team_num(), memory_order_relaxed);
    atomic_store_explicit(&league_of[i], omp_get_num_teams(), memory_order_relaxed);
    atomic_store_explicit(&thread_of[i], omp_get_thread_num(), memory_order_relaxed);
    atomic_store_explicit(&threads_of[i], omp_get_num_threads(), memory_order_relaxed);
}

static void clear(int32_t n)
{
    limit_n = n;
    for (int i = 0; i < MAXN; i++)
        atomic_store_explicit(&hits[i], 0, memory_order_relaxed);
}

/* The block of 0..n-1 that member k of m gets from a balanced static
 * split: the first n % m members get one iteration more. */
static int block_owner(int32_t i, int32_t n, int m)
{
    int32_t q = n / m, r = n % m;
    return i < r * (q + 1) ? i / (q + 1) : r + (i - r * (q + 1)) / q;
}

static int32_t block_first(int k, int32_t n, int m)
{
    int32_t q = n / m, r = n % m;
    return k * q + (k < r ? k : r);
}

static void check_once(int32_t n, int teams)
{
    for (int32_t i = 0; i < n; i++) {
        CHECK_EQ(atomic_load(&hits[i]), 1);
        CHECK_EQ(atomic_load(&league_of[i]), teams);
    }
}

int main(void)
{
    static const int32_t sizes[] = {0, 1, 2, 3, 5, 7, 100, 1001};
    for (int nt = 1; nt <= 4; nt++) {
        int teams = nt;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int32_t n = sizes[s];
            clear(n);
            teams_distribute(n, nt);
            check_once(n, teams);
            for (int32_t i = 0; i < n; i++)
                CHECK_EQ(atomic_load(&team_of[i]), block_owner(i, n, teams));

            clear(n);
            teams_distribute_chunked(n, nt);
            check_once(n, teams);
            for (int32_t i = 0; i < n; i++)
                CHECK_EQ(atomic_load(&team_of[i]), (i / 3) % teams);

            clear(n);
            teams_distribute_parallel(n, nt);
            check_once(n, teams);
            for (int32_t i = 0; i < n; i++) {
                int team = block_owner(i, n, teams);
                CHECK_EQ(atomic_load(&team_of[i]), team);
                int32_t first = block_first(team, n, teams);
                int32_t len = block_first(team + 1, n, teams) - first;
                int nth = atomic_load(&threads_of[i]);
                CHECK_EQ(atomic_load(&thread_of[i]), block_owner(i - first, len, nth));
            }
        }
    }
    printf("mlir teams: leagues of 1 to 4 teams asked, every iteration once, "
           "distribute's blocks and chunks exact\n");
    return 0;
}
