/* gomp-abi.c: GOMP entry points that gcc 12 calls for task reductions,
 * scan reductions and conditional lastprivate, called here by hand: the
 * generic loop starts GOMP_loop_start, GOMP_loop_ordered_start,
 * GOMP_loop_ull_start, GOMP_loop_ull_ordered_start (every schedule number,
 * with and without a first chunk) and GOMP_sections2_start, and the
 * team-shared construct memory they hand out (one zeroed block, the same
 * for every thread), and GOMP_teams4 and GOMP_teams, the forms of a teams
 * construct in a target region run on the host. With the argument
 * `buddypool`, also that a loop of step 0 aborts with a message naming the
 * entry point, and GOMP_teams4's thread_limit (gomp-task-modifier has the
 * task reductions of GOMP_loop_start and GOMP_sections2_start). */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gomp-check.h"

bool GOMP_loop_start(long, long, long, long, long, long *, long *, uintptr_t *, void **);
bool GOMP_loop_ordered_start(long, long, long, long, long, long *, long *, uintptr_t *,
                             void **);
bool GOMP_loop_runtime_next(long *, long *);
bool GOMP_loop_ordered_runtime_next(long *, long *);
bool GOMP_loop_ull_start(bool, unsigned long long, unsigned long long, unsigned long long,
                         long, unsigned long long, unsigned long long *,
                         unsigned long long *, uintptr_t *, void **);
bool GOMP_loop_ull_ordered_start(bool, unsigned long long, unsigned long long,
                                 unsigned long long, long, unsigned long long,
                                 unsigned long long *, unsigned long long *, uintptr_t *,
                                 void **);
bool GOMP_loop_ull_runtime_next(unsigned long long *, unsigned long long *);
bool GOMP_loop_ull_ordered_runtime_next(unsigned long long *, unsigned long long *);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
void GOMP_ordered_start(void);
void GOMP_ordered_end(void);
unsigned GOMP_sections2_start(unsigned, uintptr_t *, void **);
unsigned GOMP_sections_next(void);
void GOMP_sections_end(void);
bool GOMP_teams4(unsigned, unsigned, unsigned, bool);
void GOMP_teams(unsigned, unsigned);
void GOMP_target_ext(int, void (*)(void *), size_t, void **, size_t *, unsigned short *,
                     unsigned, void **, void **);

enum { N = 300 };
#define GFS_MONOTONIC 0x80000000l

static int hits[N];
static long seq[N];
static int pos;

/* The schedule numbers gcc passes: runtime 0, static 1, dynamic 2,
 * guided 3, auto 4 (nonmonotonic runtime), each maybe monotonic. */
static const long scheds[] = {0, 1, 2, 3, 4, 0 | GFS_MONOTONIC, 1 | GFS_MONOTONIC,
                              2 | GFS_MONOTONIC, 3 | GFS_MONOTONIC};

static void expect_once(const char *what, long sched)
{
    char label[120];
    snprintf(label, sizeof label, "%s, schedule %#lx", what, sched);
    for (int i = 0; i < N; i++)
        if (hits[i] != 1) {
            EXPECT_EQ(hits[i], 1, label);
            break;
        }
}

static void generic_loops(void)
{
    for (size_t k = 0; k < sizeof scheds / sizeof scheds[0]; k++) {
        long sched = scheds[k];
        /* long, counting down by 2 from 2 * N - 1 */
        memset(hits, 0, sizeof hits);
        PRAGMA(omp parallel)
        {
            long s, e;
            if (GOMP_loop_start(2 * N - 1, -1, -2, sched, 3, &s, &e, NULL, NULL))
                do
                    for (long i = s; i > e; i -= 2)
                        __atomic_fetch_add(&hits[(2 * N - 1 - i) / 2], 1, __ATOMIC_RELAXED);
                while (GOMP_loop_runtime_next(&s, &e));
            GOMP_loop_end();
        }
        expect_once("GOMP_loop_start", sched);

        /* unsigned long long, counting up, ordered */
        memset(hits, 0, sizeof hits);
        pos = 0;
        PRAGMA(omp parallel)
        {
            unsigned long long s, e, base = ~0ull - 3 * N;
            if (GOMP_loop_ull_ordered_start(true, base, base + 3 * N, 3, sched, 2, &s, &e,
                                            NULL, NULL))
                do
                    for (unsigned long long i = s; i < e; i += 3) {
                        __atomic_fetch_add(&hits[(i - base) / 3], 1, __ATOMIC_RELAXED);
                        GOMP_ordered_start();
                        seq[pos++] = (long)((i - base) / 3);
                        GOMP_ordered_end();
                    }
                while (GOMP_loop_ull_ordered_runtime_next(&s, &e));
            GOMP_loop_end_nowait();
        }
        expect_once("GOMP_loop_ull_ordered_start", sched);
        EXPECT_EQ(pos, N, "GOMP_loop_ull_ordered_start: ordered regions");
        for (int i = 0; i < pos; i++)
            if (seq[i] != i) {
                EXPECT_EQ(seq[i], i, "GOMP_loop_ull_ordered_start: order");
                break;
            }

        /* long ordered, and unsigned long long counting down */
        memset(hits, 0, sizeof hits);
        PRAGMA(omp parallel)
        {
            long s, e;
            /* chunk 1: gcc never passes 0 with dynamic (libgomp would hang) */
            if (GOMP_loop_ordered_start(0, N, 1, sched, 1, &s, &e, NULL, NULL))
                do
                    for (long i = s; i < e; i++)
                        __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
                while (GOMP_loop_ordered_runtime_next(&s, &e));
            GOMP_loop_end();
            unsigned long long us, ue;
            if (GOMP_loop_ull_start(false, N, 0, -1ull, sched, 5, &us, &ue, NULL, NULL))
                do
                    for (unsigned long long i = us; i > ue; i--)
                        __atomic_fetch_add(&hits[i - 1], 1, __ATOMIC_RELAXED);
                while (GOMP_loop_ull_runtime_next(&us, &ue));
            GOMP_loop_end();
        }
        for (int i = 0; i < N; i++)
            hits[i]--;
        expect_once("GOMP_loop_ordered_start and GOMP_loop_ull_start down", sched);
    }
}

/* Without istart the start hands out no chunk: the code divides the
 * iterations itself, as gcc's static schedules do. */
static void no_chunk(void)
{
    memset(hits, 0, sizeof hits);
    PRAGMA(omp parallel)
    {
        EXPECT_EQ(GOMP_loop_start(0, N, 1, 1 | GFS_MONOTONIC, 0, NULL, NULL, NULL, NULL), 1,
                  "GOMP_loop_start without istart");
        int me = omp_get_thread_num(), nth = omp_get_num_threads();
        for (int i = me; i < N; i += nth)
            __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
        GOMP_loop_end();
        /* the next construct starts normally after it */
        long s, e;
        if (GOMP_loop_start(0, N, 1, 2, 4, &s, &e, NULL, NULL))
            do
                for (long i = s; i < e; i++)
                    __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
            while (GOMP_loop_runtime_next(&s, &e));
        GOMP_loop_end();
    }
    for (int i = 0; i < N; i++)
        hits[i]--;
    expect_once("GOMP_loop_start without istart, then with", 1 | GFS_MONOTONIC);
}

static void sections2(void)
{
    memset(hits, 0, sizeof hits);
    PRAGMA(omp parallel)
    {
        for (unsigned k = GOMP_sections2_start(5, NULL, NULL); k != 0; k = GOMP_sections_next())
            __atomic_fetch_add(&hits[k - 1], 1, __ATOMIC_RELAXED);
        GOMP_sections_end();
    }
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(hits[i], 1, "GOMP_sections2_start");
    EXPECT_EQ(hits[5], 0, "GOMP_sections2_start");
}

/* What gcc does for a scan reduction: a one-iteration static loop whose
 * start asks for team-shared memory, used until the construct's end. */
static void construct_memory(void)
{
    enum { SLOTS = 64 };
    void *first = NULL;
    int differs = 0, dirty = 0, team = 0;
    PRAGMA(omp parallel)
    {
        for (int round = 0; round < 3; round++) {
            void *mem = (void *)(uintptr_t)(SLOTS * sizeof(long));
            GOMP_loop_start(0, 1, 1, 1 | GFS_MONOTONIC, 0, NULL, NULL, NULL, &mem);
            long *slots = mem;
            int tid = omp_get_thread_num();
            PRAGMA(omp master)
            {
                first = mem;
                team = omp_get_num_threads();
            }
            PRAGMA(omp barrier)
            if (mem != first)
                __atomic_fetch_add(&differs, 1, __ATOMIC_RELAXED);
            for (int i = tid; i < SLOTS; i += omp_get_num_threads())
                if (slots[i] != 0)
                    __atomic_fetch_add(&dirty, 1, __ATOMIC_RELAXED);
            PRAGMA(omp barrier)
            for (int i = tid; i < SLOTS; i += omp_get_num_threads())
                slots[i] = i + 1; /* the next round's memory is zeroed again */
            PRAGMA(omp barrier)
            GOMP_loop_end_nowait();
        }
        unsigned k;
        void *mem = (void *)(uintptr_t)32;
        for (k = GOMP_sections2_start(4, NULL, &mem); k != 0; k = GOMP_sections_next())
            ((char *)mem)[k] = 1;
        GOMP_sections_end();
        PRAGMA(omp master)
        for (int i = 1; i <= 4; i++)
            EXPECT_EQ(((char *)mem)[i], 1, "GOMP_sections2_start memory");
    }
    EXPECT_GE(team, 1, "construct memory");
    EXPECT_EQ(differs, 0, "every thread gets the same construct memory");
    EXPECT_EQ(dirty, 0, "construct memory starts zeroed");
}

/* The caller loops while GOMP_teams4 says true, one pass per team of
 * num_teams_low (at least 1); thread_limit sets thread-limit-var. */
static void teams4(void)
{
    int limit0 = omp_get_thread_limit();
    for (unsigned want = 0; want <= 3; want++) {
        int passes = 0, bad = 0;
        bool more = GOMP_teams4(want, want + 2, 0, true);
        while (more) {
            if (omp_get_team_num() != passes || omp_get_num_teams() != (want ? (int)want : 1))
                bad++;
            passes++;
            more = GOMP_teams4(want, want + 2, 0, false);
        }
        EXPECT_EQ(passes, want ? want : 1, "GOMP_teams4: one pass per team");
        EXPECT_EQ(bad, 0, "GOMP_teams4: each pass's team number and league");
        /* what the league queries say after it is the target region's end's
         * to set, which has none here */
        EXPECT_EQ(omp_get_thread_limit(), limit0, "GOMP_teams4 without a limit");
    }
}

/* A thread_limit: thread-limit-var and the size of a region in the team.
 * The pass runs in a region of its own, whose end discards the ICV, as a
 * target region's end does. buddypool only: libgomp needs the thread state
 * of a target region for a limit (here it faults at 2 threads). */
/* gcc 4.9 to 8's teams in a target region: one team, its thread_limit
 * thread-limit-var until the target region ends. */
static void teams_in_target(void *unused)
{
    (void)unused;
    GOMP_teams(4, 2);
    EXPECT_EQ(omp_get_thread_limit(), 2, "GOMP_teams: thread_limit sets thread-limit-var");
    EXPECT_EQ(omp_get_num_teams(), 1, "GOMP_teams: no league");
}

static void teams4_limit(void)
{
    int limit0 = omp_get_thread_limit();
    PRAGMA(omp parallel num_threads(1))
    {
        int limit = 0, inner = 0;
        bool more = GOMP_teams4(1, 1, 1, true);
        while (more) {
            limit = omp_get_thread_limit();
            PRAGMA(omp parallel num_threads(2))
            PRAGMA(omp single)
            inner = omp_get_num_threads();
            more = GOMP_teams4(1, 1, 1, false);
        }
        EXPECT_EQ(limit, 1, "GOMP_teams4: thread_limit sets thread-limit-var");
        EXPECT_EQ(inner, 1, "GOMP_teams4: thread_limit caps a region");
        EXPECT_EQ(omp_get_thread_limit(), limit0, "GOMP_teams4: the limit ends with it");
        /* no end call: the target region's end takes the limit back */
        GOMP_target_ext(-1, teams_in_target, 0, NULL, NULL, NULL, 0, NULL, NULL);
        EXPECT_EQ(omp_get_thread_limit(), limit0, "GOMP_teams: the limit ends with the target");
    }
    EXPECT_EQ(omp_get_thread_limit(), limit0, "thread-limit-var after the region");
}

static void zero_step(void)
{
    long s, e;
    GOMP_loop_start(0, 10, 0, 2, 1, &s, &e, NULL, NULL);
}

int main(int argc, char **argv)
{
    check_team_size("gomp-abi");
    generic_loops();
    no_chunk();
    sections2();
    construct_memory();
    teams4();
    if (argc > 1 && strcmp(argv[1], "buddypool") == 0) {
        fflush(stdout);
        check_aborts("zero step", zero_step, "GOMP_loop_start: loop increment is 0");
        teams4_limit();
    }
    return check_summary("gomp-abi");
}
