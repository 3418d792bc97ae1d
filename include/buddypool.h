/* buddypool.h: the native API of buddypool, a low-latency thread pool that
 * runs the parallel regions of compiled model code (it also provides the
 * libomp and OpenMP entry points, which are not declared here).
 *
 * All functions may be called from any thread. Regions from different
 * threads run concurrently, each on its own team; a region started inside
 * an active region runs on the calling thread alone. Errors are returned as
 * negative errno values. */
#ifndef BUDDYPOOL_H
#define BUDDYPOOL_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header. These three lines are the project's one
 * statement of its version: CMakeLists.txt reads them, and the library, the
 * `buddypool` command and the Debian packages take theirs from there. */
#define BUDDYPOOL_VERSION_MAJOR 0
#define BUDDYPOOL_VERSION_MINOR 1
#define BUDDYPOOL_VERSION_PATCH 0

/* The version of the library that is running, as "MAJOR.MINOR.PATCH" (a
 * static string; never NULL). It can differ from the header's macros when a
 * program compiled against one version runs on another: the major version
 * is the shared library's (libbuddypool.so.MAJOR). */
const char *buddypool_version(void);

/* The body of a region: called once on each thread of the team, with the
 * thread's number (0 is the caller) and the team's size. */
typedef void (*buddypool_region_fn)(int thread, int team_size, void *ctx);

/* The body of a parallel loop: called at most once per thread with the
 * half-open range [begin, end) of iterations that thread runs; never with an
 * empty range. */
typedef void (*buddypool_range_fn)(int64_t begin, int64_t end, void *ctx);

/* Run fn on a team of threads and return when every thread has returned.
 * team_size: threads wanted, or 0 for the default (OMP_NUM_THREADS, else one
 * per allowed CPU). A size beyond the CPUs is honoured (the extra threads
 * share CPUs and wait politely); the team is smaller only where a limit
 * says so (BUDDY_THREAD_POOL_THREADS, OMP_THREAD_LIMIT, 4096 threads).
 * Returns 0, or -EINVAL when fn is NULL or team_size is negative. */
int buddypool_parallel(int team_size, buddypool_region_fn fn, void *ctx);

/* Run iterations 0..n-1 on the default team, split into one contiguous range
 * per thread (sizes differ by at most one), and return when all are done.
 * Returns 0 (also for n == 0, when fn is not called), or -EINVAL when fn is
 * NULL or n is negative. */
int buddypool_parallel_for(int64_t n, buddypool_range_fn fn, void *ctx);

/* Wait until every thread of the calling thread's team has reached this
 * barrier. Every thread of the team must call it the same number of times.
 * Outside a region (a team of one) it returns at once. Returns 0. */
int buddypool_barrier(void);

/* The calling thread's number in its team (0 outside a region). */
int buddypool_thread_num(void);

/* The size of the calling thread's team (1 outside a region). */
int buddypool_team_size(void);

/* The size of a default team: one thread per CPU the process may run on,
 * lowered by BUDDY_THREAD_POOL_THREADS and OMP_THREAD_LIMIT. Starts no
 * thread. */
int buddypool_max_threads(void);

/* ---- profiling (BUDDY_THREAD_POOL_PROFILE=1) ----------------------------
 * These act on the profile that is reported when the library unloads or
 * the process exits. Call them between regions, not inside one. Each
 * returns 0, or -ENOTSUP when profiling is off (nothing happens), -EBUSY
 * inside a region, -EINVAL for a bad argument. */

/* Start phase `name` (1 to 63 bytes): the regions from now until the next
 * phase begins are also accounted in that phase's table, given with its own
 * totals in the report and the JSON ("phases"). A name used before
 * continues its phase. At most 32 names: beyond, -ENOSPC (one warning) and
 * no phase is current. */
int buddypool_profile_phase(const char *name);

/* Forget all regions and phases recorded so far, so the profile covers only
 * what runs from now on. -ENOMEM if the table cannot be made again. */
int buddypool_profile_reset(void);

/* Write the text report of everything recorded so far to `out` (the JSON
 * file is written at unload only). -ENOMEM if the report cannot be built. */
int buddypool_profile_write(FILE *out);

#ifdef __cplusplus
}
#endif

#endif
