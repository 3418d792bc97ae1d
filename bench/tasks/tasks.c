/* tasks.c: the cost of OpenMP tasks, measured in the manner of the EPCC
 * taskbench, to compare runtimes that run the same code (clang + libomp,
 * gcc + libgomp, clang or gcc objects + libbuddypool).
 *
 * Method (as bench/overhead): a trial times a test that runs `inner` tasks
 * per thread, each around a short calibrated delay (--delay-ns), then the
 * same `inner` delays run serially on one thread (the reference); the
 * overhead of one task is (test time - reference time) / inner. Test and
 * reference alternate, `trials` times; the table gives the median and the
 * best trial. `inner` is chosen per test so that a trial takes about
 * TARGET_TRIAL_MS unless --inner is given.
 *
 * The tests, T being the team size:
 *   PARALLEL_TASK  every thread makes inner tasks; the region's end
 *                  completes them
 *   MASTER_TASK    the primary thread makes inner * T tasks (master, no
 *                  barrier after): the others run them
 *   TASK_WAIT      every thread makes a task and waits for it, inner times
 *   NESTED_TASK    every thread makes inner / NEST tasks that each make NEST
 *                  tasks and wait for them (only the inner ones delay)
 *   TASKLOOP       one thread's taskloop of inner * T iterations, a task
 *                  each (grainsize(1))
 *   FIB            fib(FIB_N) with a task per call above FIB_CUTOFF and a
 *                  taskwait, against the serial fib: the overhead is
 *                  (test - serial / T) per task made, T the team size
 * Counters checked after each trial make sure every task ran once (a
 * runtime that dropped tasks would look fast), and fib's answer is checked.
 *
 * Output: a table, then one line per test for scripts:
 *   RESULT tasks test=NAME threads=T median_us=X best_us=Y */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli.h"
#include "../delay.h"

enum {
    DEFAULT_TRIALS = 15,
    QUICK_TRIALS = 3,
    DEFAULT_DELAY_NS = 100,
    MAX_INNER = 10000000,
    NEST = 8,
    FIB_N = 30,
    FIB_CUTOFF = 12,
};
static const double TARGET_TRIAL_MS = 5.0;
static const double QUICK_TARGET_TRIAL_MS = 1.0;

static long delay_iterations;
static int team_size;

/* Tasks run in the trial, counted per thread on lines of their own (one
 * shared counter would add its cache-line transfers to every task). */
enum { MAX_COUNTED = 256 };
static struct {
    _Alignas(128) long n;
} ran_by[MAX_COUNTED];

static void task_body(void)
{
    delay(delay_iterations);
    ran_by[omp_get_thread_num() % MAX_COUNTED].n++;
}

static long ran_total(void)
{
    long n = 0;
    for (int i = 0; i < MAX_COUNTED; i++)
        n += ran_by[i].n;
    return n;
}

static double run_reference(long inner)
{
    double t0 = now_s();
    for (long j = 0; j < inner; j++)
        delay(delay_iterations);
    return now_s() - t0;
}

static double run_parallel_task(long inner)
{
    double t0 = now_s();
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
#pragma omp task
        task_body();
    }
    return now_s() - t0;
}

static double run_master_task(long inner)
{
    double t0 = now_s();
#pragma omp parallel
#pragma omp master
    for (long j = 0; j < inner * team_size; j++) {
#pragma omp task
        task_body();
    }
    return now_s() - t0;
}

static double run_task_wait(long inner)
{
    double t0 = now_s();
#pragma omp parallel
    for (long j = 0; j < inner; j++) {
#pragma omp task
        task_body();
#pragma omp taskwait
    }
    return now_s() - t0;
}

static double run_nested_task(long inner)
{
    double t0 = now_s();
#pragma omp parallel
    for (long j = 0; j < inner / NEST; j++) {
#pragma omp task
        {
            for (int k = 0; k < NEST; k++) {
#pragma omp task
                task_body();
            }
#pragma omp taskwait
        }
    }
    return now_s() - t0;
}

static double run_taskloop(long inner)
{
    double t0 = now_s();
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(1)
    for (long j = 0; j < inner * team_size; j++)
        task_body();
    return now_s() - t0;
}

static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

static long fib_tasks_made;

static long fib(int n)
{
    if (n < FIB_CUTOFF)
        return fib_serial(n);
    long a, b;
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

/* Tasks fib(n) makes: two per call at or above the cutoff. */
static long fib_count(int n) { return n < FIB_CUTOFF ? 0 : 2 + fib_count(n - 1) + fib_count(n - 2); }

static long fib_answer;

static double run_fib(long inner)
{
    double t0 = now_s();
    for (long j = 0; j < inner; j++) {
#pragma omp parallel
#pragma omp single
        fib_answer = fib(FIB_N);
    }
    return now_s() - t0;
}

/* The serial fib, divided over the team: the ideal time. */
static double run_fib_reference(long inner)
{
    double t0 = now_s();
    for (long j = 0; j < inner; j++)
        fib_answer = fib_serial(FIB_N);
    return (now_s() - t0) / team_size;
}

struct test {
    const char *name;
    double (*run)(long inner);
    double (*reference)(long inner);
    long (*tasks)(long inner); /* tasks one trial must run */
    long (*per)(long inner);   /* what the overhead is divided by */
};

static long tasks_per_thread(long inner) { return inner * team_size; }
static long tasks_nested(long inner) { return inner / NEST * NEST * team_size; }
static long tasks_none(long inner) { (void)inner; return -1; }
static long per_inner(long inner) { return inner; }
static long per_nested(long inner) { return inner / NEST * NEST; }
static long per_fib(long inner) { return inner * fib_count(FIB_N); }

static const struct test tests[] = {
    {"PARALLEL_TASK", run_parallel_task, run_reference, tasks_per_thread, per_inner},
    {"MASTER_TASK", run_master_task, run_reference, tasks_per_thread, per_inner},
    {"TASK_WAIT", run_task_wait, run_reference, tasks_per_thread, per_inner},
    {"NESTED_TASK", run_nested_task, run_reference, tasks_nested, per_nested},
    {"TASKLOOP", run_taskloop, run_reference, tasks_per_thread, per_inner},
    {"FIB", run_fib, run_fib_reference, tasks_none, per_fib},
};
enum { NTESTS = sizeof tests / sizeof tests[0] };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One test: the inner count for target_ms, then the trials; 0, or 1 when a
 * trial ran the wrong number of tasks or got fib wrong. */
static int measure(const struct test *t, long trials, long inner, double target_ms,
                   double *median_us, double *best_us)
{
    if (inner <= 0) {
        long probe = strcmp(t->name, "FIB") == 0 ? 1 : NEST;
        double s = t->run(probe);
        while (s < target_ms * 1e-3 / 8 && probe < MAX_INNER / 2) {
            probe *= 2;
            s = t->run(probe);
        }
        inner = (long)((double)probe * target_ms * 1e-3 / (s > 0 ? s : 1e-9));
        if (inner < (strcmp(t->name, "FIB") == 0 ? 1 : NEST))
            inner = strcmp(t->name, "FIB") == 0 ? 1 : NEST;
        if (inner > MAX_INNER)
            inner = MAX_INNER;
    }
    double *over = malloc(sizeof *over * (size_t)trials);
    if (over == NULL) {
        fprintf(stderr, "tasks: out of memory\n");
        exit(1);
    }
    int bad = 0;
    for (long k = 0; k < trials; k++) {
        memset(ran_by, 0, sizeof ran_by);
        double test = t->run(inner);
        long want = t->tasks(inner), ran = ran_total();
        if (want >= 0 && ran != want) {
            fprintf(stderr, "tasks: %s ran %ld tasks, not %ld\n", t->name, ran, want);
            bad = 1;
        }
        if (strcmp(t->name, "FIB") == 0 && fib_answer != fib_serial(FIB_N)) {
            fprintf(stderr, "tasks: FIB computed %ld\n", fib_answer);
            bad = 1;
        }
        double ref = t->reference(inner);
        over[k] = (test - ref) / (double)t->per(inner) * 1e6;
    }
    qsort(over, (size_t)trials, sizeof *over, cmp_double);
    *median_us = over[trials / 2];
    *best_us = over[0];
    free(over);
    return bad;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tasks [--trials N] [--inner N] [--delay-ns N] [--only NAME[,NAME...]] "
               "[--quick]\n"
               "  tests: PARALLEL_TASK MASTER_TASK TASK_WAIT NESTED_TASK TASKLOOP FIB\n");
}

int main(int argc, char **argv)
{
    long trials = -1, inner = 0, delay_ns = DEFAULT_DELAY_NS;
    int quick = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--trials") == 0) {
            trials = cli_parse_long("tasks", a, v, 1, 100000);
            i++;
        } else if (strcmp(a, "--inner") == 0) {
            inner = cli_parse_long("tasks", a, v, 1, MAX_INNER);
            i++;
        } else if (strcmp(a, "--delay-ns") == 0) {
            delay_ns = cli_parse_long("tasks", a, v, 0, 1000000);
            i++;
        } else if (strcmp(a, "--only") == 0) {
            if (v == NULL) {
                fprintf(stderr, "tasks: --only needs a list of tests\n");
                return 2;
            }
            only = v;
            i++;
        } else if (strcmp(a, "--quick") == 0) {
            quick = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "tasks: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (only != NULL) { /* every name must be a test's */
        char buf[256];
        snprintf(buf, sizeof buf, "%s", only);
        for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
            int known = 0;
            for (int k = 0; k < NTESTS; k++)
                known |= strcmp(tok, tests[k].name) == 0;
            if (!known) {
                fprintf(stderr, "tasks: unknown test '%s' in --only\n", tok);
                usage(stderr);
                return 2;
            }
        }
    }
    if (trials < 0)
        trials = quick ? QUICK_TRIALS : DEFAULT_TRIALS;
    delay_iterations = calibrate_delay(delay_ns);
#pragma omp parallel
#pragma omp master
    team_size = omp_get_num_threads();
    printf("tasks: OpenMP task overhead, EPCC taskbench method\n");
    printf("threads: %d; delay %ld ns (%ld iterations); %ld trials per test\n", team_size,
           delay_ns, delay_iterations, trials);
    printf("%-14s %12s %12s   (overhead per task, us)\n", "test", "median", "best");
    int bad = 0;
    for (int k = 0; k < NTESTS; k++) {
        if (only != NULL) {
            char buf[256];
            snprintf(buf, sizeof buf, ",%s,", only);
            char name[64];
            snprintf(name, sizeof name, ",%s,", tests[k].name);
            if (strstr(buf, name) == NULL)
                continue;
        }
        double median, best;
        bad |= measure(&tests[k], trials, inner, quick ? QUICK_TARGET_TRIAL_MS : TARGET_TRIAL_MS,
                       &median, &best);
        printf("%-14s %12.4f %12.4f\n", tests[k].name, median, best);
        printf("RESULT tasks test=%s threads=%d median_us=%.4f best_us=%.4f\n", tests[k].name,
               team_size, median, best);
        fflush(stdout);
    }
    return bad;
}
