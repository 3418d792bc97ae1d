/* gomp-active.c: active nested parallelism, compiled by gcc -fopenmp (and
 * by clang for the libomp ABI). Up to max-active-levels regions nested in
 * each other get their full teams; every thread of every level runs once,
 * the level, active-level, ancestor and team-size queries answer for every
 * enclosing level, worksharing inside the inner teams is exact, a region
 * past the active levels runs on one thread, and a team of one between two
 * active levels counts as a level of its own. Rounds repeat so that the
 * inner teams are taken again as well as made. */
#include <omp.h>
#include <string.h>

#include "gomp-check.h"

enum { A = 3, B = 2, C = 2, ROUNDS = 50, N = 100 };

static int hits[A][B][C];

/* Three active levels: A x B x C threads, each once, asking about every
 * level; a fourth level inside runs on one thread. */
static void three_levels(void)
{
    memset(hits, 0, sizeof hits);
    long sums[A][B];
    memset(sums, 0, sizeof sums);
    PRAGMA(omp parallel num_threads(A))
    {
        int a = omp_get_thread_num();
        EXPECT_EQ(omp_get_num_threads(), A, "level 1: team");
        PRAGMA(omp parallel num_threads(B))
        {
            int b = omp_get_thread_num();
            EXPECT_EQ(omp_get_num_threads(), B, "level 2: team");
            EXPECT_EQ(omp_get_active_level(), 2, "level 2: active level");
            long sum = 0;
            PRAGMA(omp parallel num_threads(C) reduction(+ : sum))
            {
                int c = omp_get_thread_num();
                EXPECT_EQ(omp_get_num_threads(), C, "level 3: team");
                EXPECT_EQ(omp_get_level(), 3, "level 3: level");
                EXPECT_EQ(omp_get_active_level(), 3, "level 3: active level");
                EXPECT_EQ(omp_in_parallel(), 1, "level 3: in parallel");
                EXPECT_EQ(omp_get_ancestor_thread_num(0), 0, "level 3: ancestor 0");
                EXPECT_EQ(omp_get_ancestor_thread_num(1), a, "level 3: ancestor 1");
                EXPECT_EQ(omp_get_ancestor_thread_num(2), b, "level 3: ancestor 2");
                EXPECT_EQ(omp_get_ancestor_thread_num(3), c, "level 3: ancestor 3");
                EXPECT_EQ(omp_get_ancestor_thread_num(4), -1, "level 3: ancestor 4");
                EXPECT_EQ(omp_get_team_size(0), 1, "level 3: team size 0");
                EXPECT_EQ(omp_get_team_size(1), A, "level 3: team size 1");
                EXPECT_EQ(omp_get_team_size(2), B, "level 3: team size 2");
                EXPECT_EQ(omp_get_team_size(3), C, "level 3: team size 3");
                EXPECT_EQ(omp_get_team_size(-1), -1, "level 3: team size -1");
                PRAGMA(omp atomic)
                hits[a][b][c]++;
                /* worksharing and barriers of the innermost team */
                PRAGMA(omp for schedule(dynamic, 3))
                for (int i = 0; i < N; i++)
                    sum += i + 1000 * a + 100 * b;
                PRAGMA(omp barrier)
                /* past max-active-levels: one thread, one more level */
                int inner_team = 0;
                PRAGMA(omp parallel num_threads(2))
                {
                    inner_team = omp_get_num_threads();
                    EXPECT_EQ(omp_get_level(), 4, "level 4: level");
                    EXPECT_EQ(omp_get_active_level(), 3, "level 4: active level");
                    EXPECT_EQ(omp_get_ancestor_thread_num(3), c, "level 4: ancestor 3");
                    EXPECT_EQ(omp_get_team_size(4), 1, "level 4: team size 4");
                }
                EXPECT_EQ(inner_team, 1, "level 4: past max-active-levels, one thread");
            }
            sums[a][b] = sum;
        }
    }
    for (int a = 0; a < A; a++)
        for (int b = 0; b < B; b++) {
            for (int c = 0; c < C; c++)
                EXPECT_EQ(hits[a][b][c], 1, "three levels: each thread once");
            EXPECT_EQ(sums[a][b], (long)N * (N - 1) / 2 + (long)N * (1000 * a + 100 * b),
                      "three levels: the inner loop's sum");
        }
}

/* A team of one between two active levels: level 2 is inactive, the
 * innermost region is active at level 3 and active level 2. */
static void serial_between(void)
{
    int seen[2][2];
    memset(seen, 0, sizeof seen);
    PRAGMA(omp parallel num_threads(2))
    {
        int a = omp_get_thread_num();
        PRAGMA(omp parallel num_threads(1))
        {
            PRAGMA(omp parallel num_threads(2))
            {
                int c = omp_get_thread_num();
                EXPECT_EQ(omp_get_num_threads(), 2, "serial between: inner team");
                EXPECT_EQ(omp_get_level(), 3, "serial between: level");
                EXPECT_EQ(omp_get_active_level(), 2, "serial between: active level");
                EXPECT_EQ(omp_get_ancestor_thread_num(1), a, "serial between: ancestor 1");
                EXPECT_EQ(omp_get_ancestor_thread_num(2), 0, "serial between: ancestor 2");
                EXPECT_EQ(omp_get_team_size(1), 2, "serial between: team size 1");
                EXPECT_EQ(omp_get_team_size(2), 1, "serial between: team size 2");
                EXPECT_EQ(omp_get_team_size(3), 2, "serial between: team size 3");
                PRAGMA(omp atomic)
                seen[a][c]++;
            }
        }
    }
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++)
            EXPECT_EQ(seen[a][c], 1, "serial between: each thread once");
}

/* One active level: the nested region runs on one thread. */
static void one_level(void)
{
    omp_set_max_active_levels(1);
    EXPECT_EQ(omp_get_max_active_levels(), 1, "max active levels set to 1");
    int inner = 0;
    PRAGMA(omp parallel num_threads(2))
    {
        /* each implicit task starts with the forking task's ICVs */
        EXPECT_EQ(omp_get_max_active_levels(), 1, "max active levels inherited");
        PRAGMA(omp parallel num_threads(2))
        {
            PRAGMA(omp atomic)
            inner += omp_get_num_threads();
        }
    }
    EXPECT_EQ(inner, 2, "one active level: inner regions of one thread");
    omp_set_nested(0);
    EXPECT_LE(omp_get_max_active_levels(), 1, "omp_set_nested(0)");
    EXPECT_EQ(omp_get_nested(), 0, "omp_get_nested after omp_set_nested(0)");
}

int main(void)
{
    check_team_size("gomp-active");
    EXPECT_GE(omp_get_supported_active_levels(), 3, "supported active levels");
    omp_set_dynamic(0);
    omp_set_max_active_levels(3);
    EXPECT_EQ(omp_get_max_active_levels(), 3, "max active levels set to 3");
    for (int r = 0; r < ROUNDS; r++) {
        three_levels();
        serial_between();
    }
    one_level();
    return check_summary("gomp-active");
}
