/* barrier.h: the team's barrier, reductions and single construct
 * (barrier.c). */
#ifndef BUDDYPOOL_BARRIER_H
#define BUDDYPOOL_BARRIER_H

#include "thread.h"

/* Barrier of t's team; kind (hooks.h's enum bp_sync: explicit, a
 * construct's implicit one, the runtime's) is what the listeners hear. */
void bp_barrier(struct bp_thread *t, int kind);
/* A cancellable barrier (a cancellation point of cancel parallel): 1 when
 * the region is cancelled, at once if it was, or while t waits there. */
int bp_barrier_cancel(struct bp_thread *t, int kind);
/* Reduction gather: thread 0 combines every thread's data into its own with
 * combine(lhs, rhs), in thread order, and gets 1; the others get 0 once their
 * data has been consumed (nowait) or once thread 0 calls bp_reduce_end. */
int bp_reduce(struct bp_thread *t, void *data, void (*combine)(void *, void *), int nowait);
void bp_reduce_end(struct bp_thread *t);
/* The single construct: 1 for the one thread of t's team that runs it. */
int bp_single(struct bp_thread *t);

#endif
