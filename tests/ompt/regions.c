/* regions.c: parallel regions for the OMPT tests (tests/ompt): 50 regions
 * of 2 threads, a region of 2 whose threads each fork a nested region of 2,
 * a region of one thread (if(0)), then omp_control_tool. Prints what a tool
 * must have seen:
 *   REGIONS regions=N implicit=N control=R
 * implicit counts every thread of every region (its implicit task). */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

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
    int one = 0;
#pragma omp parallel if (one)
    {
        atomic_fetch_add(&implicit, 1);
        atomic_fetch_add(&regions, 1);
    }
    int control = &omp_control_tool != NULL ? omp_control_tool(CONTROL_FLUSH, 1, NULL) : -2;
    printf("REGIONS regions=%ld implicit=%ld control=%d\n", atomic_load(&regions),
           atomic_load(&implicit), control);
    return 0;
}
