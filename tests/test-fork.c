/* test-fork.c: fork() after the pool has started. The child has only the
 * forking thread; its first region re-forms the pool there, while the parent
 * goes on with its own. Also fork() while another application thread is
 * running regions. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buddypool.h"
#include "check.h"

static void count_range(int64_t begin, int64_t end, void *ctx)
{
    _Atomic int64_t *sum = ctx;
    for (int64_t i = begin; i < end; i++)
        atomic_fetch_add(sum, i);
}

static void note_team(int thread, int team_size, void *ctx)
{
    _Atomic int *seen = ctx;
    atomic_fetch_add(seen, 1);
}

/* Regions must be right and use the whole pool. */
static void check_regions(int rounds)
{
    int max = buddypool_max_threads();
    for (int r = 0; r < rounds; r++) {
        _Atomic int64_t sum = 0;
        CHECK_EQ(buddypool_parallel_for(10000, count_range, &sum), 0);
        CHECK_EQ(atomic_load(&sum), 9999L * 10000 / 2);
        _Atomic int seen = 0;
        CHECK_EQ(buddypool_parallel(0, note_team, &seen), 0);
        CHECK_EQ(atomic_load(&seen), max);
    }
}

static void fork_and_check(void)
{
    fflush(stdout);
    pid_t pid = fork();
    CHECK_GE(pid, 0);
    if (pid == 0) {
        check_regions(200);
        exit(0); /* destructors run: the child's pool stops (and reports) */
    }
    check_regions(200); /* the parent goes on meanwhile */
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
}

static atomic_int stop;

static void *busy(void *arg)
{
    while (!atomic_load(&stop))
        check_regions(1);
    return NULL;
}

int main(void)
{
    check_regions(10);
    for (int k = 0; k < 5; k++)
        fork_and_check();

    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, busy, NULL), 0);
    for (int k = 0; k < 5; k++)
        fork_and_check();
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("test-fork: children re-formed the pool and ran regions right\n");
    return 0;
}
