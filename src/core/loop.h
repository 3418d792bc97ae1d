/* loop.h: worksharing: the loops handed out at run time, ordered
 * and copyprivate (loop.c), and the static schedule's arithmetic (sched.c).
 * A thread's part in its loop is in its own state (thread.h). */
#ifndef BUDDYPOOL_LOOP_H
#define BUDDYPOOL_LOOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../hooks.h"

struct bp_thread;
struct bp_ws;
struct mem_block;

/* Loop schedules of the worksharing engine (loop.c). */
enum { BP_LOOP_STATIC = 1, BP_LOOP_DYNAMIC = 2, BP_LOOP_GUIDED = 3,
       BP_LOOP_GUIDED_SIMD = 4 /* guided, each chunk a multiple of chunk (the simd width) */ };

/* A thread's part in the worksharing loop it is in (loop.c). */
struct bp_loop {
    struct bp_ws *ws;      /* the team's shared state; NULL in a team of one */
    int open;              /* started and not yet left by this thread */
    int done;              /* no chunk left for this thread to take */
    int sched;             /* BP_LOOP_* */
    int ordered;           /* the loop has an ordered clause */
    uint64_t last;         /* iteration indices 0..last */
    uint64_t chunk;        /* 0 with static: one block per thread */
    uint64_t next;         /* static: chunks taken; team of one: next index */
    int chunk_open;        /* cur_first..cur_last was handed out, not finished */
    uint64_t cur_first, cur_last;
    uint64_t ord_next;     /* ordered: this thread's next iteration to order */
    int ord_bumped;        /* ordered: the current iteration passed its turn */
    uint64_t base, step;   /* the ABI layer's typed bounds: index i is base + i * step */
    int work;              /* what the listeners hear it is (hooks.h's enum bp_work) */
    void *own_mem;         /* a team of one's construct memory (bp_loop_start_mem) */
    struct mem_block *shared; /* the team's construct memory, until bp_loop_finish */
    void *mem;             /* the construct memory bp_loop_start_mem gave (NULL: none) */
};

/* What the listeners hear a loop of schedule sched (BP_LOOP_*) is. */
static inline int bp_loop_work(int sched)
{
    return sched == BP_LOOP_STATIC                                  ? BP_WORK_LOOP_STATIC
           : sched == BP_LOOP_DYNAMIC                               ? BP_WORK_LOOP_DYNAMIC
           : sched == BP_LOOP_GUIDED || sched == BP_LOOP_GUIDED_SIMD ? BP_WORK_LOOP_GUIDED
                                                                    : BP_WORK_LOOP_OTHER;
}

/* loop.c */

/* Start t's next worksharing loop over iteration indices 0..last (empty:
 * none at all), with sched (BP_LOOP_*) and chunk (0: the schedule's default);
 * work (hooks.h's enum bp_work: the loop's schedule, or sections) is what
 * the listeners hear of it, at its start, at each chunk and at its end.
 * Every thread of the team calls it, in the same order as every other
 * worksharing loop; the first to arrive sets up the shared state. */
void bp_loop_start(struct bp_thread *t, int empty, uint64_t last, int sched, uint64_t chunk,
                   int ordered, int work);
/* The same with mem_size bytes (0: none) of zeroed memory shared by the
 * team for the construct, kept past its end until a later construct (see
 * loop.c): every thread gets the same pointer (NULL when mem_size is 0). */
void *bp_loop_start_mem(struct bp_thread *t, int empty, uint64_t last, int sched,
                        uint64_t chunk, int ordered, size_t mem_size, int work);
/* Free what a team of one's construct kept (its memory), when the region
 * whose state l is ends: inline, for the end of every region, whose
 * thread 0 rarely kept any. */
static inline void bp_loop_discard(struct bp_loop *l)
{
    if (__builtin_expect(l->own_mem != NULL, 0)) {
        free(l->own_mem);
        l->own_mem = NULL;
    }
}
/* t has ended its construct (the ABI's loop or sections end): it reads its
 * team-shared memory no more. */
void bp_loop_finish(struct bp_thread *t);
/* Zeroed team-shared memory of size bytes for a construct of t's team that
 * is not a loop (clang's doacross loops, kmp_loop.c): every thread of the
 * team calls it in the same order as the worksharing constructs and gets
 * the same memory (a team of one, its own), until each has ended it with
 * bp_construct_end; bp_construct_mem gives it meanwhile. who names the
 * entry point in an out-of-memory message. */
void *bp_construct_begin(struct bp_thread *t, size_t size, const char *who);
void *bp_construct_mem(struct bp_thread *t);
void bp_construct_end(struct bp_thread *t, const char *who);
/* A doacross loop's iteration bits (both ABIs): depend(source) sets an
 * iteration's bit (release: its writes before a waiter that sees it);
 * depend(sink) waits until it is set (acquire), spinning, then yielding:
 * the iteration waited for is running or next on another thread. */
void bp_doacross_post(_Atomic uint64_t *bits, uint64_t bit);
/* Up to this many ordered loops in a doacross nest: a bound on nonsense
 * (a count read from garbage), far above any nest's depth; the geometry
 * lives in the construct's memory, so a deep nest costs memory only. */
enum { BP_DOACROSS_DIMS = 4096 };
/* A stop naming who unless 1 <= dims <= BP_DOACROSS_DIMS. */
void bp_doacross_dims(const char *who, long dims);
/* The construct memory of a doacross nest of total iterations
 * (UINT64_MAX: more), its bits after head bytes: the bytes, or a stop
 * naming who when that is too large. */
size_t bp_doacross_bytes(const char *who, uint64_t total, size_t head);
void bp_doacross_wait(_Atomic uint64_t *bits, uint64_t bit);
/* t's next chunk: 1 with its indices *first..*last_idx (and *is_last when it
 * holds index last), or 0 when the loop is over for t (its end). */
int bp_loop_next(struct bp_thread *t, uint64_t *first, uint64_t *last_idx, int *is_last);
/* The ordered region of t's current iteration: wait for its turn. */
void bp_ordered_begin(struct bp_thread *t);
/* libomp's end of an ordered region: the turn passes to the next iteration
 * (libgomp's passes at the end of the chunk: it must not call this). */
void bp_ordered_end(struct bp_thread *t);
/* libgomp's end of an ordered region: only the listeners hear of it. */
void bp_ordered_leave(struct bp_thread *t);
/* libomp's end of an iteration of an ordered loop (__kmpc_dispatch_fini). */
void bp_ordered_iteration_done(struct bp_thread *t);
/* Resolve a runtime schedule from t's ICV into *sched and *chunk. */
void bp_runtime_schedule(struct bp_thread *t, int *sched, uint64_t *chunk);
/* Copyprivate: the thread with didit publishes data; every thread gets the
 * published pointer back after a barrier. The caller copies, then calls
 * bp_barrier before the data may change. */
void *bp_copyprivate(struct bp_thread *t, void *data, int didit);
/* A team's worksharing state: new (NULL when out of memory), reset by
 * thread 0 after a region that used it, freed with its team. */
struct bp_loops;
struct bp_loops *bp_loops_new(void);
void bp_loops_reset(struct bp_loops *loops);
void bp_loops_free(struct bp_loops *loops);

/* sched.c */

/* The static schedule over the iteration indices 0..last (last + 1 of them;
 * last may be UINT64_MAX). chunk 0 is the block schedule: each thread one
 * contiguous block, sizes differing by at most one. chunk >= 1 deals chunks
 * round-robin. Returns 0 when thread tid of nth gets no iteration, else 1
 * with its first block in *first..*block_last (inclusive). Sets *is_last to
 * whether tid runs index last. */
int bp_static_split(uint64_t last, uint64_t chunk, int tid, int nth,
                    uint64_t *first, uint64_t *block_last, int *is_last);

/* The typed loop bounds of __kmpc_for_static_init_*, for thread tid of nth;
 * returns the thread's iteration count. */
#define BP_STATIC_INIT_DECL(sfx, T, ST)                                          \
    uint64_t bp_for_static_init_##sfx(const char *who, int tid, int nth,       \
                                  int32_t schedtype, int32_t *plastiter,       \
                                  T *plower, T *pupper, ST *pstride, ST incr,  \
                                  ST chunk);
BP_STATIC_INIT_DECL(4, int32_t, int32_t)
BP_STATIC_INIT_DECL(4u, uint32_t, int32_t)
BP_STATIC_INIT_DECL(8, int64_t, int64_t)
BP_STATIC_INIT_DECL(8u, uint64_t, int64_t)

/* libomp schedule numbers (kmp.h's enum sched_type) that static init takes,
 * and dispatch's dynamic one. */
enum {
    BP_SCH_STATIC_CHUNKED = 33,
    BP_SCH_STATIC = 34,
    BP_SCH_DYNAMIC_CHUNKED = 35,         /* the sections of __kmpc_next_section */
    BP_SCH_ORD_STATIC_CHUNKED = 65,
    BP_SCH_STATIC_BALANCED_CHUNKED = 45, /* schedule(simd: static) */
    BP_SCH_ORD_STATIC = 66,
    BP_SCH_MONOTONIC = 1 << 29,          /* modifier bits */
    BP_SCH_NONMONOTONIC = 1 << 30,
};

#endif
