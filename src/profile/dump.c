/* dump.c: the dump signal, the profile written while the process runs on.
 * BUDDY_THREAD_POOL_PROFILE_SIGNAL=USR2 installs a handler that only posts a
 * semaphore (sem_post is async-signal-safe); a writer thread waiting on it
 * calls what it was started with (bp_profile_dump, which takes the
 * profile's lock as a region's accounting does, and writes the report and
 * the JSON so far). The thread is made at the profile's start and joined
 * at its end; in a child of fork(), where it does not exist, it is made
 * again at the child's first region. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "profile.h"

static struct {
    sem_t sem;
    pthread_t thread;
    int running;       /* the writer thread exists (in this process) */
    _Atomic int stop;
    int installed;     /* the handler and the semaphore are set up */
    struct sigaction old; /* the action before ours, put back at the end */
    void (*write)(_Atomic int *stop); /* what the writer does at each signal */
} dump;

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    sem_post(&dump.sem);
    errno = saved;
}

static void *writer(void *arg)
{
    (void)arg;
    /* the writer takes no signal of its own: the process's threads do */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;) {
        while (sem_wait(&dump.sem) != 0 && errno == EINTR)
            ;
        if (atomic_load(&dump.stop))
            return NULL;
        dump.write(&dump.stop);
    }
}

void bp_dump_signal_start(void (*write)(_Atomic int *stop))
{
    int sig = bp_config.profile_signal;
    if (sig <= 0 || dump.running)
        return;
    dump.write = write;
    if (!dump.installed) {
        if (sem_init(&dump.sem, 0, 0) != 0)
            return;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sig, &sa, &dump.old) != 0) {
            bp_warn("BUDDY_THREAD_POOL_PROFILE_SIGNAL: cannot handle signal %d: %s; "
                    "no dumps on a signal", sig, strerror(errno));
            return;
        }
        if ((dump.old.sa_flags & SA_SIGINFO) || (dump.old.sa_handler != SIG_DFL &&
                                                 dump.old.sa_handler != SIG_IGN))
            bp_warn("BUDDY_THREAD_POOL_PROFILE_SIGNAL: signal %d had a handler of the "
                    "program's; the profile's dump replaces it", sig);
        dump.installed = 1;
    }
    atomic_store(&dump.stop, 0);
    if (pthread_create(&dump.thread, NULL, writer, NULL) != 0) {
        bp_warn("BUDDY_THREAD_POOL_PROFILE_SIGNAL: cannot start the profile writer thread; "
                "no dumps on a signal");
        return;
    }
    dump.running = 1;
}

void bp_dump_signal_stop(void)
{
    /* the handler's code may be unmapped next (dlclose): the action before
     * it comes back, unless the program has set another since */
    struct sigaction now;
    if (dump.installed && sigaction(bp_config.profile_signal, NULL, &now) == 0 &&
        !(now.sa_flags & SA_SIGINFO) && now.sa_handler == on_signal)
        sigaction(bp_config.profile_signal, &dump.old, NULL);
    dump.installed = 0;
    if (!dump.running)
        return;
    atomic_store(&dump.stop, 1);
    sem_post(&dump.sem);
    /* a dump in progress waits for the running region: give it 5 seconds */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 5;
    if (pthread_timedjoin_np(dump.thread, NULL, &deadline) != 0) {
        bp_warn("profile: the dump writer thread did not stop (a region is still "
                "running); leaving it");
        return;
    }
    sem_destroy(&dump.sem);
    dump.running = 0;
}

/* In a child of fork() the writer thread does not exist. */
void bp_dump_signal_fork_child(void)
{
    dump.running = 0;
}
