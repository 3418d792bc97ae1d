/* kmp.h: the types of libomp's ABI that more than one of buddypool's
 * `__kmpc_*` layers uses (kmp_abi.c, kmp_loop.c, kmp_task.c,
 * teams.c). */
#ifndef BP_KMP_H
#define BP_KMP_H

#include <stdarg.h>
#include <stdint.h>

/* A source location: psource is ";file;function;line;col;;". */
typedef struct ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} ident_t;

/* An outlined region (or teams) function: the thread numbers, then the
 * region's arguments. */
typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);

/* The most arguments a region function may have (kmp_invoke.inc). */
#define BP_MAX_REGION_ARGS 64

/* Read a microtask's argc arguments (at most BP_MAX_REGION_ARGS, else a
 * fatal message naming who) from ap into a. */
void bp_kmpc_read_args(const char *who, int32_t argc, void **a, va_list ap);
/* Call fn(gtid, btid, a[0], ..., a[argc - 1]). */
void bp_kmpc_invoke(kmpc_micro fn, int32_t *gtid, int32_t *btid, int argc, void **a);

#endif
