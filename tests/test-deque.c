/* test-deque.c: the work-stealing deque alone (src/tasks/deque.h).
 * 1. One thread: pushes up to the capacity and not past it, pops newest
 *    first, steals oldest first, and empty is empty. The lazy look at a
 *    full deque: it says full for 1, 2, 4... looks (at most
 *    BP_DEQUE_SKIP_MAX) after each look that read it full, reads again
 *    after them, and stops skipping once half the deque was taken; a push
 *    looks exactly meanwhile.
 * 2. The owner pushes ITEMS items in bursts (running an item at once when
 *    the lazy look says full, as the pool does) and pops some of them back
 *    while THIEVES threads steal, on a small deque so that it runs full and empty
 *    again and again: every item is taken exactly once, by somebody.
 * 3. The race for the last item: the owner pushes one item and pops it at
 *    once, at least ITEMS times and until the thief (which does not yield)
 *    has won 10 of them (up to LAST_MAX items or 10 s; past ITEMS the
 *    owner now and then yields between its push and its pop, for a
 *    machine too busy to run the thief beside it):
 *    each item once.
 * Not timed. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "../src/tasks/deque.h"
#include "check.h"

enum { ITEMS = 200000, THIEVES = 3, LOG2_CAP = 4, LAST_MAX = 16 * ITEMS };

static struct bp_deque dq;
static _Atomic int taken[LAST_MAX + 1];
static _Atomic int owner_done, spin_thief, thieves_up;
static _Atomic long stolen, lost;

static void take(void *x)
{
    intptr_t i = (intptr_t)x;
    CHECK(i >= 1 && i <= LAST_MAX);
    atomic_fetch_add(&taken[i], 1);
}

static void *thief(void *arg)
{
    atomic_fetch_add(&thieves_up, 1);
    for (;;) {
        void *x;
        int r = bp_deque_steal(&dq, &x);
        if (r == BP_DEQUE_GOT) {
            take(x);
            atomic_fetch_add(&stolen, 1);
        } else if (r == BP_DEQUE_LOST) {
            atomic_fetch_add(&lost, 1);
        } else if (atomic_load(&owner_done)) {
            break; /* empty, and nothing more comes */
        } else if (!atomic_load(&spin_thief)) {
            sched_yield();
        }
    }
    return NULL;
}

static void one_thread(void)
{
    CHECK_EQ(bp_deque_init(&dq, 3), 0);
    void *x;
    CHECK_EQ(bp_deque_pop(&dq, &x), BP_DEQUE_EMPTY);
    CHECK_EQ(bp_deque_steal(&dq, &x), BP_DEQUE_EMPTY);
    for (intptr_t i = 1; i <= 8; i++)
        CHECK_EQ(bp_deque_push(&dq, (void *)i), 1);
    CHECK_EQ(bp_deque_push(&dq, (void *)9), 0); /* full at 8 */
    CHECK_EQ(bp_deque_size(&dq), 8);
    CHECK_EQ(bp_deque_steal(&dq, &x), BP_DEQUE_GOT);
    CHECK_EQ((intptr_t)x, 1); /* the oldest */
    CHECK_EQ(bp_deque_pop(&dq, &x), BP_DEQUE_GOT);
    CHECK_EQ((intptr_t)x, 8); /* the newest */
    CHECK_EQ(bp_deque_push(&dq, (void *)10), 1);
    CHECK_EQ(bp_deque_push(&dq, (void *)11), 1); /* the stolen slot is reused */
    CHECK_EQ(bp_deque_push(&dq, (void *)12), 0);
    intptr_t want[] = {11, 10, 7, 6, 5, 4, 3, 2};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        CHECK_EQ(bp_deque_pop(&dq, &x), BP_DEQUE_GOT);
        CHECK_EQ((intptr_t)x, want[k]);
    }
    CHECK_EQ(bp_deque_pop(&dq, &x), BP_DEQUE_EMPTY);
    CHECK_EQ(bp_deque_steal(&dq, &x), BP_DEQUE_EMPTY);
    CHECK_EQ(bp_deque_size(&dq), 0);
    bp_deque_free(&dq);
}

/* Looks at a full deque that say full without reading: n of them. */
static void lazy_skips(int n)
{
    for (int k = 0; k < n; k++) {
        CHECK_EQ(bp_deque_full_lazy(&dq), 1);
        CHECK_EQ(dq.skips_left, n - k - 1);
    }
}

static void lazy_full(void)
{
    CHECK_EQ(bp_deque_init(&dq, 3), 0);
    void *x;
    for (intptr_t i = 1; i <= 7; i++) {
        CHECK_EQ(bp_deque_full_lazy(&dq), 0);
        CHECK_EQ(bp_deque_push(&dq, (void *)i), 1);
    }
    CHECK_EQ(bp_deque_full_lazy(&dq), 0);
    CHECK_EQ(bp_deque_push(&dq, (void *)8), 1);
    CHECK_EQ(bp_deque_full_lazy(&dq), 1); /* read: full; skip 1 look */
    CHECK_EQ(dq.run_skip, 1);
    CHECK_EQ(bp_deque_steal(&dq, &x), BP_DEQUE_GOT);
    lazy_skips(1);                        /* room, not read yet */
    CHECK_EQ(bp_deque_push(&dq, (void *)9), 1); /* exact meanwhile */
    CHECK_EQ(bp_deque_full_lazy(&dq), 1); /* read: full again; skip 2 */
    CHECK_EQ(dq.run_skip, 2);
    CHECK_EQ(bp_deque_steal(&dq, &x), BP_DEQUE_GOT);
    lazy_skips(2);
    CHECK_EQ(bp_deque_full_lazy(&dq), 0); /* read: one slot, skips kept */
    CHECK_EQ(dq.run_skip, 2);
    CHECK_EQ(bp_deque_push(&dq, (void *)10), 1);
    for (int want = 4; want <= 16; want *= 2) { /* full at each read: doubling */
        CHECK_EQ(bp_deque_full_lazy(&dq), 1);
        int cap = want < BP_DEQUE_SKIP_MAX ? want : BP_DEQUE_SKIP_MAX;
        CHECK_EQ(dq.run_skip, cap);
        lazy_skips(cap);
    }
    for (int k = 0; k < 5; k++) /* thieves take 5 of 8: they keep up */
        CHECK_EQ(bp_deque_steal(&dq, &x), BP_DEQUE_GOT);
    lazy_skips(0);
    CHECK_EQ(bp_deque_full_lazy(&dq), 0);
    CHECK_EQ(dq.run_skip, 0);
    for (intptr_t i = 11; i <= 15; i++)
        CHECK_EQ(bp_deque_push(&dq, (void *)i), 1);
    CHECK_EQ(bp_deque_full_lazy(&dq), 1); /* full: from 1 again */
    CHECK_EQ(dq.run_skip, 1);
    bp_deque_full_reset(&dq);             /* a barrier: forgotten */
    CHECK_EQ(dq.skips_left, 0);
    CHECK_EQ(bp_deque_full_lazy(&dq), 1); /* read again: still full */
    CHECK_EQ(dq.run_skip, 1);
    while (bp_deque_pop(&dq, &x) == BP_DEQUE_GOT)
        ;
    CHECK_EQ(bp_deque_full_lazy(&dq), 0); /* the owner's pops: no skip */
    bp_deque_free(&dq);
}

static void with_thieves(void)
{
    CHECK_EQ(bp_deque_init(&dq, LOG2_CAP), 0);
    pthread_t th[THIEVES];
    for (int i = 0; i < THIEVES; i++)
        CHECK_EQ(pthread_create(&th[i], NULL, thief, NULL), 0);
    long popped = 0, ran_at_once = 0;
    for (intptr_t i = 1; i <= ITEMS; i++) {
        if (bp_deque_full_lazy(&dq) || !bp_deque_push(&dq, (void *)i)) {
            take((void *)i); /* full: the owner runs it itself */
            ran_at_once++;
        }
        if (i % 3 == 0) { /* and takes some back, racing the thieves */
            void *x;
            if (bp_deque_pop(&dq, &x) == BP_DEQUE_GOT) {
                take(x);
                popped++;
            }
        }
    }
    void *x;
    while (bp_deque_pop(&dq, &x) == BP_DEQUE_GOT) {
        take(x);
        popped++;
    }
    atomic_store(&owner_done, 1);
    for (int i = 0; i < THIEVES; i++)
        CHECK_EQ(pthread_join(th[i], NULL), 0);
    long once = 0;
    for (int i = 1; i <= ITEMS; i++) {
        int times = atomic_load(&taken[i]);
        CHECK_EQ(times, 1);
        once += times;
    }
    CHECK_EQ(once, ITEMS);
    CHECK_EQ(popped + atomic_load(&stolen) + ran_at_once, ITEMS);
    printf("test-deque: %d items, each taken once: %ld popped, %ld stolen (%ld steals lost a "
           "race), %ld run at once on a full deque\n",
           ITEMS, popped, (long)atomic_load(&stolen), (long)atomic_load(&lost), ran_at_once);
    bp_deque_free(&dq);
}

static void last_item(void)
{
    CHECK_EQ(bp_deque_init(&dq, LOG2_CAP), 0);
    for (int i = 0; i <= ITEMS; i++)
        atomic_store(&taken[i], 0);
    atomic_store(&owner_done, 0);
    atomic_store(&stolen, 0);
    atomic_store(&spin_thief, 1);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, thief, NULL), 0);
    while (atomic_load(&thieves_up) < THIEVES + 1) /* the thief runs before the race */
        sched_yield();
    long popped = 0;
    time_t give_up = time(NULL) + 10;
    intptr_t n = 0;
    while (n < LAST_MAX && (n < ITEMS || (atomic_load(&stolen) < 10 && time(NULL) < give_up))) {
        n++;
        CHECK_EQ(bp_deque_push(&dq, (void *)n), 1);
        /* a thief short of CPU time gets some, with the item in the deque:
         * on a CPU the two share, a yield after the pop would only ever
         * show it an empty deque */
        if (n > ITEMS && n % 256 == 0)
            sched_yield();
        void *x;
        if (bp_deque_pop(&dq, &x) == BP_DEQUE_GOT) {
            CHECK_EQ((intptr_t)x, n);
            take(x);
            popped++;
        }
    }
    atomic_store(&owner_done, 1);
    CHECK_EQ(pthread_join(th, NULL), 0);
    for (intptr_t i = 1; i <= n; i++) {
        int times = atomic_load(&taken[i]);
        CHECK_EQ(times, 1);
    }
    long won = atomic_load(&stolen);
    CHECK_EQ(popped + won, n);
    CHECK_GE(won, 1); /* the race happened (else nothing was tested) */
    printf("test-deque: the last item, %ld times: the owner took %ld, the thief %ld\n",
           (long)n, popped, won);
    bp_deque_free(&dq);
}

int main(void)
{
    one_thread();
    lazy_full();
    with_thieves();
    last_item();
    return 0;
}
