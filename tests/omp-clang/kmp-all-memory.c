/* kmp-all-memory.c: omp_all_memory in both of clang's encodings. A
 * dependence on all memory is a kmp_depend_info with the `all` flag (0x80,
 * address 0, as clang emits it today) or, as older clang emitted it and
 * libomp still reads it, an `out` dependence on the address (intptr_t)-1.
 * Either way the task waits for every earlier sibling with dependences,
 * and every later one waits for it, whatever their addresses. The tasks
 * are made by hand (__kmpc_omp_task_alloc, __kmpc_omp_task_with_deps) in
 * one single region: a group of slow tasks on addresses of their own, then
 * the all-memory task, then a group on other addresses, twice (once per
 * encoding). Every task records its start and end on one counter; the
 * checks read the record. Run at 1, 2 and 4 threads, on buddypool and on
 * libomp. */
#include <omp.h>
#include <stddef.h>
#include <stdint.h>

#include "gomp-check.h"
#include "kmp-task-abi.h"

enum { GROUP = 8, TASKS = 2 * (2 * GROUP + 1), DEP_IN = 1, DEP_OUT = 2, DEP_ALL = 0x80 };

/* the task's number in the word after its kmp_task_t */
struct my_task {
    kmp_task_t t;
    int id;
};

static ident_t loc = {0, 2, 0, 0, ";kmp-all-memory.c;main;1;1;;"};
static long clock_now, started[TASKS], ended[TASKS];
static int vars[TASKS];
static volatile unsigned long sink;

static int32_t routine(int32_t gtid, void *task)
{
    (void)gtid;
    int id = ((struct my_task *)task)->id;
    started[id] = __atomic_add_fetch(&clock_now, 1, __ATOMIC_SEQ_CST);
    unsigned long x = (unsigned long)id;
    for (int k = 0; k < 20000; k++) /* long enough that an unordered pair overlaps */
        x = x * 6364136223846793005ul + 1;
    sink = x;
    ended[id] = __atomic_add_fetch(&clock_now, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static void make(int32_t gtid, int id, kmp_depend_info_t dep)
{
    kmp_task_t *t = __kmpc_omp_task_alloc(&loc, gtid, 1, sizeof(struct my_task), 0, routine);
    ((struct my_task *)t)->id = id;
    __kmpc_omp_task_with_deps(&loc, gtid, t, 1, &dep, 0, NULL);
}

int main(void)
{
    check_team_size("kmp-all-memory");
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        int32_t gtid = __kmpc_global_thread_num(&loc);
        int id = 0;
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < GROUP; i++, id++) /* before: each its own address */
                make(gtid, id, (kmp_depend_info_t){(intptr_t)&vars[id], sizeof(int),
                                                   i % 2 ? DEP_OUT : DEP_IN});
            kmp_depend_info_t all = round == 0
                                        ? (kmp_depend_info_t){0, 0, DEP_ALL}
                                        : (kmp_depend_info_t){(intptr_t)-1, 0, DEP_OUT};
            make(gtid, id++, all);
            for (int i = 0; i < GROUP; i++, id++) /* after: other addresses */
                make(gtid, id, (kmp_depend_info_t){(intptr_t)&vars[id], sizeof(int),
                                                   i % 2 ? DEP_OUT : DEP_IN});
        }
    }
    for (int round = 0; round < 2; round++) {
        int base = round * (2 * GROUP + 1), m = base + GROUP, before = 0, after = 0;
        for (int i = base; i < m; i++)
            before += ended[i] != 0 && ended[i] < started[m];
        for (int i = m + 1; i <= m + GROUP; i++)
            after += started[i] > ended[m] && ended[m] != 0;
        EXPECT_EQ(before, GROUP, round == 0 ? "flag 0x80: every earlier task ended before it"
                                            : "address -1: every earlier task ended before it");
        EXPECT_EQ(after, GROUP, round == 0 ? "flag 0x80: every later task started after it"
                                           : "address -1: every later task started after it");
    }
    return check_summary("kmp-all-memory");
}
