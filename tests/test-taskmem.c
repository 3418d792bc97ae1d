/* test-taskmem.c: the task memory alone (src/tasks/taskmem.c).
 * 1. One thread: a freed block is given out again, the newest first; a
 *    block too big or aligned past a line comes from the C library and is
 *    freed to it.
 * 2. A maker and a freer: the maker allocates ITEMS blocks, writes its mark
 *    in each and passes it through a ring to the freer, which checks the
 *    mark, clears it and frees the block (in batches, back to the maker).
 *    No block is given out while it is live (its mark would still be set),
 *    the maker reuses blocks the freer gave back (it allocates far fewer
 *    new ones than ITEMS), and the ring carries every item once.
 * 3. The maker exits while the freer still holds its blocks: the freer's
 *    frees after that go to the C library (the maker's cache is closed), a
 *    new thread reopens the cache, and under the sanitizers nothing leaks
 *    and nothing is freed twice.
 * Not timed. Skipped (77) under ThreadSanitizer, where tasks never use
 * the caches. */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "../src/internal.h"
#include "check.h"

enum { ITEMS = 200000, RING = 256, SEEN_LOG2 = 16 };

struct mark {
    _Atomic uint64_t live; /* the item's number while live, 0 once freed */
};

/* The ring from the maker to the freer: one writer, one reader. */
static void *_Atomic ring[RING];
static _Atomic long ring_head, ring_tail; /* written by the maker, the freer */

static void ring_put(void *p)
{
    long h = atomic_load_explicit(&ring_head, memory_order_relaxed);
    while (h - atomic_load_explicit(&ring_tail, memory_order_acquire) == RING)
        sched_yield();
    atomic_store_explicit(&ring[h % RING], p, memory_order_relaxed);
    atomic_store_explicit(&ring_head, h + 1, memory_order_release);
}

static void *ring_get(void)
{
    long t = atomic_load_explicit(&ring_tail, memory_order_relaxed);
    while (atomic_load_explicit(&ring_head, memory_order_acquire) == t)
        sched_yield();
    void *p = atomic_load_explicit(&ring[t % RING], memory_order_relaxed);
    atomic_store_explicit(&ring_tail, t + 1, memory_order_release);
    return p;
}

/* Every address the maker has been given, and whether its block is live
 * (the item's number, 0 once freed): open addressing, slots taken by the
 * maker alone, read by the freer. A block's own memory is the allocator's
 * once freed (a carrier keeps its array there), so liveness is kept here. */
static struct {
    _Atomic uintptr_t addr;
    _Atomic long live;
} seen[1 << SEEN_LOG2];
static long distinct;

static size_t slot_of(void *p, int insert)
{
    uintptr_t a = (uintptr_t)p;
    size_t i = (size_t)((a >> 6) * 0x9e3779b97f4a7c15ull >> (64 - SEEN_LOG2));
    for (;;) {
        uintptr_t x = atomic_load_explicit(&seen[i].addr, memory_order_acquire);
        if (x == a)
            return i;
        if (x == 0) {
            CHECK(insert);
            distinct++;
            CHECK_LT(distinct, (1 << SEEN_LOG2) / 2);
            atomic_store_explicit(&seen[i].addr, a, memory_order_release);
            return i;
        }
        i = (i + 1) & ((1u << SEEN_LOG2) - 1);
    }
}

static void seen_clear(void)
{
    for (size_t i = 0; i < (size_t)1 << SEEN_LOG2; i++) {
        atomic_store(&seen[i].addr, 0);
        atomic_store(&seen[i].live, 0);
    }
    distinct = 0;
}

static void one_thread(void)
{
    void *a = bp_taskmem_alloc(100, 64), *b = bp_taskmem_alloc(100, 64);
    CHECK(a != NULL && b != NULL && a != b);
    CHECK_EQ((uintptr_t)a % 64, 0);
    memset(a, 1, 100);
    bp_taskmem_free(a);
    bp_taskmem_free(b);
    CHECK(bp_taskmem_alloc(900, 8) == b); /* the newest first */
    CHECK(bp_taskmem_alloc(900, 8) == a);
    void *big = bp_taskmem_alloc(4096, 64), *wide = bp_taskmem_alloc(64, 128);
    CHECK(big != NULL && wide != NULL);
    CHECK_EQ((uintptr_t)wide % 128, 0);
    memset(big, 2, 4096);
    bp_taskmem_free(big);
    bp_taskmem_free(wide);
    bp_taskmem_free(a);
    bp_taskmem_free(b);
    bp_taskmem_free(NULL);
}

static long items_made; /* the maker's count, for the freer to stop */

/* The freer: takes `items` blocks from the ring, checks and frees them. */
static void *freer(void *arg)
{
    long items = (long)(intptr_t)arg;
    for (long k = 1; k <= items; k++) {
        struct mark *m = ring_get();
        CHECK_EQ(atomic_load_explicit(&m->live, memory_order_relaxed), (uint64_t)k);
        size_t i = slot_of(m, 0);
        CHECK_EQ(atomic_load_explicit(&seen[i].live, memory_order_relaxed), k);
        /* relaxed: the free's return of the block to its maker orders it */
        atomic_store_explicit(&seen[i].live, 0, memory_order_relaxed);
        bp_taskmem_free(m);
    }
    return NULL;
}

/* The maker: allocates `items` blocks and passes them on; exits holding
 * none of them (they are all with the freer or freed). */
static void *maker(void *arg)
{
    long items = (long)(intptr_t)arg;
    for (long k = 1; k <= items; k++) {
        size_t size = 64 + (size_t)(k % 7) * 100; /* all within a block */
        struct mark *m = bp_taskmem_alloc(size, 64);
        CHECK(m != NULL);
        CHECK_EQ((uintptr_t)m % 64, 0);
        /* a block given out again was freed: the freer's clear came before
         * its free, which came before the block's return to this thread */
        size_t i = slot_of(m, 1);
        CHECK_EQ(atomic_load_explicit(&seen[i].live, memory_order_relaxed), 0);
        atomic_store_explicit(&seen[i].live, k, memory_order_relaxed);
        atomic_store_explicit(&m->live, (uint64_t)k, memory_order_relaxed);
        ring_put(m);
        items_made = k;
    }
    return NULL;
}

static void maker_and_freer(void)
{
    pthread_t mk, fr;
    CHECK_EQ(pthread_create(&fr, NULL, freer, (void *)(intptr_t)ITEMS), 0);
    CHECK_EQ(pthread_create(&mk, NULL, maker, (void *)(intptr_t)ITEMS), 0);
    CHECK_EQ(pthread_join(mk, NULL), 0);
    CHECK_EQ(pthread_join(fr, NULL), 0);
    CHECK_EQ(items_made, ITEMS);
    CHECK_EQ(atomic_load(&ring_head), ITEMS);
    CHECK_EQ(atomic_load(&ring_tail), ITEMS);
    /* the ring holds RING, the freer's batch 32 and the maker's stack the
     * batches not yet taken: blocks come back, far fewer are new */
    CHECK_LT(distinct, ITEMS / 20);
    printf("test-taskmem: %d blocks made and freed by another thread, %ld distinct\n", ITEMS,
           distinct);
}

/* The maker exits first: its blocks in the ring and the freer's batch are
 * freed after its cache is closed. */
static void maker_exits_first(void)
{
    enum { LEFT = RING - 16 };
    atomic_store(&ring_head, 0);
    atomic_store(&ring_tail, 0);
    seen_clear();
    pthread_t mk, fr;
    CHECK_EQ(pthread_create(&mk, NULL, maker, (void *)(intptr_t)LEFT), 0);
    CHECK_EQ(pthread_join(mk, NULL), 0); /* gone: its cache is closed */
    CHECK_EQ(pthread_create(&fr, NULL, freer, (void *)(intptr_t)LEFT), 0);
    CHECK_EQ(pthread_join(fr, NULL), 0);
    /* a new thread reopens a closed cache and works as before */
    atomic_store(&ring_head, 0);
    atomic_store(&ring_tail, 0);
    seen_clear();
    CHECK_EQ(pthread_create(&fr, NULL, freer, (void *)(intptr_t)(ITEMS / 10)), 0);
    CHECK_EQ(pthread_create(&mk, NULL, maker, (void *)(intptr_t)(ITEMS / 10)), 0);
    CHECK_EQ(pthread_join(mk, NULL), 0);
    CHECK_EQ(pthread_join(fr, NULL), 0);
    CHECK_LT(distinct, ITEMS / 10 / 20);
}

int main(void)
{
    /* under ThreadSanitizer every task comes from the C library (taskmem.c):
     * there are no caches to test */
    if (dlsym(RTLD_DEFAULT, "__tsan_init") != NULL) {
        printf("skipped: under ThreadSanitizer task memory comes from the C library\n");
        return 77;
    }
    one_thread();
    maker_and_freer();
    maker_exits_first();
    printf("test-taskmem: ok\n");
    return 0;
}
