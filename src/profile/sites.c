/* sites.c: the profile's call sites, where each region was forked from.
 *
 * A region function is one row of the profile, but one outlined body can be
 * forked from many places: OpenBLAS runs every BLAS call through one body in
 * exec_blas, PyTorch's ops through a handful of parallel_for bodies. So each
 * row also counts its regions by call site.
 *
 * Capture. Every ABI entry that forks a region notes its own return address
 * (BP_HOOK_SITE: one store when profiling, __builtin_return_address costs
 * nothing), and for __kmpc_fork_call the source string clang puts in its
 * ident_t (";file;function;line;col;;", with real names under -g). The
 * outermost fork takes the note (bp_site_take) before its clock starts, so
 * any cost is serial time, not the region's. With
 * BUDDY_THREAD_POOL_PROFILE_CALLERS=N > 1 the fork also walks the stack
 * (glibc's backtrace, the unwinder over .eh_frame) and keeps N frames from
 * the entry's return address on: the callers of the library function that
 * forked. Walking costs microseconds per region, so it is only done when
 * asked.
 *
 * Table. A row's sites are an open-addressed table keyed by the frames,
 * grown by doubling up to BP_MAX_SITES; a site past that counts in the
 * row's overflow site, so the sites' calls always add up to the row's.
 * A site is named (dladdr, and its source string copied) when it is made,
 * while the code that forked it is surely mapped. Everything here runs with
 * the profile's lock held, like the rest of the profile's accounting. */
#include <execinfo.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

enum { BP_MAX_SITES = 1024, BP_WALK_FRAMES = 64 };

void bp_site_take(struct bp_listen_thread *lt)
{
    int want = bp_config.profile_callers;
    lt->site_nframes = 0;
    lt->site_loc = lt->site_src;
    if (want <= 0 || lt->site_ra == NULL) {
        lt->site_ra = NULL;
        return;
    }
    lt->site_frames[0] = lt->site_ra;
    lt->site_nframes = 1;
    if (want > 1) {
        void *buf[BP_WALK_FRAMES];
        int n = backtrace(buf, BP_WALK_FRAMES);
        for (int i = 0; i < n; i++) {
            if (buf[i] != lt->site_ra)
                continue;
            int k = 0;
            while (k < want && i + k < n) {
                lt->site_frames[k] = buf[i + k];
                k++;
            }
            lt->site_nframes = k;
            break;
        }
    }
    lt->site_ra = NULL; /* a nested entry's note must not outlive its region */
}

static size_t hash_frames(const void *const *f, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15u * (uint64_t)(n + 1);
    for (int i = 0; i < n; i++)
        h = (h ^ ((uintptr_t)f[i] >> 2)) * 0x9e3779b97f4a7c15u;
    return (size_t)(h ^ (h >> 29));
}

static int same_frames(const struct bp_site *s, const void *const *f, int n)
{
    if (s->nframes != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (s->key[i] != f[i])
            return 0;
    return 1;
}

/* ";file;function;line;col;;" into the site, unless clang wrote no location
 * (its default is ";unknown;unknown;0;0;;"). */
static void parse_location(struct bp_site *s, const char *src)
{
    if (src == NULL || src[0] != ';')
        return;
    const char *f = src + 1, *fn = strchr(f, ';');
    if (fn == NULL)
        return;
    const char *ln = strchr(fn + 1, ';');
    if (ln == NULL)
        return;
    if ((size_t)(fn - f) == 7 && memcmp(f, "unknown", 7) == 0)
        return;
    s->file = strndup(f, (size_t)(fn - f));
    s->function = strndup(fn + 1, (size_t)(ln - fn - 1));
    s->line = atoi(ln + 1);
    const char *col = strchr(ln + 1, ';');
    s->column = col != NULL ? atoi(col + 1) : 0;
}

static void site_make(struct bp_site *s, const struct bp_region_sample *r)
{
    memset(s, 0, sizeof *s);
    s->nframes = r->nsite;
    memcpy(s->key, r->site, sizeof *r->site * (size_t)r->nsite);
    s->frames = calloc((size_t)r->nsite + 1, sizeof *s->frames);
    for (int i = 0; s->frames != NULL && i < r->nsite; i++) {
        s->frames[i].address = r->site[i];
        bp_name_function(r->site[i], &s->frames[i].name, &s->frames[i].module,
                         &s->frames[i].module_offset);
    }
    parse_location(s, r->site_src);
}

static void site_clear(struct bp_site *s)
{
    for (int i = 0; s->frames != NULL && i < s->nframes; i++) {
        free(s->frames[i].name);
        free(s->frames[i].module);
    }
    free(s->frames);
    free(s->file);
    free(s->function);
}

/* The bucket for frames f in a table of cap buckets (a power of two). */
static struct bp_site *bucket(struct bp_site *b, uint32_t cap, const void *const *f, int n)
{
    for (size_t i = hash_frames(f, n) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (b[i].nframes < 0 || same_frames(&b[i], f, n))
            return &b[i];
}

static int grow(struct bp_sites *s)
{
    uint32_t cap = s->cap ? 2 * s->cap : 8;
    struct bp_site *b = malloc(sizeof *b * cap);
    if (b == NULL)
        return -1;
    for (uint32_t i = 0; i < cap; i++)
        b[i].nframes = -1;
    for (uint32_t i = 0; i < s->cap; i++)
        if (s->buckets[i].nframes >= 0)
            *bucket(b, cap, s->buckets[i].key, s->buckets[i].nframes) = s->buckets[i];
    free(s->buckets);
    s->buckets = b;
    s->cap = cap;
    return 0;
}

static struct bp_site *site_of(struct bp_sites *s, const struct bp_region_sample *r)
{
    if (s->cap > 0) {
        struct bp_site *b = bucket(s->buckets, s->cap, r->site, r->nsite);
        if (b->nframes >= 0)
            return b;
    }
    /* a new site: keep the table at most half full */
    if (s->used == BP_MAX_SITES || (2 * (s->used + 1) > s->cap && grow(s) != 0)) {
        s->other.other = 1;
        return &s->other;
    }
    struct bp_site *b = bucket(s->buckets, s->cap, r->site, r->nsite);
    site_make(b, r);
    s->used++;
    return b;
}

void bp_sites_account(struct bp_sites *s, const struct bp_region_sample *r, int64_t gap)
{
    if (bp_config.profile_callers <= 0)
        return;
    struct bp_site *site = site_of(s, r);
    site->calls++;
    site->wall_ns += r->end_ns - r->start_ns;
    site->wait_ns += r->wait_ns;
    if (gap >= 0)
        site->gap_before_ns += gap;
}

static int by_wall(const void *a, const void *b)
{
    const struct bp_site *x = a, *y = b;
    if (x->wall_ns != y->wall_ns)
        return x->wall_ns > y->wall_ns ? -1 : 1;
    return x->calls > y->calls ? -1 : x->calls < y->calls;
}

struct bp_site *bp_sites_sorted(const struct bp_sites *s, size_t *n)
{
    *n = 0;
    struct bp_site *out = malloc(sizeof *out * (s->used + 1));
    if (out == NULL)
        return NULL;
    for (uint32_t i = 0; i < s->cap; i++)
        if (s->buckets[i].nframes >= 0)
            out[(*n)++] = s->buckets[i];
    qsort(out, *n, sizeof *out, by_wall);
    if (s->other.calls > 0)
        out[(*n)++] = s->other;
    return out;
}

void bp_sites_free(struct bp_sites *s)
{
    for (uint32_t i = 0; i < s->cap; i++)
        if (s->buckets[i].nframes >= 0)
            site_clear(&s->buckets[i]);
    free(s->buckets);
    memset(s, 0, sizeof *s);
}
