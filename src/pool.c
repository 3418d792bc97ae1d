/* pool.c: the thread pool. Threads are started by the first region that
 * needs them and kept, worker i pinned to the i-th allowed CPU (modulo their
 * number); the caller of a region is its thread 0. Regions run one at a
 * time.
 *
 * Team sizes. A region asks for the num_threads clause, else its task's
 * nthreads-var (omp_set_num_threads, OMP_NUM_THREADS), else the default: one
 * thread per allowed CPU. An explicit request is honoured beyond the CPUs,
 * as libgomp and libomp do (programs whose threads wait for each other need
 * the team they asked for): workers past the CPUs share them and wait
 * politely (they yield from the start), and while such a team runs every
 * waiter does. The limits (BUDDY_THREAD_POOL_THREADS, OMP_THREAD_LIMIT,
 * BP_MAX_THREADS) cap every team; dyn-var true caps it at the CPUs.
 *
 * Nesting. At most one enclosing region of a thread is active (has more than
 * one thread). A region forked inside an active one runs on its caller alone;
 * one forked inside inactive ones only (num_threads(1), if(0)) is active and
 * gets its full team, as in libgomp and libomp: libraries that plan shares
 * with omp_get_max_threads() rely on it. Such a nested team is part of its
 * outermost region in the profile; when that region holds fork_lock (a
 * profiled team of one) the nested fork does not take it again.
 *
 * Slots. Slot i (1 <= i < threads) belongs to worker i and holds two hot
 * blocks of BP_LINE bytes (and a cold one for its pthread handle):
 *   go:     written by the forker, read by worker i. go.value counts the
 *           regions slot i was asked to join; beside it is all the worker
 *           needs to start (function, context or a copy of it, team size,
 *           first episode), so one cache miss starts it. Worker i waits for
 *           go.value == regions seen + 1; run == NULL tells it to stop.
 *   arrive: written by worker i, read by thread 0. arrive.value is the last
 *           episode worker i reached (a reduction or the join);
 *           `reduce_data` beside it is its contribution to a reduction.
 * Slot 0's go and arrive are unused: whoever forks is thread 0.
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
 * Barrier: dissemination (Hensgen, Finkel and Manber 1988). In round k
 * (k < ceil(log2 T)) thread i sets its round-k flag to the episode and
 * waits for that of thread (i - 2^k) mod T. Each flag has one writer and
 * one reader and its own line; nothing is gathered and released, so with
 * two threads a barrier costs one cache-line transfer each way, at the same
 * time. A thread may set its round-k flag for episode e + 1 before its
 * reader has seen e, never e + 2, so readers wait for "reached".
 * Reduction: each worker sets its arrive to e with its data beside it and
 * waits for release == e; thread 0 folds every arrive == e in thread order
 * (so float results do not depend on timing), then sets release to e.
 * A nowait reduction is folded by the last thread to arrive instead (it
 * counts arrivals in reduce_arrived), still in thread order and into thread
 * 0's data; the folder does not wait, and thread 0 waits for the release
 * unless it folded. In a `parallel reduction` the worker that arrives last
 * thus goes straight on to the join.
 * Join: workers set arrive; thread 0 waits for them and does not release.
 *
 * Locks. fork_lock is held by thread 0 for a whole region: it serialises
 * regions from different application threads and guards pool growth,
 * `threads`, the go counters and the caller's pinning. A region's code must
 * therefore not wait for another thread that starts a region of its own: that
 * region waits for this one to end.
 *
 * fork(). The child has only the thread that called fork(): an atfork handler
 * takes fork_lock around fork() (so no region is half-started in the child)
 * and empties the child's pool, which regrows at its next region. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"
#include "prim.h"

struct bp_slot {
    /* What the worker needs first comes first: with a context of up to 32
     * bytes (a kmp microtask with two arguments) it is one 64-byte line. */
    alignas(BP_LINE) struct bp_flag go;
    bp_run_fn run;        /* NULL: stop */
    void *ctx;            /* the region's context, or inline_ctx */
    int team_size;
    uint32_t epoch_base;
    alignas(16) unsigned char inline_ctx[BP_INLINE_CTX];
    int level;            /* the region's nesting level */
    alignas(BP_LINE) struct bp_flag arrive;
    void *_Atomic reduce_data;
    uint32_t used_shared; /* the worker met loops or singles in the region */
    _Atomic int64_t wait_ns;   /* profiling: the worker's barrier waits in the region */
    _Atomic int64_t joined_ns; /* profiling: when the worker reached the join */
    _Atomic uint64_t iters;    /* profiling: the worker's loop iterations in the region */
    _Atomic int64_t woke_late_ns; /* profiling: fork to start if it slept, else -1 */
    alignas(BP_LINE) pthread_t thread;
    uint32_t go_count; /* forker's copy of go.value, under fork_lock */
    const void *trace_fn; /* tracing: the region's function, for the worker's track */
    int64_t fork_ns;      /* profiling: when the region's fork began */
    alignas(BP_LINE) struct bp_wait_stats wait_stats; /* profiling: the worker's waits */
};
_Static_assert(offsetof(struct bp_slot, arrive) == BP_LINE,
               "a slot's go block is one BP_LINE");

/* A dissemination barrier flag, alone in its lines. */
struct bp_round {
    alignas(BP_LINE) struct bp_flag flag;
};

static struct {
    pthread_mutex_t fork_lock;
    pthread_once_t init_once;
    _Atomic int max_threads;     /* cap: the limits, else BP_MAX_THREADS */
    int default_team;            /* allowed CPUs, lowered by the limits */
    _Atomic int threads;         /* started, slot 0 included; grows under fork_lock */
    _Atomic int shut_down;       /* set once by the destructor or a failed start */
    int ncpus;                   /* CPUs the process may run on */
    int nplaces;                 /* places (places.c) */
    int first_place;             /* the first caller's place; worker i's is i after it */
    _Atomic int caller_pinned;   /* bind_caller pinned caller_thread to place 0 */
    pthread_t caller_thread;
    cpu_set_t caller_mask;       /* caller_thread's affinity before that */
    struct bp_slot *slots;       /* max_threads of them (reserve) */
    size_t slots_bytes, rounds_bytes;
    int64_t *prof_wait;          /* profiling: per thread, the region's waits */
    uint64_t *prof_iters;        /* profiling: per thread, the region's iterations */
    struct bp_round *rounds;     /* slot i's round-k flag: rounds[i * nrounds + k] */
    int nrounds;                 /* ceil(log2(max_threads)) */
    uint64_t epoch;              /* episodes so far, under fork_lock */
    uint64_t refreshed;          /* the episode when words were last brought up */
    /* The ICVs the implicit tasks of the running region start with, under
     * fork_lock: written by thread 0 before the go stores publish it, and
     * only when they change, so the workers' copies of the line stay valid
     * from region to region. */
    alignas(BP_LINE) struct bp_icv team_icv;
    /* single constructs claimed in the running region: the k-th single of a
     * region is run by the thread that moves it from k - 1 to k */
    alignas(BP_LINE) _Atomic uint32_t singles_claimed;
    /* threads arrived at the running nowait reduction; 0 between them */
    alignas(BP_LINE) _Atomic uint32_t reduce_arrived;
    alignas(BP_LINE) struct bp_flag release;
} pool = {
    .fork_lock = PTHREAD_MUTEX_INITIALIZER,
    .init_once = PTHREAD_ONCE_INIT,
    .threads = 1,
};

/* Found by `buddypool run` in a program that has the library linked in even
 * when stripping removed its symbol tables (so it is not preloaded twice). */
__attribute__((used)) static const char linked_marker[] =
    "buddypool runtime: libbuddypool is linked in";

static _Thread_local struct bp_thread self = {.team_size = 1, .gtid = -1, .place = -1};
static _Atomic int next_gtid;

struct bp_thread *bp_self(void) { return &self; }

void bp_icv_init(struct bp_thread *t)
{
    bp_config_load();
    t->icv = bp_config.icv;
    t->team_sched = t->icv.run_sched;
    t->team_chunk = t->icv.run_chunk;
    t->icv_ready = 1;
}

/* The ICVs of the implicit tasks of a region at `level` forked by a task
 * with `parent`'s. */
static struct bp_icv child_icv(const struct bp_icv *parent, int level)
{
    struct bp_icv c = *parent;
    if (level < bp_config.nthreads_levels)
        c.nthreads = bp_config.nthreads_list[level];
    return c;
}

int bp_gtid(struct bp_thread *t)
{
    if (t->gtid < 0)
        t->gtid = atomic_fetch_add_explicit(&next_gtid, 1, memory_order_relaxed);
    return t->gtid;
}

/* fork_lock, with the holding thread marked in its own state (the destructor
 * asks whether it holds the lock). */
static void fork_lock(void)
{
    pthread_mutex_lock(&pool.fork_lock);
    self.holds_fork_lock = 1;
}

static void fork_unlock(void)
{
    self.holds_fork_lock = 0;
    pthread_mutex_unlock(&pool.fork_lock);
}

static int atfork_locked; /* the forking thread holds fork_lock for fork() */

static void atfork_prepare(void)
{
    /* Inside a region this thread may hold fork_lock already, or its thread 0
     * does and waits for it: fork() from a region gives a child that must not
     * start regions (as with libgomp). */
    if (self.level == 0) {
        fork_lock();
        atfork_locked = 1;
    }
}

static void atfork_parent(void)
{
    if (atfork_locked) {
        atfork_locked = 0;
        fork_unlock();
    }
}

static void atfork_child(void)
{
    /* The workers did not come along: the pool starts again from one thread. */
    atfork_locked = 0;
    self.holds_fork_lock = 0;
    pthread_mutex_init(&pool.fork_lock, NULL);
    size_t used = (size_t)atomic_load_explicit(&pool.threads, memory_order_relaxed);
    atomic_store_explicit(&pool.threads, 1, memory_order_relaxed);
    atomic_store_explicit(&bp_oversubscribed, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.reduce_arrived, 0, memory_order_relaxed);
    /* fork() from a serialized region may copy another thread's region
     * half-way through its loops and singles */
    bp_loops_reset();
    atomic_store_explicit(&pool.singles_claimed, 0, memory_order_relaxed);
    bp_wait_fork_child();
    bp_wait_stats_clear(&bp_caller_wait_stats); /* the parent's */
    atomic_store_explicit(&pool.caller_pinned, 0, memory_order_relaxed);
    memset(&pool.release, 0, sizeof pool.release);
    bp_profile_fork_child(); /* the parent reports its own regions */
    if (bp_tracing)
        bp_trace_free(&self); /* and writes its own trace */
    /* only the slots the parent used were ever written */
    if (pool.slots != NULL)
        memset(pool.slots, 0, sizeof(struct bp_slot) * used);
    if (pool.rounds != NULL)
        memset(pool.rounds, 0, sizeof(struct bp_round) * used * (size_t)pool.nrounds);
    pool.epoch = pool.refreshed = 0;
}

/* OMP_DISPLAY_ENV: once the pool's configuration is complete, but outside
 * pool_init's once-routine, which omp_display_env's queries enter again. */
static void display_env_once(void)
{
    static _Atomic int displayed;
    /* relaxed: only the one display depends on it */
    if (atomic_load_explicit(&displayed, memory_order_relaxed) == 0 &&
        atomic_exchange_explicit(&displayed, 1, memory_order_relaxed) == 0)
        omp_display_env(bp_config.display_env == 2);
}

/* Zeroed memory for size bytes, reserved without backing; NULL if none. */
static void *reserve(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void pool_init(void)
{
    bp_config_load();
    cpu_set_t set;
    int n = bp_allowed_cpus(&set);
    if (n <= 0) {
        n = 1;
        CPU_ZERO(&set);
        CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &set);
    }
    int places_failed = bp_places_init(&set);
    pool.nplaces = bp_places_count();
    pool.ncpus = n;

    int max = bp_config.thread_limit > 0 ? bp_config.thread_limit : BP_MAX_THREADS;
    if (max > BP_MAX_THREADS)
        max = BP_MAX_THREADS;
    int def = n;
    if (bp_config.oversubscribe && bp_config.thread_limit > 0)
        def = bp_config.thread_limit; /* tests: the default team beyond the CPUs */
    if (def > max)
        def = max;
    int nrounds = 0;
    while ((1 << nrounds) < max)
        nrounds++;
    pool.nrounds = nrounds > 0 ? nrounds : 1;
    /* Room for the largest team, reserved and not committed: a page is
     * backed once a thread of its slots has started. */
    pool.slots_bytes = sizeof(struct bp_slot) * (size_t)max;
    pool.rounds_bytes = sizeof(struct bp_round) * (size_t)max * (size_t)pool.nrounds;
    pool.slots = reserve(pool.slots_bytes);
    pool.rounds = reserve(pool.rounds_bytes);
    if (places_failed || pool.slots == NULL || pool.rounds == NULL) {
        bp_warn("out of memory starting the pool; regions run on one thread");
        max = def = 1;
    }
    pool.default_team = def;
    atomic_store_explicit(&pool.max_threads, max, memory_order_relaxed);
    bp_trace_init(); /* before the profile, whose clock reads it needs */
    bp_profile_init(max);
    if (bp_profiling) {
        pool.prof_wait = calloc((size_t)max, sizeof *pool.prof_wait);
        pool.prof_iters = calloc((size_t)max, sizeof *pool.prof_iters);
        if (pool.prof_wait == NULL || pool.prof_iters == NULL)
            bp_fatal("profile: out of memory for %d threads", max);
    }
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static void ensure_init(void)
{
    pthread_once(&pool.init_once, pool_init);
    if (__builtin_expect(bp_config.display_env != 0, 0))
        display_env_once();
}

void bp_pool_lock(void)
{
    ensure_init();
    fork_lock();
}

void bp_pool_unlock(void) { fork_unlock(); }

/* Wait statistics of thread i of the pool: the callers' for 0, worker i's
 * slot, or NULL where no worker i was started. */
static struct bp_wait_stats *wait_stats_of(int i)
{
    if (i == 0)
        return &bp_caller_wait_stats;
    int threads = atomic_load_explicit(&pool.threads, memory_order_relaxed);
    return i < threads && pool.slots != NULL ? &pool.slots[i].wait_stats : NULL;
}

void bp_pool_wait_stats(struct bp_wait_stats *out, int n)
{
    for (int i = 0; i < n; i++) {
        struct bp_wait_stats *from = wait_stats_of(i);
        if (from != NULL)
            bp_wait_stats_read(&out[i], from);
        else
            bp_wait_stats_clear(&out[i]);
    }
}

void bp_pool_wait_stats_reset(void)
{
    int n = atomic_load_explicit(&pool.max_threads, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        struct bp_wait_stats *w = wait_stats_of(i);
        if (w != NULL)
            bp_wait_stats_clear(w);
    }
}

void bp_pool_test_set_epoch(uint64_t epoch)
{
    bp_pool_lock();
    pool.epoch = epoch;
    bp_pool_unlock();
}

int bp_max_team(void)
{
    ensure_init();
    return atomic_load_explicit(&pool.max_threads, memory_order_relaxed);
}

int bp_default_team(void)
{
    ensure_init();
    return pool.default_team;
}

int bp_pool_cpus(void)
{
    ensure_init();
    return pool.ncpus;
}

int bp_pool_threads(void)
{
    return atomic_load_explicit(&pool.threads, memory_order_relaxed);
}

/* Pinning an application thread would hold for everything it creates
 * afterwards (threads, child processes, another pool's CPU count), so a
 * caller is pinned only when OMP_PROC_BIND (or OMP_PLACES) asks for it, and
 * restored at shutdown: the first thread to fork a region (a team of one
 * too) or to ask its place, bound to place 0 as libgomp and libomp bind
 * their initial thread. Workers leave that place to it. */
void bp_bind_caller(void)
{
    static _Atomic int claimed;
    if (!bp_config.pin_caller ||
        atomic_load_explicit(&claimed, memory_order_relaxed) ||
        atomic_exchange_explicit(&claimed, 1, memory_order_relaxed))
        return;
    ensure_init();
    const cpu_set_t *place = bp_place_set(0); /* none after the shutdown */
    if (place == NULL ||
        pthread_getaffinity_np(pthread_self(), sizeof pool.caller_mask, &pool.caller_mask) != 0)
        return;
    pool.caller_thread = pthread_self();
    (void)pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), place);
    self.place = 0;
    /* release: the shutdown's acquire reads caller_thread and caller_mask */
    atomic_store_explicit(&pool.caller_pinned, 1, memory_order_release);
}

/* The place worker i is bound to. */
static int worker_place(int i)
{
    return (pool.first_place + i) % pool.nplaces;
}

static void *worker_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    /* Named for top -H, gdb and perf: "buddypool-N" (N < 100000 fits the
     * kernel's 15 characters). Best effort. */
    char name[16];
    snprintf(name, sizeof name, "buddypool-%u", (unsigned)id % 100000u);
    (void)pthread_setname_np(pthread_self(), name);
    struct bp_slot *slot = &pool.slots[id];
    struct bp_thread *t = &self;
    t->pool_id = id;
    t->wait_stats = &slot->wait_stats;
    /* a worker past the CPUs shares its CPU with another pool thread */
    bp_wait_set_polite(id >= pool.ncpus);
    uint32_t seen = 0;
    for (;;) {
        t->slept = 0;
        bp_flag_wait(&slot->go, seen + 1);
        seen++;
        int64_t woke_ns = 0;
        if (bp_profiling) {
            int slept = t->slept;
            if (slept || bp_tracing)
                woke_ns = bp_now_ns();
            /* relaxed: published by the join's release */
            atomic_store_explicit(&slot->woke_late_ns, slept ? woke_ns - slot->fork_ns : -1,
                                  memory_order_relaxed);
        }
        /* the go block, written before the go flag's release store */
        bp_run_fn run = slot->run;
        if (run == NULL)
            break;
        t->tid = id;
        t->team_size = slot->team_size;
        t->level = slot->level;
        t->active_level = 1;
        t->act_level = slot->level;
        t->act_tid = id;
        t->act_team = slot->team_size;
        t->place = bp_config.pin ? worker_place(id) : -1;
        t->epoch = slot->epoch_base;
        t->singles = 0;
        t->constructs = 0;
        /* a new implicit task: the team's ICVs, published with the go */
        t->icv = pool.team_icv;
        t->icv_ready = 1;
        t->team_sched = t->icv.run_sched;
        t->team_chunk = t->icv.run_chunk;
        t->task_id = 0;
        t->wait_ns = 0;
        t->iters = 0;
        run(id, slot->ctx);
        if (bp_profiling) {
            int64_t joined_ns = bp_now_ns();
            if (bp_tracing)
                bp_trace_event(t, BP_TRACE_REGION, slot->trace_fn, woke_ns, joined_ns);
            /* relaxed: published by the join's release in bp_flag_set */
            atomic_store_explicit(&slot->joined_ns, joined_ns, memory_order_relaxed);
            atomic_store_explicit(&slot->wait_ns, t->wait_ns, memory_order_relaxed);
            atomic_store_explicit(&slot->iters, t->iters, memory_order_relaxed);
        }
        t->level = 0;
        t->active_level = 0;
        t->act_level = 0;
        t->tid = 0;
        t->team_size = 1;
        slot->used_shared = t->constructs | t->singles;
        /* the join, publishing used_shared */
        bp_flag_set(&slot->arrive, (uint32_t)++t->epoch);
    }
    return NULL;
}

/* Slot i's episode words (its arrive and its barrier rounds) at epoch;
 * no thread reads them until a go publishes them (or thread creation). */
static void set_slot_words(int i, uint32_t epoch)
{
    /* relaxed: published as above */
    atomic_store_explicit(&pool.slots[i].arrive.value, epoch, memory_order_relaxed);
    for (int k = 0; k < pool.nrounds; k++)
        atomic_store_explicit(&pool.rounds[i * pool.nrounds + k].flag.value, epoch,
                              memory_order_relaxed);
}

/* Start workers up to `want` threads in all. Called under fork_lock. */
static void grow(int want)
{
    int have = atomic_load_explicit(&pool.threads, memory_order_relaxed);
    if (want > bp_max_team())
        want = bp_max_team();
    if (have >= want)
        return;
    /* The first start: the caller keeps the place of the CPU it is running
     * on now (it is bound to place 0 when a binding is asked for), and worker
     * i gets the i-th place after it (close binding), so none starts on the
     * caller's place while there are places. */
    if (have == 1) {
        int p = bp_place_of_cpu(sched_getcpu());
        pool.first_place = p >= 0 ? p : 0;
        if (bp_config.pin_caller)
            pool.first_place = 0; /* bound as libgomp and libomp bind: from place 0 */
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    for (int i = have; i < want; i++) {
        struct bp_slot *slot = &pool.slots[i];
        /* A new worker starts from seen == 0, its episode words at the
         * current episode like every other slot's (thread creation
         * publishes them). */
        atomic_store_explicit(&slot->go.value, 0, memory_order_relaxed);
        slot->go_count = 0;
        set_slot_words(i, (uint32_t)pool.epoch);
        if (bp_config.pin)
            pthread_attr_setaffinity_np(&attr, sizeof(cpu_set_t),
                                        bp_place_set(worker_place(i)));
        int err = pthread_attr_setstacksize(&attr, bp_config.stack_bytes);
        if (err == 0)
            err = pthread_create(&slot->thread, &attr, worker_main, (void *)(intptr_t)i);
        if (err != 0 && bp_config.stack_bytes != ((size_t)8 << 20)) {
            /* A 256M reservation can fail under a tight RLIMIT_AS, a small
             * size below what the C library takes. */
            pthread_attr_setstacksize(&attr, (size_t)8 << 20);
            err = pthread_create(&slot->thread, &attr, worker_main, (void *)(intptr_t)i);
            if (err == 0) {
                bp_warn("could not start a worker with a %zu-byte stack (OMP_STACKSIZE); "
                        "using 8M", bp_config.stack_bytes);
                bp_config.stack_bytes = (size_t)8 << 20;
            }
        }
        if (err != 0) {
            bp_warn("could not start worker thread %d (%s); the pool keeps %d threads",
                    i, strerror(err), i);
            atomic_store_explicit(&pool.max_threads, i, memory_order_relaxed);
            break;
        }
        atomic_store_explicit(&pool.threads, i + 1, memory_order_relaxed);
    }
    pthread_attr_destroy(&attr);
}

int bp_requested_threads(struct bp_thread *t)
{
    ensure_init();
    if (t->pushed_threads > 0)
        return t->pushed_threads;
    int n = bp_icv(t)->nthreads;
    return n > 0 ? n : pool.default_team;
}

/* The team a region that asks for n threads gets from t's task: at most the
 * cap, at most the CPUs under dyn-var, one thread when the task may start no
 * further active level. */
static int team_size_for(struct bp_thread *t, int n)
{
    const struct bp_icv *icv = bp_icv(t);
    int max = atomic_load_explicit(&pool.max_threads, memory_order_relaxed);
    if (icv->dynamic && max > pool.default_team)
        max = pool.default_team;
    if (t->active_level >= icv->max_active_levels)
        max = 1;
    return n < max ? n : max;
}

static void save_team(const struct bp_thread *t, struct team_state *s)
{
    *s = (struct team_state){t->tid,        t->team_size,  t->level,      t->active_level,
                             t->epoch,      t->singles,    t->constructs, t->loop,
                             t->icv,        t->team_sched, t->team_chunk, t->task_id,
                             t->act_level,  t->act_tid,    t->act_team};
}

static void restore_team(struct bp_thread *t, const struct team_state *s)
{
    t->tid = s->tid;
    t->team_size = s->team_size;
    t->level = s->level;
    t->active_level = s->active_level;
    t->epoch = s->epoch;
    t->singles = s->singles;
    t->constructs = s->constructs;
    bp_loop_discard(&t->loop);
    t->loop = s->loop;
    t->icv = s->icv;
    t->team_sched = s->team_sched;
    t->team_chunk = s->team_chunk;
    t->task_id = s->task_id;
    t->act_level = s->act_level;
    t->act_tid = s->act_tid;
    t->act_team = s->act_team;
}

/* t becomes thread 0 of a new region: a new implicit task, whose ICVs come
 * from the one that forks it; the team's loops follow its runtime schedule. */
static void begin_task(struct bp_thread *t, const struct bp_icv *icv)
{
    t->icv = *icv;
    t->team_sched = icv->run_sched;
    t->team_chunk = icv->run_chunk;
    t->task_id = 0;
    t->tid = 0;
    t->level++;
    t->singles = 0;
    t->constructs = 0;
}

/* Enter and leave the state of a region of one thread on the caller. */
static void serial_enter(struct bp_thread *t, struct team_state *saved)
{
    struct bp_icv icv = child_icv(bp_icv(t), t->level + 1);
    save_team(t, saved);
    begin_task(t, &icv);
    t->team_size = 1;
}

/* Bring every episode word up to the current episode (see the top of the
 * file); no region runs. */
static void refresh_words(uint64_t epoch64)
{
    uint32_t epoch = (uint32_t)epoch64;
    int threads = atomic_load_explicit(&pool.threads, memory_order_relaxed);
    /* relaxed: published to each worker by its next go */
    atomic_store_explicit(&pool.release.value, epoch, memory_order_relaxed);
    for (int i = 0; i < threads; i++)
        set_slot_words(i, epoch);
    pool.refreshed = epoch64;
}

/* Once per process: a team larger than the CPUs. */
static void warn_oversubscribed(int team_size)
{
    static _Atomic int warned;
    /* relaxed: only the one warning depends on it */
    if (atomic_exchange_explicit(&warned, 1, memory_order_relaxed) == 0)
        bp_warn("a team of %d threads on %d allowed CPUs: the threads beyond the CPUs share "
                "them and wait politely (yield, then sleep); this is said once", team_size,
                pool.ncpus);
}

/* Start workers 1..team_size-1 on the region and make the caller its thread
 * 0; fork_lock held. */
static void team_enter(struct bp_thread *t, int team_size, bp_run_fn run, void *ctx,
                       size_t ctx_size, const void *fn, int64_t start_ns,
                       struct team_state *saved)
{
    uint64_t epoch_base = pool.epoch;
    if (epoch_base - pool.refreshed >= (uint64_t)1 << 30)
        refresh_words(epoch_base);
    int copy = ctx_size > 0 && ctx_size <= BP_INLINE_CTX;
    int level = t->level + 1;
    struct bp_icv icv = child_icv(bp_icv(t), level);
    if (memcmp(&pool.team_icv, &icv, sizeof icv) != 0)
        pool.team_icv = icv;
    /* relaxed: read by this team's waits, which are polite past the CPUs */
    int over = team_size > pool.ncpus;
    if (atomic_load_explicit(&bp_oversubscribed, memory_order_relaxed) != over)
        atomic_store_explicit(&bp_oversubscribed, over, memory_order_relaxed);
    for (int i = 1; i < team_size; i++) {
        struct bp_slot *slot = &pool.slots[i];
        slot->run = run;
        slot->ctx = copy ? memcpy(slot->inline_ctx, ctx, ctx_size) : ctx;
        slot->team_size = team_size;
        slot->epoch_base = (uint32_t)epoch_base;
        slot->level = level;
        if (bp_tracing)
            slot->trace_fn = fn;
        if (bp_profiling)
            slot->fork_ns = start_ns;
        /* release: publishes the go block and the words above */
        bp_flag_publish(&slot->go, ++slot->go_count);
    }
    /* Then the sleepers: one fence for the whole team (wait.c). */
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 1; i < team_size; i++)
        bp_flag_wake_sleepers(&pool.slots[i].go);
    save_team(t, saved);
    begin_task(t, &icv);
    t->team_size = team_size;
    t->active_level++;
    t->act_level = level;
    t->act_tid = 0;
    t->act_team = team_size;
    t->epoch = epoch_base;
    if (level == 1) { /* profiling: a nested team's waits count in its outermost region */
        t->wait_ns = 0;
        t->barriers = 0;
    }
}

/* The join: wait for workers 1..team_size-1 to finish the region. When
 * profiling, the join counts as the region's closing barrier: every thread
 * waits there from its arrival to the end of the join. */
static void team_leave(struct bp_thread *t, struct bp_fork_frame *f)
{
    int timed = bp_profiling && f->outermost;
    int64_t joined_ns = timed ? bp_now_ns() : 0;
    uint32_t end = (uint32_t)++t->epoch;
    uint32_t used = t->constructs | t->singles;
    for (int i = 1; i < f->team_size; i++) {
        bp_flag_wait(&pool.slots[i].arrive, end);
        used |= pool.slots[i].used_shared;
    }
    pool.epoch = t->epoch;
    /* Clear the team's shared loop and single state for the next region, now
     * that no thread uses it; a region that used none skips this. The next
     * go publishes the stores. */
    if (used != 0) {
        bp_loops_reset();
        atomic_store_explicit(&pool.singles_claimed, 0, memory_order_relaxed);
    }
    if (timed) {
        f->end_ns = bp_now_ns();
        f->joined_ns = joined_ns;
        f->wait_t0_ns = t->wait_ns + (f->end_ns - joined_ns);
        f->wait_ns = f->wait_t0_ns;
        f->last_at_join = 0;
        f->woken = 0;
        f->wake_sum_ns = f->wake_max_ns = 0;
        int64_t last_ns = joined_ns;
        pool.prof_wait[0] = f->wait_t0_ns;
        pool.prof_iters[0] = t->iters;
        for (int i = 1; i < f->team_size; i++) {
            struct bp_slot *slot = &pool.slots[i];
            /* relaxed: ordered after the join's acquire */
            int64_t w = atomic_load_explicit(&slot->wait_ns, memory_order_relaxed);
            int64_t j = atomic_load_explicit(&slot->joined_ns, memory_order_relaxed);
            pool.prof_wait[i] = w + (f->end_ns - j);
            pool.prof_iters[i] = atomic_load_explicit(&slot->iters, memory_order_relaxed);
            f->wait_ns += pool.prof_wait[i];
            if (j > last_ns) {
                last_ns = j;
                f->last_at_join = i;
            }
            int64_t late = atomic_load_explicit(&slot->woke_late_ns, memory_order_relaxed);
            if (late >= 0) {
                f->woken++;
                f->wake_sum_ns += late;
                if (late > f->wake_max_ns)
                    f->wake_max_ns = late;
            }
        }
        f->barriers = t->barriers + 1;
    }
}

void bp_fork_begin(struct bp_fork_frame *f, int team_size, bp_run_fn run, void *ctx,
                   size_t ctx_size, const void *fn)
{
    struct bp_thread *t = &self;
    ensure_init();
    if (bp_config.pin_caller && t->level == 0)
        bp_bind_caller();
    if (team_size <= 0)
        team_size = bp_requested_threads(t);
    t->pushed_threads = 0;
    team_size = team_size_for(t, team_size);
    f->fn = fn;
    f->locked = 0;
    f->outermost = t->level == 0;
    f->team_size = 1;
    /* acquire: pairs with the destructor's release of shut_down */
    if (atomic_load_explicit(&pool.shut_down, memory_order_acquire) ||
        (team_size <= 1 && !(bp_profiling && f->outermost))) {
        serial_enter(t, &f->saved);
        return;
    }
    /* Regions run one at a time; profiled ones, teams of one too, are timed
     * inside fork_lock, so regions never overlap in time. A team nested in
     * a profiled team of one runs inside its lock. */
    if (!t->holds_fork_lock) {
        fork_lock();
        f->locked = 1;
    }
    if (atomic_load_explicit(&pool.shut_down, memory_order_relaxed)) {
        if (f->locked)
            fork_unlock();
        f->locked = 0;
        serial_enter(t, &f->saved);
        return;
    }
    f->start_ns = bp_profiling && f->outermost ? bp_now_ns() : 0; /* pool growth is part of it */
    if (f->outermost)
        t->iters = 0;
    if (team_size > 1) {
        grow(team_size);
        int threads = atomic_load_explicit(&pool.threads, memory_order_relaxed);
        if (team_size > threads)
            team_size = threads; /* fewer workers could be started */
        if (team_size > pool.ncpus)
            warn_oversubscribed(team_size);
    }
    f->team_size = team_size;
    if (team_size > 1) {
        team_enter(t, team_size, run, ctx, ctx_size, fn, f->start_ns, &f->saved);
    } else {
        serial_enter(t, &f->saved);
        t->barriers = 0;
    }
}

void bp_fork_end(struct bp_fork_frame *f)
{
    struct bp_thread *t = &self;
    int timed = bp_profiling && f->outermost && f->locked;
    if (f->team_size > 1) {
        team_leave(t, f);
    } else if (timed) {
        f->end_ns = bp_now_ns();
        f->wait_ns = f->wait_t0_ns = 0;
        f->barriers = t->barriers + 1;
        f->last_at_join = -1;
        f->woken = 0;
        f->wake_sum_ns = f->wake_max_ns = 0;
        pool.prof_wait[0] = 0;
        pool.prof_iters[0] = t->iters;
    }
    restore_team(t, &f->saved);
    if (timed) {
        struct bp_region_sample sample = {
            f->fn, f->start_ns, f->end_ns, f->wait_ns, f->wait_t0_ns, f->team_size,
            f->barriers, pool.prof_wait, pool.prof_iters, f->last_at_join,
            f->woken, f->wake_sum_ns, f->wake_max_ns};
        bp_profile_region(&sample);
    }
    if (bp_tracing && f->outermost && f->locked) {
        bp_trace_event(t, BP_TRACE_REGION, f->fn, f->start_ns, f->end_ns);
        if (f->team_size > 1)
            bp_trace_event(t, BP_TRACE_JOIN, NULL, f->joined_ns, f->end_ns);
    }
    if (f->locked)
        fork_unlock();
}

void bp_fork(int team_size, bp_run_fn run, void *ctx, size_t ctx_size, const void *fn)
{
    struct bp_fork_frame f;
    bp_fork_begin(&f, team_size, run, ctx, ctx_size, fn);
    run(0, ctx);
    bp_fork_end(&f);
}

static void barrier_wait(struct bp_thread *t)
{
    uint32_t e = (uint32_t)++t->epoch;
    int n = t->team_size, i = t->tid;
    struct bp_round *mine = &pool.rounds[i * pool.nrounds];
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        int from = i >= d ? i - d : i - d + n;
        bp_flag_set(&mine[k].flag, e);
        bp_flag_wait_reached(&pool.rounds[from * pool.nrounds + k].flag, e);
    }
}

/* A blocking reduction: thread 0 folds, and releases at bp_reduce_end. */
static int reduce_gather(struct bp_thread *t, void *data, void (*combine)(void *, void *))
{
    uint32_t e = (uint32_t)++t->epoch;
    if (t->tid != 0) {
        struct bp_slot *slot = &pool.slots[t->tid];
        /* relaxed: published by the release in bp_flag_set */
        atomic_store_explicit(&slot->reduce_data, data, memory_order_relaxed);
        bp_flag_set(&slot->arrive, e);
        bp_flag_wait(&pool.release, e);
        return 0;
    }
    for (int i = 1; i < t->team_size; i++) {
        struct bp_slot *slot = &pool.slots[i];
        bp_flag_wait(&slot->arrive, e);
        /* relaxed: ordered after the acquire in bp_flag_wait */
        combine(data, atomic_load_explicit(&slot->reduce_data, memory_order_relaxed));
    }
    t->reduce_open = 1;
    return 1;
}

/* A nowait reduction, folded by the last thread to arrive. */
static int reduce_last_folds(struct bp_thread *t, void *data, void (*combine)(void *, void *))
{
    uint32_t e = (uint32_t)++t->epoch;
    int n = t->team_size;
    /* relaxed: published by the release half of the fetch_add below */
    atomic_store_explicit(&pool.slots[t->tid].reduce_data, data, memory_order_relaxed);
    /* acq_rel: the last arriver sees every thread's data pointer and data */
    if (atomic_fetch_add_explicit(&pool.reduce_arrived, 1, memory_order_acq_rel) + 1 !=
        (uint32_t)n) {
        bp_flag_wait(&pool.release, e); /* until the folder no longer reads data */
        return t->tid == 0;
    }
    void *into = atomic_load_explicit(&pool.slots[0].reduce_data, memory_order_relaxed);
    for (int i = 1; i < n; i++)
        combine(into, atomic_load_explicit(&pool.slots[i].reduce_data, memory_order_relaxed));
    /* relaxed: every thread has arrived; the release store publishes it */
    atomic_store_explicit(&pool.reduce_arrived, 0, memory_order_relaxed);
    bp_flag_set(&pool.release, e);
    return t->tid == 0;
}

/* Profiling: thread 0 of an outermost team counts each episode (a team of
 * one too); every thread adds its time from arrival to release. */
static int64_t profile_arrive(struct bp_thread *t)
{
    if (t->level == 1 && t->tid == 0)
        t->barriers++;
    return t->team_size > 1 ? bp_now_ns() : 0;
}

static void profile_release(struct bp_thread *t, int64_t arrived_ns)
{
    if (t->team_size > 1) {
        int64_t now = bp_now_ns();
        t->wait_ns += now - arrived_ns;
        if (bp_tracing)
            bp_trace_event(t, BP_TRACE_BARRIER, NULL, arrived_ns, now);
    }
}

void bp_barrier(struct bp_thread *t)
{
    if (bp_profiling) {
        int64_t a = profile_arrive(t);
        if (t->team_size > 1)
            barrier_wait(t);
        profile_release(t, a);
        return;
    }
    if (t->team_size > 1)
        barrier_wait(t);
}

static int reduce(struct bp_thread *t, void *data, void (*combine)(void *, void *), int nowait)
{
    if (t->team_size <= 1)
        return 1;
    return nowait ? reduce_last_folds(t, data, combine) : reduce_gather(t, data, combine);
}

int bp_reduce(struct bp_thread *t, void *data, void (*combine)(void *, void *), int nowait)
{
    if (bp_profiling) {
        int64_t a = profile_arrive(t);
        int got = reduce(t, data, combine, nowait);
        profile_release(t, a);
        return got;
    }
    return reduce(t, data, combine, nowait);
}

int bp_single(struct bp_thread *t)
{
    if (t->team_size <= 1)
        return 1;
    uint32_t k = ++t->singles;
    uint32_t expected = k - 1;
    /* relaxed: the winner is decided by the value alone; what the single
     * writes is published by the barrier that follows it (or by none, under
     * nowait, as OpenMP says) */
    return atomic_compare_exchange_strong_explicit(&pool.singles_claimed, &expected, k,
                                                   memory_order_relaxed,
                                                   memory_order_relaxed);
}

void bp_reduce_end(struct bp_thread *t)
{
    if (t->reduce_open) {
        t->reduce_open = 0;
        bp_flag_set(&pool.release, (uint32_t)t->epoch);
    }
}

/* A serialized region is a region of one thread whose caller runs the body
 * itself between the two calls: bp_fork's halves with a team of one. */
struct bp_serial {
    struct bp_serial *prev;
    struct bp_fork_frame frame;
};

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

/* Stop and join the workers before the library's code goes away (dlclose)
 * or the process exits, and print the profile. Regions that start later run
 * on their caller alone. Joining is skipped where it cannot finish: when the
 * destructor runs inside a region (exit() from region code: on its thread 0
 * the profile is still printed, as it is complete up to that region), or
 * when another thread's region does not end within a second; at process
 * exit the kernel ends those threads. */
__attribute__((destructor)) static void pool_shutdown(void)
{
    bp_config_load();
    if (bp_config.profile)
        ensure_init(); /* a profiled run reports even when it ran no region */
    /* release: pairs with the acquire in bp_fork; from now on regions run
     * serially */
    atomic_store_explicit(&pool.shut_down, 1, memory_order_release);
    if (self.holds_fork_lock) {
        bp_profile_report(0); /* the workers are still in the region */
        return;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    if (self.level > 0 || pthread_mutex_timedlock(&pool.fork_lock, &deadline) != 0) {
        if (bp_profiling)
            bp_warn("profile not reported: a region was still running when the pool shut "
                    "down");
        return;
    }
    self.holds_fork_lock = 1;
    int threads = atomic_load_explicit(&pool.threads, memory_order_relaxed);
    for (int i = 1; i < threads; i++) {
        struct bp_slot *slot = &pool.slots[i];
        slot->run = NULL;
        bp_flag_set(&slot->go, ++slot->go_count);
    }
    for (int i = 1; i < threads; i++)
        pthread_join(pool.slots[i].thread, NULL);
    bp_profile_report(1);
    atomic_store_explicit(&pool.threads, 1, memory_order_relaxed);
    if (pool.slots != NULL)
        munmap(pool.slots, pool.slots_bytes);
    free(pool.prof_wait);
    free(pool.prof_iters);
    pool.prof_wait = NULL;
    pool.prof_iters = NULL;
    if (pool.rounds != NULL)
        munmap(pool.rounds, pool.rounds_bytes);
    bp_places_free();
    pool.nplaces = 0;
    pool.slots = NULL;
    pool.rounds = NULL;
    atomic_store_explicit(&pool.max_threads, 1, memory_order_relaxed);
    if (atomic_load_explicit(&pool.caller_pinned, memory_order_acquire) &&
        pthread_equal(pool.caller_thread, pthread_self())) {
        pthread_setaffinity_np(pthread_self(), sizeof pool.caller_mask, &pool.caller_mask);
        self.place = -1;
    }
    atomic_store_explicit(&pool.caller_pinned, 0, memory_order_relaxed);
    fork_unlock();
}
