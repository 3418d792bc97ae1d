/* atomic_list.h: libomp's typed atomic entry points (`__kmpc_atomic_<type>_
 * <operation>`), listed once. The file is included twice: by abi.h, which
 * expands each row to a declaration, and by atomic.c, which expands it to
 * the definition; so the two cannot drift apart, and a row missing from
 * either is impossible. The set is what libomp 22 exports on x86-64 (338
 * names, and __kmpc_atomic_start/end); the _Quad (float16, cmplx16) forms
 * libomp builds only with the Intel compiler are not among them.
 *
 * The includer defines, for a row of type name tn and C type T:
 *   BP_ATOMIC_UPD(tn, T, RT, name, EXPR, SKIP)
 *       void __kmpc_atomic_<tn>_<name>(ident_t *, int gtid, T *lhs, RT b):
 *       *lhs = EXPR, computed from a, the old value, and b, unless SKIP
 *       (read after EXPR) says the old value stays (max, min);
 *   BP_ATOMIC_CPT(tn, T, name, EXPR, SKIP)
 *       T __kmpc_atomic_<tn>_<name>(ident_t *, int, T *lhs, T b, int flag):
 *       the same update, returning the new value when flag is not 0 and
 *       the old one when it is;
 *   BP_ATOMIC_CPT_OUT(tn, T, name, EXPR)
 *       the same, its answer stored in an out argument before flag
 *       (libomp's form for cmplx4's captures);
 *   BP_ATOMIC_RD(tn, T), BP_ATOMIC_WR(tn, T), BP_ATOMIC_SWP(tn, T),
 *   BP_ATOMIC_SWP_OUT(tn, T)
 *       read, write, and swap (the old value returned, or stored in an
 *       out argument: cmplx4 again);
 *   BP_ATOMIC_CAS(n, T)
 *       `atomic compare` on n bytes: bool_<n>_cas (whether x was e, and x
 *       became d), val_<n>_cas (x's old value), bool_<n>_cas_cpt (also
 *       x's value into *pv when it was not e), val_<n>_cas_cpt (also x's
 *       new value into *pv);
 *   BP_ATOMIC_GENERIC(n)
 *       __kmpc_atomic_<n>(ident_t *, int, void *lhs, void *rhs,
 *       void (*f)(void *out, void *a, void *b)): *lhs = f's sum of the old
 *       value and *rhs, for any type of n bytes.
 * The list undefines them all at its end.
 *
 * Integer sums, differences, products and left shifts are made in
 * uint64_t and brought back to T, so that they wrap as the hardware does
 * and no signed overflow is undefined; the rest is C's arithmetic on the
 * promoted operands, as libomp's own. `_rev` forms compute b op a. */

/* The update rows of one operation: x = a op b and its capture. */
#define BP_ATOMIC_BOTH(tn, T, name, EXPR)                                      \
    BP_ATOMIC_UPD(tn, T, T, name, EXPR, 0)                                     \
    BP_ATOMIC_CPT(tn, T, name##_cpt, EXPR, 0)
#define BP_ATOMIC_REV(tn, T, name, EXPR)                                       \
    BP_ATOMIC_UPD(tn, T, T, name##_rev, EXPR, 0)                               \
    BP_ATOMIC_CPT(tn, T, name##_cpt_rev, EXPR, 0)
#define BP_ATOMIC_MINMAX(tn, T)                                                \
    BP_ATOMIC_UPD(tn, T, T, max, b, !(a < b))                                  \
    BP_ATOMIC_CPT(tn, T, max_cpt, b, !(a < b))                                 \
    BP_ATOMIC_UPD(tn, T, T, min, b, !(b < a))                                  \
    BP_ATOMIC_CPT(tn, T, min_cpt, b, !(b < a))
#define BP_ATOMIC_MOVES(tn, T) BP_ATOMIC_RD(tn, T) BP_ATOMIC_WR(tn, T) BP_ATOMIC_SWP(tn, T)
#define BP_WRAP(x) ((uint64_t)(x))

/* Signed integers: fixed1, fixed2, fixed4, fixed8. */
#define BP_ATOMIC_FIXED(tn, T)                                                 \
    BP_ATOMIC_BOTH(tn, T, add, BP_WRAP(a) + BP_WRAP(b))                        \
    BP_ATOMIC_BOTH(tn, T, sub, BP_WRAP(a) - BP_WRAP(b))                        \
    BP_ATOMIC_BOTH(tn, T, mul, BP_WRAP(a) * BP_WRAP(b))                        \
    BP_ATOMIC_BOTH(tn, T, div, a / b)                                          \
    BP_ATOMIC_BOTH(tn, T, andb, a & b)                                         \
    BP_ATOMIC_BOTH(tn, T, orb, a | b)                                          \
    BP_ATOMIC_BOTH(tn, T, xor, a ^ b)                                          \
    BP_ATOMIC_BOTH(tn, T, shl, BP_WRAP(a) << b)                                \
    BP_ATOMIC_BOTH(tn, T, shr, a >> b)                                         \
    BP_ATOMIC_BOTH(tn, T, andl, a && b)                                        \
    BP_ATOMIC_BOTH(tn, T, orl, a || b)                                         \
    BP_ATOMIC_BOTH(tn, T, eqv, ~(a ^ b))                                       \
    BP_ATOMIC_BOTH(tn, T, neqv, a ^ b)                                         \
    BP_ATOMIC_MINMAX(tn, T)                                                    \
    BP_ATOMIC_REV(tn, T, sub, BP_WRAP(b) - BP_WRAP(a))                         \
    BP_ATOMIC_REV(tn, T, div, b / a)                                           \
    BP_ATOMIC_REV(tn, T, shl, BP_WRAP(b) << a)                                 \
    BP_ATOMIC_REV(tn, T, shr, b >> a)                                          \
    BP_ATOMIC_UPD(tn, T, double, mul_float8, a * b, 0)                         \
    BP_ATOMIC_UPD(tn, T, double, div_float8, a / b, 0)                         \
    BP_ATOMIC_MOVES(tn, T)

/* Unsigned integers: only division and right shift differ from signed. */
#define BP_ATOMIC_FIXEDU(tn, T)                                                \
    BP_ATOMIC_BOTH(tn, T, div, a / b)                                          \
    BP_ATOMIC_BOTH(tn, T, shr, a >> b)                                         \
    BP_ATOMIC_REV(tn, T, div, b / a)                                           \
    BP_ATOMIC_REV(tn, T, shr, b >> a)

/* Reals: float4, float8, float10. */
#define BP_ATOMIC_FLOAT(tn, T)                                                 \
    BP_ATOMIC_BOTH(tn, T, add, a + b)                                          \
    BP_ATOMIC_BOTH(tn, T, sub, a - b)                                          \
    BP_ATOMIC_BOTH(tn, T, mul, a * b)                                          \
    BP_ATOMIC_BOTH(tn, T, div, a / b)                                          \
    BP_ATOMIC_MINMAX(tn, T)                                                    \
    BP_ATOMIC_REV(tn, T, sub, b - a)                                           \
    BP_ATOMIC_REV(tn, T, div, b / a)                                           \
    BP_ATOMIC_MOVES(tn, T)

/* Complex numbers: cmplx8, cmplx10 (cmplx4 below). */
#define BP_ATOMIC_CMPLX(tn, T)                                                 \
    BP_ATOMIC_BOTH(tn, T, add, a + b)                                          \
    BP_ATOMIC_BOTH(tn, T, sub, a - b)                                          \
    BP_ATOMIC_BOTH(tn, T, mul, a * b)                                          \
    BP_ATOMIC_BOTH(tn, T, div, a / b)                                          \
    BP_ATOMIC_REV(tn, T, sub, b - a)                                           \
    BP_ATOMIC_REV(tn, T, div, b / a)                                           \
    BP_ATOMIC_MOVES(tn, T)

#define BP_ATOMIC_CMPLX4(op, EXPR)                                    \
    BP_ATOMIC_UPD(cmplx4, float _Complex, float _Complex, op, EXPR, 0)         \
    BP_ATOMIC_CPT_OUT(cmplx4, float _Complex, op##_cpt, EXPR)                  \
    BP_ATOMIC_UPD(cmplx4, float _Complex, double _Complex, op##_cmplx8, EXPR, 0)

BP_ATOMIC_FIXED(fixed1, int8_t)
BP_ATOMIC_FIXED(fixed2, int16_t)
BP_ATOMIC_FIXED(fixed4, int32_t)
BP_ATOMIC_FIXED(fixed8, int64_t)
BP_ATOMIC_FIXEDU(fixed1u, uint8_t)
BP_ATOMIC_FIXEDU(fixed2u, uint16_t)
BP_ATOMIC_FIXEDU(fixed4u, uint32_t)
BP_ATOMIC_FIXEDU(fixed8u, uint64_t)
BP_ATOMIC_FLOAT(float4, float)
BP_ATOMIC_UPD(float4, float, double, add_float8, a + b, 0)
BP_ATOMIC_UPD(float4, float, double, sub_float8, a - b, 0)
BP_ATOMIC_UPD(float4, float, double, mul_float8, a * b, 0)
BP_ATOMIC_UPD(float4, float, double, div_float8, a / b, 0)
BP_ATOMIC_FLOAT(float8, double)
BP_ATOMIC_FLOAT(float10, long double)
BP_ATOMIC_CMPLX4(add, a + b)
BP_ATOMIC_CMPLX4(sub, a - b)
BP_ATOMIC_CMPLX4(mul, a * b)
BP_ATOMIC_CMPLX4(div, a / b)
BP_ATOMIC_UPD(cmplx4, float _Complex, float _Complex, sub_rev, b - a, 0)
BP_ATOMIC_UPD(cmplx4, float _Complex, float _Complex, div_rev, b / a, 0)
BP_ATOMIC_CPT_OUT(cmplx4, float _Complex, sub_cpt_rev, b - a)
BP_ATOMIC_CPT_OUT(cmplx4, float _Complex, div_cpt_rev, b / a)
BP_ATOMIC_RD(cmplx4, float _Complex)
BP_ATOMIC_WR(cmplx4, float _Complex)
BP_ATOMIC_SWP_OUT(cmplx4, float _Complex)
BP_ATOMIC_CMPLX(cmplx8, double _Complex)
BP_ATOMIC_CMPLX(cmplx10, long double _Complex)
BP_ATOMIC_CAS(1, int8_t)
BP_ATOMIC_CAS(2, int16_t)
BP_ATOMIC_CAS(4, int32_t)
BP_ATOMIC_CAS(8, int64_t)
BP_ATOMIC_GENERIC(1)
BP_ATOMIC_GENERIC(2)
BP_ATOMIC_GENERIC(4)
BP_ATOMIC_GENERIC(8)
BP_ATOMIC_GENERIC(10)
BP_ATOMIC_GENERIC(16)
BP_ATOMIC_GENERIC(20)
BP_ATOMIC_GENERIC(32)

#undef BP_ATOMIC_BOTH
#undef BP_ATOMIC_REV
#undef BP_ATOMIC_MINMAX
#undef BP_ATOMIC_MOVES
#undef BP_WRAP
#undef BP_ATOMIC_FIXED
#undef BP_ATOMIC_FIXEDU
#undef BP_ATOMIC_FLOAT
#undef BP_ATOMIC_CMPLX
#undef BP_ATOMIC_CMPLX4
/* the includer's row macros too, so that it may include the list again */
#undef BP_ATOMIC_UPD
#undef BP_ATOMIC_CPT
#undef BP_ATOMIC_CPT_OUT
#undef BP_ATOMIC_RD
#undef BP_ATOMIC_WR
#undef BP_ATOMIC_SWP
#undef BP_ATOMIC_SWP_OUT
#undef BP_ATOMIC_CAS
#undef BP_ATOMIC_GENERIC
