/* kmp_api.c: the kmp_* extensions that LLVM's omp.h declares and clang
 * programs call, as a thin layer over the pool's settings:
 *   - stack size and block time set what threads started, and waits begun,
 *     afterwards use (OMP_STACKSIZE, the spin time before sleeping);
 *   - the library mode, the dispatch buffers, warnings and kmp_set_defaults
 *     are accepted and change nothing (said once for kmp_set_defaults);
 *   - the allocation calls are the C library's;
 *   - affinity masks are CPU sets, applied to the calling thread;
 *   - libomp's kmpc_* names of the setters, the allocation calls and the
 *     mask routines are the same routines, and its Fortran names (kmp_*_,
 *     arguments by reference) are in fortran.c. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "../internal.h"

/* relaxed: the pool's growth reads it once per thread it starts; no lock,
 * since a region's thread 0 holds the pool's */
BP_API void kmp_set_stacksize_s(size_t size)
{
    bp_config_load();
    if (size >= 64 * 1024)
        __atomic_store_n(&bp_config.stack_bytes, size, __ATOMIC_RELAXED);
    else
        bp_warn("kmp_set_stacksize(%zu): below 64K; the stack size stays %zu", size,
                __atomic_load_n(&bp_config.stack_bytes, __ATOMIC_RELAXED));
}

BP_API void kmp_set_stacksize(int size) { kmp_set_stacksize_s(size > 0 ? (size_t)size : 0); }

BP_API size_t kmp_get_stacksize_s(void)
{
    bp_config_load();
    return __atomic_load_n(&bp_config.stack_bytes, __ATOMIC_RELAXED);
}

BP_API int kmp_get_stacksize(void)
{
    size_t s = kmp_get_stacksize_s();
    return s > INT_MAX ? INT_MAX : (int)s;
}

/* The block time is libomp's spin time before sleeping, in milliseconds;
 * INT_MAX is infinite (never sleep). */
BP_API void kmp_set_blocktime(int ms)
{
    bp_config_load();
    int64_t ns = ms >= INT_MAX ? INT64_MAX : ms <= 0 ? 0 : (int64_t)ms * 1000000;
    /* relaxed: each wait reads it once when it starts */
    __atomic_store_n(&bp_config.spin_ns, ns, __ATOMIC_RELAXED);
    /* relaxed: a hint each wait reads when it starts */
    __atomic_store_n(&bp_config.spin_chosen, 1, __ATOMIC_RELAXED);
}

BP_API int kmp_get_blocktime(void)
{
    bp_config_load();
    int64_t ns = __atomic_load_n(&bp_config.spin_ns, __ATOMIC_RELAXED);
    return ns == INT64_MAX || ns / 1000000 > INT_MAX ? INT_MAX : (int)(ns / 1000000);
}

/* libomp's library modes (serial 1, turnaround 2, throughput 3): kept and
 * given back; the pool waits the same way in each. */
static _Atomic int library_mode = 3;

BP_API void kmp_set_library(int mode)
{
    if (mode >= 1 && mode <= 3)
        atomic_store_explicit(&library_mode, mode, memory_order_relaxed);
}

BP_API int kmp_get_library(void) { return atomic_load_explicit(&library_mode, memory_order_relaxed); }

BP_API void kmp_set_library_serial(void) { kmp_set_library(1); }

BP_API void kmp_set_library_turnaround(void) { kmp_set_library(2); }

BP_API void kmp_set_library_throughput(void) { kmp_set_library(3); }

BP_API void kmp_set_defaults(const char *settings)
{
    static _Atomic int warned;
    if (atomic_exchange_explicit(&warned, 1, memory_order_relaxed) == 0)
        bp_warn("kmp_set_defaults(\"%s\"): libomp's settings are not buddypool's; ignored "
                "(use the OMP_* and BUDDY_THREAD_POOL_* variables)",
                settings ? settings : "");
}

BP_API void kmp_set_disp_num_buffers(int n) { (void)n; }

BP_API void kmp_set_warnings_on(void) {}

BP_API void kmp_set_warnings_off(void) {}

BP_API void *kmp_malloc(size_t size) { return malloc(size); }

BP_API void *kmp_calloc(size_t nelem, size_t elsize) { return calloc(nelem, elsize); }

BP_API void *kmp_realloc(void *ptr, size_t size) { return realloc(ptr, size); }

BP_API void *kmp_aligned_malloc(size_t size, size_t alignment)
{
    void *p;
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    return posix_memalign(&p, alignment, size) == 0 ? p : NULL;
}

BP_API void kmp_free(void *ptr) { free(ptr); }

/* ---- affinity masks: a kmp_affinity_mask_t holds a cpu_set_t * --------- */

BP_API int kmp_get_affinity_max_proc(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    return n > 0 && n <= CPU_SETSIZE ? (int)n : CPU_SETSIZE;
}

BP_API void kmp_create_affinity_mask(void **mask)
{
    cpu_set_t *set = calloc(1, sizeof *set);
    *mask = set;
}

BP_API void kmp_destroy_affinity_mask(void **mask)
{
    free(*mask);
    *mask = NULL;
}

/* 0, or -1 for a CPU out of range, -2 for a mask never created. */
static int mask_proc(int proc, void **mask, int op)
{
    if (mask == NULL || *mask == NULL)
        return -2;
    if (proc < 0 || proc >= kmp_get_affinity_max_proc())
        return -1;
    cpu_set_t *set = *mask;
    if (op > 0)
        CPU_SET(proc, set);
    else if (op < 0)
        CPU_CLR(proc, set);
    else
        return CPU_ISSET(proc, set) ? 1 : 0;
    return 0;
}

BP_API int kmp_set_affinity_mask_proc(int proc, void **mask) { return mask_proc(proc, mask, 1); }

BP_API int kmp_unset_affinity_mask_proc(int proc, void **mask) { return mask_proc(proc, mask, -1); }

BP_API int kmp_get_affinity_mask_proc(int proc, void **mask) { return mask_proc(proc, mask, 0); }

BP_API int kmp_set_affinity(void **mask)
{
    if (mask == NULL || *mask == NULL)
        return -1;
    return pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), *mask) == 0 ? 0 : -1;
}

BP_API int kmp_get_affinity(void **mask)
{
    if (mask == NULL || *mask == NULL)
        return -1;
    return pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t), *mask) == 0 ? 0 : -1;
}

/* The calling thread back on every CPU the process could run on when the
 * runtime started (libomp's initial mask; TBB calls it to undo a binding
 * before it reads the process's CPUs): 0, or -1 when the system refuses.
 * The thread is then bound to no place (omp_get_place_num -1) until a
 * region binds it again, as in libomp. */
BP_API int kmp_set_thread_affinity_mask_initial(void)
{
    const cpu_set_t *set = bp_pool_initial_cpus();
    if (pthread_setaffinity_np(pthread_self(), sizeof *set, set) != 0)
        return -1;
    bp_self()->place = -1;
    return 0;
}

/* libomp's kmpc_* names of the same routines. */
BP_API void kmpc_set_stacksize(int size) __attribute__((alias("kmp_set_stacksize")));
BP_API void kmpc_set_stacksize_s(size_t size) __attribute__((alias("kmp_set_stacksize_s")));
BP_API void kmpc_set_blocktime(int ms) __attribute__((alias("kmp_set_blocktime")));
BP_API void kmpc_set_library(int mode) __attribute__((alias("kmp_set_library")));
BP_API void kmpc_set_defaults(const char *settings) __attribute__((alias("kmp_set_defaults")));
BP_API void kmpc_set_disp_num_buffers(int n) __attribute__((alias("kmp_set_disp_num_buffers")));
BP_API void *kmpc_malloc(size_t size) __attribute__((alias("kmp_malloc")));
BP_API void *kmpc_calloc(size_t nelem, size_t elsize) __attribute__((alias("kmp_calloc")));
BP_API void *kmpc_realloc(void *ptr, size_t size) __attribute__((alias("kmp_realloc")));
BP_API void *kmpc_aligned_malloc(size_t size, size_t alignment)
    __attribute__((alias("kmp_aligned_malloc")));
BP_API void kmpc_free(void *ptr) __attribute__((alias("kmp_free")));
BP_API int kmpc_set_affinity_mask_proc(int proc, void **mask)
    __attribute__((alias("kmp_set_affinity_mask_proc")));
BP_API int kmpc_unset_affinity_mask_proc(int proc, void **mask)
    __attribute__((alias("kmp_unset_affinity_mask_proc")));
BP_API int kmpc_get_affinity_mask_proc(int proc, void **mask)
    __attribute__((alias("kmp_get_affinity_mask_proc")));

/* The threads the runtime knows: the pool's. */
BP_API int kmp_get_num_known_threads(void) { return bp_pool_threads(); }
