/* deque.h: a bounded work-stealing deque of pointers, for tasks: the thread
 * that owns it pushes and pops at the bottom, any other thread steals from
 * the top (Chase and Lev, "Dynamic Circular Work-Stealing Deque", SPAA 2005;
 * the memory orders are those Le, Pop, Cohen and Zappa Nardelli proved for
 * C11 in "Correct and Efficient Work-Stealing for Weak Memory Models",
 * PPoPP 2013). Thread-free in itself: tested alone (test-deque.c).
 *
 * Slots bottom-1 down to top hold the items; top only grows (a steal, or
 * the owner's pop of the last item, moves it up by a compare-and-swap), and
 * bottom is written by the owner alone. The owner pops the newest item
 * (last in, first out: the task it just made, whose data is in its cache);
 * a thief steals the oldest (the largest piece of a recursive split).
 *
 * The one race is for the last item: the owner's pop lowers bottom, then
 * (behind a full fence) reads top; a thief reads top, then (behind a full
 * fence) bottom. Both fences sequentially consistent, at least one sees the
 * other's move, and when both go for the item the compare-and-swap on top
 * decides. A thief that loses a race to another thief says so (BP_DEQUE_LOST)
 * rather than empty, so that it may try again.
 *
 * The owner keeps the last top it read (top_seen, on its own line): top
 * only grows, so bottom - top_seen bounds the items queued from above, and
 * while that bound leaves room a push (or a look at whether the deque is
 * full or empty) reads nothing the thieves write. It reads top again only
 * when the bound says full (or not empty). A steal then takes a line the
 * owner does not keep reading, and the owner's pushes stay in its cache.
 * A slot is reused only once top_seen, read with acquire, is past the item
 * it held: the thief's read of that slot came before its compare-and-swap.
 *
 * Bounded: the capacity is fixed when the deque is made, and a push into a
 * full deque is refused; the caller then runs the task at once, as libgomp
 * and libomp do when a thread has too many queued. No resizing, so no old
 * buffer for a slow thief to read.
 *
 * A full deque, looked at lazily. An owner that makes tasks faster than
 * thieves take them finds its deque full at every task it makes, and each
 * look reads top, which the last steal took to the thief's cache: a miss
 * per task made, and a push into the slot the thief has just read, another
 * (full, bottom and top are a capacity apart: the same slot). When a look
 * finds the deque full again, bp_deque_full_lazy takes it as full for the
 * next few looks without reading (run_skip: 1, doubling while it stays
 * full, up to BP_DEQUE_SKIP_MAX), so the owner runs those tasks at once and
 * the thieves free a few slots meanwhile. When a look finds that the
 * thieves took half the deque or more, they keep up: run_skip falls to 0,
 * and each look reads again. For a master making 100 ns tasks that one
 * other thread steals (bench/tasks MASTER_TASK, 2 threads, 2-CPU AMD EPYC
 * guest, 13 alternating rounds), the overhead per task fell from 0.44 to
 * 0.34 us with clang objects and from 0.39 to 0.29 with gcc's. Thieves
 * that take bigger tasks find a deque of 64 well stocked all the same:
 * the owner runs at most BP_DEQUE_SKIP_MAX tasks between reads, and stops
 * skipping once they drain half of it. bp_deque_push looks exactly. At a
 * barrier and at the region's end the owner forgets its skips
 * (bp_deque_full_reset): the thieves may have emptied the deque since, and
 * the next burst of tasks should be queued from its first. */
#ifndef BUDDYPOOL_DEQUE_H
#define BUDDYPOOL_DEQUE_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "../internal.h"

struct bp_deque {
    alignas(BP_LINE) _Atomic int64_t top; /* thieves and the last pop move it */
    alignas(BP_LINE) _Atomic int64_t bottom; /* the owner's */
    int64_t top_seen;                        /* the owner's last read of top */
    int64_t mask;                            /* capacity - 1 */
    int run_skip;                            /* looks a full deque skips */
    int skips_left;                          /* of them, before top is read */
    void *_Atomic *slots;                    /* capacity of them */
};

enum { BP_DEQUE_EMPTY = 0, BP_DEQUE_GOT = 1, BP_DEQUE_LOST = -1 };
enum { BP_DEQUE_SKIP_MAX = 8 };

/* A deque of 2^log2_capacity slots (1 <= log2_capacity <= 30); 0, or -1
 * when out of memory. */
static inline int bp_deque_init(struct bp_deque *d, int log2_capacity)
{
    int64_t cap = (int64_t)1 << log2_capacity;
    d->slots = calloc((size_t)cap, sizeof *d->slots);
    if (d->slots == NULL)
        return -1;
    d->mask = cap - 1;
    atomic_init(&d->top, 0);
    atomic_init(&d->bottom, 0);
    d->top_seen = 0;
    d->run_skip = 0;
    d->skips_left = 0;
    return 0;
}

static inline void bp_deque_free(struct bp_deque *d)
{
    free(d->slots);
    d->slots = NULL;
}

/* Owner: items queued now (exact). */
static inline int64_t bp_deque_size(struct bp_deque *d)
{
    /* relaxed: the owner's own word */
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* acquire: top_seen then says which slots thieves are done with */
    d->top_seen = atomic_load_explicit(&d->top, memory_order_acquire);
    return b > d->top_seen ? b - d->top_seen : 0;
}

/* Owner: is the deque full (a push would be refused)? Reads top only when
 * top_seen says so. */
static inline int bp_deque_full(struct bp_deque *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    return b - d->top_seen > d->mask && bp_deque_size(d) > d->mask;
}

/* Owner: is the deque full, looked at lazily (see the top of the file)? A
 * deque it calls full may have room; one it calls not full has. */
static inline int bp_deque_full_lazy(struct bp_deque *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    if (b - d->top_seen <= d->mask)
        return 0;
    if (d->skips_left > 0) {
        d->skips_left--;
        return 1;
    }
    int64_t n = bp_deque_size(d);
    if (n > d->mask) {
        d->run_skip = d->run_skip == 0 ? 1 : d->run_skip * 2;
        if (d->run_skip > BP_DEQUE_SKIP_MAX)
            d->run_skip = BP_DEQUE_SKIP_MAX;
        d->skips_left = d->run_skip;
        return 1;
    }
    if (n <= d->mask / 2)
        d->run_skip = 0; /* the thieves keep up */
    return 0;
}

/* Owner: forget what the lazy look learnt (the deque may have been taken
 * empty meanwhile): at a barrier or the region's end. */
static inline void bp_deque_full_reset(struct bp_deque *d)
{
    d->run_skip = 0;
    d->skips_left = 0;
}

/* Owner: is the deque empty? Reads top only when top_seen says not. */
static inline int bp_deque_empty(struct bp_deque *d)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    return b <= d->top_seen || bp_deque_size(d) == 0;
}

/* Owner: queue x at the bottom; 1, or 0 when the deque is full. */
static inline int bp_deque_push(struct bp_deque *d, void *x)
{
    if (bp_deque_full(d))
        return 0;
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* relaxed: published by the release store of bottom, where the paper
     * has a release fence and a relaxed store: the same order, and one
     * that ThreadSanitizer, which does not model fences, can follow */
    atomic_store_explicit(&d->slots[b & d->mask], x, memory_order_relaxed);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
    return 1;
}

/* Owner: take the newest item into *x; BP_DEQUE_GOT, or BP_DEQUE_EMPTY. */
static inline int bp_deque_pop(struct bp_deque *d, void **x)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    atomic_store_explicit(&d->bottom, b, memory_order_relaxed);
    /* seq_cst: the lowered bottom against a thief's read of it (see above) */
    atomic_thread_fence(memory_order_seq_cst);
    int64_t t = atomic_load_explicit(&d->top, memory_order_relaxed);
    if (t > b) { /* empty */
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        return BP_DEQUE_EMPTY;
    }
    *x = atomic_load_explicit(&d->slots[b & d->mask], memory_order_relaxed);
    if (t < b)
        return BP_DEQUE_GOT; /* more than one left: no thief can reach it */
    /* the last one: a thief may be taking it; the CAS on top decides */
    int won = atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1,
                                                      memory_order_seq_cst,
                                                      memory_order_relaxed);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    return won ? BP_DEQUE_GOT : BP_DEQUE_EMPTY;
}

/* Any thread but the owner: take the oldest item into *x; BP_DEQUE_GOT,
 * BP_DEQUE_EMPTY, or BP_DEQUE_LOST when another took it first (try again). */
static inline int bp_deque_steal(struct bp_deque *d, void **x)
{
    /* acquire: the items below top were pushed before */
    int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
    /* seq_cst: against the owner's pop (see above) */
    atomic_thread_fence(memory_order_seq_cst);
    /* acquire: pairs with push's release store: the slot's item is visible */
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_acquire);
    if (t >= b)
        return BP_DEQUE_EMPTY;
    void *item = atomic_load_explicit(&d->slots[t & d->mask], memory_order_relaxed);
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return BP_DEQUE_LOST;
    *x = item;
    return BP_DEQUE_GOT;
}

#endif
