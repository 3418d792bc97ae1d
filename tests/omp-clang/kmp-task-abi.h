/* kmp-task-abi.h: the part of libomp's task ABI (kmp.h) that the tests
 * making clang tasks by hand call: kmp-cancel-dtor.c, kmp-all-memory.c. */
#ifndef KMP_TASK_ABI_H
#define KMP_TASK_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef struct ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} ident_t;
typedef int32_t (*kmp_routine_entry_t)(int32_t, void *);
typedef union {
    int32_t priority;
    kmp_routine_entry_t destructors;
} kmp_cmplrdata_t;
typedef struct {
    void *shareds;
    kmp_routine_entry_t routine;
    int32_t part_id;
    kmp_cmplrdata_t data1;
    kmp_cmplrdata_t data2;
} kmp_task_t;
typedef struct {
    intptr_t base_addr;
    size_t len;
    uint8_t flags;
} kmp_depend_info_t;

int32_t __kmpc_global_thread_num(ident_t *loc);
kmp_task_t *__kmpc_omp_task_alloc(ident_t *loc, int32_t gtid, int32_t flags,
                                  size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                                  kmp_routine_entry_t task_entry);
int32_t __kmpc_omp_task(ident_t *loc, int32_t gtid, kmp_task_t *task);
int32_t __kmpc_omp_task_with_deps(ident_t *loc, int32_t gtid, kmp_task_t *task, int32_t ndeps,
                                  kmp_depend_info_t *deps, int32_t ndeps_noalias,
                                  kmp_depend_info_t *noalias);

#endif
