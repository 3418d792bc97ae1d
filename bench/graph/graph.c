/* graph.c: a ggml-shaped decode step. llama.cpp's CPU backend runs a whole
 * token as one parallel region: every thread walks the same graph of nodes,
 * does its share of each, and the team meets at a barrier after every node
 * (ggml_graph_compute). This program has that shape, so the profile's
 * barrier steps (step k = node k) and the runtime's barrier cost can be
 * seen on a known graph. Per layer, 13 nodes: rms_norm (on thread 0 alone,
 * as ggml runs a small op on one thread), the q, k and v products,
 * attention over the context (split by heads), the o product, the residual
 * add, rms_norm, the gate and up products, the gated activation, the down
 * product and the residual add; then the final norm and the LM head: 13 *
 * layers + 2 barriers and the join per token. The layers share one set of
 * weights (the numbers, not the memory traffic, are the point).
 *   graph [--config small|medium|large] [--layers N] [--dim D] [--ffn F]
 *         [--vocab V] [--ctx C] [--tokens T] [--app-threads A] [--team K]
 * prints tokens/s and a checksum of the last logits (the same on every
 * runtime and team size: each output element is computed by one thread in
 * a fixed order), and a `RESULT graph ...` line for bench/compare.py.
 * --app-threads A runs A application threads at once (a server decoding A
 * requests), each its own T tokens on its own activations (the weights are
 * shared) with teams of K threads (--team; default: the runtime's default
 * team); tokens/s is then all threads' tokens over the wall time, and every
 * thread's checksum must be the same. The
 * configurations, by their time per token on two threads of the 2-core
 * development machine: small (16 layers, dim 128: about 1 ms, a few
 * microseconds per node), medium (24 layers, dim 192: about 5 ms) and large
 * (28 layers, dim 256, the default: about 11 ms). Flags after --config
 * change its values. */
#define _GNU_SOURCE /* sched_getaffinity, for the ggml pool build */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#ifndef GRAPH_GGML_POOL
#include <omp.h>
#endif

struct model {
    int layers, dim, ffn, vocab, ctx, heads;
    int team; /* threads per region */
    float *wq, *wk, *wv, *wo, *wg, *wu, *wd, *head; /* shared by the layers */
    float *kcache, *vcache; /* ctx x dim, filled once */
    float *x, *h, *q, *k, *v, *att, *g, *u, *logits;
};

static float *filled(size_t n, unsigned seed, float scale)
{
    float *p = malloc(n * sizeof *p);
    if (p == NULL) {
        fprintf(stderr, "graph: out of memory for %zu floats\n", n);
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * scale;
    }
    return p;
}

/* Thread tid's rows of n. */
static void share(int n, int tid, int nth, int *lo, int *hi)
{
    *lo = (int)((long)n * tid / nth);
    *hi = (int)((long)n * (tid + 1) / nth);
}

static void matvec(const float *w, const float *in, float *out, int rows, int cols, int tid,
                   int nth)
{
    int lo, hi;
    share(rows, tid, nth, &lo, &hi);
    for (int r = lo; r < hi; r++) {
        float s = 0;
        for (int c = 0; c < cols; c++)
            s += w[(size_t)r * cols + c] * in[c];
        out[r] = s;
    }
}

static void rms_norm(const float *in, float *out, int n)
{
    float ss = 0;
    for (int i = 0; i < n; i++)
        ss += in[i] * in[i];
    float k = 1.0f / sqrtf(ss / (float)n + 1e-6f);
    for (int i = 0; i < n; i++)
        out[i] = in[i] * k;
}

static void attention(struct model *m, int tid, int nth)
{
    int hd = m->dim / m->heads, lo, hi;
    share(m->heads, tid, nth, &lo, &hi);
    float *score = malloc(sizeof *score * (size_t)m->ctx);
    for (int h = lo; h < hi; h++) {
        float mx = -INFINITY, sum = 0;
        for (int t = 0; t < m->ctx; t++) {
            float s = 0;
            for (int i = 0; i < hd; i++)
                s += m->q[h * hd + i] * m->kcache[(size_t)t * m->dim + h * hd + i];
            score[t] = s / sqrtf((float)hd);
            mx = score[t] > mx ? score[t] : mx;
        }
        for (int t = 0; t < m->ctx; t++)
            sum += score[t] = expf(score[t] - mx);
        for (int i = 0; i < hd; i++) {
            float s = 0;
            for (int t = 0; t < m->ctx; t++)
                s += score[t] * m->vcache[(size_t)t * m->dim + h * hd + i];
            m->att[h * hd + i] = s / sum;
        }
    }
    free(score);
}

static void add_into(float *x, const float *y, int n, int tid, int nth)
{
    int lo, hi;
    share(n, tid, nth, &lo, &hi);
    for (int i = lo; i < hi; i++)
        x[i] += y[i];
}

static void gate(float *g, const float *u, int n, int tid, int nth)
{
    int lo, hi;
    share(n, tid, nth, &lo, &hi);
    for (int i = lo; i < hi; i++)
        g[i] = g[i] / (1.0f + expf(-g[i])) * u[i];
}

#ifdef GRAPH_GGML_POOL
#include "ggmlpool.h"
#define NODE_BARRIER() gp_barrier()
#else
#define NODE_BARRIER() _Pragma("omp barrier")
#endif

/* Thread tid's part of one token, nth threads: a barrier after every node. */
static void token_share(struct model *m, int tid, int nth)
{
    for (int l = 0; l < m->layers; l++) {
        if (tid == 0)
            rms_norm(m->x, m->h, m->dim);
        NODE_BARRIER();
        matvec(m->wq, m->h, m->q, m->dim, m->dim, tid, nth);
        NODE_BARRIER();
        matvec(m->wk, m->h, m->k, m->dim, m->dim, tid, nth);
        NODE_BARRIER();
        matvec(m->wv, m->h, m->v, m->dim, m->dim, tid, nth);
        NODE_BARRIER();
        attention(m, tid, nth);
        NODE_BARRIER();
        matvec(m->wo, m->att, m->h, m->dim, m->dim, tid, nth);
        NODE_BARRIER();
        add_into(m->x, m->h, m->dim, tid, nth);
        NODE_BARRIER();
        if (tid == 0)
            rms_norm(m->x, m->h, m->dim);
        NODE_BARRIER();
        matvec(m->wg, m->h, m->g, m->ffn, m->dim, tid, nth);
        NODE_BARRIER();
        matvec(m->wu, m->h, m->u, m->ffn, m->dim, tid, nth);
        NODE_BARRIER();
        gate(m->g, m->u, m->ffn, tid, nth);
        NODE_BARRIER();
        matvec(m->wd, m->g, m->h, m->dim, m->ffn, tid, nth);
        NODE_BARRIER();
        add_into(m->x, m->h, m->dim, tid, nth);
        NODE_BARRIER();
    }
    if (tid == 0)
        rms_norm(m->x, m->h, m->dim);
    NODE_BARRIER();
    matvec(m->head, m->h, m->logits, m->vocab, m->dim, tid, nth);
    NODE_BARRIER();
}

#ifdef GRAPH_GGML_POOL
static void token_pool(void *m, int tid, int nth) { token_share(m, tid, nth); }

/* One token: one graph on the pool. */
__attribute__((noinline)) static void token(struct model *m) { gp_compute(token_pool, m); }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
#else
/* One token: one region (one call site), a barrier after every node. */
__attribute__((noinline)) static void token(struct model *m)
{
#pragma omp parallel num_threads(m->team)
    token_share(m, omp_get_thread_num(), omp_get_num_threads());
}

static double now_s(void) { return omp_get_wtime(); }
#endif

static int arg(int argc, char **argv, int *i, const char *name, int *out)
{
    if (strcmp(argv[*i], name) != 0)
        return 0;
    char *end;
    long v = *i + 1 < argc ? strtol(argv[*i + 1], &end, 10) : 0;
    if (*i + 1 >= argc || *end != '\0' || v < 1 || v > 1 << 20) {
        fprintf(stderr, "graph: %s needs a count from 1 to %d\n", name, 1 << 20);
        exit(2);
    }
    *out = (int)v;
    (*i)++;
    return 1;
}

/* --config NAME: the model's shape. */
static int config(int argc, char **argv, int *i, struct model *m, const char **name)
{
    if (strcmp(argv[*i], "--config") != 0)
        return 0;
    static const struct {
        const char *name;
        int layers, dim, ffn, vocab, ctx;
    } shapes[] = {{"small", 16, 128, 384, 2048, 64},
                  {"medium", 24, 192, 576, 4096, 128},
                  {"large", 28, 256, 768, 4096, 128}};
    for (size_t k = 0; *i + 1 < argc && k < sizeof shapes / sizeof shapes[0]; k++)
        if (strcmp(argv[*i + 1], shapes[k].name) == 0) {
            m->layers = shapes[k].layers, m->dim = shapes[k].dim, m->ffn = shapes[k].ffn;
            m->vocab = shapes[k].vocab, m->ctx = shapes[k].ctx;
            *name = shapes[k].name;
            (*i)++;
            return 1;
        }
    fprintf(stderr, "graph: --config needs small, medium or large\n");
    exit(2);
}

/* The activations an application thread works on, the same start for all. */
static void activations(struct model *m)
{
    m->x = filled((size_t)m->dim, 11, 1), m->h = filled((size_t)m->dim, 12, 0);
    m->q = filled((size_t)m->dim, 13, 0), m->k = filled((size_t)m->dim, 14, 0);
    m->v = filled((size_t)m->dim, 15, 0), m->att = filled((size_t)m->dim, 16, 0);
    m->g = filled((size_t)m->ffn, 17, 0), m->u = filled((size_t)m->ffn, 18, 0);
    m->logits = filled((size_t)m->vocab, 19, 0);
}

static void free_activations(struct model *m)
{
    float *all[] = {m->x, m->h, m->q, m->k, m->v, m->att, m->g, m->u, m->logits};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
}

struct app {
    struct model m;
    int tokens;
    pthread_barrier_t *start;
    double checksum;
};

/* An application thread: warm up, wait for the others, decode its tokens. */
static void *decode(void *arg)
{
    struct app *a = arg;
    activations(&a->m);
    for (int t = 0; t < 2; t++) /* warm-up */
        token(&a->m);
    pthread_barrier_wait(a->start);
    for (int t = 0; t < a->tokens; t++)
        token(&a->m);
    a->checksum = 0;
    for (int i = 0; i < a->m.vocab; i++)
        a->checksum += a->m.logits[i];
    free_activations(&a->m);
    return NULL;
}

int main(int argc, char **argv)
{
    struct model m = {.layers = 28, .dim = 256, .ffn = 768, .vocab = 4096, .ctx = 128,
                      .heads = 8};
    const char *name = "large";
    int tokens = 32, apps = 1;
#ifdef GRAPH_GGML_POOL
    /* the pool's size: OMP_NUM_THREADS as the other builds read it (one
     * number), else the CPUs this process may use */
    m.team = (int)gp_env("OMP_NUM_THREADS", 0, 1, 1024);
    if (m.team == 0) {
        cpu_set_t set;
        m.team = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    }
#else
    m.team = omp_get_max_threads();
#endif
    for (int i = 1; i < argc; i++)
        if (!config(argc, argv, &i, &m, &name) && !arg(argc, argv, &i, "--layers", &m.layers) && !arg(argc, argv, &i, "--dim", &m.dim) &&
            !arg(argc, argv, &i, "--ffn", &m.ffn) && !arg(argc, argv, &i, "--vocab", &m.vocab) &&
            !arg(argc, argv, &i, "--ctx", &m.ctx) && !arg(argc, argv, &i, "--tokens", &tokens) &&
            !arg(argc, argv, &i, "--app-threads", &apps) && !arg(argc, argv, &i, "--team", &m.team)) {
            fprintf(stderr, "graph: unknown argument '%s' (--config --layers --dim --ffn "
                            "--vocab --ctx --tokens --app-threads --team)\n", argv[i]);
            return 2;
        }
    if (m.dim % m.heads != 0) {
        fprintf(stderr, "graph: --dim %d is not a multiple of the %d heads\n", m.dim, m.heads);
        return 2;
    }
    if (apps > 256) {
        fprintf(stderr, "graph: --app-threads %d: at most 256\n", apps);
        return 2;
    }
#ifdef GRAPH_GGML_POOL
    if (apps != 1) {
        fprintf(stderr, "graph: --app-threads %d: the ggml pool build runs one\n", apps);
        return 2;
    }
    gp_start(m.team);
#endif
    size_t dd = (size_t)m.dim * m.dim, df = (size_t)m.dim * m.ffn;
    float s = 1.0f / sqrtf((float)m.dim);
    m.wq = filled(dd, 1, s), m.wk = filled(dd, 2, s), m.wv = filled(dd, 3, s);
    m.wo = filled(dd, 4, s), m.wg = filled(df, 5, s), m.wu = filled(df, 6, s);
    m.wd = filled(df, 7, 1.0f / sqrtf((float)m.ffn)), m.head = filled((size_t)m.vocab * m.dim, 8, s);
    m.kcache = filled((size_t)m.ctx * m.dim, 9, 1), m.vcache = filled((size_t)m.ctx * m.dim, 10, 1);
    struct app *app = calloc((size_t)apps, sizeof *app);
    pthread_t *th = calloc((size_t)apps, sizeof *th);
    pthread_barrier_t start;
    if (app == NULL || th == NULL) {
        fprintf(stderr, "graph: out of memory for %d application threads\n", apps);
        return 1;
    }
    pthread_barrier_init(&start, NULL, (unsigned)apps + 1);
    for (int i = 0; i < apps; i++) {
        app[i] = (struct app){.m = m, .tokens = tokens, .start = &start};
        if (pthread_create(&th[i], NULL, decode, &app[i]) != 0) {
            fprintf(stderr, "graph: could not start application thread %d\n", i);
            return 1;
        }
    }
    pthread_barrier_wait(&start);
    double t0 = now_s();
    for (int i = 0; i < apps; i++)
        pthread_join(th[i], NULL);
    double dt = now_s() - t0;
    double sum = app[0].checksum;
    for (int i = 1; i < apps; i++)
        if (app[i].checksum != sum) {
            fprintf(stderr, "graph: application thread %d's checksum %.9e differs from thread "
                            "0's %.9e\n", i, app[i].checksum, sum);
            return 1;
        }
    float *all[] = {m.wq, m.wk, m.wv, m.wo, m.wg, m.wu, m.wd, m.head, m.kcache, m.vcache};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
    free(app);
    free(th);
#ifdef GRAPH_GGML_POOL
    gp_stop();
#endif
    long total = (long)tokens * apps;
    printf("graph: %d application threads x %d threads, %d layers, %d nodes per token, "
           "%ld tokens: %.1f tok/s, %.1f us/token, checksum %.6e\n",
           apps, m.team, m.layers, 13 * m.layers + 2, total, total / dt, dt / total * 1e6, sum);
    printf("RESULT graph config=%s threads=%d apps=%d nodes=%d tokens=%ld tok_s=%.3f "
           "us_token=%.2f checksum=%.9e\n",
           name, m.team, apps, 13 * m.layers + 2, total, total / dt, dt / total * 1e6, sum);
    return 0;
}
