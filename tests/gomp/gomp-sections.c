/* gomp-sections.c: sections compiled by gcc -fopenmp (GOMP_sections_start,
 * _next, _end, _end_nowait, GOMP_parallel_sections): every section runs
 * exactly once, the barrier at the end of a sections construct holds, and
 * sections mix with loops in one region. */
#include <omp.h>
#include <string.h>

#include "gomp-check.h"

enum { REPS = 200 };

static int ran[REPS][7]; /* ran[rep][section] */
static int loop_hits[REPS];

#define SECTION_HIT(rep, k)                                                            \
    do {                                                                               \
        PRAGMA(omp atomic)                                                             \
        ran[rep][k]++;                                                                 \
    } while (0)

static void expect_once(const char *what, int rep, int sections)
{
    for (int k = 0; k < 7; k++)
        EXPECT_EQ(__atomic_load_n(&ran[rep][k], __ATOMIC_RELAXED), k < sections, what);
}

/* Orphaned sections: gcc calls GOMP_sections_start, and GOMP_sections_end
 * (a barrier) unless nowait. */
static void orphaned(void)
{
    memset(ran, 0, sizeof ran);
    memset(loop_hits, 0, sizeof loop_hits);
    PRAGMA(omp parallel)
    {
        for (int rep = 0; rep < REPS; rep++) {
            PRAGMA(omp sections)
            {
                PRAGMA(omp section)
                SECTION_HIT(rep, 0);
                PRAGMA(omp section)
                SECTION_HIT(rep, 1);
                PRAGMA(omp section)
                SECTION_HIT(rep, 2);
                PRAGMA(omp section)
                SECTION_HIT(rep, 3);
                PRAGMA(omp section)
                SECTION_HIT(rep, 4);
            }
            /* after the construct's barrier every section has run (the next
             * construct's may have started: it is nowait) */
            for (int k = 0; k < 5; k++)
                EXPECT_EQ(__atomic_load_n(&ran[rep][k], __ATOMIC_RELAXED), 1,
                          "sections, after the barrier");
            PRAGMA(omp sections nowait)
            {
                PRAGMA(omp section)
                SECTION_HIT(rep, 5);
                PRAGMA(omp section)
                SECTION_HIT(rep, 6);
            }
            PRAGMA(omp for schedule(dynamic) nowait)
            for (int i = 0; i < 10; i++) {
                PRAGMA(omp atomic)
                loop_hits[rep]++;
            }
            PRAGMA(omp sections)
            {
                PRAGMA(omp section)
                {
                    PRAGMA(omp atomic)
                    loop_hits[rep] += 100;
                }
            }
        }
    }
    for (int rep = 0; rep < REPS; rep++) {
        expect_once("sections, sections nowait", rep, 7);
        EXPECT_EQ(loop_hits[rep], 110, "a loop and one section between sections");
    }
}

/* parallel sections: gcc calls GOMP_parallel_sections, whose function takes
 * sections with GOMP_sections_next straight away. */
static void combined(void)
{
    memset(ran, 0, sizeof ran);
    for (int rep = 0; rep < REPS; rep++) {
        PRAGMA(omp parallel sections)
        {
            PRAGMA(omp section)
            SECTION_HIT(rep, 0);
            PRAGMA(omp section)
            SECTION_HIT(rep, 1);
            PRAGMA(omp section)
            SECTION_HIT(rep, 2);
        }
        expect_once("parallel sections (3)", rep, 3);
    }
    memset(ran, 0, sizeof ran);
    for (int rep = 0; rep < REPS; rep++) {
        PRAGMA(omp parallel sections num_threads(3))
        {
            PRAGMA(omp section)
            SECTION_HIT(rep, 0);
            PRAGMA(omp section)
            SECTION_HIT(rep, 1);
            PRAGMA(omp section)
            SECTION_HIT(rep, 2);
            PRAGMA(omp section)
            SECTION_HIT(rep, 3);
            PRAGMA(omp section)
            SECTION_HIT(rep, 4);
            PRAGMA(omp section)
            SECTION_HIT(rep, 5);
            PRAGMA(omp section)
            SECTION_HIT(rep, 6);
        }
        expect_once("parallel sections (7) num_threads(3)", rep, 7);
    }
    memset(ran, 0, sizeof ran);
    PRAGMA(omp parallel sections)
    {
        PRAGMA(omp section)
        SECTION_HIT(0, 0);
    }
    expect_once("parallel sections (1)", 0, 1);
}

int main(void)
{
    check_team_size("gomp-sections");
    orphaned();
    combined();
    return check_summary("gomp-sections");
}
