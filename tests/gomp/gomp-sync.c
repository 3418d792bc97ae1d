/* gomp-sync.c: synchronisation compiled by gcc -fopenmp: single
 * (GOMP_single_start), single copyprivate (GOMP_single_copy_start/end),
 * critical (GOMP_critical_start/end, GOMP_critical_name_start/end), atomic
 * updates of types without hardware atomics (GOMP_atomic_start/end),
 * barrier (GOMP_barrier), master and masked, and the lock API (omp_*_lock,
 * omp_*_nest_lock), which both compilers call as is. */
#include <omp.h>
#include <string.h>
#include <unistd.h>

#include "gomp-check.h"

enum { REPS = 2000, INCREMENTS = 20000 };

static void single(void)
{
    int count = 0, nowait_count = 0;
    PRAGMA(omp parallel)
    {
        for (int rep = 0; rep < REPS; rep++) {
            /* not atomic: only the single's thread writes, and the barrier
             * at the end of the single publishes it */
            PRAGMA(omp single)
            count++;
            EXPECT_EQ(count, rep + 1, "single, after its barrier");
            PRAGMA(omp barrier) /* before the next single writes count */
            PRAGMA(omp single nowait)
            {
                PRAGMA(omp atomic)
                nowait_count++;
            }
        }
    }
    EXPECT_EQ(count, REPS, "single");
    EXPECT_EQ(nowait_count, REPS, "single nowait");
}

struct payload {
    int rep, winner;
    double d;
    long long big[4];
};

static void copyprivate(void)
{
    static int winner_of[REPS];
    int mismatches = 0;
    PRAGMA(omp parallel)
    {
        int me = omp_get_thread_num();
        for (int rep = 0; rep < REPS; rep++) {
            int x;
            double y;
            struct payload p;
            PRAGMA(omp single copyprivate(x, y, p))
            {
                x = rep * 31 + me;
                y = rep * 0.5;
                p = (struct payload){rep, me, rep + 0.25, {rep, -rep, me, 7}};
                winner_of[rep] = me;
            }
            /* winner_of is written before the single's barriers */
            int w = winner_of[rep];
            if (x != rep * 31 + w || y != rep * 0.5 || p.rep != rep || p.winner != w ||
                p.d != rep + 0.25 || p.big[0] != rep || p.big[1] != -rep ||
                p.big[2] != w || p.big[3] != 7) {
                PRAGMA(omp atomic)
                mismatches++;
            }
        }
    }
    EXPECT_EQ(mismatches, 0, "single copyprivate: values broadcast");
}

static void critical(int team)
{
    long unnamed = 0, a = 0, b = 0;
    PRAGMA(omp parallel)
    {
        for (int i = 0; i < INCREMENTS; i++) {
            /* plain read-modify-writes, made exclusive by the sections */
            PRAGMA(omp critical)
            unnamed++;
            PRAGMA(omp critical(gomp_test_a))
            a += 2;
            PRAGMA(omp critical(gomp_test_b))
            {
                long v = b; /* a read and a write apart */
                b = v + 1;
            }
        }
    }
    EXPECT_EQ(unnamed, (long)team * INCREMENTS, "critical");
    EXPECT_EQ(a, 2l * team * INCREMENTS, "critical(gomp_test_a)");
    EXPECT_EQ(b, (long)team * INCREMENTS, "critical(gomp_test_b)");
}

static void atomic(int team)
{
    long double ld = 0;
    __int128 wide = 0;
    long double ld_min = 1e30L;
    PRAGMA(omp parallel)
    {
        int me = omp_get_thread_num();
        for (int i = 0; i < INCREMENTS; i++) {
            PRAGMA(omp atomic)
            ld += 1.0L;
            PRAGMA(omp atomic)
            wide += (__int128)1 << 64;
        }
        PRAGMA(omp atomic write)
        ld_min = (long double)me;
    }
    EXPECT_DEQ((double)ld, (double)team * INCREMENTS, "atomic long double +=");
    EXPECT_EQ((long long)(wide >> 64), (long long)team * INCREMENTS, "atomic __int128 +=");
    EXPECT_GE((double)ld_min, 0, "atomic write long double");
    EXPECT_LE((double)ld_min, team - 1, "atomic write long double");
}

static void barrier(void)
{
    static int phase_of[64];
    int errors = 0;
    PRAGMA(omp parallel)
    {
        int me = omp_get_thread_num(), nth = omp_get_num_threads();
        for (int phase = 1; phase <= REPS; phase++) {
            __atomic_store_n(&phase_of[me], phase, __ATOMIC_RELAXED);
            PRAGMA(omp barrier)
            for (int k = 0; k < nth; k++)
                if (__atomic_load_n(&phase_of[k], __ATOMIC_RELAXED) != phase) {
                    PRAGMA(omp atomic)
                    errors++;
                }
            PRAGMA(omp barrier)
        }
    }
    EXPECT_EQ(errors, 0, "barrier: every thread saw every other's phase");
}

static void master_masked(int team)
{
    int master_runs = 0, masked_runs = 0, master_tid = -1, masked_tid = -1;
    PRAGMA(omp parallel)
    {
        for (int rep = 0; rep < REPS; rep++) {
            /* atomics: gcc may load shared variables speculatively */
            PRAGMA(omp master)
            {
                PRAGMA(omp atomic)
                master_runs++;
                PRAGMA(omp atomic write)
                master_tid = omp_get_thread_num();
            }
            PRAGMA(omp masked filter(1))
            {
                PRAGMA(omp atomic)
                masked_runs++;
                PRAGMA(omp atomic write)
                masked_tid = omp_get_thread_num();
            }
        }
    }
    EXPECT_EQ(master_runs, REPS, "master");
    EXPECT_EQ(master_tid, 0, "master");
    EXPECT_EQ(masked_runs, team > 1 ? REPS : 0, "masked filter(1)");
    EXPECT_EQ(masked_tid, team > 1 ? 1 : -1, "masked filter(1)");
}

static void locks(int team)
{
    omp_lock_t lock;
    omp_nest_lock_t nest;
    long plain = 0, nested = 0, tested = 0, wrong_depth = 0;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
    PRAGMA(omp parallel)
    {
        for (int i = 0; i < INCREMENTS; i++) {
            /* plain read-modify-writes, made exclusive by the locks */
            omp_set_lock(&lock);
            long v = plain;
            plain = v + 1;
            omp_unset_lock(&lock);

            omp_set_nest_lock(&nest);
            omp_set_nest_lock(&nest); /* its owner takes it again */
            int depth = omp_test_nest_lock(&nest); /* the new nesting count */
            omp_unset_nest_lock(&nest);
            /* still held twice: a lock freed at the wrong depth lets
             * another thread in here */
            long w = nested;
            nested = w + 1;
            omp_unset_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
            if (depth != 3) {
                PRAGMA(omp atomic)
                wrong_depth++;
            }

            while (!omp_test_lock(&lock))
                ;
            tested++;
            omp_unset_lock(&lock);
        }
    }
    EXPECT_EQ(plain, (long)team * INCREMENTS, "omp_set_lock");
    EXPECT_EQ(nested, (long)team * INCREMENTS, "omp_set_nest_lock");
    EXPECT_EQ(wrong_depth, 0, "omp_test_nest_lock by its owner: the nesting count");
    EXPECT_EQ(tested, (long)team * INCREMENTS, "omp_test_lock");

    /* held by thread 0: the tests of thread 1 fail, and leave it held */
    int simple_got = -1, nest_got = -1;
    PRAGMA(omp parallel)
    {
        int me = omp_get_thread_num();
        if (me == 0) {
            omp_set_lock(&lock);
            omp_set_nest_lock(&nest);
        }
        PRAGMA(omp barrier)
        if (me == 1) {
            simple_got = omp_test_lock(&lock);
            nest_got = omp_test_nest_lock(&nest);
        }
        PRAGMA(omp barrier)
        if (me == 0) {
            omp_unset_lock(&lock);
            omp_unset_nest_lock(&nest);
        }
    }
    EXPECT_EQ(simple_got, team > 1 ? 0 : -1, "omp_test_lock of a lock another thread holds");
    EXPECT_EQ(nest_got, team > 1 ? 0 : -1, "omp_test_nest_lock of a lock another thread holds");
    /* free again */
    EXPECT_EQ(omp_test_lock(&lock), 1, "omp_test_lock of a free lock");
    omp_unset_lock(&lock);
    EXPECT_EQ(omp_test_nest_lock(&nest), 1, "omp_test_nest_lock of a free lock");
    omp_unset_nest_lock(&nest);

    /* Waiters that sleep: thread 0 holds both locks longer than any wait
     * spins (2 ms by default), so the others block in the kernel and only
     * the unlocks' wake-ups let them in. */
    enum { SLEEP_ROUNDS = 10, HOLD_US = 5000 };
    long after_sleep = 0, after_sleep_nest = 0;
    PRAGMA(omp parallel)
    {
        int me = omp_get_thread_num();
        for (int r = 0; r < 2 * SLEEP_ROUNDS; r++) {
            int nestable = r % 2; /* one lock at a time, so each is waited for */
            if (me == 0) {
                if (nestable)
                    omp_set_nest_lock(&nest);
                else
                    omp_set_lock(&lock);
            }
            PRAGMA(omp barrier)
            if (me == 0) {
                usleep(HOLD_US);
                if (nestable)
                    omp_unset_nest_lock(&nest);
                else
                    omp_unset_lock(&lock);
            } else if (nestable) {
                omp_set_nest_lock(&nest);
                after_sleep_nest++;
                omp_unset_nest_lock(&nest);
            } else {
                omp_set_lock(&lock);
                after_sleep++;
                omp_unset_lock(&lock);
            }
            PRAGMA(omp barrier)
        }
    }
    EXPECT_EQ(after_sleep, (long)SLEEP_ROUNDS * (team - 1), "omp_set_lock after sleeping");
    EXPECT_EQ(after_sleep_nest, (long)SLEEP_ROUNDS * (team - 1),
              "omp_set_nest_lock after sleeping");
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
}

int main(void)
{
    int team = check_team_size("gomp-sync");
    single();
    copyprivate();
    critical(team);
    atomic(team);
    barrier();
    master_masked(team);
    locks(team);
    return check_summary("gomp-sync");
}
