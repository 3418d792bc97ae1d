/* pool.c: the thread pool's threads. They are started when a team needs
 * them and kept, worker i bound to the i-th place after its first caller's
 * (its home; with a binding asked for, each region then places its team,
 * and without one a team larger than the CPUs runs unbound: go.c);
 * the caller of a region is its thread 0 (team.c carves teams out of the
 * workers, fork.c starts and joins them, barrier.c synchronises them).
 * The pool knows no teams: a worker waits for its start block and hands it
 * to the routine it was given (bp_pool_serve: fork.c's worker's half of a
 * region). Its start, fork() and end steps are called by life.c.
 *
 * Slots. Slot i (1 <= i < threads) belongs to worker i. Its first line is
 * the start block (struct bp_go, team.h), written by whoever starts the
 * worker and read by it: go.flag counts the regions the worker was asked
 * to join, and beside it is all it needs to start (function, context or a
 * copy of it, team, number, team size, first episode), so one cache miss
 * starts it. Worker i waits for go.flag == regions seen + 1; run == NULL
 * tells it to stop. Its second line holds what changes rarely (its place
 * and place partition), its third the pthread handle and the starter's
 * counter. Slot 0 is unused: whoever forks is thread 0.
 *
 * Locks. workers_lock guards starting workers, `threads`, and the set of
 * idle ones (a bitmap); team.c reserves workers under it, a few at a time,
 * and holds them. Regions themselves take no lock.
 *
 * fork(). The child has only the thread that called fork(): life.c's
 * handlers hold the locks around fork() (so no team is half-made in the
 * child) and empty the child's pool, which regrows at its next region. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../internal.h"
#include "pool.h"
#include "../prim.h"

struct bp_pool bp_pool = {
    .workers_lock = PTHREAD_MUTEX_INITIALIZER,
    .init_once = PTHREAD_ONCE_INIT,
    .threads = 1,
};

/* Found by `buddypool run` in a program that has the library linked in even
 * when stripping removed its symbol tables (so it is not preloaded twice). */
__attribute__((used)) static const char linked_marker[] =
    "buddypool runtime: libbuddypool is linked in";

/* Zeroed memory for size bytes, reserved without backing; NULL if none. */
static void *reserve(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int bp_pool_setup(const struct bp_pool_shape *shape)
{
    int max_threads = shape->max_threads;
    bp_pool.allowed = *shape->allowed;
    bp_pool.ncpus = shape->ncpus;
    bp_pool.cpu_budget = shape->cpu_budget;
    /* Room for every worker the pool may have, reserved and not committed:
     * a page is backed once a thread of its slots has started. */
    bp_pool.slots_bytes = sizeof(struct bp_slot) * (size_t)max_threads;
    bp_pool.slots = reserve(bp_pool.slots_bytes);
    bp_pool.idle = calloc(((size_t)max_threads + 63) / 64, sizeof *bp_pool.idle);
    int ok = bp_pool.slots != NULL && bp_pool.idle != NULL;
    bp_pool.default_team = ok ? shape->default_team : 1;
    bp_pool.team_max = ok ? shape->team_max : 1;
    atomic_store_explicit(&bp_pool.max_threads, ok ? max_threads : 1, memory_order_relaxed);
    return ok ? 0 : -1;
}

int bp_pool_threads(void)
{
    return atomic_load_explicit(&bp_pool.threads, memory_order_relaxed);
}

/* Pinning an application thread would hold for everything it creates
 * afterwards (threads, child processes, another pool's CPU count), so a
 * caller is pinned only when OMP_PROC_BIND (or OMP_PLACES) asks for it, and
 * restored at shutdown: the first thread to fork a region (a team of one
 * too) or to ask its place, bound to place 0 as libgomp and libomp bind
 * their initial thread. Workers leave that place to it. */
_Atomic int bp_caller_claimed;

/* Bind the calling thread to place 0's CPUs (`place`): its place is then
 * 0; unchanged when the kernel refuses. */
static void bind_place0(const cpu_set_t *place)
{
    if (pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), place) == 0)
        bp_tls.place = 0;
}

void bp_bind_caller(void)
{
    if (!bp_config.pin_caller ||
        atomic_load_explicit(&bp_caller_claimed, memory_order_relaxed) ||
        atomic_exchange_explicit(&bp_caller_claimed, 1, memory_order_relaxed))
        return;
    const cpu_set_t *place = bp_place_set(0); /* none after the shutdown */
    if (place == NULL || pthread_getaffinity_np(pthread_self(), sizeof bp_pool.caller_mask,
                                                &bp_pool.caller_mask) != 0)
        return;
    bp_pool.caller_thread = pthread_self();
    bind_place0(place);
    /* release: the shutdown's acquire reads caller_thread and caller_mask */
    atomic_store_explicit(&bp_pool.caller_pinned, 1, memory_order_release);
}

/* KMP_AFFINITY=reset (see life.h): only the thread bp_bind_caller bound,
 * and only while the pool has not given its binding back. */
static int caller_is_pinned_self(void)
{
    /* acquire: pairs with bp_bind_caller's release of caller_pinned */
    return atomic_load_explicit(&bp_pool.caller_pinned, memory_order_acquire) &&
           pthread_equal(bp_pool.caller_thread, pthread_self());
}

void bp_caller_reset(void)
{
    if (bp_tls.place < 0 || !caller_is_pinned_self())
        return;
    (void)pthread_setaffinity_np(pthread_self(), sizeof bp_pool.caller_mask,
                                 &bp_pool.caller_mask);
    bp_tls.place = -1;
}

void bp_caller_rebind(void)
{
    if (bp_tls.place >= 0 || !caller_is_pinned_self())
        return;
    const cpu_set_t *place = bp_place_set(0);
    if (place != NULL)
        bind_place0(place);
}

/* The place worker i is bound to. */
static int worker_place(int i)
{
    if (bp_config.icv.proc_bind == 2) /* primary: every thread on the caller's place */
        return bp_pool.first_place;
    return bp_place_near(bp_pool.first_place, i);
}

static void *worker_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    /* Named for top -H, gdb and perf: "buddypool-N" (N < 100000 fits the
     * kernel's 15 characters). Best effort. */
    char name[16];
    snprintf(name, sizeof name, "buddypool-%u", (unsigned)id % 100000u);
    (void)pthread_setname_np(pthread_self(), name);
    struct bp_slot *slot = &bp_pool.slots[id];
    struct bp_go *go = &slot->go;
    bp_self()->pool_worker = id;
    /* a worker past the CPUs shares its CPU with another pool thread */
    bp_wait_set_polite(id >= bp_pool.cpu_budget);
    bp_hook_thread_begin(id);
    void (*serve)(struct bp_slot *) = bp_pool.serve; /* set before any worker started */
    uint32_t seen = 0;
    for (;;) {
        bp_hook_worker_idle();
        bp_flag_wait(&go->flag, seen + 1);
        seen++;
        /* the start block, written before the flag's release store */
        if (go->run == NULL)
            break;
        serve(slot);
        /* release: the team is not touched after this (bp_pool_quiesce) */
        atomic_store_explicit(&slot->go_done, seen, memory_order_release);
    }
    bp_hook_thread_end();
    return NULL;
}

/* Start workers up to `want` threads in all; workers_lock held. */
static void pool_grow(int want)
{
    int have = atomic_load_explicit(&bp_pool.threads, memory_order_relaxed);
    int max = atomic_load_explicit(&bp_pool.max_threads, memory_order_relaxed);
    if (want > max)
        want = max;
    if (have >= want)
        return;
    /* The first start: the caller keeps the place of the CPU it is running
     * on now (it is bound to place 0 when a binding is asked for), and worker
     * i gets the i-th place near it (bp_place_near: the i-th after it under
     * OMP_PLACES, close binding), so none starts on the caller's place while
     * there are places. */
    if (have == 1) {
        int cpu = sched_getcpu();
        int p = bp_config.pin_caller ? 0 : bp_place_of_cpu(cpu);
        bp_pool.first_place = bp_pool.caller_place = p >= 0 ? p : 0;
        bp_pool.caller_cpu = cpu;
        bp_pool.first_caller = &bp_tls;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    for (int i = have; i < want; i++) {
        struct bp_slot *slot = &bp_pool.slots[i];
        /* A new worker starts from seen == 0 (thread creation publishes it). */
        atomic_store_explicit(&slot->go.flag.value, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->go_done, 0, memory_order_relaxed);
        slot->go_count = 0;
        slot->place = slot->home = bp_config.pin ? worker_place(i) : -1;
        slot->bind_failed = BP_BIND_OK;
        if (bp_config.pin)
            pthread_attr_setaffinity_np(&attr, sizeof(cpu_set_t), bp_place_set(slot->place));
        /* relaxed: kmp_set_stacksize may change it from any thread */
        size_t stack = __atomic_load_n(&bp_config.stack_bytes, __ATOMIC_RELAXED);
        int err = pthread_attr_setstacksize(&attr, stack);
        if (err == 0)
            err = pthread_create(&slot->thread, &attr, worker_main, (void *)(intptr_t)i);
        if (err != 0 && stack != ((size_t)8 << 20)) {
            /* A 256M reservation can fail under a tight RLIMIT_AS, a small
             * size below what the C library takes. */
            pthread_attr_setstacksize(&attr, (size_t)8 << 20);
            err = pthread_create(&slot->thread, &attr, worker_main, (void *)(intptr_t)i);
            if (err == 0) {
                bp_warn("could not start a worker with a %zu-byte stack (OMP_STACKSIZE); "
                        "using 8M", stack);
                __atomic_store_n(&bp_config.stack_bytes, (size_t)8 << 20, __ATOMIC_RELAXED);
            }
        }
        if (err != 0) {
            bp_warn("could not start worker thread %d (%s); the pool keeps %d threads",
                    i, strerror(err), i);
            atomic_store_explicit(&bp_pool.max_threads, i, memory_order_relaxed);
            break;
        }
        atomic_store_explicit(&bp_pool.threads, i + 1, memory_order_relaxed);
    }
    pthread_attr_destroy(&attr);
}

int bp_pool_bind(struct bp_slot *slot, int place)
{
    if (slot->bind_failed == place)
        return 0; /* not again at every region */
    const cpu_set_t *set = place < 0 ? &bp_pool.allowed : bp_place_set(place);
    if (set == NULL || pthread_setaffinity_np(slot->thread, sizeof *set, set) != 0) {
        slot->bind_failed = place;
        return 0;
    }
    slot->bind_failed = BP_BIND_OK;
    slot->place = place; /* the worker reads it at its next start */
    return 1;
}

int bp_workers_reserve(int n, int *ids)
{
    pthread_mutex_lock(&bp_pool.workers_lock);
    int got = 0;
    int threads = atomic_load_explicit(&bp_pool.threads, memory_order_relaxed);
    for (int w = 1; w < threads && got < n; w++) { /* idle ones, lowest first */
        uint64_t bit = (uint64_t)1 << (w % 64);
        if (bp_pool.idle[w / 64] & bit) {
            bp_pool.idle[w / 64] &= ~bit;
            ids[got++] = w;
        }
    }
    if (got < n && !atomic_load_explicit(&bp_pool.shut_down, memory_order_relaxed)) {
        pool_grow(threads + n - got);
        int now = atomic_load_explicit(&bp_pool.threads, memory_order_relaxed);
        for (int w = threads; w < now; w++)
            ids[got++] = w;
    }
    pthread_mutex_unlock(&bp_pool.workers_lock);
    return got;
}

void bp_pool_quiesce(int w)
{
    struct bp_slot *slot = &bp_pool.slots[w];
    /* acquire: the worker's last reads of the team's words come before */
    while (atomic_load_explicit(&slot->go_done, memory_order_acquire) != slot->go_count)
        sched_yield(); /* a few instructions left, unless it was preempted */
}

void bp_pool_serve(void (*serve)(struct bp_slot *slot))
{
    pthread_mutex_lock(&bp_pool.workers_lock);
    bp_pool.serve = serve;
    pthread_mutex_unlock(&bp_pool.workers_lock);
}

void bp_workers_release(int w)
{
    pthread_mutex_lock(&bp_pool.workers_lock);
    bp_pool.idle[w / 64] |= (uint64_t)1 << (w % 64);
    pthread_mutex_unlock(&bp_pool.workers_lock);
}

/* fork(): the forking thread holds workers_lock around it, so that no
 * worker is half started in the child; the child has only the thread that
 * called fork(), and the pool starts again from one thread. */
void bp_pool_atfork_prepare(void) { pthread_mutex_lock(&bp_pool.workers_lock); }

void bp_pool_atfork_parent(void) { pthread_mutex_unlock(&bp_pool.workers_lock); }

/* The pool back to slot 0 alone, none of the first `used` slots' workers
 * existing any more (joined, or not in the child of fork()): under
 * workers_lock, or with one thread. */
static void forget_workers(size_t used)
{
    /* relaxed: read under the lock, or as a figure */
    atomic_store_explicit(&bp_pool.threads, 1, memory_order_relaxed);
    if (bp_pool.idle != NULL)
        memset(bp_pool.idle, 0, (used + 63) / 64 * sizeof *bp_pool.idle);
    /* only the slots used were ever written */
    if (bp_pool.slots != NULL)
        memset(bp_pool.slots, 0, sizeof(struct bp_slot) * used);
}

void bp_pool_atfork_child(void)
{
    pthread_mutex_init(&bp_pool.workers_lock, NULL);
    forget_workers((size_t)atomic_load_explicit(&bp_pool.threads, memory_order_relaxed));
    atomic_store_explicit(&bp_pool.busy_threads, 0, memory_order_relaxed);
    atomic_store_explicit(&bp_pool.caller_pinned, 0, memory_order_relaxed);
}

/* Tell workers 1..threads-1 to stop and join them; called with
 * workers_lock held, which it lets go before it waits. */
static void stop_and_join(int threads)
{
    for (int i = 1; i < threads; i++) {
        struct bp_slot *slot = &bp_pool.slots[i];
        slot->go.run = NULL;
        bp_flag_set(&slot->go.flag, ++slot->go_count);
    }
    pthread_mutex_unlock(&bp_pool.workers_lock);
    for (int i = 1; i < threads; i++)
        pthread_join(bp_pool.slots[i].thread, NULL);
}

void bp_pool_stop(void)
{
    /* no team is in use: no worker runs, none is started again */
    pthread_mutex_lock(&bp_pool.workers_lock);
    stop_and_join(atomic_load_explicit(&bp_pool.threads, memory_order_relaxed));
}

int bp_pool_stop_idle(void)
{
    pthread_mutex_lock(&bp_pool.workers_lock);
    int threads = atomic_load_explicit(&bp_pool.threads, memory_order_relaxed);
    for (int w = 1; w < threads; w++) {
        if (!(bp_pool.idle[w / 64] & (uint64_t)1 << (w % 64))) {
            pthread_mutex_unlock(&bp_pool.workers_lock);
            return 0;
        }
    }
    /* The caller holds the teams' lock: nothing reserves a worker until the
     * pool is one thread again, and an ending worker takes neither lock. */
    stop_and_join(threads);
    pthread_mutex_lock(&bp_pool.workers_lock);
    forget_workers((size_t)threads);
    pthread_mutex_unlock(&bp_pool.workers_lock);
    return 1;
}

void bp_pool_free(void)
{
    atomic_store_explicit(&bp_pool.threads, 1, memory_order_relaxed);
    if (bp_pool.slots != NULL)
        munmap(bp_pool.slots, bp_pool.slots_bytes);
    bp_pool.slots = NULL;
    free(bp_pool.idle);
    bp_pool.idle = NULL;
    atomic_store_explicit(&bp_pool.max_threads, 1, memory_order_relaxed);
    if (atomic_load_explicit(&bp_pool.caller_pinned, memory_order_acquire) &&
        pthread_equal(bp_pool.caller_thread, pthread_self())) {
        pthread_setaffinity_np(pthread_self(), sizeof bp_pool.caller_mask, &bp_pool.caller_mask);
        bp_tls.place = -1;
    }
    atomic_store_explicit(&bp_pool.caller_pinned, 0, memory_order_relaxed);
}
