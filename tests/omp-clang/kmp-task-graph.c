/* kmp-task-graph.c: libomp's view of the task dependence graph
 * (__kmpc_task_get_depnode, __kmpc_task_get_successors), which tools and
 * LLVM's own tests read: a task's node starts with the list of its
 * successors, each entry {node, next}.
 *
 * Thread 0 makes two graphs of clang tasks while the other threads stay
 * out of the runtime (so no task starts), reads each task's successors
 * and compares them, as sets, with the edges OpenMP's rules give; then it
 * lets the tasks run and checks that each ran once and after every task
 * it had to wait for. Graph one:
 *     A inoutset(x)   B inoutset(x, y)   C inoutset(y)
 *     D in(x)         E in(x, y)         F in(y)
 *     G out(y)
 * edges A->D, A->E, B->D, B->E, B->F, C->E, C->F, E->G, F->G (B->E once,
 * though E meets B on both x and y). Graph two: H out(x, y), I in(x, y):
 * the one edge H->I. A task with no dependences has no node, and one that
 * nothing waits for no successors. Last, tasks made with no routine run
 * nothing, on libomp as here. */
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "gomp-check.h"
#include "kmp-task-abi.h"

typedef struct kmp_depnode_list {
    void *node;
    struct kmp_depnode_list *next;
} kmp_depnode_list_t;
typedef struct {
    kmp_depnode_list_t *successors; /* [...] more of libomp's after it */
} kmp_base_depnode_t;
kmp_depnode_list_t *__kmpc_task_get_successors(kmp_task_t *task);
kmp_base_depnode_t *__kmpc_task_get_depnode(kmp_task_t *task);
int32_t __kmpc_omp_taskwait(ident_t *loc, int32_t gtid);

static ident_t loc = {0, 2, 0, 0, ";kmp-task-graph.c;main;0;0;;"};

enum { A, B, C, D, E, F, G, H, I, NONE, NTASKS };
enum { IN = 1, OUT = 2, INOUTSET = 8 };

static int runs[NTASKS], when[NTASKS], clock_now;

static int32_t body(int32_t gtid, void *task)
{
    (void)gtid;
    int id;
    memcpy(&id, (char *)task + sizeof(kmp_task_t), sizeof id);
    __atomic_fetch_add(&runs[id], 1, __ATOMIC_RELAXED);
    when[id] = __atomic_add_fetch(&clock_now, 1, __ATOMIC_RELAXED);
    return 0;
}

static kmp_task_t *make(int32_t gtid, int id, int ndeps, void *a0, int f0, void *a1, int f1)
{
    kmp_task_t *t = __kmpc_omp_task_alloc(&loc, gtid, 1, sizeof(kmp_task_t) + sizeof(int), 0,
                                          (kmp_routine_entry_t)body);
    memcpy((char *)t + sizeof(kmp_task_t), &id, sizeof id);
    kmp_depend_info_t deps[2] = {{(intptr_t)a0, 4, (uint8_t)f0}, {(intptr_t)a1, 4, (uint8_t)f1}};
    if (ndeps > 0)
        __kmpc_omp_task_with_deps(&loc, gtid, t, ndeps, deps, 0, NULL);
    else
        __kmpc_omp_task(&loc, gtid, t);
    return t;
}

/* The successors of task `from`, as a bit set of task ids (nodes named
 * in nodes[]); -1 when a node is unknown or named twice. */
static int succ_set(kmp_task_t *from, void *const *nodes)
{
    int set = 0;
    for (kmp_depnode_list_t *e = __kmpc_task_get_successors(from); e != NULL; e = e->next) {
        int found = -1;
        for (int k = 0; k < NTASKS; k++)
            if (nodes[k] != NULL && nodes[k] == e->node)
                found = k;
        if (found < 0 || (set & (1 << found)))
            return -1;
        set |= 1 << found;
    }
    return set;
}

int main(void)
{
    int x, y, v, w, done = 0;
    const int edges[][2] = {{A, D}, {A, E}, {B, D}, {B, E}, {B, F}, {C, E}, {C, F},
                            {E, G}, {F, G}, {H, I}};
    PRAGMA(omp parallel num_threads(2) shared(done)) /* tasks of a team of one run at once */
    {
        if (omp_get_thread_num() != 0) {
            while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
                sched_yield(); /* out of the runtime: no task starts */
        } else {
            int32_t gtid = __kmpc_global_thread_num(&loc);
            kmp_task_t *t[NTASKS];
            t[A] = make(gtid, A, 1, &x, INOUTSET, NULL, 0);
            t[B] = make(gtid, B, 2, &x, INOUTSET, &y, INOUTSET);
            t[C] = make(gtid, C, 1, &y, INOUTSET, NULL, 0);
            t[D] = make(gtid, D, 1, &x, IN, NULL, 0);
            t[E] = make(gtid, E, 2, &x, IN, &y, IN);
            t[F] = make(gtid, F, 1, &y, IN, NULL, 0);
            t[G] = make(gtid, G, 1, &y, OUT, NULL, 0);
            t[H] = make(gtid, H, 2, &v, OUT, &w, OUT);
            t[I] = make(gtid, I, 2, &v, IN, &w, IN);
            void *nodes[NTASKS] = {0};
            for (int k = A; k <= I; k++) {
                nodes[k] = __kmpc_task_get_depnode(t[k]);
                EXPECT_EQ(nodes[k] != NULL, 1, "a task with dependences has a node");
            }
            int want[NTASKS] = {0};
            for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
                want[edges[e][0]] |= 1 << edges[e][1];
            for (int k = A; k <= I; k++) {
                if (k == D || k == G || k == I) {
                    EXPECT_EQ(__kmpc_task_get_successors(t[k]) == NULL, 1,
                              "a task nothing waits for has no successors");
                    continue;
                }
                int got = succ_set(t[k], nodes);
                if (got != want[k])
                    printf("task %c: successors %#x, want %#x\n", 'A' + k, got, want[k]);
                EXPECT_EQ(got, want[k], "a task's successors, each once");
            }
            t[NONE] = make(gtid, NONE, 0, NULL, 0, NULL, 0);
            /* a task with no dependences has no node (it may have run) */
            (void)t[NONE];
            for (int k = 0; k < 4; k++) /* no routine: nothing runs */
                __kmpc_omp_task(&loc, gtid, __kmpc_omp_task_alloc(&loc, gtid, 1,
                                                                  sizeof(kmp_task_t), 0, NULL));
            __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
            __kmpc_omp_taskwait(&loc, gtid);
        }
    }
    for (int k = 0; k < NTASKS; k++)
        EXPECT_EQ(runs[k], 1, "each task ran once");
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        EXPECT_EQ(when[edges[e][0]] < when[edges[e][1]], 1, "a task ran after its predecessor");
    return check_summary("kmp-task-graph");
}
