/* internal.h: the library's own declarations, one header per module, the
 * lowest layer first: each module calls only the ones above it in this list
 * (where two call each other, their headers say so). Nothing here is part
 * of the public API; non-static internals carry the bp_ prefix and hidden
 * visibility. Not included: the headers of the files that make teams
 * (pool.h, team.h, taskteam.h, deque.h), the profiler's (profile.h, for
 * the profiler's files alone), and the ABI layers' (abi.h, kmp.h, gomp.h).
 *
 *   prim.h      the platform: pause, futex, clock, the cache line
 *   log.h       messages (log.c)
 *   env.h       the configuration and the ICVs (env.c, display.c)
 *   hooks.h     the seam the listeners hear the core through
 *   wait.h      waiting for a word, the lock word (wait.c)
 *   places.h    the machine's topology and the place list
 *   task.h      what a task is (the types)
 *   loop.h      worksharing loops (loop.c, sched.c)
 *   thread.h    a thread's state, its implicit task and ICVs (thread.c)
 *   affinity.h  the affinity format and its display
 *   tasking.h   explicit tasks: made, run, waited for; the team's queues
 *   barrier.h   barrier, reductions, single
 *   cancel.h    cancellation
 *   fork.h      regions: fork and join, nesting, ancestors
 *   life.h      the runtime's start and the pool's figures */
#ifndef BUDDYPOOL_INTERNAL_H
#define BUDDYPOOL_INTERNAL_H

#include "prim.h"
#include "core/log.h"
#include "core/env.h"
#include "hooks.h"
#include "core/wait.h"
#include "core/places.h"
#include "tasks/task.h"
#include "core/loop.h"
#include "core/thread.h"
#include "core/affinity.h"
#include "tasks/tasking.h"
#include "core/barrier.h"
#include "core/cancel.h"
#include "core/fork.h"
#include "core/life.h"

#endif
