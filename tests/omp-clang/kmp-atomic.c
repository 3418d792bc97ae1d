/* kmp-atomic.c: libomp's typed atomic entry points (__kmpc_atomic_fixed4_add,
 * ..._float10_max_cpt, ..._cmplx4_div_cpt_rev, ..._bool_4_cas, the generic
 * __kmpc_atomic_<n> and __kmpc_atomic_start/end), which compilers other
 * than clang emit and programs call by name.
 *
 * Part one calls every entry point of src/abi/atomic_list.h, alone, on
 * three pairs of operands (a negative, a positive and a mixed pair, real
 * and imaginary parts for complex types), each capture with flag 0 and 1,
 * and prints every answer exactly (%a for reals); the test compares the
 * whole output with libomp's, line by line (check-same-output.sh), so
 * libomp is the reference for all of them. A few answers are also checked
 * here against values worked out by hand. Shifts by a count outside 0..7
 * (undefined in C) are not made.
 *
 * Part two runs the team on shared objects: integer, real, long double
 * and complex sums (the last two under the atomic lock), a misaligned
 * integer (the lock as well), three neighbours in one 4-byte word, tickets from a capture (each taken once),
 * the generic forms, a maximum, a compare-and-swap counter, and
 * __kmpc_atomic_start/end around a plain update; every total must be
 * exact. */
#include <complex.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* The calling thread's global number (libomp's locks need the true one). */
int __kmpc_global_thread_num(void *loc);
#define G __kmpc_global_thread_num(NULL)

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                        \
            printf(__VA_ARGS__);                                               \
            printf("\n");                                                      \
        }                                                                      \
    } while (0)

/* ---- printing any operand type exactly ----------------------------------- */
static void put_i(long long v) { printf(" %lld", v); }
static void put_u(unsigned long long v) { printf(" %llu", v); }
static void put_d(double v) { printf(" %a", v); }
static void put_ld(long double v) { printf(" %La", v); }
static void put_cf(float _Complex v) { printf(" (%a,%a)", crealf(v), cimagf(v)); }
static void put_cd(double _Complex v) { printf(" (%a,%a)", creal(v), cimag(v)); }
static void put_cl(long double _Complex v) { printf(" (%La,%La)", creall(v), cimagl(v)); }
#define PUT(x)                                                                 \
    _Generic((x), int8_t: put_i, int16_t: put_i, int32_t: put_i, int64_t: put_i, \
             uint8_t: put_u, uint16_t: put_u, uint32_t: put_u, uint64_t: put_u, \
             _Bool: put_u, float: put_d, double: put_d, long double: put_ld,   \
             float _Complex: put_cf, double _Complex: put_cd,                  \
             long double _Complex: put_cl)(x)

/* The operand pairs: x's and b's real and imaginary parts. */
static const double pairs[3][4] = {{-12, 1.5, 3.5, -2}, {7, -0.25, 5, 0.5}, {2, 3, -9, 1.25}};

/* v as a T: integers through int64_t (so -9 becomes a defined unsigned
 * value), reals directly; w the imaginary part of a complex T (a real or an
 * integer T drops it). */
#define IS_INT(T) ((T)0.5 == (T)0)
#define VAL(T, v, w) ((T)(IS_INT(T) ? (T)(int64_t)(v) : (T)(v)) + (T)((w) * I))

static bool is_shift(const char *name) { return strstr(name, "sh") != NULL; }
static bool count_ok(long double c) { return c >= 0 && c < 8; }

/* Whether a pair is fit for the row: a shift's count in 0..7. */
#define FIT(name, a, b) (!is_shift(name) || count_ok(strstr(name, "_rev") ? creall(a) : creall(b)))

/* ---- the rows ------------------------------------------------------------ */
#define BP_ATOMIC_UPD(tn, T, RT, name, EXPR, SKIP)                             \
    void __kmpc_atomic_##tn##_##name(void *id, int gtid, T *lhs, RT b);        \
    static void row_##tn##_##name(void)                                        \
    {                                                                          \
        for (int p = 0; p < 3; p++) {                                          \
            T x = VAL(T, pairs[p][0], pairs[p][1]);                            \
            RT b = VAL(RT, pairs[p][2], pairs[p][3]);                          \
            if (!FIT(#name, x, b))                                             \
                continue;                                                      \
            __kmpc_atomic_##tn##_##name(NULL, G, &x, b);                       \
            printf("%s_%s %d", #tn, #name, p);                                 \
            PUT(x);                                                            \
            printf("\n");                                                      \
        }                                                                      \
    }
/* A capture's row: CALL updates x from b with flag, setting r. */
#define ROW_CPT(tn, T, name, ...)                                              \
    static void row_##tn##_##name(void)                                        \
    {                                                                          \
        for (int p = 0; p < 3; p++)                                            \
            for (int flag = 0; flag < 2; flag++) {                             \
                T x = VAL(T, pairs[p][0], pairs[p][1]);                        \
                T b = VAL(T, pairs[p][2], pairs[p][3]);                        \
                T r = 0;                                                       \
                if (!FIT(#name, x, b))                                         \
                    continue;                                                  \
                __VA_ARGS__;                                                   \
                printf("%s_%s %d %d", #tn, #name, p, flag);                    \
                PUT(x);                                                        \
                PUT(r);                                                        \
                printf("\n");                                                  \
            }                                                                  \
    }
#define BP_ATOMIC_CPT(tn, T, name, EXPR, SKIP)                                 \
    T __kmpc_atomic_##tn##_##name(void *id, int gtid, T *lhs, T b, int flag);  \
    ROW_CPT(tn, T, name, r = __kmpc_atomic_##tn##_##name(NULL, G, &x, b, flag))
#define BP_ATOMIC_CPT_OUT(tn, T, name, EXPR)                                   \
    void __kmpc_atomic_##tn##_##name(void *id, int gtid, T *lhs, T b, T *out, int flag); \
    ROW_CPT(tn, T, name, __kmpc_atomic_##tn##_##name(NULL, G, &x, b, &r, flag))
/* A read's, a write's or a swap's row: CALL moves b into x or x into r. */
#define ROW_MOVE(tn, T, op, ...)                                               \
    static void row_##tn##_##op(void)                                          \
    {                                                                          \
        for (int p = 0; p < 3; p++) {                                          \
            T x = VAL(T, pairs[p][0], pairs[p][1]);                            \
            T b = VAL(T, pairs[p][2], pairs[p][3]);                            \
            T r = 0;                                                           \
            __VA_ARGS__;                                                       \
            printf("%s_%s %d", #tn, #op, p);                                   \
            PUT(x);                                                            \
            PUT(r);                                                            \
            printf("\n");                                                      \
        }                                                                      \
    }
#define BP_ATOMIC_RD(tn, T)                                                    \
    T __kmpc_atomic_##tn##_rd(void *id, int gtid, T *loc);                     \
    ROW_MOVE(tn, T, rd, r = __kmpc_atomic_##tn##_rd(NULL, G, &x); (void)b)
#define BP_ATOMIC_WR(tn, T)                                                    \
    void __kmpc_atomic_##tn##_wr(void *id, int gtid, T *lhs, T b);            \
    ROW_MOVE(tn, T, wr, __kmpc_atomic_##tn##_wr(NULL, G, &x, b))
#define BP_ATOMIC_SWP(tn, T)                                                   \
    T __kmpc_atomic_##tn##_swp(void *id, int gtid, T *lhs, T b);              \
    ROW_MOVE(tn, T, swp, r = __kmpc_atomic_##tn##_swp(NULL, G, &x, b))
#define BP_ATOMIC_SWP_OUT(tn, T)                                               \
    void __kmpc_atomic_##tn##_swp(void *id, int gtid, T *lhs, T b, T *out);   \
    ROW_MOVE(tn, T, swp, __kmpc_atomic_##tn##_swp(NULL, G, &x, b, &r))
/* x is 7; e is 7 (the swap is made) or 5 (it is not); d is 3. */
#define BP_ATOMIC_CAS(n, T)                                                    \
    bool __kmpc_atomic_bool_##n##_cas(void *id, int gtid, T *x, T e, T d);     \
    T __kmpc_atomic_val_##n##_cas(void *id, int gtid, T *x, T e, T d);         \
    bool __kmpc_atomic_bool_##n##_cas_cpt(void *id, int gtid, T *x, T e, T d, T *pv); \
    T __kmpc_atomic_val_##n##_cas_cpt(void *id, int gtid, T *x, T e, T d, T *pv); \
    static void row_cas_##n(void)                                              \
    {                                                                          \
        for (T e = 5; e <= 7; e += 2) {                                        \
            T x = 7, v = 0;                                                    \
            bool r = __kmpc_atomic_bool_##n##_cas(NULL, G, &x, e, 3);          \
            printf("bool_%d_cas %d", n, (int)e);                               \
            PUT(x);                                                            \
            PUT(r);                                                            \
            x = 7;                                                             \
            T old = __kmpc_atomic_val_##n##_cas(NULL, G, &x, e, 3);            \
            printf(" | val");                                                  \
            PUT(x);                                                            \
            PUT(old);                                                          \
            x = 7;                                                             \
            r = __kmpc_atomic_bool_##n##_cas_cpt(NULL, G, &x, e, 3, &v);       \
            printf(" | bool_cpt");                                             \
            PUT(x);                                                            \
            PUT(r);                                                            \
            PUT(v);                                                            \
            x = 7;                                                             \
            v = 0;                                                             \
            old = __kmpc_atomic_val_##n##_cas_cpt(NULL, G, &x, e, 3, &v);      \
            printf(" | val_cpt");                                              \
            PUT(x);                                                            \
            PUT(old);                                                          \
            PUT(v);                                                            \
            printf("\n");                                                      \
        }                                                                      \
    }
/* Bytewise sums: out[i] = a[i] + b[i]. */
#define BP_ATOMIC_GENERIC(n)                                                   \
    void __kmpc_atomic_##n(void *id, int gtid, void *lhs, void *rhs,           \
                           void (*f)(void *, void *, void *));                 \
    static void add_##n(void *out, void *a, void *b)                           \
    {                                                                          \
        for (int i = 0; i < n; i++)                                            \
            ((unsigned char *)out)[i] =                                        \
                (unsigned char)(((unsigned char *)a)[i] + ((unsigned char *)b)[i]); \
    }                                                                          \
    static void row_generic_##n(void)                                          \
    {                                                                          \
        _Alignas(16) unsigned char x[n], b[n];                                 \
        for (int i = 0; i < n; i++) {                                          \
            x[i] = (unsigned char)(i * 37 + 200);                              \
            b[i] = (unsigned char)(i + 90);                                    \
        }                                                                      \
        __kmpc_atomic_##n(NULL, G, x, b, add_##n);                             \
        printf("generic_%d", n);                                               \
        for (int i = 0; i < n; i++)                                            \
            printf(" %d", x[i]);                                               \
        printf("\n");                                                          \
        for (int i = 0; i < n; i++)                                            \
            CHECK(x[i] == (unsigned char)(i * 37 + 200 + i + 90),              \
                  "__kmpc_atomic_%d byte %d: %d", n, i, x[i]);                 \
    }
#include "../../src/abi/atomic_list.h"

/* Every row, in the list's order. */
#define BP_ATOMIC_UPD(tn, T, RT, name, EXPR, SKIP) row_##tn##_##name,
#define BP_ATOMIC_CPT(tn, T, name, EXPR, SKIP) row_##tn##_##name,
#define BP_ATOMIC_CPT_OUT(tn, T, name, EXPR) row_##tn##_##name,
#define BP_ATOMIC_RD(tn, T) row_##tn##_rd,
#define BP_ATOMIC_WR(tn, T) row_##tn##_wr,
#define BP_ATOMIC_SWP(tn, T) row_##tn##_swp,
#define BP_ATOMIC_SWP_OUT(tn, T) row_##tn##_swp,
#define BP_ATOMIC_CAS(n, T) row_cas_##n,
#define BP_ATOMIC_GENERIC(n) row_generic_##n,
static void (*const rows[])(void) = {
#include "../../src/abi/atomic_list.h"
};

void __kmpc_atomic_start(void);
void __kmpc_atomic_end(void);

/* ---- answers worked out by hand ------------------------------------------ */
static void by_hand(void)
{
    int32_t i = -12;
    __kmpc_atomic_fixed4_add(NULL, G, &i, 3);
    CHECK(i == -9, "fixed4_add: %d", (int)i);
    int8_t c = 100;
    __kmpc_atomic_fixed1_shl(NULL, G, &c, 2); /* 400 wraps to -112 */
    CHECK(c == -112, "fixed1_shl: %d", c);
    c = -12;
    __kmpc_atomic_fixed1_shr(NULL, G, &c, 2); /* arithmetic */
    CHECK(c == -3, "fixed1_shr: %d", c);
    uint8_t u = 244;
    __kmpc_atomic_fixed1u_shr(NULL, G, &u, 2);
    CHECK(u == 61, "fixed1u_shr: %d", u);
    int16_t s = 7;
    __kmpc_atomic_fixed2_div_rev(NULL, G, &s, 50);
    CHECK(s == 7, "fixed2_div_rev: %d", s);
    int64_t l = 10;
    CHECK(__kmpc_atomic_fixed8_sub_cpt_rev(NULL, G, &l, 3, 0) == 10 && l == -7,
          "fixed8_sub_cpt_rev: %lld", (long long)l);
    i = 5;
    __kmpc_atomic_fixed4_eqv(NULL, G, &i, 3);
    CHECK(i == ~(5 ^ 3), "fixed4_eqv: %d", (int)i);
    i = 9;
    __kmpc_atomic_fixed4_mul_float8(NULL, G, &i, 2.5);
    CHECK(i == 22, "fixed4_mul_float8: %d", (int)i);
    float f = 1.5f;
    __kmpc_atomic_float4_add_float8(NULL, G, &f, 0.25);
    CHECK(f == 1.75f, "float4_add_float8: %a", f);
    double d = 2;
    CHECK(__kmpc_atomic_float8_max_cpt(NULL, G, &d, 5, 1) == 5 && d == 5, "float8_max_cpt");
    CHECK(__kmpc_atomic_float8_min_cpt(NULL, G, &d, 9, 0) == 5 && d == 5, "float8_min_cpt");
    long double ld = 1.0L / 3;
    __kmpc_atomic_float10_max(NULL, G, &ld, 0.25L);
    CHECK(ld == 1.0L / 3, "float10_max kept the larger");
    __kmpc_atomic_float10_min(NULL, G, &ld, 0.25L);
    CHECK(ld == 0.25L, "float10_min: %La", ld);
    double _Complex z = 1 + 2 * I;
    __kmpc_atomic_cmplx8_mul(NULL, G, &z, 3 - I); /* (1+2i)(3-i) = 5+5i */
    CHECK(z == 5 + 5 * I, "cmplx8_mul: %a %a", creal(z), cimag(z));
    float _Complex w = 4 + 2 * I, out = 0;
    __kmpc_atomic_cmplx4_div_cpt(NULL, G, &w, 2, &out, 1);
    CHECK(w == 2 + 1 * I && out == w, "cmplx4_div_cpt");
    int32_t x = 7, v = 0;
    CHECK(!__kmpc_atomic_bool_4_cas_cpt(NULL, G, &x, 5, 3, &v) && x == 7 && v == 7,
          "bool_4_cas_cpt, no swap");
    v = 0;
    CHECK(__kmpc_atomic_bool_4_cas_cpt(NULL, G, &x, 7, 3, &v) && x == 3 && v == 0,
          "bool_4_cas_cpt, swap");
    CHECK(__kmpc_atomic_val_4_cas_cpt(NULL, G, &x, 3, 8, &v) == 3 && x == 8 && v == 8,
          "val_4_cas_cpt");
}

/* ---- the team on shared objects ------------------------------------------ */
struct __attribute__((packed)) skewed {
    char pad;
    int32_t n; /* misaligned: updated under the lock */
};

static void add_i64(void *out, void *a, void *b) { *(int64_t *)out = *(int64_t *)a + *(int64_t *)b; }

static void add_pair(void *out, void *a, void *b)
{
    int64_t *o = out, *x = a, *y = b;
    o[0] = x[0] + y[0];
    o[1] = x[1] + y[1];
}

static void together(void)
{
    enum { ROUNDS = 20000 };
    int32_t i32 = 0, maxed = -1, cas = 0;
    int64_t tickets = 0, ticket_sum = 0, gen8 = 0, plain = 0;
    _Alignas(16) int64_t gen16[2] = {0, 0};
    double d = 0;
    long double ld = 0;
    double _Complex z = 0;
    float _Complex w = 0;
    struct skewed sk = {0, 0};
    struct {
        int8_t up, down;
        int16_t half;
    } word = {0, 0, 0}; /* three objects in one 4-byte word */
    int nth = 1;
#pragma omp parallel
    {
#pragma omp single
        nth = omp_get_num_threads();
        int me = omp_get_thread_num();
        int64_t mine = 0;
        for (int r = 0; r < ROUNDS; r++) {
            __kmpc_atomic_fixed4_add(NULL, G, &i32, 1);
            mine += __kmpc_atomic_fixed8_add_cpt(NULL, G, &tickets, 1, 0);
            __kmpc_atomic_float8_add(NULL, G, &d, 1.0);
            __kmpc_atomic_float10_add(NULL, G, &ld, 1.0L);
            __kmpc_atomic_cmplx8_add(NULL, G, &z, 1 + 2 * I);
            __kmpc_atomic_cmplx4_add(NULL, G, &w, 1 - I);
            __kmpc_atomic_fixed4_add(NULL, G, (int32_t *)((char *)&sk + 1), 1);
            __kmpc_atomic_fixed1_add(NULL, G, &word.up, 1);
            __kmpc_atomic_fixed1_sub(NULL, G, &word.down, 1);
            __kmpc_atomic_fixed2_add(NULL, G, &word.half, 3);
            int64_t one = 1, two[2] = {1, 3};
            __kmpc_atomic_8(NULL, G, &gen8, &one, add_i64);
            __kmpc_atomic_16(NULL, G, gen16, two, add_pair);
            __kmpc_atomic_fixed4_max(NULL, G, &maxed, me * ROUNDS + r);
            for (;;) {
                int32_t seen = __kmpc_atomic_fixed4_rd(NULL, G, &cas);
                if (__kmpc_atomic_bool_4_cas(NULL, G, &cas, seen, seen + 1))
                    break;
            }
            __kmpc_atomic_start();
            plain++;
            __kmpc_atomic_end();
        }
        __kmpc_atomic_fixed8_add(NULL, G, &ticket_sum, mine);
    }
    int64_t n = (int64_t)nth * ROUNDS;
    CHECK(i32 == n, "fixed4_add total %d of %lld", (int)i32, (long long)n);
    CHECK(tickets == n, "fixed8_add_cpt total %lld", (long long)tickets);
    CHECK(ticket_sum == n * (n - 1) / 2, "each ticket taken once: sum %lld", (long long)ticket_sum);
    CHECK(d == (double)n, "float8_add total %a", d);
    CHECK(ld == (long double)n, "float10_add total %La", ld);
    CHECK(z == (double)n * (1 + 2 * I), "cmplx8_add total");
    CHECK(w == (float)n * (1 - I), "cmplx4_add total");
    int32_t skn = sk.n;
    CHECK(skn == n, "misaligned fixed4_add total %d", (int)skn);
    CHECK(word.up == (int8_t)(uint8_t)n && word.down == (int8_t)(uint8_t)-n &&
              word.half == (int16_t)(uint16_t)(3 * n),
          "neighbours in a word: %d %d %d", word.up, word.down, word.half);
    CHECK(gen8 == n, "__kmpc_atomic_8 total %lld", (long long)gen8);
    CHECK(gen16[0] == n && gen16[1] == 3 * n, "__kmpc_atomic_16 totals");
    CHECK(maxed == (nth - 1) * ROUNDS + ROUNDS - 1, "fixed4_max %d", (int)maxed);
    CHECK(cas == n, "bool_4_cas counter %d", (int)cas);
    CHECK(plain == n, "__kmpc_atomic_start/end total %lld", (long long)plain);
    printf("together %d threads\n", nth);
}

int main(void)
{
    omp_set_dynamic(0); /* libomp's locked atomics need the runtime started */
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int r = 0; r < n; r++)
        rows[r]();
    printf("rows %d\n", n);
    by_hand();
    together();
    if (failures != 0) {
        printf("%d failures\n", failures);
        return 1;
    }
    return 0;
}
