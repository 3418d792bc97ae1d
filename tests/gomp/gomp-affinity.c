/* gomp-affinity.c: the affinity format routines (omp_set/get_affinity_format,
 * omp_capture_affinity, omp_display_affinity; clang's header maps them to
 * ompc_*): fields, long names, the three kinds of size, %%, the length
 * returned when the buffer is short. Built by gcc and clang, run on
 * buddypool and the peer at 1, 2 and 4 threads. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
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
#ifdef __clang__
    else /* LLVM's header: libomp's default */
        EXPECT_EQ(same(buf, "OMP: pid %P tid %i thread %n bound to OS proc set {%A}"), 1,
                  "libomp's default format");
#else
    else
        EXPECT_EQ(same(buf, "level %L thread %i affinity %A"), 1, "libgomp's default format");
#endif
    /* %A lists the thread's CPUs with ranges: from two in a row in gcc's
     * code (libgomp), from three in clang's (libomp) */
    cpu_set_t mine;
    char want_cpus[1024] = "";
    if (sched_getaffinity(0, sizeof mine, &mine) == 0) {
#ifdef __clang__
        const int least = 2;
#else
        const int least = 1;
#endif
        size_t len = 0;
        for (int c = 0; c < CPU_SETSIZE && len + 24 < sizeof want_cpus; c++) {
            if (!CPU_ISSET(c, &mine))
                continue;
            int e = c;
            while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &mine))
                e++;
            if (e - c < least)
                e = c;
            len += (size_t)snprintf(want_cpus + len, sizeof want_cpus - len,
                                    e > c ? "%s%d-%d" : "%s%d", len ? "," : "", c, e);
            c = e;
        }
        omp_capture_affinity(buf, sizeof buf, "%A");
        if (!same(buf, want_cpus))
            printf("%%A: '%s', want '%s'\n", buf, want_cpus);
        EXPECT_EQ(same(buf, want_cpus), 1, "the CPU list of %A");
    }
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
