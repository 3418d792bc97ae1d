/* test-sched.c: the static schedule arithmetic of __kmpc_for_static_init_*
 * over many (lower, upper, increment, chunk, team size) cases, in all four
 * widths: every iteration is assigned to exactly one thread, in the blocks
 * and chunks the schedule promises, and plastiter is set on exactly the
 * thread that runs the last iteration. Values are checked in 128-bit
 * arithmetic, independent of the library's own. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/internal.h"
#include "check.h"

typedef __int128 wide;

enum width { W4, W4U, W8, W8U };
static const char *width_name[] = {"4", "4u", "8", "8u"};

static wide type_min(enum width w)
{
    return w == W4 ? INT32_MIN : w == W8 ? (wide)INT64_MIN : 0;
}
static wide type_max(enum width w)
{
    return w == W4 ? INT32_MAX : w == W4U ? UINT32_MAX : w == W8 ? INT64_MAX : (wide)UINT64_MAX;
}
static wide incr_max(enum width w) { return w == W4 || w == W4U ? INT32_MAX : INT64_MAX; }

enum { MAX_NTH = 64 };

struct bounds {
    wide lower, upper, stride;
    int last;
    uint64_t count; /* the iterations the library says the thread runs */
};

/* Call the library for thread tid and widen what it returns. */
static struct bounds call(enum width w, int sched, wide lo, wide hi, wide incr, wide chunk,
                          int tid, int nth)
{
    struct bounds b;
    int32_t last = -1;
    switch (w) {
    case W4: {
        int32_t l = (int32_t)lo, u = (int32_t)hi, s = 0;
        uint64_t n = bp_for_static_init_4("t", tid, nth, sched, &last, &l, &u, &s, (int32_t)incr,
                                          (int32_t)chunk);
        b = (struct bounds){l, u, s, last, n};
        break;
    }
    case W4U: {
        uint32_t l = (uint32_t)lo, u = (uint32_t)hi;
        int32_t s = 0;
        uint64_t n = bp_for_static_init_4u("t", tid, nth, sched, &last, &l, &u, &s, (int32_t)incr,
                                           (int32_t)chunk);
        b = (struct bounds){l, u, s, last, n};
        break;
    }
    case W8: {
        int64_t l = (int64_t)lo, u = (int64_t)hi, s = 0;
        uint64_t n = bp_for_static_init_8("t", tid, nth, sched, &last, &l, &u, &s, (int64_t)incr,
                                          (int64_t)chunk);
        b = (struct bounds){l, u, s, last, n};
        break;
    }
    default: {
        uint64_t l = (uint64_t)lo, u = (uint64_t)hi;
        int64_t s = 0;
        uint64_t n = bp_for_static_init_8u("t", tid, nth, sched, &last, &l, &u, &s, (int64_t)incr,
                                           (int64_t)chunk);
        b = (struct bounds){l, u, s, last, n};
        break;
    }
    }
    CHECK(b.last == 0 || b.last == 1);
    return b;
}

/* An interval of iteration indices a thread runs. */
struct span {
    wide first, last;
    int tid;
};
static struct span *spans;
static size_t nspans, capspans;

static void add_span(wide first, wide last, int tid)
{
    if (nspans == capspans) {
        capspans = capspans ? capspans * 2 : 1024;
        spans = realloc(spans, capspans * sizeof *spans);
        CHECK(spans != NULL);
    }
    spans[nspans++] = (struct span){first, last, tid};
}

static int by_first(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Index of value v in the loop lo, lo + incr, ...; v must lie on it. */
static wide index_of(wide v, wide lo, wide incr)
{
    CHECK_EQ((long long)((v - lo) % incr), 0);
    return (v - lo) / incr;
}

/* lower..upper (a thread's bounds) mapped to indices; empty gives first > last. */
static void bounds_to_span(wide lower, wide upper, wide lo, wide incr, wide *first, wide *last)
{
    *first = index_of(lower, lo, incr);
    *last = index_of(upper, lo, incr);
}

static long long ncases;

static void check_case(enum width w, wide lo, wide hi, wide incr, wide chunk, int nth)
{
    int chunked = chunk > 0;
    int sched = chunked ? BP_SCH_STATIC_CHUNKED : BP_SCH_STATIC;
    wide umod = type_max(w) - type_min(w) + 1; /* 2^bits */
    int forward = incr > 0;
    ncases++;
    nspans = 0;
    wide last_index = (forward ? hi - lo : lo - hi) / (forward ? incr : -incr);
    /* A whole-type range with increment +-1 (trip count 2^bits, which wraps
     * to 0) is an empty loop: MLIR passes upper = trip count - 1 = ~0 for
     * one (tested in full below). */
    int empty_loop = (forward ? lo > hi : lo < hi) || last_index == umod - 1;
    int lastiter_threads = 0, lastiter_tid = -1;
    uint64_t counts[MAX_NTH] = {0};
    int counts_known = 1; /* all of a thread's chunks are enumerated below */
    CHECK_LE(nth, MAX_NTH);

    for (int tid = 0; tid < nth; tid++) {
        struct bounds b = call(w, sched, lo, hi, incr, chunk, tid, nth);
        counts[tid] = b.count;
        if (b.last) {
            lastiter_threads++;
            lastiter_tid = tid;
        }
        if (empty_loop) {
            CHECK(b.lower == lo && b.upper == hi); /* untouched, already empty */
            CHECK_EQ(b.count, 0);
            continue;
        }
        /* Empty assignment: ub - lb + sign == 0 in the type (MLIR's trip count). */
        int assigned = forward ? b.lower <= b.upper : b.lower >= b.upper;
        wide sign = forward ? 1 : -1;
        if (!assigned) {
            wide d = ((b.upper - b.lower + sign) % umod + umod) % umod;
            CHECK_EQ((long long)d, 0);
            continue;
        }
        wide first, last;
        bounds_to_span(b.lower, b.upper, lo, incr, &first, &last);
        CHECK_GE((long long)(first >= 0), 1);
        CHECK(last <= last_index);
        if (!chunked) {
            add_span(first, last, tid);
            continue;
        }
        /* Chunked: at most `chunk` iterations, then every nth chunk. */
        if (!(last - first + 1 <= chunk && first == (wide)tid * chunk)) {
            fprintf(stderr, "width %s lo %lld hi %lld incr %lld chunk %lld nth %d tid %d: "
                    "first chunk %lld..%lld (bounds %lld..%lld)\n", width_name[w],
                    (long long)lo, (long long)hi, (long long)incr, (long long)chunk, nth, tid,
                    (long long)first, (long long)last, (long long)b.lower, (long long)b.upper);
            exit(1);
        }
        CHECK(first == (wide)tid * chunk);
        add_span(first, last, tid);
        if (chunk * nth > incr_max(w) / (forward ? incr : -incr)) {
            counts_known = 0;
            continue; /* no thread has a second chunk (see check_width) */
        }
        wide stride = chunk * nth * incr;
        CHECK(b.stride == stride);
        wide first0 = first;
        for (wide k = first0 + chunk * nth; k <= last_index; k += chunk * nth) {
            wide lb = b.lower + (k - first0) * incr;
            wide ub = b.upper + (k - first0) * incr;
            wide final = lo + last_index * incr; /* the last iteration's value */
            if (forward ? ub > final : ub < final)
                ub = final; /* the compiler's clamp to the global upper bound */
            bounds_to_span(lb, ub, lo, incr, &first, &last);
            add_span(first, last, tid);
        }
    }
    if (empty_loop) {
        CHECK_EQ(lastiter_threads, 0);
        return;
    }
    /* The count each thread was given is the number of its iterations (2^64
     * and more do not fit: those cases wrap, as documented). */
    if (counts_known && last_index < (wide)INT64_MAX) {
        uint64_t got[MAX_NTH] = {0};
        for (size_t i = 0; i < nspans; i++)
            got[spans[i].tid] += (uint64_t)(spans[i].last - spans[i].first + 1);
        for (int tid = 0; tid < nth; tid++)
            if (got[tid] != counts[tid]) {
                fprintf(stderr, "width %s lo %lld hi %lld incr %lld chunk %lld nth %d tid %d: "
                        "count %llu, runs %llu iterations\n", width_name[w], (long long)lo,
                        (long long)hi, (long long)incr, (long long)chunk, nth, tid,
                        (unsigned long long)counts[tid], (unsigned long long)got[tid]);
                exit(1);
            }
    }
    /* The spans tile 0..last_index exactly: no gap, no overlap. */
    qsort(spans, nspans, sizeof *spans, by_first);
    wide next = 0;
    int owner_of_last = -1;
    for (size_t i = 0; i < nspans; i++) {
        if (spans[i].first != next) {
            fprintf(stderr, "width %s lo %lld hi %lld incr %lld chunk %lld nth %d: span %zu "
                    "starts at %lld, expected %lld\n", width_name[w], (long long)lo,
                    (long long)hi, (long long)incr, (long long)chunk, nth, i,
                    (long long)spans[i].first, (long long)next);
            exit(1);
        }
        if (!chunked && i > 0)
            CHECK_LT(spans[i - 1].tid, spans[i].tid); /* blocks in thread order */
        if (spans[i].last == last_index)
            owner_of_last = spans[i].tid;
        next = spans[i].last + 1;
    }
    if (next != last_index + 1) {
        fprintf(stderr, "width %s lo %lld hi %lld incr %lld chunk %lld nth %d: spans end at "
                "%lld, expected %lld\n", width_name[w], (long long)lo, (long long)hi,
                (long long)incr, (long long)chunk, nth, (long long)next - 1,
                (long long)last_index);
        exit(1);
    }
    if (!chunked) {
        /* block sizes differ by at most one */
        wide lo_size = last_index + 2, hi_size = 0;
        for (size_t i = 0; i < nspans; i++) {
            wide s = spans[i].last - spans[i].first + 1;
            lo_size = s < lo_size ? s : lo_size;
            hi_size = s > hi_size ? s : hi_size;
        }
        if ((wide)nspans == nth)
            CHECK(hi_size - lo_size <= 1);
        else
            CHECK(hi_size == 1 && last_index + 1 < nth); /* fewer iterations than threads */
    }
    CHECK_EQ(lastiter_threads, 1);
    CHECK_EQ(lastiter_tid, owner_of_last);
}

static void check_width(enum width w)
{
    wide mn = type_min(w), mx = type_max(w), im = incr_max(w);
    wide mid = w == W4U || w == W8U ? 1000 : -3;
    static const int teams[] = {1, 2, 3, 4, 5, 7, 8, 16, 64};
    wide chunks[] = {0, 1, 2, 3, 5, 64, 1000, im / 3, im};
    wide incrs[] = {1, 2, 3, 7, -1, -2, -5, im, -im};
    /* (lo, hi) pairs: small, empty, single, around the type's ends, whole type. */
    wide ranges[][2] = {
        {mid, mid + 99}, {mid, mid + 1000}, {mid + 99, mid}, {mid, mid}, {mid + 5, mid - 5},
        {mid, mid + 2},  {mx - 50, mx},     {mx, mx - 50},   {mn, mn + 50}, {mn + 50, mn},
        {mn, mx},        {mx, mn},          {mx - 1, mx},    {mn, mn + 1},
    };
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
        for (size_t i = 0; i < sizeof incrs / sizeof incrs[0]; i++)
            for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
                for (size_t t = 0; t < sizeof teams / sizeof teams[0]; t++) {
                    wide lo = ranges[r][0], hi = ranges[r][1], incr = incrs[i];
                    wide chunk = chunks[c];
                    /* keep the enumeration of chunks small */
                    wide span = hi > lo ? hi - lo : lo - hi;
                    wide aincr = incr > 0 ? incr : -incr;
                    if (chunk > 0 && (span / aincr) / chunk > 100000)
                        continue;
                    /* A stride of chunk * nth * incr that the type cannot
                     * hold cannot reach a thread's second chunk: the ABI has
                     * no answer there (libomp's neither). */
                    if (chunk > 0 && (span / aincr) / chunk >= teams[t] &&
                        chunk * teams[t] > im / aincr)
                        continue;
                    check_case(w, lo, hi, incr, chunk, teams[t]);
                }
}

int main(void)
{
    for (enum width w = W4; w <= W8U; w++)
        check_width(w);

    /* bp_static_split at the very top of the index space: 2^64 iterations */
    uint64_t first, block_last;
    int is_last;
    CHECK_EQ(bp_static_split(UINT64_MAX, 0, 0, 1, &first, &block_last, &is_last), 1);
    CHECK(first == 0 && block_last == UINT64_MAX && is_last);
    CHECK_EQ(bp_static_split(UINT64_MAX, 0, 3, 4, &first, &block_last, &is_last), 1);
    CHECK(first == (UINT64_MAX / 4 + 1) * 3 && block_last == UINT64_MAX && is_last);
    CHECK_EQ(bp_static_split(UINT64_MAX, 1, 2, 3, &first, &block_last, &is_last), 1);
    CHECK(first == 2 && block_last == 2 && !is_last); /* 2^64 - 1 = 0 mod 3 */
    /* The monotonic and nonmonotonic modifier bits change nothing. */
    for (int nth = 1; nth <= 5; nth++)
        for (int tid = 0; tid < nth; tid++)
            for (int chunked = 0; chunked <= 1; chunked++) {
                int base = chunked ? BP_SCH_STATIC_CHUNKED : BP_SCH_STATIC;
                int64_t l0 = 3, u0 = 1000, s0 = 0, l1 = 3, u1 = 1000, s1 = 0;
                int32_t last0 = -1, last1 = -1;
                bp_for_static_init_8("t", tid, nth, base, &last0, &l0, &u0, &s0, 3, 7);
                bp_for_static_init_8("t", tid, nth, base | (chunked ? BP_SCH_NONMONOTONIC
                                                                    : BP_SCH_MONOTONIC),
                                     &last1, &l1, &u1, &s1, 3, 7);
                CHECK(l0 == l1 && u0 == u1 && s0 == s1 && last0 == last1);
            }
    /* schedule(simd: static, 8): one chunk per thread, a multiple of 8 long
     * (the last one shorter), covering 0..999 in thread order. */
    for (int nth = 1; nth <= 9; nth++) {
        int32_t next = 0, lasts = 0;
        for (int tid = 0; tid < nth; tid++) {
            int32_t lo = 0, hi = 999, stride, last = -1;
            bp_for_static_init_4("t", tid, nth, BP_SCH_STATIC_BALANCED_CHUNKED, &last, &lo, &hi,
                                 &stride, 1, 8);
            lasts += last;
            if (lo > hi)
                continue;
            CHECK_EQ(lo, next);
            CHECK(hi == 999 || (hi - lo + 1) % 8 == 0);
            CHECK(last == (hi == 999));
            next = hi + 1;
        }
        CHECK_EQ(next, 1000);
        CHECK_EQ(lasts, 1);
    }
    /* MLIR's empty loop: lower 0, upper = trip count - 1 = ~0, and the
     * caller runs upper - lower + 1 iterations in the unsigned type. */
    for (int nth = 1; nth <= 8; nth++)
        for (int tid = 0; tid < nth; tid++) {
            uint64_t lo = 0, hi = UINT64_MAX;
            int64_t stride;
            int32_t last = -1;
            bp_for_static_init_8u("t", tid, nth, BP_SCH_STATIC, &last, &lo, &hi, &stride, 1, 0);
            CHECK(hi - lo + 1 == 0 && last == 0);
            uint32_t lo4 = 0, hi4 = UINT32_MAX;
            int32_t stride4;
            bp_for_static_init_4u("t", tid, nth, BP_SCH_STATIC, &last, &lo4, &hi4, &stride4, 1, 0);
            CHECK((uint32_t)(hi4 - lo4 + 1) == 0 && last == 0);
        }
    printf("test-sched: %lld cases passed\n", ncases);
    return 0;
}
