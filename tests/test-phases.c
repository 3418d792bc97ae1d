/* test-phases.c: the profile API of buddypool.h. Modes:
 *   phases   3 regions of region_a outside any phase; phase "prefill": 2 of
 *            region_a and 1 of region_b; phase "decode": 4 of region_b;
 *            "prefill" again: 1 of region_a; then buddypool_profile_write
 *            to stdout. check-profile.py phases reads the JSON left at exit.
 *   reset    3 regions of region_a, a reset, 2 of region_b: the profile at
 *            exit holds the 2 alone.
 *   errors   the API's error returns (profiling on).
 *   off      profiling off: every call returns -ENOTSUP.
 *   idle     5 regions of region_a, 30 ms apart (workers go to sleep in
 *            between), for the wait statistics.
 * Each region runs one barrier. */
#include <errno.h>
#include <string.h>
#include <time.h>

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

static void run(buddypool_region_fn fn, int times)
{
    for (int i = 0; i < times; i++)
        CHECK_EQ(buddypool_parallel(0, fn, NULL), 0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "phases") == 0) {
        run(region_a, 3);
        CHECK_EQ(buddypool_profile_phase("prefill"), 0);
        run(region_a, 2);
        run(region_b, 1);
        CHECK_EQ(buddypool_profile_phase("decode"), 0);
        run(region_b, 4);
        CHECK_EQ(buddypool_profile_phase("prefill"), 0);
        run(region_a, 1);
        CHECK_EQ(buddypool_profile_write(stdout), 0);
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
                struct timespec ts = {0, 30 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
            run(region_a, 1);
        }
    } else if (strcmp(mode, "off") == 0) {
        CHECK_EQ(buddypool_profile_phase("decode"), -ENOTSUP);
        CHECK_EQ(buddypool_profile_reset(), -ENOTSUP);
        CHECK_EQ(buddypool_profile_write(stdout), -ENOTSUP);
        run(region_a, 1);
    } else {
        fprintf(stderr, "usage: test-phases phases|reset|errors|off\n");
        return 2;
    }
    printf("test-phases %s: passed\n", mode);
    return 0;
}
