/* sched.c: static loop schedule arithmetic, free of threads, so every case
 * can be unit-tested.
 *
 * A loop lower..upper by incr is first turned into iteration indices
 * 0..last, last = |upper - lower| / |incr|, computed in the loop type's
 * unsigned width. Indices are split (bp_static_split) and mapped back as
 * lower + index * incr in wrapping unsigned arithmetic, which is exact since
 * every such value lies between lower and upper.
 *
 * A loop over a whole type with increment +-1 (last == ~0) has no
 * iterations: its trip count wraps to 0, which is how MLIR's lowering passes
 * an empty loop (upper = trip count - 1) and how libomp reads it in a team of
 * more than one thread.
 *
 * A thread with no iterations gets upper = the loop's upper bound and
 * lower = upper + sign(incr) (libomp's convention; upper moves one step
 * inwards when it is the type's extreme, so lower does not wrap): both
 * `for (i = lb; i <= ub; ...)` and the trip count ub - lb + 1 == 0 that
 * MLIR's lowering computes then run nothing. */
#include "../internal.h"

int bp_static_split(uint64_t last, uint64_t chunk, int tid, int nth,
                    uint64_t *first, uint64_t *block_last, int *is_last)
{
    uint64_t t = (uint64_t)tid, n = (uint64_t)nth;
    if (chunk == 0) {
        /* last + 1 == q * n + r + 1, without forming last + 1 */
        uint64_t q = last / n, r = last % n;
        if (r + 1 == n) {
            /* every block has q + 1 iterations (which wraps to 0 only when
             * n == 1, where t == 0 and the product is 0 anyway) */
            *is_last = t == n - 1;
            *first = t * (q + 1);
            *block_last = *first + q;
            return 1;
        }
        /* the first `extras` threads run q + 1 iterations, the others q */
        uint64_t extras = r + 1;
        /* With q == 0 the last index belongs to thread extras - 1 == r. */
        *is_last = q == 0 ? t == r : t == n - 1;
        if (q == 0 && t >= extras)
            return 0;
        *first = t * q + (t < extras ? t : extras);
        *block_last = *first + q - (t < extras ? 0 : 1);
        return 1;
    }
    uint64_t last_chunk = last / chunk;
    *is_last = t == last_chunk % n;
    if (t > last_chunk)
        return 0;
    *first = t * chunk;
    uint64_t left = last - *first; /* iterations after the first */
    *block_last = *first + (left < chunk ? left : chunk - 1);
    return 1;
}

/* Iterations of 0..last that thread tid of nth runs in chunks of `chunk`
 * (> 0) dealt round-robin. */
static uint64_t chunked_count(uint64_t last, uint64_t chunk, int tid, int nth)
{
    uint64_t t = (uint64_t)tid, n = (uint64_t)nth, last_chunk = last / chunk;
    if (t > last_chunk)
        return 0;
    /* chunks t, t + n, ... up to last_chunk, the last one short */
    uint64_t count = ((last_chunk - t) / n + 1) * chunk;
    if (last_chunk % n == t)
        count -= chunk - (last % chunk + 1);
    return count;
}

/* One function per libomp width: T the loop type, UT its unsigned twin, ST
 * the signed type of incr and chunk, MAXV/MINV the limits of T. */
#define BP_STATIC_INIT_DEF(sfx, T, UT, ST, MINV, MAXV)                            \
    uint64_t bp_for_static_init_##sfx(const char *who, int tid, int nth,        \
                                  int32_t schedtype, int32_t *plastiter,        \
                                  T *plower, T *pupper, ST *pstride, ST incr,   \
                                  ST chunk)                                     \
    {                                                                           \
        int chunked;                                                            \
        /* the monotonic/nonmonotonic modifier bits do not change a static */  \
        /* schedule */                                                          \
        switch (schedtype & ~(BP_SCH_MONOTONIC | BP_SCH_NONMONOTONIC)) {        \
        case BP_SCH_STATIC:                                                     \
        case BP_SCH_ORD_STATIC:                                                 \
            chunked = 0;                                                        \
            break;                                                              \
        case BP_SCH_STATIC_CHUNKED:                                             \
        case BP_SCH_ORD_STATIC_CHUNKED:                                         \
            chunked = 1;                                                        \
            break;                                                              \
        case BP_SCH_STATIC_BALANCED_CHUNKED:                                    \
            chunked = 2;                                                        \
            break;                                                              \
        default:                                                                \
            bp_fatal("%s: unsupported schedule type %d (static: 34, "          \
                     "static chunked: 33)", who, (int)schedtype);               \
        }                                                                       \
        if (incr == 0)                                                          \
            bp_fatal("%s: loop increment is 0", who);                          \
        T lo = *plower, hi = *pupper;                                           \
        UT span = incr > 0 ? (UT)hi - (UT)lo : (UT)lo - (UT)hi;                 \
        UT step = incr > 0 ? (UT)incr : (UT)0 - (UT)incr;                      \
        uint64_t last = (uint64_t)(span / step);                                \
        if ((incr > 0 ? lo > hi : lo < hi) || last == (uint64_t)(UT)~(UT)0) {   \
            /* No iterations: leave the bounds as they are. A whole-type     */ \
            /* range counts as none (see the top of the file).               */ \
            if (plastiter)                                                      \
                *plastiter = 0;                                                 \
            *pstride = incr;                                                    \
            return 0;                                                           \
        }                                                                       \
        uint64_t c = chunked ? (chunk < 1 ? 1 : (uint64_t)chunk) : 0;            \
        if (chunked == 2) {                                                     \
            /* schedule(simd: static): one chunk per thread, its size the  */  \
            /* block size rounded up to a multiple of chunk (the simd width); */ \
            /* ceil((last + 1) / nth) == last / nth + 1 */                      \
            uint64_t block = last / (uint64_t)nth + 1;                          \
            uint64_t rounded = (block + c - 1) / c * c;                          \
            c = rounded >= block ? rounded : block; /* overflow: keep block */  \
        }                                                                       \
        uint64_t first, block_last;                                             \
        int is_last;                                                            \
        int has = bp_static_split(last, c, tid, nth, &first, &block_last,      \
                                  &is_last);                                    \
        if (plastiter)                                                          \
            *plastiter = is_last;                                               \
        if (!has) {                                                             \
            /* empty: lower = upper + sign, upper = hi moved off the type's */ \
            /* end so that lower does not wrap */                               \
            T x = incr > 0 ? (hi == MAXV ? hi - 1 : hi) : (hi == MINV ? hi + 1 : hi); \
            *plower = (T)((UT)x + (UT)(incr > 0 ? 1 : -1));                     \
            *pupper = x;                                                        \
        } else {                                                                \
            UT start = (UT)lo + (UT)first * (UT)incr;                           \
            *plower = (T)start;                                                 \
            *pupper = (T)(start + (UT)(block_last - first) * (UT)incr);         \
        }                                                                       \
        /* chunked: distance between a thread's chunks; static: past the   */ \
        /* end (libomp gives the trip count; neither clang nor MLIR reads it) */ \
        *pstride = chunked ? (ST)((UT)c * (UT)nth * (UT)incr)                   \
                           : (ST)((UT)span + (UT)incr);                         \
        if (!has)                                                               \
            return 0;                                                           \
        /* a block is its own count; chunks are counted only when chunked */  \
        return c == 0 ? block_last - first + 1 : chunked_count(last, c, tid, nth); \
    }

BP_STATIC_INIT_DEF(4, int32_t, uint32_t, int32_t, INT32_MIN, INT32_MAX)
BP_STATIC_INIT_DEF(4u, uint32_t, uint32_t, int32_t, 0, UINT32_MAX)
BP_STATIC_INIT_DEF(8, int64_t, uint64_t, int64_t, INT64_MIN, INT64_MAX)
BP_STATIC_INIT_DEF(8u, uint64_t, uint64_t, int64_t, 0, UINT64_MAX)
