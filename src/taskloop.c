/* taskloop.c: how a taskloop's iterations are split into tasks, for both
 * ABIs (gomp_task.c, kmp_task.c), which make the tasks.
 *
 * n iterations, numbered 0..n-1, go to consecutive tasks in order:
 *   num_tasks(k)   min(k, n) tasks; the first n % tasks get one iteration
 *                  more than the others (n / tasks);
 *   grainsize(g)   n / g tasks (one at least), split as above, so each has
 *                  g to 2g - 1 iterations; with the strict modifier,
 *                  ceil(n / g) tasks of g, the last one the rest;
 *   neither        the ABI's default number of tasks (libgomp's is the
 *                  team's threads, libomp's ten times that), as num_tasks.
 * The caller walks the plan with bp_taskloop_count. */
#include "internal.h"

void bp_taskloop_plan(struct bp_taskloop_plan *p, uint64_t n, int sched, uint64_t param,
                      int strict, uint64_t default_tasks)
{
    p->last = 0;
    p->strict = 0;
    if (n == 0) {
        p->ntasks = p->base = p->extra = 0;
        return;
    }
    uint64_t tasks;
    if (sched == BP_TASKLOOP_GRAINSIZE) {
        uint64_t g = param > 0 ? param : 1;
        if (strict) {
            p->ntasks = n / g + (n % g != 0);
            p->base = g;
            p->extra = 0;
            p->last = n - g * (p->ntasks - 1);
            p->strict = 1;
            return;
        }
        tasks = n / g > 0 ? n / g : 1;
    } else {
        tasks = sched == BP_TASKLOOP_NUM_TASKS && param > 0 ? param : default_tasks;
        if (tasks == 0)
            tasks = 1;
        if (tasks > n)
            tasks = n;
    }
    p->ntasks = tasks;
    p->base = n / tasks;
    p->extra = n % tasks;
}
