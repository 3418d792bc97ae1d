/* kmp-cancel-dtor.c: a clang task with a destructors thunk (C++ objects in
 * its data) that cancellation discards still runs the thunk, as libomp
 * does, and never its routine. The tasks are made by hand through
 * __kmpc_omp_task_alloc with the destructors flag, in a taskgroup that a
 * task of it has cancelled (run with OMP_CANCELLATION=true). */
#include <omp.h>
#include <stddef.h>
#include <stdint.h>

#include "gomp-check.h"
#include "kmp-task-abi.h"

enum { TASKS = 16, KMP_TIED = 1, KMP_DESTRUCTORS = 1 << 3 };

static ident_t loc = {0, 2, 0, 0, ";kmp-cancel-dtor.c;main;1;1;;"};
static int routines, destructors;

static int32_t routine(int32_t gtid, void *task)
{
    (void)gtid, (void)task;
    __atomic_fetch_add(&routines, 1, __ATOMIC_RELAXED);
    return 0;
}

static int32_t destructor(int32_t gtid, void *task)
{
    (void)gtid, (void)task;
    __atomic_fetch_add(&destructors, 1, __ATOMIC_RELAXED);
    return 0;
}

int main(void)
{
    check_team_size("kmp-cancel-dtor");
    EXPECT_EQ(omp_get_cancellation(), 1, "cancel-var under OMP_CANCELLATION=true");
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    {
        PRAGMA(omp taskgroup)
        {
            PRAGMA(omp task)
            {
                PRAGMA(omp cancel taskgroup)
            }
            PRAGMA(omp taskwait) /* the taskgroup is cancelled from here */
            int32_t gtid = __kmpc_global_thread_num(&loc);
            for (int i = 0; i < TASKS; i++) {
                kmp_task_t *t = __kmpc_omp_task_alloc(&loc, gtid, KMP_TIED | KMP_DESTRUCTORS,
                                                      sizeof(kmp_task_t), 0, routine);
                t->data1.destructors = destructor;
                __kmpc_omp_task(&loc, gtid, t);
            }
        }
    }
    EXPECT_EQ(routines, 0, "a discarded task's routine never runs");
    EXPECT_EQ(destructors, TASKS, "a discarded task's destructors run, once each");
    return check_summary("kmp-cancel-dtor");
}
