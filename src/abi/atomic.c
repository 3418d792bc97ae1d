/* atomic.c: the runtime's part in `#pragma omp atomic`.
 *
 * Compilers make most atomic constructs single instructions. What gcc
 * cannot (a type with no hardware atomic, its combination of several
 * reduction variables) it brackets with GOMP_atomic_start/end: one lock
 * for the whole program, as libgomp's is. libomp's ABI has the same lock
 * (__kmpc_atomic_start/end) and, besides, one entry point per type and
 * operation (`__kmpc_atomic_fixed4_add`, `..._float10_max_cpt`,
 * `..._bool_4_cas`; atomic_list.h lists them) that other compilers call
 * and that programs and tests call by name; they are defined here from
 * that list.
 *
 * How an update is made. An object of 1, 2, 4 or 8 bytes at its natural
 * alignment is updated by a loop of compare-and-swap on its bits: read the
 * old value, compute the new one, store it if the object still holds the
 * old bits, else retry with what it holds. Comparing bits, not values,
 * keeps a NaN or a negative zero from looping forever. Any other object
 * (long double, double and long double complex numbers, a misaligned
 * object: libomp does the same for these) is updated under the one atomic
 * lock, which GOMP_atomic_start takes too, so all the program's locked
 * atomics exclude each other. The lock word is on a line of its own, apart
 * from the unnamed critical section's (libgomp keeps the two apart too),
 * and is taken through bp_abi_lock, so that the listeners hear the wait as
 * an atomic's (ompt_mutex_atomic).
 *
 * Memory order: a compare-and-swap that succeeds, a read, a write and a
 * swap are sequentially consistent, as libomp's locked instructions are;
 * an OpenMP atomic without a memory-order clause needs only relaxed, but a
 * program that ran on libomp may have leant on the fence. The first read
 * of an update loop is relaxed: the compare-and-swap checks it. */
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "abi.h"
#include "../internal.h"

static alignas(BP_LINE) _Atomic uint32_t atomic_word;

static void atomic_lock(void) { bp_abi_lock(&atomic_word, BP_MUTEX_ATOMIC, &atomic_word); }

static void atomic_unlock(void) { bp_abi_unlock(&atomic_word, BP_MUTEX_ATOMIC, &atomic_word); }

BP_API void GOMP_atomic_start(void) { atomic_lock(); }

BP_API void GOMP_atomic_end(void) { atomic_unlock(); }

BP_API void __kmpc_atomic_start(void) { atomic_lock(); }

BP_API void __kmpc_atomic_end(void) { atomic_unlock(); }

/* ---- an object's bits ------------------------------------------------------
 * The object is read and swapped as an unsigned integer of its size; the
 * types may alias any object (a float, a float complex). Where the
 * processor has no 1- or 2-byte atomics (RISC-V without Zabha: gcc would
 * call libatomic), such an object is changed by a compare-and-swap of the
 * aligned 4-byte word that holds it, its neighbours' bytes kept. */
typedef uint8_t bits1 __attribute__((may_alias));
typedef uint16_t bits2 __attribute__((may_alias));
typedef uint32_t bits4 __attribute__((may_alias));
typedef uint64_t bits8 __attribute__((may_alias));

#define NATIVE_1 (__GCC_ATOMIC_CHAR_LOCK_FREE == 2)
#define NATIVE_2 (__GCC_ATOMIC_SHORT_LOCK_FREE == 2)

/* Whether n bytes at p are updated by compare-and-swap. */
static inline bool lock_free(const void *p, size_t n)
{
    return (n == 1 || n == 2 || n == 4 || n == 8) && ((uintptr_t)p & (n - 1)) == 0;
}

/* The n-byte object at p (n 1 or 2, aligned): *expected's bits become
 * desired's if it holds them; if not, *expected gets what it holds. */
static bool cas_in_word(void *p, uint32_t *expected, uint32_t desired, size_t n)
{
    uintptr_t at = (uintptr_t)p;
    bits4 *word = (bits4 *)(at & ~(uintptr_t)3);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    unsigned shift = (unsigned)(4 - n - (at & 3)) * 8;
#else
    unsigned shift = (unsigned)(at & 3) * 8;
#endif
    uint32_t mask = (n == 1 ? 0xffu : 0xffffu) << shift;
    uint32_t old = __atomic_load_n(word, __ATOMIC_SEQ_CST);
    for (;;) {
        uint32_t mine = (old & mask) >> shift;
        if (mine != *expected) {
            *expected = mine;
            return false;
        }
        uint32_t next = (old & ~mask) | ((desired << shift) & mask);
        /* a failure that changed only the neighbours' bytes tries again */
        if (__atomic_compare_exchange_n(word, &old, next, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            return true;
    }
}

#define BITS_CASES(DO) DO(1, bits1) DO(2, bits2) DO(4, bits4) DO(8, bits8)

/* Each below is called for a lock_free object only: n is 1, 2, 4 or 8. */
static inline void load_bits(void *p, void *out, size_t n, int order)
{
    switch (n) {
#define LOAD_CASE(N, U)                                                        \
    case N: {                                                                  \
        U v = __atomic_load_n((U *)p, order);                                  \
        memcpy(out, &v, N);                                                    \
        return;                                                                \
    }
        BITS_CASES(LOAD_CASE)
#undef LOAD_CASE
    }
    __builtin_unreachable();
}

/* *p becomes *desired if it holds *expected's bits; if not, *expected gets
 * what it holds. */
static inline bool cas_bits(void *p, void *expected, const void *desired, size_t n)
{
    switch (n) {
#define CAS_CASE(N, U)                                                         \
    case N: {                                                                  \
        U e, d;                                                                \
        memcpy(&e, expected, N);                                               \
        memcpy(&d, desired, N);                                                \
        bool done;                                                             \
        if (N > 2 || (N == 1 ? NATIVE_1 : NATIVE_2)) {                         \
            done = __atomic_compare_exchange_n((U *)p, &e, d, false, __ATOMIC_SEQ_CST, \
                                               __ATOMIC_SEQ_CST);              \
        } else {                                                               \
            uint32_t e4 = (uint32_t)e;                                         \
            done = cas_in_word(p, &e4, (uint32_t)d, N);                        \
            e = (U)e4;                                                         \
        }                                                                      \
        memcpy(expected, &e, N);                                               \
        return done;                                                           \
    }
        BITS_CASES(CAS_CASE)
#undef CAS_CASE
    }
    __builtin_unreachable();
}

/* *p becomes *desired; *old (if not NULL) gets what it held. */
static inline void swap_bits(void *p, const void *desired, void *old, size_t n)
{
    if (n <= 2 && !(n == 1 ? NATIVE_1 : NATIVE_2)) {
        unsigned char was[2];
        load_bits(p, was, n, __ATOMIC_RELAXED);
        while (!cas_bits(p, was, desired, n))
            ;
        if (old != NULL)
            memcpy(old, was, n);
        return;
    }
    switch (n) {
#define SWAP_CASE(N, U)                                                        \
    case N: {                                                                  \
        U d;                                                                   \
        memcpy(&d, desired, N);                                                \
        U o = __atomic_exchange_n((U *)p, d, __ATOMIC_SEQ_CST);                \
        if (old != NULL)                                                       \
            memcpy(old, &o, N);                                                \
        return;                                                                \
    }
        BITS_CASES(SWAP_CASE)
#undef SWAP_CASE
    }
    __builtin_unreachable();
}

/* ---- the typed entry points ------------------------------------------------
 * UPDATE leaves the old value in a and the new one in n. */
#define UPDATE(T, lhs, EXPR, SKIP)                                             \
    T a, n;                                                                    \
    if (lock_free(lhs, sizeof(T))) {                                           \
        load_bits(lhs, &a, sizeof(T), __ATOMIC_RELAXED);                       \
        for (;;) {                                                             \
            n = (T)(EXPR);                                                     \
            if (SKIP) {                                                        \
                n = a;                                                         \
                break;                                                         \
            }                                                                  \
            if (cas_bits(lhs, &a, &n, sizeof(T)))                              \
                break;                                                         \
        }                                                                      \
    } else { /* memcpy: the object may be misaligned */                      \
        atomic_lock();                                                         \
        memcpy(&a, lhs, sizeof(T));                                            \
        n = (T)(EXPR);                                                         \
        if (SKIP)                                                              \
            n = a;                                                             \
        else                                                                   \
            memcpy(lhs, &n, sizeof(T));                                        \
        atomic_unlock();                                                       \
    }

#define BP_ATOMIC_UPD(tn, T, RT, name, EXPR, SKIP)                             \
    BP_API void __kmpc_atomic_##tn##_##name(ident_t *id, int gtid, T *lhs, RT b) \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        UPDATE(T, lhs, EXPR, SKIP)                                             \
        (void)n;                                                               \
    }

#define BP_ATOMIC_CPT(tn, T, name, EXPR, SKIP)                                 \
    BP_API T __kmpc_atomic_##tn##_##name(ident_t *id, int gtid, T *lhs, T b, int flag) \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        UPDATE(T, lhs, EXPR, SKIP)                                             \
        return flag ? n : a;                                                   \
    }

#define BP_ATOMIC_CPT_OUT(tn, T, name, EXPR)                                   \
    BP_API void __kmpc_atomic_##tn##_##name(ident_t *id, int gtid, T *lhs, T b, T *out, \
                                            int flag)                          \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        UPDATE(T, lhs, EXPR, 0)                                                \
        *out = flag ? n : a;                                                   \
    }

#define BP_ATOMIC_RD(tn, T)                                                    \
    BP_API T __kmpc_atomic_##tn##_rd(ident_t *id, int gtid, T *loc)            \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        T v;                                                                   \
        if (lock_free(loc, sizeof(T))) {                                       \
            load_bits(loc, &v, sizeof(T), __ATOMIC_SEQ_CST);                   \
        } else {                                                               \
            atomic_lock();                                                     \
            memcpy(&v, loc, sizeof(T));                                        \
            atomic_unlock();                                                   \
        }                                                                      \
        return v;                                                              \
    }

/* Write and swap: *lhs becomes b, *old the old value. */
#define EXCHANGE(T, lhs, b, old)                                               \
    if (lock_free(lhs, sizeof(T))) {                                           \
        swap_bits(lhs, &(b), old, sizeof(T));                                  \
    } else {                                                                   \
        atomic_lock();                                                         \
        memcpy((old), lhs, sizeof(T));                                         \
        memcpy(lhs, &(b), sizeof(T));                                          \
        atomic_unlock();                                                       \
    }

#define BP_ATOMIC_WR(tn, T)                                                    \
    BP_API void __kmpc_atomic_##tn##_wr(ident_t *id, int gtid, T *lhs, T b)    \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        T old; /* not wanted: a write is a swap whose old value goes */       \
        EXCHANGE(T, lhs, b, &old)                                              \
    }

#define BP_ATOMIC_SWP(tn, T)                                                   \
    BP_API T __kmpc_atomic_##tn##_swp(ident_t *id, int gtid, T *lhs, T b)      \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        T old;                                                                 \
        EXCHANGE(T, lhs, b, &old)                                              \
        return old;                                                            \
    }

#define BP_ATOMIC_SWP_OUT(tn, T)                                               \
    BP_API void __kmpc_atomic_##tn##_swp(ident_t *id, int gtid, T *lhs, T b, T *out) \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        T old;                                                                 \
        EXCHANGE(T, lhs, b, &old)                                              \
        *out = old;                                                            \
    }

/* `atomic compare`: the integer types are always lock-free (the compiler
 * aligns them). */
#define BP_ATOMIC_CAS(n, T)                                                    \
    BP_API bool __kmpc_atomic_bool_##n##_cas(ident_t *id, int gtid, T *x, T e, T d) \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        return cas_bits(x, &e, &d, n);                                         \
    }                                                                          \
    BP_API T __kmpc_atomic_val_##n##_cas(ident_t *id, int gtid, T *x, T e, T d) \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        cas_bits(x, &e, &d, n);                                                \
        return e; /* the old value, whether or not it was e */                 \
    }                                                                          \
    BP_API bool __kmpc_atomic_bool_##n##_cas_cpt(ident_t *id, int gtid, T *x, T e, T d, \
                                                 T *pv)                        \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        bool done = cas_bits(x, &e, &d, n);                                    \
        if (!done)                                                             \
            *pv = e;                                                           \
        return done;                                                           \
    }                                                                          \
    BP_API T __kmpc_atomic_val_##n##_cas_cpt(ident_t *id, int gtid, T *x, T e, T d, T *pv) \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        T old = e;                                                             \
        *pv = cas_bits(x, &old, &d, n) ? d : old;                              \
        return old;                                                            \
    }

/* Any type: f(out, a, b) makes out = a op b. In the compare-and-swap loop
 * it reads copies; under the lock it updates the object in place, as
 * libomp's does. */
#define BP_ATOMIC_GENERIC(n)                                                   \
    BP_API void __kmpc_atomic_##n(ident_t *id, int gtid, void *lhs, void *rhs,  \
                                  void (*f)(void *, void *, void *))           \
    {                                                                          \
        (void)id;                                                              \
        (void)gtid;                                                            \
        if (lock_free(lhs, n)) {                                               \
            alignas(8) unsigned char old[n], new[n];                           \
            load_bits(lhs, old, n, __ATOMIC_RELAXED);                          \
            do                                                                 \
                f(new, old, rhs);                                              \
            while (!cas_bits(lhs, old, new, n));                               \
        } else {                                                               \
            atomic_lock();                                                     \
            f(lhs, lhs, rhs);                                                  \
            atomic_unlock();                                                   \
        }                                                                      \
    }

#include "atomic_list.h"
