/* driver.h: what the MLIR client tests' C drivers share: memref descriptors
 * as MLIR's C interface passes them, the team size a kernel should get, and
 * a record per loop iteration that the kernels' @visit callbacks fill in and
 * the driver checks after each call.
 *
 * The drivers link buddypool_static and no OpenMP runtime: the omp_* calls
 * below resolve to buddypool's. */
#ifndef BUDDYPOOL_MLIR_DRIVER_H
#define BUDDYPOOL_MLIR_DRIVER_H

#include <stdatomic.h>
#include <stdint.h>

/* From buddypool's OpenMP API (omp.h is not included: no OpenMP runtime). */
int omp_get_thread_num(void);
int omp_get_num_threads(void);

/* A ranked memref descriptor, as `_mlir_ciface_*` functions take it by
 * pointer: allocated and aligned base pointers, offset, sizes, strides. */
#define DRV_MEMREF(T, RANK)                                                  \
    struct {                                                                 \
        T *allocated;                                                        \
        T *aligned;                                                          \
        int64_t offset;                                                      \
        int64_t sizes[RANK];                                                 \
        int64_t strides[RANK];                                               \
    }
typedef DRV_MEMREF(int64_t, 1) memref_i64_1d;
typedef DRV_MEMREF(int64_t, 2) memref_i64_2d;
typedef DRV_MEMREF(double, 1) memref_f64_1d;
typedef DRV_MEMREF(float, 1) memref_f32_1d;

/* The team size a region asking for `requested` threads (0: the default)
 * gets: the request, or by default one thread per allowed CPU, capped by
 * the CPUs in sched_getaffinity and lowered by BUDDY_THREAD_POOL_THREADS.
 * OMP_NUM_THREADS, OMP_THREAD_LIMIT and BUDDY_THREAD_POOL_OVERSUBSCRIBE are
 * honoured too, so the tests hold in any environment. */
int drv_expected_team(int requested);

/* A small number naming the calling OS thread: 0, 1, 2, ... in the order
 * threads first ask (kept in thread-local storage, so never reused). */
int drv_os_thread(void);
/* How many OS threads have asked drv_os_thread so far. */
int drv_os_threads_seen(void);

/* What one loop iteration saw. Written by the thread running it (relaxed
 * atomics, so an iteration run twice is a detected error, not a data race);
 * read by the driver after the kernel has returned. */
struct drv_visit {
    _Atomic int hits;
    _Atomic int omp_thread;  /* omp_get_thread_num() */
    _Atomic int omp_threads; /* omp_get_num_threads() */
    _Atomic int os_thread;   /* drv_os_thread() */
};

/* Zero n records. */
void drv_clear(struct drv_visit *v, int64_t n);
/* Fill in *v for the calling thread and count the hit. */
void drv_visit(struct drv_visit *v);

/* The 1-D kernels' callback `func.func private @visit(i64)`: records
 * iteration i in drv_visits[i], which must be below drv_visits_n. */
extern struct drv_visit *drv_visits;
extern int64_t drv_visits_n;
void visit(int64_t i);

/* Check the records of one call of a kernel whose loop has n iterations,
 * listed in iteration order (for a collapsed loop nest, row-major over the
 * iteration numbers), run by a team of `team`:
 *   - every iteration ran exactly once;
 *   - omp_get_num_threads() was `team` in every iteration;
 *   - the static schedule: thread numbers never decrease along the
 *     iterations and the threads' iteration counts differ by at most one,
 *     so min(n, team) threads ran iterations;
 *   - each thread number ran on one OS thread, distinct thread numbers on
 *     distinct OS threads, and thread 0 on the calling thread.
 * Returns the number of distinct OS threads that ran iterations. */
int drv_check_team(const struct drv_visit *v, int64_t n, int team);

/* Check that the calling thread is outside any region (thread 0 of 1). */
void drv_check_outside(void);

/* Name what the driver is doing now: a failed CHECK (which exits) then also
 * prints "failed while: <what>". drv_phase(NULL) once all checks passed. */
void drv_phase(const char *what);

/* Calls per test: enough to reuse the pool many times; argv[1] overrides. */
int drv_calls(int argc, char **argv, int dflt);

#endif
