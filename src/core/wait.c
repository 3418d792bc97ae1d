/* wait.c: how a thread waits for a word to change: spin, then yield, then
 * sleep in the kernel. Every wait in the pool (fork, barrier, join, critical
 * sections) goes through here.
 *
 * Spinning is the fast path: a decode step's regions follow each other within
 * microseconds, and a futex round trip costs several. A waiter spins with the
 * pause hint while it reads the word, checking the clock every few hundred
 * reads. After BP_YIELD_AFTER_NS it also calls sched_yield between reads, so
 * that on an oversubscribed CPU the thread it waits for can run; when the
 * running team has more threads than CPUs (bp_oversubscribed), or the waiter
 * is a worker that shares its CPU with another (polite), it yields from the
 * first read: pure spinning there only delays the thread it waits for.
 * After bp_config.spin_ns it sleeps.
 *
 * Sleeping without a lost wake-up: the waiter increments `sleepers`, then
 * re-reads `value`, then futex_waits on `sleepers` as it read it just
 * before. The setter stores `value`, then reads `sleepers`. Each side's
 * store must be seen before its load (Dekker), so that at least one side
 * sees the other: either the waiter sees the new value and does not sleep,
 * or the setter sees a sleeper and wakes it, after adding a bell to
 * `sleepers` (BP_FLAG_BELL), so that a waiter between its read and its
 * futex_wait finds the word changed and returns at once. The same pair,
 * with the same bell, wakes a wait for other reasons than its value: a
 * cancellation (a stop word), a task queued for a barrier's or a join's
 * waiters to run (a watch, bp_watch_raise). A setter with many flags to
 * set (the fork) stores them all, then orders them before its loads once,
 * then reads each `sleepers`.
 *
 * The order costs the setter a full fence (a seq_cst store is one on x86: a
 * locked exchange), which waits for the line of `value` to be taken from its
 * waiter's cache before the setter may go on. In a barrier of two threads
 * each thread sets one flag and waits for the other's, so the fence puts
 * one cache-line transfer before the other instead of beside it: on the
 * 2-CPU AMD EPYC guest, BARRIER (bench/overhead) took 0.55-0.70 us with the
 * fence and 0.32-0.39 without it. So on x86-64 and AArch64, when the kernel
 * has membarrier (Linux 4.14), threads spin before they sleep (see below
 * for RISC-V) and the processor is not Intel's (the next paragraph), the
 * pair is asymmetric, as userspace RCU's is: the setter only keeps the
 * compiler from reordering (its store is a release, its load relaxed), and
 * the waiter, about to sleep, calls
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs a
 * full fence on every CPU that runs a thread of the process. A setter whose
 * load ran before that fence has its store visible after it, so the waiter
 * reads the new value; one whose load ran after it sees the sleeper. The
 * call costs the sleeper 20-25 us on that guest, after a spin of
 * bp_config.spin_ns (2 ms by default). Under OMP_WAIT_POLICY=passive (no
 * spin: every wait sleeps, and the setter's wake is a system call anyway),
 * or without membarrier, setters fence as before.
 *
 * Which pair is faster depends on the processor: on the one Intel machine
 * measured, the symmetric one. On a 16-CPU Intel Xeon KVM guest (family 6,
 * model 207, 2026-12-04; docs/results/2026-12-04-16core-device.md), 20
 * alternating rounds at 2 bound threads gave PARALLEL 13% and BARRIER 26%
 * faster with the symmetric pair than with the asymmetric one (medians of
 * the per-round ratios), the graph benchmark unchanged; the commit that made
 * the pair asymmetric was the one that made PARALLEL 11% slower there. Why
 * was not measured (that guest has no hardware counters); a likely cause is
 * that a release store waits in the setter's store buffer while the setter
 * goes on to its own wait, where the fence would have drained it first. So
 * on x86-64 the pair is asymmetric only where the processor is not Intel's
 * (CPUID's vendor); AArch64 keeps the asymmetric pair, no Arm machine having
 * measured either. BUDDY_THREAD_POOL_WAIT_PAIR names the pair (symmetric,
 * asymmetric; auto: this rule) for a machine where the rule guesses wrong;
 * the asymmetric one still needs membarrier and spinning waits. The choice
 * is made once, when the pool starts (bp_wait_choose), before any worker
 * exists and so before any flag is set or waited for: setters cannot change
 * pairs while others wait. A kmp_set_blocktime(0) before the first region is
 * seen there; one after it changes the spin, not the pair, and each of the
 * sleeps that follow pays its membarrier.
 *
 * A machine that is not ours alone. Spinning for 2 ms pays when the thread
 * has its CPU to itself; when it is kept from its CPU (another program runs
 * there, the cgroup's CPU quota throttles the process, a second process of
 * the pool's kind shares the CPUs) the spin is paid for out of the time the
 * process gets: under a quota every spinning microsecond is a microsecond
 * of the team's budget gone, and the throttle then stops the thread doing
 * the work too. So each thread watches how long it is kept from its CPU:
 * the kernel counts the time a runnable thread waited in a run queue
 * (including time throttled by a quota) in the second field of
 * /proc/thread-self/schedstat. At most every BP_SAMPLE_EVERY_NS, and only
 * at a clock read of a wait that did not end within its first round of
 * reads, the thread reads that count; when it grew by at least
 * BP_CONTENDED_PERMILLE of the wall time since the last reading, the thread
 * is contended and its waits spin at most BP_CONTENDED_SPIN_NS (50 us)
 * before they sleep; once it grows by no more than BP_QUIET_PERMILLE, the
 * thread spins as before. The gap between the two keeps a thread near the
 * line from flapping. Only the thread that is kept from its CPU spins less:
 * a thread whose partner is preempted but whose own CPU is free keeps
 * spinning (nobody else wants its CPU, and a sleep would add a wake-up to
 * the partner's return). A wait that runs the team's tasks (a barrier's,
 * a join's) adapts too: a task queued while it sleeps wakes it.
 *
 * Why this cannot make an idle machine slower: there a thread that spins
 * is never kept from its CPU (nothing else is runnable on it), its count
 * does not grow, and its waits are today's; the reading costs one small
 * file read per 10 ms of a thread's waiting, never on the path of a wait
 * that ends within its first round of reads, the one a barrier or a fork
 * takes on a quiet machine. A team larger than the CPUs (oversubscribed)
 * is kept from its CPUs by itself, and then sleeps sooner too, which is
 * what such a team wants. Where the file cannot be read (no /proc, a
 * kernel without schedstats), waits are today's. A spin time that was
 * chosen (OMP_WAIT_POLICY, BUDDY_THREAD_POOL_SPIN_US, kmp_set_blocktime)
 * is never adapted.
 *
 * What a wait costs (its spinning, its sleep, the wakes a setter issues) it
 * tells the listeners through the wait hooks (hooks.h); it keeps nothing
 * of theirs. */
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#if defined(__linux__) && !defined(BP_PORTABLE_PRIMS)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "../internal.h"
#include "../prim.h"

/* The pair is asymmetric (see above): setters do not fence, sleepers call
 * membarrier. Written once by bp_wait_choose before any flag is used. */
static int asymmetric;

/* Where membarrier's fence is known to order a thread that the scheduler
 * switches in meanwhile: x86-64 and AArch64. RISC-V kernels before 6.9
 * lacked the barrier in switch_mm that this needs (and the library cannot
 * tell them apart), so RISC-V, and any other architecture, keeps the
 * symmetric pair. */
#if defined(__linux__) && !defined(BP_PORTABLE_PRIMS) && defined(__NR_membarrier) && \
    (defined(__x86_64__) || defined(__aarch64__))
static int membarrier(int cmd) { return (int)syscall(__NR_membarrier, cmd, 0, 0); }

static int membarrier_register(void)
{
    return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

/* The sleeper's half: a full fence on every CPU that runs one of our
 * threads. 0 when the kernel refused it. */
static int membarrier_all(void) { return membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0; }
#else
static int membarrier_register(void) { return 0; }
static int membarrier_all(void) { return 0; }
#endif

/* Whether the asymmetric pair pays here (see the top of the file):
 * BUDDY_THREAD_POOL_WAIT_PAIR when it names one, else on any processor but
 * Intel's x86-64. */
static int asymmetric_pays(void)
{
    if (bp_config.wait_pair != BP_WAIT_PAIR_AUTO)
        return bp_config.wait_pair == BP_WAIT_PAIR_ASYMMETRIC;
#if defined(__x86_64__)
    unsigned int max, ebx, ecx, edx;
    /* "GenuineIntel" in EBX, EDX, ECX */
    if (__get_cpuid(0, &max, &ebx, &ecx, &edx) && ebx == 0x756e6547u && edx == 0x49656e69u &&
        ecx == 0x6c65746eu)
        return 0;
#endif
    return 1;
}

void bp_wait_choose(int spins)
{
    int want = spins && asymmetric_pays();
    asymmetric = want && membarrier_register();
    if (bp_config.wait_pair == BP_WAIT_PAIR_ASYMMETRIC && !asymmetric)
        bp_warn("BUDDY_THREAD_POOL_WAIT_PAIR=asymmetric: %s; using the symmetric pair",
                !spins ? "waits do not spin (OMP_WAIT_POLICY=passive or "
                         "BUDDY_THREAD_POOL_SPIN_US=0)"
                       : "membarrier is refused or missing here");
}

int bp_wait_asymmetric(void) { return asymmetric; }

#if !defined(__linux__) || defined(BP_PORTABLE_PRIMS)
/* The portable futex (prim.h). No lost wake-up: the waiter checks the word
 * and starts waiting under the mutex, and a waker takes the mutex after
 * changing the word, so it either sees the waiter waiting or the waiter
 * sees the new value. */
static pthread_mutex_t futex_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t futex_cond = PTHREAD_COND_INITIALIZER;

void bp_futex_wait(const void *addr, uint32_t expected)
{
    pthread_mutex_lock(&futex_mutex);
    if (atomic_load((_Atomic uint32_t *)addr) == expected)
        pthread_cond_wait(&futex_cond, &futex_mutex);
    pthread_mutex_unlock(&futex_mutex);
}

void bp_futex_wait_ns(const void *addr, uint32_t expected, long ns)
{
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at); /* the condition variable's clock */
    at.tv_nsec += ns;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&futex_mutex);
    if (atomic_load((_Atomic uint32_t *)addr) == expected)
        pthread_cond_timedwait(&futex_cond, &futex_mutex, &at);
    pthread_mutex_unlock(&futex_mutex);
}

void bp_futex_wake(const void *addr, int n)
{
    (void)addr;
    (void)n;
    pthread_mutex_lock(&futex_mutex);
    pthread_cond_broadcast(&futex_cond);
    pthread_mutex_unlock(&futex_mutex);
}

static void futex_fork_child(void)
{
    /* a thread of the parent may have held them: the child has none */
    pthread_mutex_init(&futex_mutex, NULL);
    pthread_cond_init(&futex_cond, NULL);
}
#else
static void futex_fork_child(void) {}
#endif

void bp_wait_fork_child(void)
{
    futex_fork_child();
    /* the child is a new process for membarrier: register it again, or
     * fence as setters do without it (it has one thread: nobody sleeps) */
    if (asymmetric && !membarrier_register())
        asymmetric = 0;
}

enum {
    BP_READS_PER_CLOCK = 256,      /* pause-and-read rounds between clock reads */
    BP_READS_PER_CLOCK_YIELDING = 4, /* the same while yielding */
    BP_YIELD_AFTER_NS = 50 * 1000, /* start yielding after 50 us */
    BP_TIMED_SLEEP_MAX_NS = 128 * 1000 * 1000, /* a timed sleep, at most */
};

/* A flag's sleepers are threads of one team, so they fit its count. */
_Static_assert(BP_MAX_THREADS <= BP_FLAG_SLEEPERS, "a flag's sleepers fit their count");

enum {
    BP_CONTENDED_SPIN_NS = 50 * 1000,      /* a contended thread's spin, at most */
    BP_SAMPLE_EVERY_NS = 10 * 1000 * 1000, /* readings of the run-queue time, at most */
    BP_SAMPLE_STALE_NS = 4 * BP_SAMPLE_EVERY_NS, /* an older reading starts afresh */
    BP_CONTENDED_PERMILLE = 50, /* kept from the CPU 5% of the time: contended */
    BP_QUIET_PERMILLE = 10,     /* 1% or less: quiet again */
};

int bp_contention_judge(int contended, int64_t delay_ns, int64_t wall_ns)
{
    if (wall_ns <= 0 || delay_ns < 0)
        return contended;
    int64_t permille = delay_ns > INT64_MAX / 1000 ? 1000 : delay_ns * 1000 / wall_ns;
    return contended ? permille > BP_QUIET_PERMILLE : permille >= BP_CONTENDED_PERMILLE;
}

/* How this thread waits: one thread-local object, so that a wait finds
 * all of it from one address (in a shared library each thread-local
 * variable's address is a call). */
static _Thread_local struct {
    int polite;       /* always yields while it waits (bp_wait_set_polite) */
    int contended;    /* kept from its CPU: spins BP_CONTENDED_SPIN_NS */
    int64_t next_ns;  /* the next reading, at the earliest; INT64_MAX: never */
    int64_t wall_ns;  /* the last reading's clock (0: none yet) */
    int64_t delay_ns; /* and its run-queue time */
} self;

/* The calling thread's time waiting in a run queue (ns), or -1. */
static int64_t run_queue_ns(void)
{
#if defined(__linux__)
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[128];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *end;
    strtoull(buf, &end, 10); /* the time on the CPU */
    if (end == buf || *end != ' ')
        return -1;
    const char *second = end + 1;
    unsigned long long v = strtoull(second, &end, 10);
    return end == second || v > INT64_MAX ? -1 : (int64_t)v;
#else
    return -1;
#endif
}

/* A reading at now, and the thread's state after it. */
static int contention_sample(int64_t now)
{
    int64_t delay = run_queue_ns();
    if (delay < 0) {
        self.next_ns = INT64_MAX; /* unreadable: waits stay as they are */
        self.contended = 0;
        return 0;
    }
    if (self.wall_ns > 0 && now - self.wall_ns <= BP_SAMPLE_STALE_NS)
        self.contended = bp_contention_judge(self.contended, delay - self.delay_ns,
                                             now - self.wall_ns);
    self.wall_ns = now;
    self.delay_ns = delay;
    self.next_ns = now + BP_SAMPLE_EVERY_NS;
    return self.contended;
}

int bp_wait_contended(void) { return self.contended; }

/* The spin before a sleep for this thread now: bp_config.spin_ns, or less
 * while the thread is contended and the spin was not chosen. *adapt says
 * whether it may change during the wait. */
static inline __attribute__((always_inline)) int64_t wait_spin_ns(int *adapt)
{
    /* relaxed: kmp_set_blocktime may change them while threads wait */
    int64_t spin_ns = __atomic_load_n(&bp_config.spin_ns, __ATOMIC_RELAXED);
    *adapt = spin_ns > BP_CONTENDED_SPIN_NS &&
             !__atomic_load_n(&bp_config.spin_chosen, __ATOMIC_RELAXED);
    return *adapt && self.contended ? BP_CONTENDED_SPIN_NS : spin_ns;
}

/* Has `value` reached `target`? Exactly, or (reached) at or past it in
 * wrapping order. */
static inline int flag_done(uint32_t value, uint32_t target, int reached)
{
    return reached ? (int32_t)(value - target) >= 0 : value == target;
}

_Atomic int bp_oversubscribed;

void bp_wait_set_polite(int p) { self.polite = p; }

/* The sleep that ends a wait's spin (see flag_wait): 1 when the flag
 * reached its target, 0 when *stop was set, -1 when the watch was raised
 * (the wait then polls its tasks and spins again). Out of line: it is the
 * slow path, and ends in a system call.
 *
 * The sleeper counts itself in f->sleepers (and in watch->sleepers), then
 * reads the flag (and the stop and watch words); a setter stores the value
 * (a canceller the stop word, a task's maker the watch), then reads the
 * count. The sleeper sleeps on f->sleepers, not on the value: a waker adds
 * BP_FLAG_BELL to it before it wakes, so whatever word changed, the
 * sleeper either read the bell after the change (then, by the acquire,
 * it sees the change too) or futex_wait finds the word different from
 * what it read and returns at once. */
static __attribute__((noinline)) int flag_sleep(struct bp_flag *f, uint32_t target, int reached,
                                               struct bp_watch *watch,
                                               const _Atomic uint64_t *stop, int64_t start)
{
    int64_t slept_ns = bp_hook_wait_sleep(start);
    /* seq_cst: pairs with the setter's store/load, see the top of the file */
    atomic_fetch_add_explicit(&f->sleepers, 1, memory_order_seq_cst);
    if (watch != NULL) /* seq_cst: the same pair with bp_watch_raise */
        atomic_fetch_add_explicit(&watch->sleepers, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst); /* as bp_flag_set's, before the reads */
    /* The asymmetric pair: the fence on the setters' CPUs. Should the
     * kernel refuse it (a seccomp filter added later, say), the sleep is
     * timed, so that a wake lost to a setter that did not see this sleeper
     * costs at most that long, not the program; membarrier is tried again
     * at each return. A sleep with a stop word is timed in any case (see
     * flag_wait). Timed sleeps take 1 ms, doubling up to BP_TIMED_SLEEP_MAX_NS. */
    int timed = asymmetric && !membarrier_all();
    long sleep_ns = 1000000;
    int done;
    for (;;) {
        /* acquire: a waker's change before its bell */
        uint32_t bell = atomic_load_explicit(&f->sleepers, memory_order_acquire);
        uint32_t v = atomic_load_explicit(&f->value, memory_order_seq_cst);
        if (flag_done(v, target, reached)) {
            done = 1;
            break;
        }
        if (stop != NULL && atomic_load_explicit(stop, memory_order_seq_cst) != 0) {
            done = 0;
            break;
        }
        if (watch != NULL && atomic_load_explicit(&watch->on, memory_order_seq_cst) != 0) {
            done = -1;
            break;
        }
        if (stop == NULL && !timed) {
            bp_futex_wait(&f->sleepers, bell);
            continue;
        }
        bp_futex_wait_ns(&f->sleepers, bell, sleep_ns);
        if (sleep_ns < BP_TIMED_SLEEP_MAX_NS)
            sleep_ns *= 2;
        if (timed)
            timed = !membarrier_all(); /* then the value is read again */
    }
    /* relaxed: nothing is published by leaving */
    if (watch != NULL)
        atomic_fetch_sub_explicit(&watch->sleepers, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&f->sleepers, 1, memory_order_relaxed);
    bp_hook_wait_woken(slept_ns);
    return done;
}

/* The wait. With a watch (tasks: bp_flag_wait_poll), each read that finds
 * the flag unchanged also reads watch->on, and while it is non-zero calls
 * poll(arg), which may run a task; one that did starts the spin afresh.
 * Such a wait does not sleep while the watch is on, and one asleep when it
 * is raised is woken (flag_sleep) and spins and polls again. With a stop
 * word (a cancellable barrier: bp_flag_wait_cancel), the wait gives up,
 * returning 0, once *stop is non-zero; whoever sets it wakes the flag's
 * sleepers after. Such a sleep is timed all the same (1 ms, doubling to
 * BP_TIMED_SLEEP_MAX_NS), and the sleeper reads *stop again at each
 * return. It returns 1 when the flag reached its target. */
static inline int flag_wait(struct bp_flag *f, uint32_t target, int reached,
                            struct bp_watch *watch, int (*poll)(void *), void *arg,
                            const _Atomic uint64_t *stop)
{
    if (flag_done(atomic_load_explicit(&f->value, memory_order_acquire), target, reached))
        return 1;
    /* relaxed: kmp_set_blocktime may change it while threads wait */
    int64_t spin_ns = __atomic_load_n(&bp_config.spin_ns, __ATOMIC_RELAXED);
    int adapt = -1; /* decided at the first clock read: off the quick path */
    int oversubscribed =
        self.polite || atomic_load_explicit(&bp_oversubscribed, memory_order_relaxed);
    for (;;) { /* a spin, then a sleep; a raised watch spins again */
        int yielding = oversubscribed;
        /* The clock is first read after one round of reads (a flag that is
         * set within that round is seen without the delay of a clock read);
         * when yielding, a round of reads takes scheduler slices: time it
         * too. */
        int64_t start = oversubscribed ? bp_now_ns() : -1;
        for (;;) {
            /* yielding, a read can cost a scheduler slice: look at the
             * clock after every few, so a busy machine does not stretch
             * the spin */
            int reads = yielding ? BP_READS_PER_CLOCK_YIELDING : BP_READS_PER_CLOCK;
            for (int i = 0; i < reads; i++) {
                bp_cpu_relax();
                /* acquire: the setter's writes before its store become visible */
                if (flag_done(atomic_load_explicit(&f->value, memory_order_acquire), target,
                              reached)) {
                    /* spin time from the first clock read on; a wait that
                     * ends within its first round adds no clock read */
                    bp_hook_wait_spun(start);
                    return 1;
                }
                /* acquire: what the canceller wrote before it set the word */
                if (stop != NULL && atomic_load_explicit(stop, memory_order_acquire) != 0) {
                    bp_hook_wait_spun(start);
                    return 0;
                }
                /* relaxed: a hint; what a task needs comes with its queue */
                if (watch != NULL && atomic_load_explicit(&watch->on, memory_order_relaxed) &&
                    poll(arg)) {
                    start = -1; /* it ran a task: the spin starts again */
                    i = -1;
                    continue;
                }
                if (yielding)
                    sched_yield();
            }
            int64_t now = bp_now_ns();
            if (start < 0)
                start = now;
            if (adapt < 0)
                spin_ns = wait_spin_ns(&adapt);
            if (adapt && now >= self.next_ns)
                spin_ns = contention_sample(now) ? BP_CONTENDED_SPIN_NS
                                                 : __atomic_load_n(&bp_config.spin_ns,
                                                                   __ATOMIC_RELAXED);
            int64_t waited = now - start;
            if (waited >= spin_ns &&
                (watch == NULL || !atomic_load_explicit(&watch->on, memory_order_relaxed)))
                break;
            yielding = oversubscribed || waited >= BP_YIELD_AFTER_NS;
        }
        int done = flag_sleep(f, target, reached, watch, stop, start);
        if (done >= 0)
            return done;
    }
}

void bp_flag_wait(struct bp_flag *f, uint32_t target)
{
    flag_wait(f, target, 0, NULL, NULL, NULL, NULL);
}

void bp_flag_wait_reached(struct bp_flag *f, uint32_t target)
{
    flag_wait(f, target, 1, NULL, NULL, NULL, NULL);
}

void bp_flag_wait_poll(struct bp_flag *f, uint32_t target, int reached, struct bp_watch *watch,
                       int (*poll)(void *), void *arg)
{
    flag_wait(f, target, reached, watch, poll, arg, NULL);
}

int bp_flag_wait_cancel(struct bp_flag *f, uint32_t target, struct bp_watch *watch,
                        int (*poll)(void *), void *arg, const _Atomic uint64_t *stop)
{
    return flag_wait(f, target, 1, watch, poll, arg, stop);
}

void bp_flag_publish(struct bp_flag *f, uint32_t value)
{
    /* release: the caller's writes before it reach the waiters */
    atomic_store_explicit(&f->value, value, memory_order_release);
}

/* The setter's half of the Dekker pair, after its store and
 * bp_flag_publish_fence: wake the sleepers, if any. Inline: it is on the
 * path of every barrier. */
static inline void wake_sleepers(struct bp_flag *f)
{
    /* seq_cst: the symmetric pair's load; relaxed: the asymmetric one's,
     * which needs only the compiler's order (a seq_cst load after a
     * release store is a fence on Arm) */
    uint32_t n = asymmetric ? atomic_load_explicit(&f->sleepers, memory_order_relaxed)
                            : atomic_load_explicit(&f->sleepers, memory_order_seq_cst);
    if ((n & BP_FLAG_SLEEPERS) == 0)
        return;
    /* release: the change this wakes for, before the bell (flag_sleep) */
    atomic_fetch_add_explicit(&f->sleepers, BP_FLAG_BELL, memory_order_release);
    bp_futex_wake(&f->sleepers, 0x7fffffff);
    bp_hook_wait_wake();
}

void bp_flag_wake_sleepers(struct bp_flag *f) { wake_sleepers(f); }

int bp_watch_raise(struct bp_watch *w)
{
    /* the store, then the load of sleepers: the Dekker pair with
     * flag_sleep, as bp_flag_set's; acquire: a sleeper counted here was
     * counted in its flag's sleepers before, which the caller reads next */
    if (asymmetric) {
        atomic_store_explicit(&w->on, 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst);
        return atomic_load_explicit(&w->sleepers, memory_order_acquire) != 0;
    }
    atomic_store_explicit(&w->on, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst); /* as bp_flag_set's */
    return atomic_load_explicit(&w->sleepers, memory_order_seq_cst) != 0;
}

void bp_flag_publish_fence(void)
{
    if (asymmetric)
        atomic_signal_fence(memory_order_seq_cst); /* the compiler's order */
    else
        atomic_thread_fence(memory_order_seq_cst);
}

void bp_flag_set(struct bp_flag *f, uint32_t value)
{
    /* the store, then the load of sleepers: the Dekker pair with the
     * waiter, symmetric (seq_cst) or not (see the top of the file) */
    if (asymmetric) {
        atomic_store_explicit(&f->value, value, memory_order_release);
        atomic_signal_fence(memory_order_seq_cst);
    } else {
        atomic_store_explicit(&f->value, value, memory_order_seq_cst);
        /* C11 orders a seq_cst store before a later seq_cst load, and so do
         * Arm's STLR and LDAR, but an emulator need not: qemu-user on an
         * x86 host lets the load pass the store (it puts no store-load
         * barrier between them), and the pair then lost wake-ups
         * (test-wait symmetric hung in 10 of 10 runs under qemu-aarch64,
         * in none of 12 with the fence). The symmetric pair serves passive
         * waits and kernels without membarrier, whose sets and sleeps make
         * system calls: the fence costs nothing there. */
        atomic_thread_fence(memory_order_seq_cst);
    }
    wake_sleepers(f);
}

/* The lock word: 0 free, 1 held, 2 held and a thread may sleep on it
 * (Drepper, "Futexes Are Tricky", mutex 2).
 *
 * A waiter spins with exponential backoff before it sleeps (bp_lock_backoff,
 * also used by the nestable lock of omp_api.c): each read of the word takes
 * its cache line from the holder, whose next lock or unlock then waits for
 * the line to come back; a waiter that reads every pause makes every entry
 * of a busy lock pay that transfer. Backing off to BP_LOCK_BACKOFF_MAX
 * pauses between reads (about 2 us on a 63-cycle pause, 5 us on Intel's
 * 140-cycle one) lets a holder that re-enters run on at full speed, at the
 * price of a waiter noticing a free lock up to that much later. With two
 * threads entering a lock around 100 ns of work (bench/overhead LOCK,
 * CRITICAL), the cost per entry fell from 0.10 us to 0.005 us (AMD EPYC,
 * 2 CPUs). Otherwise a lock waits as every other wait does: it sleeps at
 * once under OMP_WAIT_POLICY=passive, spins for bp_config.spin_ns before
 * sleeping (never sleeps when that is unbounded), and yields between reads
 * after BP_YIELD_AFTER_NS, or from the start while the pool is
 * oversubscribed. */
enum { BP_LOCK_BACKOFF_MAX = 128 }; /* pauses between reads, at most */

int bp_lock_backoff(struct bp_lock_backoff *b)
{
    int adapt;
    if (b->backoff == 0) { /* the first call */
        bp_config_load(); /* a lock may be used before any region */
        if (wait_spin_ns(&adapt) == 0)
            return 0;
        b->backoff = 1;
        b->yielding = self.polite || atomic_load_explicit(&bp_oversubscribed, memory_order_relaxed);
        b->start_ns = bp_now_ns();
    } else if (b->backoff == BP_LOCK_BACKOFF_MAX) {
        /* the clock once the reads are far apart: a read of it costs less
         * than the pauses between them */
        int64_t waited = bp_now_ns() - b->start_ns;
        if (waited >= wait_spin_ns(&adapt))
            return 0;
        if (waited >= BP_YIELD_AFTER_NS)
            b->yielding = 1;
    }
    for (int k = 0; k < b->backoff; k++)
        bp_cpu_relax();
    if (b->yielding)
        sched_yield(); /* the holder may need this CPU */
    if (b->backoff < BP_LOCK_BACKOFF_MAX)
        b->backoff *= 2;
    return 1;
}

/* One step of a short wait with no futex behind it: back off as a lock
 * does, then yield. */
static void short_wait_step(struct bp_lock_backoff *b)
{
    if (!bp_lock_backoff(b))
        sched_yield();
}

void *bp_wait_while(_Atomic(void *) *slot, void *busy)
{
    struct bp_lock_backoff b = {0};
    void *v;
    /* acquire: what the maker wrote before it published the pointer */
    while ((v = atomic_load_explicit(slot, memory_order_acquire)) == busy)
        short_wait_step(&b);
    return v;
}

void bp_wait_word(const _Atomic uint32_t *word, uint32_t value)
{
    struct bp_lock_backoff b = {0};
    /* acquire: what the setter wrote before it stored value */
    while (atomic_load_explicit(word, memory_order_acquire) != value)
        short_wait_step(&b);
}

void bp_lock(_Atomic uint32_t *word)
{
    uint32_t c = 0;
    /* acquire: the critical section reads what the last holder wrote */
    if (atomic_compare_exchange_strong_explicit(word, &c, 1, memory_order_acquire,
                                                memory_order_relaxed))
        return;
    struct bp_lock_backoff b = {0};
    while (bp_lock_backoff(&b)) {
        c = 0;
        if (atomic_load_explicit(word, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(word, &c, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
    }
    /* acquire: as above; 2 tells the holder to wake us */
    while (atomic_exchange_explicit(word, 2, memory_order_acquire) != 0)
        bp_futex_wait(word, 2);
}

int bp_trylock(_Atomic uint32_t *word)
{
    uint32_t c = 0;
    /* acquire: as in bp_lock */
    return atomic_compare_exchange_strong_explicit(word, &c, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

void bp_unlock(_Atomic uint32_t *word)
{
    /* release: publishes the critical section to the next holder */
    if (atomic_exchange_explicit(word, 0, memory_order_release) == 2)
        bp_futex_wake(word, 1);
}
