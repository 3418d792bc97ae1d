/* kmp_collapse.c: libomp's entry points for collapsed loop nests, which
 * Intel's compilers call for `collapse(n)` (clang and gcc compute such a
 * nest's iteration space themselves and call the plain static loops):
 *   - __kmpc_process_loop_nest_rectang and __kmpc_calc_original_ivs_rectang
 *     for a rectangular nest: its iteration count, and the loops' variables
 *     at a point of the flattened space;
 *   - __kmpc_for_collapsed_init for a nest whose bounds may depend on an
 *     outer loop's variable (lb = lb0 + lb1 * iv[outer], likewise ub), split
 *     statically over the calling thread's team: the thread's chunk is a
 *     start point and an end point of the nest, which the compiled code
 *     walks in order with the loops' own bounds in between.
 *
 * Each loop arrives as a bounds_info_t: its bounds' type (32 or 64 bits,
 * signed or not, stored at the start of 64-bit fields as libomp's unions
 * store them; an outer variable's coefficients lb1 and ub1 are signed),
 * the variable's type, the comparison (<=, >=, !=, <, >) and
 * a signed step. As libomp does, every entry point first rewrites the
 * nest in place to the canonical form, <= or >= with an inclusive upper
 * bound (< b becomes <= b - 1, > b becomes >= b + 1, != becomes one of
 * them by the step's sign), and records each loop's trip count.
 *
 * How the non-rectangular nest is split. Every value is computed exactly,
 * in 128-bit arithmetic, from the nest itself:
 *   - The iterations of loops k..n-1 for given outer variables: when no
 *     inner loop's bounds name loop k's variable, loop k's trip count times
 *     the rest (one multiplication); otherwise the sum over loop k's values.
 *     So the work is the number of values of the loops that others depend
 *     on, never the nest's iterations: a triangle of n rows costs n steps,
 *     a rectangle one per loop.
 *   - Thread t of nth gets iterations [t*q + min(t, r), ...) of the nest's
 *     N, q = N / nth, r = N % nth (as the plain static schedule splits a
 *     loop), located by descending the nest with the counts above. Every
 *     iteration belongs to exactly one thread; a thread with none gets 0.
 * libomp splits a box around the nest and then moves the chunks' ends
 * onto the nest, so its chunks can be uneven; these are even. Which
 * thread runs which iteration of a static schedule is the runtime's to
 * choose (OpenMP 5.2, 11.5.3), so both are conforming; the chunks follow
 * each other in thread order, so `lastprivate` is the last thread's with
 * iterations, which *plastiter tells.
 *
 * As libomp does, none of these is announced to the listeners as a
 * worksharing construct (the loop's end, __kmpc_for_static_fini, is, if
 * the compiled code calls it). Bad input (a step of 0, an unknown type or
 * comparison, a bound naming a loop that is not outside it, a nest of more
 * than 2^64 - 1 iterations) is a fatal error naming the entry point and
 * the loop: a wrong split would be a silently wrong answer. */
#include <stdint.h>
#include <string.h>

#include "abi.h"
#include "../internal.h"
#include "kmp.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

/* libomp's types for a loop's bounds and variable (loop_type_t) and its
 * comparison (comparison_t). */
enum {
    KMP_LOOP_UINT8,
    KMP_LOOP_INT8,
    KMP_LOOP_UINT16,
    KMP_LOOP_INT16,
    KMP_LOOP_UINT32,
    KMP_LOOP_INT32,
    KMP_LOOP_UINT64,
    KMP_LOOP_INT64,
};
enum { KMP_LE, KMP_GE, KMP_NE, KMP_LT, KMP_GT };

/* The loops a nest may have: as many as a collapse clause could name in
 * practice; libomp has no limit but allocates per call. */
#define BP_COLLAPSE_MAX 32

/* One loop of a canonical nest, read once from its bounds_info_t. */
struct nest_loop {
    i128 lb0, lb1, ub0, ub1, step;
    int outer;      /* whose variable lb1 and ub1 multiply */
    int up;         /* <= (1) or >= (0) */
    int named;      /* some inner loop's bounds name this loop's variable */
    int iv_type;    /* the variable's loop_type_t */
};

/* A value of type `type` stored at the start of a 64-bit field. */
static i128 field_get(const uint64_t *field, int type)
{
    unsigned bytes = 1u << (type / 2);
    uint64_t raw = 0;
    memcpy(&raw, field, bytes); /* the low bytes on a little-endian machine */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    raw >>= 64 - 8 * bytes;
#endif
    if (bytes < 8)
        raw &= (UINT64_C(1) << (8 * bytes)) - 1;
    if (!(type & 1))
        return (i128)raw;
    if (bytes < 8 && (raw >> (8 * bytes - 1)) & 1)
        raw |= ~((UINT64_C(1) << (8 * bytes)) - 1);
    return (i128)(int64_t)raw;
}

/* Store v as type `type` at the start of a 64-bit field (libomp's union
 * member), leaving the field's other bytes as they were. */
static void field_set(uint64_t *field, int type, i128 v)
{
    unsigned bytes = 1u << (type / 2);
    uint64_t raw = (uint64_t)v;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    raw <<= 64 - 8 * bytes;
#endif
    memcpy(field, &raw, bytes);
}

/* A variable's value as libomp hands it back: converted to the variable's
 * type, then widened to 64 bits (sign-extended when the type is signed). */
static uint64_t iv_out(int iv_type, i128 v)
{
    unsigned bits = 8u << (iv_type / 2);
    uint64_t raw = (uint64_t)v;
    if (bits == 64)
        return raw;
    raw &= (UINT64_C(1) << bits) - 1;
    if ((iv_type & 1) && (raw >> (bits - 1)) & 1)
        raw |= ~((UINT64_C(1) << bits) - 1);
    return raw;
}

/* Checks the nest and rewrites it in place to <= / >= with inclusive
 * upper bounds, then reads it into `loops`. `rect`: the bounds may name no
 * outer variable. */
static void canonicalize(const char *who, bounds_info_t *nest, int n, struct nest_loop *loops,
                         int rect)
{
    if (nest == NULL || n < 1 || n > BP_COLLAPSE_MAX)
        bp_fatal("%s: a nest of %d loops (%s); 1 to %d are supported", who, n,
                 nest == NULL ? "no bounds given" : "bounds given", BP_COLLAPSE_MAX);
    for (int k = 0; k < n; k++) {
        bounds_info_t *b = &nest[k];
        int type = b->loop_type;
        if (type < KMP_LOOP_UINT8 || type > KMP_LOOP_INT64 || b->loop_iv_type < KMP_LOOP_UINT8 ||
            b->loop_iv_type > KMP_LOOP_INT64)
            bp_fatal("%s: loop %d has an unknown type (bounds %d, variable %d)", who, k, type,
                     (int)b->loop_iv_type);
        struct nest_loop *l = &loops[k];
        l->step = field_get((const uint64_t *)&b->step_64, type | 1);
        if (l->step == 0)
            bp_fatal("%s: loop %d has a step of 0", who, k);
        l->lb0 = field_get(&b->lb0_u64, type);
        l->ub0 = field_get(&b->ub0_u64, type);
        /* lb1 and ub1 are coefficients, signed whatever the type (-1 is
         * the bound j >= n - i of an unsigned loop) */
        l->lb1 = field_get(&b->lb1_u64, type | 1);
        l->ub1 = field_get(&b->ub1_u64, type | 1);
        l->outer = b->outer_iv;
        l->iv_type = b->loop_iv_type;
        l->named = 0;
        if ((l->lb1 != 0 || l->ub1 != 0) && (rect || l->outer < 0 || l->outer >= k))
            bp_fatal("%s: loop %d's bounds name loop %d's variable%s", who, k, (int)l->outer,
                     rect ? " in a nest given as rectangular" : ", which is not outside it");
        if (l->lb1 == 0 && l->ub1 == 0)
            l->outer = 0;
        switch (b->comparison) {
        case KMP_LE:
        case KMP_GE:
            break;
        case KMP_LT:
        case KMP_GT:
        case KMP_NE: {
            int up = b->comparison == KMP_LT || (b->comparison == KMP_NE && l->step > 0);
            l->ub0 += up ? -1 : 1;
            field_set(&b->ub0_u64, type, l->ub0);
            b->comparison = up ? KMP_LE : KMP_GE;
            break;
        }
        default:
            bp_fatal("%s: loop %d has an unknown comparison %d", who, k, (int)b->comparison);
        }
        l->up = b->comparison == KMP_LE;
        if (l->up != (l->step > 0)) /* i <= b stepping down, or >= stepping up */
            bp_fatal("%s: loop %d steps %s (%lld) but its bound is %s", who, k,
                     l->step > 0 ? "up" : "down", (long long)l->step,
                     l->up ? "an upper one (<=)" : "a lower one (>=)");
    }
    for (int k = 0; k < n; k++)
        if (loops[k].lb1 != 0 || loops[k].ub1 != 0)
            loops[loops[k].outer].named = 1;
}

/* Loop k's trip count for the outer variables in iv[0..k-1]. */
static u128 trip(const struct nest_loop *l, const i128 *iv)
{
    i128 lb = l->lb0 + l->lb1 * iv[l->outer];
    i128 ub = l->ub0 + l->ub1 * iv[l->outer];
    if (l->up)
        return ub < lb ? 0 : (u128)((ub - lb) / l->step) + 1;
    return lb < ub ? 0 : (u128)((lb - ub) / -l->step) + 1;
}

static i128 lower(const struct nest_loop *l, const i128 *iv)
{
    return l->lb0 + l->lb1 * iv[l->outer];
}

/* The iterations of loops k..n-1 for the outer variables in iv[0..k-1];
 * iv[k..] is scratch. Saturates at 2^127 - 1 (checked by the caller). */
static u128 count(const struct nest_loop *loops, int k, int n, i128 *iv)
{
    if (k == n)
        return 1;
    u128 t = trip(&loops[k], iv);
    if (t == 0)
        return 0;
    if (!loops[k].named) {
        iv[k] = lower(&loops[k], iv);
        u128 rest = count(loops, k + 1, n, iv);
        u128 limit = ~(u128)0 >> 1;
        return rest != 0 && t > limit / rest ? limit : t * rest;
    }
    u128 sum = 0;
    i128 v = lower(&loops[k], iv);
    for (u128 i = 0; i < t; i++, v += loops[k].step) {
        iv[k] = v;
        sum += count(loops, k + 1, n, iv);
        if (sum > UINT64_MAX)
            return sum; /* too many already: the caller refuses the nest */
    }
    return sum;
}

/* The point of the nest that is iteration `at` (counted from 0) in iv. */
static void locate(const struct nest_loop *loops, int n, u128 at, i128 *iv)
{
    for (int k = 0; k < n; k++) {
        const struct nest_loop *l = &loops[k];
        i128 v = lower(l, iv);
        if (!l->named) {
            iv[k] = v;
            u128 rest = count(loops, k + 1, n, iv);
            iv[k] = v + (i128)(at / rest) * l->step;
            at %= rest;
            continue;
        }
        for (;; v += l->step) {
            iv[k] = v;
            u128 rest = count(loops, k + 1, n, iv);
            if (at < rest)
                break;
            at -= rest;
        }
    }
}

BP_API uint64_t __kmpc_process_loop_nest_rectang(ident_t *loc, int32_t gtid,
                                                 bounds_info_t *original_bounds_nest,
                                                 int32_t n)
{
    (void)loc, (void)gtid;
    static const char who[] = "__kmpc_process_loop_nest_rectang";
    struct nest_loop loops[BP_COLLAPSE_MAX];
    canonicalize(who, original_bounds_nest, n, loops, 1);
    i128 none[BP_COLLAPSE_MAX] = {0};
    u128 total = 1;
    for (int k = 0; k < n; k++) {
        u128 t = trip(&loops[k], none);
        original_bounds_nest[k].trip_count = t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
        total = t == 0 || total <= UINT64_MAX / t ? total * t : (u128)UINT64_MAX + 1;
    }
    if (total > UINT64_MAX)
        bp_fatal("%s: a nest of more than 2^64 - 1 iterations", who);
    return (uint64_t)total;
}

BP_API void __kmpc_calc_original_ivs_rectang(ident_t *loc, uint64_t new_iv,
                                             const bounds_info_t *original_bounds_nest,
                                             uint64_t *original_ivs, int32_t n)
{
    (void)loc;
    static const char who[] = "__kmpc_calc_original_ivs_rectang";
    if (original_bounds_nest == NULL || original_ivs == NULL || n < 1 || n > BP_COLLAPSE_MAX)
        bp_fatal("%s: a nest of %d loops%s; 1 to %d are supported", who, n,
                 original_bounds_nest == NULL || original_ivs == NULL ? " without its arrays"
                                                                      : "",
                 BP_COLLAPSE_MAX);
    /* the innermost loop varies fastest; the trip counts are those that
     * __kmpc_process_loop_nest_rectang recorded */
    for (int k = n - 1; k >= 0; k--) {
        const bounds_info_t *b = &original_bounds_nest[k];
        uint64_t t = b->trip_count;
        if (t == 0)
            bp_fatal("%s: loop %d has no iterations (was the nest processed first?)", who, k);
        uint64_t i = new_iv % t;
        new_iv /= t;
        int type = b->loop_type;
        if (type < KMP_LOOP_UINT8 || type > KMP_LOOP_INT64 || b->loop_iv_type < KMP_LOOP_UINT8 ||
            b->loop_iv_type > KMP_LOOP_INT64)
            bp_fatal("%s: loop %d has an unknown type (bounds %d, variable %d)", who, k, type,
                     (int)b->loop_iv_type);
        i128 lb = field_get(&b->lb0_u64, type);
        i128 step = field_get((const uint64_t *)&b->step_64, type | 1);
        original_ivs[k] = iv_out(b->loop_iv_type, lb + (i128)i * step);
    }
}

BP_API int32_t __kmpc_for_collapsed_init(ident_t *loc, int32_t gtid,
                                         bounds_info_t *original_bounds_nest,
                                         bounds_info_t *chunk_bounds_nest, int32_t n,
                                         int32_t *plastiter)
{
    (void)loc, (void)gtid;
    static const char who[] = "__kmpc_for_collapsed_init";
    struct nest_loop loops[BP_COLLAPSE_MAX];
    canonicalize(who, original_bounds_nest, n, loops, 0);
    if (plastiter != NULL)
        *plastiter = 0;
    i128 iv[BP_COLLAPSE_MAX] = {0};
    u128 total = count(loops, 0, n, iv);
    if (total > UINT64_MAX)
        bp_fatal("%s: a nest of more than 2^64 - 1 iterations", who);
    struct bp_thread *t = bp_self();
    uint64_t nth = (uint64_t)t->team_size, tid = (uint64_t)t->tid;
    uint64_t q = (uint64_t)total / nth, r = (uint64_t)total % nth;
    uint64_t first = tid * q + (tid < r ? tid : r), size = q + (tid < r);
    if (size == 0)
        return 0;
    if (plastiter != NULL)
        *plastiter = first + size == (uint64_t)total;
    i128 start[BP_COLLAPSE_MAX] = {0}, end[BP_COLLAPSE_MAX] = {0};
    locate(loops, n, first, start);
    locate(loops, n, first + size - 1, end);
    for (int k = 0; k < n; k++) {
        chunk_bounds_nest[k] = original_bounds_nest[k];
        chunk_bounds_nest[k].lb0_u64 = iv_out(loops[k].iv_type, start[k]);
        chunk_bounds_nest[k].ub0_u64 = iv_out(loops[k].iv_type, end[k]);
        chunk_bounds_nest[k].lb1_u64 = 0;
        chunk_bounds_nest[k].ub1_u64 = 0;
    }
    return 1;
}
