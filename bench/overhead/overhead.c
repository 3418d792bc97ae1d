/* overhead.c: the cost of OpenMP synchronisation constructs, measured in the
 * manner of the EPCC syncbench, to compare runtimes that run the same code
 * (clang + libomp, gcc + libgomp, clang + libbuddypool).
 *
 * Method. A trial times `inner` repetitions of a construct wrapped around a
 * short calibrated delay (a busy loop of about --delay-ns), then the same
 * delays run serially on one thread (the reference). The overhead of one
 * construct is (construct time - reference time) / repetitions. Each
 * construct gets `trials` trials, construct and reference alternating so a
 * change in machine load hits both; the table gives the median and the best
 * trial. Unless --inner is given, `inner` is chosen per construct so that a
 * trial takes about TARGET_TRIAL_MS (EPCC picks its repetitions the same way).
 *
 * The constructs, T being the team size:
 *   PARALLEL      `parallel` around the delay, repeated
 *   FOR           `for schedule(static)` over T iterations of the delay,
 *                 repeated inside one enclosing parallel region
 *   PARALLEL_FOR  `parallel for schedule(static)` over T iterations, repeated
 *   BARRIER       delay then `barrier`, repeated inside one parallel region
 *   SINGLE        `single` around the delay, repeated inside one region
 *   CRITICAL      `critical` around the delay, repeated by every thread
 *                 inside one region: a repetition is one round of T entries,
 *                 its reference T delays; the overhead is reported per entry,
 *                 (time - reference) / (inner * T), as EPCC reports it
 *   REDUCTION     `parallel reduction(+:x)` around the delay, repeated
 *   LOCK          omp_set_lock/omp_unset_lock around the delay, as CRITICAL
 *   ORDERED       `for ordered schedule(static,1)` over inner * T
 *                 iterations inside one region, an `ordered` block around
 *                 each delay: per entry, as CRITICAL (EPCC's ORDERED); the
 *                 blocks must run in iteration order, and are checked to
 *   FOR_DYNAMIC   `for schedule(dynamic,1)` over 4T iterations of the delay,
 *                 repeated inside one region; reference 4 delays (the loop's
 *                 share of one thread), overhead per loop
 *   FOR_GUIDED    the same with schedule(guided,1)
 *
 * Nothing here may be removed or hoisted by the compiler: the delay is a
 * noinline function whose result is compared with a value read from a
 * volatile (so the loop must run), and every construct is a call into the
 * runtime. Counters checked after each trial make sure each construct ran
 * the number of times it should (a runtime that skipped one would look fast).
 *
 * Before measuring, parallel regions run until each thread of the team has a
 * CPU of its own (see warm_up()); the table shows, per construct, how often
 * the process was preempted during its trials: a busy machine shows there.
 *
 * Output: a table, then one line per construct for scripts:
 *   RESULT overhead construct=NAME threads=T median_us=X best_us=Y */
#define _GNU_SOURCE /* sched_getcpu, sched_getaffinity */
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../cli.h"
#include "../delay.h"

enum {
    DEFAULT_TRIALS = 20,
    QUICK_TRIALS = 5,
    DEFAULT_DELAY_NS = 100,
    MAX_INNER = 100000000,
};
static const double TARGET_TRIAL_MS = 4.0;       /* a trial, unless --inner */
static const double QUICK_TARGET_TRIAL_MS = 1.0; /* the same under --quick */
static const double WARM_UP_MIN_MS = 20.0;       /* see warm_up() */
static const double WARM_UP_MAX_MS = 1000.0;
static const double QUICK_WARM_UP_MAX_MS = 250.0;

/* ---- the delay: ../delay.h ------------------------------------------------ */

static long delay_iterations; /* calibrated: iterations for --delay-ns */

/* ---- the constructs ------------------------------------------------------- */

static int team_size; /* T: the team a parallel region gets */

/* Checked after each trial: how often the body of a construct ran. */
static long ran_single, ran_critical;
static long ran_reduction, ran_lock, ran_ordered;
static long ordered_out_of_turn;     /* ORDERED blocks that ran out of order */
static volatile int ordered_inside; /* an ORDERED block is running */

/* The iterations i a worksharing loop ran, over all threads and
 * repetitions: how many, their sum and their sum of squares (of i + 1).
 * Each must match every iteration run once per repetition: a runtime that
 * ran one iteration twice and skipped another would not. */
struct tally {
    long n, sum, squares;
};
static struct tally ran_for, ran_dynamic, ran_guided;

static void tally_add(struct tally *t, long i)
{
    t->n++;
    t->sum += i + 1;
    t->squares += (i + 1) * (i + 1);
}

/* Adds a thread's tally to the shared one. */
static void tally_merge(struct tally *into, const struct tally *mine)
{
#pragma omp atomic
    into->n += mine->n;
#pragma omp atomic
    into->sum += mine->sum;
#pragma omp atomic
    into->squares += mine->squares;
}

/* 1 if t is `inner` runs of iterations 0..n-1, each once. */
static int tally_is(const struct tally *t, long inner, long n)
{
    return t->n == inner * n && t->sum == inner * n * (n + 1) / 2 &&
           t->squares == inner * n * (n + 1) * (2 * n + 1) / 6;
}

enum { SCHEDULE_ITERS_PER_THREAD = 4 }; /* FOR_DYNAMIC, FOR_GUIDED */

/* Each returns the seconds `inner` repetitions took. */

static double run_reference(long inner)
{
    double t0 = now_s();
    for (long j = 0; j < inner; j++)
        delay(delay_iterations);
    return now_s() - t0;
}

static double run_critical_reference(long inner)
{
    return run_reference(inner * team_size);
}

static double run_schedule_reference(long inner)
{
    return run_reference(inner * SCHEDULE_ITERS_PER_THREAD);
}

static double run_parallel(long inner)
{
    double t0 = now_s();
    for (long j = 0; j < inner; j++) {
#pragma omp parallel
        delay(delay_iterations);
    }
    return now_s() - t0;
}

static double run_for(long inner)
{
    int n = team_size;
    ran_for = (struct tally){0};
    double t0 = now_s();
#pragma omp parallel
    {
        struct tally mine = {0};
        for (long j = 0; j < inner; j++) {
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++) {
                delay(delay_iterations);
                tally_add(&mine, i);
            }
        }
        tally_merge(&ran_for, &mine);
    }
    return now_s() - t0;
}

static double run_parallel_for(long inner)
{
    int n = team_size;
    double t0 = now_s();
    for (long j = 0; j < inner; j++) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++)
            delay(delay_iterations);
    }
    return now_s() - t0;
}

static double run_barrier(long inner)
{
    double t0 = now_s();
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        delay(delay_iterations);
#pragma omp barrier
    }
    return now_s() - t0;
}

static double run_single(long inner)
{
    ran_single = 0;
    double t0 = now_s();
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
#pragma omp single
        {
            delay(delay_iterations);
            ran_single++; /* one thread; the single's barrier publishes it */
        }
    }
    return now_s() - t0;
}

static double run_critical(long inner)
{
    ran_critical = 0;
    double t0 = now_s();
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
#pragma omp critical
        {
            delay(delay_iterations);
            ran_critical++;
        }
    }
    return now_s() - t0;
}

static double run_reduction(long inner)
{
    long x = 0;
    double t0 = now_s();
    for (long j = 0; j < inner; j++) {
#pragma omp parallel reduction(+ : x)
        {
            delay(delay_iterations);
            x += 1;
        }
    }
    double t = now_s() - t0;
    ran_reduction = x;
    return t;
}

static omp_lock_t bench_lock;

static double run_lock(long inner)
{
    ran_lock = 0;
    double t0 = now_s();
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
        omp_set_lock(&bench_lock);
        delay(delay_iterations);
        ran_lock++;
        omp_unset_lock(&bench_lock);
    }
    return now_s() - t0;
}

static double run_ordered(long inner)
{
    long n = inner * team_size, next = 0;
    ran_ordered = 0;
    ordered_out_of_turn = 0;
    double t0 = now_s();
#pragma omp parallel
    {
#pragma omp for ordered schedule(static, 1)
        for (long j = 0; j < n; j++) {
#pragma omp ordered
            {
                /* checked on entry: a block let in early finds the one
                 * before it still running */
                if (j != next || ordered_inside)
                    ordered_out_of_turn++;
                ordered_inside = 1;
                delay(delay_iterations);
                ordered_inside = 0;
                next = j + 1;
                ran_ordered++;
            }
        }
    }
    return now_s() - t0;
}

/* FOR_DYNAMIC and FOR_GUIDED: the two differ only in the schedule clause,
 * which must be written out in each pragma. */
#define RUN_SCHEDULED_LOOP(result, schedule_clause, inner)                      \
    do {                                                                         \
        int n = team_size * SCHEDULE_ITERS_PER_THREAD;                           \
        result = (struct tally){0};                                              \
        double t0 = now_s();                                                     \
        _Pragma("omp parallel")                                                  \
        {                                                                        \
            struct tally mine = {0};                                             \
            for (long j = 0; j < (inner); j++) {                                 \
                _Pragma(schedule_clause)                                         \
                for (int i = 0; i < n; i++) {                                    \
                    delay(delay_iterations);                                     \
                    tally_add(&mine, i);                                         \
                }                                                                \
            }                                                                    \
            tally_merge(&result, &mine);                                         \
        }                                                                        \
        return now_s() - t0;                                                     \
    } while (0)

static double run_for_dynamic(long inner)
{
    RUN_SCHEDULED_LOOP(ran_dynamic, "omp for schedule(dynamic, 1)", inner);
}

static double run_for_guided(long inner)
{
    RUN_SCHEDULED_LOOP(ran_guided, "omp for schedule(guided, 1)", inner);
}

/* A construct's body ran as often as it should have; 0 if not (message). */
static int check_counts(const char *name, long inner);

struct construct {
    const char *name;
    double (*run)(long inner);
    double (*reference)(long inner);
    int entry_per_thread; /* a repetition is T entries (CRITICAL), else one */
};

static struct construct constructs[] = {
    {"PARALLEL", run_parallel, run_reference, 0},
    {"FOR", run_for, run_reference, 0},
    {"PARALLEL_FOR", run_parallel_for, run_reference, 0},
    {"BARRIER", run_barrier, run_reference, 0},
    {"SINGLE", run_single, run_reference, 0},
    {"CRITICAL", run_critical, run_critical_reference, 1},
    {"REDUCTION", run_reduction, run_reference, 0},
    {"LOCK", run_lock, run_critical_reference, 1},
    {"ORDERED", run_ordered, run_critical_reference, 1},
    {"FOR_DYNAMIC", run_for_dynamic, run_schedule_reference, 0},
    {"FOR_GUIDED", run_for_guided, run_schedule_reference, 0},
};
enum { NCONSTRUCTS = sizeof constructs / sizeof constructs[0] };

static int check_counts(const char *name, long inner)
{
    const struct tally *loop = NULL;
    long loop_n = 0; /* iterations of one of its loops */
    if (strcmp(name, "FOR") == 0)
        loop = &ran_for, loop_n = team_size;
    else if (strcmp(name, "FOR_DYNAMIC") == 0)
        loop = &ran_dynamic, loop_n = (long)team_size * SCHEDULE_ITERS_PER_THREAD;
    else if (strcmp(name, "FOR_GUIDED") == 0)
        loop = &ran_guided, loop_n = (long)team_size * SCHEDULE_ITERS_PER_THREAD;
    if (loop != NULL && !tally_is(loop, inner, loop_n)) {
        fprintf(stderr,
                "overhead: %s ran %ld iterations (index sum %ld, sum of squares %ld); expected "
                "%ld runs of iterations 0..%ld, each once (inner %ld, team %d)\n",
                name, loop->n, loop->sum, loop->squares, inner, loop_n - 1, inner, team_size);
        return 0;
    }
    long want = 0, got = 0;
    if (strcmp(name, "SINGLE") == 0)
        want = inner, got = ran_single;
    else if (strcmp(name, "CRITICAL") == 0)
        want = inner * team_size, got = ran_critical;
    else if (strcmp(name, "REDUCTION") == 0)
        want = inner * team_size, got = ran_reduction;
    else if (strcmp(name, "LOCK") == 0)
        want = inner * team_size, got = ran_lock;
    else if (strcmp(name, "ORDERED") == 0)
        want = inner * team_size, got = ran_ordered;
    if (ordered_out_of_turn != 0 && strcmp(name, "ORDERED") == 0) {
        fprintf(stderr, "overhead: ORDERED: %ld ordered blocks ran out of iteration order or "
                        "while another ran\n",
                ordered_out_of_turn);
        return 0;
    }
    if (want != got) {
        fprintf(stderr, "overhead: %s ran its body %ld times, expected %ld (inner %ld, team %d)\n",
                name, got, want, inner, team_size);
        return 0;
    }
    return 1;
}

/* ---- where the team runs ------------------------------------------------ */

/* A team's threads may share a CPU while another CPU idles: right after the
 * threads start (the caller of a region is not pinned by any of the
 * runtimes, and a pinned worker may sit on the caller's CPU), or after the
 * kernel moved a thread for another process. Every construct then pays for
 * time slicing, tens of microseconds. So the benchmark warms up until each
 * thread has a CPU of its own, and looks again after each construct. */
enum { CPU_SLOT_STRIDE = 16 }; /* ints: one 64-byte line per thread */
static int *team_cpus;         /* CPU of thread i at [i * CPU_SLOT_STRIDE] */
static int enough_cpus;        /* the process may run on team_size CPUs or more */

/* Runs `regions` parallel regions, noting where each thread runs; returns 1
 * if two threads of the team were on one CPU in the last one. */
static int team_shares_cpu(int regions)
{
    for (int j = 0; j < regions; j++) {
#pragma omp parallel
        {
            int tid = omp_get_thread_num();
            if (tid < team_size)
                team_cpus[tid * CPU_SLOT_STRIDE] = sched_getcpu();
        }
    }
    for (int i = 0; i < team_size; i++)
        for (int k = 0; k < i; k++)
            if (team_cpus[i * CPU_SLOT_STRIDE] == team_cpus[k * CPU_SLOT_STRIDE])
                return 1;
    return 0;
}

/* Runs parallel regions for at least min_ms, and on until every thread of
 * the team runs on a CPU of its own (when there are CPUs enough) or max_ms
 * have passed. Returns the milliseconds it took. */
static double warm_up(double min_ms, double max_ms)
{
    double t0 = now_s(), ms;
    int shared;
    do {
        shared = team_shares_cpu(100);
        ms = (now_s() - t0) * 1e3;
    } while (ms < max_ms && (ms < min_ms || (enough_cpus && shared)));
    return ms;
}

/* The round trip of one cache line between threads 0 and 1 in nanoseconds,
 * with plain C11 atomics: the least any runtime's hand-off between two
 * threads can cost. It depends on where the two CPUs are (same core complex
 * or not; on a virtual machine, where the host runs them), which can change
 * from run to run, and the constructs' costs change with it. 0 if the team
 * has one thread, -1 if thread 1 did not answer within 200 ms (no CPU of its
 * own). */
static double cache_line_round_trip_ns(void)
{
    enum { ROUND_TRIPS = 20000 };
    static _Alignas(64) _Atomic long ball;
    double ns = 0;
    if (team_size < 2)
        return 0;
    atomic_store_explicit(&ball, 0, memory_order_relaxed); /* before the fork */
#pragma omp parallel
    {
        int tid = omp_get_thread_num();
        if (tid == 0) {
            double t0 = now_s();
            long k;
            for (k = 0; k < ROUND_TRIPS; k++) {
                /* release/acquire: each throw is seen only after the catch
                 * before it */
                atomic_store_explicit(&ball, 2 * k + 1, memory_order_release);
                long spins = 0;
                while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * k + 2)
                    if (++spins % 4096 == 0 && now_s() - t0 > 0.2)
                        break;
                if (atomic_load_explicit(&ball, memory_order_acquire) != 2 * k + 2)
                    break;
            }
            ns = k == ROUND_TRIPS ? (now_s() - t0) / ROUND_TRIPS * 1e9 : -1;
            atomic_store_explicit(&ball, -1, memory_order_release); /* game over */
        } else if (tid == 1) {
            for (long k = 0; k < ROUND_TRIPS; k++) {
                long v;
                while ((v = atomic_load_explicit(&ball, memory_order_acquire)) != 2 * k + 1 &&
                       v != -1)
                    ;
                if (v == -1)
                    break;
                atomic_store_explicit(&ball, 2 * k + 2, memory_order_release);
            }
        }
    }
    return ns;
}

/* ---- measuring ------------------------------------------------------------ */

struct result {
    double median_us, best_us; /* overhead per construct (per entry: CRITICAL) */
    double reference_us;       /* median reference time per repetition */
    long inner;
    long preempted; /* involuntary context switches of the process in the trials */
};

/* Involuntary context switches of all the process's threads so far: a thread
 * of the team taken off its CPU for another thread (of this process or not). */
static long involuntary_switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_nivcsw : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static long scale_inner(long inner, double t, double target_ms)
{
    double scaled = (double)inner * target_ms * 1e-3 / (t > 0 ? t : 1e-9);
    if (scaled < 1)
        return 1;
    if (scaled > MAX_INNER)
        return MAX_INNER;
    return (long)scaled;
}

/* Repetitions so that a trial takes about target_ms: double a probe until it
 * takes a measurable time, scale, then check at the scaled count (a first
 * use can be slow: a runtime allocating a lock, or waking sleeping threads)
 * and rescale while that is off by more than a factor of two. */
static long choose_inner(const struct construct *c, double target_ms)
{
    long inner = 8;
    double t = c->run(inner);
    while (t < target_ms * 1e-3 / 16 && inner < MAX_INNER / 2) {
        inner *= 2;
        t = c->run(inner);
    }
    inner = scale_inner(inner, t, target_ms);
    for (int k = 0; k < 4; k++) {
        long next = scale_inner(inner, c->run(inner), target_ms);
        int settled = next <= 2 * inner && 2 * next >= inner;
        inner = next;
        if (settled)
            break;
    }
    return inner;
}

static int measure(const struct construct *c, int trials, long inner_flag, double target_ms,
                   struct result *r)
{
    long inner = inner_flag > 0 ? inner_flag : choose_inner(c, target_ms);
    if (inner_flag > 0)
        c->run(inner < 64 ? inner : 64); /* warm up */
    double *test = malloc(sizeof(double) * (size_t)trials);
    double *ref = malloc(sizeof(double) * (size_t)trials);
    double *over = malloc(sizeof(double) * (size_t)trials);
    if (test == NULL || ref == NULL || over == NULL) {
        fprintf(stderr, "overhead: out of memory for %d trials\n", trials);
        exit(1);
    }
    int ok = 1;
    long switches = involuntary_switches();
    for (int k = 0; k < trials && ok; k++) {
        ref[k] = c->reference(inner);
        test[k] = c->run(inner);
        ok = check_counts(c->name, inner);
    }
    if (ok) {
        double entries = (double)inner * (c->entry_per_thread ? team_size : 1);
        double ref_s = median(ref, trials);
        for (int k = 0; k < trials; k++)
            over[k] = (test[k] - ref_s) / entries * 1e6;
        r->best_us = over[0];
        for (int k = 1; k < trials; k++)
            if (over[k] < r->best_us)
                r->best_us = over[k];
        r->median_us = median(over, trials);
        r->reference_us = ref_s / (double)inner * 1e6;
        r->inner = inner;
        r->preempted = involuntary_switches() - switches;
    }
    free(test);
    free(ref);
    free(over);
    return ok;
}

/* ---- command line --------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: overhead [--trials N] [--inner N] [--delay-ns N] [--quick]\n"
            "                [--only NAME[,NAME...]]\n"
            "  --trials N     trials per construct (default %d; %d with --quick)\n"
            "  --inner N      repetitions per trial (default: about %.0f ms a trial,\n"
            "                 %.0f ms with --quick)\n"
            "  --delay-ns N   the delay inside each construct (default %d ns)\n"
            "  --quick        fewer, shorter trials: a look in a second or so\n"
            "  --only NAMES   only these constructs: PARALLEL, FOR, PARALLEL_FOR,\n"
            "                 BARRIER, SINGLE, CRITICAL, REDUCTION, LOCK, ORDERED,\n"
            "                 FOR_DYNAMIC, FOR_GUIDED\n"
            "Threads: OMP_NUM_THREADS or the runtime's default.\n",
            DEFAULT_TRIALS, QUICK_TRIALS, TARGET_TRIAL_MS, QUICK_TARGET_TRIAL_MS,
            DEFAULT_DELAY_NS);
}

static void bad_flag(const char *flag, const char *value, const char *want)
{
    fprintf(stderr, "overhead: bad value for %s: '%s' (%s)\n", flag, value, want);
    exit(2);
}

static long parse_long(const char *flag, const char *value, long lo, long hi)
{
    return cli_parse_long("overhead", flag, value, lo, hi);
}

/* Marks the constructs named in a comma-separated list. */
static void parse_only(const char *value, int *selected)
{
    if (*value == '\0')
        bad_flag("--only", value, "want construct names separated by commas");
    const char *p = value;
    while (1) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int found = 0;
        for (int i = 0; i < NCONSTRUCTS; i++) {
            const char *name = constructs[i].name;
            if (strlen(name) != len)
                continue;
            int same = 1;
            for (size_t k = 0; k < len && same; k++) {
                char a = p[k] >= 'a' && p[k] <= 'z' ? (char)(p[k] - 'a' + 'A') : p[k];
                char b = a == '-' ? '_' : a; /* PARALLEL-FOR or parallel_for */
                same = b == name[k];
            }
            if (same) {
                selected[i] = 1;
                found = 1;
            }
        }
        if (!found) {
            fprintf(stderr, "overhead: bad value for --only: '%.*s' is not a construct (want",
                    (int)len, p);
            for (int i = 0; i < NCONSTRUCTS; i++)
                fprintf(stderr, "%s %s", i == 0 ? "" : i + 1 < NCONSTRUCTS ? "," : " or",
                        constructs[i].name);
            fprintf(stderr, ")\n");
            exit(2);
        }
        if (comma == NULL)
            break;
        p = comma + 1;
    }
}

/* The value of a flag given as `--flag VALUE` or `--flag=VALUE`; NULL if
 * argv[*i] is not this flag. */
static const char *flag_value(int argc, char **argv, int *i, const char *flag)
{
    size_t n = strlen(flag);
    if (strncmp(argv[*i], flag, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "overhead: %s needs a value\n", flag);
        exit(2);
    }
    return argv[++*i];
}

int main(int argc, char **argv)
{
    long trials = -1, inner = 0, delay_ns = DEFAULT_DELAY_NS;
    int quick = 0, any_only = 0;
    int selected[NCONSTRUCTS] = {0};
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = flag_value(argc, argv, &i, "--trials")) != NULL)
            trials = parse_long("--trials", v, 1, 100000);
        else if ((v = flag_value(argc, argv, &i, "--inner")) != NULL)
            inner = parse_long("--inner", v, 1, MAX_INNER);
        else if ((v = flag_value(argc, argv, &i, "--delay-ns")) != NULL)
            delay_ns = parse_long("--delay-ns", v, 0, 1000000);
        else if ((v = flag_value(argc, argv, &i, "--only")) != NULL) {
            parse_only(v, selected);
            any_only = 1;
        } else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "overhead: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (trials < 0)
        trials = quick ? QUICK_TRIALS : DEFAULT_TRIALS;
    double target_ms = quick ? QUICK_TARGET_TRIAL_MS : TARGET_TRIAL_MS;

    omp_init_lock(&bench_lock);
    /* Calibrated before the first region, so no runtime thread is busy. */
    delay_iterations = calibrate_delay(delay_ns);
    double delay_us = time_delay_call(delay_iterations) * 1e6;

    int max_threads = omp_get_max_threads();
#pragma omp parallel
    if (omp_get_thread_num() == 0)
        team_size = omp_get_num_threads();

    team_cpus = calloc((size_t)team_size * CPU_SLOT_STRIDE, sizeof *team_cpus);
    if (team_cpus == NULL) {
        fprintf(stderr, "overhead: out of memory for %d threads\n", team_size);
        return 1;
    }
    cpu_set_t allowed;
    enough_cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
                  CPU_COUNT(&allowed) >= team_size;
    double warm_ms = warm_up(WARM_UP_MIN_MS, quick ? QUICK_WARM_UP_MAX_MS : WARM_UP_MAX_MS);
    int shared_after_warm_up = team_shares_cpu(1);
    double round_trip_ns = shared_after_warm_up ? -1 : cache_line_round_trip_ns();

    printf("overhead: OpenMP construct overhead, EPCC syncbench method\n");
    printf("threads: omp_get_max_threads() = %d, team size = %d\n", max_threads, team_size);
    printf("delay: %ld iterations = %.4f us (asked %ld ns)\n", delay_iterations, delay_us,
           delay_ns);
    if (inner > 0)
        printf("trials: %ld per construct, %ld repetitions each (--inner)\n", trials, inner);
    else
        printf("trials: %ld per construct, repetitions for about %.1f ms each\n", trials,
               target_ms);
    printf("warm-up: %.1f ms of parallel regions; team on CPUs", warm_ms);
    for (int i = 0; i < team_size; i++)
        printf("%s%d", i ? "," : " ", team_cpus[i * CPU_SLOT_STRIDE]);
    printf("\n");
    if (round_trip_ns > 0)
        printf("cache line round trip, threads 0 and 1: %.0f ns (plain atomics; the floor\n"
               "of a hand-off; it varies with where the CPUs are, and the costs with it)\n",
               round_trip_ns);
    if (shared_after_warm_up && enough_cpus)
        fprintf(stderr, "overhead: warning: threads of the team still share a CPU after %.0f ms "
                        "of warm-up: the overheads include time slicing\n", warm_ms);
    printf("\n%-13s %12s %12s %14s %10s %8s\n", "construct", "median us", "best us",
           "reference us", "inner", "preempt");

    struct result results[NCONSTRUCTS];
    for (int i = 0; i < NCONSTRUCTS; i++) {
        if (any_only && !selected[i])
            continue;
        if (!measure(&constructs[i], (int)trials, inner, target_ms, &results[i]))
            return 1;
        int shared = enough_cpus && team_shares_cpu(1);
        printf("%-13s %12.4f %12.4f %14.4f %10ld %8ld%s\n", constructs[i].name,
               results[i].median_us, results[i].best_us, results[i].reference_us,
               results[i].inner, results[i].preempted, shared ? "  team shared a CPU after" : "");
        fflush(stdout);
    }
    printf("(overhead per construct: (time - reference) / repetitions; reference: the\n"
           " same delays run serially, per repetition; CRITICAL, LOCK, ORDERED: per\n"
           " entry, a repetition being one round of %d entries with %d delays of\n"
           " reference; FOR_DYNAMIC, FOR_GUIDED: per loop of %d iterations, %d\n"
           " delays of reference;\n"
           " preempt: involuntary context switches of the process during the trials,\n"
           " more than a few mean the numbers include time slicing)\n\n",
           team_size, team_size, team_size * SCHEDULE_ITERS_PER_THREAD, SCHEDULE_ITERS_PER_THREAD);
    for (int i = 0; i < NCONSTRUCTS; i++) {
        if (any_only && !selected[i])
            continue;
        printf("RESULT overhead construct=%s threads=%d median_us=%.4f best_us=%.4f\n",
               constructs[i].name, team_size, results[i].median_us, results[i].best_us);
    }
    return 0;
}
