/* cancel.c: cancellation, for both ABIs, with cancel-var false: OpenMP
 * says a `cancel` construct then does nothing and a cancellation point is
 * no point, so every construct runs to completion, as it would under
 * libgomp or libomp with OMP_CANCELLATION unset (their default). The
 * entry points are buddypool's so that a preloaded program's cancel never
 * reaches the other runtime with the pool's threads. OMP_CANCELLATION=true
 * is refused with a warning (env.c): cancellation is not supported, and
 * omp_get_cancellation says false. */
#include <stdbool.h>
#include <stdint.h>

#include "gomp.h"
#include "internal.h"

/* gcc: each returns whether the construct was cancelled. */
BP_API bool GOMP_cancel(int which, bool do_cancel)
{
    (void)which;
    (void)do_cancel;
    return false;
}

BP_API bool GOMP_cancellation_point(int which)
{
    (void)which;
    return false;
}

BP_API bool GOMP_barrier_cancel(void)
{
    bp_barrier(bp_self());
    return false;
}

void GOMP_loop_end(void);
void GOMP_sections_end(void);

BP_API bool GOMP_loop_end_cancel(void)
{
    GOMP_loop_end();
    return false;
}

BP_API bool GOMP_sections_end_cancel(void)
{
    GOMP_sections_end();
    return false;
}

/* clang: 0, not cancelled. */
typedef struct ident ident_t;

BP_API int32_t __kmpc_cancel(ident_t *loc, int32_t gtid, int32_t kind)
{
    (void)loc, (void)gtid, (void)kind;
    return 0;
}

BP_API int32_t __kmpc_cancellationpoint(ident_t *loc, int32_t gtid, int32_t kind)
{
    (void)loc, (void)gtid, (void)kind;
    return 0;
}

BP_API int32_t __kmpc_cancel_barrier(ident_t *loc, int32_t gtid)
{
    (void)loc, (void)gtid;
    bp_barrier(bp_self());
    return 0;
}
