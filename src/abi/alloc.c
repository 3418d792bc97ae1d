/* alloc.c: the OpenMP memory allocators (omp_alloc, omp_free,
 * omp_init_allocator and their kin), libomp's __kmpc_* forms of them that
 * clang calls (for `allocate` clauses and depend objects), and gcc's
 * GOMP_alloc/GOMP_free.
 *
 * Every memory space is the host's memory, so every predefined allocator
 * (omp_default_mem_alloc .. omp_thread_mem_alloc) is malloc with its
 * default traits. An allocator made by omp_init_allocator keeps the traits
 * that change an answer: alignment, pool_size (a limit on the bytes it has
 * out at once, counted atomically) and fallback (what an allocation past
 * the limit gets: the default allocator's memory, NULL, an abort, or
 * fb_data's allocator). The others (sync_hint, access, pinned, partition)
 * are accepted and change nothing here. A block starts with a header, just
 * below the pointer handed out, that names its allocator, its size and
 * what malloc returned, so omp_free and omp_realloc need no allocator
 * argument to be right. A pool is charged what the block really takes
 * from malloc (the header and the alignment's slack too), as libgomp's and
 * libomp's pools are, so a pool of 2 MiB does not hold two blocks of 1 MiB.
 * omp_realloc within one pooled allocator charges only the difference, so
 * a block nearly as large as its pool still grows by a little. Bad
 * arguments (an unknown memory space or trait, an alignment that is not a
 * power of two) make omp_init_allocator return omp_null_allocator, as
 * OpenMP says, after one warning naming them.
 *
 * def-allocator-var, the allocator that omp_null_allocator means, is an
 * ICV of the task (struct bp_icv): it starts from OMP_ALLOCATOR (env.c),
 * and a region's implicit tasks and an explicit task inherit it from the
 * task that makes them. */
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "../internal.h"


enum {
    OMP_NULL_ALLOCATOR = 0,
    OMP_DEFAULT_MEM_ALLOC = 1,
    OMP_THREAD_MEM_ALLOC = 8, /* the last predefined one */
    OMP_LOW_LAT_MEM_SPACE = 4, /* the last memory space */
    LLVM_DEFAULT_MEM_SPACE = 99,
};
enum { ATK_SYNC_HINT = 1, ATK_ALIGNMENT, ATK_ACCESS, ATK_POOL_SIZE, ATK_FALLBACK, ATK_FB_DATA,
       ATK_PINNED, ATK_PARTITION };
enum { ATV_DEFAULT_MEM_FB = 11, ATV_NULL_FB = 12, ATV_ABORT_FB = 13, ATV_ALLOCATOR_FB = 14 };
#define ATV_DEFAULT ((uintptr_t)-1)

struct allocator {
    size_t alignment;        /* at least this; 1: malloc's */
    size_t pool_size;        /* 0: no limit */
    _Atomic size_t used;
    uintptr_t fallback;      /* ATV_* */
    omp_allocator_handle_t fb_data;
};

/* Below every block handed out. */
struct header {
    void *raw;               /* what malloc returned */
    size_t size;
    size_t taken;            /* what malloc was asked for, charged to a pool */
    struct allocator *al;    /* NULL: a predefined allocator */
};

static omp_allocator_handle_t default_allocator(void)
{
    return bp_icv(bp_self())->default_allocator;
}

static int predefined(omp_allocator_handle_t a)
{
    return a >= OMP_DEFAULT_MEM_ALLOC && a <= OMP_THREAD_MEM_ALLOC;
}

/* What a block of size bytes at that alignment takes from malloc;
 * SIZE_MAX when it cannot be had. */
static size_t taken_for(size_t align, size_t size)
{
    if (align < alignof(max_align_t))
        align = alignof(max_align_t);
    size_t extra = sizeof(struct header) + align - 1;
    return size > SIZE_MAX - extra ? SIZE_MAX : size + extra;
}

static void *raw_alloc(size_t align, size_t size, struct allocator *al)
{
    size_t taken = taken_for(align, size);
    if (taken == SIZE_MAX)
        return NULL;
    if (align < alignof(max_align_t))
        align = alignof(max_align_t);
    void *raw = malloc(taken);
    if (raw == NULL)
        return NULL;
    uintptr_t p = ((uintptr_t)raw + sizeof(struct header) + align - 1) & ~(uintptr_t)(align - 1);
    struct header *h = (struct header *)p - 1;
    h->raw = raw;
    h->size = size;
    h->taken = taken;
    h->al = al;
    return (void *)p;
}

/* Charge a pool n more bytes: whether they fit. */
static int pool_take(struct allocator *al, size_t n)
{
    /* relaxed: a count; the limit is on what is out at once */
    size_t before = atomic_fetch_add_explicit(&al->used, n, memory_order_relaxed);
    if (before + n > al->pool_size || before + n < before) {
        atomic_fetch_sub_explicit(&al->used, n, memory_order_relaxed);
        return 0;
    }
    return 1;
}

static void pool_give(struct allocator *al, size_t n)
{
    atomic_fetch_sub_explicit(&al->used, n, memory_order_relaxed); /* relaxed: as pool_take */
}

static void *alloc_with(size_t align, size_t size, omp_allocator_handle_t a, int depth)
{
    if (a == OMP_NULL_ALLOCATOR)
        a = default_allocator();
    if (size == 0)
        return NULL;
    if (align == 0 || (align & (align - 1)) != 0)
        return NULL; /* OpenMP: an alignment must be a power of two */
    if (predefined(a) || a == OMP_NULL_ALLOCATOR)
        return raw_alloc(align, size, NULL);
    struct allocator *al = (struct allocator *)a;
    if (al->alignment > align)
        align = al->alignment;
    if (al->pool_size != 0) {
        if (!pool_take(al, taken_for(align, size))) {
            switch (al->fallback) {
            case ATV_NULL_FB:
                return NULL;
            case ATV_ABORT_FB:
                bp_fatal("omp_alloc: %zu bytes past the allocator's pool of %zu (fallback "
                         "abort_fb)", size, al->pool_size);
            case ATV_ALLOCATOR_FB:
                if (depth > 64)
                    bp_fatal("omp_alloc: a loop of fallback allocators");
                return alloc_with(align, size, al->fb_data, depth + 1);
            default: /* default_mem_fb */
                return raw_alloc(align, size, NULL);
            }
        }
    }
    void *p = raw_alloc(align, size, al);
    if (p == NULL && al->pool_size != 0)
        pool_give(al, taken_for(align, size));
    return p;
}

static void free_block(void *p)
{
    if (p == NULL)
        return;
    struct header *h = (struct header *)p - 1;
    if (h->al != NULL && h->al->pool_size != 0)
        pool_give(h->al, h->taken);
    free(h->raw);
}

static void *calloc_with(size_t align, size_t n, size_t size, omp_allocator_handle_t a)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    void *p = alloc_with(align, n * size, a, 0);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}

static void *realloc_with(void *p, size_t size, omp_allocator_handle_t a,
                          omp_allocator_handle_t free_a)
{
    (void)free_a; /* the block's header names its allocator */
    if (p == NULL)
        return alloc_with(1, size, a, 0);
    struct header *h = (struct header *)p - 1;
    if (size == 0) {
        free_block(p);
        return NULL;
    }
    if (a == OMP_NULL_ALLOCATOR) /* the block's own allocator */
        a = h->al != NULL ? (omp_allocator_handle_t)h->al : OMP_DEFAULT_MEM_ALLOC;
    void *q = NULL;
    struct allocator *al = h->al;
    if (al != NULL && a == (omp_allocator_handle_t)al && al->pool_size != 0) {
        /* the same pool: charge it the difference only, the old block's
         * bytes being about to come back */
        size_t taken = taken_for(al->alignment, size), old = h->taken;
        if (taken != SIZE_MAX && (taken <= old || pool_take(al, taken - old))) {
            q = raw_alloc(al->alignment, size, al);
            if (q != NULL) {
                memcpy(q, p, h->size < size ? h->size : size);
                if (taken < old)
                    pool_give(al, old - taken);
                free(h->raw); /* its charge is the new block's now */
                return q;
            }
            if (taken > old)
                pool_give(al, taken - old);
            return NULL;
        }
        /* past the pool: the allocator's fallback, as for a new block */
    }
    q = alloc_with(1, size, a, 0);
    if (q == NULL)
        return NULL; /* the old block stays, as realloc's does */
    memcpy(q, p, h->size < size ? h->size : size);
    free_block(p);
    return q;
}

static omp_allocator_handle_t init_allocator(omp_memspace_handle_t space, int ntraits,
                                             const omp_alloctrait_t *traits)
{
    /* gcc's default space is 0, LLVM's 99 (0 is its null space) */
    if (space > OMP_LOW_LAT_MEM_SPACE && space != LLVM_DEFAULT_MEM_SPACE) {
        bp_warn("omp_init_allocator: memory space %lu is not one of the host's (0-4, 99); "
                "no allocator made", (unsigned long)space);
        return OMP_NULL_ALLOCATOR;
    }
    if (ntraits < 0 || (ntraits > 0 && traits == NULL)) {
        bp_warn("omp_init_allocator: %d traits; no allocator made", ntraits);
        return OMP_NULL_ALLOCATOR;
    }
    struct allocator a = {.alignment = 1, .fallback = ATV_DEFAULT_MEM_FB};
    for (int i = 0; i < ntraits; i++) {
        uintptr_t v = traits[i].value;
        switch (traits[i].key) {
        case ATK_ALIGNMENT:
            if (v == ATV_DEFAULT)
                v = 1;
            if (v == 0 || (v & (v - 1)) != 0) {
                bp_warn("omp_init_allocator: alignment %lu is not a power of two; no "
                        "allocator made", (unsigned long)v);
                return OMP_NULL_ALLOCATOR;
            }
            a.alignment = v;
            break;
        case ATK_POOL_SIZE:
            a.pool_size = v == ATV_DEFAULT ? 0 : v;
            break;
        case ATK_FALLBACK:
            if (v == ATV_DEFAULT)
                v = ATV_DEFAULT_MEM_FB;
            if (v < ATV_DEFAULT_MEM_FB || v > ATV_ALLOCATOR_FB) {
                bp_warn("omp_init_allocator: fallback value %lu is none of default_mem_fb, "
                        "null_fb, abort_fb, allocator_fb; no allocator made", (unsigned long)v);
                return OMP_NULL_ALLOCATOR;
            }
            a.fallback = v;
            break;
        case ATK_FB_DATA:
            a.fb_data = v;
            break;
        case ATK_SYNC_HINT:
        case ATK_ACCESS:
        case ATK_PINNED:
        case ATK_PARTITION:
            break; /* one kind of host memory: nothing changes */
        default:
            bp_warn("omp_init_allocator: unknown trait key %d; no allocator made",
                    traits[i].key);
            return OMP_NULL_ALLOCATOR;
        }
    }
    if (a.fallback == ATV_ALLOCATOR_FB && a.fb_data == OMP_NULL_ALLOCATOR) {
        bp_warn("omp_init_allocator: fallback allocator_fb without fb_data; no allocator made");
        return OMP_NULL_ALLOCATOR;
    }
    struct allocator *al = malloc(sizeof *al);
    if (al == NULL)
        return OMP_NULL_ALLOCATOR;
    *al = a;
    return (omp_allocator_handle_t)al;
}

static void destroy_allocator(omp_allocator_handle_t a)
{
    if (a != OMP_NULL_ALLOCATOR && !predefined(a))
        free((struct allocator *)a);
}

BP_API omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t space, int ntraits,
                                                 const omp_alloctrait_t traits[])
{
    return init_allocator(space, ntraits, traits);
}

BP_API void omp_destroy_allocator(omp_allocator_handle_t a) { destroy_allocator(a); }

BP_API void omp_set_default_allocator(omp_allocator_handle_t a)
{
    bp_icv_set(bp_self())->default_allocator = a == OMP_NULL_ALLOCATOR ? OMP_DEFAULT_MEM_ALLOC : a;
}

BP_API omp_allocator_handle_t omp_get_default_allocator(void) { return default_allocator(); }

BP_API void *omp_alloc(size_t size, omp_allocator_handle_t a) { return alloc_with(1, size, a, 0); }

BP_API void *omp_aligned_alloc(size_t align, size_t size, omp_allocator_handle_t a)
{
    return alloc_with(align, size, a, 0);
}

BP_API void *omp_calloc(size_t n, size_t size, omp_allocator_handle_t a)
{
    return calloc_with(1, n, size, a);
}

BP_API void *omp_aligned_calloc(size_t align, size_t n, size_t size, omp_allocator_handle_t a)
{
    return calloc_with(align, n, size, a);
}

BP_API void *omp_realloc(void *p, size_t size, omp_allocator_handle_t a,
                         omp_allocator_handle_t free_a)
{
    return realloc_with(p, size, a, free_a);
}

BP_API void omp_free(void *p, omp_allocator_handle_t a)
{
    (void)a;
    free_block(p);
}

/* libomp's forms, with the caller's global thread number first. */
BP_API void *__kmpc_alloc(int gtid, size_t size, omp_allocator_handle_t a)
{
    (void)gtid;
    return alloc_with(1, size, a, 0);
}

BP_API void *__kmpc_aligned_alloc(int gtid, size_t align, size_t size, omp_allocator_handle_t a)
{
    (void)gtid;
    return alloc_with(align, size, a, 0);
}

BP_API void *__kmpc_calloc(int gtid, size_t n, size_t size, omp_allocator_handle_t a)
{
    (void)gtid;
    return calloc_with(1, n, size, a);
}

BP_API void *__kmpc_realloc(int gtid, void *p, size_t size, omp_allocator_handle_t a,
                            omp_allocator_handle_t free_a)
{
    (void)gtid;
    return realloc_with(p, size, a, free_a);
}

BP_API void __kmpc_free(int gtid, void *p, omp_allocator_handle_t a)
{
    (void)gtid;
    (void)a;
    free_block(p);
}

BP_API omp_allocator_handle_t __kmpc_init_allocator(int gtid, omp_memspace_handle_t space,
                                                    int ntraits,
                                                    const omp_alloctrait_t traits[])
{
    (void)gtid;
    return init_allocator(space, ntraits, traits);
}

BP_API void __kmpc_destroy_allocator(int gtid, omp_allocator_handle_t a)
{
    (void)gtid;
    destroy_allocator(a);
}

BP_API void __kmpc_set_default_allocator(int gtid, omp_allocator_handle_t a)
{
    (void)gtid;
    omp_set_default_allocator(a);
}

BP_API omp_allocator_handle_t __kmpc_get_default_allocator(int gtid)
{
    (void)gtid;
    return default_allocator();
}

/* gcc's allocate clause and directive. */
BP_API void *GOMP_alloc(size_t align, size_t size, uintptr_t a)
{
    return alloc_with(align, size, a, 0);
}

BP_API void GOMP_free(void *p, uintptr_t a)
{
    (void)a;
    free_block(p);
}
