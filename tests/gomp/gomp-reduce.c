/* gomp-reduce.c: reductions compiled by gcc -fopenmp, every operator
 * (+ * max min & | ^ && ||) on int and double, on parallel for loops, an
 * orphaned for (with its barrier) and a plain parallel region. gcc
 * combines the partial results with atomics, or under GOMP_atomic_start/end
 * when there are several; the results must be exact. */
#include <omp.h>

#include "gomp-check.h"

enum { N = 1000 };

static volatile int v_n = N;

/* The values reduced: exact in double, products within 2^30. */
static int ival(int i) { return (i * 37) % N - 500; }
static int ifactor(int i) { return i % 97 == 0 ? 2 : (i % 101 == 0 ? -1 : 1); }
static int ibits(int i) { return ~(1 << (i % 29)) | (i & 1 ? 1 << 30 : 0); }

struct ints {
    int sum, prod, max, min, and, or, xor, land, lor, land_true, lor_false;
};
struct doubles {
    double sum, prod, max, min, land, lor;
};

/* One iteration's contribution, for the serial reference and every test. */
#define BODY(i)                                                                        \
    do {                                                                               \
        is += ival(i);                                                                 \
        ip *= ifactor(i);                                                              \
        imax = imax > ival(i) ? imax : ival(i);                                        \
        imin = imin < ival(i) ? imin : ival(i);                                        \
        iand &= ibits(i);                                                              \
        ior |= 1 << (i % 31);                                                          \
        ixor ^= i * 2654435761u;                                                       \
        iland = iland && (i != 500);                                                   \
        ilor = ilor || (i == 777);                                                     \
        iland_t = iland_t && (i >= 0);                                                 \
        ilor_f = ilor_f || (i < 0);                                                    \
        ds += ival(i) * 0.5;                                                           \
        dp *= ifactor(i) * 1.0;                                                        \
        dmax = dmax > ival(i) * 0.25 ? dmax : ival(i) * 0.25;                          \
        dmin = dmin < ival(i) * 0.25 ? dmin : ival(i) * 0.25;                          \
        dland = dland && (i != 999);                                                   \
        dlor = dlor || (i == 3);                                                       \
    } while (0)

#define LOCALS                                                                         \
    int is = 0, ip = 1, imax = -1000000, imin = 1000000, iand = ~0, ior = 0, ixor = 0,  \
        iland = 1, ilor = 0, iland_t = 1, ilor_f = 0;                                  \
    double ds = 0, dp = 1, dmax = -1e30, dmin = 1e30, dland = 1, dlor = 0;

#define REDUCTIONS                                                                     \
    reduction(+ : is, ds) reduction(* : ip, dp) reduction(max : imax, dmax)            \
        reduction(min : imin, dmin) reduction(& : iand) reduction(| : ior)             \
            reduction(^ : ixor) reduction(&& : iland, iland_t, dland)                  \
                reduction(|| : ilor, ilor_f, dlor)

#define STORE(out_i, out_d)                                                            \
    do {                                                                               \
        out_i = (struct ints){is, ip, imax, imin, iand, ior, ixor, iland, ilor, iland_t, \
                              ilor_f};                                                 \
        out_d = (struct doubles){ds, dp, dmax, dmin, dland, dlor};                     \
    } while (0)

static void expect_same(const char *what, struct ints a, struct doubles b, struct ints ra,
                        struct doubles rb)
{
    char label[120];
#define SAME_INT(f)                                                                    \
    snprintf(label, sizeof label, "%s, int " #f, what);                                \
    EXPECT_EQ(a.f, ra.f, label);
#define SAME_DOUBLE(f)                                                                 \
    snprintf(label, sizeof label, "%s, double " #f, what);                             \
    EXPECT_DEQ(b.f, rb.f, label);
    SAME_INT(sum) SAME_INT(prod) SAME_INT(max) SAME_INT(min) SAME_INT(and) SAME_INT(or)
    SAME_INT(xor) SAME_INT(land) SAME_INT(lor) SAME_INT(land_true) SAME_INT(lor_false)
    SAME_DOUBLE(sum) SAME_DOUBLE(prod) SAME_DOUBLE(max) SAME_DOUBLE(min)
    SAME_DOUBLE(land) SAME_DOUBLE(lor)
}

int main(void)
{
    int team = check_team_size("gomp-reduce");
    int n = v_n;
    struct ints ref_i, got_i;
    struct doubles ref_d, got_d;

    {
        LOCALS
        for (int i = 0; i < n; i++)
            BODY(i);
        STORE(ref_i, ref_d);
        /* the reference itself: each operator must have something to do */
        EXPECT_EQ(ref_i.land, 0, "reference");
        EXPECT_EQ(ref_i.lor, 1, "reference");
        EXPECT_EQ(ref_i.land_true, 1, "reference");
        EXPECT_EQ(ref_i.lor_false, 0, "reference");
        EXPECT_EQ(ref_i.max, 499, "reference");
        EXPECT_EQ(ref_i.min, -500, "reference");
        EXPECT_EQ(ref_i.prod, -2048, "reference"); /* 11 factors of 2, 9 of -1 */
    }
    {
        LOCALS
        PRAGMA(omp parallel for schedule(dynamic, 3) REDUCTIONS)
        for (int i = 0; i < N; i++)
            BODY(i);
        STORE(got_i, got_d);
        expect_same("parallel for schedule(dynamic, 3)", got_i, got_d, ref_i, ref_d);
    }
    {
        LOCALS
        PRAGMA(omp parallel for schedule(guided) REDUCTIONS)
        for (int i = N - 1; i >= 0; i--)
            BODY(i);
        STORE(got_i, got_d);
        expect_same("parallel for schedule(guided), down", got_i, got_d, ref_i, ref_d);
    }
    {
        LOCALS
        PRAGMA(omp parallel for REDUCTIONS)
        for (int i = 0; i < n; i++)
            BODY(i);
        STORE(got_i, got_d);
        expect_same("parallel for (static)", got_i, got_d, ref_i, ref_d);
    }
    {
        LOCALS
        int after = 0;
        PRAGMA(omp parallel)
        {
            PRAGMA(omp for schedule(runtime) REDUCTIONS)
            for (int i = 0; i < n; i++)
                BODY(i);
            /* the loop's barrier comes after the combination */
            PRAGMA(omp single)
            after = is;
        }
        STORE(got_i, got_d);
        expect_same("for schedule(runtime) in a region", got_i, got_d, ref_i, ref_d);
        EXPECT_EQ(after, ref_i.sum, "for schedule(runtime): reduced before its barrier");
    }
    {
        /* a region without a loop: every thread contributes once */
        LOCALS
        PRAGMA(omp parallel REDUCTIONS)
        {
            int i = omp_get_thread_num();
            BODY(i);
        }
        STORE(got_i, got_d);
        struct ints want_i;
        struct doubles want_d;
        {
            LOCALS
            for (int i = 0; i < team; i++)
                BODY(i);
            STORE(want_i, want_d);
        }
        expect_same("parallel reduction, one contribution per thread", got_i, got_d, want_i,
                    want_d);
    }
    return check_summary("gomp-reduce");
}
