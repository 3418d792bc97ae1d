/* listen.c: the profiler's side of the seam (hooks.h). Each hook the core
 * calls lands here, on the thread the event happened on, and is turned into
 * what the profile, the steps, the call sites, the trace and the live
 * counters keep. This file and what it calls know of a region only what the
 * hooks hand them; they call nothing of the core.
 *
 * What is measured where (docs/profiling.md defines the figures):
 * - An outermost region is timed on its thread 0, from region_begin (after
 *   its call site is taken: a stack walk is serial time) to join_end, when
 *   every thread has arrived and its tasks are complete. team_obtained
 *   marks the time its fork spent making or growing the team.
 * - Each thread sums its barrier waits (arrive to release) and loop
 *   iterations in the outermost region it is in, and records the region's
 *   barrier episodes as steps (steps.c). A worker writes its figures in its
 *   entry of the team's block (struct team_block below) when its share ends,
 *   before it arrives at the join; thread 0 reads them all at join_end,
 *   after the join's acquire, and hands the region to profile.c.
 * - A worker that slept before its start was woken late: fork to start.
 * - An explicit task's own time is its code's, the tasks run inside it and
 *   its waits taken out (taskprof.c); a region forked inside a task does not
 *   count the tasks its thread 0 ran there into the task (the span).
 * - Waits (wait.c) add spinning and sleeping time per thread (perthread.c).
 * Nested regions call the hooks too; only the outermost one is timed, and a
 * nested team's figures are not counted (its workers' trace slices are). */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "../listeners.h"
#include "../prim.h"

/* The profiler listens (listen.c at the top sends it the hooks): set once
 * at the pool's start, before any region. */
static int listening;
/* The final report is written (the pool's shutdown): a region that still
 * begins (regions run on their caller from then on) is not timed, as the
 * profile it would go to is gone. Written and read by the shutdown's
 * thread, and by threads whose regions began after it: only they read it
 * set, and a region that began before it ends before the report. */
static _Atomic int reported;

/* A team's block: one entry per thread, on a line of its own, which that
 * thread writes before it arrives at the join and thread 0 reads after it;
 * and thread 0's own fields, written at each fork before the workers start
 * and read by them. Then the arrays of the region sample, cap of each. */
struct team_member {
    alignas(BP_LINE) int64_t wait_ns;
    int64_t joined_ns;          /* when it reached the join */
    int64_t woke_late_ns;       /* fork to start when it slept, else -1 */
    uint64_t iters;             /* BP_ITERS_UNCOUNTED: no loop counted them */
    int64_t rest_wait_ns, rest_work_ns; /* episodes past the step bound */
    const struct bp_step_rec *rec; /* its steps buffer */
};
struct team_block {
    int nested;                 /* thread 0's region is nested (bp_prof_device) */
    const void *fn;             /* the region's function (trace slices) */
    long forker;                /* its forking thread's OS thread id (tracing) */
    int64_t fork_ns;            /* its fork, for the workers' wake-up */
    int64_t *wait;              /* the sample's arrays (thread 0's, at the join) */
    uint64_t *iters;
    int64_t *joined;
    struct bp_step_view *steps;
    struct team_member members[];
};

/* ---- regions, thread 0 ----------------------------------------------------- */

/* A thread that runs a target region on the host inside regions of its own
 * starts afresh at level 0 there (fork.c): the regions it forks in it are
 * nested in the region it is timing, as any nested region, and their
 * teams' shares and barriers are not counted; the level each hook gets is
 * counted from the enclosing regions' (outer_level). */
void bp_prof_device(int level) { bp_lt.device_base += level; }

static inline int outer_level(const struct bp_listen_thread *lt, int level)
{
    return level + lt->device_base;
}

void bp_prof_region_begin(struct bp_hook_span *s, int level, const void *fn, int requested)
{
    (void)requested;
    struct bp_listen_thread *lt = &bp_lt;
    s->outer_ns = lt->task_inner_ns; /* given back at its end */
    /* relaxed: see `reported` */
    if (outer_level(lt, level) != 1 || atomic_load_explicit(&reported, memory_order_relaxed))
        return;
    bp_site_take(lt); /* before the clock starts: any walk is serial time */
    lt->timed = 1;
    lt->fn = fn;
    lt->start_ns = bp_now_ns(); /* the pool's growth is part of the region */
    lt->obtain_ns = 0;
    lt->wait_ns = 0;
    lt->iters = 0;
    lt->iters_counted = 0;
    bp_steps_begin(lt, lt->start_ns);
}

void bp_prof_team_obtained(int level)
{
    if (outer_level(&bp_lt, level) == 1 && bp_lt.timed)
        bp_lt.obtain_ns = bp_now_ns() - bp_lt.start_ns;
}

void bp_prof_fork(void *team, int level, int team_size, const void *fn)
{
    struct team_block *b = team;
    struct bp_listen_thread *lt = &bp_lt;
    b->fn = fn;
    b->nested = outer_level(lt, level) != 1;
    if (bp_tracing)
        b->forker = bp_trace_tid(lt);
    b->fork_ns = !b->nested && lt->timed ? lt->start_ns : 0;
}

void bp_prof_join_begin(int level)
{
    if (outer_level(&bp_lt, level) == 1 && bp_lt.timed)
        bp_lt.joined_ns = bp_now_ns();
}

/* The region of thread 0 (lt) that ended at end_ns on a team of n threads,
 * with their figures in b (NULL for a team of one), into s. */
static void sample_of(struct bp_region_sample *s, struct bp_listen_thread *lt,
                      struct team_block *b, int n, int64_t end_ns, int64_t *one_wait,
                      uint64_t *one_iters, int64_t *one_joined, struct bp_step_view *one_steps)
{
    bp_zero_fixed(s, sizeof *s); /* moves, not the rep stosq of a compound literal */
    s->fn = lt->fn;
    s->start_ns = lt->start_ns;
    s->end_ns = end_ns;
    s->threads = n;
    s->barriers = lt->barriers + 1;
    s->last_at_join = -1;
    s->obtain_ns = lt->obtain_ns;
    s->site = lt->site_frames;
    s->nsite = lt->site_nframes;
    s->site_src = lt->site_loc;
    uint64_t iters0 = lt->iters_counted ? lt->iters : BP_ITERS_UNCOUNTED;
    if (b == NULL) { /* a team of one: thread 0 alone, no wait */
        *one_wait = 0;
        *one_iters = iters0;
        *one_joined = end_ns;
        *one_steps = bp_steps_view(lt);
        s->thread_wait = one_wait;
        s->thread_iters = one_iters;
        s->thread_joined = one_joined;
        s->thread_steps = one_steps;
        return;
    }
    int64_t joined_ns = lt->joined_ns;
    s->wait_t0_ns = lt->wait_ns + (end_ns - joined_ns);
    s->wait_ns = s->wait_t0_ns;
    s->last_at_join = 0;
    int64_t last_ns = joined_ns;
    b->wait[0] = s->wait_t0_ns;
    b->iters[0] = iters0;
    b->joined[0] = joined_ns;
    b->steps[0] = bp_steps_view(lt);
    for (int i = 1; i < n; i++) {
        const struct team_member *m = &b->members[i];
        b->wait[i] = m->wait_ns + (end_ns - m->joined_ns);
        b->iters[i] = m->iters;
        b->joined[i] = m->joined_ns;
        /* the team passed the same episodes: thread 0's count is each
         * worker's; the rest sums are read only when there were some */
        b->steps[i] = (struct bp_step_view){m->rec, lt->barriers, 0, 0, 0};
        if (lt->barriers > (uint32_t)bp_config.profile_steps) {
            b->steps[i].rest_wait_ns = m->rest_wait_ns;
            b->steps[i].rest_work_ns = m->rest_work_ns;
        }
        s->wait_ns += b->wait[i];
        if (m->joined_ns > last_ns) {
            last_ns = m->joined_ns;
            s->last_at_join = i;
        }
        if (m->woke_late_ns >= 0) {
            s->woken++;
            s->wake_sum_ns += m->woke_late_ns;
            if (m->woke_late_ns > s->wake_max_ns)
                s->wake_max_ns = m->woke_late_ns;
        }
    }
    s->thread_wait = b->wait;
    s->thread_iters = b->iters;
    s->thread_joined = b->joined;
    s->thread_steps = b->steps;
}

void bp_prof_join_end(struct bp_hook_span *span, void *team, int level, int team_size)
{
    struct bp_listen_thread *lt = &bp_lt;
    lt->task_inner_ns = span->outer_ns; /* as it was when the region began */
    if (outer_level(lt, level) != 1 || !lt->timed)
        return;
    lt->timed = 0;
    int64_t end_ns = bp_now_ns();
    int64_t wait1, joined1;
    uint64_t iters1;
    struct bp_step_view steps1;
    struct bp_region_sample s;
    sample_of(&s, lt, team_size > 1 ? team : NULL, team_size, end_ns, &wait1, &iters1,
              &joined1, &steps1);
    bp_profile_region(lt, &s);
    bp_steps_end(lt);
    if (bp_tracing) {
        bp_trace_event(lt, BP_TRACE_REGION, lt->fn, lt->start_ns, end_ns);
        if (team_size > 1)
            bp_trace_event(lt, BP_TRACE_JOIN, NULL, lt->joined_ns, end_ns);
    }
}

/* ---- a worker's share -------------------------------------------------------- */

void bp_prof_worker_idle(void) { bp_lt.slept = 0; }

void bp_prof_share_begin(void *team, int level, int tid, int help)
{
    /* thread 0's call back to help with its tasks is part of its region,
     * whose figures go on */
    struct bp_listen_thread *lt = &bp_lt;
    struct team_block *b = team;
    lt->share_timed = !help && !b->nested;
    lt->share_nested = b->nested;
    if (!lt->share_timed)
        return;
    int slept = lt->slept;
    lt->woke_ns = slept || bp_tracing ? bp_now_ns() : 0;
    b->members[tid].woke_late_ns = slept ? lt->woke_ns - b->fork_ns : -1;
    lt->wait_ns = 0;
    lt->iters = 0;
    lt->iters_counted = 0;
    bp_steps_begin(lt, 0); /* a worker's own time before its rest episodes is not used */
}

void bp_prof_share_end(void *team, int level, int tid, int help)
{
    struct bp_listen_thread *lt = &bp_lt;
    lt->share_nested = 0;
    if (!lt->share_timed)
        return;
    struct team_block *b = team;
    struct team_member *m = &b->members[tid];
    int64_t joined_ns = bp_now_ns();
    if (bp_tracing)
        bp_trace_served(lt, b->fn, b->forker, lt->woke_ns, joined_ns);
    m->joined_ns = joined_ns;
    m->wait_ns = lt->wait_ns;
    m->iters = lt->iters_counted ? lt->iters : BP_ITERS_UNCOUNTED;
    m->rec = lt->steps.rec;
    if (lt->barriers > (uint32_t)bp_config.profile_steps) {
        m->rest_wait_ns = lt->steps.rest_wait_ns;
        m->rest_work_ns = lt->steps.rest_work_ns;
    }
    bp_steps_end(lt);
}

/* ---- barriers, loops, tasks ---------------------------------------------------- */

/* Every thread of an outermost team (a team of one too) records each
 * episode, arrival and release, as a step of its region and adds its wait.
 * The barriers of a nested team are not the outermost region's steps, and
 * their waits are not counted. */
static inline int outermost_barrier(const struct bp_listen_thread *lt, int level)
{
    return outer_level(lt, level) == 1 && !lt->share_nested;
}

int64_t bp_prof_barrier_arrive(int level, int team_size)
{
    return outermost_barrier(&bp_lt, level) && team_size > 1 ? bp_now_ns() : 0;
}

void bp_prof_barrier_release(int level, int team_size, int64_t arrived_ns)
{
    struct bp_listen_thread *lt = &bp_lt;
    if (!outermost_barrier(lt, level))
        return;
    int64_t now = bp_now_ns();
    if (team_size == 1) { /* no wait: one clock read serves for both */
        bp_steps_record(lt, now, now);
        return;
    }
    lt->wait_ns += now - arrived_ns;
    bp_steps_record(lt, arrived_ns, now);
    if (bp_tracing)
        bp_trace_event(lt, BP_TRACE_BARRIER, NULL, arrived_ns, now);
}

void bp_prof_iterations(uint64_t n)
{
    bp_lt.iters += n;
    bp_lt.iters_counted = 1;
}

void bp_prof_task_begin(struct bp_hook_span *s)
{
    s->outer_ns = bp_lt.task_inner_ns;
    bp_lt.task_inner_ns = 0;
    s->start_ns = bp_now_ns();
}

void bp_prof_task_end(struct bp_hook_span *s, const void *fn)
{
    struct bp_listen_thread *lt = &bp_lt;
    int64_t end = bp_now_ns();
    bp_taskprof_record(fn, end - s->start_ns - lt->task_inner_ns);
    lt->task_inner_ns = s->outer_ns + (end - s->start_ns);
    if (bp_tracing)
        bp_trace_event(lt, BP_TRACE_TASK, fn, s->start_ns, end);
}

/* A wait is not the waiting task's own time (the tasks run meanwhile add
 * theirs, which the whole wait replaces). */
void bp_prof_task_wait_begin(struct bp_hook_span *s)
{
    s->outer_ns = bp_lt.task_inner_ns;
    s->start_ns = bp_now_ns();
}

void bp_prof_task_wait_end(struct bp_hook_span *s)
{
    bp_lt.task_inner_ns = s->outer_ns + (bp_now_ns() - s->start_ns);
}

/* ---- waits ---------------------------------------------------------------------- */

/* The calling thread's statistics: a worker's own, the callers' shared by
 * the threads that fork regions, which may wait at once (relaxed: counts). */
static struct bp_wait_stats *waits(void)
{
    return bp_lt.waits != NULL ? bp_lt.waits : bp_waits_callers();
}

void bp_prof_wait_spun(int64_t since_ns)
{
    atomic_fetch_add_explicit(&waits()->spin_ns, bp_now_ns() - since_ns, memory_order_relaxed);
}

int64_t bp_prof_wait_sleep(int64_t since_ns)
{
    int64_t now = bp_now_ns();
    struct bp_wait_stats *w = waits();
    atomic_fetch_add_explicit(&w->spin_ns, now - since_ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&w->sleeps, 1, memory_order_relaxed);
    bp_lt.slept = 1;
    return now;
}

void bp_prof_wait_woken(int64_t slept_ns)
{
    atomic_fetch_add_explicit(&waits()->sleep_ns, bp_now_ns() - slept_ns, memory_order_relaxed);
}

void bp_prof_wait_wake(void)
{
    atomic_fetch_add_explicit(&waits()->wakes, 1, memory_order_relaxed);
}

void bp_prof_site(const void *ra, const char *src)
{
    bp_lt.site_ra = ra;
    bp_lt.site_src = src;
}

/* ---- the process ------------------------------------------------------------------- */

int bp_prof_start(int max_threads)
{
    bp_trace_init(); /* before the profile, whose clock reads it needs */
    bp_profile_init(max_threads);
    if (!bp_profiling)
        return 0;
    if (bp_waits_make(max_threads) != 0)
        bp_warn("profile: out of memory for the threads' wait figures; they are not kept");
    listening = 1;
    if (bp_config.profile)
        bp_dump_signal_start(bp_profile_dump, bp_profile_end);
    return 1;
}

void bp_prof_thread_begin(int worker)
{
    struct bp_listen_thread *lt = &bp_lt;
    lt->worker = worker;
    if (!listening)
        return;
    lt->waits = bp_waits_begin(worker);
    bp_steps_begin(lt, 0); /* its buffer, made once */
    bp_steps_end(lt);
    bp_waits_set_rec(worker, lt->steps.rec);
}

void bp_prof_thread_end(void)
{
    struct bp_listen_thread *lt = &bp_lt;
    if (lt->steps.rec == NULL)
        return;
    bp_waits_set_rec(lt->worker, NULL);
    bp_steps_worker_free(lt->steps.rec);
    lt->steps.rec = NULL;
}

int bp_prof_team_resize(void **block, int cap)
{
    if (!listening)
        return 1;
    size_t head = (offsetof(struct team_block, members) + BP_LINE - 1) / BP_LINE * BP_LINE;
    size_t bytes = head + sizeof(struct team_member) * (size_t)cap;
    struct team_block *b = aligned_alloc(BP_LINE, bytes);
    int64_t *wait = calloc((size_t)cap, sizeof *wait);
    uint64_t *iters = calloc((size_t)cap, sizeof *iters);
    int64_t *joined = calloc((size_t)cap, sizeof *joined);
    struct bp_step_view *steps = calloc((size_t)cap, sizeof *steps);
    if (b == NULL || wait == NULL || iters == NULL || joined == NULL || steps == NULL) {
        free(b);
        free(wait);
        free(iters);
        free(joined);
        free(steps);
        return 0;
    }
    memset(b, 0, bytes);
    *b = (struct team_block){.wait = wait, .iters = iters, .joined = joined, .steps = steps};
    bp_prof_team_free(*block);
    *block = b;
    return 1;
}

void bp_prof_team_free(void *block)
{
    struct team_block *b = block;
    if (b == NULL)
        return;
    free(b->wait);
    free(b->iters);
    free(b->joined);
    free(b->steps);
    free(b);
}

/* fork(): the forking thread holds the profile's lock around it, unless it
 * is inside a region, where it may hold it already, or its thread 0 does
 * and waits for it: fork() from a region gives a child that must not start
 * regions (as with libgomp). */
static int atfork_locked;

void bp_prof_atfork_prepare(int in_region)
{
    if (!in_region) {
        bp_profile_lock();
        atfork_locked = 1;
    }
}

void bp_prof_atfork_parent(void)
{
    if (atfork_locked) {
        atfork_locked = 0;
        bp_profile_unlock();
    }
}

void bp_prof_atfork_child(void)
{
    atfork_locked = 0;
    bp_profile_lock_fork_child();
    struct bp_listen_thread *lt = &bp_lt;
    bp_waits_fork_child(lt->steps.rec);
    bp_profile_fork_child(); /* the parent reports its own regions */
    if (bp_profiling)
        bp_steps_fork_child(lt);
    if (bp_tracing)
        bp_trace_free(lt); /* and writes its own trace */
}

int bp_prof_exit_busy(void) { return bp_profile_lock_held(); }

void bp_prof_exit_in_region(void)
{
    if (!bp_profiling)
        return;
    bp_profile_lock();
    bp_profile_report(&bp_lt, 0);
    bp_profile_unlock();
}

void bp_prof_exit_begin(void)
{
    bp_dump_signal_stop(); /* its dumps take the profile's lock */
}

void bp_prof_exit_abandon(void)
{
    if (bp_profiling)
        bp_warn("profile not reported: a region was still running when the pool shut down");
    bp_live_unlink();
}

int bp_prof_exit_lock(const struct timespec *deadline)
{
    if (bp_profile_lock_timed(deadline))
        return 1;
    bp_prof_exit_abandon();
    return 0;
}

void bp_prof_exit_report(void)
{
    struct bp_listen_thread *lt = &bp_lt;
    bp_profile_report(lt, 1);
    /* relaxed: see its definition */
    atomic_store_explicit(&reported, 1, memory_order_relaxed);
    bp_steps_shutdown(lt);
    bp_waits_free(); /* the workers are joined; the library may be unloaded */
    bp_profile_unlock();
}

/* ---- the profile's calls (buddypool.h; life.c takes them) ---------------------- */

int bp_prof_profile_phase(const char *name) { return bp_profile_phase(name); }

int bp_prof_profile_reset(void) { return bp_profile_reset(); }

int bp_prof_profile_write(FILE *out) { return bp_profile_write(out); }
