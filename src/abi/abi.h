/* abi.h: every entry point the library exports for compiled code and for
 * programs written against omp.h: libomp's (__kmpc_*, and its kmp_* and
 * ompc_* extensions), libgomp's (GOMP_*), and the omp_* API in C and in
 * Fortran, declared once and grouped by the file that defines them (as
 * libgomp's libgomp_g.h groups its own), so that a definition that drifts
 * from its declaration is a compile error, and one with no declaration a
 * warning (-Wmissing-prototypes). The ABI layers include it; the core does
 * not. The native API is include/buddypool.h's; aliases (ompc_*, the
 * Fortran names of the same routine) are declared where they are defined. */
#ifndef BUDDYPOOL_ABI_H
#define BUDDYPOOL_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gomp.h"
#include "../internal.h"
#include "kmp.h"

/* The program's locks (critical, atomic, omp_*_lock) on a lock word, told
 * to the listeners (hooks.h) as kind, named by id: the wait before the
 * lock is taken, and the release before it is free for another thread.
 * Nothing listening, each is one test and a tail call of the lock's own
 * (a critical section costs a few nanoseconds: the listened path is out
 * of line, omp_api.c). */
void bp_abi_lock_heard(_Atomic uint32_t *word, int kind, const void *id);
void bp_abi_unlock_heard(_Atomic uint32_t *word, int kind, const void *id);

static inline void bp_abi_lock(_Atomic uint32_t *word, int kind, const void *id)
{
    if (__builtin_expect(bp_listening, 0)) {
        bp_abi_lock_heard(word, kind, id);
        return;
    }
    bp_lock(word);
}

static inline void bp_abi_unlock(_Atomic uint32_t *word, int kind, const void *id)
{
    if (__builtin_expect(bp_listening, 0)) {
        bp_abi_unlock_heard(word, kind, id);
        return;
    }
    bp_unlock(word);
}

/* libgomp loaded beside a preloaded buddypool, its nthreads-var kept equal
 * to buddypool's (peer.c): the peers found so far (hidden, as bp_listening);
 * at omp_get_max_threads, a look (now and then a search for new peers);
 * at omp_set_num_threads, the new value set in the peers; at a fork that
 * asks for no size, a check of known peers for a value set behind
 * buddypool's back. Each acts outside any region only. */
extern _Atomic int bp_peers_known __attribute__((visibility("hidden")));
void bp_peers_sync(struct bp_thread *t);
void bp_peers_look(struct bp_thread *t);
void bp_peers_set(struct bp_thread *t, int n);

static inline void bp_peers_check(struct bp_thread *t)
{
    /* relaxed: a hint; bp_peers_sync acquires */
    if (__builtin_expect(atomic_load_explicit(&bp_peers_known, memory_order_relaxed) != 0, 0) &&
        t->level == 0)
        bp_peers_sync(t);
}

/* omp.h's types, as the omp_* routines take and give them. */
typedef enum omp_sched_t {
    omp_sched_static = 1,
    omp_sched_dynamic = 2,
    omp_sched_guided = 3,
    omp_sched_auto = 4,
    omp_sched_monotonic = (int)0x80000000u,
} omp_sched_t;
typedef enum omp_proc_bind_t {
    omp_proc_bind_false = 0,
    omp_proc_bind_true = 1,
    omp_proc_bind_primary = 2,
    omp_proc_bind_close = 3,
    omp_proc_bind_spread = 4,
} omp_proc_bind_t;
typedef uintptr_t omp_allocator_handle_t;
typedef uintptr_t omp_memspace_handle_t;
typedef struct {
    int key;
    uintptr_t value;
} omp_alloctrait_t;

/* ---- omp_api.c --------------------------------------------------------- */
BP_API int omp_get_thread_num(void);
BP_API int omp_get_num_threads(void);
BP_API int omp_get_max_threads(void);
BP_API void omp_set_num_threads(int num_threads);
BP_API int omp_in_parallel(void);
BP_API double omp_get_wtime(void);
BP_API int omp_get_num_procs(void);
BP_API int omp_get_level(void);
BP_API int omp_get_active_level(void);
BP_API int omp_get_ancestor_thread_num(int level);
BP_API int omp_get_team_size(int level);
BP_API void omp_set_dynamic(int dynamic);
BP_API int omp_get_dynamic(void);
BP_API void omp_set_max_active_levels(int levels);
BP_API int omp_get_max_active_levels(void);
BP_API int omp_get_supported_active_levels(void);
BP_API void omp_set_schedule(omp_sched_t kind, int chunk);
BP_API void omp_get_schedule(omp_sched_t *kind, int *chunk);
BP_API double omp_get_wtick(void);
BP_API omp_proc_bind_t omp_get_proc_bind(void);
BP_API void omp_init_lock(void *lock);
BP_API void omp_init_lock_with_hint(void *lock, int hint);
BP_API void omp_destroy_lock(void *lock);
BP_API void omp_set_lock(void *lock);
BP_API void omp_unset_lock(void *lock);
BP_API int omp_test_lock(void *lock);
BP_API void omp_init_nest_lock(void *lock);
BP_API void omp_init_nest_lock_with_hint(void *lock, int hint);
BP_API void omp_destroy_nest_lock(void *lock);
BP_API int omp_test_nest_lock(void *lock);
BP_API void omp_set_nest_lock(void *lock);
BP_API void omp_unset_nest_lock(void *lock);
BP_API void omp_set_nested(int nested);
BP_API int omp_get_nested(void);
BP_API int omp_in_final(void);
BP_API int omp_get_num_devices(void);
BP_API int omp_get_initial_device(void);
BP_API int omp_get_default_device(void);
BP_API void omp_set_default_device(int device);
BP_API int omp_is_initial_device(void);
BP_API int omp_get_device_num(void);
BP_API int omp_get_cancellation(void);
BP_API int omp_get_max_task_priority(void);
BP_API int omp_pause_resource(int kind, int device_num);
BP_API int omp_pause_resource_all(int kind);
BP_API int omp_get_place_num(void);
BP_API int omp_get_partition_num_places(void);
BP_API void omp_get_partition_place_nums(int *place_nums);
BP_API int omp_in_explicit_task(void);
BP_API int omp_control_tool(int command, int modifier, void *arg);
BP_API int omp_get_thread_limit(void);
BP_API int omp_get_num_places(void);
BP_API int omp_get_place_num_procs(int place);
BP_API void omp_get_place_proc_ids(int place, int *ids);
BP_API void omp_display_env(int verbose);

/* ---- fortran.c --------------------------------------------------------- */
BP_API int32_t omp_get_num_threads_(void);
BP_API int32_t omp_get_max_threads_(void);
BP_API int32_t omp_get_thread_num_(void);
BP_API int32_t omp_get_num_procs_(void);
BP_API int32_t omp_in_parallel_(void);
BP_API int32_t omp_get_dynamic_(void);
BP_API int32_t omp_get_nested_(void);
BP_API int32_t omp_get_max_active_levels_(void);
BP_API int32_t omp_get_supported_active_levels_(void);
BP_API int32_t omp_get_level_(void);
BP_API int32_t omp_get_active_level_(void);
BP_API int32_t omp_in_final_(void);
BP_API int32_t omp_in_explicit_task_(void);
BP_API int32_t omp_get_cancellation_(void);
BP_API int32_t omp_get_proc_bind_(void);
BP_API int32_t omp_get_num_places_(void);
BP_API int32_t omp_get_place_num_(void);
BP_API int32_t omp_get_partition_num_places_(void);
BP_API int32_t omp_get_num_teams_(void);
BP_API int32_t omp_get_team_num_(void);
BP_API int32_t omp_get_max_teams_(void);
BP_API int32_t omp_get_teams_thread_limit_(void);
BP_API int32_t omp_get_thread_limit_(void);
BP_API int32_t omp_get_default_device_(void);
BP_API int32_t omp_get_num_devices_(void);
BP_API int32_t omp_get_device_num_(void);
BP_API int32_t omp_get_initial_device_(void);
BP_API int32_t omp_is_initial_device_(void);
BP_API int32_t omp_get_max_task_priority_(void);
BP_API double omp_get_wtime_(void);
BP_API double omp_get_wtick_(void);
BP_API int64_t omp_get_default_allocator_(void);
BP_API void omp_set_num_threads_(const int32_t *v);
BP_API void omp_set_num_threads_8_(const int64_t *v);
BP_API void omp_set_dynamic_(const int32_t *v);
BP_API void omp_set_dynamic_8_(const int64_t *v);
BP_API void omp_set_nested_(const int32_t *v);
BP_API void omp_set_nested_8_(const int64_t *v);
BP_API void omp_set_max_active_levels_(const int32_t *v);
BP_API void omp_set_max_active_levels_8_(const int64_t *v);
BP_API void omp_set_num_teams_(const int32_t *v);
BP_API void omp_set_num_teams_8_(const int64_t *v);
BP_API void omp_set_teams_thread_limit_(const int32_t *v);
BP_API void omp_set_teams_thread_limit_8_(const int64_t *v);
BP_API void omp_set_default_device_(const int32_t *v);
BP_API void omp_set_default_device_8_(const int64_t *v);
BP_API void omp_display_env_(const int32_t *v);
BP_API void omp_display_env_8_(const int64_t *v);
BP_API int32_t omp_get_ancestor_thread_num_(const int32_t *v);
BP_API int32_t omp_get_ancestor_thread_num_8_(const int64_t *v);
BP_API int32_t omp_get_team_size_(const int32_t *v);
BP_API int32_t omp_get_team_size_8_(const int64_t *v);
BP_API int32_t omp_get_place_num_procs_(const int32_t *v);
BP_API int32_t omp_get_place_num_procs_8_(const int64_t *v);
BP_API int32_t omp_pause_resource_all_(const int32_t *v);
BP_API int32_t omp_pause_resource_all_8_(const int64_t *v);
BP_API int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device);
BP_API void omp_set_schedule_(const int32_t *kind, const int32_t *chunk);
BP_API void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk);
BP_API void omp_get_schedule_(int32_t *kind, int32_t *chunk);
BP_API void omp_get_schedule_8_(int32_t *kind, int64_t *chunk);
BP_API void omp_get_place_proc_ids_(const int32_t *place, int32_t *ids);
BP_API void omp_get_place_proc_ids_8_(const int64_t *place, int64_t *ids);
BP_API void omp_get_partition_place_nums_(int32_t *nums);
BP_API void omp_get_partition_place_nums_8_(int64_t *nums);
BP_API void omp_init_lock_(int32_t *lock);
BP_API void omp_destroy_lock_(int32_t *lock);
BP_API void omp_set_lock_(int32_t *lock);
BP_API void omp_unset_lock_(int32_t *lock);
BP_API int32_t omp_test_lock_(int32_t *lock);
BP_API void omp_init_nest_lock_(int64_t *lock);
BP_API void omp_destroy_nest_lock_(int64_t *lock);
BP_API void omp_set_nest_lock_(int64_t *lock);
BP_API void omp_unset_nest_lock_(int64_t *lock);
BP_API int32_t omp_test_nest_lock_(int64_t *lock);
BP_API void omp_fulfill_event_(uintptr_t event);
BP_API void omp_set_default_allocator_(const int64_t *a);
BP_API void omp_destroy_allocator_(const int64_t *a);
BP_API int64_t omp_init_allocator_(const int64_t *space, const int32_t *ntraits,
                                   const void *traits);
BP_API int64_t omp_init_allocator_8_(const int64_t *space, const int64_t *ntraits,
                                     const void *traits);
BP_API void omp_set_affinity_format_(const char *format, size_t len);
BP_API int32_t omp_get_affinity_format_(char *buffer, size_t len);
BP_API void omp_display_affinity_(const char *format, size_t len);
BP_API int32_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_len,
                                     size_t format_len);



BP_API void omp_init_lock_with_hint_(int32_t *lock, const int32_t *hint);
BP_API void omp_init_nest_lock_with_hint_(int64_t *lock, const int32_t *hint);
BP_API int32_t omp_control_tool_(const int32_t *command, const int32_t *modifier, void *arg);
BP_API void kmp_set_stacksize_(const int32_t *size);
BP_API void kmp_set_stacksize_s_(const size_t *size);
BP_API int32_t kmp_get_stacksize_(void);
BP_API size_t kmp_get_stacksize_s_(void);
BP_API void kmp_set_blocktime_(const int32_t *ms);
BP_API int32_t kmp_get_blocktime_(void);
BP_API void kmp_set_library_(const int32_t *mode);
BP_API int32_t kmp_get_library_(void);
BP_API void kmp_set_library_serial_(void);
BP_API void kmp_set_library_turnaround_(void);
BP_API void kmp_set_library_throughput_(void);
BP_API void kmp_set_disp_num_buffers_(const int32_t *n);
BP_API void kmp_set_warnings_on_(void);
BP_API void kmp_set_warnings_off_(void);
BP_API int32_t kmp_get_num_known_threads_(void);
BP_API void kmp_set_defaults_(const char *settings, size_t len);
BP_API void *kmp_malloc_(const size_t *size);
BP_API void *kmp_calloc_(const size_t *nelem, const size_t *elsize);
BP_API void *kmp_realloc_(void *const *ptr, const size_t *size);
BP_API void *kmp_aligned_malloc_(const size_t *size, const size_t *alignment);
BP_API void kmp_free_(void *const *ptr);
BP_API int32_t kmp_get_affinity_max_proc_(void);
BP_API void kmp_create_affinity_mask_(void **mask);
BP_API void kmp_destroy_affinity_mask_(void **mask);
BP_API int32_t kmp_set_affinity_(void **mask);
BP_API int32_t kmp_get_affinity_(void **mask);
BP_API int32_t kmp_set_affinity_mask_proc_(const int32_t *proc, void **mask);
BP_API int32_t kmp_unset_affinity_mask_proc_(const int32_t *proc, void **mask);
BP_API int32_t kmp_get_affinity_mask_proc_(const int32_t *proc, void **mask);

/* ---- affinity.c -------------------------------------------------------- */
BP_API void omp_set_affinity_format(const char *format);
BP_API size_t omp_get_affinity_format(char *buffer, size_t size);
BP_API void omp_display_affinity(const char *format);
BP_API size_t omp_capture_affinity(char *buffer, size_t size, const char *format);
BP_API void ompc_set_affinity_format(const char *format);
BP_API size_t ompc_get_affinity_format(char *buffer, size_t size);
BP_API size_t ompc_capture_affinity(char *buffer, size_t size, const char *format);
BP_API void ompc_display_affinity(const char *format);

/* ---- alloc.c ----------------------------------------------------------- */
BP_API omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t space, int ntraits,
                                                 const omp_alloctrait_t traits[]);
BP_API void omp_destroy_allocator(omp_allocator_handle_t a);
BP_API void omp_set_default_allocator(omp_allocator_handle_t a);
BP_API omp_allocator_handle_t omp_get_default_allocator(void);
BP_API void *omp_alloc(size_t size, omp_allocator_handle_t a);
BP_API void *omp_aligned_alloc(size_t align, size_t size, omp_allocator_handle_t a);
BP_API void *omp_calloc(size_t n, size_t size, omp_allocator_handle_t a);
BP_API void *omp_aligned_calloc(size_t align, size_t n, size_t size, omp_allocator_handle_t a);
BP_API void *omp_realloc(void *p, size_t size, omp_allocator_handle_t a,
                         omp_allocator_handle_t free_a);
BP_API void omp_free(void *p, omp_allocator_handle_t a);
BP_API void *__kmpc_alloc(int gtid, size_t size, omp_allocator_handle_t a);
BP_API void *__kmpc_aligned_alloc(int gtid, size_t align, size_t size,
                                  omp_allocator_handle_t a);
BP_API void *__kmpc_calloc(int gtid, size_t n, size_t size, omp_allocator_handle_t a);
BP_API void *__kmpc_realloc(int gtid, void *p, size_t size, omp_allocator_handle_t a,
                            omp_allocator_handle_t free_a);
BP_API void __kmpc_free(int gtid, void *p, omp_allocator_handle_t a);
BP_API omp_allocator_handle_t __kmpc_init_allocator(int gtid, omp_memspace_handle_t space,
                                                    int ntraits,
                                                    const omp_alloctrait_t traits[]);
BP_API void __kmpc_destroy_allocator(int gtid, omp_allocator_handle_t a);
BP_API void __kmpc_set_default_allocator(int gtid, omp_allocator_handle_t a);
BP_API omp_allocator_handle_t __kmpc_get_default_allocator(int gtid);
BP_API void *GOMP_alloc(size_t align, size_t size, uintptr_t a);
BP_API void GOMP_free(void *p, uintptr_t a);

/* ---- kmp_abi.c --------------------------------------------------------- */
BP_API void __kmpc_fork_call(ident_t *loc, int32_t argc, kmpc_micro microtask, ...);
BP_API void __kmpc_fork_call_if(ident_t *loc, int32_t argc, kmpc_micro microtask, int32_t cond,
                                void *args);
BP_API void __kmpc_push_num_threads(ident_t *loc, int32_t gtid, int32_t num_threads);
BP_API void __kmpc_push_num_threads_strict(ident_t *loc, int32_t gtid, int32_t num_threads,
                                           int severity, const char *message);
BP_API void __kmpc_push_num_threads_list(ident_t *loc, int32_t gtid, uint32_t length,
                                         int32_t *list);
BP_API void __kmpc_push_num_threads_list_strict(ident_t *loc, int32_t gtid, uint32_t length,
                                                int32_t *list, int severity, const char *message);
BP_API void __kmpc_push_proc_bind(ident_t *loc, int32_t gtid, int proc_bind);
BP_API void __kmpc_flush(ident_t *loc);
BP_API int32_t __kmpc_global_thread_num(ident_t *loc);
BP_API void __kmpc_barrier(ident_t *loc, int32_t gtid);
BP_API int32_t __kmpc_reduce(ident_t *loc, int32_t gtid, int32_t num_vars, size_t size,
                             void *data, kmpc_reduce_fn reduce_func, kmp_critical_name *lck);
BP_API void __kmpc_end_reduce(ident_t *loc, int32_t gtid, kmp_critical_name *lck);
BP_API int32_t __kmpc_reduce_nowait(ident_t *loc, int32_t gtid, int32_t num_vars, size_t size,
                                    void *data, kmpc_reduce_fn reduce_func,
                                    kmp_critical_name *lck);
BP_API void __kmpc_end_reduce_nowait(ident_t *loc, int32_t gtid, kmp_critical_name *lck);
BP_API void __kmpc_serialized_parallel(ident_t *loc, int32_t gtid);
BP_API void __kmpc_end_serialized_parallel(ident_t *loc, int32_t gtid);
BP_API int32_t __kmpc_single(ident_t *loc, int32_t gtid);
BP_API void __kmpc_end_single(ident_t *loc, int32_t gtid);
BP_API int32_t __kmpc_master(ident_t *loc, int32_t gtid);
BP_API void __kmpc_end_master(ident_t *loc, int32_t gtid);
BP_API int32_t __kmpc_masked(ident_t *loc, int32_t gtid, int32_t filter);
BP_API void __kmpc_end_masked(ident_t *loc, int32_t gtid);
BP_API void __kmpc_critical(ident_t *loc, int32_t gtid, kmp_critical_name *crit);
BP_API void __kmpc_critical_with_hint(ident_t *loc, int32_t gtid, kmp_critical_name *crit,
                                      uint32_t hint);
BP_API void __kmpc_end_critical(ident_t *loc, int32_t gtid, kmp_critical_name *crit);
BP_API void __kmpc_copyprivate(ident_t *loc, int32_t gtid, size_t cpy_size, void *cpy_data,
                               void (*cpy_func)(void *, void *), int32_t didit);
BP_API int32_t __kmpc_ok_to_fork(ident_t *loc);
BP_API int32_t __kmpc_global_num_threads(ident_t *loc);
BP_API int32_t __kmpc_bound_thread_num(ident_t *loc);
BP_API int32_t __kmpc_bound_num_threads(ident_t *loc);
BP_API int32_t __kmpc_in_parallel(ident_t *loc);
BP_API void __kmpc_error(ident_t *loc, int32_t severity, const char *message);
BP_API int32_t __kmpc_cancel(ident_t *loc, int32_t gtid, int32_t kind);
BP_API int32_t __kmpc_cancellationpoint(ident_t *loc, int32_t gtid, int32_t kind);
BP_API int32_t __kmpc_cancel_barrier(ident_t *loc, int32_t gtid);
BP_API int kmp_get_cancellation_status(int kind);
BP_API int kmp_get_cancellation_status_(int kind);

BP_API void *__kmpc_copyprivate_light(ident_t *loc, int32_t gtid, void *cpy_data);
BP_API int32_t __kmpc_barrier_master(ident_t *loc, int32_t gtid);
BP_API void __kmpc_end_barrier_master(ident_t *loc, int32_t gtid);
BP_API int32_t __kmpc_barrier_master_nowait(ident_t *loc, int32_t gtid);
BP_API void __kmpc_scope(ident_t *loc, int32_t gtid, void *reserved);
BP_API void __kmpc_end_scope(ident_t *loc, int32_t gtid, void *reserved);
BP_API void __kmpc_begin(ident_t *loc, int32_t flags);
BP_API void __kmpc_end(ident_t *loc);
BP_API void __kmpc_pop_num_threads(ident_t *loc, int32_t gtid);
BP_API int __kmpc_pause_resource(int kind);
BP_API void __kmpc_init_lock(ident_t *loc, int32_t gtid, void **lock);
BP_API void __kmpc_init_lock_with_hint(ident_t *loc, int32_t gtid, void **lock, uintptr_t hint);
BP_API void __kmpc_destroy_lock(ident_t *loc, int32_t gtid, void **lock);
BP_API void __kmpc_set_lock(ident_t *loc, int32_t gtid, void **lock);
BP_API void __kmpc_unset_lock(ident_t *loc, int32_t gtid, void **lock);
BP_API int __kmpc_test_lock(ident_t *loc, int32_t gtid, void **lock);
BP_API void __kmpc_init_nest_lock(ident_t *loc, int32_t gtid, void **lock);
BP_API void __kmpc_init_nest_lock_with_hint(ident_t *loc, int32_t gtid, void **lock,
                                            uintptr_t hint);
BP_API void __kmpc_destroy_nest_lock(ident_t *loc, int32_t gtid, void **lock);
BP_API void __kmpc_set_nest_lock(ident_t *loc, int32_t gtid, void **lock);
BP_API void __kmpc_unset_nest_lock(ident_t *loc, int32_t gtid, void **lock);
BP_API int __kmpc_test_nest_lock(ident_t *loc, int32_t gtid, void **lock);

/* ---- kmp_collapse.c ---------------------------------------------------- */
BP_API uint64_t __kmpc_process_loop_nest_rectang(ident_t *loc, int32_t gtid,
                                                 bounds_info_t *original_bounds_nest,
                                                 int32_t n);
BP_API void __kmpc_calc_original_ivs_rectang(ident_t *loc, uint64_t new_iv,
                                             const bounds_info_t *original_bounds_nest,
                                             uint64_t *original_ivs, int32_t n);
BP_API int32_t __kmpc_for_collapsed_init(ident_t *loc, int32_t gtid,
                                         bounds_info_t *original_bounds_nest,
                                         bounds_info_t *chunk_bounds_nest, int32_t n,
                                         int32_t *plastiter);

/* ---- kmp_loop.c -------------------------------------------------------- */
BP_API void __kmpc_for_static_init_4(ident_t *loc, int32_t gtid, int32_t schedtype,
                                     int32_t *plastiter, int32_t *plower, int32_t *pupper,
                                     int32_t *pstride, int32_t incr, int32_t chunk);
BP_API void __kmpc_for_static_init_4u(ident_t *loc, int32_t gtid, int32_t schedtype,
                                      int32_t *plastiter, uint32_t *plower, uint32_t *pupper,
                                      int32_t *pstride, int32_t incr, int32_t chunk);
BP_API void __kmpc_for_static_init_8(ident_t *loc, int32_t gtid, int32_t schedtype,
                                     int32_t *plastiter, int64_t *plower, int64_t *pupper,
                                     int64_t *pstride, int64_t incr, int64_t chunk);
BP_API void __kmpc_for_static_init_8u(ident_t *loc, int32_t gtid, int32_t schedtype,
                                      int32_t *plastiter, uint64_t *plower, uint64_t *pupper,
                                      int64_t *pstride, int64_t incr, int64_t chunk);
BP_API void __kmpc_dist_for_static_init_4(ident_t *loc, int32_t gtid, int32_t schedtype,
                                          int32_t *plastiter, int32_t *plower, int32_t *pupper,
                                          int32_t *pupperD, int32_t *pstride, int32_t incr,
                                          int32_t chunk);
BP_API void __kmpc_dist_for_static_init_4u(ident_t *loc, int32_t gtid, int32_t schedtype,
                                           int32_t *plastiter, uint32_t *plower,
                                           uint32_t *pupper, uint32_t *pupperD,
                                           int32_t *pstride, int32_t incr, int32_t chunk);
BP_API void __kmpc_dist_for_static_init_8(ident_t *loc, int32_t gtid, int32_t schedtype,
                                          int32_t *plastiter, int64_t *plower, int64_t *pupper,
                                          int64_t *pupperD, int64_t *pstride, int64_t incr,
                                          int64_t chunk);
BP_API void __kmpc_dist_for_static_init_8u(ident_t *loc, int32_t gtid, int32_t schedtype,
                                           int32_t *plastiter, uint64_t *plower,
                                           uint64_t *pupper, uint64_t *pupperD,
                                           int64_t *pstride, int64_t incr, int64_t chunk);
BP_API void __kmpc_team_static_init_4(ident_t *loc, int32_t gtid, int32_t *plastiter,
                                      int32_t *plower, int32_t *pupper, int32_t *pstride,
                                      int32_t incr, int32_t chunk);
BP_API void __kmpc_team_static_init_4u(ident_t *loc, int32_t gtid, int32_t *plastiter,
                                       uint32_t *plower, uint32_t *pupper, int32_t *pstride,
                                       int32_t incr, int32_t chunk);
BP_API void __kmpc_team_static_init_8(ident_t *loc, int32_t gtid, int32_t *plastiter,
                                      int64_t *plower, int64_t *pupper, int64_t *pstride,
                                      int64_t incr, int64_t chunk);
BP_API void __kmpc_team_static_init_8u(ident_t *loc, int32_t gtid, int32_t *plastiter,
                                       uint64_t *plower, uint64_t *pupper, int64_t *pstride,
                                       int64_t incr, int64_t chunk);
BP_API void __kmpc_for_static_fini(ident_t *loc, int32_t gtid);
BP_API void __kmpc_dispatch_init_4(ident_t *loc, int32_t gtid, int32_t schedule, int32_t lb,
                                   int32_t ub, int32_t st, int32_t chunk);
BP_API void __kmpc_dispatch_init_4u(ident_t *loc, int32_t gtid, int32_t schedule, uint32_t lb,
                                    uint32_t ub, int32_t st, int32_t chunk);
BP_API void __kmpc_dispatch_init_8(ident_t *loc, int32_t gtid, int32_t schedule, int64_t lb,
                                   int64_t ub, int64_t st, int64_t chunk);
BP_API void __kmpc_dispatch_init_8u(ident_t *loc, int32_t gtid, int32_t schedule, uint64_t lb,
                                    uint64_t ub, int64_t st, int64_t chunk);
BP_API int32_t __kmpc_dispatch_next_4(ident_t *loc, int32_t gtid, int32_t *plast, int32_t *plb,
                                      int32_t *pub, int32_t *pst);
BP_API int32_t __kmpc_dispatch_next_4u(ident_t *loc, int32_t gtid, int32_t *plast,
                                       uint32_t *plb, uint32_t *pub, int32_t *pst);
BP_API int32_t __kmpc_dispatch_next_8(ident_t *loc, int32_t gtid, int32_t *plast, int64_t *plb,
                                      int64_t *pub, int64_t *pst);
BP_API int32_t __kmpc_dispatch_next_8u(ident_t *loc, int32_t gtid, int32_t *plast,
                                       uint64_t *plb, uint64_t *pub, int64_t *pst);
BP_API void __kmpc_dispatch_fini_4(ident_t *loc, int32_t gtid);
BP_API void __kmpc_dispatch_fini_4u(ident_t *loc, int32_t gtid);
BP_API void __kmpc_dispatch_fini_8(ident_t *loc, int32_t gtid);
BP_API void __kmpc_dispatch_fini_8u(ident_t *loc, int32_t gtid);
BP_API void __kmpc_dist_dispatch_init_4(ident_t *loc, int32_t gtid, int32_t schedule,
                                        int32_t *plastiter, int32_t lb, int32_t ub, int32_t st,
                                        int32_t chunk);
BP_API void __kmpc_dist_dispatch_init_4u(ident_t *loc, int32_t gtid, int32_t schedule,
                                         int32_t *plastiter, uint32_t lb, uint32_t ub,
                                         int32_t st, int32_t chunk);
BP_API void __kmpc_dist_dispatch_init_8(ident_t *loc, int32_t gtid, int32_t schedule,
                                        int32_t *plastiter, int64_t lb, int64_t ub, int64_t st,
                                        int64_t chunk);
BP_API void __kmpc_dist_dispatch_init_8u(ident_t *loc, int32_t gtid, int32_t schedule,
                                         int32_t *plastiter, uint64_t lb, uint64_t ub,
                                         int64_t st, int64_t chunk);
BP_API void __kmpc_dispatch_deinit(ident_t *loc, int32_t gtid);
BP_API void __kmpc_ordered(ident_t *loc, int32_t gtid);
BP_API void __kmpc_end_ordered(ident_t *loc, int32_t gtid);
BP_API void __kmpc_doacross_init(ident_t *loc, int32_t gtid, int32_t num_dims,
                                 const void *dims);
BP_API void __kmpc_doacross_wait(ident_t *loc, int32_t gtid, const int64_t *vec);
BP_API void __kmpc_doacross_post(ident_t *loc, int32_t gtid, const int64_t *vec);
BP_API void __kmpc_doacross_fini(ident_t *loc, int32_t gtid);

BP_API int32_t __kmpc_sections_init(ident_t *loc, int32_t gtid);
BP_API int32_t __kmpc_next_section(ident_t *loc, int32_t gtid, int32_t sections);
BP_API void __kmpc_end_sections(ident_t *loc, int32_t gtid);

/* ---- kmp_task.c -------------------------------------------------------- */
BP_API kmp_task_t *__kmpc_omp_task_alloc(ident_t *loc, int32_t gtid, int32_t flags,
                                         size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                                         kmp_routine_entry_t task_entry);
BP_API int32_t __kmpc_omp_task(ident_t *loc, int32_t gtid, kmp_task_t *new_task);
BP_API void __kmpc_omp_task_begin_if0(ident_t *loc, int32_t gtid, kmp_task_t *task);
BP_API void __kmpc_omp_task_complete_if0(ident_t *loc, int32_t gtid, kmp_task_t *task);
BP_API int32_t __kmpc_omp_taskwait(ident_t *loc, int32_t gtid);
BP_API int32_t __kmpc_omp_taskyield(ident_t *loc, int32_t gtid, int end_part);
BP_API void __kmpc_taskgroup(ident_t *loc, int32_t gtid);
BP_API void __kmpc_end_taskgroup(ident_t *loc, int32_t gtid);
BP_API int32_t __kmpc_omp_task_with_deps(ident_t *loc, int32_t gtid, kmp_task_t *new_task,
                                         int32_t ndeps, kmp_depend_info_t *dep_list,
                                         int32_t ndeps_noalias,
                                         kmp_depend_info_t *noalias_dep_list);
BP_API void __kmpc_omp_wait_deps(ident_t *loc, int32_t gtid, int32_t ndeps,
                                 kmp_depend_info_t *dep_list, int32_t ndeps_noalias,
                                 kmp_depend_info_t *noalias_dep_list);
BP_API void __kmpc_omp_taskwait_deps_51(ident_t *loc, int32_t gtid, int32_t ndeps,
                                        kmp_depend_info_t *dep_list, int32_t ndeps_noalias,
                                        kmp_depend_info_t *noalias_dep_list,
                                        int32_t has_no_wait);
BP_API void *__kmpc_task_allow_completion_event(ident_t *loc, int32_t gtid, kmp_task_t *task);
BP_API void *__kmpc_taskred_init(int gtid, int num, void *data);
BP_API void *__kmpc_task_reduction_init(int gtid, int num, void *data);
BP_API void *__kmpc_task_reduction_get_th_data(int gtid, void *tskgrp, void *data);
BP_API void *__kmpc_taskred_modifier_init(ident_t *loc, int gtid, int is_ws, int num,
                                          void *data);
BP_API void *__kmpc_task_reduction_modifier_init(ident_t *loc, int gtid, int is_ws, int num,
                                                 void *data);
BP_API void __kmpc_task_reduction_modifier_fini(ident_t *loc, int gtid, int is_ws);
BP_API void __kmpc_taskloop(ident_t *loc, int32_t gtid, kmp_task_t *task, int32_t if_val,
                            uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup,
                            int32_t sched, uint64_t grainsize, void *task_dup);
BP_API void __kmpc_taskloop_5(ident_t *loc, int32_t gtid, kmp_task_t *task, int32_t if_val,
                              uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup,
                              int32_t sched, uint64_t grainsize, int32_t modifier,
                              void *task_dup);

BP_API void *__kmpc_task_get_depnode(kmp_task_t *task);
BP_API void *__kmpc_task_get_successors(kmp_task_t *task);

BP_API int32_t __kmpc_omp_reg_task_with_affinity(ident_t *loc, int32_t gtid, kmp_task_t *new_task,
                                                 int32_t naffins, void *affin_list);
BP_API int32_t __kmpc_omp_task_parts(ident_t *loc, int32_t gtid, kmp_task_t *new_task);
BP_API int32_t __kmpc_omp_has_task_team(int32_t gtid);
BP_API uint64_t __kmpc_get_taskid(void);
BP_API uint64_t __kmpc_get_parent_taskid(void);

/* ---- kmp_api.c --------------------------------------------------------- */
BP_API void kmp_set_stacksize_s(size_t size);
BP_API void kmp_set_stacksize(int size);
BP_API size_t kmp_get_stacksize_s(void);
BP_API int kmp_get_stacksize(void);
BP_API void kmp_set_blocktime(int ms);
BP_API int kmp_get_blocktime(void);
BP_API void kmp_set_library(int mode);
BP_API int kmp_get_library(void);
BP_API void kmp_set_library_serial(void);
BP_API void kmp_set_library_turnaround(void);
BP_API void kmp_set_library_throughput(void);
BP_API void kmp_set_defaults(const char *settings);
BP_API void kmp_set_disp_num_buffers(int n);
BP_API void kmp_set_warnings_on(void);
BP_API void kmp_set_warnings_off(void);
BP_API void *kmp_malloc(size_t size);
BP_API void *kmp_calloc(size_t nelem, size_t elsize);
BP_API void *kmp_realloc(void *ptr, size_t size);
BP_API void *kmp_aligned_malloc(size_t size, size_t alignment);
BP_API void kmp_free(void *ptr);
BP_API int kmp_get_affinity_max_proc(void);
BP_API void kmp_create_affinity_mask(void **mask);
BP_API void kmp_destroy_affinity_mask(void **mask);
BP_API int kmp_set_affinity_mask_proc(int proc, void **mask);
BP_API int kmp_unset_affinity_mask_proc(int proc, void **mask);
BP_API int kmp_get_affinity_mask_proc(int proc, void **mask);
BP_API int kmp_set_affinity(void **mask);
BP_API int kmp_get_affinity(void **mask);
BP_API int kmp_set_thread_affinity_mask_initial(void);



BP_API int kmp_get_num_known_threads(void);

/* ---- threadprivate.c --------------------------------------------------- */
BP_API void *__kmpc_threadprivate_cached(ident_t *loc, int32_t gtid, void *data, size_t size,
                                         void ***cache);
BP_API void *__kmpc_threadprivate(ident_t *loc, int32_t gtid, void *data, size_t size);
BP_API void __kmpc_threadprivate_register(ident_t *loc, void *data, kmpc_ctor ctor,
                                          kmpc_cctor cctor, kmpc_dtor dtor);
BP_API void __kmpc_threadprivate_register_vec(ident_t *loc, void *data, kmpc_ctor_vec ctor,
                                              kmpc_cctor_vec cctor, kmpc_dtor_vec dtor,
                                              size_t vector_length);

/* ---- teams.c ----------------------------------------------------------- */
BP_API void omp_set_num_teams(int num_teams);
BP_API void omp_set_teams_thread_limit(int limit);
BP_API void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                           unsigned thread_limit, unsigned flags);
BP_API bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit,
                        bool first);
BP_API void GOMP_teams(unsigned num_teams, unsigned thread_limit);
BP_API void __kmpc_push_num_teams(ident_t *loc, int32_t gtid, int32_t num_teams,
                                  int32_t num_threads);
BP_API void __kmpc_push_num_teams_51(ident_t *loc, int32_t gtid, int32_t lower, int32_t upper,
                                     int32_t num_threads);
BP_API void __kmpc_fork_teams(ident_t *loc, int32_t argc, kmpc_micro microtask, ...);
BP_API int omp_get_max_teams(void);
BP_API int omp_get_teams_thread_limit(void);
BP_API int omp_get_num_teams(void);
BP_API int omp_get_team_num(void);

/* ---- atomic.c ----------------------------------------------------------- */
BP_API void GOMP_atomic_start(void);
BP_API void GOMP_atomic_end(void);
BP_API void __kmpc_atomic_start(void);
BP_API void __kmpc_atomic_end(void);
#define BP_ATOMIC_UPD(tn, T, RT, name, EXPR, SKIP)                             \
    BP_API void __kmpc_atomic_##tn##_##name(ident_t *id, int gtid, T *lhs, RT b);
#define BP_ATOMIC_CPT(tn, T, name, EXPR, SKIP)                                 \
    BP_API T __kmpc_atomic_##tn##_##name(ident_t *id, int gtid, T *lhs, T b, int flag);
#define BP_ATOMIC_CPT_OUT(tn, T, name, EXPR)                                   \
    BP_API void __kmpc_atomic_##tn##_##name(ident_t *id, int gtid, T *lhs, T b, T *out, \
                                            int flag);
#define BP_ATOMIC_RD(tn, T) BP_API T __kmpc_atomic_##tn##_rd(ident_t *id, int gtid, T *loc);
#define BP_ATOMIC_WR(tn, T)                                                    \
    BP_API void __kmpc_atomic_##tn##_wr(ident_t *id, int gtid, T *lhs, T b);
#define BP_ATOMIC_SWP(tn, T)                                                   \
    BP_API T __kmpc_atomic_##tn##_swp(ident_t *id, int gtid, T *lhs, T b);
#define BP_ATOMIC_SWP_OUT(tn, T)                                               \
    BP_API void __kmpc_atomic_##tn##_swp(ident_t *id, int gtid, T *lhs, T b, T *out);
#define BP_ATOMIC_CAS(n, T)                                                    \
    BP_API bool __kmpc_atomic_bool_##n##_cas(ident_t *id, int gtid, T *x, T e, T d);   \
    BP_API T __kmpc_atomic_val_##n##_cas(ident_t *id, int gtid, T *x, T e, T d);       \
    BP_API bool __kmpc_atomic_bool_##n##_cas_cpt(ident_t *id, int gtid, T *x, T e, T d, \
                                                 T *pv);                               \
    BP_API T __kmpc_atomic_val_##n##_cas_cpt(ident_t *id, int gtid, T *x, T e, T d, T *pv);
#define BP_ATOMIC_GENERIC(n)                                                   \
    BP_API void __kmpc_atomic_##n(ident_t *id, int gtid, void *lhs, void *rhs,  \
                                  void (*f)(void *, void *, void *));
#include "atomic_list.h"

/* ---- gomp_abi.c -------------------------------------------------------- */
BP_API void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
BP_API unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                         unsigned flags);
BP_API void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                   unsigned count, unsigned flags);
BP_API void GOMP_parallel_loop_static(void (*fn)(void *), void *data, unsigned num_threads,
                                      long start, long end, long incr, long chunk,
                                      unsigned flags);
BP_API void GOMP_parallel_loop_dynamic(void (*fn)(void *), void *data, unsigned num_threads,
                                       long start, long end, long incr, long chunk,
                                       unsigned flags);
BP_API void GOMP_parallel_loop_guided(void (*fn)(void *), void *data, unsigned num_threads,
                                      long start, long end, long incr, long chunk,
                                      unsigned flags);
BP_API void GOMP_parallel_loop_nonmonotonic_dynamic(void (*fn)(void *), void *data,
                                                    unsigned num_threads, long start, long end,
                                                    long incr, long chunk, unsigned flags);
BP_API void GOMP_parallel_loop_nonmonotonic_guided(void (*fn)(void *), void *data,
                                                   unsigned num_threads, long start, long end,
                                                   long incr, long chunk, unsigned flags);
BP_API void GOMP_parallel_loop_runtime(void (*fn)(void *), void *data, unsigned num_threads,
                                       long start, long end, long incr, unsigned flags);
BP_API void GOMP_parallel_loop_nonmonotonic_runtime(void (*fn)(void *), void *data,
                                                    unsigned num_threads, long start, long end,
                                                    long incr, unsigned flags);
BP_API void GOMP_parallel_loop_maybe_nonmonotonic_runtime(void (*fn)(void *), void *data,
                                                          unsigned num_threads, long start,
                                                          long end, long incr, unsigned flags);
BP_API void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
BP_API void GOMP_parallel_loop_static_start(void (*fn)(void *), void *data,
                                            unsigned num_threads, long start, long end,
                                            long incr, long chunk);
BP_API void GOMP_parallel_loop_dynamic_start(void (*fn)(void *), void *data,
                                             unsigned num_threads, long start, long end,
                                             long incr, long chunk);
BP_API void GOMP_parallel_loop_guided_start(void (*fn)(void *), void *data,
                                            unsigned num_threads, long start, long end,
                                            long incr, long chunk);
BP_API void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data,
                                             unsigned num_threads, long start, long end,
                                             long incr);
BP_API void GOMP_parallel_sections_start(void (*fn)(void *), void *data, unsigned num_threads,
                                         unsigned count);
BP_API void GOMP_parallel_end(void);
BP_API void GOMP_barrier(void);
BP_API bool GOMP_single_start(void);
BP_API void *GOMP_single_copy_start(void);
BP_API void GOMP_single_copy_end(void *data);
BP_API void GOMP_critical_start(void);
BP_API void GOMP_critical_end(void);
BP_API void GOMP_critical_name_start(void **pptr);
BP_API void GOMP_critical_name_end(void **pptr);
BP_API void GOMP_warning(const char *msg, size_t len);
BP_API void GOMP_error(const char *msg, size_t len);
BP_API bool GOMP_cancellation_point(int which);
BP_API bool GOMP_cancel(int which, bool do_cancel);
BP_API bool GOMP_barrier_cancel(void);

/* ---- gomp_loop.c ------------------------------------------------------- */
BP_API bool GOMP_loop_static_next(long *istart, long *iend);
BP_API bool GOMP_loop_dynamic_next(long *istart, long *iend);
BP_API bool GOMP_loop_guided_next(long *istart, long *iend);
BP_API bool GOMP_loop_nonmonotonic_dynamic_next(long *istart, long *iend);
BP_API bool GOMP_loop_nonmonotonic_guided_next(long *istart, long *iend);
BP_API bool GOMP_loop_runtime_next(long *istart, long *iend);
BP_API bool GOMP_loop_nonmonotonic_runtime_next(long *istart, long *iend);
BP_API bool GOMP_loop_maybe_nonmonotonic_runtime_next(long *istart, long *iend);
BP_API bool GOMP_loop_ordered_static_next(long *istart, long *iend);
BP_API bool GOMP_loop_ordered_dynamic_next(long *istart, long *iend);
BP_API bool GOMP_loop_ordered_guided_next(long *istart, long *iend);
BP_API bool GOMP_loop_ordered_runtime_next(long *istart, long *iend);
BP_API bool GOMP_loop_ull_static_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_dynamic_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_guided_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_nonmonotonic_dynamic_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_nonmonotonic_guided_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_runtime_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_nonmonotonic_runtime_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_maybe_nonmonotonic_runtime_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_ordered_static_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_ordered_dynamic_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_ordered_guided_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_ordered_runtime_next(gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_static_start(long start, long end, long incr, long chunk, long *istart,
                                   long *iend);
BP_API bool GOMP_loop_dynamic_start(long start, long end, long incr, long chunk, long *istart,
                                    long *iend);
BP_API bool GOMP_loop_guided_start(long start, long end, long incr, long chunk, long *istart,
                                   long *iend);
BP_API bool GOMP_loop_nonmonotonic_dynamic_start(long start, long end, long incr, long chunk,
                                                 long *istart, long *iend);
BP_API bool GOMP_loop_nonmonotonic_guided_start(long start, long end, long incr, long chunk,
                                                long *istart, long *iend);
BP_API bool GOMP_loop_ordered_static_start(long start, long end, long incr, long chunk,
                                           long *istart, long *iend);
BP_API bool GOMP_loop_ordered_dynamic_start(long start, long end, long incr, long chunk,
                                            long *istart, long *iend);
BP_API bool GOMP_loop_ordered_guided_start(long start, long end, long incr, long chunk,
                                           long *istart, long *iend);
BP_API bool GOMP_loop_ull_static_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                                       gomp_ull chunk, gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_dynamic_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                                        gomp_ull chunk, gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_guided_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                                       gomp_ull chunk, gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, gomp_ull start, gomp_ull end,
                                                     gomp_ull incr, gomp_ull chunk,
                                                     gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_nonmonotonic_guided_start(bool up, gomp_ull start, gomp_ull end,
                                                    gomp_ull incr, gomp_ull chunk,
                                                    gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_ordered_static_start(bool up, gomp_ull start, gomp_ull end,
                                               gomp_ull incr, gomp_ull chunk, gomp_ull *istart,
                                               gomp_ull *iend);
BP_API bool GOMP_loop_ull_ordered_dynamic_start(bool up, gomp_ull start, gomp_ull end,
                                                gomp_ull incr, gomp_ull chunk, gomp_ull *istart,
                                                gomp_ull *iend);
BP_API bool GOMP_loop_ull_ordered_guided_start(bool up, gomp_ull start, gomp_ull end,
                                               gomp_ull incr, gomp_ull chunk, gomp_ull *istart,
                                               gomp_ull *iend);
BP_API bool GOMP_loop_runtime_start(long start, long end, long incr, long *istart, long *iend);
BP_API bool GOMP_loop_nonmonotonic_runtime_start(long start, long end, long incr, long *istart,
                                                 long *iend);
BP_API bool GOMP_loop_maybe_nonmonotonic_runtime_start(long start, long end, long incr,
                                                       long *istart, long *iend);
BP_API bool GOMP_loop_ordered_runtime_start(long start, long end, long incr, long *istart,
                                            long *iend);
BP_API bool GOMP_loop_ull_runtime_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                                        gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_nonmonotonic_runtime_start(bool up, gomp_ull start, gomp_ull end,
                                                     gomp_ull incr, gomp_ull *istart,
                                                     gomp_ull *iend);
BP_API bool GOMP_loop_ull_maybe_nonmonotonic_runtime_start(bool up, gomp_ull start,
                                                           gomp_ull end, gomp_ull incr,
                                                           gomp_ull *istart, gomp_ull *iend);
BP_API bool GOMP_loop_ull_ordered_runtime_start(bool up, gomp_ull start, gomp_ull end,
                                                gomp_ull incr, gomp_ull *istart,
                                                gomp_ull *iend);
BP_API bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
                            long *istart, long *iend, uintptr_t *reductions, void **mem);
BP_API bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                    long *istart, long *iend, uintptr_t *reductions,
                                    void **mem);
BP_API bool GOMP_loop_ull_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                                long sched, gomp_ull chunk, gomp_ull *istart, gomp_ull *iend,
                                uintptr_t *reductions, void **mem);
BP_API bool GOMP_loop_ull_ordered_start(bool up, gomp_ull start, gomp_ull end, gomp_ull incr,
                                        long sched, gomp_ull chunk, gomp_ull *istart,
                                        gomp_ull *iend, uintptr_t *reductions, void **mem);
BP_API void GOMP_loop_end(void);
BP_API void GOMP_loop_end_nowait(void);
BP_API bool GOMP_loop_end_cancel(void);
BP_API void GOMP_ordered_start(void);
BP_API void GOMP_ordered_end(void);
BP_API unsigned GOMP_sections_next(void);
BP_API unsigned GOMP_sections_start(unsigned count);
BP_API unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem);
BP_API void GOMP_sections_end(void);
BP_API void GOMP_sections_end_nowait(void);
BP_API bool GOMP_sections_end_cancel(void);
BP_API bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk,
                                            long *istart, long *iend);
BP_API bool GOMP_loop_doacross_dynamic_start(unsigned ncounts, long *counts, long chunk,
                                             long *istart, long *iend);
BP_API bool GOMP_loop_doacross_guided_start(unsigned ncounts, long *counts, long chunk,
                                            long *istart, long *iend);
BP_API bool GOMP_loop_ull_doacross_static_start(unsigned ncounts, unsigned long long *counts,
                                                unsigned long long chunk,
                                                unsigned long long *istart,
                                                unsigned long long *iend);
BP_API bool GOMP_loop_ull_doacross_dynamic_start(unsigned ncounts, unsigned long long *counts,
                                                 unsigned long long chunk,
                                                 unsigned long long *istart,
                                                 unsigned long long *iend);
BP_API bool GOMP_loop_ull_doacross_guided_start(unsigned ncounts, unsigned long long *counts,
                                                unsigned long long chunk,
                                                unsigned long long *istart,
                                                unsigned long long *iend);
BP_API void GOMP_workshare_task_reduction_unregister(bool cancelled);
BP_API void GOMP_scope_start(uintptr_t *reductions);
BP_API bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
                                     long *istart, long *iend, uintptr_t *reductions,
                                     void **mem);
BP_API bool GOMP_loop_ull_doacross_start(unsigned ncounts, unsigned long long *counts,
                                         long sched, unsigned long long chunk,
                                         unsigned long long *istart, unsigned long long *iend,
                                         uintptr_t *reductions, void **mem);
BP_API bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart,
                                             long *iend);
BP_API bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, unsigned long long *counts,
                                                 unsigned long long *istart,
                                                 unsigned long long *iend);
BP_API void GOMP_doacross_post(long *counts);
BP_API void GOMP_doacross_wait(long first, ...);
BP_API void GOMP_doacross_ull_post(unsigned long long *counts);
BP_API void GOMP_doacross_ull_wait(unsigned long long first, ...);

/* ---- gomp_task.c ------------------------------------------------------- */
BP_API void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align, bool if_clause, unsigned flags,
                      void **depend, int priority, void *detach);
BP_API void GOMP_taskwait(void);
BP_API void GOMP_taskwait_depend(void **depend);
BP_API void GOMP_taskwait_depend_nowait(void **depend);
BP_API void GOMP_taskyield(void);
BP_API void GOMP_taskgroup_start(void);
BP_API void GOMP_taskgroup_end(void);
BP_API void omp_fulfill_event(uintptr_t event);
BP_API void GOMP_taskgroup_reduction_register(uintptr_t *data);
BP_API void GOMP_taskgroup_reduction_unregister(uintptr_t *data);
BP_API void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs);
BP_API void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                          long arg_size, long arg_align, unsigned flags,
                          unsigned long num_tasks, int priority, long start, long end,
                          long step);
BP_API void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                              long arg_size, long arg_align, unsigned flags,
                              unsigned long num_tasks, int priority, unsigned long long start,
                              unsigned long long end, unsigned long long step);

/* ---- target.c ---------------------------------------------------------- */
BP_API void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum,
                        void **hostaddrs, size_t *sizes, unsigned char *kinds);
BP_API void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs,
                            size_t *sizes, unsigned short *kinds, unsigned int flags,
                            void **depend, void **args);
BP_API void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs,
                             size_t *sizes, unsigned char *kinds);
BP_API void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                 unsigned short *kinds);
BP_API void GOMP_target_end_data(void);
BP_API void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs,
                               size_t *sizes, unsigned char *kinds);
BP_API void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                   unsigned short *kinds, unsigned int flags, void **depend);
BP_API void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs,
                                        size_t *sizes, unsigned short *kinds,
                                        unsigned int flags, void **depend);
BP_API void GOMP_offload_register_ver(unsigned version, const void *host_table,
                                      int target_type, const void *target_data);
BP_API void GOMP_offload_unregister_ver(unsigned version, const void *host_table,
                                        int target_type, const void *target_data);
BP_API void GOMP_offload_register(const void *host_table, int target_type,
                                  const void *target_data);
BP_API void GOMP_offload_unregister(const void *host_table, int target_type,
                                    const void *target_data);
BP_API kmp_task_t *__kmpc_omp_target_task_alloc(ident_t *loc, int32_t gtid, int32_t flags,
                                                size_t sizeof_kmp_task_t,
                                                size_t sizeof_shareds,
                                                kmp_routine_entry_t task_entry,
                                                int64_t device_id);
BP_API void __kmpc_set_thread_limit(ident_t *loc, int32_t gtid, int32_t thread_limit);
BP_API int __kmpc_get_target_offload(void);
BP_API void *omp_target_alloc(size_t size, int device_num);
BP_API void omp_target_free(void *device_ptr, int device_num);
BP_API int omp_target_is_present(const void *ptr, int device_num);
BP_API int omp_target_is_accessible(const void *ptr, size_t size, int device_num);
BP_API void *omp_get_mapped_ptr(const void *ptr, int device_num);
BP_API int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                             size_t src_offset, int dst_device_num, int src_device_num);
BP_API int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size,
                                  int num_dims, const size_t *volume,
                                  const size_t *dst_offsets, const size_t *src_offsets,
                                  const size_t *dst_dimensions,
                                  const size_t *src_dimensions, int dst_device_num,
                                  int src_device_num);
BP_API int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                                    size_t size, size_t device_offset, int device_num);
BP_API int omp_target_disassociate_ptr(const void *ptr, int device_num);
BP_API void *omp_target_memset(void *ptr, int value, size_t count, int device_num);
/* the interop routines (omp_interop_t is a pointer, its property and
 * return code enumerations ints) */
BP_API int omp_get_num_interop_properties(const void *interop);
BP_API intptr_t omp_get_interop_int(const void *interop, int property, int *ret_code);
BP_API void *omp_get_interop_ptr(const void *interop, int property, int *ret_code);
BP_API const char *omp_get_interop_str(const void *interop, int property, int *ret_code);
BP_API const char *omp_get_interop_name(const void *interop, int property);
BP_API const char *omp_get_interop_type_desc(const void *interop, int property);
BP_API const char *omp_get_interop_rc_desc(const void *interop, int ret_code);
/* their Fortran names, arguments by value as libomp's */
BP_API int omp_get_num_interop_properties_(const void *interop);
BP_API intptr_t omp_get_interop_int_(const void *interop, int property, int *ret_code);
BP_API void *omp_get_interop_ptr_(const void *interop, int property, int *ret_code);
BP_API const char *omp_get_interop_str_(const void *interop, int property, int *ret_code);
BP_API const char *omp_get_interop_name_(const void *interop, int property);
BP_API const char *omp_get_interop_type_desc_(const void *interop, int property);
BP_API const char *omp_get_interop_rc_desc_(const void *interop, int ret_code);

#endif
