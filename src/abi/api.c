/* api.c: the native API of buddypool.h over the pool (the profile's calls
 * are the profiler's: listen.c). */
#include <errno.h>

#include "buddypool.h"
#include "../internal.h"

struct region_call {
    buddypool_region_fn fn;
    void *ctx;
};

static void run_region(int tid, void *ctx)
{
    struct region_call *c = ctx;
    BP_HOOK_CODE_FRAME();
    c->fn(tid, bp_self()->team_size, c->ctx);
}

BP_API int buddypool_parallel(int team_size, buddypool_region_fn fn, void *ctx)
{
    if (fn == NULL || team_size < 0)
        return -EINVAL;
    BP_HOOK_SITE(NULL);
    struct region_call c = {fn, ctx};
    bp_fork(team_size, run_region, &c, sizeof c, (const void *)fn);
    return 0;
}

struct for_call {
    int64_t n;
    buddypool_range_fn fn;
    void *ctx;
};

static void run_for(int tid, void *ctx)
{
    struct for_call *c = ctx;
    uint64_t first, last;
    int is_last;
    struct bp_thread *t = bp_self();
    if (bp_static_split((uint64_t)c->n - 1, 0, tid, t->team_size, &first, &last, &is_last)) {
        bp_hook_iterations(last - first + 1);
        c->fn((int64_t)first, (int64_t)last + 1, c->ctx);
    }
}

BP_API int buddypool_parallel_for(int64_t n, buddypool_range_fn fn, void *ctx)
{
    if (fn == NULL || n < 0)
        return -EINVAL;
    if (n == 0)
        return 0;
    BP_HOOK_SITE(NULL);
    struct for_call c = {n, fn, ctx};
    bp_fork(0, run_for, &c, sizeof c, (const void *)fn);
    return 0;
}

BP_API int buddypool_barrier(void)
{
    bp_barrier(bp_self(), BP_SYNC_BARRIER);
    return 0;
}

BP_API int buddypool_thread_num(void) { return bp_self()->tid; }

BP_API int buddypool_team_size(void) { return bp_self()->team_size; }

BP_API int buddypool_max_threads(void) { return bp_default_team(); }

/* The header's version numbers as one string literal, built from the macros
 * so that the library's version and its header's cannot differ. */
#define BP_STRINGIFY(x) #x
#define BP_VERSION_STRING(major, minor, patch) \
    BP_STRINGIFY(major) "." BP_STRINGIFY(minor) "." BP_STRINGIFY(patch)

BP_API const char *buddypool_version(void)
{
    return BP_VERSION_STRING(BUDDYPOOL_VERSION_MAJOR, BUDDYPOOL_VERSION_MINOR,
                             BUDDYPOOL_VERSION_PATCH);
}
