/* profile.c: the profiling mode's bookkeeping. The pool calls in at the end
 * of every outermost region (with fork_lock held, so regions from all
 * application threads are accounted one at a time and nothing here needs
 * atomics); barrier waits are summed per thread during the region and handed
 * over at its join.
 *
 * Gaps. Regions never overlap in time: each is timed inside fork_lock. The
 * gap before a region is its start minus the previous region's end, both
 * clock readings that also bound the regions, so
 *     span = last end - first start = sum(wall) + sum(gaps)
 * holds exactly. A gap is credited to the function of the region it ends
 * (gap_before) and to the one it follows (gap_after).
 *
 * The table. Functions are found by address in an open-addressed table of
 * BUDDY_THREAD_POOL_PROFILE_SLOTS rows. When every row is taken, a new
 * function is counted in the overflow row `other+0x0` (one warning), so the
 * calls of all rows always add up to the number of regions. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#ifndef BP_NO_PROFILER
int bp_profiling;
#endif

static struct {
    struct bp_profile_row *rows; /* `slots` rows (and a spare); fn == NULL: free */
    size_t slots, used;
    struct bp_profile_row other; /* the overflow row */
    int warned;
    struct bp_profile_totals tot;
    int64_t first_start_ns, last_end_ns;
    struct bp_profile_row *last; /* row of the previous region, for gap_after */
} prof;

void bp_profile_init(void)
{
#ifdef BP_NO_PROFILER
    if (bp_config.profile)
        bp_warn("this build has no profiler; BUDDY_THREAD_POOL_PROFILE is ignored");
#else
    if (!bp_config.profile)
        return;
    prof.slots = (size_t)bp_config.profile_slots;
    /* one spare row: the report appends the overflow row after the table */
    prof.rows = calloc(prof.slots + 1, sizeof *prof.rows);
    if (prof.rows == NULL) {
        bp_warn("out of memory for %zu profile slots; profiling is off", prof.slots);
        return;
    }
    bp_profiling = 1;
#endif
}

void bp_profile_clear(void)
{
    if (prof.rows != NULL)
        memset(prof.rows, 0, (prof.slots + 1) * sizeof *prof.rows);
    prof.used = 0;
    memset(&prof.other, 0, sizeof prof.other);
    memset(&prof.tot, 0, sizeof prof.tot);
    prof.first_start_ns = prof.last_end_ns = 0;
    prof.last = NULL;
}

static struct bp_profile_row *row_of(const void *fn)
{
    size_t h = (size_t)(((uintptr_t)fn >> 4) * 0x9e3779b97f4a7c15u) % prof.slots;
    for (size_t k = 0; k < prof.slots; k++) {
        struct bp_profile_row *r = &prof.rows[(h + k) % prof.slots];
        if (r->fn == fn)
            return r;
        if (r->fn == NULL) {
            r->fn = fn;
            prof.used++;
            return r;
        }
    }
    if (!prof.warned) {
        prof.warned = 1;
        bp_warn("profile: more than %zu region functions (BUDDY_THREAD_POOL_PROFILE_SLOTS); "
                "the others are counted together as other+0x0", prof.slots);
    }
    return &prof.other;
}

void bp_profile_region(const void *fn, int64_t start_ns, int64_t end_ns, int threads,
                       int64_t wait_ns, int64_t wait_t0_ns, uint32_t barriers)
{
    struct bp_profile_row *r = row_of(fn);
    struct bp_profile_totals *t = &prof.tot;
    if (t->regions == 0) {
        prof.first_start_ns = start_ns;
    } else {
        int64_t gap = start_ns - prof.last_end_ns;
        r->gap_before_ns += gap;
        prof.last->gap_after_ns += gap;
        t->gaps_ns += gap;
    }
    r->calls++;
    r->wall_ns += end_ns - start_ns;
    r->wait_ns += wait_ns;
    r->wait_t0_ns += wait_t0_ns;
    r->barriers += barriers;
    t->regions++;
    t->regions_ns += end_ns - start_ns;
    t->wait_ns += wait_ns;
    t->barriers += barriers;
    if (threads > t->threads)
        t->threads = threads;
    prof.last_end_ns = end_ns;
    prof.last = r;
}

void bp_profile_report(void)
{
    if (!bp_profiling)
        return;
    struct bp_profile_totals tot = prof.tot;
    tot.span_ns = tot.regions ? prof.last_end_ns - prof.first_start_ns : 0;
    /* the rows in use, then the overflow row if it counted anything */
    size_t n = 0;
    for (size_t i = 0; i < prof.slots; i++)
        if (prof.rows[i].fn != NULL)
            prof.rows[n++] = prof.rows[i];
    if (prof.other.calls > 0)
        prof.rows[n++] = prof.other;
    bp_report_write(stderr, bp_config.profile_out, &tot, prof.rows, n);
    bp_profile_clear();
}
