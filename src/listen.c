/* listen.c: the switchboard behind the seam. The core calls the hooks of
 * hooks.h; each hook that has a listener lands here and is handed to every
 * listener that is on, in a fixed order: the profiler (profile/listen.c),
 * then the OpenMP tool interface (ompt/), which sees a region's begin
 * after the profiler started timing it and its end before the profiler
 * stops (the tool's callbacks are the program's time, as a tool is).
 * Whether each listens is settled once, when the pool starts (bp_hook_start,
 * before any region), and bp_listening, the one flag the core's inline
 * hooks test, is set when any does. The listeners' sides are declared in
 * listeners.h; none of them calls another, and the core calls none of them
 * but through here.
 *
 * A hook's return value (a barrier's arrival time, a sleep's start) is the
 * profiler's: the core hands it back unchanged to the hook that ends the
 * span. */
#include <stdatomic.h>
#include <stdlib.h>

#include "listeners.h"

#ifndef BP_NO_PROFILER
int bp_listening;
#endif
/* relaxed: a hint to the ABI entries, set once when the pool starts (it
 * stays 1 until then: the first region's entry runs before) */
_Atomic int bp_listen_sites = 1;
/* the profiler listens, a tool is started: set once at the start, before
 * any region */
static int prof, ompt;

/* A team's block: each listener's own (NULL for one that does not
 * listen), made with the team. */
struct board_block {
    void *prof, *ompt;
};
static void *prof_block(void *b) { return b != NULL ? ((struct board_block *)b)->prof : NULL; }
static void *ompt_block(void *b) { return b != NULL ? ((struct board_block *)b)->ompt : NULL; }

/* ---- the events: the core's inline hooks call these while bp_listening ---- */

void bp_listen_region_begin(struct bp_hook_span *s, int level, const void *fn, int requested)
{
    if (prof)
        bp_prof_region_begin(s, level, fn, requested);
    if (ompt)
        bp_ompt_region_begin(s, level, requested);
}

void bp_listen_device(int level)
{
    if (prof)
        bp_prof_device(level);
}

void bp_listen_team_obtained(int level)
{
    if (prof)
        bp_prof_team_obtained(level);
}

void bp_listen_fork(void *team, struct bp_hook_span *s, int level, int team_size,
                    const void *fn)
{
    if (prof)
        bp_prof_fork(prof_block(team), level, team_size, fn);
    if (ompt)
        bp_ompt_fork(ompt_block(team), s, team_size);
}

void bp_listen_primary_begin(struct bp_hook_span *s, int level, int team_size)
{
    (void)level;
    if (ompt)
        bp_ompt_primary_begin(s, team_size);
}

void bp_listen_join_begin(int level)
{
    if (prof)
        bp_prof_join_begin(level);
    if (ompt)
        bp_ompt_join_begin();
}

void bp_listen_join_end(struct bp_hook_span *s, void *team, int level, int team_size)
{
    if (ompt)
        bp_ompt_join_end(s, team_size);
    if (prof)
        bp_prof_join_end(s, prof_block(team), level, team_size);
}

void bp_listen_worker_idle(void)
{
    if (prof)
        bp_prof_worker_idle();
    if (ompt)
        bp_ompt_worker_idle();
}

void bp_listen_share_begin(void *team, int level, int tid, int help)
{
    if (prof)
        bp_prof_share_begin(prof_block(team), level, tid, help);
    if (ompt)
        bp_ompt_share_begin(ompt_block(team), tid, help);
}

void bp_listen_share_end(void *team, int level, int tid, int help)
{
    if (ompt)
        bp_ompt_share_end(ompt_block(team), tid, help);
    if (prof)
        bp_prof_share_end(prof_block(team), level, tid, help);
}

void bp_listen_share_left(void)
{
    if (ompt)
        bp_ompt_share_left();
}

int64_t bp_listen_barrier_arrive(int level, int team_size, int kind)
{
    if (ompt)
        bp_ompt_barrier_arrive(kind);
    return prof ? bp_prof_barrier_arrive(level, team_size) : 0;
}

void bp_listen_barrier_release(int level, int team_size, int64_t arrived_ns, int kind)
{
    if (prof)
        bp_prof_barrier_release(level, team_size, arrived_ns);
    if (ompt)
        bp_ompt_barrier_release(kind);
}

void bp_listen_reduce_step(int step)
{
    if (ompt)
        bp_ompt_reduce_step(step);
}

void bp_listen_sync(int kind, int begin)
{
    if (ompt)
        bp_ompt_sync(kind, begin);
}

void bp_listen_mutex(int kind, int what, const void *wait_id)
{
    if (ompt)
        bp_ompt_mutex(kind, what, wait_id);
}

void bp_listen_iterations(uint64_t n)
{
    if (prof)
        bp_prof_iterations(n);
}

void bp_listen_task_create(uint64_t *word, int flags, const void *fn,
                           const struct bp_dep *deps, int ndeps)
{
    if (ompt)
        bp_ompt_task_create(word, flags, fn, deps, ndeps);
}

/* A span's start_ns says its begin was heard (hooks.h): the profiler's
 * clock reading, or 0 when only the tool listens. */
void bp_listen_task_begin(struct bp_hook_span *s, uint64_t *word)
{
    if (prof)
        bp_prof_task_begin(s);
    else
        s->start_ns = 0;
    if (ompt)
        bp_ompt_task_begin(word);
}

void bp_listen_task_end(struct bp_hook_span *s, const void *fn, uint64_t *word, int how)
{
    if (ompt)
        bp_ompt_task_end(word, how);
    if (prof)
        bp_prof_task_end(s, fn);
}

void bp_listen_task_fulfill(uint64_t *word, int late)
{
    if (ompt)
        bp_ompt_task_fulfill(word, late);
}

void bp_listen_task_inline(uint64_t *word, int begin)
{
    if (ompt)
        bp_ompt_task_inline(word, begin);
}

void bp_listen_task_dependence(uint64_t *pred, uint64_t *succ)
{
    if (ompt)
        bp_ompt_task_dependence(pred, succ);
}

void bp_listen_league(struct bp_hook_span *s, int num_teams, int begin)
{
    if (ompt)
        bp_ompt_league(s, num_teams, begin);
}

void bp_listen_league_team(int team, int num_teams, int begin)
{
    if (ompt)
        bp_ompt_league_team(team, num_teams, begin);
}

void bp_listen_work(int kind, int begin, uint64_t count)
{
    if (ompt)
        bp_ompt_work(kind, begin, count);
}

void bp_listen_dispatch(int kind, uint64_t start, uint64_t count)
{
    if (ompt)
        bp_ompt_dispatch(kind, start, count);
}

void bp_listen_masked(int begin)
{
    if (ompt)
        bp_ompt_masked(begin);
}

void bp_listen_flush(void)
{
    if (ompt)
        bp_ompt_flush();
}

void bp_listen_cancel(int flags, uint64_t *word)
{
    if (ompt)
        bp_ompt_cancel(flags, word);
}

void bp_listen_task_wait_begin(struct bp_hook_span *s, int kind)
{
    if (prof)
        bp_prof_task_wait_begin(s);
    else
        s->start_ns = 0;
    if (ompt)
        bp_ompt_task_wait(kind, 1);
}

void bp_listen_task_wait_end(struct bp_hook_span *s, int kind)
{
    if (ompt)
        bp_ompt_task_wait(kind, 0);
    if (prof)
        bp_prof_task_wait_end(s);
}

void bp_listen_wait_spun(int64_t since_ns)
{
    if (prof)
        bp_prof_wait_spun(since_ns);
}

int64_t bp_listen_wait_sleep(int64_t since_ns)
{
    return prof ? bp_prof_wait_sleep(since_ns) : 0;
}

void bp_listen_wait_woken(int64_t slept_ns)
{
    if (prof)
        bp_prof_wait_woken(slept_ns);
}

void bp_listen_wait_wake(void)
{
    if (prof)
        bp_prof_wait_wake();
}

/* Called while bp_listen_sites is set, which it is before the pool starts
 * too (the first region's entry notes its site first): to every listener
 * that may want it, before anyone knows. */
void bp_listen_site(const void *ra, const void *frame, const char *src)
{
    bp_prof_site(ra, src);
    bp_ompt_site(ra, frame);
}

void bp_listen_code_frame(const void *frame)
{
    if (ompt)
        bp_ompt_code_frame(frame);
}

void bp_listen_enter(const void *frame)
{
    if (ompt)
        bp_ompt_enter(frame);
}

/* ---- the process: hooks.h's plain calls ------------------------------------- */

void bp_hook_start(int max_threads)
{
    prof = bp_prof_start(max_threads);
#ifndef BP_NO_PROFILER
    bp_listening = prof;
#endif
}

void bp_hook_start_tool(int max_threads)
{
#ifndef BP_NO_PROFILER
    ompt = bp_ompt_start(max_threads); /* a build without hooks sends no events */
    bp_listening = prof || ompt;
#else
    (void)max_threads;
#endif
    /* relaxed: a hint, see its definition */
    atomic_store_explicit(&bp_listen_sites, prof || ompt, memory_order_relaxed);
}

/* The lifetime hooks go to the profiler whether or not it listens: it
 * keeps its thread and fork() state, and its report says what it was. */
void bp_hook_thread_begin(int worker)
{
    bp_prof_thread_begin(worker);
    if (ompt)
        bp_ompt_thread_begin(worker);
}

void bp_hook_thread_end(void)
{
    bp_prof_thread_end();
    if (ompt)
        bp_ompt_thread_end();
}

int bp_hook_team_resize(void **block, int cap)
{
    if (!prof && !ompt)
        return 1; /* nothing listens: no block */
    struct board_block *b = *block;
    if (b == NULL && (b = calloc(1, sizeof *b)) == NULL)
        return 0;
    *block = b;
    return (!prof || bp_prof_team_resize(&b->prof, cap)) &&
           (!ompt || bp_ompt_team_resize(&b->ompt, cap));
}

void bp_hook_team_free(void *block)
{
    struct board_block *b = block;
    if (b == NULL)
        return;
    bp_prof_team_free(b->prof);
    bp_ompt_team_free(b->ompt);
    free(b);
}

void bp_hook_atfork_prepare(int in_region) { bp_prof_atfork_prepare(in_region); }

void bp_hook_atfork_parent(void) { bp_prof_atfork_parent(); }

void bp_hook_atfork_child(void) { bp_prof_atfork_child(); }

int bp_hook_exit_busy(void) { return bp_prof_exit_busy(); }

void bp_hook_exit_in_region(void)
{
    bp_prof_exit_in_region();
    bp_ompt_finish();
}

void bp_hook_exit_begin(void) { bp_prof_exit_begin(); }

void bp_hook_exit_abandon(void)
{
    bp_prof_exit_abandon();
    bp_ompt_finish();
}

int bp_hook_exit_lock(const struct timespec *deadline) { return bp_prof_exit_lock(deadline); }

void bp_hook_exit_report(void)
{
    bp_prof_exit_report();
    bp_ompt_finish(); /* the workers have ended: their thread_end came first */
}

int bp_hook_profile_phase(const char *name) { return bp_prof_profile_phase(name); }

int bp_hook_profile_reset(void) { return bp_prof_profile_reset(); }

int bp_hook_profile_write(FILE *out) { return bp_prof_profile_write(out); }

int bp_hook_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *ra)
{
    return bp_ompt_control_tool(command, modifier, arg, ra);
}
