/* omp_api.c: the OpenMP user calls (`omp_*`) of the pool's threads. */
#include <stdint.h>

#include "internal.h"
#include "prim.h"

BP_API int omp_get_thread_num(void) { return bp_self()->tid; }

BP_API int omp_get_num_threads(void) { return bp_self()->team_size; }

/* The team size a region without num_threads would get if it started here.
 * Like libomp, the answer inside a region is the same as outside it, though
 * nested regions here run on one thread. */
BP_API int omp_get_max_threads(void)
{
    int n = bp_requested_threads(bp_self());
    int max = bp_max_team();
    return n < max ? n : max;
}

BP_API void omp_set_num_threads(int num_threads)
{
    if (num_threads <= 0) {
        bp_warn("omp_set_num_threads(%d): the count must be positive; ignored",
                num_threads);
        return;
    }
    bp_self()->nthreads_icv = num_threads;
}

BP_API int omp_in_parallel(void) { return bp_self()->active_level > 0; }

BP_API double omp_get_wtime(void) { return (double)bp_now_ns() * 1e-9; }
