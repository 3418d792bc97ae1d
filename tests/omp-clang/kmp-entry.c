/* kmp-entry.c: libomp entry points that other compilers (the Intel ones,
 * LLVM's OpenMPIRBuilder) and programs call by name, each checked for what
 * it does, on buddypool and on libomp:
 *   __kmpc_barrier_master (+ _end_, _nowait): thread 0 alone gets 1 and
 *     the others wait until it ends the barrier (they see what it wrote);
 *   __kmpc_copyprivate_light: every thread gets the single thread's data;
 *   __kmpc_sections_init / _next_section / _end_sections: each of the
 *     sections runs once over the team;
 *   __kmpc_{init,set,unset,test,destroy}_[nest_]lock[_with_hint]: mutual
 *     exclusion, a nestable lock's count;
 *   __kmpc_omp_task_parts, __kmpc_omp_reg_task_with_affinity: a task runs
 *     once; __kmpc_get_taskid / _parent_taskid: a task's parent is the
 *     task that made it;
 *   __kmpc_pop_num_threads (nothing: a pushed size is used by one region);
 *   __kmpc_scope,
 *     __kmpc_begin/_end, __kmpc_pause_resource;
 *   the kmpc_* and Fortran (kmp_*_, omp_*_) names of the kmp_* and omp_*
 *     routines. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gomp-check.h"
#include "kmp-task-abi.h"

int32_t __kmpc_barrier_master(ident_t *, int32_t);
void __kmpc_end_barrier_master(ident_t *, int32_t);
int32_t __kmpc_barrier_master_nowait(ident_t *, int32_t);
void *__kmpc_copyprivate_light(ident_t *, int32_t, void *);
int32_t __kmpc_sections_init(ident_t *, int32_t);
int32_t __kmpc_next_section(ident_t *, int32_t, int32_t);
void __kmpc_end_sections(ident_t *, int32_t);
void __kmpc_barrier(ident_t *, int32_t);
void __kmpc_init_lock(ident_t *, int32_t, void **);
void __kmpc_init_lock_with_hint(ident_t *, int32_t, void **, uintptr_t);
void __kmpc_destroy_lock(ident_t *, int32_t, void **);
void __kmpc_set_lock(ident_t *, int32_t, void **);
void __kmpc_unset_lock(ident_t *, int32_t, void **);
int __kmpc_test_lock(ident_t *, int32_t, void **);
void __kmpc_init_nest_lock(ident_t *, int32_t, void **);
void __kmpc_destroy_nest_lock(ident_t *, int32_t, void **);
void __kmpc_set_nest_lock(ident_t *, int32_t, void **);
void __kmpc_unset_nest_lock(ident_t *, int32_t, void **);
int __kmpc_test_nest_lock(ident_t *, int32_t, void **);
int32_t __kmpc_omp_task_parts(ident_t *, int32_t, kmp_task_t *);
int32_t __kmpc_omp_reg_task_with_affinity(ident_t *, int32_t, kmp_task_t *, int32_t, void *);
int32_t __kmpc_omp_taskwait(ident_t *, int32_t);
uint64_t __kmpc_get_taskid(void);
uint64_t __kmpc_get_parent_taskid(void);
void __kmpc_push_num_threads(ident_t *, int32_t, int32_t);
void __kmpc_pop_num_threads(ident_t *, int32_t);
void __kmpc_scope(ident_t *, int32_t, void *);
void __kmpc_end_scope(ident_t *, int32_t, void *);
void __kmpc_begin(ident_t *, int32_t);
void __kmpc_end(ident_t *);
int __kmpc_pause_resource(int);
void *kmpc_malloc(size_t);
void kmpc_free(void *);
void kmpc_set_blocktime(int);
void kmp_set_blocktime_(const int32_t *);
int32_t kmp_get_blocktime_(void);
void *kmp_malloc_(const size_t *);
void kmp_free_(void *const *);
int32_t omp_in_explicit_task_(void);
int kmp_get_num_known_threads(void);

static ident_t loc = {0, 2, 0, 0, ";kmp-entry.c;main;0;0;;"};
#define G __kmpc_global_thread_num(&loc)

enum { ROUNDS = 200, SECTIONS = 7 };
static int runs_of_task;
static uint64_t parent_seen;

static int32_t task_body(int32_t gtid, void *task)
{
    (void)gtid;
    (void)task;
    __atomic_fetch_add(&runs_of_task, 1, __ATOMIC_RELAXED);
    uint64_t parent = __kmpc_get_parent_taskid();
    __atomic_store_n(&parent_seen, parent, __ATOMIC_RELAXED);
    return 0;
}

int main(void)
{
    __kmpc_begin(&loc, 0);
    int team = 0, wrong_master = 0, stale = 0, nowait_ones = 0, light_wrong = 0;
    int section_runs[SECTIONS] = {0}, bad_section = 0;
    long in_lock[2] = {0, 0}, overlap = 0, nest_wrong = 0;
    volatile int shared_word = 0;
    void *lock = NULL, *nest = NULL, *hinted = NULL;
    __kmpc_init_lock(&loc, G, &lock);
    __kmpc_init_lock_with_hint(&loc, G, &hinted, omp_sync_hint_contended);
    __kmpc_init_nest_lock(&loc, G, &nest);
    PRAGMA(omp parallel shared(team, shared_word))
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        if (me == 0)
            team = n;
        for (int r = 0; r < ROUNDS; r++) {
            /* thread 0 writes between the barrier and its end */
            if (__kmpc_barrier_master(&loc, G)) {
                if (me != 0)
                    __atomic_fetch_add(&wrong_master, 1, __ATOMIC_RELAXED);
                shared_word = r + 1;
                __kmpc_end_barrier_master(&loc, G);
            } else if (shared_word != r + 1) {
                __atomic_fetch_add(&stale, 1, __ATOMIC_RELAXED);
            }
            __kmpc_barrier(&loc, G);
        }
        if (__kmpc_barrier_master_nowait(&loc, G))
            __atomic_fetch_add(&nowait_ones, 1, __ATOMIC_RELAXED);
        __kmpc_barrier(&loc, G);

        int value = 40 + me;
        int *got = __kmpc_copyprivate_light(&loc, G, me == 0 ? &value : NULL);
        if (got == NULL || *got != 40)
            __atomic_fetch_add(&light_wrong, 1, __ATOMIC_RELAXED);
        __kmpc_barrier(&loc, G); /* the compiled code's, after the copies */

        if (__kmpc_sections_init(&loc, G)) {
            for (int s; (s = __kmpc_next_section(&loc, G, SECTIONS)) < SECTIONS;) {
                if (s < 0)
                    __atomic_fetch_add(&bad_section, 1, __ATOMIC_RELAXED);
                else
                    __atomic_fetch_add(&section_runs[s], 1, __ATOMIC_RELAXED);
            }
        } else { /* a team of one runs them all */
            if (n != 1)
                __atomic_fetch_add(&bad_section, 1, __ATOMIC_RELAXED);
            for (int s = 0; s < SECTIONS; s++)
                section_runs[s]++;
        }
        __kmpc_end_sections(&loc, G);
        __kmpc_barrier(&loc, G);

        for (int r = 0; r < ROUNDS; r++) {
            void **which = r % 2 ? &lock : &hinted;
            if (r % 3 == 0) {
                while (!__kmpc_test_lock(&loc, G, which))
                    ;
            } else {
                __kmpc_set_lock(&loc, G, which);
            }
            long *holders = &in_lock[which == &lock];
            if (__atomic_fetch_add(holders, 1, __ATOMIC_RELAXED) != 0)
                __atomic_fetch_add(&overlap, 1, __ATOMIC_RELAXED);
            __atomic_fetch_sub(holders, 1, __ATOMIC_RELAXED);
            __kmpc_unset_lock(&loc, G, which);

            __kmpc_set_nest_lock(&loc, G, &nest);
            if (__kmpc_test_nest_lock(&loc, G, &nest) != 2)
                __atomic_fetch_add(&nest_wrong, 1, __ATOMIC_RELAXED);
            __kmpc_unset_nest_lock(&loc, G, &nest);
            __kmpc_unset_nest_lock(&loc, G, &nest);
        }
        __kmpc_scope(&loc, G, NULL);
        __kmpc_end_scope(&loc, G, NULL);
    }
    EXPECT_EQ(wrong_master, 0, "__kmpc_barrier_master: 1 for thread 0 only");
    EXPECT_EQ(stale, 0, "the others leave after thread 0 ends the barrier");
    EXPECT_EQ(nowait_ones, 1, "__kmpc_barrier_master_nowait: 1 for thread 0 only");
    EXPECT_EQ(light_wrong, 0, "__kmpc_copyprivate_light: the single thread's data");
    for (int s = 0; s < SECTIONS; s++)
        EXPECT_EQ(section_runs[s], 1, "each section once");
    EXPECT_EQ(bad_section, 0, "section numbers from 0");
    EXPECT_EQ(overlap, 0, "__kmpc_set_lock: one holder at a time");
    EXPECT_EQ(nest_wrong, 0, "__kmpc_test_nest_lock: the owner's count");
    __kmpc_destroy_lock(&loc, G, &lock);
    __kmpc_destroy_lock(&loc, G, &hinted);
    __kmpc_destroy_nest_lock(&loc, G, &nest);

    /* tasks: submitted by the old name, with an affinity hint */
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        uint64_t mine = __kmpc_get_taskid();
        kmp_task_t *t = __kmpc_omp_task_alloc(&loc, G, 1, sizeof(kmp_task_t), 0,
                                              (kmp_routine_entry_t)task_body);
        int x[4];
        struct {
            intptr_t base;
            size_t len;
            int32_t flags;
        } affinity = {(intptr_t)x, sizeof x, 0};
        EXPECT_EQ(__kmpc_omp_reg_task_with_affinity(&loc, G, t, 1, &affinity), 0,
                  "an affinity hint is taken");
        __kmpc_omp_task_parts(&loc, G, t);
        __kmpc_omp_taskwait(&loc, G);
        EXPECT_EQ(runs_of_task, 1, "__kmpc_omp_task_parts: the task ran once");
        EXPECT_EQ(mine != 0, 1, "a task number");
        EXPECT_EQ(parent_seen == mine, 1, "the task's parent is its maker");
    }

    /* a size pushed, then popped: pop changes nothing, the next region
     * uses the size up (libomp's pop does nothing) */
    int dflt = omp_get_max_threads(), got = 0;
    __kmpc_push_num_threads(&loc, G, dflt + 1);
    __kmpc_pop_num_threads(&loc, G);
    PRAGMA(omp parallel shared(got))
    PRAGMA(omp single)
    got = omp_get_num_threads();
    EXPECT_EQ(got, dflt + 1, "the pushed size after __kmpc_pop_num_threads");
    PRAGMA(omp parallel shared(got))
    PRAGMA(omp single)
    got = omp_get_num_threads();
    EXPECT_EQ(got, dflt, "the size used up by one region");
    EXPECT_EQ(__kmpc_pause_resource(omp_pause_soft), 0, "__kmpc_pause_resource");
    PRAGMA(omp parallel)
    (void)0;

    /* other names of the kmp_* and omp_* routines */
    kmpc_set_blocktime(7);
    EXPECT_EQ(kmp_get_blocktime(), 7, "kmpc_set_blocktime");
    int32_t ms = 9;
    kmp_set_blocktime_(&ms);
    EXPECT_EQ(kmp_get_blocktime_(), 9, "kmp_set/get_blocktime_");
    char *p = kmpc_malloc(64);
    EXPECT_EQ(p != NULL, 1, "kmpc_malloc");
    memset(p, 1, 64);
    kmpc_free(p);
    size_t sz = 32;
    void *q = kmp_malloc_(&sz);
    EXPECT_EQ(q != NULL, 1, "kmp_malloc_");
    kmp_free_(&q);
    EXPECT_EQ(omp_in_explicit_task_(), 0, "omp_in_explicit_task_ outside any task");
    EXPECT_EQ(kmp_get_num_known_threads() >= 1, 1, "kmp_get_num_known_threads");
    __kmpc_end(&loc);
    printf("kmp-entry: a team of %d\n", team);
    return check_summary("kmp-entry");
}
