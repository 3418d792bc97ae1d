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
 * The caller walks the plan with bp_taskloop_count.
 *
 * Running the plan's tasks (bp_taskloop_lazy): a taskloop in a taskgroup
 * (its own, unless nogroup) whose tasks are deferred, in a team of several
 * threads. Making every task up front and queueing it would hand most of
 * them, one by one, to other threads (a line moved per task), and fill the
 * maker's queue so that the rest run on it anyway. Instead, tasks are run
 * by lazy binary splitting: the thread holding a range of the plan's tasks
 * runs them in order, each as an included task on its stack (a task may
 * run at once where it is made, the task scheduling point of its making),
 * and whenever its own queue is empty it first splits the upper half of
 * what is left off into a task of its own, a range task, that a thread
 * looking for work takes and runs the same way. Only ranges cross threads,
 * about log2(tasks) per thread that joins in; a thread working alone makes
 * one range task per split and runs the tasks at the cost of included
 * ones. What the taskloop's tasks see is as before: each runs once, on its
 * own copy of the data, with the iterations the plan gives it; they are
 * children of a range task or of the encountering task, all in the
 * taskgroup, whose end waits for them and for their reductions; the
 * encountering task stays in the taskgroup's wait until all are done, so
 * the data its ABI copies each task's from stays alive. */
#include <stdalign.h>
#include <stdlib.h>

#include "../internal.h"
#include "taskteam.h"

/* The first iteration of task k of the plan. */
static uint64_t plan_first(const struct bp_taskloop_plan *p, uint64_t k)
{
    return p->strict ? k * p->base : k * p->base + (k < p->extra ? k : p->extra);
}

/* A range task's data: tasks lo..hi-1 of the run's plan. */
struct range {
    const struct bp_taskloop_run *run;
    uint64_t lo, hi;
};

static void run_range(struct bp_thread *t, const struct bp_taskloop_run *r, uint64_t lo,
                      uint64_t hi);

static void range_body(struct bp_task *task)
{
    const struct range *g = bp_task_payload(task);
    run_range(bp_self(), g->run, g->lo, g->hi);
}

/* Split tasks lo..hi-1 off into a range task, queued on t. */
static void spawn_range(struct bp_thread *t, const struct bp_taskloop_run *r, uint64_t lo,
                        uint64_t hi)
{
    struct bp_task *task = bp_task_new(sizeof(struct range), alignof(struct range), range_body,
                                       0, r->fn);
    struct range *g = bp_task_payload(task);
    g->run = r;
    g->lo = lo;
    g->hi = hi;
    bp_task_submit(t, task, 1);
}

/* Run tasks lo..hi-1 of r on t, each included, splitting the upper half of
 * the rest off whenever t's queue is empty. */
static void run_range(struct bp_thread *t, const struct bp_taskloop_run *r, uint64_t lo,
                      uint64_t hi)
{
    /* the tasks' data, one copy at a time: on the stack when it fits */
    alignas(64) char small[512];
    void *scratch = small;
    if (r->scratch_size > sizeof small || r->scratch_align > 64) {
        size_t align = r->scratch_align > sizeof(void *) ? r->scratch_align : sizeof(void *);
        if (posix_memalign(&scratch, align, r->scratch_size) != 0)
            bp_fatal("taskloop: a block of %zu bytes: out of memory", r->scratch_size);
    }
    while (lo < hi) {
        if (bp_config.cancellation && bp_task_cancelled(t))
            break; /* the rest are discarded (cancel.c) */
        if (hi - lo > 1 && bp_task_queue_empty(t)) {
            uint64_t mid = lo + (hi - lo + 1) / 2;
            spawn_range(t, r, mid, hi);
            hi = mid;
        }
        r->task(t, r, scratch, lo, plan_first(&r->plan, lo), bp_taskloop_count(&r->plan, lo));
        lo++;
    }
    if (scratch != small)
        free(scratch);
}

void bp_taskloop_lazy(struct bp_thread *t, const struct bp_taskloop_run *r)
{
    run_range(t, r, 0, r->plan.ntasks);
}

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
