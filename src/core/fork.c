/* fork.c: teams. A region's fork makes its caller thread 0 and starts the
 * workers on it, its join waits for them; a region of one thread runs on
 * its caller alone. The team's state (numbers, nesting, the implicit task's
 * ICVs) lives in each thread's bp_thread and is saved and given back around
 * a region. The pool's threads and slots are pool.c's (pool.h).
 *
 * Team sizes. A region asks for the num_threads clause, else its task's
 * nthreads-var (omp_set_num_threads, OMP_NUM_THREADS), else the default: one
 * thread per allowed CPU. An explicit request is honoured beyond the CPUs,
 * as libgomp and libomp do (programs whose threads wait for each other need
 * the team they asked for): workers past the CPUs share them and wait
 * politely (they yield from the start), and while such a team runs every
 * waiter does. The limits (BUDDY_THREAD_POOL_THREADS, OMP_THREAD_LIMIT,
 * BP_MAX_THREADS) cap each application thread's teams together, nested ones
 * included (contention groups, below); dyn-var true caps a team at the
 * CPUs.
 *
 * Nesting. Up to max-active-levels-var enclosing regions of a thread are
 * active (have more than one thread): a nested region forked inside fewer
 * gets its team as an outermost one does (team.c), one forked inside that
 * many runs on its caller alone. A region forked inside inactive ones only
 * (num_threads(1), if(0)) is active and gets its full team, as in libgomp
 * and libomp: libraries that plan shares with omp_get_max_threads() rely on
 * it. Each team records the active region enclosing it (team->up_*), which
 * the ancestor queries walk (bp_ancestor). In the profile a nested team
 * is inside its outermost region's wall time, which is reported as the team
 * of one it is (the nested team's own waits and iterations are not counted).
 *
 * Episodes. Every thread counts barrier episodes in bp_thread.epoch; a region
 * starts all its threads at the pool's count (epoch_base) and its end (the
 * join) is one more episode. A word set to episode e is awaited as == e (or
 * as reached, for the barrier's rounds); words are at most one episode
 * ahead of their readers and the rest lie behind, so a value left from an
 * earlier region is never mistaken for a current one. Words hold the low 32
 * bits of the episode; thread 0 counts in 64 bits, and at a fork 2^30 or
 * more episodes after the last refresh it brings all words up to the
 * current episode (a new worker's start there too), so none falls so far
 * behind that 32-bit wrapping makes it look current.
 *
 * A worker waits for its start block in pool.c, which hands it to
 * worker_share here: the worker's half of the region. The start of the
 * workers and the gathering of their arrivals, flat or as a tree, are
 * go.c's. A region tells the listeners (hooks.h) when it
 * begins, when its team is made or grown, when its workers are about to
 * start, and when its join begins and ends; a worker, when its share
 * begins and ends. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "pool.h"
#include "../prim.h"
#include "team.h"

/* The ICVs of the implicit tasks of a region at `level` forked by t, a
 * task with `parent`'s: their nthreads-var is the one a num_threads list
 * pushed for them (taken here, once), else, while the list is still
 * OMP_NUM_THREADS's, its item for the level, else the parent's. A pushed
 * list replaces the whole list (OpenMP 6.0): its last item goes on for
 * every level below, as the last item of any nthreads-var list does. */
static struct bp_icv child_icv(struct bp_thread *t, const struct bp_icv *parent, int level)
{
    struct bp_icv c = *parent;
    if (__builtin_expect(t->pushed_nested > 0, 0)) {
        c.nthreads = t->pushed_nested;
        c.nthreads_pushed = 1;
        t->pushed_nested = 0;
    } else if (level < bp_config.nthreads_levels && !parent->nthreads_pushed)
        c.nthreads = bp_config.nthreads_list[level];
    if (level < bp_config.bind_levels)
        c.proc_bind = bp_config.bind_list[level];
    return c;
}

/* a == b, every byte (struct bp_icv has no padding), inline: a fork
 * compares the team's ICVs with its own every time */
static inline int icv_same(const struct bp_icv *a, const struct bp_icv *b)
{
    _Static_assert(sizeof *a % sizeof(uint64_t) == 0, "the ICVs are whole words");
    const char *p = (const char *)a, *q = (const char *)b;
    uint64_t d = 0;
    for (size_t i = 0; i < sizeof *a; i += sizeof(uint64_t)) {
        uint64_t x, y; /* word by word, each loaded where it is */
        memcpy(&x, p + i, sizeof x);
        memcpy(&y, q + i, sizeof y);
        d |= x ^ y;
    }
    return d == 0;
}

/* The worker's half of a region: what a pool worker does with a start
 * block it was given (pool.c waits for it and says when it is done).
 * Its state becomes thread tid's of the team, with a new implicit task; it
 * runs its share, then the region's tasks still queued, gathers its
 * subtree in a large team, and arrives at the join.
 *
 * From the go it sees to the arrival it stores is the worker's part of
 * the region's critical path (thread 0 waits for it at the join), so what
 * can wait comes after the arrival: leaving the region's state and setting
 * up the implicit task of its next region, which thread 0 cannot start
 * before it has seen the arrival and the worker its next go. */
static void worker_share(struct bp_slot *slot)
{
    struct bp_thread *t = &bp_tls;
    struct bp_go *go = &slot->go;
    struct bp_implicit_task *implicit = &t->worker_task; /* its task in the region */
    bp_run_fn run = go->run;
    struct bp_team *team = go->team;
    int tid = go->tid, team_size = go->team_size;
    struct bp_member *me = &team->members[tid];
    /* a region, or thread 0's call back to help with its tasks
     * (taskteam.c), which is part of its region */
    int help = run == bp_tasks_help;
    bp_hook_share_begin(team->listen, go->level, tid, help);
    if (team_size >= BP_TREE_JOIN) /* a large team's fork goes on down the tree */
        bp_fork_children(go);
    t->tid = tid;
    t->team_size = team_size;
    t->team_ptr = team;
    t->team_loops = team->loops;
    t->level = go->level;
    t->active_level = team->active_level;
    t->act_level = go->level;
    t->act_tid = tid;
    t->act_team = team_size;
    t->act_ptr = team;
    t->part_first = slot->part_first;
    t->part_count = slot->part_count;
    t->place = slot->place;
    t->epoch = go->epoch_base;
    t->singles = 0;
    t->ws_red_depth = 0;
    t->constructs = 0;
    /* a new implicit task: the team's ICVs, published with the go */
    bp_task_icvs(t, &team->icv);
    if (__builtin_expect(!t->worker_task_ready, 0)) /* its first region */
        bp_task_implicit_init(implicit);
    t->worker_task_ready = 0;
    t->task = &implicit->task;
    if (!help)
        bp_display_affinity(t);
    run(tid, go->ctx);
    /* relaxed: a hint; bp_tasks_pending acquires the completions */
    if (atomic_load_explicit(&team->tasking.on, memory_order_relaxed) &&
        bp_tasks_pending(team) != 0)
        bp_tasks_drain(t); /* the region's tasks, before it arrives */
    bp_task_deps_free(&implicit->task); /* its children are complete */
    /* what the listener writes now, the join's release publishes */
    bp_hook_share_end(team->listen, go->level, tid, help);
    /* in the region still: the waits run the team's tasks */
    uint32_t end = (uint32_t)(t->epoch + 1);
    uint32_t used = t->constructs | t->singles;
    if (team_size >= BP_TREE_JOIN) /* a large team's join gathers the subtree first */
        used |= bp_join_children(team, tid, team_size, end, bp_tasks_poll, t);
    me->used_shared = used;
    /* release: a cancelled region's join reads it, not arrive, which a
     * given-up reduction may have set to the same episode (go.c) */
    atomic_store_explicit(&me->joined, end, memory_order_release);
    /* the join, publishing used_shared */
    bp_flag_set(&me->arrive, end);
    /* Off the region's path: this thread's own state only (the team's
     * words are not touched after the arrival). */
    bp_hook_share_left(help);
    t->level = 0;
    t->active_level = 0;
    t->act_level = 0;
    t->act_ptr = NULL;
    t->tid = 0;
    t->team_size = 1;
    t->team_ptr = NULL;
    t->team_loops = NULL;
    t->task = NULL;
    t->epoch++;
    bp_task_implicit_init(implicit);
    t->worker_task_ready = 1;
}

/* The pool's workers serve regions with worker_share: told at the first
 * fork, before any team is taken (the only way a worker is started), along
 * with the pool's configuration. */
static pthread_once_t ready_once = PTHREAD_ONCE_INIT;
static _Atomic int ready_done; /* ready has run: the one test of a fork */

static void ready(void)
{
    bp_pool_ensure_init();
    bp_pool_serve(worker_share);
    /* release: the pool's configuration, to the forks that see it set */
    atomic_store_explicit(&ready_done, 1, memory_order_release);
}

static inline void fork_ready(void)
{
    /* acquire: pairs with ready's release */
    if (__builtin_expect(!atomic_load_explicit(&ready_done, memory_order_acquire), 0))
        pthread_once(&ready_once, ready);
}

/* Team size a region forked now by t asks for, before the caps; the caller
 * has made the pool ready (fork_ready). */
static int requested_threads(struct bp_thread *t)
{
    if (t->pushed_threads > 0)
        return t->pushed_threads;
    int n = bp_icv(t)->nthreads;
    return n > 0 ? n : bp_pool.default_team;
}

/* The team a region that asks for n threads gets from t's task: at most the
 * cap, at most the CPUs under dyn-var, at most a teams construct's cap for
 * its teams' regions, one thread when the task may start no
 * further active level. */
static inline int team_size_for(struct bp_thread *t, int n)
{
    const struct bp_icv *icv = bp_icv(t);
    int max = bp_pool.team_max;
    if (icv->dynamic && max > bp_pool.default_team)
        max = bp_pool.default_team;
    if (icv->team_cap > 0 && max > icv->team_cap)
        max = icv->team_cap; /* a region in a team of a teams construct */
    if (t->active_level >= icv->max_active_levels)
        max = 1;
    return n < max ? n : max;
}

/* Contention groups. Each application thread is a contention group of its
 * own, as OpenMP defines it and libgomp and libomp keep it, and so is each
 * team of a teams construct: under a thread limit (OMP_THREAD_LIMIT, or
 * the thread_limit of a teams or target construct, thread-limit-var of the
 * task), the threads of its running teams, nested ones included, are
 * counted against the limit, and no other application thread's teams are.
 * The group's outermost active region (its forking thread in no active
 * region) is the count: it gets up to the limit (team_size_for) and sets the
 * count to its size. A region nested in an active one adds its workers to
 * the count of the group its enclosing team names (team->group), as many as
 * the limit leaves, and takes them off at its end. The pool itself is not
 * limited: two application threads under a limit of 2 get 2 threads each. */
static _Atomic int *group_of(struct bp_thread *t)
{
    return t->act_ptr != NULL ? t->act_ptr->group : &t->group_busy;
}

/* Whether t's regions are counted against a contention group's limit. */
static inline int group_limited(struct bp_thread *t)
{
    return bp_config.thread_limit > 0 || bp_icv(t)->thread_limit > 0;
}

/* The team a region nested in an active one may have: want, or fewer, as
 * the group's count leaves room under t's thread-limit-var; adds them to
 * the count when `claim`. */
static int group_share(struct bp_thread *t, _Atomic int *busy, int want, int claim)
{
    int limit = bp_icv(t)->thread_limit;
    if (limit <= 0 || limit > bp_pool.team_max)
        limit = bp_pool.team_max;
    /* relaxed: a count, which orders nothing else */
    int have = atomic_load_explicit(busy, memory_order_relaxed), add;
    do {
        add = want - 1 < limit - have ? want - 1 : limit - have;
        if (add <= 0 || !claim)
            break;
    } while (!atomic_compare_exchange_weak_explicit(busy, &have, have + add,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
    return add > 0 ? 1 + add : 1;
}

/* Under a thread limit, the region f of `want` threads claims them from its
 * contention group; the size it may have. */
static int group_claim(struct bp_thread *t, struct bp_fork_frame *f, int want)
{
    f->group = group_of(t);
    f->group_added = 0;
    f->group_outer = t->act_ptr == NULL;
    if (f->group_outer) /* the group's count is this region's size */
        return want;
    int n = group_share(t, f->group, want, 1);
    f->group_added = n - 1;
    return n;
}

/* The region f got `got` of the threads it claimed. */
static void group_settle(struct bp_fork_frame *f, int claimed, int got)
{
    if (f->group_outer) {
        /* relaxed: the go that starts the team's workers publishes it */
        atomic_store_explicit(f->group, got, memory_order_relaxed);
    } else if (got < claimed) {
        /* relaxed: a count */
        atomic_fetch_sub_explicit(f->group, claimed - got, memory_order_relaxed);
        f->group_added -= claimed - got;
    }
}

int bp_region_size(struct bp_thread *t, int team_size)
{
    fork_ready(); /* the caps need the pool's limits */
    int n = team_size_for(t, team_size > 0 ? team_size : requested_threads(t));
    if (n > 1 && t->act_ptr != NULL && group_limited(t))
        n = group_share(t, group_of(t), n, 0); /* what the group leaves now */
    return n > 0 ? n : 1;
}

static void save_team(const struct bp_thread *t, struct team_state *s)
{
    bp_copy_fixed(s, &t->team, sizeof *s);
}

static void restore_team(struct bp_thread *t, const struct team_state *s)
{
    bp_loop_discard(&t->loop); /* what a team of one's construct kept */
    bp_copy_fixed(&t->team, s, sizeof *s);
}

/* t becomes thread 0 of a new region: a new implicit task, whose ICVs come
 * from the one that forks it; the team's loops follow its runtime schedule. */
static void begin_task(struct bp_thread *t, const struct bp_icv *icv,
                       struct bp_implicit_task *implicit)
{
    bp_task_icvs(t, icv);
    bp_task_implicit(t, implicit);
    t->tid = 0;
    t->level++;
    t->singles = 0;
    t->ws_red_depth = 0;
    t->constructs = 0;
    t->team_ptr = NULL; /* a team of one shares nothing */
    t->team_loops = NULL;
    /* in no worksharing construct yet; the enclosing task's loop, with any
     * memory it keeps, is in the saved state and comes back whole */
    bp_zero_fixed(&t->loop, sizeof t->loop);
}

/* Enter and leave the state of a region of one thread on the caller. */
static void serial_enter(struct bp_thread *t, struct bp_fork_frame *f)
{
    struct bp_icv icv = child_icv(t, bp_icv(t), t->level + 1);
    save_team(t, &f->saved);
    begin_task(t, &icv, &f->implicit);
    t->team_size = 1;
    bp_display_affinity(t);
}

/* Once per process, when the settings are displayed (OMP_DISPLAY_ENV,
 * KMP_SETTINGS): a team larger than the CPUs. Not otherwise: libgomp and
 * libomp say nothing there, and programs and test harnesses compare what
 * a run writes to stderr. */
static void warn_oversubscribed(int team_size)
{
    static _Atomic int warned;
    /* relaxed: only the one note depends on it */
    if (bp_config.display_env != 0 &&
        atomic_exchange_explicit(&warned, 1, memory_order_relaxed) == 0)
        bp_warn("a team of %d threads on %d %s: the threads beyond the CPUs share "
                "them and wait politely (yield, then sleep); this is said once", team_size,
                bp_pool.cpu_budget, bp_pool.cpu_budget < bp_pool.ncpus
                                        ? "CPUs of CPU quota (the cgroup's)" : "allowed CPUs");
}

/* While two teams or more have been made, waits are polite when the threads
 * of the running teams outnumber the CPUs; with one team, when it does. */
static void count_busy(int delta)
{
    int busy = atomic_fetch_add_explicit(&bp_pool.busy_threads, delta, memory_order_relaxed) +
               delta;
    int over = busy > bp_pool.cpu_budget;
    /* relaxed: a hint to waits */
    if (atomic_load_explicit(&bp_oversubscribed, memory_order_relaxed) != over)
        atomic_store_explicit(&bp_oversubscribed, over, memory_order_relaxed);
}

/* The threads a region adds to the running teams': all of an outermost
 * one's, a nested one's but its thread 0, which its enclosing team counts. */
static int busy_of(const struct bp_fork_frame *f)
{
    return f->outermost ? f->team_size : f->team_size - 1;
}

/* Start workers 1..team_size-1 of the team on the region and make the caller
 * its thread 0. */
static void team_enter(struct bp_thread *t, struct bp_fork_frame *f, bp_run_fn run, void *ctx,
                       size_t ctx_size, const void *fn)
{
    struct bp_team *team = f->team;
    int team_size = f->team_size;
    uint64_t epoch_base = team->epoch;
    if (epoch_base - team->refreshed >= (uint64_t)1 << 30)
        bp_team_refresh_words(team);
    int copy = ctx_size > 0 && ctx_size <= BP_INLINE_CTX;
    int level = t->level + 1;
    const struct bp_icv *parent = bp_icv(t);
    /* the forking task's bind-var binds the region, or the proc_bind
     * clause's policy unless bind-var is false (OpenMP 5.2, 10.1.3); with
     * no binding asked for (the pool's own placement) the clause binds
     * nothing, as in libgomp, which then has no places */
    int policy = parent->proc_bind;
    if (__builtin_expect(f->bind > 0, 0) && policy != 0 && bp_config.pin_caller)
        policy = f->bind;
    struct bp_icv icv = child_icv(t, parent, level);
    /* the line the workers read at their start: written when it changes */
    if (!icv_same(&team->icv, &icv))
        team->icv = icv;
    if (team->group != f->group) /* under a thread limit */
        team->group = f->group;
    if (team->policy != policy || team->place0 != t->place ||
        team->part_first != t->part_first ||
        team->part_count != t->part_count || team->active_level != t->active_level + 1 ||
        team->up_level != t->act_level || team->up_tid != t->act_tid ||
        team->up_size != t->act_team || team->up_team != t->act_ptr) {
        team->policy = policy;
        team->place0 = t->place;
        team->part_first = t->part_first;
        team->part_count = t->part_count;
        team->active_level = t->active_level + 1;
        team->up_level = t->act_level;
        team->up_tid = t->act_tid;
        team->up_size = t->act_team;
        team->up_team = t->act_ptr;
    }
    /* relaxed: the count is a hint; teams_made only grows */
    f->counted = atomic_load_explicit(&bp_pool.teams_made, memory_order_relaxed) > 1;
    if (f->counted) {
        count_busy(busy_of(f)); /* a nested team's thread 0 is counted already */
    } else {
        int over = team_size > bp_pool.cpu_budget;
        if (atomic_load_explicit(&bp_oversubscribed, memory_order_relaxed) != over)
            atomic_store_explicit(&bp_oversubscribed, over, memory_order_relaxed);
    }
    /* The start block, in the team: bp_fork_children copies it to the
     * workers thread 0 starts (all of them, or its tree children). */
    struct bp_go *own = &team->go0;
    own->run = run;
    own->ctx = copy ? memcpy(own->inline_ctx, ctx, ctx_size) : ctx;
    own->team = team;
    own->tid = 0;
    own->team_size = team_size;
    own->epoch_base = (uint32_t)epoch_base;
    own->level = level;
    bp_hook_fork(team->listen, &f->hook, level, team_size, fn);
    bp_fork_children(own);
    save_team(t, &f->saved);
    begin_task(t, &icv, &f->implicit);
    if (policy == 4) /* spread: thread 0 keeps its place, its partition narrows */
        bp_place_assign(policy, t->place, 0, team_size, &t->part_first, &t->part_count);
    t->team_size = team_size;
    t->team_ptr = team;
    t->team_loops = team->loops;
    t->active_level++;
    t->act_level = level;
    t->act_tid = 0;
    t->act_team = team_size;
    t->act_ptr = team;
    t->epoch = epoch_base;
}

/* The join: wait for workers 1..team_size-1 to finish the region. */
static void team_leave(struct bp_thread *t, struct bp_fork_frame *f)
{
    struct bp_team *team = f->team;
    bp_hook_join_begin(t->level);
    uint32_t used = bp_tasks_join(t, team, f->team_size, t->constructs | t->singles);
    team->epoch = t->epoch;
    if (bp_config.cancellation)
        bp_cancel_clear(team);
    if (f->counted) {
        count_busy(-busy_of(f));
    } else if (f->team_size > bp_pool.cpu_budget) {
        /* relaxed: a hint to waits; the next oversubscribed fork sets it again */
        atomic_store_explicit(&bp_oversubscribed, 0, memory_order_relaxed);
    }
    /* Clear the team's shared loop and single state for the next region, now
     * that no thread uses it; a region that used none skips this. The next
     * go publishes the stores. */
    if (used != 0) {
        bp_loops_reset(team->loops);
        atomic_store_explicit(&team->singles_claimed, 0, memory_order_relaxed);
    }
    bp_hook_join_end(&f->hook, team->listen, t->level, f->team_size);
}

/* num_threads(strict: asked) (taken here, once): when the region got
 * fewer, the program's message as a warning, or the end of the program. */
static __attribute__((noinline)) void strict_check(struct bp_thread *t, int asked, int got)
{
    int severity = t->pushed_strict;
    const char *message = t->pushed_message;
    t->pushed_strict = 0;
    if (got >= asked)
        return;
    if (severity == BP_STRICT_WARNING)
        bp_warn("num_threads(strict: %d): the region has %d thread%s%s%s", asked, got,
                got == 1 ? "" : "s", message != NULL ? ": " : "", message != NULL ? message : "");
    else
        bp_fatal("num_threads(strict: %d): the region could have only %d thread%s%s%s", asked,
                 got, got == 1 ? "" : "s", message != NULL ? ": " : "",
                 message != NULL ? message : "");
}

void bp_fork_begin(struct bp_fork_frame *f, int team_size, bp_run_fn run, void *ctx,
                   size_t ctx_size, const void *fn)
{
    struct bp_thread *t = &bp_tls;
    fork_ready();
    /* relaxed: a hint, set once; bp_bind_caller claims the binding */
    if (bp_config.pin_caller && t->level == 0 &&
        !atomic_load_explicit(&bp_caller_claimed, memory_order_relaxed))
        bp_bind_caller();
    else if (__builtin_expect(bp_config.affinity_reset, 0) && t->level == 0)
        bp_caller_rebind();
    if (team_size <= 0)
        team_size = requested_threads(t);
    int requested = team_size;
    t->pushed_threads = 0;
    f->bind = t->pushed_bind;
    t->pushed_bind = 0;
    team_size = team_size_for(t, team_size);
    f->outermost = t->level == 0;
    f->team_size = 1;
    f->team = NULL;
    f->group = NULL;
    if (__builtin_expect(team_size > 1 && group_limited(t), 0))
        team_size = group_claim(t, f, team_size);
    /* No region takes a lock: each runs on a team of its own (team.c). */
    bp_hook_region_begin(&f->hook, t->level + 1, fn, requested);
    /* acquire: pairs with the destructor's release of shut_down */
    if (team_size > 1 && !atomic_load_explicit(&bp_pool.shut_down, memory_order_acquire)) {
        int got = 1, slow = 0;
        f->team = bp_team_take(t, t->level + 1, team_size, &got, &slow);
        if (slow) /* made or grew its team */
            bp_hook_team_obtained(t->level + 1);
        if (f->group != NULL)
            group_settle(f, team_size, got);
        team_size = got; /* fewer when the pool could start no more workers */
        if (team_size <= 1 && f->team != NULL) {
            bp_team_put(t, f->team);
            f->team = NULL;
        }
        if (f->team != NULL && f->outermost && bp_config.pin && !bp_config.pin_caller)
            bp_team_follow_caller(f->team);
        if (team_size > bp_pool.cpu_budget)
            warn_oversubscribed(team_size);
        f->team_size = team_size;
    }
    if (__builtin_expect(t->pushed_strict != 0, 0))
        strict_check(t, requested, f->team_size);
    if (f->team_size > 1) {
        team_enter(t, f, run, ctx, ctx_size, fn);
        bp_display_affinity(t);
    } else {
        serial_enter(t, f);
    }
    bp_hook_primary_begin(&f->hook, t->level, f->team_size);
}

void bp_fork_end(struct bp_fork_frame *f)
{
    struct bp_thread *t = &bp_tls;
    if (f->team_size > 1) {
        team_leave(t, f);
    } else {
        bp_task_children_wait(t); /* a detached task's event may be pending */
        bp_task_deps_free(bp_task_current(t));
        bp_hook_join_end(&f->hook, NULL, t->level, 1);
    }
    restore_team(t, &f->saved);
    if (f->team != NULL) /* after the join's hook: its figures are the team's */
        bp_team_put(t, f->team);
    if (__builtin_expect(f->group != NULL, 0) && f->group_added > 0)
        /* relaxed: a count; its workers are done with the region */
        atomic_fetch_sub_explicit(f->group, f->group_added, memory_order_relaxed);
    if (__builtin_expect(bp_config.affinity_reset, 0) && f->outermost)
        bp_caller_reset();
}

void bp_fork(int team_size, bp_run_fn run, void *ctx, size_t ctx_size, const void *fn)
{
    struct bp_fork_frame f;
    bp_fork_begin(&f, team_size, run, ctx, ctx_size, fn);
    run(0, ctx);
    bp_fork_end(&f);
}

/* A target region run on the host starts afresh, as libgomp's host
 * fallback runs one: the caller is the initial thread of a new contention
 * group (level 0, a team of one, an implicit task of its own whose ICVs
 * are the environment's, thread_limit's when not 0, every place in its
 * partition). Its regions take teams of their own: those of the regions
 * the caller is in are set aside (bp_teams_hide), since they run. Its
 * end waits for the tasks made in it and gives the caller its state back. */
void bp_device_begin(struct bp_device_frame *f, int thread_limit)
{
    struct bp_thread *t = &bp_tls;
    fork_ready();
    (void)bp_icv(t); /* the saved ICVs are set, not the initial values' */
    save_team(t, &f->saved);
    f->hidden = t->level > 0;
    if (f->hidden)
        bp_teams_hide(t, f->hot);
    bp_hook_device(t->level);
    memset(&t->team, 0, sizeof t->team);
    t->team_size = 1;
    struct bp_icv icv = bp_config.icv;
    if (thread_limit > 0)
        icv.thread_limit = icv.team_cap = thread_limit;
    bp_task_icvs(t, &icv);
    bp_task_implicit(t, &f->implicit);
}

void bp_device_end(struct bp_device_frame *f)
{
    struct bp_thread *t = &bp_tls;
    bp_task_children_wait(t);
    bp_task_deps_free(bp_task_current(t));
    restore_team(t, &f->saved);
    bp_hook_device(-t->level);
    if (f->hidden)
        bp_teams_show(t, f->hot);
}

/* A serialized region is a region of one thread whose caller runs the body
 * itself between the two calls: bp_fork's halves with a team of one. */
struct bp_serial {
    struct bp_serial *prev;
    struct bp_fork_frame frame;
};

void bp_push_proc_bind(int policy)
{
    bp_self()->pushed_bind = policy >= 1 && policy <= 4 ? policy : 0;
}

void bp_serial_begin(struct bp_thread *t, const void *fn)
{
    struct bp_serial *s = malloc(sizeof *s);
    if (s == NULL)
        bp_fatal("__kmpc_serialized_parallel: out of memory");
    bp_fork_begin(&s->frame, 1, NULL, NULL, 0, fn);
    s->prev = t->serial;
    t->serial = s;
}

void bp_serial_end(struct bp_thread *t)
{
    struct bp_serial *s = t->serial;
    if (s == NULL)
        bp_fatal("__kmpc_end_serialized_parallel: no serialized region is open");
    t->serial = s->prev;
    bp_fork_end(&s->frame);
    free(s);
}
