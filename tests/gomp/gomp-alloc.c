/* gomp-alloc.c: the memory allocators, built by gcc and clang: the
 * predefined allocators, omp_init_allocator's alignment, pool_size and
 * fallback traits, omp_calloc, omp_realloc, the default allocator, and the
 * allocate clause (GOMP_alloc, __kmpc_alloc). */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gomp-check.h"

/* The memory space the allocators are made in: large_cap, which every
 * runtime takes (the peer libomp may predate clang's header, whose
 * omp_default_mem_space it would refuse). */
#define SPACE omp_large_cap_mem_space

/* Run on buddypool (its test programs get the argument), not a peer. */
static int on_buddypool;

static void predefined(void)
{
    const omp_allocator_handle_t all[] = {
        omp_default_mem_alloc, omp_large_cap_mem_alloc, omp_const_mem_alloc,
        omp_high_bw_mem_alloc, omp_low_lat_mem_alloc, omp_cgroup_mem_alloc,
        omp_pteam_mem_alloc, omp_thread_mem_alloc};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) {
        char *p = omp_alloc(100, all[i]);
        EXPECT_EQ(p != NULL, 1, "a predefined allocator allocates");
        if (p != NULL) {
            memset(p, 0xab, 100);
            omp_free(p, all[i]);
        }
    }
    EXPECT_EQ(omp_alloc(0, omp_default_mem_alloc) == NULL, 1, "size 0: NULL");
    omp_free(NULL, omp_default_mem_alloc); /* nothing */
}

static void traits(void)
{
    omp_alloctrait_t aligned[] = {{omp_atk_alignment, 256}};
    omp_allocator_handle_t a = omp_init_allocator(SPACE, 1, aligned);
    EXPECT_EQ(a != omp_null_allocator, 1, "an allocator with alignment 256");
    for (int i = 0; i < 20; i++) {
        void *p = omp_alloc(1 + i * 37, a);
        EXPECT_EQ((uintptr_t)p % 256, 0, "alignment trait");
        omp_free(p, a);
    }
    void *q = omp_aligned_alloc(1024, 10, a);
    EXPECT_EQ((uintptr_t)q % 1024, 0, "omp_aligned_alloc beyond the trait");
    omp_free(q, a);
    omp_destroy_allocator(a);

    omp_alloctrait_t pool[] = {{omp_atk_pool_size, 1000}, {omp_atk_fallback, omp_atv_null_fb}};
    a = omp_init_allocator(SPACE, 2, pool);
    EXPECT_EQ(a != omp_null_allocator, 1, "an allocator with a pool");
    void *b1 = omp_alloc(600, a);
    void *b2 = omp_alloc(600, a);
    EXPECT_EQ(b1 != NULL, 1, "within the pool");
    EXPECT_EQ(b2 == NULL, 1, "past the pool: null_fb gives NULL");
    omp_free(b1, a);
    b2 = omp_alloc(600, a);
    EXPECT_EQ(b2 != NULL, 1, "a freed block goes back to the pool");
    omp_free(b2, a);

    omp_alloctrait_t chained[] = {{omp_atk_pool_size, 100},
                                  {omp_atk_fallback, omp_atv_allocator_fb},
                                  {omp_atk_fb_data, (omp_uintptr_t)omp_default_mem_alloc}};
    omp_allocator_handle_t c = omp_init_allocator(SPACE, 3, chained);
    void *big = omp_alloc(5000, c);
    EXPECT_EQ(big != NULL, 1, "allocator_fb: the fallback allocator's memory");
    omp_free(big, c);
    omp_destroy_allocator(c);
    omp_destroy_allocator(a);
}

static void calloc_realloc(void)
{
    int *p = omp_calloc(1000, sizeof(int), omp_default_mem_alloc);
    int zero = 1;
    for (int i = 0; i < 1000; i++)
        zero &= p[i] == 0;
    EXPECT_EQ(zero, 1, "omp_calloc zeroes");
    for (int i = 0; i < 1000; i++)
        p[i] = i;
    p = omp_realloc(p, 5000 * sizeof(int), omp_default_mem_alloc, omp_default_mem_alloc);
    int kept = 1;
    for (int i = 0; i < 1000; i++)
        kept &= p[i] == i;
    EXPECT_EQ(kept, 1, "omp_realloc keeps the contents");
    p = omp_realloc(p, 10 * sizeof(int), omp_default_mem_alloc, omp_default_mem_alloc);
    kept = 1;
    for (int i = 0; i < 10; i++)
        kept &= p[i] == i;
    EXPECT_EQ(kept, 1, "omp_realloc smaller keeps the head");
    omp_free(p, omp_default_mem_alloc);
}

/* def-allocator-var at the start: OMP_ALLOCATOR's when the test is run
 * with omp_large_cap_mem_alloc there (the -env runs), else the default. */
static omp_allocator_handle_t initial_default(void)
{
    const char *e = getenv("OMP_ALLOCATOR");
    return e != NULL && strcmp(e, "omp_large_cap_mem_alloc") == 0 ? omp_large_cap_mem_alloc
                                                                  : omp_default_mem_alloc;
}

static void default_allocator(void)
{
    omp_allocator_handle_t first = initial_default();
    EXPECT_EQ(omp_get_default_allocator(), first, "the initial default");
    int inherited = 0;
    PRAGMA(omp parallel reduction(+ : inherited))
    inherited += omp_get_default_allocator() == first;
    EXPECT_EQ(inherited, omp_get_max_threads(), "the initial default in every thread");
    omp_set_default_allocator(omp_default_mem_alloc);
    omp_set_default_allocator(omp_high_bw_mem_alloc);
    EXPECT_EQ(omp_get_default_allocator(), omp_high_bw_mem_alloc, "set default");
    void *p = omp_alloc(10, omp_null_allocator);
    EXPECT_EQ(p != NULL, 1, "the null allocator is the default one");
    omp_free(p, omp_null_allocator);

    /* def-allocator-var is the task's (OpenMP): a region's implicit tasks
     * inherit it from the task that forks, and each then keeps its own.
     * libgomp and libomp keep it per thread, so that a task's change is
     * seen by the next task and its implicit task on the thread: the
     * explicit tasks' part runs on buddypool only. */
    omp_alloctrait_t aligned[] = {{omp_atk_alignment, 64}};
    omp_allocator_handle_t a = omp_init_allocator(SPACE, 1, aligned);
    omp_set_default_allocator(a);
    int saw = 0, in_task = 0, misaligned = 0, n = 0;
    PRAGMA(omp parallel reduction(+ : saw, in_task, misaligned, n))
    {
        n++;
        saw += omp_get_default_allocator() == a;
        void *q = omp_alloc(24, omp_null_allocator);
        misaligned += (uintptr_t)q % 64 != 0;
        omp_free(q, omp_null_allocator);
        if (on_buddypool) {
            PRAGMA(omp task shared(in_task))
            {
                if (omp_get_default_allocator() == a)
                    __atomic_fetch_add(&in_task, 1, __ATOMIC_RELAXED);
                omp_set_default_allocator(omp_default_mem_alloc); /* the task's own */
            }
            PRAGMA(omp taskwait)
            saw += omp_get_default_allocator() == a; /* the task's change stayed there */
        }
        omp_set_default_allocator(omp_default_mem_alloc); /* this implicit task's own */
    }
    EXPECT_EQ(saw, on_buddypool ? 2 * n : n, "every implicit task inherits the default");
    if (on_buddypool)
        EXPECT_EQ(in_task, n, "a task inherits the default, its change stays its own");
    EXPECT_EQ(misaligned, 0, "omp_null_allocator is the inherited default in every thread");
    EXPECT_EQ(omp_get_default_allocator(), a, "the implicit tasks' changes stayed theirs");
    omp_set_default_allocator(omp_default_mem_alloc);
    omp_destroy_allocator(a);
}

/* A pool is charged what a block takes, the header too (libgomp's and
 * libomp's are): two blocks of half the pool do not both fit. omp_realloc
 * in the same pool charges only the growth, as libgomp's does (libomp's
 * needs room for both blocks: that part is not run on it). */
static void pool_accounting(void)
{
    enum { MIB = 1 << 20 };
    omp_alloctrait_t pool[] = {{omp_atk_pool_size, 2 * MIB}, {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t a = omp_init_allocator(SPACE, 2, pool);
    void *h1 = omp_alloc(MIB, a), *h2 = omp_alloc(MIB, a);
    EXPECT_EQ((h1 != NULL) + (h2 != NULL), 1, "two halves of a pool: exactly one fits");
    omp_free(h1, a);
    omp_free(h2, a);
    omp_destroy_allocator(a);

    omp_alloctrait_t small[] = {{omp_atk_fallback, omp_atv_null_fb}, {omp_atk_pool_size, 4096}};
    a = omp_init_allocator(SPACE, 2, small);
    char *p = omp_alloc(3071, a);
    EXPECT_EQ(p != NULL, 1, "3071 bytes of a pool of 4096");
#ifdef __clang__
    if (!on_buddypool) {
        omp_free(p, a);
        omp_destroy_allocator(a);
        return;
    }
#endif
    memset(p, 7, 3071);
    char *q = omp_realloc(p, 3072, a, a);
    EXPECT_EQ(q != NULL, 1, "omp_realloc by a byte near the pool's end");
    int kept = q != NULL;
    for (int i = 0; q != NULL && i < 3071; i++)
        kept &= q[i] == 7;
    EXPECT_EQ(kept, 1, "omp_realloc in the pool keeps the contents");
    EXPECT_EQ(omp_alloc(3072, a) == NULL, 1, "the grown block still holds the pool");
    q = omp_realloc(q, 100, a, a);
    void *r = omp_alloc(3072, a);
    EXPECT_EQ(q != NULL && r != NULL, 1, "omp_realloc smaller gives the pool back");
    omp_free(q, a);
    omp_free(r, a);
    omp_destroy_allocator(a);
}

/* The allocate clause: each thread's private copy from the allocator. */
static void clause(void)
{
    omp_alloctrait_t aligned[] = {{omp_atk_alignment, 128}};
    omp_allocator_handle_t a = omp_init_allocator(SPACE, 1, aligned);
    int bad = 0;
    double x = 1.5;
    PRAGMA(omp parallel firstprivate(x) allocate(a: x) shared(bad))
    {
        if ((uintptr_t)&x % 128 != 0 || x != 1.5)
            __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
        x = omp_get_thread_num();
    }
    EXPECT_EQ(bad, 0, "allocate clause: aligned private copies, initialised");
    omp_destroy_allocator(a);
}

int main(int argc, char **argv)
{
    on_buddypool = argc > 1 && strcmp(argv[1], "buddypool") == 0;
    check_team_size("gomp-alloc");
    predefined();
    traits();
    calloc_realloc();
    default_allocator();
    pool_accounting();
    clause();
    return check_summary("gomp-alloc");
}
