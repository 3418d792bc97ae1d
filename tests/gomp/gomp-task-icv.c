/* gomp-task-icv.c: a task's ICVs are its own. A task starts with the ICVs
 * of the task that made it; what it sets (omp_set_num_threads,
 * omp_set_dynamic, omp_set_schedule, omp_set_max_active_levels) is seen by
 * it and the tasks it makes then, never by its parent, a sibling or a task
 * run meanwhile on the same thread. Checked for included tasks (a team of
 * one thread, final tasks; buddypool lends them their parent's ICVs until
 * they write one), nested ones, a region forked in one, the tasks of a
 * taskloop, and a final task that yields while deferred tasks set ICVs of
 * their own. Built by gcc
 * and clang, validated on libgomp and libomp, at 1, 2 and 4 threads. */
#include <omp.h>

#include "gomp-check.h"

static int bad; /* ICVs seen wrong, by any thread */
#define BAD(cond) __atomic_fetch_add(&bad, (cond) ? 1 : 0, __ATOMIC_RELAXED)

static void expect_icvs(int nthreads, int dynamic, omp_sched_t sched, int chunk, int levels)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    BAD(omp_get_max_threads() != nthreads);
    BAD(omp_get_dynamic() != dynamic);
    BAD(k != sched || c != chunk);
    BAD(omp_get_max_active_levels() != levels);
}

/* A task that sets every ICV, makes a task that sees them and sets its
 * own, and still sees its own after it. */
static void setter_task(int base)
{
    omp_set_num_threads(base);
    omp_set_dynamic(1);
    omp_set_schedule(omp_sched_dynamic, base);
    omp_set_max_active_levels(2);
    expect_icvs(base, 1, omp_sched_dynamic, base, 2);
    PRAGMA(omp task)
    {
        expect_icvs(base, 1, omp_sched_dynamic, base, 2);
        omp_set_num_threads(base + 1);
        omp_set_schedule(omp_sched_guided, 2);
        expect_icvs(base + 1, 1, omp_sched_guided, 2, 2);
    }
    PRAGMA(omp taskwait)
    expect_icvs(base, 1, omp_sched_dynamic, base, 2);
}

static void parent_checks(const char *what)
{
    int levels = omp_get_max_active_levels();
    omp_set_num_threads(3);
    omp_set_dynamic(0);
    omp_set_schedule(omp_sched_static, 0);
    /* tasks that set ICVs, and tasks that only read them, interleaved */
    for (int i = 0; i < 8; i++) {
        PRAGMA(omp task)
        setter_task(10 + i);
        PRAGMA(omp task)
        expect_icvs(3, 0, omp_sched_static, 0, levels);
    }
    PRAGMA(omp taskwait)
    expect_icvs(3, 0, omp_sched_static, 0, levels);
    /* final tasks: they and theirs are included in every team */
    PRAGMA(omp task final(1))
    {
        expect_icvs(3, 0, omp_sched_static, 0, levels);
        setter_task(20);
        PRAGMA(omp task)
        {
            expect_icvs(20, 1, omp_sched_dynamic, 20, 2);
            omp_set_num_threads(21);
        }
        expect_icvs(20, 1, omp_sched_dynamic, 20, 2);
    }
    /* a region forked by one: its implicit tasks' ICVs are theirs (dyn-var
     * left false: libomp 19 asserts on a region forked in a task with it
     * true) */
    PRAGMA(omp task final(1))
    {
        omp_set_num_threads(60);
        PRAGMA(omp parallel num_threads(2))
        omp_set_num_threads(50);
        expect_icvs(60, 0, omp_sched_static, 0, levels);
    }
    PRAGMA(omp taskwait)
    expect_icvs(3, 0, omp_sched_static, 0, levels);
    /* a taskloop's tasks each start with the encountering task's ICVs */
    PRAGMA(omp taskloop grainsize(1))
    for (int i = 0; i < 64; i++) {
        expect_icvs(3, 0, omp_sched_static, 0, levels);
        omp_set_num_threads(30 + i);
        omp_set_dynamic(1);
    }
    expect_icvs(3, 0, omp_sched_static, 0, levels);
    EXPECT_EQ(__atomic_load_n(&bad, __ATOMIC_RELAXED), 0, what);
    omp_set_dynamic(0);
}

int main(void)
{
    int team = check_team_size("gomp-task-icv");
    /* a team of one: every task is included */
    PRAGMA(omp parallel num_threads(1))
    parent_checks("a team of one");
    EXPECT_EQ(omp_get_max_threads(), team, "the initial task's nthreads-var");
    /* the whole team makes tasks; others may run them */
    PRAGMA(omp parallel)
    parent_checks("each thread of the team");
    PRAGMA(omp parallel)
    PRAGMA(omp single)
    parent_checks("a single thread's tasks");
    /* a final task that yields while others' deferred tasks set ICVs */
    int yields = 0;
    PRAGMA(omp parallel shared(yields))
    {
        if (omp_get_thread_num() == 1) {
            for (int i = 0; i < 200; i++) {
                PRAGMA(omp task)
                {
                    omp_set_num_threads(40);
                    omp_set_dynamic(1);
                    BAD(omp_get_max_threads() != 40);
                }
            }
        }
        if (omp_get_thread_num() == 0) {
            omp_set_num_threads(5);
            PRAGMA(omp task final(1) shared(yields))
            {
                for (int i = 0; i < 200; i++) {
                    PRAGMA(omp taskyield)
                    yields++;
                    BAD(omp_get_max_threads() != 5 || omp_get_dynamic() != 0);
                }
                omp_set_num_threads(6);
                for (int i = 0; i < 50; i++) {
                    PRAGMA(omp taskyield)
                    BAD(omp_get_max_threads() != 6 || omp_get_dynamic() != 0);
                }
            }
            PRAGMA(omp taskwait)
            BAD(omp_get_max_threads() != 5 || omp_get_dynamic() != 0);
        }
    }
    EXPECT_EQ(yields, 200, "the final task ran once");
    EXPECT_EQ(__atomic_load_n(&bad, __ATOMIC_RELAXED), 0, "a final task's ICVs across taskyield");
    EXPECT_EQ(omp_get_max_threads(), team, "the initial task's nthreads-var after it all");
    EXPECT_EQ(omp_get_dynamic(), 0, "the initial task's dyn-var after it all");
    return check_summary("gomp-task-icv");
}
