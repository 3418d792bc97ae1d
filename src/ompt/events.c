/* events.c: the tool interface's side of the seam. The switchboard hands
 * it the core's hooks while a tool is started (start.c); it turns them
 * into the tool's callbacks and keeps, per thread, the records the tool's
 * queries read (ompt.h).
 *
 * What is sent, and where:
 * - thread_begin and thread_end: a pool worker's when it starts and ends;
 *   an application thread's (ompt_thread_initial) at its first event, with
 *   the begin of its initial task (implicit_task, ompt_task_initial), whose
 *   end and the thread's end come when the thread exits, or at
 *   finalization (start.c) for the thread that finalizes.
 * - parallel_begin on the forking thread before its team is obtained (the
 *   requested size is what the region asked for, before the caps), with the
 *   call site the ABI entry noted (BP_HOOK_SITE) as codeptr_ra; the
 *   region's parallel_data lives in the span on the forking thread's stack
 *   (tool[0]), and the team's block hands its address to the workers.
 * - implicit_task begin on thread 0 when its share starts (a team of one
 *   too) and on each worker when its share starts; the worker's end when
 *   its share ends, thread 0's after the join, before parallel_end.
 * A worker called back only to help with thread 0's tasks sends nothing:
 * that is still its share of the region.
 * Task frames: a task's exit frame is the frame of the runtime function
 * that runs its code (BP_HOOK_CODE_FRAME, set as the code starts: a frame
 * pointer, ompt_frame_runtime | ompt_frame_framepointer), the encountering
 * task's enter frame the canonical frame address of the ABI entry that
 * forks a region (BP_HOOK_SITE: where the program's frame that called it
 * ends, ompt_frame_application | ompt_frame_cfa), from parallel_begin to
 * parallel_end, and that of an entry that waits or makes tasks while it
 * runs (BP_HOOK_ENTER: barriers, taskwait, taskgroup's end, reductions,
 * task and taskloop entries). */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ompt.h"
#include "../listeners.h"

static const ompt_frame_t no_frame;

static void implicit(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                     unsigned n, unsigned index, int flags)
{
    ompt_callback_implicit_task_t cb =
        (ompt_callback_implicit_task_t)bp_ompt_callback(ompt_callback_implicit_task);
    if (cb != NULL)
        cb(endpoint, parallel, task, n, index, flags);
}

/* thread_end, and the thread no longer known: its next event begins it. */
static void end_thread(struct bp_ompt_thread *th)
{
    ompt_callback_thread_end_t cb =
        (ompt_callback_thread_end_t)bp_ompt_callback(ompt_callback_thread_end);
    if (cb != NULL)
        cb(&th->data);
    th->begun = 0;
}

/* An application thread's end: a key whose destructor runs at its exit
 * (pthread_exit, or the return of its start routine; never for the thread
 * that calls exit(), whose end is the finalization's) ends its initial task
 * and the thread, as libomp does for the roots it knew. */
static pthread_key_t exit_key;
static int exit_key_made;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void thread_exits(void *th)
{
    (void)th;
    bp_ompt_initial_end();
}

static void make_exit_key(void) { exit_key_made = pthread_key_create(&exit_key, thread_exits) == 0; }

void bp_ompt_thread_known(struct bp_ompt_thread *th)
{
    if (th->begun)
        return;
    th->begun = 1;
    if (!th->worker) {
        pthread_once(&exit_once, make_exit_key);
        if (exit_key_made) /* without it, the thread's end is not told */
            (void)pthread_setspecific(exit_key, th);
    }
    th->state = th->worker ? ompt_state_idle : ompt_state_work_serial;
    ompt_callback_thread_begin_t cb =
        (ompt_callback_thread_begin_t)bp_ompt_callback(ompt_callback_thread_begin);
    if (cb != NULL)
        cb(th->worker ? ompt_thread_worker : ompt_thread_initial, &th->data);
    if (th->worker)
        return;
    struct bp_ompt_task *t = bp_ompt_push(th, NULL, &th->initial_parallel, 1, 0, ompt_task_initial);
    implicit(ompt_scope_begin, &th->initial_parallel, bp_ompt_data_of(t), 1, 1, ompt_task_initial);
}

void bp_ompt_initial_end(void)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    if (!th->begun || th->worker)
        return;
    /* the initial task is the bottom of the stack (a region that still
     * runs at exit is not ended: its end never comes) */
    implicit(ompt_scope_end, &th->initial_parallel, bp_ompt_data_of(bp_ompt_task_at(th, th->depth - 1)),
             1, 1, ompt_task_initial);
    end_thread(th);
    th->depth = 0;
}

/* ---- regions ------------------------------------------------------------ */

/* The region's words in the span (hooks.h): its parallel_data, and the
 * call site for parallel_end. */
static ompt_data_t *parallel_of(struct bp_hook_span *s) { return (ompt_data_t *)&s->tool[0]; }

void bp_ompt_region_begin(struct bp_hook_span *s, int level, int requested)
{
    (void)level;
    struct bp_ompt_thread *th = &bp_ompt_tls;
    bp_ompt_thread_known(th);
    const void *ra = th->ra;
    th->ra = NULL;
    s->tool[0] = 0;
    s->tool[1] = (uint64_t)(uintptr_t)ra;
    struct bp_ompt_task *enc = bp_ompt_task_at(th, 0);
    bp_ompt_enter(th->enter); /* the encountering task is in the runtime from the entry */
    th->enter = NULL;
    ompt_callback_parallel_begin_t cb =
        (ompt_callback_parallel_begin_t)bp_ompt_callback(ompt_callback_parallel_begin);
    if (cb != NULL)
        cb(bp_ompt_data_of(enc), enc != NULL ? &enc->frame : &no_frame, parallel_of(s),
           requested > 0 ? (unsigned)requested : 1u,
           ompt_parallel_invoker_program | ompt_parallel_team, ra);
}

void bp_ompt_fork(void *team, struct bp_hook_span *s, int team_size)
{
    struct bp_ompt_team *b = team;
    b->parallel = parallel_of(s);
    b->team_size = (unsigned)team_size;
}

void bp_ompt_primary_begin(struct bp_hook_span *s, int team_size)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t =
        bp_ompt_push(th, NULL, parallel_of(s), (unsigned)team_size, 0, ompt_task_implicit);
    th->state = ompt_state_work_parallel;
    implicit(ompt_scope_begin, parallel_of(s), bp_ompt_data_of(t), (unsigned)team_size, 0,
             ompt_task_implicit);
}

/* Thread 0's closing barrier: from its join's start to its end. */
void bp_ompt_join_begin(void)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    if (t == NULL)
        return;
    t->joining = 1;
    bp_ompt_sync_send(ompt_sync_region_barrier_implicit_parallel, 1, t->parallel, t->dp);
    th->state = ompt_state_wait_barrier_implicit_parallel;
}

void bp_ompt_join_end(struct bp_hook_span *s, int team_size)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    if (t != NULL && t->joining)
        bp_ompt_sync_send(ompt_sync_region_barrier_implicit_parallel, 0, t->parallel, t->dp);
    implicit(ompt_scope_end, NULL, bp_ompt_data_of(t), (unsigned)team_size, 0,
             ompt_task_implicit);
    bp_ompt_pop(th);
    struct bp_ompt_task *enc = bp_ompt_task_at(th, 0);
    th->state = bp_ompt_work_state(th);
    ompt_callback_parallel_end_t cb =
        (ompt_callback_parallel_end_t)bp_ompt_callback(ompt_callback_parallel_end);
    if (cb != NULL)
        cb(parallel_of(s), bp_ompt_data_of(enc), ompt_parallel_invoker_program | ompt_parallel_team,
           (const void *)(uintptr_t)s->tool[1]);
    bp_ompt_enter(NULL); /* back in its own code */
}

/* ---- the host teams construct ---------------------------------------------- */

/* A league is a parallel region of flag ompt_parallel_league whose teams'
 * initial tasks (ompt_task_initial, numbered by team) the encountering
 * thread runs one after another (teams.c); its data is in the span, as a
 * region's. */
void bp_ompt_league(struct bp_hook_span *s, int num_teams, int begin)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    int flags = ompt_parallel_invoker_program | ompt_parallel_league;
    if (begin) {
        bp_ompt_thread_known(th);
        s->tool[0] = 0;
        s->tool[1] = (uint64_t)(uintptr_t)th->ra;
        th->ra = NULL;
        struct bp_ompt_task *enc = bp_ompt_task_at(th, 0);
        bp_ompt_enter(th->enter);
        th->enter = NULL;
        th->league = parallel_of(s);
        ompt_callback_parallel_begin_t cb =
            (ompt_callback_parallel_begin_t)bp_ompt_callback(ompt_callback_parallel_begin);
        if (cb != NULL)
            cb(bp_ompt_data_of(enc), enc != NULL ? &enc->frame : &no_frame, parallel_of(s),
               (unsigned)num_teams, flags, (const void *)(uintptr_t)s->tool[1]);
        return;
    }
    th->league = NULL;
    struct bp_ompt_task *enc = bp_ompt_task_at(th, 0);
    ompt_callback_parallel_end_t cb =
        (ompt_callback_parallel_end_t)bp_ompt_callback(ompt_callback_parallel_end);
    if (cb != NULL)
        cb(parallel_of(s), bp_ompt_data_of(enc), flags, (const void *)(uintptr_t)s->tool[1]);
    bp_ompt_enter(NULL);
}

void bp_ompt_league_team(int team, int num_teams, int begin)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    if (begin) {
        ompt_data_t *league = th->league; /* the league's data, in its span */
        struct bp_ompt_task *t = bp_ompt_push(th, NULL, league, (unsigned)num_teams,
                                              (unsigned)team, ompt_task_initial);
        implicit(ompt_scope_begin, league, bp_ompt_data_of(t), (unsigned)num_teams,
                 (unsigned)team, ompt_task_initial);
        return;
    }
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    implicit(ompt_scope_end, t != NULL ? t->parallel : NULL, bp_ompt_data_of(t),
             (unsigned)num_teams, (unsigned)team, ompt_task_initial);
    bp_ompt_pop(th);
}

/* ---- a worker's share ------------------------------------------------------ */

void bp_ompt_worker_idle(void) { bp_ompt_tls.state = ompt_state_idle; }

void bp_ompt_share_begin(void *team, int tid, int help)
{
    struct bp_ompt_team *b = team;
    if (help || b == NULL)
        return;
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = bp_ompt_push(th, NULL, b->parallel, b->team_size, (unsigned)tid,
                                          ompt_task_implicit);
    th->state = ompt_state_work_parallel;
    implicit(ompt_scope_begin, b->parallel, bp_ompt_data_of(t), b->team_size, (unsigned)tid,
             ompt_task_implicit);
}

/* The worker's share is over: its closing barrier begins, before its
 * arrival (what the tool does there comes before the join sees it). */
void bp_ompt_share_end(void *team, int tid, int help)
{
    (void)tid;
    if (help || team == NULL)
        return;
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    if (t != NULL)
        t->joining = 1;
    bp_ompt_sync_send(ompt_sync_region_barrier_implicit_parallel, 1,
                      t != NULL ? t->parallel : NULL, bp_ompt_data_of(t));
    th->state = ompt_state_wait_barrier_implicit_parallel;
}

/* It has arrived: the barrier ends (its region's data is not handed over:
 * thread 0 may have ended the region), then its implicit task. Only the
 * thread's own records are read. */
void bp_ompt_share_left(void)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = bp_ompt_task_at(th, 0);
    bp_ompt_sync_send(ompt_sync_region_barrier_implicit_parallel, 0, NULL, bp_ompt_data_of(t));
    implicit(ompt_scope_end, NULL, bp_ompt_data_of(t), t != NULL ? t->team_size : 0,
             t != NULL ? t->thread_num : 0, ompt_task_implicit);
    bp_ompt_pop(th);
    th->state = ompt_state_overhead;
}

/* ---- threads, sites, teams ------------------------------------------------- */

void bp_ompt_thread_begin(int worker)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    th->worker = worker > 0;
    bp_ompt_thread_known(th);
}

void bp_ompt_thread_end(void)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    if (th->begun)
        end_thread(th);
}

void bp_ompt_site(const void *ra, const void *frame)
{
    bp_ompt_tls.ra = ra;
    bp_ompt_tls.enter = frame;
}

/* The innermost task's code calls into the runtime (frame: where its frame
 * ends), or is back (NULL). */
void bp_ompt_enter(const void *frame)
{
    struct bp_ompt_task *t = bp_ompt_task_at(&bp_ompt_tls, 0);
    if (t == NULL)
        return;
    t->frame.enter_frame.ptr = (void *)frame;
    t->frame.enter_frame_flags = frame != NULL ? ompt_frame_application | ompt_frame_cfa : 0;
}

/* The innermost task runs its code from this runtime frame: its exit
 * frame, until it ends (its record goes with it). */
void bp_ompt_code_frame(const void *frame)
{
    struct bp_ompt_task *t = bp_ompt_task_at(&bp_ompt_tls, 0);
    if (t == NULL)
        return;
    t->frame.exit_frame.ptr = (void *)frame;
    t->frame.exit_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;
}

int bp_ompt_team_resize(void **block, int cap)
{
    (void)cap; /* the block does not grow with the team */
    if (*block == NULL)
        *block = calloc(1, sizeof(struct bp_ompt_team));
    return *block != NULL;
}

void bp_ompt_team_free(void *block) { free(block); }
