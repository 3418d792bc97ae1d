/* gomp-check.h: the gcc OpenMP tests' checks. EXPECT_* may run on any thread
 * of a region: a failure prints the expression, both values and the case
 * being tested, and is counted (with compiler atomics, so a check does not
 * depend on the runtime under test); main ends with check_summary. */
#ifndef GOMP_CHECK_H
#define GOMP_CHECK_H

#include <omp.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PRAGMA(x) _Pragma(#x)

static int check_failures;

static void check_fail(const char *file, int line, const char *expr, long long a,
                       long long b, const char *what)
{
    if (__atomic_fetch_add(&check_failures, 1, __ATOMIC_RELAXED) < 20)
        fprintf(stderr, "%s:%d: %s: CHECK failed: %s (%lld vs %lld)\n", file, line, what, expr,
                a, b);
}

#define EXPECT_OP(a, op, b, what)                                                      \
    do {                                                                               \
        long long expect_a_ = (long long)(a), expect_b_ = (long long)(b);              \
        if (!(expect_a_ op expect_b_))                                                 \
            check_fail(__FILE__, __LINE__, #a " " #op " " #b, expect_a_, expect_b_,    \
                       what);                                                          \
    } while (0)
#define EXPECT_EQ(a, b, what) EXPECT_OP(a, ==, b, what)
#define EXPECT_LE(a, b, what) EXPECT_OP(a, <=, b, what)
#define EXPECT_GE(a, b, what) EXPECT_OP(a, >=, b, what)

/* Doubles that must be exactly equal (results of exact arithmetic). */
#define EXPECT_DEQ(a, b, what)                                                         \
    do {                                                                               \
        double expect_a_ = (a), expect_b_ = (b);                                       \
        if (expect_a_ != expect_b_ &&                                                  \
            __atomic_fetch_add(&check_failures, 1, __ATOMIC_RELAXED) < 20)             \
            fprintf(stderr, "%s:%d: %s: CHECK failed: %s == %s (%.17g vs %.17g)\n",     \
                    __FILE__, __LINE__, what, #a, #b, expect_a_, expect_b_);           \
    } while (0)

/* The team a region gets: OMP_NUM_THREADS threads, beyond the CPUs too (as
 * in libgomp and libomp). A test run "at 4 threads" must not pass on fewer
 * unnoticed. */
__attribute__((unused)) static int check_team_size(const char *prog)
{
    int team = 0;
    PRAGMA(omp parallel)
    {
        PRAGMA(omp single)
        team = omp_get_num_threads();
    }
    const char *env = getenv("OMP_NUM_THREADS");
    if (env != NULL)
        EXPECT_EQ(team, atoi(env), "team size");
    printf("%s: %d threads\n", prog, team);
    return team;
}

static int check_summary(const char *prog)
{
    if (check_failures != 0) {
        fprintf(stderr, "%s: %d checks failed\n", prog, check_failures);
        return 1;
    }
    printf("%s: all checks passed\n", prog);
    return 0;
}

/* Run fn in a child process: it must abort (SIGABRT) with `expect` in
 * what it writes to stderr, the runtime's message for bad input. */
__attribute__((unused)) static void check_aborts(const char *what, void (*fn)(void),
                                                 const char *expect)
{
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(1);
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        fn();
        _exit(0);
    }
    close(fds[1]);
    char msg[400] = "";
    size_t len = 0;
    ssize_t got;
    while (len < sizeof msg - 1 && (got = read(fds[0], msg + len, sizeof msg - 1 - len)) > 0)
        len += (size_t)got;
    msg[len] = 0;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    EXPECT_EQ(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, 1, what);
    if (strstr(msg, expect) == NULL) {
        fprintf(stderr, "%s: message '%s' does not name '%s'\n", what, msg, expect);
        EXPECT_EQ(0, 1, what);
    }
}

#endif
