/* gomp-nested.c: parallel regions inside parallel regions, compiled by
 * gcc -fopenmp. Whatever team a nested region gets (on its caller alone
 * at the default max-active-levels of one, in buddypool and libgomp; a team
 * of its own when OMP_NUM_THREADS is a list), its worksharing runs every
 * iteration once, and the loop or sections the enclosing thread is in go on
 * where they were: a nested region's loops have bounds of their own. */
#include <omp.h>
#include <string.h>

#include "gomp-check.h"

enum { OUTER = 60, INNER = 40 };

static volatile int v_outer = OUTER, v_inner = INNER;
static int hits[OUTER][INNER];
static int outer_hits[OUTER];

static void expect_all(const char *what, int want)
{
    for (int i = 0; i < OUTER; i++) {
        EXPECT_EQ(outer_hits[i], 1, what);
        for (int j = 0; j < INNER; j++)
            if (hits[i][j] != want) {
                EXPECT_EQ(hits[i][j], want, what);
                return;
            }
    }
}

#define HIT(i, j)                                                                      \
    do {                                                                               \
        PRAGMA(omp atomic)                                                             \
        hits[i][j]++;                                                                  \
    } while (0)

/* Every thread of the outer team runs a nested region. */
static void plain(int team)
{
    int inner_threads = 0, outer_threads = 0, levels_ok = 1;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp atomic)
        outer_threads++;
        PRAGMA(omp parallel)
        {
            PRAGMA(omp atomic)
            inner_threads++;
            if (omp_get_level() != 2)
                __atomic_store_n(&levels_ok, 0, __ATOMIC_RELAXED);
        }
    }
    EXPECT_EQ(outer_threads, team, "nested parallel: outer team");
    EXPECT_GE(inner_threads, team, "nested parallel: inner regions");
    EXPECT_EQ(levels_ok, 1, "nested parallel: omp_get_level() == 2 inside");
}

/* An outer dynamic loop over long indices counting down; each iteration
 * runs a nested region with loops counting up (orphaned: GOMP_loop_*,
 * combined: GOMP_parallel_loop_*) and sections. */
static void loops_in_loops(void)
{
    int outer = v_outer, inner = v_inner;
    memset(hits, 0, sizeof hits);
    memset(outer_hits, 0, sizeof outer_hits);
    PRAGMA(omp parallel)
    {
        PRAGMA(omp for schedule(dynamic, 2))
        for (long i = 7L * (outer - 1) + 5; i >= 5; i -= 7) {
            int oi = (int)((i - 5) / 7);
            PRAGMA(omp atomic)
            outer_hits[oi]++;
            PRAGMA(omp parallel)
            {
                PRAGMA(omp for schedule(guided))
                for (int j = 0; j < inner; j++)
                    HIT(oi, j);
                PRAGMA(omp sections)
                {
                    PRAGMA(omp section)
                    HIT(oi, 0);
                    PRAGMA(omp section)
                    HIT(oi, 1);
                }
            }
            PRAGMA(omp parallel for schedule(dynamic, 3))
            for (int j = 0; j < INNER; j++)
                HIT(oi, j);
            PRAGMA(omp parallel sections)
            {
                PRAGMA(omp section)
                HIT(oi, 2);
                PRAGMA(omp section)
                HIT(oi, 3);
            }
        }
    }
    /* each (i, j) twice, plus the four sections once each */
    for (int i = 0; i < OUTER; i++)
        for (int j = 0; j < 4; j++)
            hits[i][j]--;
    expect_all("nested regions in a dynamic loop", 2);
}

/* The same inside an ordered loop over unsigned long long and inside
 * sections: the enclosing construct resumes correctly. */
static void ordered_and_sections(void)
{
    int outer = v_outer, inner = v_inner;
    int order[OUTER], pos = 0;
    memset(hits, 0, sizeof hits);
    memset(outer_hits, 0, sizeof outer_hits);
    PRAGMA(omp parallel)
    {
        PRAGMA(omp for ordered schedule(dynamic))
        for (unsigned long long i = 1000; i < 1000 + 3ull * outer; i += 3) {
            int oi = (int)((i - 1000) / 3);
            PRAGMA(omp parallel for schedule(runtime))
            for (int j = 0; j < inner; j++)
                HIT(oi, j);
            PRAGMA(omp ordered)
            {
                order[pos++] = oi;
                outer_hits[oi]++;
            }
        }
        PRAGMA(omp sections)
        {
            PRAGMA(omp section)
            {
                PRAGMA(omp parallel for schedule(dynamic))
                for (int j = 0; j < INNER; j++)
                    HIT(0, j);
            }
            PRAGMA(omp section)
            {
                PRAGMA(omp parallel for schedule(dynamic))
                for (int j = 0; j < INNER; j++)
                    HIT(1, j);
            }
        }
    }
    EXPECT_EQ(pos, OUTER, "ordered loop around nested regions");
    for (int k = 0; k < pos; k++)
        if (order[k] != k) {
            EXPECT_EQ(order[k], k, "ordered loop around nested regions");
            break;
        }
    for (int j = 0; j < INNER; j++) {
        hits[0][j]--;
        hits[1][j]--;
    }
    expect_all("nested regions in an ordered loop and in sections", 1);
}

int main(void)
{
    int team = check_team_size("gomp-nested");
    plain(team);
    loops_in_loops();
    ordered_and_sections();
    return check_summary("gomp-nested");
}
