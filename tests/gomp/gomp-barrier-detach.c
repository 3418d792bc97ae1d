/* gomp-barrier-detach.c: a barrier completes the tasks made before it, not
 * those made after it by a thread that has left it. Every thread makes
 * tasks, then meets the barrier, which completes them; thread 0 then makes
 * a task with an event and waits for thread 1 to fulfil it, which thread 1
 * does once past the same barrier. A barrier whose waits also waited for
 * tasks made after it would keep thread 1 in it, waiting for that task,
 * while thread 0 waits for thread 1: a hang. Thread 0 gives up after 10 s
 * and fulfils the event itself, so a failure is reported, not hung. Built
 * by gcc and clang, validated on libgomp and libomp; 2 threads and more. */
#include <omp.h>
#include <time.h>

#include "gomp-check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    int team = check_team_size("gomp-barrier-detach");
    if (team < 2) {
        printf("gomp-barrier-detach: needs 2 threads; nothing to check\n");
        return check_summary("gomp-barrier-detach");
    }
    int rounds = 100, gave_up = 0, ran = 0, before = 0;
    for (int r = 0; r < rounds && !gave_up; r++) {
        omp_event_handle_t ev = (omp_event_handle_t)0; /* set by detach */
        int published = 0, fulfilled = 0, claimed = 0; /* one fulfils, once */
        PRAGMA(omp parallel shared(ev, published, fulfilled, claimed, gave_up, ran, before))
        {
            for (int k = 0; k < 4; k++) {
                PRAGMA(omp task shared(before))
                __atomic_fetch_add(&before, 1, __ATOMIC_RELAXED);
            }
            PRAGMA(omp barrier)
            if (omp_get_thread_num() == 0) {
                PRAGMA(omp task detach(ev) shared(ran))
                __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&published, 1, __ATOMIC_RELEASE);
                double t0 = now_s();
                while (!__atomic_load_n(&fulfilled, __ATOMIC_ACQUIRE)) {
                    if (now_s() - t0 > 10) { /* thread 1 is held in the barrier */
                        gave_up = 1;
                        if (!__atomic_exchange_n(&claimed, 1, __ATOMIC_ACQ_REL))
                            omp_fulfill_event(ev);
                        break;
                    }
                }
            } else if (omp_get_thread_num() == 1) {
                while (!__atomic_load_n(&published, __ATOMIC_ACQUIRE))
                    ;
                if (!__atomic_exchange_n(&claimed, 1, __ATOMIC_ACQ_REL))
                    omp_fulfill_event(ev);
                __atomic_store_n(&fulfilled, 1, __ATOMIC_RELEASE);
            }
        }
    }
    EXPECT_EQ(gave_up, 0, "thread 1 left the barrier to fulfil the event");
    if (!gave_up) {
        EXPECT_EQ(ran, rounds, "every detached task ran once");
        EXPECT_EQ(before, rounds * 4 * team, "every task before the barrier ran once");
    }
    return check_summary("gomp-barrier-detach");
}
