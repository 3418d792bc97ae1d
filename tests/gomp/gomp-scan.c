/* gomp-scan.c: scan reductions (reduction(inscan, ...) with inclusive and
 * exclusive scans) and lastprivate(conditional:), which gcc builds on
 * team-shared construct memory that GOMP_loop_start hands out, and sections
 * with lastprivate(conditional:). Every result is exact. */
/* gcc sees the private copy of z in a section that does not assign it */
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <omp.h>

#include "gomp-check.h"

enum { N = 10007 };

static int a[N], inc[N], exc[N];
static int gx; /* an orphaned construct's lastprivate must be shared */

static void scans(const char *what)
{
    long s = 0, t = 0;
    PRAGMA(omp parallel for reduction(inscan, +: s))
    for (int i = 0; i < N; i++) {
        s += a[i];
        PRAGMA(omp scan inclusive(s))
        inc[i] = (int)s;
    }
    PRAGMA(omp parallel for reduction(inscan, +: t))
    for (int i = 0; i < N; i++) {
        exc[i] = (int)t;
        PRAGMA(omp scan exclusive(t))
        t += a[i];
    }
    long want = 0;
    for (int i = 0; i < N; i++) {
        EXPECT_EQ(exc[i], want, what);
        want += a[i];
        EXPECT_EQ(inc[i], want, what);
        if (inc[i] != want || exc[i] != want - a[i])
            break;
    }
    EXPECT_EQ(s, want, what);
    EXPECT_EQ(t, want, what);
}

static void conditional(const char *what)
{
    int x = -1, z = -1;
#ifndef __clang__
    int y = -1;
#endif
    PRAGMA(omp parallel for lastprivate(conditional: x))
    for (int i = 0; i < N; i++)
        if (a[i] == 3)
            x = i;
    PRAGMA(omp parallel)
    {
        /* clang 22's code for this loop gets the wrong y from Debian's
         * libomp (19.1) in most runs, so libomp cannot validate it: gcc's */
#ifndef __clang__
        PRAGMA(omp for lastprivate(conditional: y) schedule(dynamic, 7))
        for (int i = 0; i < N; i++)
            if (a[i] == 5)
                y = i;
#endif
        PRAGMA(omp sections lastprivate(conditional: z))
        {
            PRAGMA(omp section)
            z = 1;
            PRAGMA(omp section)
            if (a[0] < 0)
                z = 2; /* never: the last assignment is section 1's */
        }
    }
    int wx = -1, wy = -1;
    for (int i = 0; i < N; i++) {
        if (a[i] == 3)
            wx = i;
        if (a[i] == 5)
            wy = i;
    }
    EXPECT_EQ(x, wx, what);
#ifndef __clang__
    EXPECT_EQ(y, wy, what);
#else
    (void)wy;
#endif
    EXPECT_EQ(z, 1, what);
}

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = (i * 7919) % 11;
    scans("scan reductions");
    conditional("lastprivate(conditional:)");
    /* inside a team of one: the construct memory is the thread's own */
    int s = 0;
    PRAGMA(omp parallel num_threads(1))
    {
        PRAGMA(omp for reduction(inscan, +: s))
        for (int i = 0; i < N; i++) {
            s += a[i];
            PRAGMA(omp scan inclusive(s))
            inc[i] = s;
        }
    }
    EXPECT_EQ(inc[N - 1], s, "a scan in a team of one");
    /* an orphaned construct with memory on the initial thread (a team of
     * one keeps its own), a region in between, then the construct again:
     * the region must leave the thread's construct state as it was */
    gx = -1;
    for (int round = 0; round < 3; round++) {
        PRAGMA(omp for lastprivate(conditional: gx))
        for (int i = 0; i < N; i++)
            if (a[i] == 7)
                gx = i;
        int team = 0;
        PRAGMA(omp parallel num_threads(2))
        PRAGMA(omp master)
        team = omp_get_num_threads();
        EXPECT_GE(team, 1, "a region between orphaned constructs");
    }
    int wgx = -1;
    for (int i = 0; i < N; i++)
        if (a[i] == 7)
            wgx = i;
    EXPECT_EQ(gx, wgx, "orphaned lastprivate(conditional:)");
    check_team_size("gomp-scan");
    return check_summary("gomp-scan");
}
