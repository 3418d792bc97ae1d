/* gomp-detach-self.c: a detached task that reads its own event handle. gcc
 * passes the handle's variable to GOMP_task and, in the task's data block,
 * copies it with the rest: libgomp writes the new event into the
 * variable and into the block's first word before it copies the block, so
 * a task body that fulfils its own event, or hands it to another task,
 * reads the event and not the variable's old value. Checks: every task's
 * body fulfils its own event (and its firstprivate data beside it arrives
 * intact); a task that gets its event by firstprivate from its maker's
 * variable fulfils it (in teams of more than one: libgomp runs a team of
 * one's tasks at once and would wait for that event forever); taskwait
 * returns only once every event is fulfilled. At 1, 2 and 4 threads, on buddypool and on libgomp. */
#include <omp.h>

#include "gomp-check.h"

enum { TASKS = 64 };

int main(void)
{
    check_team_size("gomp-detach-self");
    int ran = 0, wrong = 0, later = 0;
    PRAGMA(omp parallel shared(ran, wrong, later))
    PRAGMA(omp single)
    {
        for (int i = 0; i < TASKS; i++) {
            omp_event_handle_t ev;
            long tag = 1000 + i;
            PRAGMA(omp task detach(ev) firstprivate(tag) shared(ran, wrong))
            {
                if (tag != 1000 + i) /* i is firstprivate too */
                    __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
                __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
                omp_fulfill_event(ev);
            }
        }
        PRAGMA(omp taskwait)
        /* in a team of one libgomp runs a task at once (undeferred) and
         * waits for its event, which a later task would fulfil: a hang */
        for (int i = 0; i < (omp_get_num_threads() > 1 ? TASKS : 0); i++) {
            omp_event_handle_t ev;
            PRAGMA(omp task detach(ev) shared(later))
            __atomic_fetch_add(&later, 1, __ATOMIC_RELAXED);
            PRAGMA(omp task firstprivate(ev))
            omp_fulfill_event(ev);
        }
        PRAGMA(omp taskwait)
    }
    EXPECT_EQ(ran, TASKS, "every task that fulfils its own event ran");
    EXPECT_EQ(wrong, 0, "the data beside the event arrived intact");
    EXPECT_EQ(later, omp_get_max_threads() > 1 ? TASKS : 0,
              "every task whose event another task fulfils ran");
    return check_summary("gomp-detach-self");
}
