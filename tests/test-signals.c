/* test-signals.c: signals that interrupt the pool's waiting threads change
 * nothing. A signaller thread sends SIGUSR1 (a handler without SA_RESTART,
 * so a futex wait returns EINTR) to every thread of the process every
 * 100 us, while the main thread runs regions in three patterns:
 *   back to back, with barriers   workers spin between and inside regions
 *   5 ms apart                    workers sleep on their futex in between
 *   one thread late in a barrier  the others sleep in the barrier
 * Every region must run on its whole team, each thread once, and every
 * barrier must hold; the handler must have run (the signals did arrive). */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "barrier-check.h"

static atomic_long handled;
static atomic_int stop;
static pid_t signaller_tid;

static void on_usr1(int sig)
{
    (void)sig;
    atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ; /* interrupted by our own signal: sleep the rest */
}

/* Signal every thread of the process but this one, until told to stop. */
static void *signaller(void *arg)
{
    (void)arg;
    signaller_tid = (pid_t)syscall(SYS_gettid);
    pid_t pid = getpid();
    while (!atomic_load(&stop)) {
        DIR *d = opendir("/proc/self/task");
        if (d == NULL)
            break;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            pid_t tid = (pid_t)atoi(e->d_name);
            if (tid > 0 && tid != signaller_tid)
                syscall(SYS_tgkill, pid, tid, SIGUSR1);
        }
        closedir(d);
        sleep_us(100);
    }
    return NULL;
}

static int late_us; /* thread 1 arrives this late at each barrier */

static void maybe_late(int tid)
{
    if (tid == 1)
        sleep_us(late_us);
}

static void run(int regions, int apart_us, int late, int barriers)
{
    late_us = late;
    for (int r = 0; r < regions; r++) {
        barrier_check_run(0, barriers, late > 0 ? maybe_late : NULL);
        if (apart_us > 0)
            sleep_us(apart_us);
    }
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1; /* no SA_RESTART: blocking calls return EINTR */
    sigemptyset(&sa.sa_mask);
    CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
    CHECK_LE(buddypool_max_threads(), BC_MAX_THREADS);

    run(10, 0, 0, 1); /* the pool is up before the signals start */
    pthread_t sig;
    CHECK_EQ(pthread_create(&sig, NULL, signaller, NULL), 0);
    run(20000, 0, 0, 2); /* spinning workers */
    run(100, 5000, 0, 1); /* sleeping workers */
    if (buddypool_max_threads() > 1)
        run(20, 0, 5000, 2); /* threads asleep in a barrier */
    atomic_store(&stop, 1);
    pthread_join(sig, NULL);
    CHECK_GE(atomic_load(&handled), 100);
    printf("test-signals: regions right on %d threads with %ld signals handled\n",
           buddypool_max_threads(), atomic_load(&handled));
    return 0;
}
