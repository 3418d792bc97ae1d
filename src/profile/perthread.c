/* perthread.c: what the profiler keeps per thread. Each thread's own state
 * (struct bp_listen_thread: its part of the current region, its call site,
 * its steps buffer, its timeline, its trace ring) is in thread-local storage,
 * bp_lt, written by that thread's hooks alone. Beside it, the pool threads'
 * wait statistics, which the report reads for every thread at once: one
 * entry shared by the threads that fork regions (thread 0s), and one per
 * worker, indexed by its number, made when the listener starts (as many as
 * the pool may have threads) and counted as the workers start. A leaf: the
 * other profiler files read and write it, and it calls none of them. */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

_Thread_local struct bp_listen_thread bp_lt;

static struct {
    struct bp_wait_stats callers;
    struct worker {
        struct bp_wait_stats waits;
        struct bp_step_rec *rec; /* its steps buffer, freed in a child of fork() */
    } *workers;                  /* max entries, or NULL (none made) */
    int max;
    _Atomic int count;           /* the callers' entry plus the workers started */
} W = {.count = 1};

/* Entry i of the statistics (0: the callers'); NULL where none was made. */
static struct bp_wait_stats *entry(int i)
{
    if (i == 0)
        return &W.callers;
    return W.workers != NULL && i < W.max ? &W.workers[i].waits : NULL;
}

static void stats_clear(struct bp_wait_stats *w)
{
    /* relaxed: statistics, each written by its thread alone */
    atomic_store_explicit(&w->spin_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&w->sleep_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&w->sleeps, 0, memory_order_relaxed);
    atomic_store_explicit(&w->wakes, 0, memory_order_relaxed);
}

int bp_waits_make(int max_threads)
{
    W.workers = calloc((size_t)max_threads, sizeof *W.workers);
    W.max = W.workers != NULL ? max_threads : 0;
    return W.workers != NULL ? 0 : -1;
}

void bp_waits_free(void)
{
    free(W.workers);
    W.workers = NULL;
    W.max = 0;
}

struct bp_wait_stats *bp_waits_begin(int worker)
{
    int n = worker + 1;
    int seen = atomic_load_explicit(&W.count, memory_order_relaxed);
    /* relaxed: a count the report reads after the threads it counts started */
    while (seen < n && !atomic_compare_exchange_weak_explicit(&W.count, &seen, n,
                                                              memory_order_relaxed,
                                                              memory_order_relaxed))
        ;
    return entry(worker);
}

struct bp_wait_stats *bp_waits_callers(void) { return &W.callers; }

int bp_waits_count(void)
{
    return atomic_load_explicit(&W.count, memory_order_relaxed);
}

void bp_waits_read(struct bp_wait_stats *out, int n)
{
    for (int i = 0; i < n; i++) {
        const struct bp_wait_stats *from = entry(i);
        if (from == NULL) {
            stats_clear(&out[i]);
            continue;
        }
        /* relaxed: statistics, each written by its thread alone */
        atomic_store_explicit(&out[i].spin_ns,
                              atomic_load_explicit(&from->spin_ns, memory_order_relaxed),
                              memory_order_relaxed);
        atomic_store_explicit(&out[i].sleep_ns,
                              atomic_load_explicit(&from->sleep_ns, memory_order_relaxed),
                              memory_order_relaxed);
        atomic_store_explicit(&out[i].sleeps,
                              atomic_load_explicit(&from->sleeps, memory_order_relaxed),
                              memory_order_relaxed);
        atomic_store_explicit(&out[i].wakes,
                              atomic_load_explicit(&from->wakes, memory_order_relaxed),
                              memory_order_relaxed);
    }
}

void bp_waits_clear(void)
{
    int n = bp_waits_count();
    for (int i = 0; i < n; i++) {
        struct bp_wait_stats *w = entry(i);
        if (w != NULL)
            stats_clear(w);
    }
}

void bp_waits_set_rec(int worker, struct bp_step_rec *rec)
{
    if (W.workers != NULL && worker < W.max)
        W.workers[worker].rec = rec;
}

void bp_waits_fork_child(const struct bp_step_rec *keep)
{
    /* only the entries of workers the parent started were ever written */
    int n = bp_waits_count();
    for (int i = 1; W.workers != NULL && i < n && i < W.max; i++) {
        if (W.workers[i].rec != keep) /* not the forking thread's own */
            free(W.workers[i].rec);
        memset(&W.workers[i], 0, sizeof W.workers[i]);
    }
    stats_clear(&W.callers); /* the parent's */
    atomic_store_explicit(&W.count, 1, memory_order_relaxed);
}
