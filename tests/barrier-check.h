/* barrier-check.h: a region that checks its barriers, for tests that run it
 * under unusual conditions (signals, episode counts past 32 bits). Each
 * thread counts its run, then for each of `barriers` phases writes its slot,
 * passes a barrier, checks every slot, passes another. */
#ifndef BUDDYPOOL_BARRIER_CHECK_H
#define BUDDYPOOL_BARRIER_CHECK_H

#include <stdatomic.h>
#include <string.h>

#include "buddypool.h"
#include "check.h"

enum { BC_MAX_THREADS = 64 };

struct barrier_check {
    atomic_int runs[BC_MAX_THREADS];
    int phase[BC_MAX_THREADS];
    atomic_int bad;
    int barriers;
    void (*before_barrier)(int tid); /* NULL, or called before each phase */
};

static void barrier_check_region(int tid, int team, void *ctx)
{
    struct barrier_check *s = ctx;
    atomic_fetch_add(&s->runs[tid], 1);
    for (int b = 1; b <= s->barriers; b++) {
        if (s->before_barrier != NULL)
            s->before_barrier(tid);
        s->phase[tid] = b;
        buddypool_barrier();
        for (int j = 0; j < team; j++)
            if (s->phase[j] != b)
                atomic_fetch_add(&s->bad, 1);
        buddypool_barrier();
    }
}

/* One region of `team` threads (0: the default team of every thread) with
 * `barriers` checked phases: every thread ran once, every barrier held. */
static void barrier_check_run(int team, int barriers, void (*before_barrier)(int tid))
{
    static struct barrier_check s;
    memset(&s, 0, sizeof s);
    s.barriers = barriers;
    s.before_barrier = before_barrier;
    CHECK_EQ(buddypool_parallel(team, barrier_check_region, &s), 0);
    int n = team > 0 ? team : buddypool_max_threads();
    CHECK_LE(n, BC_MAX_THREADS);
    for (int i = 0; i < n; i++)
        CHECK_EQ(atomic_load(&s.runs[i]), 1);
    CHECK_EQ(atomic_load(&s.bad), 0);
}

#endif
