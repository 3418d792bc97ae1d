/* decode.c: the decode benchmark and the project's main demo. A decoder-only
 * transformer in the shape of Qwen3 (grouped-query attention with per-head
 * q/k RMSNorm and RoPE, SwiGLU MLP) with synthetic weights generates tokens
 * greedily; every step of a token is one short `#pragma omp parallel for`,
 * a few hundred per token, as in a real decode step.
 *
 * The same source is built against libomp, libgomp and buddypool (and with
 * the matrix-vector products lowered from kernels.mlir when
 * DECODE_MLIR_MATVEC is defined); the generated token ids must be identical
 * across all of them and across thread counts. So no float sum here depends
 * on the thread count or the runtime: there is no OpenMP reduction, every
 * sum runs in a fixed sequential order inside one iteration (a row's dot
 * product, a head's softmax) or serially on the calling thread (RMSNorm's
 * sum of squares, the argmax). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Regions this program starts, counted on the calling thread next to each
 * parallel loop (and for each MLIR kernel call, which starts one). */
static unsigned long long regions;

/* ---- configuration and command line ---- */

struct config {
    const char *name;
    int dim, layers, heads, kv_heads, head_dim, hidden, vocab;
    int prompt, tokens;
    uint64_t seed;
};

/* default: Qwen3-0.6B's shape (dim 1024, 28 layers, 16 q heads, 8 kv heads,
 * head_dim 128, hidden 3072) with a 32000 vocabulary and an untied LM head:
 * 2.0 GB of f32 weights, 14 * 28 + 3 = 395 regions per token, several
 * tokens per second on 2 cores. */
static const struct config configs[] = {
    {"tiny", 64, 2, 4, 2, 16, 192, 512, 8, 24, 1},
    {"small", 512, 8, 8, 4, 64, 1536, 8192, 16, 32, 1},
    {"default", 1024, 28, 16, 8, 128, 3072, 32000, 16, 32, 1},
};

/* Largest value of a size flag, and of heads * head_dim: every dimension
 * fits an int, every product of two fits a size_t. */
enum { SIZE_MAX_FLAG = 1 << 20 };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: decode [--config tiny|small|default] [--dim N] [--layers N] [--heads N]\n"
            "              [--kv-heads N] [--head-dim N] [--hidden N] [--vocab N]\n"
            "              [--prompt N] [--tokens N] [--seed S]\n"
            "Runs a Qwen3-shaped decoder with synthetic weights: prefills N prompt tokens,\n"
            "generates --tokens tokens greedily, prints tok/s and the token ids.\n"
            "The overrides apply on top of --config (default: default).\n");
}

static void bad_input(const char *flag, const char *value, const char *why)
{
    if (value)
        fprintf(stderr, "decode: %s '%s': %s\n", flag, value, why);
    else
        fprintf(stderr, "decode: %s: %s\n", flag, why);
    usage(stderr);
    exit(2);
}

static int parse_size(const char *flag, const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno)
        bad_input(flag, s, "not an integer");
    if (v < 1 || v > SIZE_MAX_FLAG)
        bad_input(flag, s, "must be from 1 to 1048576");
    return (int)v;
}

static uint64_t parse_seed(const char *flag, const char *s)
{
    char *end;
    errno = 0;
    /* strtoull accepts "-1" as a huge value: refuse a sign. */
    unsigned long long v = strtoull(s, &end, 0);
    if (end == s || *end != '\0' || errno || s[0] == '-' || s[0] == '+')
        bad_input(flag, s, "not an unsigned 64-bit integer");
    return v;
}

static struct config parse_args(int argc, char **argv)
{
    /* The config comes first so overrides apply on top of it wherever they are. */
    const char *config_name = "default";
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            config_name = argv[++i];
    struct config c = {0};
    int found = 0;
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++)
        if (strcmp(configs[k].name, config_name) == 0)
            c = configs[k], found = 1;
    if (!found)
        bad_input("--config", config_name, "unknown config (tiny, small or default)");

    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        struct { const char *name; int *field; } sizes[] = {
            {"--dim", &c.dim},       {"--layers", &c.layers},   {"--heads", &c.heads},
            {"--kv-heads", &c.kv_heads}, {"--head-dim", &c.head_dim}, {"--hidden", &c.hidden},
            {"--vocab", &c.vocab},   {"--prompt", &c.prompt},   {"--tokens", &c.tokens},
        };
        int known = 0;
        if (strcmp(flag, "--config") == 0 || strcmp(flag, "--seed") == 0)
            known = 1;
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            if (strcmp(flag, sizes[k].name) == 0)
                known = 1;
        if (!known)
            bad_input(flag, NULL, "unknown flag");
        if (i + 1 >= argc)
            bad_input(flag, NULL, "needs a value");
        const char *value = argv[++i];
        if (strcmp(flag, "--seed") == 0)
            c.seed = parse_seed(flag, value);
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            if (strcmp(flag, sizes[k].name) == 0)
                *sizes[k].field = parse_size(flag, value);
    }

    char buf[64];
    if (c.heads % c.kv_heads != 0) {
        snprintf(buf, sizeof buf, "%d", c.kv_heads);
        bad_input("--kv-heads", buf, "must divide --heads");
    }
    if ((long)c.heads * c.head_dim > SIZE_MAX_FLAG) {
        snprintf(buf, sizeof buf, "%d", c.head_dim);
        bad_input("--head-dim", buf, "--heads times --head-dim must be at most 1048576");
    }
    if (c.head_dim % 2 != 0) {
        snprintf(buf, sizeof buf, "%d", c.head_dim);
        bad_input("--head-dim", buf, "must be even (RoPE rotates pairs)");
    }
    if ((long)c.prompt + c.tokens > SIZE_MAX_FLAG) {
        snprintf(buf, sizeof buf, "%d", c.tokens);
        bad_input("--tokens", buf, "--prompt plus --tokens must be at most 1048576");
    }
    return c;
}

/* ---- deterministic synthetic weights ---- */

/* splitmix64's output function: a counter-based generator, so element i of
 * a tensor is the same whichever thread fills it. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1), element i of the stream `key`. */
static float uniform(uint64_t key, uint64_t i)
{
    uint64_t z = mix64(key + (i + 1) * 0x9e3779b97f4a7c15u);
    return (float)((double)(z >> 40) / 8388608.0 - 1.0);
}

static void *alloc_or_die(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "decode: cannot allocate %zu x %zu bytes\n", n, size);
        exit(1);
    }
    return p;
}

static uint64_t tensor_key(uint64_t seed, uint64_t tensor)
{
    return mix64(seed ^ mix64(tensor + 0x5eed));
}

/* rows x cols of offset + scale * uniform, stream `tensor` of the seed. */
static float *tensor(uint64_t seed, uint64_t tensor_id, int rows, int cols, float offset,
                     float scale)
{
    float *t = alloc_or_die((size_t)rows * cols, sizeof(float));
    uint64_t key = tensor_key(seed, tensor_id);
    regions++;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)r * cols + c;
            t[i] = offset + scale * uniform(key, i);
        }
    return t;
}

/* Uniform in [-a, a] with a = sqrt(3 / fan_in): unit variance outputs from
 * unit RMS inputs, so activations stay near 1 through the layers. */
static float *projection(uint64_t seed, uint64_t id, int rows, int cols)
{
    return tensor(seed, id, rows, cols, 0.0f, sqrtf(3.0f / (float)cols));
}

/* RMSNorm gains: 1 +- 0.1. */
static float *gains(uint64_t seed, uint64_t id, int n)
{
    return tensor(seed, id, 1, n, 1.0f, 0.1f);
}

/* sin and cos kept apart: gcc merges sin(x) and cos(x) of one x into a
 * sincos() call, clang does not, and the builds must share every result. */
static __attribute__((noinline)) double call_cos(double x) { return cos(x); }
static __attribute__((noinline)) double call_sin(double x) { return sin(x); }

struct layer {
    float *attn_norm, *wq, *wk, *wv, *q_norm, *k_norm, *wo;
    float *mlp_norm, *w_gate, *w_up, *w_down;
    float *k_cache, *v_cache; /* [positions][kv_heads * head_dim] */
};

struct model {
    struct config c;
    int q_dim, kv_dim, positions;
    float *embedding, *final_norm, *lm_head; /* lm_head untied: [vocab][dim] */
    struct layer *layers;
    float *rope_cos, *rope_sin; /* [positions][head_dim / 2] */
    /* activations */
    float *x, *xn, *q, *att_out, *scores, *o, *gate, *up, *act, *down, *logits;
    size_t weight_bytes;
};

static void build_model(struct model *m, const struct config *c)
{
    m->c = *c;
    m->q_dim = c->heads * c->head_dim;
    m->kv_dim = c->kv_heads * c->head_dim;
    m->positions = c->prompt + c->tokens;
    uint64_t s = c->seed, id = 0;
    /* Embeddings of RMS 2.3 (uniform in [-4, 4)): the current token weighs
     * as much as a few layers' outputs in the residual stream, so greedy
     * decoding wanders over the vocabulary instead of settling on one id
     * (with RMS 0.6, 16 layers repeat one or two ids). */
    m->embedding = tensor(s, id++, c->vocab, c->dim, 0.0f, 4.0f);
    m->final_norm = gains(s, id++, c->dim);
    m->lm_head = projection(s, id++, c->vocab, c->dim);
    m->layers = alloc_or_die((size_t)c->layers, sizeof *m->layers);
    for (int l = 0; l < c->layers; l++) {
        struct layer *L = &m->layers[l];
        id = 16 + 16 * (uint64_t)l;
        L->attn_norm = gains(s, id++, c->dim);
        L->wq = projection(s, id++, m->q_dim, c->dim);
        L->wk = projection(s, id++, m->kv_dim, c->dim);
        L->wv = projection(s, id++, m->kv_dim, c->dim);
        L->q_norm = gains(s, id++, c->head_dim);
        L->k_norm = gains(s, id++, c->head_dim);
        L->wo = projection(s, id++, c->dim, m->q_dim);
        L->mlp_norm = gains(s, id++, c->dim);
        L->w_gate = projection(s, id++, c->hidden, c->dim);
        L->w_up = projection(s, id++, c->hidden, c->dim);
        L->w_down = projection(s, id++, c->dim, c->hidden);
        L->k_cache = alloc_or_die((size_t)m->positions * m->kv_dim, sizeof(float));
        L->v_cache = alloc_or_die((size_t)m->positions * m->kv_dim, sizeof(float));
    }
    size_t per_layer = (size_t)c->dim * 2 + (size_t)c->head_dim * 2 +
                       (size_t)c->dim * (2 * (size_t)m->q_dim + 2 * (size_t)m->kv_dim) +
                       3 * (size_t)c->dim * c->hidden;
    m->weight_bytes = sizeof(float) * ((size_t)c->layers * per_layer +
                                       2 * (size_t)c->vocab * c->dim + c->dim);

    /* RoPE tables, serially in double (theta 1e6 as Qwen3), rounded once. */
    int half = c->head_dim / 2;
    m->rope_cos = alloc_or_die((size_t)m->positions * half, sizeof(float));
    m->rope_sin = alloc_or_die((size_t)m->positions * half, sizeof(float));
    for (int p = 0; p < m->positions; p++)
        for (int i = 0; i < half; i++) {
            double freq = pow(1e6, -2.0 * i / c->head_dim);
            m->rope_cos[(size_t)p * half + i] = (float)call_cos(p * freq);
            m->rope_sin[(size_t)p * half + i] = (float)call_sin(p * freq);
        }

    m->x = alloc_or_die((size_t)c->dim, sizeof(float));
    m->xn = alloc_or_die((size_t)c->dim, sizeof(float));
    m->q = alloc_or_die((size_t)m->q_dim, sizeof(float));
    m->att_out = alloc_or_die((size_t)m->q_dim, sizeof(float));
    m->scores = alloc_or_die((size_t)c->heads * m->positions, sizeof(float));
    m->o = alloc_or_die((size_t)c->dim, sizeof(float));
    m->gate = alloc_or_die((size_t)c->hidden, sizeof(float));
    m->up = alloc_or_die((size_t)c->hidden, sizeof(float));
    m->act = alloc_or_die((size_t)c->hidden, sizeof(float));
    m->down = alloc_or_die((size_t)c->dim, sizeof(float));
    m->logits = alloc_or_die((size_t)c->vocab, sizeof(float));
}

static void free_model(struct model *m)
{
    for (int l = 0; l < m->c.layers; l++) {
        struct layer *L = &m->layers[l];
        float *bufs[] = {L->attn_norm, L->wq, L->wk, L->wv, L->q_norm, L->k_norm, L->wo,
                         L->mlp_norm, L->w_gate, L->w_up, L->w_down, L->k_cache, L->v_cache};
        for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
            free(bufs[i]);
    }
    float *bufs[] = {m->embedding, m->final_norm, m->lm_head, m->rope_cos, m->rope_sin,
                     m->x, m->xn, m->q, m->att_out, m->scores, m->o, m->gate, m->up,
                     m->act, m->down, m->logits};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    free(m->layers);
}

/* buddypool's profile API where the program runs on buddypool (a weak
 * reference: NULL with libomp and libgomp): with BUDDY_THREAD_POOL_PROFILE=1
 * the report gives prefill and decode apart. */
int buddypool_profile_phase(const char *name) __attribute__((weak));

static void mark_phase(const char *name)
{
    if (buddypool_profile_phase != NULL)
        (void)buddypool_profile_phase(name); /* -ENOTSUP when profiling is off */
}

/* ---- kernels: one parallel region each ---- */

#ifdef DECODE_MLIR_MATVEC
/* The matrix-vector product lowered from kernels.mlir: scf.parallel over
 * rows, each row an scf.for dot product in the order of the C version. */
struct memref1 { float *alloc, *data; int64_t offset, size, stride; };
struct memref2 { float *alloc, *data; int64_t offset, size[2], stride[2]; };
void _mlir_ciface_matvec(struct memref2 *w, struct memref1 *x, struct memref1 *y);

static const char matvec_kind[] = "MLIR (kernels.mlir, scf.parallel over rows)";

/* y[r] = sum_c w[r][c] * x[c], rows x cols, row-major. */
static void matvec(float *y, const float *w, const float *x, int rows, int cols)
{
    struct memref2 mw = {(float *)w, (float *)w, 0, {rows, cols}, {cols, 1}};
    struct memref1 mx = {(float *)x, (float *)x, 0, cols, 1};
    struct memref1 my = {y, y, 0, rows, 1};
    regions++;
    _mlir_ciface_matvec(&mw, &mx, &my);
}
#else
static const char matvec_kind[] = "C (#pragma omp parallel for over rows)";

/* y[r] = sum_c w[r][c] * x[c], rows x cols, row-major. */
static void matvec(float *y, const float *w, const float *x, int rows, int cols)
{
    regions++;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *wr = w + (size_t)r * cols;
        float s = 0.0f;
        for (int c = 0; c < cols; c++)
            s += wr[c] * x[c];
        y[r] = s;
    }
}
#endif

/* out = x * w / rms(x): the sum of squares serially, the scaling in parallel. */
static void rmsnorm(float *out, const float *x, const float *w, int n)
{
    float ss = 0.0f;
    for (int i = 0; i < n; i++)
        ss += x[i] * x[i];
    float scale = 1.0f / sqrtf(ss / (float)n + 1e-6f);
    regions++;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        out[i] = x[i] * scale * w[i];
}

/* x += y */
static void residual(float *x, const float *y, int n)
{
    regions++;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        x[i] += y[i];
}

/* act = silu(gate) * up */
static void swiglu(float *act, const float *gate, const float *up, int n)
{
    regions++;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        float g = gate[i];
        act[i] = g / (1.0f + expf(-g)) * up[i];
    }
}

/* One head of head_dim values: RMSNorm with gains w (its sum in order), then
 * RoPE at a position (rotate-half pairing, as Qwen3). */
static void norm_rope_head(float *v, const float *w, const float *cos_p, const float *sin_p,
                           int head_dim)
{
    float ss = 0.0f;
    for (int d = 0; d < head_dim; d++)
        ss += v[d] * v[d];
    float scale = 1.0f / sqrtf(ss / (float)head_dim + 1e-6f);
    for (int d = 0; d < head_dim; d++)
        v[d] = v[d] * scale * w[d];
    int half = head_dim / 2;
    for (int i = 0; i < half; i++) {
        float a = v[i], b = v[i + half];
        v[i] = a * cos_p[i] - b * sin_p[i];
        v[i + half] = b * cos_p[i] + a * sin_p[i];
    }
}

/* q/k RMSNorm and RoPE: one iteration per q head, then per kv head (the k
 * of this position, already in the cache). */
static void qk_norm_rope(struct model *m, struct layer *L, float *k_pos, int pos)
{
    int heads = m->c.heads, kv_heads = m->c.kv_heads, hd = m->c.head_dim;
    const float *cos_p = m->rope_cos + (size_t)pos * (hd / 2);
    const float *sin_p = m->rope_sin + (size_t)pos * (hd / 2);
    float *q = m->q;
    regions++;
#pragma omp parallel for schedule(static)
    for (int h = 0; h < heads + kv_heads; h++) {
        if (h < heads)
            norm_rope_head(q + (size_t)h * hd, L->q_norm, cos_p, sin_p, hd);
        else
            norm_rope_head(k_pos + (size_t)(h - heads) * hd, L->k_norm, cos_p, sin_p, hd);
    }
}

/* Attention of each q head over positions 0..pos of its kv head: scores,
 * softmax (max and sum in position order), weighted sum of values (in
 * position order), all inside the head's iteration. */
static void attention(struct model *m, struct layer *L, int pos)
{
    int heads = m->c.heads, hd = m->c.head_dim, group = m->c.heads / m->c.kv_heads;
    int kv_dim = m->kv_dim, positions = m->positions;
    const float *q_all = m->q;
    float *scores_all = m->scores, *out_all = m->att_out;
    float inv_sqrt_hd = 1.0f / sqrtf((float)hd);
    regions++;
#pragma omp parallel for schedule(static)
    for (int h = 0; h < heads; h++) {
        const float *q = q_all + (size_t)h * hd;
        size_t kv_off = (size_t)(h / group) * hd;
        float *sc = scores_all + (size_t)h * positions;
        float *out = out_all + (size_t)h * hd;
        float max = -INFINITY;
        for (int t = 0; t <= pos; t++) {
            const float *k = L->k_cache + (size_t)t * kv_dim + kv_off;
            float s = 0.0f;
            for (int d = 0; d < hd; d++)
                s += q[d] * k[d];
            s *= inv_sqrt_hd;
            sc[t] = s;
            if (s > max)
                max = s;
        }
        float sum = 0.0f;
        for (int t = 0; t <= pos; t++) {
            sc[t] = expf(sc[t] - max);
            sum += sc[t];
        }
        float inv_sum = 1.0f / sum;
        for (int d = 0; d < hd; d++)
            out[d] = 0.0f;
        for (int t = 0; t <= pos; t++) {
            const float *v = L->v_cache + (size_t)t * kv_dim + kv_off;
            float p = sc[t] * inv_sum;
            for (int d = 0; d < hd; d++)
                out[d] += p * v[d];
        }
    }
}

static void embed(struct model *m, int token)
{
    const float *e = m->embedding + (size_t)token * m->c.dim;
    float *x = m->x;
    int n = m->c.dim;
    regions++;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        x[i] = e[i];
}

/* Serially: the first index of the largest logit. */
static int argmax(const float *v, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (v[i] > v[best])
            best = i;
    return best;
}

/* Runs `token` at position `pos` through the model. With logits, returns the
 * greedy next token; without (a prompt token that is not the last), stops
 * after the last layer and returns -1. */
static int forward(struct model *m, int token, int pos, int logits)
{
    const struct config *c = &m->c;
    embed(m, token);
    for (int l = 0; l < c->layers; l++) {
        struct layer *L = &m->layers[l];
        float *k_pos = L->k_cache + (size_t)pos * m->kv_dim;
        float *v_pos = L->v_cache + (size_t)pos * m->kv_dim;
        rmsnorm(m->xn, m->x, L->attn_norm, c->dim);
        matvec(m->q, L->wq, m->xn, m->q_dim, c->dim);
        matvec(k_pos, L->wk, m->xn, m->kv_dim, c->dim);
        matvec(v_pos, L->wv, m->xn, m->kv_dim, c->dim);
        qk_norm_rope(m, L, k_pos, pos);
        attention(m, L, pos);
        matvec(m->o, L->wo, m->att_out, c->dim, m->q_dim);
        residual(m->x, m->o, c->dim);
        rmsnorm(m->xn, m->x, L->mlp_norm, c->dim);
        matvec(m->gate, L->w_gate, m->xn, c->hidden, c->dim);
        matvec(m->up, L->w_up, m->xn, c->hidden, c->dim);
        swiglu(m->act, m->gate, m->up, c->hidden);
        matvec(m->down, L->w_down, m->act, c->dim, c->hidden);
        residual(m->x, m->down, c->dim);
    }
    if (!logits)
        return -1;
    rmsnorm(m->xn, m->x, m->final_norm, c->dim);
    matvec(m->logits, m->lm_head, m->xn, c->vocab, c->dim);
    return argmax(m->logits, c->vocab);
}

/* FNV-1a over the bit patterns of v: equal only if every value is. */
static uint64_t bits_hash(const float *v, int n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (int i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &v[i], sizeof b);
        for (int k = 0; k < 4; k++)
            h = (h ^ ((b >> (8 * k)) & 0xff)) * 0x100000001b3u;
    }
    return h;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    struct config c = parse_args(argc, argv);
    int threads = omp_get_max_threads();

    double t0 = now_s();
    static struct model m;
    build_model(&m, &c);
    double init_s = now_s() - t0;

    int *prompt = alloc_or_die((size_t)c.prompt, sizeof(int));
    uint64_t prompt_key = tensor_key(c.seed, 0x70726f6d7074u); /* "prompt" */
    for (int i = 0; i < c.prompt; i++)
        prompt[i] = (int)(mix64(prompt_key + (uint64_t)i) % (uint64_t)c.vocab);
    int *out = alloc_or_die((size_t)c.tokens, sizeof(int));

    /* Prefill: the prompt one token at a time; logits for the last only. */
    mark_phase("prefill");
    double t_prefill = now_s();
    unsigned long long last_step_regions = 0;
    int next = -1;
    for (int i = 0; i < c.prompt; i++) {
        unsigned long long before = regions;
        next = forward(&m, prompt[i], i, i == c.prompt - 1);
        last_step_regions = regions - before;
    }
    double prefill_s = now_s() - t_prefill;
    out[0] = next;

    /* Decode: each step feeds the last generated token. */
    mark_phase("decode");
    unsigned long long decode_before = regions;
    double t_decode = now_s();
    for (int i = 1; i < c.tokens; i++)
        out[i] = forward(&m, out[i - 1], c.prompt + i - 1, 1);
    double decode_s = now_s() - t_decode;
    int steps = c.tokens - 1;
    /* Every decode step starts the same regions; without one, the prefill's
     * last step (which has the whole path) counts the same. */
    unsigned long long per_token =
        steps > 0 ? (regions - decode_before) / (unsigned long long)steps : last_step_regions;

    double prefill_tok_s = prefill_s > 0 ? c.prompt / prefill_s : 0.0;
    double decode_tok_s = steps > 0 && decode_s > 0 ? steps / decode_s : 0.0;

    printf("decode: Qwen3-shaped decoder, synthetic weights\n");
    printf("  config     %s: dim %d, layers %d, heads %d, kv-heads %d, head-dim %d, hidden %d, "
           "vocab %d, seed %" PRIu64 "\n",
           c.name, c.dim, c.layers, c.heads, c.kv_heads, c.head_dim, c.hidden, c.vocab, c.seed);
    printf("  weights    %.1f MB f32, generated in %.2f s\n", m.weight_bytes / 1e6, init_s);
    printf("  matvec     %s\n", matvec_kind);
    printf("  threads    %d\n", threads);
    printf("  prefill    %d tokens in %.3f s: %.2f tok/s (%.2f ms/token)\n", c.prompt, prefill_s,
           prefill_tok_s, 1e3 * prefill_s / c.prompt);
    printf("  decode     %d steps in %.3f s: %.2f tok/s (%.2f ms/token)\n", steps, decode_s,
           decode_tok_s, steps > 0 ? 1e3 * decode_s / steps : 0.0);
    printf("  regions    %llu per token (14 per layer x %d layers + 3), %llu in all\n",
           per_token, c.layers, regions);
    /* The last step's logits: builds that agree on the ids could still
     * differ in low bits; check-decode.py compares this too. */
    printf("  logits     bits hash %016" PRIx64 " (last step)\n", bits_hash(m.logits, c.vocab));
    printf("  prompt     ");
    for (int i = 0; i < c.prompt; i++)
        printf("%s%d", i ? " " : "", prompt[i]);
    printf("\n  generated  ");
    for (int i = 0; i < c.tokens; i++)
        printf("%s%d", i ? " " : "", out[i]);
    printf("\nRESULT decode threads=%d prompt=%d gen=%d prefill_tok_s=%.2f decode_tok_s=%.2f "
           "regions_per_token=%llu tokens=",
           threads, c.prompt, c.tokens, prefill_tok_s, decode_tok_s, per_token);
    for (int i = 0; i < c.tokens; i++)
        printf("%s%d", i ? "," : "", out[i]);
    printf("\n");
    free(prompt);
    free(out);
    free_model(&m);
    return 0;
}
