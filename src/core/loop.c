/* loop.c: worksharing loops whose chunks are handed out at run time
 * (dynamic, guided, and static ones reached through the same entry points),
 * ordered regions, sections and copyprivate, for both foreign ABIs.
 *
 * Iterations are indices 0..last; the ABI layers map their typed bounds to
 * indices and back. A team's k-th worksharing loop uses the shared state
 * ring[k % BP_RING]: since loops may be `nowait`, a fast thread can reach
 * loop k + 1 while others are still in loop k, and the ring lets up to
 * BP_RING loops be open at once (a thread that gets further ahead waits for
 * the slot to be freed).
 *
 * A slot's life: `ticket` is 0 when free. The first thread to arrive at loop
 * k moves it from 0 to k + 1, sets the loop up, then sets `ready` to k + 1;
 * the others wait for that. Each thread leaves the loop when it finds no
 * chunk left; the last one to leave (left == team size) clears `left`,
 * `ready`, then `ticket`, which frees the slot. Each team has its ring
 * (struct bp_loops, made with the team); thread 0 clears it after a region
 * that used it.
 *
 * Dynamic chunks come from an atomic fetch-add on `next`; guided ones from a
 * compare-and-swap that takes max(chunk, remaining / (2 * team size)),
 * rounded up to a multiple of chunk for libomp's guided simd schedule.
 * Static chunks need no shared state: each thread computes its own.
 *
 * gcc's team-shared construct memory (scan reductions, conditional
 * lastprivate) is allocated, zeroed, by the first thread with the loop's
 * set-up. The compiled code reads it after the thread has left the
 * construct, until it ends it (GOMP_loop_end_nowait comes after the last
 * reads), so a block is freed only once every thread has ended the
 * construct (see mem_block), when its slot is set up again, or at the
 * region's end. A team of one keeps its own until its next construct or the
 * end of the region (bp_loop_discard).
 *
 * A construct that is not a loop but needs team-shared memory (clang's
 * doacross bits, whose loop has its own state) takes a slot of its own
 * (bp_construct_begin): numbered with the loops, set up by the first
 * thread, freed with its slot by the last thread to end it.
 *
 * Ordered: `turn` holds the index whose ordered region may run next (its low
 * 32 bits: a waiter's index is never 2^32 ahead of the turn). The two ABIs
 * order differently. libomp orders iterations: the turn passes after each
 * ordered region (bp_ordered_end), and __kmpc_dispatch_fini, called after
 * every iteration of an ordered loop, passes it over an iteration that ran
 * none (bp_ordered_iteration_done). libgomp orders chunks: GOMP_ordered_end
 * does nothing, and the turn passes when the thread asks for its next chunk.
 * Either way, at the end of a chunk the turn moves past the chunk. */
#include <sched.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "../prim.h"

enum { BP_RING = 8 };

struct bp_ws {
    alignas(BP_LINE) _Atomic uint32_t ticket; /* loop number + 1 holding the slot; 0 free */
    struct bp_flag ready;                     /* loop number + 1 once set up */
    _Atomic uint32_t left;                    /* threads that have left the loop */
    int nth;                                  /* threads that must leave it */
    int sched;                                /* the schedule every thread follows */
    uint64_t chunk;
    struct mem_block *mem;                    /* team-shared memory of the construct, or NULL */
    alignas(BP_LINE) _Atomic uint64_t next;   /* dynamic, guided: next index */
    alignas(BP_LINE) struct bp_flag turn;     /* ordered: low bits of the next index */
};

/* Team-shared construct memory: a header, then the zeroed bytes the
 * compiled code asked for. Each thread that started the construct counts
 * itself in `finished` when it ends it (GOMP_loop_end[_nowait],
 * GOMP_sections_end[_nowait]); a block whose threads have all finished is
 * freed when its slot is set up again, one that some thread still reads is
 * kept on the retired list until the region ends. */
struct mem_block {
    alignas(16) _Atomic uint32_t finished;
    uint32_t nth;
    struct mem_block *next; /* on the retired list */
    alignas(16) unsigned char bytes[];
};

/* A construct's own team-shared memory (bp_construct_begin): slot k %
 * BP_SHARED_SLOTS of the team's loops holds construct k's block; `ticket`
 * is 0 when free, k + 1 once the first thread has taken it, and `ready`
 * k + 1 once the block is published; the last thread to end the construct
 * frees the block, then the slot. */
enum { BP_SHARED_SLOTS = 4 };
struct shared_block {
    uint32_t nth;
    uint32_t slot; /* its slot in the team's loops */
    _Atomic uint32_t ended;
    alignas(16) unsigned char bytes[];
};
struct shared_slot {
    _Atomic uint32_t ticket, ready;
    struct shared_block *block;
};

struct bp_loops {
    struct shared_slot shared[BP_SHARED_SLOTS];
    struct bp_ws ring[BP_RING];
    alignas(BP_LINE) struct mem_block *_Atomic retired;
    void *_Atomic copy_data; /* copyprivate: the single thread's data */
};

struct bp_loops *bp_loops_new(void)
{
    struct bp_loops *l = aligned_alloc(BP_LINE, sizeof(struct bp_loops));
    if (l != NULL)
        memset(l, 0, sizeof *l);
    return l;
}

void bp_loops_reset(struct bp_loops *l)
{
    /* no thread of the region runs now: every block can go */
    for (struct mem_block *b = atomic_load_explicit(&l->retired, memory_order_relaxed), *next;
         b != NULL; b = next) {
        next = b->next;
        free(b);
    }
    atomic_store_explicit(&l->retired, NULL, memory_order_relaxed);
    for (int i = 0; i < BP_RING; i++) {
        free(l->ring[i].mem);
        l->ring[i].mem = NULL;
        atomic_store_explicit(&l->ring[i].ticket, 0, memory_order_relaxed);
        atomic_store_explicit(&l->ring[i].ready.value, 0, memory_order_relaxed);
        atomic_store_explicit(&l->ring[i].left, 0, memory_order_relaxed);
    }
    for (int i = 0; i < BP_SHARED_SLOTS; i++) { /* a construct not ended (cancelled) */
        free(l->shared[i].block);
        l->shared[i].block = NULL;
        atomic_store_explicit(&l->shared[i].ticket, 0, memory_order_relaxed);
        atomic_store_explicit(&l->shared[i].ready, 0, memory_order_relaxed);
    }
    atomic_store_explicit(&l->copy_data, NULL, memory_order_relaxed);
}

void bp_loops_free(struct bp_loops *l)
{
    if (l == NULL)
        return;
    bp_loops_reset(l);
    free(l);
}

void bp_runtime_schedule(struct bp_thread *t, int *sched, uint64_t *chunk)
{
    /* In a region, the schedule the team was forked with; outside any, the
     * initial task's own. */
    int kind = t->level > 0 ? t->team_sched : bp_icv(t)->run_sched;
    int64_t c = t->level > 0 ? t->team_chunk : bp_icv(t)->run_chunk;
    *chunk = c > 0 ? (uint64_t)c : 0;
    switch (kind & ~BP_OMP_MONOTONIC) {
    case BP_OMP_DYNAMIC:
        *sched = BP_LOOP_DYNAMIC;
        break;
    case BP_OMP_GUIDED:
    case BP_OMP_TRAPEZOIDAL: /* chunks shrinking from first to last, as guided's */
        *sched = BP_LOOP_GUIDED;
        break;
    default: /* static, and auto: the runtime's choice is static */
        *sched = BP_LOOP_STATIC;
        break;
    }
}

/* Wait, spinning then yielding, until the slot no longer holds an older
 * loop: it is free, or another thread has already taken it for ours. */
static void wait_free(struct bp_ws *ws, uint32_t ours)
{
    for (int i = 0;; i++) {
        uint32_t v = atomic_load_explicit(&ws->ticket, memory_order_acquire);
        if (v == 0 || v == ours)
            return;
        bp_cpu_relax();
        if (i > 1000)
            sched_yield();
    }
}

/* Zeroed team-shared memory of mem_size bytes (gcc's GOMP_loop_start mem)
 * for a team of nth. */
static struct mem_block *shared_mem(size_t mem_size, int nth)
{
    struct mem_block *b = calloc(1, sizeof *b + mem_size);
    if (b == NULL)
        bp_fatal("GOMP_loop_start: out of memory for %zu bytes of team-shared construct memory",
                 mem_size);
    b->nth = (uint32_t)nth;
    return b;
}

/* The slot's block from its construct before: freed when every thread of
 * that construct has ended it, else retired until the region's end. */
static void retire(struct bp_loops *loops, struct bp_ws *ws)
{
    struct mem_block *b = ws->mem;
    if (b == NULL)
        return;
    ws->mem = NULL;
    /* acquire: every thread's reads of the block come before its count */
    if (atomic_load_explicit(&b->finished, memory_order_acquire) == b->nth) {
        free(b);
        return;
    }
    b->next = atomic_load_explicit(&loops->retired, memory_order_relaxed);
    /* release: publishes b->next to the region's end, which frees the list */
    while (!atomic_compare_exchange_weak_explicit(&loops->retired, &b->next, b,
                                                  memory_order_release,
                                                  memory_order_relaxed))
        ;
}

void bp_loop_finish(struct bp_thread *t)
{
    struct mem_block *b = t->loop.shared;
    if (b == NULL)
        return;
    t->loop.shared = NULL;
    t->loop.mem = NULL;
    /* release: this thread's reads of the block before the free that
     * acquires the count */
    atomic_fetch_add_explicit(&b->finished, 1, memory_order_release);
}

void bp_doacross_post(_Atomic uint64_t *bits, uint64_t bit)
{
    /* release: the iteration's writes before a waiter that sees its bit */
    atomic_fetch_or_explicit(&bits[bit / 64], (uint64_t)1 << (bit % 64), memory_order_release);
}

void bp_doacross_dims(const char *who, long dims)
{
    if (dims < 1 || dims > BP_DOACROSS_DIMS)
        bp_fatal("%s: a doacross loop of %ld ordered loops; 1 to %d are supported", who, dims,
                 BP_DOACROSS_DIMS);
}

size_t bp_doacross_bytes(const char *who, uint64_t total, size_t head)
{
    size_t bytes;
    if (total > (uint64_t)(SIZE_MAX / 8 - 64) ||
        __builtin_add_overflow(head, (size_t)((total + 63) / 64) * 8, &bytes))
        bp_fatal("%s: a doacross loop of %llu iterations: too large", who,
                 (unsigned long long)total);
    return bytes;
}

void bp_doacross_wait(_Atomic uint64_t *bits, uint64_t bit)
{
    uint64_t mask = (uint64_t)1 << (bit % 64);
    /* acquire: the posted iteration's writes */
    for (int i = 0; !(atomic_load_explicit(&bits[bit / 64], memory_order_acquire) & mask); i++) {
        bp_cpu_relax();
        if (i > 200)
            sched_yield();
    }
}

void *bp_construct_begin(struct bp_thread *t, size_t size, const char *who)
{
    if (t->team_size <= 1 || t->team_loops == NULL) {
        void *own = calloc(1, sizeof(struct shared_block) + size);
        if (own == NULL)
            bp_fatal("%s: out of memory for %zu bytes of construct memory", who, size);
        ((struct shared_block *)own)->nth = 1;
        t->construct = own;
        return ((struct shared_block *)own)->bytes;
    }
    uint32_t k = t->constructs++; /* numbered with the loops: one count */
    struct shared_slot *slot = &t->team_loops->shared[k % BP_SHARED_SLOTS];
    for (int i = 0;; i++) {
        uint32_t expected = 0;
        /* acquire: after the last user of an older construct freed the slot */
        if (atomic_compare_exchange_strong_explicit(&slot->ticket, &expected, k + 1,
                                                    memory_order_acquire,
                                                    memory_order_acquire)) {
            struct shared_block *b = calloc(1, sizeof *b + size);
            if (b == NULL)
                bp_fatal("%s: out of memory for %zu bytes of team-shared construct memory",
                         who, size);
            b->nth = (uint32_t)t->team_size;
            b->slot = k % BP_SHARED_SLOTS;
            slot->block = b;
            /* release: publishes the block */
            atomic_store_explicit(&slot->ready, k + 1, memory_order_release);
            t->construct = b;
            return b->bytes;
        }
        /* acquire: the block the first thread published */
        if (expected == k + 1 &&
            atomic_load_explicit(&slot->ready, memory_order_acquire) == k + 1) {
            t->construct = slot->block;
            return slot->block->bytes;
        }
        bp_cpu_relax(); /* being set up, or an older construct's still */
        if (i > 1000)
            sched_yield();
    }
}

void *bp_construct_mem(struct bp_thread *t)
{
    struct shared_block *b = t->construct;
    return b != NULL ? b->bytes : NULL;
}

void bp_construct_end(struct bp_thread *t, const char *who)
{
    struct shared_block *b = t->construct;
    if (b == NULL)
        bp_fatal("%s: no construct begun", who);
    t->construct = NULL;
    uint32_t nth = b->nth; /* read before the count: the last one frees b */
    if (nth == 1) { /* a team of one's own */
        free(b);
        return;
    }
    /* acq_rel: every thread's use of the block before the last one frees it */
    if (atomic_fetch_add_explicit(&b->ended, 1, memory_order_acq_rel) + 1 != nth)
        return;
    struct shared_slot *slot = &t->team_loops->shared[b->slot];
    slot->block = NULL;
    /* relaxed: read only by threads that saw the ticket, which follows */
    atomic_store_explicit(&slot->ready, 0, memory_order_relaxed);
    /* release: the slot's fields cleared before it is free */
    atomic_store_explicit(&slot->ticket, 0, memory_order_release);
    free(b);
}

void bp_loop_start(struct bp_thread *t, int empty, uint64_t last, int sched, uint64_t chunk,
                   int ordered, int work)
{
    bp_loop_start_mem(t, empty, last, sched, chunk, ordered, 0, work);
}

void *bp_loop_start_mem(struct bp_thread *t, int empty, uint64_t last, int sched,
                        uint64_t chunk, int ordered, size_t mem_size, int work)
{
    struct bp_loop *l = &t->loop;
    bp_loop_discard(l);
    bp_zero_fixed(l, sizeof *l);
    l->work = work;
    bp_hook_work(work, 1, empty ? 0 : last + 1);
    l->open = 1;
    l->done = empty;
    l->sched = sched;
    l->ordered = ordered;
    l->last = last;
    l->chunk = chunk == 0 && sched != BP_LOOP_STATIC ? 1 : chunk;
    if (!empty && l->chunk > last)
        l->chunk = last + 1; /* (0 when that wraps: one block) so `next` cannot wrap */
    if (l->chunk == 0 && sched != BP_LOOP_STATIC)
        l->sched = BP_LOOP_STATIC;
    if (t->team_size <= 1) { /* no shared state: l->ws stays NULL */
        l->own_mem = mem_size ? calloc(1, mem_size) : NULL;
        if (mem_size && l->own_mem == NULL)
            bp_fatal("GOMP_loop_start: out of memory for %zu bytes of construct memory",
                     mem_size);
        return l->mem = l->own_mem;
    }
    uint32_t k = t->constructs++;
    struct bp_ws *ws = &t->team_loops->ring[k % BP_RING];
    l->ws = ws;
    for (;;) {
        uint32_t expected = 0;
        /* acquire: after the last user freed the slot (its release) */
        if (atomic_compare_exchange_strong_explicit(&ws->ticket, &expected, k + 1,
                                                    memory_order_acquire,
                                                    memory_order_acquire)) {
            ws->nth = t->team_size;
            ws->sched = l->sched;
            ws->chunk = l->chunk;
            retire(t->team_loops, ws);
            ws->mem = mem_size ? shared_mem(mem_size, t->team_size) : NULL;
            atomic_store_explicit(&ws->next, empty ? last + 1 : 0, memory_order_relaxed);
            atomic_store_explicit(&ws->turn.value, 0, memory_order_relaxed);
            bp_flag_set(&ws->ready, k + 1); /* release: publishes the fields */
            break;
        }
        if (expected == k + 1) {
            bp_flag_wait(&ws->ready, k + 1); /* acquire: the fields */
            /* the first thread's schedule holds for all (a runtime schedule
             * it resolved, even if another thread's setting changed since) */
            l->sched = ws->sched;
            l->chunk = ws->chunk;
            break;
        }
        wait_free(ws, k + 1); /* an older loop still holds the slot */
    }
    if (ws->mem == NULL || mem_size == 0)
        return NULL;
    l->shared = ws->mem; /* counted out by bp_loop_finish */
    return l->mem = ws->mem->bytes;
}

/* t leaves its loop: the last thread to leave frees the slot. */
static void leave(struct bp_thread *t)
{
    struct bp_loop *l = &t->loop;
    l->open = 0;
    struct bp_ws *ws = l->ws;
    if (ws == NULL)
        return;
    l->ws = NULL;
    /* Read before counting this thread out: after that the slot may be freed
     * and taken for a later loop. */
    uint32_t nth = (uint32_t)ws->nth;
    /* acq_rel: the last leaver sees every other thread done with the slot */
    if (atomic_fetch_add_explicit(&ws->left, 1, memory_order_acq_rel) + 1 == nth) {
        atomic_store_explicit(&ws->left, 0, memory_order_relaxed);
        atomic_store_explicit(&ws->ready.value, 0, memory_order_relaxed);
        /* release: the resets above before the slot is seen free */
        atomic_store_explicit(&ws->ticket, 0, memory_order_release);
    }
}

/* The current chunk is over: pass the turn over the iterations of it whose
 * ordered regions did not run (all of them, when the ABI orders by chunk). */
static void chunk_done(struct bp_thread *t)
{
    struct bp_loop *l = &t->loop;
    if (!l->chunk_open)
        return;
    l->chunk_open = 0;
    if (l->ordered && l->ws != NULL && l->ord_next <= l->cur_last) {
        bp_flag_wait(&l->ws->turn, (uint32_t)l->ord_next);
        bp_flag_set(&l->ws->turn, (uint32_t)(l->cur_last + 1));
    }
}

/* The next chunk under the schedule; 0 when there is none. */
static int take(struct bp_thread *t, uint64_t *first, uint64_t *end)
{
    struct bp_loop *l = &t->loop;
    uint64_t c = l->chunk, last = l->last;
    if (l->done)
        return 0;
    if (l->sched == BP_LOOP_STATIC) {
        /* the thread's (l->next)-th static chunk, computed locally */
        int tid = l->ws ? t->tid : 0, nth = l->ws ? t->team_size : 1;
        int is_last;
        if (c == 0) {
            l->done = 1; /* one block per thread */
            return bp_static_split(last, 0, tid, nth, first, end, &is_last);
        }
        uint64_t chunk_index = (uint64_t)tid + l->next++ * (uint64_t)nth;
        if (chunk_index > last / c) {
            l->done = 1;
            return 0;
        }
        *first = chunk_index * c;
        *end = last - *first < c ? last : *first + c - 1;
        return 1;
    }
    if (l->ws == NULL) { /* a team of one takes every chunk in order */
        *first = l->next;
        *end = last - l->next < c ? last : l->next + c - 1;
        l->done = *end == last;
        l->next = *end + 1;
        return 1;
    }
    struct bp_ws *ws = l->ws;
    if (l->sched == BP_LOOP_DYNAMIC) {
        /* relaxed: the counter only partitions the indices. Loops are far
         * shorter than 2^64 - chunk * threads, so the sum does not wrap. */
        uint64_t idx = atomic_fetch_add_explicit(&ws->next, c, memory_order_relaxed);
        if (idx > last)
            return 0;
        *first = idx;
        *end = last - idx < c ? last : idx + c - 1;
        return 1;
    }
    /* guided: max(chunk, remaining / (2 * team size)), never past last */
    uint64_t idx = atomic_load_explicit(&ws->next, memory_order_relaxed);
    for (;;) {
        if (idx > last)
            return 0;
        uint64_t remaining_minus_1 = last - idx;
        uint64_t size = remaining_minus_1 / (2 * (uint64_t)ws->nth) + 1;
        if (size < c)
            size = c;
        else if (l->sched == BP_LOOP_GUIDED_SIMD && size % c != 0)
            size += c - size % c; /* a whole number of simd chunks */
        if (size - 1 > remaining_minus_1)
            size = remaining_minus_1 + 1;
        /* relaxed: as for dynamic */
        if (atomic_compare_exchange_weak_explicit(&ws->next, &idx, idx + size,
                                                  memory_order_relaxed, memory_order_relaxed)) {
            *first = idx;
            *end = idx + size - 1;
            return 1;
        }
    }
}

int bp_loop_next(struct bp_thread *t, uint64_t *first, uint64_t *last_idx, int *is_last)
{
    struct bp_loop *l = &t->loop;
    chunk_done(t);
    if (!l->open)
        return 0;
    uint64_t f, e;
    if (!take(t, &f, &e)) {
        bp_hook_work(l->work, 0, 0);
        leave(t);
        return 0;
    }
    bp_hook_iterations(e - f + 1);
    bp_hook_dispatch(l->work, l->work == BP_WORK_SECTIONS ? f : l->base + f * l->step,
                     e - f + 1);
    l->chunk_open = 1;
    l->cur_first = f;
    l->cur_last = e;
    l->ord_next = f;
    *first = f;
    *last_idx = e;
    if (is_last)
        *is_last = e == l->last;
    return 1;
}

/* The listeners hear of the ordered construct as a lock, named by the
 * loop's shared state (or, for a loop of one thread, its own): taken
 * when the thread's turn has come, let go of before the turn passes on
 * (bp_ordered_end, or for gcc's loops, which pass it at the next
 * iteration, bp_ordered_leave). */
static const void *ordered_id(struct bp_loop *l)
{
    return l->ws != NULL ? (const void *)l->ws : (const void *)l;
}

static inline void ordered_wait(struct bp_loop *l)
{
    if (l->ws != NULL && l->chunk_open)
        bp_flag_wait(&l->ws->turn, (uint32_t)l->ord_next);
}

static __attribute__((noinline)) void ordered_begin_heard(struct bp_loop *l)
{
    bp_hook_mutex(BP_MUTEX_ORDERED, BP_LOCK_ACQUIRE, ordered_id(l));
    ordered_wait(l);
    bp_hook_mutex(BP_MUTEX_ORDERED, BP_LOCK_ACQUIRED, ordered_id(l));
}

void bp_ordered_begin(struct bp_thread *t)
{
    if (__builtin_expect(bp_listening, 0)) /* one test when nothing listens */
        ordered_begin_heard(&t->loop);
    else
        ordered_wait(&t->loop);
}

void bp_ordered_leave(struct bp_thread *t)
{
    bp_hook_mutex(BP_MUTEX_ORDERED, BP_LOCK_RELEASED, ordered_id(&t->loop));
}

void bp_ordered_end(struct bp_thread *t)
{
    struct bp_loop *l = &t->loop;
    bp_ordered_leave(t);
    if (!l->chunk_open)
        return;
    l->ord_next++;
    l->ord_bumped = 1;
    if (l->ws != NULL)
        bp_flag_set(&l->ws->turn, (uint32_t)l->ord_next);
}

void bp_ordered_iteration_done(struct bp_thread *t)
{
    struct bp_loop *l = &t->loop;
    if (!l->chunk_open)
        return;
    if (l->ord_bumped) {
        l->ord_bumped = 0;
        return;
    }
    /* an iteration that ran no ordered region still takes its turn */
    if (l->ws != NULL)
        bp_flag_wait(&l->ws->turn, (uint32_t)l->ord_next);
    l->ord_next++;
    if (l->ws != NULL)
        bp_flag_set(&l->ws->turn, (uint32_t)l->ord_next);
}

void *bp_copyprivate(struct bp_thread *t, void *data, int didit)
{
    if (t->team_size <= 1)
        return data;
    if (didit)
        /* relaxed: published by the barrier */
        atomic_store_explicit(&t->team_loops->copy_data, data, memory_order_relaxed);
    bp_barrier(t, BP_SYNC_BARRIER_RUNTIME);
    return atomic_load_explicit(&t->team_loops->copy_data, memory_order_relaxed);
}
