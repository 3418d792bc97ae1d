/* test-teams.c: regions of different application threads run at the same
 * time, each on a team of its own. Run with one mode argument:
 *
 *   concurrent  K application threads (2, 4, 8 in turn) each fork a team
 *               of its own size (1 to 4), round after round. In each round
 *               every thread of every team waits until all K regions are
 *               running at once, so regions that ran one after another
 *               would never get there: the wait gives up after 30 s and the
 *               test fails. Each region has exactly the team it asked for,
 *               each thread number once.
 *   join        A region's thread joins an application thread that forks
 *               regions of its own (both threads of a team do it at once):
 *               with regions run one at a time, the inner ones would wait
 *               for the outer one forever. Joins give up after 30 s.
 *   fork        fork() while two other application threads are inside
 *               regions: the child's regions run on a pool of its own,
 *               whole and right; the parent's teams go on after it.
 *   nested      4 application threads, with two active levels allowed,
 *               each fork a team of 2 whose threads each fork a team of 2:
 *               all 8 inner regions run at once (the same 30 s bound), each
 *               inner thread once, with the team size asked for; the level,
 *               active level, ancestors and team sizes right at every level
 *               (and -1 past it), each application thread's sum exact.
 *   exit        50 application threads, one after another, each fork a
 *               team and exit: the workers of an exited thread's team are
 *               given back and reused, so the process ends with a handful
 *               of threads, not 50 teams' worth.
 *
 * Not timed: the 30 s bounds only turn a hang into a failure. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buddypool.h"
#include "check.h"

enum { MAX_APPS = 8, MAX_TEAM = 4, ROUNDS = 20 };

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wait, yielding, until *v >= want; 0 if 30 s pass first. */
static int wait_for(_Atomic int *v, int want)
{
    int64_t give_up = now_ns() + (int64_t)30 * 1000000000;
    while (atomic_load(v) < want) {
        if (now_ns() > give_up)
            return 0;
        sched_yield();
    }
    return 1;
}

/* ---- concurrent ---------------------------------------------------------- */

static int apps;                     /* application threads this pass */
static pthread_barrier_t round_start; /* the app threads start a round together */
static _Atomic int inside[ROUNDS];   /* regions of round r whose thread 0 is in */
static _Atomic int timed_out;

struct app {
    int index, team;
    int round;
    _Atomic int seen[MAX_TEAM]; /* thread t ran, this round */
    _Atomic int wrong_size;
};

static void all_inside(int thread, int team_size, void *ctx)
{
    struct app *a = ctx;
    if (team_size != a->team || buddypool_team_size() != a->team)
        atomic_fetch_add(&a->wrong_size, 1);
    if (thread >= 0 && thread < MAX_TEAM)
        atomic_fetch_add(&a->seen[thread], 1);
    if (thread == 0)
        atomic_fetch_add(&inside[a->round], 1);
    /* every thread of every team: all the round's regions run at once */
    if (!wait_for(&inside[a->round], apps))
        atomic_store(&timed_out, 1);
}

static void *app_main(void *arg)
{
    struct app *a = arg;
    for (int r = 0; r < ROUNDS; r++) {
        a->round = r;
        for (int t = 0; t < MAX_TEAM; t++)
            atomic_store(&a->seen[t], 0);
        pthread_barrier_wait(&round_start);
        CHECK_EQ(buddypool_parallel(a->team, all_inside, a), 0);
        int gave_up = atomic_load(&timed_out), wrong_size = atomic_load(&a->wrong_size);
        CHECK_EQ(gave_up, 0); /* not every region of the round ran at once */
        CHECK_EQ(wrong_size, 0);
        for (int t = 0; t < MAX_TEAM; t++)
            CHECK_EQ(atomic_load(&a->seen[t]), t < a->team);
    }
    return NULL;
}

static void concurrent(void)
{
    static struct app app[MAX_APPS];
    pthread_t th[MAX_APPS];
    for (apps = 2; apps <= MAX_APPS; apps *= 2) {
        for (int r = 0; r < ROUNDS; r++)
            atomic_store(&inside[r], 0);
        pthread_barrier_init(&round_start, NULL, (unsigned)apps);
        for (int i = 0; i < apps; i++) {
            app[i] = (struct app){.index = i, .team = 1 + (i + apps) % MAX_TEAM};
            CHECK_EQ(pthread_create(&th[i], NULL, app_main, &app[i]), 0);
        }
        for (int i = 0; i < apps; i++)
            CHECK_EQ(pthread_join(th[i], NULL), 0);
        pthread_barrier_destroy(&round_start);
        printf("test-teams concurrent: %d application threads' regions ran at once, "
               "%d rounds\n", apps, ROUNDS);
    }
}

/* ---- join ---------------------------------------------------------------- */

static void count_range(int64_t begin, int64_t end, void *ctx)
{
    _Atomic int64_t *sum = ctx;
    for (int64_t i = begin; i < end; i++)
        atomic_fetch_add(sum, i);
}

static void note(int thread, int team_size, void *ctx)
{
    atomic_fetch_add((_Atomic int *)ctx, 1);
}

/* An application thread that forks: a team of 2 and a parallel for. */
static void *forker(void *arg)
{
    _Atomic int *ok = arg;
    for (int r = 0; r < 10; r++) {
        _Atomic int seen = 0;
        CHECK_EQ(buddypool_parallel(2, note, &seen), 0);
        CHECK_EQ(atomic_load(&seen), 2);
        _Atomic int64_t sum = 0;
        CHECK_EQ(buddypool_parallel_for(1000, count_range, &sum), 0);
        CHECK_EQ(atomic_load(&sum), 999L * 1000 / 2);
    }
    atomic_store(ok, 1);
    return NULL;
}

/* Join a thread, giving up after 30 s (a region that waited for another
 * thread's region to end would never be joined). */
static void join_bounded(pthread_t th)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    int err = pthread_timedjoin_np(th, NULL, &deadline);
    if (err == ETIMEDOUT) {
        fprintf(stderr, "test-teams join: a thread that forks regions was not joined within "
                        "30 s from inside a region\n");
        exit(1);
    }
    CHECK_EQ(err, 0);
}

static void join_inside(int thread, int team_size, void *ctx)
{
    _Atomic int *done = ctx;
    _Atomic int ok = 0;
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, forker, &ok), 0);
    join_bounded(th);
    CHECK_EQ(atomic_load(&ok), 1);
    atomic_fetch_add(done, 1);
}

static void join(void)
{
    for (int r = 0; r < 3; r++) {
        _Atomic int done = 0;
        CHECK_EQ(buddypool_parallel(2, join_inside, &done), 0);
        CHECK_EQ(atomic_load(&done), 2);
    }
    printf("test-teams join: regions joined threads that fork regions of their own\n");
}

/* ---- fork ---------------------------------------------------------------- */

static _Atomic int in_region, release_regions;

static void hold(int thread, int team_size, void *ctx)
{
    atomic_fetch_add(&in_region, 1);
    wait_for(&release_regions, 1);
}

static void *holder(void *arg)
{
    CHECK_EQ(buddypool_parallel(2, hold, NULL), 0);
    return NULL;
}

static void fork_while_running(void)
{
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        CHECK_EQ(pthread_create(&th[i], NULL, holder, NULL), 0);
    CHECK(wait_for(&in_region, 4)); /* both teams, both threads each, are in */
    pid_t pid = fork();
    CHECK_GE(pid, 0);
    if (pid == 0) {
        alarm(30); /* a hang in the child ends it */
        int max = buddypool_max_threads();
        for (int r = 0; r < 20; r++) {
            _Atomic int seen = 0;
            if (buddypool_parallel(0, note, &seen) != 0 || atomic_load(&seen) != max)
                _exit(3);
            _Atomic int64_t sum = 0;
            if (buddypool_parallel_for(10000, count_range, &sum) != 0 ||
                atomic_load(&sum) != 9999L * 10000 / 2)
                _exit(4);
        }
        _exit(0);
    }
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fprintf(stderr, "test-teams fork: the child died of signal %d\n", WTERMSIG(status));
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    atomic_store(&release_regions, 1);
    for (int i = 0; i < 2; i++)
        CHECK_EQ(pthread_join(th[i], NULL), 0);
    /* the parent's pool goes on */
    _Atomic int seen = 0;
    CHECK_EQ(buddypool_parallel(2, note, &seen), 0);
    CHECK_EQ(atomic_load(&seen), 2);
    printf("test-teams fork: a child forked while two teams ran has a pool of its own\n");
}

/* ---- nested -------------------------------------------------------------- */

/* libbuddypool's OpenMP API */
void omp_set_max_active_levels(int levels);
int omp_get_level(void);
int omp_get_active_level(void);
int omp_get_ancestor_thread_num(int level);
int omp_get_team_size(int level);

enum { NESTED_APPS = 4 };
static _Atomic int inner_inside, inner_ran, inner_wrong, levels_wrong;

/* Each inner thread adds 1 + its outer thread * 2 + its own number to its
 * application thread's sum: 1 + 2 + 3 + 4 = 10 for the four. */
struct nest {
    _Atomic long sum;
    int outer; /* the outer thread's number, for its inner team */
};

static void inner(int thread, int team_size, void *ctx)
{
    struct nest *n = ctx;
    if (team_size != 2)
        atomic_fetch_add(&inner_wrong, 1);
    /* every level's answers, from inside the inner team */
    if (omp_get_level() != 2 || omp_get_active_level() != 2 ||
        omp_get_ancestor_thread_num(0) != 0 || omp_get_ancestor_thread_num(1) != n->outer ||
        omp_get_ancestor_thread_num(2) != thread || omp_get_ancestor_thread_num(3) != -1 ||
        omp_get_team_size(0) != 1 || omp_get_team_size(1) != 2 || omp_get_team_size(2) != 2 ||
        omp_get_team_size(3) != -1)
        atomic_fetch_add(&levels_wrong, 1);
    atomic_fetch_add(&n->sum, 1 + 2 * n->outer + thread);
    atomic_fetch_add(&inner_ran, 1);
    if (thread == 0)
        atomic_fetch_add(&inner_inside, 1);
    if (!wait_for(&inner_inside, NESTED_APPS * 2))
        atomic_store(&timed_out, 1);
}

static void outer(int thread, int team_size, void *ctx)
{
    struct nest *n = ctx;
    if (team_size != 2)
        atomic_fetch_add(&inner_wrong, 1);
    if (omp_get_level() != 1 || omp_get_active_level() != 1 ||
        omp_get_ancestor_thread_num(1) != thread || omp_get_team_size(1) != 2)
        atomic_fetch_add(&levels_wrong, 1);
    struct nest mine = {.outer = thread};
    CHECK_EQ(buddypool_parallel(2, inner, &mine), 0);
    atomic_fetch_add(&n->sum, atomic_load(&mine.sum));
}

static void *nested_app(void *arg)
{
    omp_set_max_active_levels(2);
    struct nest n = {0};
    CHECK_EQ(buddypool_parallel(2, outer, &n), 0);
    CHECK_EQ(atomic_load(&n.sum), 10);
    CHECK_EQ(omp_get_level(), 0);
    return NULL;
}

static void nested(void)
{
    pthread_t th[NESTED_APPS];
    for (int i = 0; i < NESTED_APPS; i++)
        CHECK_EQ(pthread_create(&th[i], NULL, nested_app, NULL), 0);
    for (int i = 0; i < NESTED_APPS; i++)
        CHECK_EQ(pthread_join(th[i], NULL), 0);
    int gave_up = atomic_load(&timed_out), wrong = atomic_load(&inner_wrong);
    CHECK_EQ(gave_up, 0); /* not every inner region ran at once */
    CHECK_EQ(wrong, 0);
    CHECK_EQ(atomic_load(&levels_wrong), 0);
    CHECK_EQ(atomic_load(&inner_ran), NESTED_APPS * 2 * 2);
    printf("test-teams nested: %d application threads' nested teams ran at once\n",
           NESTED_APPS);
}

/* ---- exit ---------------------------------------------------------------- */

/* The pool's workers now: the threads named buddypool-N. */
static int workers_now(void)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue; /* gone meanwhile */
        if (fgets(comm, sizeof comm, f) != NULL && strncmp(comm, "buddypool-", 10) == 0)
            n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

static void *fork_once(void *arg)
{
    _Atomic int seen = 0;
    CHECK_EQ(buddypool_parallel(3, note, &seen), 0);
    CHECK_EQ(atomic_load(&seen), 3);
    return NULL;
}

static void exits(void)
{
    _Atomic int seen = 0;
    CHECK_EQ(buddypool_parallel(2, note, &seen), 0); /* the main thread's team: 1 worker */
    for (int i = 0; i < 50; i++) {
        pthread_t th;
        CHECK_EQ(pthread_create(&th, NULL, fork_once, NULL), 0);
        CHECK_EQ(pthread_join(th, NULL), 0);
    }
    /* the main thread's worker, and the 2 workers every exited thread's
     * team had in turn */
    int n = workers_now();
    CHECK_LE(n, 3);
    printf("test-teams exit: 50 threads forked teams and exited; %d workers remain\n", n);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "concurrent";
    if (strcmp(mode, "concurrent") == 0)
        concurrent();
    else if (strcmp(mode, "join") == 0)
        join();
    else if (strcmp(mode, "fork") == 0)
        fork_while_running();
    else if (strcmp(mode, "nested") == 0)
        nested();
    else if (strcmp(mode, "exit") == 0)
        exits();
    else {
        fprintf(stderr, "test-teams: unknown mode '%s' (concurrent, join, fork, nested, exit)\n",
                mode);
        return 2;
    }
    return 0;
}
