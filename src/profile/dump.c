/* dump.c: the profile's signals: the dump signal, which writes the profile
 * while the process runs on, and the signals that end a process, at which
 * the profile is written before the process ends.
 *
 * The dump. BUDDY_THREAD_POOL_PROFILE_SIGNAL=USR2 installs a handler that
 * only posts a semaphore (sem_post is async-signal-safe); a writer thread
 * waiting on it calls what it was started with (bp_profile_dump, which
 * takes the profile's lock as a region's accounting does, and writes the
 * report and the JSON so far).
 *
 * The ending signals. SIGTERM (docker stop, systemctl stop, kill), SIGINT
 * (Ctrl-C), SIGHUP and SIGQUIT would end a profiled process with nothing
 * written. While profiling is on, each of them whose action is the default
 * (a program's own handler, or an ignored signal, is left alone; one the
 * program installs later replaces ours) gets a handler that notes the
 * signal and posts the same semaphore: the writer thread then writes the
 * final profile, marked as ended by that signal, and removes the live file
 * (bp_profile_end), puts the default action back and sends the signal
 * again, so the process ends by it as it would have (its parent sees the
 * same status; SIGQUIT still dumps core). Nothing but the note and the post
 * happens in the handler. A second ending signal, a signal in a process
 * without the writer (a child of fork() before its first region), or a
 * write that takes more than END_DEADLINE_S (a watchdog thread) ends the
 * process at once, by its signal.
 *
 * The writer thread is made at the profile's start (which returns once the
 * writer waits, so that a fork() after it never splits a half-started
 * thread) and joined at its end,
 * when the actions before ours come back (unless the program has set others
 * since); in a child of fork(), where it does not exist, it is made again
 * at the child's first region. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"

enum { END_DEADLINE_S = 5 };
static const int ending_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
#define NENDING (sizeof ending_signals / sizeof ending_signals[0])

static struct {
    sem_t sem;
    sem_t ready;       /* the writer posts it once it waits for dumps */
    int sem_made;
    pthread_t thread;
    int running;       /* the writer thread exists (in this process) */
    _Atomic pid_t pid; /* the process it exists in */
    _Atomic int stop;
    int installed;     /* the dump signal's handler is set up */
    struct sigaction old; /* the action before ours, put back at the end */
    void (*write)(_Atomic int *stop); /* what the writer does at each dump */
    void (*end)(int sig); /* what it does at an ending signal */
    _Atomic int ending; /* the ending signal caught; 0: none */
    int taken[NENDING]; /* the ending signals whose action is ours */
} dump;

/* End the process by sig, as its default action does: from a handler too
 * (sigaction, pthread_sigmask, kill and getpid are async-signal-safe). */
static void die_by(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    kill(getpid(), sig);
}

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    sem_post(&dump.sem);
    errno = saved;
}

static void on_ending(int sig)
{
    int saved = errno, first = 0;
    /* acquire: the writer's pid, set before it ran */
    if (atomic_load_explicit(&dump.pid, memory_order_acquire) != getpid())
        die_by(sig); /* no writer in this process: end now */
    else if (atomic_compare_exchange_strong_explicit(&dump.ending, &first, sig,
                                                     memory_order_relaxed, memory_order_relaxed))
        sem_post(&dump.sem);
    else if (first == sig)
        die_by(sig); /* the same signal again (Ctrl-C twice): end now */
    /* another ending signal while the profile is written (systemd's SIGHUP
     * after SIGTERM, mpirun's SIGTERM after the terminal's SIGINT): the
     * write goes on, the watchdog bounds it */
    errno = saved;
}

static void *watchdog_main(void *arg)
{
    sleep(END_DEADLINE_S);
    die_by((int)(intptr_t)arg);
    return NULL;
}

/* An ending signal: the final profile, then the end by that signal. */
static void end_by(int sig)
{
    pthread_t watchdog;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* no watchdog (out of threads): the write alone decides */
    (void)pthread_create(&watchdog, &attr, watchdog_main, (void *)(intptr_t)sig);
    pthread_attr_destroy(&attr);
    dump.end(sig);
    die_by(sig);
    sleep(1);      /* the signal is delivered to some thread meanwhile */
    _exit(128 + sig); /* a process whose threads all block it */
}

static void *writer(void *arg)
{
    (void)arg;
    /* the writer takes no signal of its own: the process's threads do */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    sem_post(&dump.ready);
    for (;;) {
        while (sem_wait(&dump.sem) != 0 && errno == EINTR)
            ;
        /* relaxed: the semaphore orders the handler's store before */
        int sig = atomic_load_explicit(&dump.ending, memory_order_relaxed);
        if (sig != 0)
            end_by(sig);
        if (atomic_load(&dump.stop))
            return NULL;
        dump.write(&dump.stop);
    }
}

/* Take the ending signals whose action is the default; in a Python process
 * none: Python's signal module cannot give back an action it did not set
 * (signal.getsignal() says None, and restoring that raises), and a Python
 * program that handles SIGTERM with sys.exit() reports at its exit. */
static void take_ending(void)
{
    if (bp_process_is_python())
        return;
    for (size_t i = 0; i < NENDING; i++) {
        int sig = ending_signals[i];
        struct sigaction now, sa;
        if (sig == bp_config.profile_signal || dump.taken[i] ||
            sigaction(sig, NULL, &now) != 0 || (now.sa_flags & SA_SIGINFO) ||
            now.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_ending;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        dump.taken[i] = sigaction(sig, &sa, NULL) == 0;
    }
}

/* Give the ending signals their default action back, where ours is still
 * set (the handler's code may be unmapped next: dlclose). */
static void give_back_ending(void)
{
    for (size_t i = 0; i < NENDING; i++) {
        struct sigaction now, dfl;
        if (!dump.taken[i])
            continue;
        dump.taken[i] = 0;
        if (sigaction(ending_signals[i], NULL, &now) != 0 || (now.sa_flags & SA_SIGINFO) ||
            now.sa_handler != on_ending)
            continue;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(ending_signals[i], &dfl, NULL);
    }
}

void bp_dump_signal_start(void (*write)(_Atomic int *stop), void (*end)(int sig))
{
    int sig = bp_config.profile_signal;
    if (dump.running)
        return;
    dump.write = write;
    dump.end = end;
    if (!dump.sem_made) {
        if (sem_init(&dump.sem, 0, 0) != 0)
            return;
        if (sem_init(&dump.ready, 0, 0) != 0) {
            sem_destroy(&dump.sem);
            return;
        }
        dump.sem_made = 1;
    }
    if (sig > 0 && !dump.installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sig, &sa, &dump.old) != 0) {
            bp_warn("BUDDY_THREAD_POOL_PROFILE_SIGNAL: cannot handle signal %d: %s; "
                    "no dumps on a signal", sig, strerror(errno));
        } else {
            if ((dump.old.sa_flags & SA_SIGINFO) || (dump.old.sa_handler != SIG_DFL &&
                                                     dump.old.sa_handler != SIG_IGN))
                bp_warn("BUDDY_THREAD_POOL_PROFILE_SIGNAL: signal %d had a handler of the "
                        "program's; the profile's dump replaces it", sig);
            dump.installed = 1;
        }
    }
    atomic_store(&dump.stop, 0);
    atomic_store_explicit(&dump.ending, 0, memory_order_relaxed);
    if (pthread_create(&dump.thread, NULL, writer, NULL) != 0) {
        bp_warn("profile: cannot start the profile writer thread; no dumps on a signal, and "
                "a process ended by a signal writes no profile");
        return;
    }
    /* The writer is parked in sem_wait before the profile's start returns:
     * a fork() that follows (a pre-forking server, the fork-first test)
     * never finds it half started, holding a lock of the thread library's
     * or of an allocator that the child would then wait for forever (GCC
     * 12's AddressSanitizer does not take its allocator's locks across
     * fork(), so there the child's first malloc hung). */
    while (sem_wait(&dump.ready) != 0 && errno == EINTR)
        ;
    dump.running = 1;
    /* release: on_ending reads the pid and then posts to this writer */
    atomic_store_explicit(&dump.pid, getpid(), memory_order_release);
    take_ending();
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
    give_back_ending();
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
    sem_destroy(&dump.ready);
    dump.sem_made = 0;
    dump.running = 0;
    atomic_store_explicit(&dump.pid, 0, memory_order_relaxed);
}

/* In a child of fork() the writer thread does not exist. */
void bp_dump_signal_fork_child(void)
{
    dump.running = 0;
}
