/* test-phases.c: the profile API of buddypool.h. Modes:
 *   phases   3 regions of region_a outside any phase; phase "prefill": 2 of
 *            region_a and 1 of region_b; phase "decode": 4 of region_b;
 *            "prefill" again: 1 of region_a; then buddypool_profile_write
 *            to stdout. check-profile.py phases reads the JSON left at exit.
 *   reset    3 regions of region_a, a reset, 2 of region_b: the profile at
 *            exit holds the 2 alone.
 *   errors   the API's error returns (profiling on).
 *   off      profiling off: every call returns -ENOTSUP.
 *   idle     5 regions of region_a, 60 ms apart (workers go to sleep in
 *            between), for the wait statistics.
 *   idle-reset  a region, 1.5 s idle, a region, a reset, 3 regions back
 *            to back: run with a 1 s spin period, nothing sleeps after
 *            the reset.
 *   exit     thread 0 calls exit(0) inside a region while the others still
 *            run it.
 *   fork-first  a phase named before any region, then fork(): the child
 *            runs 3 regions of region_b, the parent (after the child
 *            ended) 2 of region_a. The first profile call starts the
 *            runtime, its fork() handlers with it: the child's profile is
 *            its own (PATH.<pid>), and its end leaves the parent's live
 *            file alone (the parent checks it is still there).
 * Each region runs one barrier. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buddypool.h"
#include "check.h"

void region_a(int tid, int team, void *ctx);
void region_b(int tid, int team, void *ctx);

void region_a(int tid, int team, void *ctx)
{
    (void)tid;
    (void)team;
    (void)ctx;
    buddypool_barrier();
}

void region_b(int tid, int team, void *ctx) { region_a(tid, team, ctx); }

static void busy_region(int tid, int team, void *ctx)
{
    (void)team;
    if (tid == 0)
        *(int *)ctx = buddypool_profile_phase("inside");
}

static void exit_region(int tid, int team, void *ctx)
{
    (void)team;
    (void)ctx;
    if (tid == 0) {
        printf("test-phases exit: passed\n");
        fflush(stdout);
        exit(0);
    }
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void run(buddypool_region_fn fn, int times)
{
    for (int i = 0; i < times; i++)
        CHECK_EQ(buddypool_parallel(0, fn, NULL), 0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    /* tracing alone (BUDDY_THREAD_POOL_PROFILE unset) has no profile API */
    const char *prof_env = getenv("BUDDY_THREAD_POOL_PROFILE");
    int ok = prof_env != NULL && strcmp(prof_env, "1") == 0 ? 0 : -ENOTSUP;
    if (strcmp(mode, "phases") == 0) {
        run(region_a, 3);
        CHECK_EQ(buddypool_profile_phase("prefill"), ok);
        run(region_a, 2);
        run(region_b, 1);
        CHECK_EQ(buddypool_profile_phase("decode"), ok);
        run(region_b, 4);
        CHECK_EQ(buddypool_profile_phase("prefill"), ok);
        run(region_a, 1);
        CHECK_EQ(buddypool_profile_write(stdout), ok);
        printf("region_a=%p\nregion_b=%p\n", (void *)region_a, (void *)region_b);
    } else if (strcmp(mode, "reset") == 0) {
        run(region_a, 3);
        CHECK_EQ(buddypool_profile_reset(), 0);
        run(region_b, 2);
    } else if (strcmp(mode, "errors") == 0) {
        CHECK_EQ(buddypool_profile_phase(NULL), -EINVAL);
        CHECK_EQ(buddypool_profile_phase(""), -EINVAL);
        char name[65];
        memset(name, 'x', 64);
        name[64] = '\0';
        CHECK_EQ(buddypool_profile_phase(name), -EINVAL); /* 64 bytes: one too many */
        name[63] = '\0';
        CHECK_EQ(buddypool_profile_phase(name), 0);
        CHECK_EQ(buddypool_profile_write(NULL), -EINVAL);
        int inside = 0;
        CHECK_EQ(buddypool_parallel(2, busy_region, &inside), 0);
        CHECK_EQ(inside, -EBUSY);
        for (int i = 0; i < 31; i++) { /* 32 names in all with the one above */
            snprintf(name, sizeof name, "p%d", i);
            CHECK_EQ(buddypool_profile_phase(name), 0);
        }
        CHECK_EQ(buddypool_profile_phase("one-too-many"), -ENOSPC);
        CHECK_EQ(buddypool_profile_phase("p3"), 0); /* an existing name still works */
        run(region_a, 1);
    } else if (strcmp(mode, "idle") == 0) {
        for (int i = 0; i < 5; i++) {
            if (i > 0) {
                struct timespec ts = {0, 60 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
            run(region_a, 1);
        }
    } else if (strcmp(mode, "idle-reset") == 0) {
        struct timespec ts = {1, 500 * 1000 * 1000};
        run(region_a, 1);
        nanosleep(&ts, NULL);
        run(region_a, 1);
        CHECK_EQ(buddypool_profile_reset(), 0);
        run(region_b, 3);
    } else if (strcmp(mode, "exit") == 0) {
        run(region_a, 2);
        CHECK_EQ(buddypool_parallel(0, exit_region, NULL), 0);
    } else if (strcmp(mode, "fork-first") == 0) {
        CHECK_EQ(buddypool_profile_phase("startup"), 0);
        char live[64];
        snprintf(live, sizeof live, "/dev/shm/buddypool-%ld", (long)getpid());
        struct stat st;
        int had_live = stat(live, &st) == 0; /* best effort: none without /dev/shm */
        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0) {
            run(region_b, 3);
            exit(0);
        }
        int status = 0;
        CHECK_EQ(waitpid(child, &status, 0), child);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (had_live)
            CHECK_EQ(stat(live, &st), 0); /* the child did not take it away */
        run(region_a, 2);
        printf("child %ld\n", (long)child);
    } else if (strcmp(mode, "off") == 0) {
        CHECK_EQ(buddypool_profile_phase("decode"), -ENOTSUP);
        CHECK_EQ(buddypool_profile_reset(), -ENOTSUP);
        CHECK_EQ(buddypool_profile_write(stdout), -ENOTSUP);
        run(region_a, 1);
    } else {
        fprintf(stderr, "usage: test-phases phases|reset|errors|idle|idle-reset|exit|"
                        "fork-first|off\n");
        return 2;
    }
    printf("test-phases %s: passed\n", mode);
    return 0;
}
