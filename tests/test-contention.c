/* test-contention.c: waits that notice they are kept from their CPU
 * (src/core/wait.c).
 *
 * The rule first: a window in which a thread waited 5% of the wall time or
 * more in a run queue makes it contended; one of 1% or less makes it quiet
 * again; between the two it stays as it was.
 *
 * Then for real: a waiter pinned to one CPU beside a busy thread pinned to
 * the same CPU waits for a flag that a setter sets every 2 ms. The kernel
 * shares the CPU between the two, so the waiter is kept from it about half
 * the time: it must become contended, and then a wait that lasts 1 ms (half
 * the default spin of 2 ms) must go to sleep (at least 4 of 40 such
 * waits; 0 of 300 sleep with the spin chosen, below), which the setter sees in the flag's sleeper count (registered
 * for the last 200 us of the wait). With the busy thread stopped the waiter must become
 * quiet again. Run alone (RUN_SERIAL): another test on the same CPU would
 * keep the waiter from it too. Skips (77) where the kernel does not offer
 * /proc/thread-self/schedstat.
 *
 * `test-contention chosen` runs the shared-CPU phase with
 * BUDDY_THREAD_POOL_SPIN_US=2000 set: a chosen spin is never adapted, so
 * the waiter must not become contended and no 1 ms wait may sleep. Not timed: the times above are the rule's,
 * the test waits for each outcome up to seconds. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/internal.h"
#include "check.h"

static struct bp_flag flag;
static _Atomic int hog_on = 1, phase, stop, contended_seen, quiet_seen;
static int cpu_shared, cpu_other = -1;

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    CHECK_EQ(pthread_setaffinity_np(pthread_self(), sizeof set, &set), 0);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *hog(void *arg)
{
    (void)arg;
    pin(cpu_shared);
    while (atomic_load(&hog_on))
        ;
    return NULL;
}

/* Waits for each of the setter's values; reports its state after each. */
static void *waiter(void *arg)
{
    (void)arg;
    pin(cpu_shared);
    for (uint32_t k = 1; !atomic_load(&stop); k++) {
        bp_flag_wait_reached(&flag, k);
        k = atomic_load_explicit(&flag.value, memory_order_relaxed);
        if (bp_wait_contended())
            atomic_store(&contended_seen, 1);
        else if (atomic_load(&phase) == 1)
            atomic_store(&quiet_seen, 1);
    }
    return NULL;
}

static void check_rule(void)
{
    const int64_t ms = 1000000;
    CHECK_EQ(bp_contention_judge(0, 0, 10 * ms), 0);
    CHECK_EQ(bp_contention_judge(0, ms / 2, 10 * ms), 1);      /* 5% */
    CHECK_EQ(bp_contention_judge(0, ms / 2 - ms / 50, 10 * ms), 0); /* 4.8% */
    CHECK_EQ(bp_contention_judge(1, ms / 5, 10 * ms), 1);      /* 2%: stays */
    CHECK_EQ(bp_contention_judge(1, ms / 10, 10 * ms), 0);     /* 1%: quiet */
    CHECK_EQ(bp_contention_judge(0, 5 * ms, 10 * ms), 1);      /* half the time */
    CHECK_EQ(bp_contention_judge(1, 0, 0), 1);                 /* no window: unchanged */
    CHECK_EQ(bp_contention_judge(0, -ms, 10 * ms), 0);         /* a count gone back */
    CHECK_EQ(bp_contention_judge(1, -ms, 10 * ms), 1);
}

int main(int argc, char **argv)
{
    int chosen = argc > 1 && strcmp(argv[1], "chosen") == 0;
    if (chosen) {
        setenv("BUDDY_THREAD_POOL_SPIN_US", "2000", 1);
        bp_config_load();
        CHECK_EQ(bp_config.spin_chosen, 1);
    }
    check_rule();
    printf("the rule: ok\n");
    int fd = open("/proc/thread-self/schedstat", O_RDONLY);
    if (fd < 0) {
        printf("skipped: /proc/thread-self/schedstat cannot be read (no schedstats)\n");
        return 77;
    }
    close(fd);
    cpu_set_t allowed;
    CHECK_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    cpu_shared = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed)) {
            if (cpu_shared < 0)
                cpu_shared = c;
            else if (cpu_other < 0)
                cpu_other = c;
        }
    if (cpu_other < 0) {
        printf("skipped: one CPU allowed; the setter needs a CPU of its own\n");
        return 77;
    }
    pin(cpu_other); /* the setter */
    pthread_t h, w;
    CHECK_EQ(pthread_create(&h, NULL, hog, NULL), 0);
    CHECK_EQ(pthread_create(&w, NULL, waiter, NULL), 0);
    uint32_t k = 0;
    int64_t t0 = now_ns();
    int sleeps_in_short_waits = 0, short_waits = 0;
    /* Phase 0, the CPU shared: contended within seconds; then waits of
     * 1 ms sleep. With a chosen spin: 300 waits of 1 ms, none contended,
     * none asleep. */
    while (now_ns() - t0 < 5000000000LL &&
           (chosen ? short_waits < 300 : !atomic_load(&contended_seen) || short_waits < 40)) {
        int64_t gap = chosen || atomic_load(&contended_seen) ? 1000000 : 2000000, s = now_ns();
        /* asleep: a sleeper registered for the last 200 us of the gap
         * without a break (a waiter preempted for longer than its spin
         * registers for an instant at its next clock read, reads the flag
         * again and leaves: that is not a sleep). Not counted: a gap in
         * which the setter itself was kept from its CPU for 100 us or more
         * (another program on the machine), since it lasted longer than it
         * says; and one that never saw the count at 0, since the sleeper
         * then is the last gap's, woken but not yet back on its CPU. */
        int64_t since = -2, t, last = s, step = 0;
        while ((t = now_ns()) - s < gap) {
            step = t - last > step ? t - last : step;
            last = t;
            uint32_t n = atomic_load_explicit(&flag.sleepers, memory_order_relaxed);
            if ((n & BP_FLAG_SLEEPERS) == 0)
                since = -1;
            else if (since == -1)
                since = t;
        }
        int slept = since >= 0 && t - since >= 200000;
        if ((chosen || atomic_load(&contended_seen)) && step < 100000 && since != -2) {
            short_waits++;
            sleeps_in_short_waits += slept;
        }
        bp_flag_set(&flag, ++k);
    }
    printf("shared CPU: contended %d; %d of %d waits of 1 ms slept\n",
           atomic_load(&contended_seen), sleeps_in_short_waits, short_waits);
    if (chosen) {
        CHECK_EQ(atomic_load(&contended_seen), 0);
        CHECK_GE(short_waits, 100);
        CHECK_EQ(sleeps_in_short_waits, 0);
        atomic_store(&hog_on, 0);
        pthread_join(h, NULL);
        atomic_store(&stop, 1);
        bp_flag_set(&flag, ++k);
        pthread_join(w, NULL);
        printf("ok\n");
        return 0;
    }
    CHECK_EQ(atomic_load(&contended_seen), 1);
    CHECK_GE(short_waits, 40);
    /* a waiter that the busy thread keeps from the CPU for the whole gap
     * neither spins nor sleeps: 40-100% of the gaps end with it asleep */
    CHECK_GE(sleeps_in_short_waits * 10, short_waits);
    /* Phase 1, the CPU the waiter's own again: quiet within seconds. */
    atomic_store(&hog_on, 0);
    pthread_join(h, NULL);
    atomic_store(&phase, 1);
    t0 = now_ns();
    while (now_ns() - t0 < 5000000000LL && !atomic_load(&quiet_seen)) {
        int64_t s = now_ns();
        while (now_ns() - s < 2000000)
            ;
        bp_flag_set(&flag, ++k);
    }
    printf("own CPU: quiet %d after %.0f ms\n", atomic_load(&quiet_seen),
           (now_ns() - t0) / 1e6);
    CHECK_EQ(atomic_load(&quiet_seen), 1);
    atomic_store(&stop, 1);
    bp_flag_set(&flag, ++k);
    pthread_join(w, NULL);
    printf("ok\n");
    return 0;
}
