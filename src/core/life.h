/* life.h: the runtime as the rest of the library sees it: its
 * start-up and the figures that need it (life.c), and the pool's threads
 * (pool.c, whose own header, pool.h, is for the files that make teams). */
#ifndef BUDDYPOOL_LIFE_H
#define BUDDYPOOL_LIFE_H

#include <sched.h>
#include <stdint.h>

/* life.c */

/* Start the runtime once: the configuration, the places and the pool's
 * memory (threads start with regions). */
void bp_pool_ensure_init(void);
/* The pool's figures, the runtime started: the most threads an
 * application thread's teams can have together (the limits,
 * BUDDY_THREAD_POOL_THREADS and OMP_THREAD_LIMIT, else BP_MAX_THREADS);
 * the team a region gets when nothing asks for a size (one thread per
 * allowed CPU, fewer under a CPU quota, lowered by the limits), and where
 * that came from; the CPUs the process may run on, as the pool found them. */
int bp_max_team(void);
int bp_default_team(void);
const struct bp_default_team *bp_default_team_info(void);
int bp_pool_cpus(void);
/* The CPUs the process could run on when the runtime started (after
 * KMP_HW_SUBSET), never empty. */
const cpu_set_t *bp_pool_initial_cpus(void);
/* omp_pause_resource on the host: end the pool's workers, which the next
 * region starts again (their threadprivate data with them, as libgomp and
 * libomp end theirs); kept when another application thread's region runs
 * on them then. 0; -1 from inside a region, as libgomp. Threads bound by
 * bp_bind_caller stay bound, and every ICV is kept. */
int bp_pool_pause(void);
/* Tests only (test-wrap): move the episode count, as if that many
 * barrier episodes had passed, without touching the words or the last
 * refresh. */
void bp_pool_test_set_epoch(uint64_t epoch);

/* pool.c */

/* Number of pool threads running now, the callers' slot included. */
int bp_pool_threads(void);
/* Bind the calling application thread to place 0 if a binding is asked for
 * (OMP_PROC_BIND, OMP_PLACES) and no thread has been bound yet (the runtime started). */
void bp_bind_caller(void);
/* Some thread has been bound so (or tried to be): read by a region's fork
 * before it calls bp_bind_caller (pool.c). */
extern _Atomic int bp_caller_claimed;
/* KMP_AFFINITY=reset: at the end of an outermost region the caller that
 * bp_bind_caller bound gets its own mask back (bp_caller_reset), and at
 * the next one its place again (bp_caller_rebind). */
void bp_caller_reset(void);
void bp_caller_rebind(void);

#endif
