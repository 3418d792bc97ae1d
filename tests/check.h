/* check.h: the tests' assertion helper. A failed CHECK prints the expression
 * and both values, then exits non-zero. */
#ifndef BUDDYPOOL_CHECK_H
#define BUDDYPOOL_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_OP(a, op, b)                                                           \
    do {                                                                             \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);              \
        if (!(check_a_ op check_b_)) {                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s %s %s (%lld vs %lld)\n",         \
                    __FILE__, __LINE__, #a, #op, #b, check_a_, check_b_);            \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)
#define CHECK_EQ(a, b) CHECK_OP(a, ==, b)
#define CHECK_NE(a, b) CHECK_OP(a, !=, b)
#define CHECK_LE(a, b) CHECK_OP(a, <=, b)
#define CHECK_GE(a, b) CHECK_OP(a, >=, b)
#define CHECK_LT(a, b) CHECK_OP(a, <, b)
#define CHECK(c) CHECK_OP(!!(c), ==, 1)

/* Doubles that must be exactly equal (sums of small integers). */
#define CHECK_DEQ(a, b)                                                              \
    do {                                                                             \
        double check_a_ = (a), check_b_ = (b);                                       \
        if (check_a_ != check_b_) {                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%.17g vs %.17g)\n",       \
                    __FILE__, __LINE__, #a, #b, check_a_, check_b_);                 \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#endif
