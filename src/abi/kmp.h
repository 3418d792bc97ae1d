/* kmp.h: the types of libomp's ABI (the `__kmpc_*` entry points' arguments,
 * which abi.h declares), and what buddypool's libomp layers share
 * (kmp_abi.c, kmp_loop.c, kmp_task.c, threadprivate.c, teams.c). */
#ifndef BP_KMP_H
#define BP_KMP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "../hooks.h"

/* A source location: psource is ";file;function;line;col;;". */
typedef struct ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} ident_t;

/* The barrier a __kmpc_barrier call is, from its location's flags: clang
 * marks a construct's implicit barrier (KMP_IDENT_BARRIER_IMPL, 0x40, with
 * the construct in the bits above); the others are explicit. Only the
 * listeners read it (hooks.h): nothing listening, the flags are not. */
static inline int kmp_barrier_kind(const ident_t *loc)
{
    return bp_listening && loc != NULL && (loc->flags & 0x40) ? BP_SYNC_BARRIER_IMPLICIT
                                                               : BP_SYNC_BARRIER;
}

/* One loop of a collapsed nest, as libomp's collapse entry points take
 * it (kmp_collapse.c): the bounds' and the variable's types (libomp's
 * loop_type_t, 0 uint8 to 7 int64), the comparison (comparison_t: <=, >=,
 * !=, <, >), which outer loop's variable lb1 and ub1 multiply, the bounds
 * lb0 + lb1 * outer and ub0 + ub1 * outer and the step (each stored at
 * the start of its field in the bounds' type), and the trip count. */
typedef struct bounds_info {
    int32_t loop_type, loop_iv_type, comparison, outer_iv;
    uint64_t lb0_u64, lb1_u64, ub0_u64, ub1_u64;
    int64_t step_64;
    uint64_t trip_count;
} bounds_info_t;

/* An outlined region (or teams) function: the thread numbers, then the
 * region's arguments. */
typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);

/* A critical section's name: zeroed storage the compiled code gives for
 * each name (a bp_lock word lives in it), and a reduction's combiner. */
typedef int32_t kmp_critical_name[8];
typedef void (*kmpc_reduce_fn)(void *lhs, void *rhs);

/* A task as clang lays it out (kmp_task.c puts buddypool's header before
 * it): its shareds, its routine, and the compiler's data. */
typedef int32_t (*kmp_routine_entry_t)(int32_t gtid, void *task);
typedef union {
    int32_t priority;
    kmp_routine_entry_t destructors;
} kmp_cmplrdata_t;
typedef struct kmp_task {
    void *shareds;
    kmp_routine_entry_t routine;
    int32_t part_id;
    kmp_cmplrdata_t data1; /* destructors */
    kmp_cmplrdata_t data2; /* priority */
} kmp_task_t;

/* clang's task flags (kmp_tasking_flags_t's compiler half): kmp_task.c's,
 * and target.c's for a target task. */
enum {
    KMP_TASK_TIED = 1 << 0,
    KMP_TASK_FINAL = 1 << 1,
    KMP_TASK_DESTRUCTORS = 1 << 3,
    KMP_TASK_PROXY = 1 << 4,
    KMP_TASK_DETACHABLE = 1 << 6,
    KMP_TASK_HIDDEN_HELPER = 1 << 7,
};

/* A dependence as clang passes it. */
typedef struct kmp_depend_info {
    intptr_t base_addr;
    size_t len;
    uint8_t flags; /* in 1, out 2, mutexinoutset 4, inoutset 8, omp_all_memory 0x80 */
} kmp_depend_info_t;

/* threadprivate's constructors, copy constructors and destructors
 * (threadprivate.c). */
typedef void *(*kmpc_ctor)(void *);
typedef void (*kmpc_dtor)(void *);
typedef void *(*kmpc_cctor)(void *, void *);
typedef void *(*kmpc_ctor_vec)(void *, size_t);
typedef void (*kmpc_dtor_vec)(void *, size_t);
typedef void *(*kmpc_cctor_vec)(void *, void *, size_t);

/* The most arguments a region function may have (kmp_invoke.inc). */
#define BP_MAX_REGION_ARGS 64

/* Read a microtask's argc arguments (at most BP_MAX_REGION_ARGS, else a
 * fatal message naming who) from ap into a. */
void bp_kmpc_read_args(const char *who, int32_t argc, void **a, va_list ap);
/* Call fn(gtid, btid, a[0], ..., a[argc - 1]). */
void bp_kmpc_invoke(kmpc_micro fn, int32_t *gtid, int32_t *btid, int argc, void **a);

#endif
