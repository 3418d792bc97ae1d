/* gomp-affinity.c: the affinity format routines (omp_set/get_affinity_format,
 * omp_capture_affinity, omp_display_affinity; clang's header maps them to
 * ompc_*): fields, long names, the three kinds of size, %%, the length
 * returned when the buffer is short. Built by gcc and clang, run on
 * buddypool and the peer at 1, 2 and 4 threads. */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gomp-check.h"

static int same(const char *a, const char *b) { return strcmp(a, b) == 0; }

int main(void)
{
    check_team_size("gomp-affinity");
    char buf[256];
    const char *env = getenv("OMP_AFFINITY_FORMAT");
    size_t n = omp_get_affinity_format(buf, sizeof buf);
    if (env != NULL)
        EXPECT_EQ(same(buf, env), 1, "OMP_AFFINITY_FORMAT is the format");
    omp_set_affinity_format("T%{thread_num}/%N");
    n = omp_get_affinity_format(buf, sizeof buf);
    EXPECT_EQ(same(buf, "T%{thread_num}/%N"), 1, "get returns what set set");
    EXPECT_EQ(n, strlen("T%{thread_num}/%N"), "get's length");
    int bad = 0, team = 0;
    PRAGMA(omp parallel shared(bad, team))
    {
        char got[128], want[128];
        int me = omp_get_thread_num(), size = omp_get_num_threads();
        if (me == 0)
            team = size;
        omp_capture_affinity(got, sizeof got, NULL); /* the set format */
        snprintf(want, sizeof want, "T%d/%d", me, size);
        bad += !same(got, want);
        omp_capture_affinity(got, sizeof got, "%0.3n|%.3n|%3n|%%|%L|%{nesting_level}");
        snprintf(want, sizeof want, "%03d|%3d|%-3d|%%|1|1", me, me, me);
        bad += !same(got, want);
        omp_capture_affinity(got, sizeof got, "%P");
        snprintf(want, sizeof want, "%d", (int)getpid());
        bad += !same(got, want);
        omp_capture_affinity(got, sizeof got, "%A");
        int digits = strlen(got) > 0;
        for (const char *p = got; *p; p++)
            digits &= (*p >= '0' && *p <= '9') || *p == ',' || *p == '-';
        bad += !digits;
    }
    EXPECT_EQ(bad, 0, "captured fields, in every thread");
    /* outside any region the ancestor's number is -1: zeros after the sign */
    omp_capture_affinity(buf, sizeof buf, "%0.7{ancestor_tnum}|%.4a|%0.2a");
    EXPECT_EQ(same(buf, "-000001|  -1|-1"), 1, "a negative number padded");
    char small[4];
    n = omp_capture_affinity(small, sizeof small, "abcdefgh");
    EXPECT_EQ(n, 8, "the length it needs, the buffer short");
    EXPECT_EQ(same(small, "abc"), 1, "a short buffer: cut, ended");
    omp_display_affinity("display %n of %N");
    (void)team;
    return check_summary("gomp-affinity");
}
