/* gomp-undeferred-detach.c: a task that runs at once (if(0)) ends without
 * waiting for its children. Its detached child's event is fulfilled by
 * the code after it, so a runtime that waited would hang; OpenMP lets an
 * undeferred task end before its children complete. buddypool runs such a
 * task on its maker's stack and gives it a heap stand-in once it makes a
 * counted child (task.c). Every child runs once. Run at 1, 2 and 4
 * threads. */
#include <omp.h>

#include "gomp-check.h"

enum { ROUNDS = 200 };

int main(void)
{
    check_team_size("gomp-undeferred-detach");
    int ran = 0;
    for (int r = 0; r < ROUNDS; r++) {
        PRAGMA(omp parallel shared(ran))
        PRAGMA(omp single)
        {
            omp_event_handle_t ev;
            PRAGMA(omp task if (0) shared(ev, ran))
            {
                PRAGMA(omp task detach(ev) shared(ran))
                {
                    PRAGMA(omp atomic)
                    ran++;
                }
            }
            omp_fulfill_event(ev); /* the if(0) task has ended */
            PRAGMA(omp taskwait)
        }
    }
    EXPECT_EQ(ran, ROUNDS, "an if(0) task's detached child: ran once, no hang");
    return check_summary("gomp-undeferred-detach");
}
