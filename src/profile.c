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
 * twice BUDDY_THREAD_POOL_PROFILE_SLOTS buckets, of which at most that many
 * are used, so a search always ends at an empty bucket. A function is named
 * (dladdr) when it takes its row, while its code is surely mapped. When the
 * rows are all taken, a new function is counted in the overflow row
 * `other+0x0` (one warning), so the calls of all rows always add up to the
 * number of regions. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#ifndef BP_NO_PROFILER
int bp_profiling;
#endif

static struct {
    struct bp_profile_row *buckets; /* 2 * slots; fn == NULL: empty */
    size_t slots, used;
    struct bp_profile_row other; /* the overflow row */
    int warned;
    int in_child;                /* this process is a child of fork() */
    struct bp_profile_totals tot;
    int64_t first_start_ns, last_end_ns;
    struct bp_profile_row *last; /* row of the previous region, for gap_after */
} prof;

static int alloc_table(void)
{
    prof.buckets = calloc(2 * prof.slots, sizeof *prof.buckets);
    return prof.buckets != NULL ? 0 : -1;
}

void bp_profile_init(void)
{
#ifdef BP_NO_PROFILER
    if (bp_config.profile)
        bp_warn("this build has no profiler; BUDDY_THREAD_POOL_PROFILE is ignored");
#else
    if (!bp_config.profile)
        return;
    prof.slots = (size_t)bp_config.profile_slots;
    prof.other = (struct bp_profile_row){.name = (char *)"other+0x0", .module = (char *)""};
    if (alloc_table() != 0) {
        bp_warn("out of memory for %zu profile slots; profiling is off", prof.slots);
        return;
    }
    bp_profiling = 1;
#endif
}

/* Forget every row and total; the table is freed, not cleared, so a huge one
 * costs nothing in a child of fork(). */
static void clear(void)
{
    if (prof.buckets != NULL) {
        for (size_t i = 0; i < 2 * prof.slots; i++) {
            free(prof.buckets[i].name);
            free(prof.buckets[i].module);
        }
        free(prof.buckets);
        prof.buckets = NULL;
    }
    prof.used = 0;
    prof.warned = 0;
    memset(&prof.tot, 0, sizeof prof.tot);
    prof.other = (struct bp_profile_row){.name = (char *)"other+0x0", .module = (char *)""};
    prof.first_start_ns = prof.last_end_ns = 0;
    prof.last = NULL;
}

void bp_profile_fork_child(void)
{
    if (!bp_profiling)
        return;
    prof.in_child = 1;
    clear();
    if (alloc_table() != 0)
        bp_fatal("profile: out of memory in a child of fork()");
}

static struct bp_profile_row *row_of(const void *fn)
{
    size_t n = 2 * prof.slots;
    size_t i = (size_t)(((uintptr_t)fn >> 4) * 0x9e3779b97f4a7c15u) % n;
    for (;; i = (i + 1) % n) {
        struct bp_profile_row *r = &prof.buckets[i];
        if (r->fn == fn)
            return r;
        if (r->fn == NULL)
            break;
    }
    if (prof.used == prof.slots) {
        if (!prof.warned) {
            prof.warned = 1;
            bp_warn("profile: more than %zu region functions (BUDDY_THREAD_POOL_PROFILE_SLOTS); "
                    "the others are counted together as other+0x0", prof.slots);
        }
        return &prof.other;
    }
    struct bp_profile_row *r = &prof.buckets[i];
    r->fn = fn;
    bp_name_function(fn, &r->name, &r->module);
    prof.used++;
    return r;
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
    if (!bp_profiling || prof.buckets == NULL)
        return;
    struct bp_profile_totals tot = prof.tot;
    /* A child of fork() that ran no region has nothing of its own to say. */
    if (prof.in_child && tot.regions == 0)
        return;
    tot.span_ns = tot.regions ? prof.last_end_ns - prof.first_start_ns : 0;
    struct bp_profile_row *rows = malloc((prof.used + 1) * sizeof *rows);
    if (rows == NULL) {
        bp_warn("profile: out of memory for the report");
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < 2 * prof.slots; i++)
        if (prof.buckets[i].fn != NULL)
            rows[n++] = prof.buckets[i];
    if (prof.other.calls > 0)
        rows[n++] = prof.other;
    /* A child of fork() writes beside the parent's file, not over it. */
    const char *path = bp_config.profile_out;
    char child_path[4096];
    if (path != NULL && prof.in_child) {
        snprintf(child_path, sizeof child_path, "%s.%ld", path, (long)getpid());
        path = child_path;
    }
    bp_report_write(stderr, path, &tot, rows, n);
    free(rows);
    clear();
}
