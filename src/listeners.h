/* listeners.h: what each listener behind the seam (hooks.h) offers the
 * switchboard (listen.c), which alone calls it: the profiler
 * (profile/listen.c) and the OpenMP tool interface (ompt/). Each function is the listener's side of the
 * hook of the same name (hooks.h says when the core calls it); the team
 * blocks and spans handed over are the listener's own. Included by the
 * switchboard and by the listeners, never by the core. */
#ifndef BUDDYPOOL_LISTENERS_H
#define BUDDYPOOL_LISTENERS_H

#include <stdint.h>
#include <stdio.h>

#include "hooks.h"

/* ---- the profiler (profile/listen.c) ------------------------------------ */

/* It starts from the configuration: 1 when it listens (profiling is on). */
int bp_prof_start(int max_threads);
void bp_prof_region_begin(struct bp_hook_span *s, int level, const void *fn, int requested);
void bp_prof_team_obtained(int level);
void bp_prof_device(int level);
void bp_prof_fork(void *team, int level, int team_size, const void *fn);
void bp_prof_join_begin(int level);
void bp_prof_join_end(struct bp_hook_span *s, void *team, int level, int team_size);
void bp_prof_worker_idle(void);
void bp_prof_share_begin(void *team, int level, int tid, int help);
void bp_prof_share_end(void *team, int level, int tid, int help);
int64_t bp_prof_barrier_arrive(int level, int team_size);
void bp_prof_barrier_release(int level, int team_size, int64_t arrived_ns);
void bp_prof_iterations(uint64_t n);
void bp_prof_task_begin(struct bp_hook_span *s);
void bp_prof_task_end(struct bp_hook_span *s, const void *fn);
void bp_prof_task_wait_begin(struct bp_hook_span *s);
void bp_prof_task_wait_end(struct bp_hook_span *s);
void bp_prof_wait_spun(int64_t since_ns);
int64_t bp_prof_wait_sleep(int64_t since_ns);
void bp_prof_wait_woken(int64_t slept_ns);
void bp_prof_wait_wake(void);
void bp_prof_site(const void *ra, const char *src);
void bp_prof_thread_begin(int worker);
void bp_prof_thread_end(void);
int bp_prof_team_resize(void **block, int cap);
void bp_prof_team_free(void *block);
void bp_prof_atfork_prepare(int in_region);
void bp_prof_atfork_parent(void);
void bp_prof_atfork_child(void);
int bp_prof_exit_busy(void);
void bp_prof_exit_in_region(void);
void bp_prof_exit_begin(void);
void bp_prof_exit_abandon(void);
struct timespec;
int bp_prof_exit_lock(const struct timespec *deadline);
void bp_prof_exit_report(void);
int bp_prof_profile_phase(const char *name);
int bp_prof_profile_reset(void);
int bp_prof_profile_write(FILE *out);

/* ---- the OpenMP tool interface (ompt/start.c, ompt/events.c) -------------- */

/* It looks for a tool and starts it: 1 when one is started. */
int bp_ompt_start(int max_threads);
/* The tool's finalize, once (the process's exit, or ompt_finalize_tool). */
void bp_ompt_finish(void);
int bp_ompt_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *ra);
void bp_ompt_region_begin(struct bp_hook_span *s, int level, int requested);
void bp_ompt_fork(void *team, struct bp_hook_span *s, int team_size);
void bp_ompt_primary_begin(struct bp_hook_span *s, int team_size);
void bp_ompt_join_end(struct bp_hook_span *s, int team_size);
void bp_ompt_worker_idle(void);
void bp_ompt_share_begin(void *team, int tid, int help);
void bp_ompt_share_end(void *team, int tid, int help);
void bp_ompt_join_begin(void);
void bp_ompt_share_left(void);
void bp_ompt_barrier_arrive(int kind);
void bp_ompt_barrier_release(int kind);
void bp_ompt_reduce_step(int step);
void bp_ompt_sync(int kind, int begin);
void bp_ompt_mutex(int kind, int what, const void *wait_id);
void bp_ompt_task_create(uint64_t *word, int flags, const void *fn,
                         const struct bp_dep *deps, int ndeps);
void bp_ompt_task_begin(uint64_t *word);
void bp_ompt_task_end(uint64_t *word, int how);
void bp_ompt_task_fulfill(uint64_t *word, int late);
void bp_ompt_task_inline(uint64_t *word, int begin);
void bp_ompt_task_dependence(uint64_t *pred, uint64_t *succ);
void bp_ompt_league(struct bp_hook_span *s, int num_teams, int begin);
void bp_ompt_league_team(int team, int num_teams, int begin);
void bp_ompt_task_wait(int kind, int begin);
void bp_ompt_work(int kind, int begin, uint64_t count);
void bp_ompt_dispatch(int kind, uint64_t start, uint64_t count);
void bp_ompt_masked(int begin);
void bp_ompt_flush(void);
void bp_ompt_cancel(int flags, uint64_t *word);
void bp_ompt_thread_begin(int worker);
void bp_ompt_thread_end(void);
void bp_ompt_site(const void *ra, const void *frame);
void bp_ompt_code_frame(const void *frame);
void bp_ompt_enter(const void *frame);
int bp_ompt_team_resize(void **block, int cap);
void bp_ompt_team_free(void *block);

#endif
