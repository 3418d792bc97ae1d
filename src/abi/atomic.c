/* atomic.c: the runtime's part in `#pragma omp atomic`. Compilers make
 * most atomic constructs single instructions; what they cannot (a type
 * with no hardware atomic, gcc's combination of several reduction
 * variables) they bracket with GOMP_atomic_start/end, one lock for the
 * whole program, as libgomp's is. The lock word is kept apart from the
 * unnamed critical section's (libgomp keeps the two apart too), on a line
 * of its own, and is taken through bp_abi_lock so that the listeners hear
 * the wait as an atomic's (ompt_mutex_atomic). */
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "abi.h"
#include "../internal.h"

static alignas(BP_LINE) _Atomic uint32_t atomic_word;

BP_API void GOMP_atomic_start(void) { bp_abi_lock(&atomic_word, BP_MUTEX_ATOMIC, &atomic_word); }

BP_API void GOMP_atomic_end(void) { bp_abi_unlock(&atomic_word, BP_MUTEX_ATOMIC, &atomic_word); }
