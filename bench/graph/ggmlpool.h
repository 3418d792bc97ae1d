/* ggmlpool.h: a model of llama.cpp's own thread pool (ggml-cpu's
 * threadpool, built with GGML_OPENMP=OFF), the peer a llama.cpp user picks
 * when not using OpenMP, for bench/graph's graph-ggmlpool. Written from its
 * design, not its code:
 *
 * - n - 1 worker threads live as long as the pool; the calling thread is
 *   thread 0. Nothing is pinned (ggml sets no affinity unless asked).
 * - A graph is started by publishing its function and bumping a generation
 *   counter under the pool's mutex, with a broadcast to sleeping workers.
 * - Between graphs a worker polls the generation with the pause hint for a
 *   number of rounds that scales with the poll level (llama.cpp's --poll,
 *   0 to 100, default 50: 1024 * 128 rounds per level, hundreds of
 *   milliseconds at the default), then sleeps on the condition variable.
 *   GRAPH_GGML_POLL sets the level.
 * - The barrier after each node is a counter and a "passed" generation; the
 *   last thread in resets the counter and bumps the generation; the others
 *   spin on it with the pause hint and never sleep. Today's ggml spins with
 *   no yield; older versions yielded after a bounded count, which
 *   GRAPH_GGML_YIELD=N models (sched_yield after every N pause rounds). */
#ifndef GRAPH_GGMLPOOL_H
#define GRAPH_GGMLPOOL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#define GP_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define GP_RELAX() __asm__ __volatile__("yield")
#else
#define GP_RELAX() ((void)0)
#endif

typedef void (*gp_fn)(void *arg, int tid, int nth);

static struct {
    int n;
    long poll_rounds, yield_after;
    pthread_t *workers;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* each on its own line: written by different threads */
    _Alignas(64) _Atomic int generation;
    _Alignas(64) _Atomic int n_barrier;
    _Alignas(64) _Atomic int n_passed;
    _Alignas(64) gp_fn fn;
    void *arg;
} gp;

static long gp_env(const char *name, long dflt, long lo, long hi)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return dflt;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "graph: %s='%s' is not a number from %ld to %ld\n", name, s, lo, hi);
        exit(2);
    }
    return v;
}

static void gp_barrier(void)
{
    if (gp.n == 1)
        return;
    /* relaxed: read before the counter's seq_cst add, which orders it */
    int passed = atomic_load_explicit(&gp.n_passed, memory_order_relaxed);
    /* seq_cst: this thread's writes before the node reach the others */
    if (atomic_fetch_add_explicit(&gp.n_barrier, 1, memory_order_seq_cst) == gp.n - 1) {
        atomic_store_explicit(&gp.n_barrier, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&gp.n_passed, 1, memory_order_seq_cst);
        return;
    }
    long spins = 0;
    /* relaxed polling; the fence after orders what follows */
    while (atomic_load_explicit(&gp.n_passed, memory_order_relaxed) == passed) {
        GP_RELAX();
        if (gp.yield_after > 0 && ++spins >= gp.yield_after) {
            sched_yield();
            spins = 0;
        }
    }
    atomic_thread_fence(memory_order_seq_cst);
}

static void *gp_worker(void *p)
{
    int tid = (int)(long)p, seen = 0;
    for (;;) {
        long r = 0;
        /* acquire: the graph's function and arguments come with it */
        while (atomic_load_explicit(&gp.generation, memory_order_acquire) == seen &&
               r++ < gp.poll_rounds)
            GP_RELAX();
        if (atomic_load_explicit(&gp.generation, memory_order_acquire) == seen) {
            pthread_mutex_lock(&gp.mu);
            while (atomic_load_explicit(&gp.generation, memory_order_acquire) == seen)
                pthread_cond_wait(&gp.cv, &gp.mu);
            pthread_mutex_unlock(&gp.mu);
        }
        seen = atomic_load_explicit(&gp.generation, memory_order_acquire);
        if (gp.fn == NULL)
            return NULL; /* the pool ends */
        gp.fn(gp.arg, tid, gp.n);
    }
}

static void gp_kick(gp_fn fn, void *arg)
{
    pthread_mutex_lock(&gp.mu);
    gp.fn = fn;
    gp.arg = arg;
    /* release: fn and arg before the new generation */
    atomic_fetch_add_explicit(&gp.generation, 1, memory_order_release);
    pthread_cond_broadcast(&gp.cv);
    pthread_mutex_unlock(&gp.mu);
}

static void gp_start(int n)
{
    gp.n = n;
    gp.poll_rounds = 1024L * 128 * gp_env("GRAPH_GGML_POLL", 50, 0, 100);
    gp.yield_after = gp_env("GRAPH_GGML_YIELD", 0, 0, 1L << 30);
    pthread_mutex_init(&gp.mu, NULL);
    pthread_cond_init(&gp.cv, NULL);
    gp.workers = calloc((size_t)n, sizeof *gp.workers);
    for (int i = 1; i < n; i++)
        if (gp.workers == NULL ||
            pthread_create(&gp.workers[i], NULL, gp_worker, (void *)(long)i) != 0) {
            fprintf(stderr, "graph: could not start pool thread %d\n", i);
            exit(1);
        }
}

/* One graph on all n threads; returns after the calling thread's share
 * (the graph ends with a barrier, so everyone's work is done). */
static void gp_compute(gp_fn fn, void *arg)
{
    if (gp.n > 1)
        gp_kick(fn, arg);
    fn(arg, 0, gp.n);
}

static void gp_stop(void)
{
    if (gp.n > 1)
        gp_kick(NULL, NULL);
    for (int i = 1; i < gp.n; i++)
        pthread_join(gp.workers[i], NULL);
    free(gp.workers);
}

#endif
