/* regions.c: parallel regions for the OMPT tests (tests/ompt): 50 regions
 * of 2 threads, a region of 2 whose threads each fork a nested region of 2,
 * a host teams construct of 2 teams that each fork a region of 2, a region
 * of one thread (if(0)), then omp_control_tool. Prints what a tool must
 * have seen:
 *   REGIONS regions=N implicit=N control=R leagues=L league_teams=N
 * implicit counts every thread of every region (its implicit task), the
 * league's teams apart (each an initial task). */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* gcc 12's omp.h and libgomp lack omp_control_tool (OpenMP 5.0); clang's
 * has it. Weak: on libgomp with buddypool preloaded, buddypool's is found
 * at load time; on libgomp alone there is none (no tool: -2). */
#ifndef __clang__
int omp_control_tool(int command, int modifier, void *arg) __attribute__((weak));
#endif
enum { CONTROL_FLUSH = 3 }; /* omp_control_tool_flush */

int main(void)
{
    static _Atomic long implicit, regions;
    omp_set_max_active_levels(2);
    for (int i = 0; i < 50; i++) {
#pragma omp parallel num_threads(2)
        {
            atomic_fetch_add(&implicit, 1);
#pragma omp single
            atomic_fetch_add(&regions, 1);
        }
    }
#pragma omp parallel num_threads(2)
    {
        atomic_fetch_add(&implicit, 1);
#pragma omp single
        atomic_fetch_add(&regions, 1);
#pragma omp parallel num_threads(2)
        {
            atomic_fetch_add(&implicit, 1);
#pragma omp single
            atomic_fetch_add(&regions, 1);
        }
    }
    /* a host teams construct: a league of 2 teams, each forking a region
     * (not with REGIONS_NO_TEAMS set: the libomp reference run, as libomp
     * runs a league's teams at once, each a region of its own beside the
     * league, with a barrier at its end, which the test does not model) */
    static _Atomic long league_teams;
    int leagues = getenv("REGIONS_NO_TEAMS") == NULL;
    if (leagues) {
#pragma omp teams num_teams(2)
        {
            atomic_fetch_add(&league_teams, 1);
#pragma omp parallel num_threads(2)
            {
                atomic_fetch_add(&implicit, 1);
#pragma omp single
                atomic_fetch_add(&regions, 1);
            }
        }
    }
    int one = 0;
#pragma omp parallel if (one)
    {
        atomic_fetch_add(&implicit, 1);
        atomic_fetch_add(&regions, 1);
    }
    int control = &omp_control_tool != NULL ? omp_control_tool(CONTROL_FLUSH, 1, NULL) : -2;
    printf("REGIONS regions=%ld implicit=%ld control=%d leagues=%d league_teams=%ld\n",
           atomic_load(&regions), atomic_load(&implicit), control, leagues,
           atomic_load(&league_teams));
    return 0;
}
