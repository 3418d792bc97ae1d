/* team.c: teams, carved out of the pool's workers. A region's team is its
 * forking thread (thread 0) and workers reserved for it; regions forked by
 * different threads get different workers and run at the same time, so no
 * region ever waits for another thread's region to end.
 *
 * Ownership. A team belongs to the thread that forks with it, and is kept
 * for that thread's next region at the same nesting level (t->hot[level-1],
 * for the first BP_HOT_LEVELS levels): its workers stay reserved between
 * regions, as libomp keeps a root thread's hot team. The common case, one
 * application thread forking region after region, thus reserves nothing
 * after the first region: the fork takes its own team with one
 * compare-and-swap (state IDLE to RUNNING) on a line only it writes, and
 * goes on exactly as a pool with one team would. A region at a deeper level
 * takes a team and gives it back at its end.
 *
 * Carving. A thread whose team is missing or too small (its first region,
 * a larger num_threads) reserves workers from the pool under the pool's
 * lock (pool.c): idle workers first, lowest numbers first, then new ones.
 * The pool starts as many as it is asked for, up to BP_MAX_THREADS or the
 * thread limit, beyond the CPUs if need be: a second application thread's
 * region then runs on workers of its own, oversubscribed and waiting
 * politely, rather than waiting for the first one's (libgomp, whose
 * application threads each get threads of their own, does the same). A
 * team only grows: reserved workers are given back when the owning thread
 * exits (a thread-specific destructor) and at shutdown.
 *
 * Placement. Worker w keeps the place it was started on (the w-th after the
 * first caller's, pool.c), so a second team's workers, numbered after the
 * first team's, sit on the CPUs the first team does not use while there are
 * any; past the CPUs they share them and wait politely.
 *
 * Per-team state. Everything a team's threads share lives in its team: the
 * barrier's flags, the members' arrive words (the join, reductions), the
 * release flag, the single and nowait-reduction counters, the worksharing
 * ring (loop.c) and the ICVs its implicit tasks start with. A worker's slot
 * holds only what starts it (its start block, struct bp_go), which names
 * the team and the worker's number in it. Episodes are counted per team,
 * from 0 when the team is made: a team's words are its own, so a worker
 * moving to another team brings no stale episode with it.
 *
 * States. IDLE: kept by its owner between regions. RUNNING: a region runs
 * on it. TAKEN: out of use (shutdown, or the child of fork() where its
 * workers do not exist); its owner frees it when it next looks at it. The
 * owner moves IDLE to RUNNING with a compare-and-swap and then reads
 * shut_down; the shutdown sets shut_down and then moves each IDLE team to
 * TAKEN: with both sequentially consistent, either the fork sees the
 * shutdown (and gives the team back) or the shutdown sees the team running
 * and waits for it. A team another thread took (the pool out of workers)
 * has given its workers back already; one the shutdown took keeps them
 * until they stop.
 *
 * Freeing. Thread 0 sees a worker's arrive at the join before that worker
 * has finished with the flag (bp_flag_set reads its sleepers after the
 * store), so a team's arrays are freed, and its workers given to another
 * team, only once each worker has said it is done with its last region
 * (bp_pool_quiesce: a counter in the worker's own line, written after the
 * flag). Nothing waits on that in the fork or the join. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tasks/deque.h"
#include "../internal.h"
#include "pool.h"
#include "../prim.h"
#include "team.h"

/* Every team, for the shutdown and fork(): a list under teams_lock. */
static pthread_mutex_t teams_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bp_team *teams;

/* A thread that owns teams gives them back when it exits. */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int exit_key_made;

void bp_teams_lock(void) { pthread_mutex_lock(&teams_lock); }

void bp_teams_unlock(void) { pthread_mutex_unlock(&teams_lock); }

static int rounds_for(int n)
{
    int r = 0;
    while ((1 << r) < n)
        r++;
    return r > 0 ? r : 1;
}

static void *alloc_lines(size_t n, size_t size)
{
    size_t bytes = (n * size + BP_LINE - 1) / BP_LINE * BP_LINE;
    void *p = aligned_alloc(BP_LINE, bytes);
    if (p != NULL)
        memset(p, 0, bytes);
    return p;
}

/* Set every episode word of members from..cap-1 and of the barrier to the
 * team's episode; the next go publishes them. */
static void set_words(struct bp_team *team, int from)
{
    uint32_t e = (uint32_t)team->epoch;
    /* relaxed: no member runs; published by the next go */
    atomic_store_explicit(&team->release.value, e, memory_order_relaxed);
    /* every barrier so far is past: its tasks are drained */
    atomic_store_explicit(&team->drained, team->epoch, memory_order_relaxed);
    atomic_store_explicit(&team->ws_cancelled, 0, memory_order_relaxed);
    for (int i = from; i < team->cap; i++) {
        atomic_store_explicit(&team->members[i].arrive.value, e, memory_order_relaxed);
        atomic_store_explicit(&team->members[i].joined, e, memory_order_relaxed);
    }
    for (int i = 0; i < team->cap * team->nrounds; i++)
        atomic_store_explicit(&team->rounds[i].flag.value, e, memory_order_relaxed);
}

void bp_team_refresh_words(struct bp_team *team)
{
    set_words(team, 0);
    team->refreshed = team->epoch;
}

/* Wait until the team's workers have finished with its words (the last
 * join's flag); no region may start on it. */
static void quiesce(const struct bp_team *team)
{
    for (int i = 1; i < team->cap; i++)
        bp_pool_quiesce(team->members[i].worker);
}

/* The members' and the barrier's arrays for a team of cap (and the
 * listeners' block, hooks.h), the members kept so far copied over; 0 when
 * out of memory (the team unchanged). */
static int resize(struct bp_team *team, int cap)
{
    int nrounds = rounds_for(cap);
    struct bp_member *m = alloc_lines((size_t)cap, sizeof *m);
    struct bp_round *r = alloc_lines((size_t)cap * (size_t)nrounds, sizeof *r);
    if (m == NULL || r == NULL)
        goto out_of_memory;
    int old = team->cap;
    if (team->members != NULL)
        quiesce(team); /* the old arrays are freed, the listeners' block too */
    if (!bp_hook_team_resize(&team->listen, cap))
        goto out_of_memory;
    if (team->members != NULL)
        memcpy(m, team->members, sizeof *m * (size_t)old);
    free(team->members);
    free(team->rounds);
    team->members = m;
    team->rounds = r;
    team->nrounds = nrounds;
    team->cap = cap;
    set_words(team, 0); /* the rounds are new, and so are the new members */
    return 1;
out_of_memory:
    free(m);
    free(r);
    return 0;
}

static void unlink_team(struct bp_team *team)
{
    if (team->prev != NULL)
        team->prev->next = team->next;
    else
        teams = team->next;
    if (team->next != NULL)
        team->next->prev = team->prev;
    team->next = team->prev = NULL;
}

/* Give the team's workers back to the pool. */
static void give_back(struct bp_team *team)
{
    quiesce(team);
    for (int i = 1; i < team->cap; i++)
        bp_workers_release(team->members[i].worker);
}

/* Free a team nobody uses: with its workers given back first, or (TAKEN
 * teams) without, which were given back or stopped already. */
static void free_team(struct bp_team *team, int with_workers)
{
    if (with_workers)
        give_back(team);
    for (int i = 0; i < team->cap; i++) {
        /* relaxed: no region runs on the team */
        struct bp_deque *d = atomic_load_explicit(&team->members[i].tasks, memory_order_relaxed);
        if (d != NULL) {
            bp_deque_free(d);
            free(d);
        }
    }
    bp_loops_free(team->loops);
    free(team->members);
    free(team->rounds);
    bp_hook_team_free(team->listen);
    free(team);
}

/* t's kept teams, idle, go back to the pool (under the lock). */
static void drop_hot(struct bp_thread *t)
{
    for (int i = 0; i < BP_HOT_LEVELS; i++) {
        struct bp_team *team = t->hot[i];
        if (team == NULL)
            continue;
        t->hot[i] = NULL;
        int expected = BP_TEAM_IDLE;
        /* seq_cst: against the shutdown's, as in the fork */
        int idle = atomic_compare_exchange_strong(&team->state, &expected, BP_TEAM_TAKEN);
        if (idle || expected == BP_TEAM_TAKEN) {
            unlink_team(team);
            free_team(team, idle);
        }
    }
}

/* The calling thread exits: its idle teams' workers go back to the pool.
 * Nothing kept (a worker bp_teams_pause ends, whose teams it freed): no
 * lock, which the pause holds while it joins the worker. */
static void thread_exit(void *unused)
{
    (void)unused;
    struct bp_thread *t = bp_self();
    int kept = 0;
    for (int i = 0; i < BP_HOT_LEVELS; i++)
        kept |= t->hot[i] != NULL;
    if (!kept)
        return;
    bp_teams_lock();
    drop_hot(t);
    bp_teams_unlock();
}

void bp_teams_hide(struct bp_thread *t, struct bp_team *saved[BP_HOT_LEVELS])
{
    memcpy(saved, t->hot, sizeof t->hot);
    memset(t->hot, 0, sizeof t->hot);
}

void bp_teams_show(struct bp_thread *t, struct bp_team *const saved[BP_HOT_LEVELS])
{
    bp_teams_lock();
    drop_hot(t);
    bp_teams_unlock();
    memcpy(t->hot, saved, sizeof t->hot);
}

static void make_exit_key(void)
{
    exit_key_made = pthread_key_create(&exit_key, thread_exit) == 0;
}

/* A new team of level for t, with room for cap threads; NULL when out of
 * memory. */
static struct bp_team *new_team(struct bp_thread *t, int level)
{
    struct bp_team *team = alloc_lines(1, sizeof *team);
    if (team == NULL)
        return NULL;
    team->loops = bp_loops_new();
    if (team->loops == NULL) {
        free(team);
        return NULL;
    }
    team->owner = t;
    team->level = level;
    if (!resize(team, 1)) {
        bp_loops_free(team->loops);
        free(team);
        return NULL;
    }
    team->policy = -1; /* none yet: the first fork writes the line */
    /* relaxed: a hint (fork.c counts busy threads once two teams exist) */
    if (atomic_load_explicit(&bp_pool.teams_made, memory_order_relaxed) < 2)
        atomic_fetch_add_explicit(&bp_pool.teams_made, 1, memory_order_relaxed);
    return team;
}

/* Forget team in its owner's kept teams and free it; its workers are given
 * back already. The owner is in no region: the calling thread, or (a
 * pause) a pool worker waiting for its next start, which orders these
 * writes before its reads of hot[] and which then ends. Under the lock. */
static void forget(struct bp_team *team)
{
    struct bp_thread *owner = team->owner;
    for (int i = 0; i < BP_HOT_LEVELS; i++)
        if (owner->hot[i] == team)
            owner->hot[i] = NULL;
    unlink_team(team);
    free_team(team, 0);
}

/* Reserve up to n workers into ids; teams_lock held. When the pool can
 * start no more (the thread limit, BP_MAX_THREADS), idle teams give theirs
 * up: the calling thread's own first (its teams of other levels), then other
 * threads' (each moved to TAKEN, freed by its owner when it next looks). */
static int reserve_ids(struct bp_thread *t, const struct bp_team *keep, int n, int *ids)
{
    int got = bp_workers_reserve(n, ids);
    for (int pass = 0; pass < 2 && got < n; pass++) {
        for (struct bp_team *team = teams, *next; team != NULL && got < n; team = next) {
            next = team->next;
            if (team == keep || (team->owner == t) != (pass == 0))
                continue;
            int expected = BP_TEAM_IDLE;
            /* seq_cst: as in the fork; acquire: its last region is over */
            if (!atomic_compare_exchange_strong(&team->state, &expected, BP_TEAM_TAKEN))
                continue;
            give_back(team);
            if (team->owner == t)
                forget(team);
            got += bp_workers_reserve(n - got, ids + got);
        }
    }
    return got;
}

/* Reserve workers for members cap..want-1 of team; it keeps the ones it
 * got. */
static void reserve(struct bp_thread *t, struct bp_team *team, int want)
{
    int have = team->cap;
    if (want <= have)
        return;
    int ids[64];
    int got = 0;
    int *all = want - have <= 64 ? ids : malloc(sizeof *all * (size_t)(want - have));
    if (all != NULL)
        got = reserve_ids(t, team, want - have, all);
    if (got > 0 && resize(team, have + got)) {
        for (int i = 0; i < got; i++)
            team->members[have + i].worker = all[i];
    } else {
        for (int i = 0; i < got; i++)
            bp_workers_release(all[i]);
    }
    if (all != ids)
        free(all);
}

struct bp_team *bp_team_take(struct bp_thread *t, int level, int want, int *got, int *slow)
{
    int idx = level - 1;
    struct bp_team *team = idx < BP_HOT_LEVELS ? t->hot[idx] : NULL;
    if (team != NULL && team->cap >= want) {
        int expected = BP_TEAM_IDLE;
        /* seq_cst: see the top of the file */
        if (atomic_compare_exchange_strong(&team->state, &expected, BP_TEAM_RUNNING)) {
            if (!atomic_load(&bp_pool.shut_down)) {
                *got = want;
                return team;
            }
            atomic_store(&team->state, BP_TEAM_IDLE);
            return NULL;
        }
    }
    /* The slow path: make the team, or make it larger. */
    *slow = 1;
    bp_teams_lock();
    if (atomic_load(&bp_pool.shut_down)) {
        bp_teams_unlock();
        return NULL;
    }
    if (team != NULL && atomic_load_explicit(&team->state, memory_order_relaxed) ==
                            BP_TEAM_TAKEN) {
        unlink_team(team); /* its workers are gone (fork()) or stopped */
        free_team(team, 0);
        t->hot[idx] = team = NULL;
    }
    if (team == NULL) {
        team = new_team(t, level);
        if (team == NULL) {
            bp_teams_unlock();
            bp_warn("out of memory for a team of %d threads; the region runs on one thread",
                    want);
            return NULL;
        }
        team->next = teams;
        if (teams != NULL)
            teams->prev = team;
        teams = team;
        if (idx < BP_HOT_LEVELS) {
            t->hot[idx] = team;
            pthread_once(&exit_key_once, make_exit_key);
            if (exit_key_made)
                pthread_setspecific(exit_key, team);
        }
    }
    reserve(t, team, want);
    /* relaxed: the team is its owner's, the lock orders the rest */
    atomic_store_explicit(&team->state, BP_TEAM_RUNNING, memory_order_relaxed);
    bp_teams_unlock();
    *got = want < team->cap ? want : team->cap;
    return team;
}

void bp_team_put(struct bp_thread *t, struct bp_team *team)
{
    int idx = team->level - 1;
    if (idx < BP_HOT_LEVELS && t->hot[idx] == team) {
        /* release: the region's writes before a shutdown that takes it */
        atomic_store_explicit(&team->state, BP_TEAM_IDLE, memory_order_release);
        return;
    }
    bp_teams_lock(); /* a deeper level's team: given back whole */
    unlink_team(team);
    bp_teams_unlock();
    free_team(team, 1);
}

int bp_teams_stop(const struct timespec *deadline)
{
    bp_teams_lock();
    for (struct bp_team *team = teams; team != NULL; team = team->next) {
        for (;;) {
            int expected = BP_TEAM_IDLE;
            if (atomic_compare_exchange_strong(&team->state, &expected, BP_TEAM_TAKEN)) {
                quiesce(team); /* its owner may free it at its exit */
                break;
            }
            if (expected == BP_TEAM_TAKEN)
                break;
            if (team->owner == bp_self()) {
                /* the shutting-down thread's own region (exit() inside it) */
                bp_teams_unlock();
                return 0;
            }
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            if (now.tv_sec > deadline->tv_sec ||
                (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec)) {
                bp_teams_unlock();
                return 0;
            }
            struct timespec nap = {0, 1000 * 1000};
            nanosleep(&nap, NULL);
        }
    }
    bp_teams_unlock();
    if (exit_key_made) {
        /* the library may be unloaded: no destructor of ours may run later */
        pthread_key_delete(exit_key);
        exit_key_made = 0;
    }
    return 1;
}

int bp_teams_pause(void)
{
    bp_teams_lock();
    /* the shutdown sets shut_down before it takes the lock to stop the
     * teams and then the workers: seen here, or the pause is over first */
    if (atomic_load(&bp_pool.shut_down)) {
        bp_teams_unlock();
        return 0;
    }
    struct bp_team *team, *next, *busy = NULL;
    for (team = teams; team != NULL && busy == NULL; team = team->next) {
        int expected = BP_TEAM_IDLE;
        /* seq_cst: as in the fork (the top of the file) */
        if (atomic_compare_exchange_strong(&team->state, &expected, BP_TEAM_TAKEN))
            team->paused = 1;
        else if (expected == BP_TEAM_RUNNING)
            busy = team;
    }
    if (busy != NULL) { /* another thread's region: every team back as it was */
        for (team = teams; team != NULL; team = team->next) {
            if (team->paused) {
                team->paused = 0;
                /* release: as bp_team_put's (its owner may take it again) */
                atomic_store_explicit(&team->state, BP_TEAM_IDLE, memory_order_release);
            }
        }
        bp_teams_unlock();
        return 0;
    }
    for (team = teams; team != NULL; team = next) {
        next = team->next;
        if (team->paused) /* one taken before gave its workers back then */
            give_back(team);
        team->paused = 0;
        /* An application thread's stays, taken: its owner frees it when it
         * next looks (it may be looking now). The caller's too: a target
         * region run on the host has set them aside (fork.c's
         * bp_device_begin) and gives them back when it ends. */
        if (team->owner->pool_worker != 0)
            forget(team);
    }
    int stopped = bp_pool_stop_idle();
    bp_teams_unlock();
    return stopped;
}

void bp_teams_free_all(void)
{
    bp_teams_lock();
    for (struct bp_team *team = teams, *next; team != NULL; team = next) {
        next = team->next;
        free_team(team, 0); /* its workers are stopped */
    }
    teams = NULL;
    struct bp_thread *t = bp_self();
    for (int i = 0; i < BP_HOT_LEVELS; i++)
        t->hot[i] = NULL;
    bp_teams_unlock();
}

void bp_teams_fork_child(void)
{
    pthread_mutex_init(&teams_lock, NULL);
    struct bp_thread *t = bp_self();
    for (struct bp_team *team = teams, *next; team != NULL; team = next) {
        next = team->next;
        /* relaxed: the child has one thread */
        if (atomic_load_explicit(&team->state, memory_order_relaxed) == BP_TEAM_RUNNING &&
            team->owner == t) {
            /* a region the calling thread is inside (fork() from a region:
             * the child must not go on with it): kept, out of use */
            atomic_store_explicit(&team->state, BP_TEAM_TAKEN, memory_order_relaxed);
            continue;
        }
        /* idle, or another thread's, which does not exist here */
        for (int i = 0; i < BP_HOT_LEVELS; i++)
            if (t->hot[i] == team)
                t->hot[i] = NULL;
        unlink_team(team);
        free_team(team, 0);
    }
}

void bp_teams_test_set_epoch(uint64_t epoch)
{
    bp_teams_lock();
    for (struct bp_team *team = teams; team != NULL; team = team->next)
        if (atomic_load(&team->state) == BP_TEAM_IDLE)
            team->epoch = epoch;
    bp_teams_unlock();
}

/* Walk the active regions enclosing t from the innermost out: each team
 * names the one enclosing it as its thread 0 was in it (team->up_*). A
 * level between them is a region of one thread, numbered 0. */
int bp_ancestor(const struct bp_thread *t, int level, int *tid, int *size)
{
    if (level < 0 || level > t->level)
        return 0;
    if (level == t->level) {
        *tid = t->tid;
        *size = t->team_size;
        return 1;
    }
    int lv = t->act_level, id = t->act_tid, n = t->act_team;
    for (const struct bp_team *team = t->act_ptr; lv > level && team != NULL;) {
        lv = team->up_level;
        id = team->up_tid;
        n = team->up_size;
        team = team->up_team;
    }
    int found = lv == level && level > 0; /* level 0: the initial task, alone */
    *tid = found ? id : 0;
    *size = found ? n : 1;
    return 1;
}

/* Placement without a binding asked for (docs/placement.md): the caller is
 * not bound, workers are, and the caller's place at the pool's start is left
 * to it. The kernel may later move the caller onto a worker's CPU (its old
 * one taken by another program, or to balance queues); the two would then
 * share one CPU, a spinning worker delaying the caller it waits for, while
 * the caller's old place holds no thread of ours. So before an outermost
 * fork the caller looks at its CPU (sched_getcpu: rseq, no system call
 * where the C library has it), and when it has moved onto worker w's place
 * the two swap: w is bound to the place the caller left, and that becomes
 * w's (its home: go.c binds it there again after a team larger than the
 * CPU budget ran it unbound). The set of homes stays the same, so workers
 * started later still take places no one holds. Once the pool has more
 * threads than CPUs, they share them anyway and the caller is no longer
 * followed. Only the thread that started the pool is followed:
 * two application threads forking in turn from different CPUs would
 * otherwise swap a worker back and forth at every region. */
void bp_team_follow_caller(struct bp_team *team)
{
    if (bp_pool.first_caller != &bp_tls)
        return; /* another application thread's region: see above */
    int cpu = sched_getcpu();
    if (cpu == bp_pool.caller_cpu || cpu < 0)
        return;
    bp_pool.caller_cpu = cpu;
    int p = bp_place_of_cpu(cpu);
    int threads = atomic_load_explicit(&bp_pool.threads, memory_order_relaxed);
    if (p < 0 || p == bp_pool.caller_place || threads > bp_pool.ncpus)
        return;
    for (int i = 1; i < team->cap; i++) { /* its own team's workers, all idle */
        struct bp_slot *slot = &bp_pool.slots[team->members[i].worker];
        if (slot->home != p)
            continue;
        /* unbound (its last team was larger than the CPU budget, which a
         * quota puts below the CPUs): its new home is where the next team
         * that fits binds it; bound, it moves now (the next go publishes
         * the place) */
        if (slot->place != slot->home || bp_pool_bind(slot, bp_pool.caller_place))
            slot->home = bp_pool.caller_place;
        break;
    }
    bp_pool.caller_place = p;
}
