/* kmp-collapse.c: libomp's entry points for collapsed loop nests, called
 * as Intel's compilers call them, on buddypool and on libomp (which
 * exports the same three), at 1, 2 and 4 threads:
 *   - __kmpc_for_collapsed_init on nests whose bounds depend on an outer
 *     loop's variable (triangles, a 3-deep nest, loops counting down, !=,
 *     unsigned and 64-bit bounds, an 8-bit variable, an empty nest, fewer
 *     iterations than threads). Each thread hands the runtime its own copy
 *     of the nest and walks its chunk from the start point to the end
 *     point with the loops' (canonicalized) bounds in between, as the
 *     compiled code does. Every iteration of the nest runs exactly once,
 *     none outside it; exactly one thread is told it has the last
 *     iteration, and its end point is the nest's last; the copy of the
 *     nest comes back in canonical form (<= and >=, inclusive bounds).
 *     Bounds narrower than 64 bits are stored with garbage in the field's
 *     other bytes, which both runtimes must ignore. On buddypool the
 *     chunks are even (within one iteration), as its file's essay says.
 *   - __kmpc_process_loop_nest_rectang and __kmpc_calc_original_ivs_rectang
 *     on a rectangular nest: the iteration count, each loop's trip count,
 *     and the point of every flattened iteration, spread by a worksharing
 *     loop: each point of the nest exactly once.
 * The nests' iterations are counted here by plain C loops over the same
 * description, with the original comparisons.
 * libomp 22 is checked less where it is wrong (each nest says how):
 *   - for a 2-deep triangle (its own path for them) it sets *plastiter on
 *     no thread, so lastprivate would never be assigned;
 *   - on a 2-deep nest counting down, or with !=, that path stops the
 *     program ("Assertion failure at kmp_collapse.cpp(1293)");
 *   - for an unsigned j from 12 - i (a coefficient of -1) it hands out no
 *     iteration at all;
 *   - its last chunk ends at every loop's upper bound, which may lie
 *     outside the nest; that is its contract (the compiled code stops at
 *     the loops' own bounds too), so only buddypool's end points are
 *     checked to be the nest's last point. */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "gomp-check.h"

/* libomp's kmp_collapse.h, in no installed header */
typedef struct {
    int32_t loop_type, loop_iv_type, comparison, outer_iv;
    uint64_t lb0_u64, lb1_u64, ub0_u64, ub1_u64;
    int64_t step_64;
    uint64_t trip_count;
} bounds_info_t;
typedef struct {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} ident_t;
int32_t __kmpc_for_collapsed_init(ident_t *loc, int32_t gtid, bounds_info_t *original,
                                  bounds_info_t *chunk, int32_t n, int32_t *plastiter);
uint64_t __kmpc_process_loop_nest_rectang(ident_t *loc, int32_t gtid, bounds_info_t *original,
                                          int32_t n);
void __kmpc_calc_original_ivs_rectang(ident_t *loc, uint64_t new_iv,
                                      const bounds_info_t *original, uint64_t *ivs, int32_t n);
int32_t __kmpc_global_thread_num(ident_t *loc);
/* buddypool's own, to tell which runtime runs the test */
const char *buddypool_version(void) __attribute__((weak));

enum { U8, I8, U16, I16, U32, I32, U64, I64 };
enum { LE, GE, NE, LT, GT };

typedef __int128 i128;

/* A loop as the test describes it, and the box its values fall in: the
 * least value and how many values from it (one cell each). */
struct loop {
    int type, iv_type, cmp, outer;
    i128 lb0, lb1, ub0, ub1, step;
    i128 min;
    int cells;
};
/* How much of a nest libomp 22 gets right (see the top). */
enum { PEER_WRONG, PEER_NO_LAST, PEER_RIGHT };
struct nest {
    const char *name;
    int peer;
    int n;
    struct loop l[3];
};

#define P63 ((i128)1 << 63)
static const struct nest nests[] = {
    {"lower triangle, <", PEER_NO_LAST, 2,
     {{I32, I32, LT, 0, 0, 0, 37, 0, 1, 0, 37}, {I32, I32, LT, 0, 0, 0, 0, 1, 1, 0, 37}}},
    {"upper triangle, <=", PEER_NO_LAST, 2,
     {{I32, I32, LE, 0, 0, 0, 30, 0, 1, 0, 31}, {I32, I32, LE, 0, 0, 1, 30, 0, 1, 0, 31}}},
    {"three deep", PEER_RIGHT, 3,
     {{I32, I32, LT, 0, 0, 0, 20, 0, 1, 0, 20},
      {I32, I32, LE, 0, 0, 0, 0, 1, 1, 0, 20},
      {I32, I32, LT, 1, 0, 1, 20, 0, 1, 0, 20}}},
    {"counting down, > and >=, step -2", PEER_WRONG, 2,
     {{I32, I32, GT, 0, 30, 0, 0, 0, -1, 0, 31}, {I32, I32, GE, 0, 0, 1, 0, 0, -2, 0, 31}}},
    {"!=, both ways", PEER_WRONG, 2,
     {{I32, I32, NE, 0, 0, 0, 24, 0, 1, 0, 24}, {I32, I32, NE, 0, 40, 0, 0, 1, -1, 0, 41}}},
    {"unsigned, steps 3 and 7", PEER_RIGHT, 2,
     {{U32, U32, LT, 0, 5, 0, 40, 0, 3, 0, 41}, {U32, U32, LE, 0, 0, 2, 100, 0, 7, 0, 101}}},
    {"unsigned, j >= n - i (a coefficient of -1)", PEER_WRONG, 2,
     {{U32, U32, LT, 0, 0, 0, 12, 0, 1, 0, 12}, {U32, U32, LT, 0, 12, -1, 12, 0, 1, 0, 12}}},
    {"64-bit, far from 0", PEER_RIGHT, 2,
     {{I64, I64, LT, 0, 1000000000000000LL, 0, 1000000000000030LL, 0, 1, 1000000000000000LL, 30},
      {I64, I64, LE, 0, -5, 0, 5, 0, 1, -5, 11}}},
    {"unsigned 64-bit, above 2^63", PEER_RIGHT, 2,
     {{U64, U64, LT, 0, P63 + 5, 0, P63 + 21, 0, 1, P63, 21},
      {U64, U64, LT, 0, 0, 0, 0, 0, 1, 0, 1}}},
    {"an 8-bit variable, negative values", PEER_RIGHT, 2,
     {{I32, I8, LE, 0, -10, 0, 10, 0, 1, -10, 21}, {I32, I8, LE, 0, -20, 0, 0, -1, 1, -20, 31}}},
    {"empty", PEER_RIGHT, 2,
     {{I32, I32, LT, 0, 0, 0, 0, 0, 1, 0, 1}, {I32, I32, LT, 0, 0, 0, 5, 0, 1, 0, 5}}},
    {"two iterations", PEER_RIGHT, 2,
     {{I32, I32, LT, 0, 0, 0, 1, 0, 1, 0, 1}, {I32, I32, LT, 0, 0, 0, 2, 0, 1, 0, 2}}},
};
#define NESTS ((int)(sizeof nests / sizeof nests[0]))

/* The nest whose second loop of "unsigned 64-bit" is given 3 iterations
 * here (its table row keeps the initializer short). */
static struct nest fix(struct nest d)
{
    if (d.l[0].type == U64)
        d.l[1].ub0 = 3, d.l[1].cells = 3;
    return d;
}

/* A value stored as libomp's union member of the type stores it: the
 * type's bytes at the field's start, garbage in the rest. */
static void put(void *field, int type, i128 v)
{
    unsigned bytes = 1u << (type / 2);
    uint64_t raw = 0xa5a5a5a5a5a5a5a5ULL, val = (uint64_t)v;
    memcpy(&raw, &val, bytes);
    memcpy(field, &raw, 8);
}

/* A field read as the type's value (the type's bytes at its start). */
static i128 get(const void *field, int type)
{
    unsigned bytes = 1u << (type / 2);
    uint64_t raw = 0;
    memcpy(&raw, field, bytes);
    if (bytes < 8) {
        raw &= (1ULL << (8 * bytes)) - 1;
        if ((type & 1) && (raw >> (8 * bytes - 1)) & 1)
            raw |= ~((1ULL << (8 * bytes)) - 1);
    }
    return (type & 1) ? (i128)(int64_t)raw : (i128)raw;
}

static void describe(const struct nest *d, bounds_info_t *b)
{
    for (int k = 0; k < d->n; k++) {
        const struct loop *l = &d->l[k];
        memset(&b[k], 0x5a, sizeof b[k]);
        b[k].loop_type = l->type;
        b[k].loop_iv_type = l->iv_type;
        b[k].comparison = l->cmp;
        b[k].outer_iv = l->outer;
        put(&b[k].lb0_u64, l->type, l->lb0);
        put(&b[k].lb1_u64, l->type, l->lb1);
        put(&b[k].ub0_u64, l->type, l->ub0);
        put(&b[k].ub1_u64, l->type, l->ub1);
        put(&b[k].step_64, l->type | 1, l->step);
        b[k].trip_count = 0;
    }
}

/* The cell of a point, or -1 outside the box. */
static long cell(const struct nest *d, const i128 *iv)
{
    long c = 0;
    for (int k = 0; k < d->n; k++) {
        const struct loop *l = &d->l[k];
        i128 off = iv[k] - l->min;
        if (off < 0 || off >= l->cells)
            return -1;
        c = c * l->cells + (long)off;
    }
    return c;
}

static long cells(const struct nest *d)
{
    long c = 1;
    for (int k = 0; k < d->n; k++)
        c *= d->l[k].cells;
    return c;
}

/* The reference: the nest's points in order, with its own comparisons. */
static int holds(i128 v, int cmp, i128 bound)
{
    switch (cmp) {
    case LE: return v <= bound;
    case GE: return v >= bound;
    case NE: return v != bound;
    case LT: return v < bound;
    default: return v > bound;
    }
}

static void reference(const struct nest *d, int k, i128 *iv, unsigned char *want, long *total,
                      i128 *last)
{
    if (k == d->n) {
        long c = cell(d, iv);
        EXPECT_OP(c, >=, 0, d->name);
        if (c >= 0)
            want[c]++;
        ++*total;
        memcpy(last, iv, sizeof(i128) * (size_t)d->n);
        return;
    }
    const struct loop *l = &d->l[k];
    i128 lb = l->lb0 + l->lb1 * iv[l->outer], ub = l->ub0 + l->ub1 * iv[l->outer];
    for (iv[k] = lb; holds(iv[k], l->cmp, ub); iv[k] += l->step)
        reference(d, k + 1, iv, want, total, last);
}

/* A thread's walk of its chunk, as the compiled code does: from the start
 * point to the end point, each loop within its canonical bounds too (libomp
 * ends the last chunk at every loop's upper bound, which may lie outside
 * the nest: (n-1, n-1) for j < i). */
struct walk {
    const struct nest *d;
    const bounds_info_t *canon, *chunk;
    unsigned *hits;
    long count;
};

static void walk(struct walk *w, int k, i128 *iv, int first, int last)
{
    const struct nest *d = w->d;
    if (k == d->n) {
        long c = cell(d, iv);
        EXPECT_OP(c, >=, 0, d->name);
        if (c >= 0)
            __atomic_fetch_add(&w->hits[c], 1, __ATOMIC_RELAXED);
        w->count++;
        return;
    }
    const bounds_info_t *b = &w->canon[k];
    int type = b->loop_type, ivt = b->loop_iv_type;
    i128 step = get(&b->step_64, type | 1);
    i128 outer = iv[b->outer_iv];
    i128 lb = get(&b->lb0_u64, type) + get(&b->lb1_u64, type | 1) * outer;
    i128 ub = get(&b->ub0_u64, type) + get(&b->ub1_u64, type | 1) * outer;
    i128 from = first ? get(&w->chunk[k].lb0_u64, ivt) : lb;
    i128 to = last ? get(&w->chunk[k].ub0_u64, ivt) : ub;
    for (iv[k] = from; step > 0 ? iv[k] <= to && iv[k] <= ub : iv[k] >= to && iv[k] >= ub;
         iv[k] += step) {
        i128 v = iv[k];
        walk(w, k + 1, iv, first && v == from, last && v == to);
        iv[k] = v;
    }
}

static void test_nest(const struct nest *dp, int ours, int team)
{
    if (!ours && dp->peer == PEER_WRONG)
        return;
    struct nest d = fix(*dp);
    long n = cells(&d);
    unsigned char *want = calloc((size_t)n, 1);
    unsigned *hits = calloc((size_t)n, sizeof *hits);
    i128 iv[3] = {0}, last[3] = {0};
    long total = 0;
    reference(&d, 0, iv, want, &total, last);

    int lasts = 0, threads = 0;
    long per[64] = {0};
    PRAGMA(omp parallel num_threads(team) reduction(+ : lasts, threads))
    {
        ident_t loc = {0, 2, 0, 0, ";kmp-collapse.c;test_nest;0;0;;"};
        bounds_info_t mine[3], chunk[3];
        describe(&d, mine);
        int32_t is_last = -1;
        int32_t got = __kmpc_for_collapsed_init(&loc, __kmpc_global_thread_num(&loc), mine,
                                                chunk, d.n, &is_last);
        EXPECT_OP(is_last, !=, -1, "*plastiter is set");
        threads += 1;
        /* the copy comes back canonical */
        for (int k = 0; k < d.n; k++) {
            const struct loop *l = &d.l[k];
            int up = l->cmp == LE || l->cmp == LT || (l->cmp == NE && l->step > 0);
            EXPECT_EQ(mine[k].comparison, up ? LE : GE, d.name);
            i128 ub = l->ub0 + (l->cmp == LT || (l->cmp == NE && up) ? -1
                                : l->cmp == GT || (l->cmp == NE && !up) ? 1
                                                                       : 0);
            EXPECT_EQ((long long)get(&mine[k].ub0_u64, l->type),
                      (long long)get(&(uint64_t){(uint64_t)ub}, l->type), d.name);
        }
        long walked = 0;
        if (got) {
            struct walk w = {&d, mine, chunk, hits, 0};
            i128 p[3] = {0};
            walk(&w, 0, p, 1, 1);
            walked = w.count;
            EXPECT_OP(walked, >, 0, "a thread given a chunk has iterations");
            if (is_last) {
                lasts += 1;
                for (int k = 0; ours && k < d.n; k++)
                    EXPECT_EQ((long long)(get(&chunk[k].ub0_u64, d.l[k].iv_type) - last[k]), 0,
                              "buddypool's last chunk ends at the nest's last point");
            }
        } else {
            EXPECT_EQ(is_last, 0, "a thread with no chunk has not the last iteration");
        }
        if (omp_get_thread_num() < 64)
            per[omp_get_thread_num()] = walked;
    }
    EXPECT_EQ(threads, team, d.name);
    if (ours || d.peer == PEER_RIGHT)
        EXPECT_EQ(lasts, total > 0 ? 1 : 0, "exactly one thread has the last iteration");
    long seen = 0;
    for (long c = 0; c < n; c++) {
        if (hits[c] != want[c]) {
            EXPECT_EQ(hits[c], want[c], d.name);
            break;
        }
        seen += hits[c];
    }
    EXPECT_EQ(seen, total, d.name);
    if (ours)
        for (int t = 0; t < team && t < 64; t++) {
            EXPECT_OP(per[t], >=, total / team, "buddypool's chunks are even");
            EXPECT_OP(per[t], <=, total / team + 1, "buddypool's chunks are even");
        }
    free(want);
    free(hits);
}

/* A rectangular nest: i < 7 from 2 step 1, j from 10 down to 0 (>= 0,
 * step -3), k != 5 from 0 (k < 5 in effect). */
static void test_rectangular(void)
{
    static const struct nest d = {"rectangular", PEER_RIGHT, 3,
                                  {{I32, I32, LT, 0, 2, 0, 7, 0, 1, 2, 5},
                                   {I64, I64, GE, 0, 10, 0, 0, 0, -3, 0, 11},
                                   {U32, U32, NE, 0, 0, 0, 5, 0, 1, 0, 5}}};
    long n = cells(&d), total = 0;
    unsigned char *want = calloc((size_t)n, 1);
    unsigned *hits = calloc((size_t)n, sizeof *hits);
    i128 iv[3] = {0}, last[3];
    reference(&d, 0, iv, want, &total, last);

    bounds_info_t b[3];
    describe(&d, b);
    ident_t loc = {0, 2, 0, 0, ";kmp-collapse.c;test_rectangular;0;0;;"};
    uint64_t count = __kmpc_process_loop_nest_rectang(&loc, __kmpc_global_thread_num(&loc), b, 3);
    EXPECT_EQ(count, total, "the rectangular nest's iterations");
    EXPECT_EQ(b[0].trip_count, 5, "loop 0's trip count");
    EXPECT_EQ(b[1].trip_count, 4, "loop 1's trip count");
    EXPECT_EQ(b[2].trip_count, 5, "loop 2's trip count");
    EXPECT_EQ(b[0].comparison, LE, "< made <=");
    EXPECT_EQ(b[2].comparison, LE, "!= stepping up made <=");
    PRAGMA(omp parallel for schedule(static, 3))
    for (uint64_t it = 0; it < count; it++) {
        uint64_t ivs[3];
        __kmpc_calc_original_ivs_rectang(&loc, it, b, ivs, 3);
        i128 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = get(&ivs[k], d.l[k].iv_type);
        long c = cell(&d, p);
        EXPECT_OP(c, >=, 0, "a point of the rectangular nest");
        if (c >= 0)
            __atomic_fetch_add(&hits[c], 1, __ATOMIC_RELAXED);
        if (it == 0)
            EXPECT_EQ((long long)p[1], 10, "the first point's j");
    }
    for (long c = 0; c < n; c++)
        if (hits[c] != want[c]) {
            EXPECT_EQ(hits[c], want[c], "each point of the rectangular nest once");
            break;
        }
    free(want);
    free(hits);
}

/* Bad nests, which buddypool refuses with a message naming the entry
 * point and the loop (a wrong split would be a silently wrong answer):
 * nest `which` of the table, changed by `change`, handed to the runtime. */
static void init_changed(int which, void (*change)(bounds_info_t *))
{
    bounds_info_t b[3], c[3];
    int32_t last;
    describe(&nests[which], b);
    change(b);
    __kmpc_for_collapsed_init(NULL, 0, b, c, nests[which].n, &last);
}

static void step_0(bounds_info_t *b) { put(&b[1].step_64, I64, 0); }
static void name_inner(bounds_info_t *b) { b[0].outer_iv = 1, put(&b[0].ub1_u64, I32, 1); }
static void step_away(bounds_info_t *b) { put(&b[1].step_64, I32, -1); }
static void zero_step(void) { init_changed(0, step_0); }
static void inner_named(void) { init_changed(0, name_inner); }
static void wrong_way(void) { init_changed(1, step_away); }

int main(void)
{
    int ours = buddypool_version != NULL;
    int team = check_team_size("kmp-collapse");
    const char *only = getenv("KMP_COLLAPSE_ONLY");
    for (int i = 0; i < NESTS; i++)
        if (only == NULL || atoi(only) == i)
            test_nest(&nests[i], ours, team);
    /* outside any region: one thread takes the whole nest */
    {
        struct nest d = nests[2];
        bounds_info_t mine[3], chunk[3];
        describe(&d, mine);
        int32_t is_last = 0;
        EXPECT_EQ(__kmpc_for_collapsed_init(NULL, __kmpc_global_thread_num(NULL), mine, chunk, 3,
                                            &is_last),
                  1, "outside a region");
        EXPECT_EQ(is_last, 1, "outside a region, the last iteration");
        for (int k = 0; k < 3; k++) {
            EXPECT_EQ((long long)get(&chunk[k].lb0_u64, I32), 0, "outside a region, the start");
            EXPECT_EQ((long long)get(&chunk[k].ub0_u64, I32), 19, "outside a region, the end");
        }
    }
    test_rectangular();
    if (ours) {
        check_aborts("a step of 0", zero_step, "__kmpc_for_collapsed_init: loop 1 has a step of 0");
        check_aborts("a bound naming an inner loop", inner_named,
                     "__kmpc_for_collapsed_init: loop 0's bounds name loop 1's variable");
        check_aborts("a loop stepping away from its bound", wrong_way,
                     "__kmpc_for_collapsed_init: loop 1 steps down (-1) but its bound is an upper one");
    }
    return check_summary("kmp-collapse");
}
