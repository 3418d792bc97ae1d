/* gomp-detach-wait.c: a thread fulfils an event whose task's successor
 * belongs to another thread's task, then waits for its own child: the
 * successor made ready must not hide that child from the wait (it goes to
 * the team's inbox, not onto the fulfilling thread's queue). Built by gcc
 * and validated on libgomp (libomp 19 hangs on it); its regions have two
 * threads whatever OMP_NUM_THREADS says. */
#include <omp.h>

#include "gomp-check.h"

int main(void)
{
    check_team_size("gomp-detach-wait");
    for (int round = 0; round < 200; round++) {
        omp_event_handle_t ev;
        int started = 0, x = 0, ran = 0, child = 0;
        (void)x; /* named by the clauses only */
        PRAGMA(omp parallel num_threads(2) shared(ev, started, x, ran, child))
        {
            if (omp_get_thread_num() == 0) {
                PRAGMA(omp task depend(out: x) detach(ev) shared(started))
                __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
                PRAGMA(omp task depend(in: x) shared(ran))
                ran = 1;
                PRAGMA(omp taskwait)
            } else if (omp_get_thread_num() == 1) {
                PRAGMA(omp task shared(child))
                child = 1;
                while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
                    ;
                omp_fulfill_event(ev);
                PRAGMA(omp taskwait)
                EXPECT_EQ(child, 1, "the fulfilling thread's child, after its taskwait");
            }
        }
        EXPECT_EQ(ran, 1, "the detached task's successor ran");
    }
    return check_summary("gomp-detach-wait");
}
