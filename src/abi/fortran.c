/* fortran.c: the OpenMP API for Fortran programs, a thin layer over the
 * C one (omp_api.c, places.c, teams.c, alloc.c, gomp_task.c).
 *
 * The names are gfortran's, which libgomp and libomp both define and flang
 * calls too: the C name with an underscore, every argument by reference.
 * The omp_lib module's generic interfaces (and -fdefault-integer-8) call
 * a twin with `_8_` for integer(8) arguments. A LOGICAL is a default
 * integer, 0 false. gfortran's omp_lib has omp_lock_kind 4 and
 * omp_nest_lock_kind 8, and buddypool's locks are one 32-bit word and two
 * (omp_api.c), so each lives in the Fortran variable itself. An integer(8)
 * argument outside int's range is clamped, as the C routine would be given
 * INT_MAX or INT_MIN. Without these, a Fortran program preloaded beside
 * libgomp would ask libgomp who it is on the pool's threads, and get
 * libgomp's answer: 0 and 1.
 *
 * A character argument comes with its length after the others and no
 * NUL; a character result is padded with blanks, as Fortran's are.
 * omp_init_allocator's traits, type(omp_alloctrait) of an integer(4) key
 * and an integer(8) value, are laid out as C's omp_alloctrait_t. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "../internal.h"

static int clamp(int64_t v)
{
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/* A query without arguments. */
#define F_QUERY(type, name)                                                            \
    BP_API type name##_(void) { return (type)name(); }
/* A routine of one integer argument, and its integer(8) twin. */
#define F_SET(name)                                                                    \
    BP_API void name##_(const int32_t *v) { name(*v); }                               \
    BP_API void name##_8_(const int64_t *v) { name(clamp(*v)); }
#define F_OF_INT(name)                                                                 \
    BP_API int32_t name##_(const int32_t *v) { return name(*v); }                     \
    BP_API int32_t name##_8_(const int64_t *v) { return name(clamp(*v)); }

F_QUERY(int32_t, omp_get_num_threads)
F_QUERY(int32_t, omp_get_max_threads)
F_QUERY(int32_t, omp_get_thread_num)
F_QUERY(int32_t, omp_get_num_procs)
F_QUERY(int32_t, omp_in_parallel)
F_QUERY(int32_t, omp_get_dynamic)
F_QUERY(int32_t, omp_get_nested)
F_QUERY(int32_t, omp_get_max_active_levels)
F_QUERY(int32_t, omp_get_supported_active_levels)
F_QUERY(int32_t, omp_get_level)
F_QUERY(int32_t, omp_get_active_level)
F_QUERY(int32_t, omp_in_final)
F_QUERY(int32_t, omp_in_explicit_task)
F_QUERY(int32_t, omp_get_cancellation)
F_QUERY(int32_t, omp_get_proc_bind)
F_QUERY(int32_t, omp_get_num_places)
F_QUERY(int32_t, omp_get_place_num)
F_QUERY(int32_t, omp_get_partition_num_places)
F_QUERY(int32_t, omp_get_num_teams)
F_QUERY(int32_t, omp_get_team_num)
F_QUERY(int32_t, omp_get_max_teams)
F_QUERY(int32_t, omp_get_teams_thread_limit)
F_QUERY(int32_t, omp_get_thread_limit)
F_QUERY(int32_t, omp_get_default_device)
F_QUERY(int32_t, omp_get_num_devices)
F_QUERY(int32_t, omp_get_device_num)
F_QUERY(int32_t, omp_get_initial_device)
F_QUERY(int32_t, omp_is_initial_device)
F_QUERY(int32_t, omp_get_max_task_priority)
F_QUERY(double, omp_get_wtime)
F_QUERY(double, omp_get_wtick)
F_QUERY(int64_t, omp_get_default_allocator)

F_SET(omp_set_num_threads)
F_SET(omp_set_dynamic)
F_SET(omp_set_nested)
F_SET(omp_set_max_active_levels)
F_SET(omp_set_num_teams)
F_SET(omp_set_teams_thread_limit)
F_SET(omp_set_default_device)
F_SET(omp_display_env)

F_OF_INT(omp_get_ancestor_thread_num)
F_OF_INT(omp_get_team_size)
F_OF_INT(omp_get_place_num_procs)
F_OF_INT(omp_pause_resource_all)

BP_API int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device)
{
    return omp_pause_resource(*kind, *device);
}

BP_API void omp_set_schedule_(const int32_t *kind, const int32_t *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, *chunk);
}

BP_API void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk)
{
    omp_set_schedule((omp_sched_t)*kind, clamp(*chunk));
}

BP_API void omp_get_schedule_(int32_t *kind, int32_t *chunk)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    *kind = (int32_t)k;
    *chunk = c;
}

BP_API void omp_get_schedule_8_(int32_t *kind, int64_t *chunk)
{
    int32_t c;
    omp_get_schedule_(kind, &c);
    *chunk = c;
}

BP_API void omp_get_place_proc_ids_(const int32_t *place, int32_t *ids)
{
    omp_get_place_proc_ids(*place, ids);
}

BP_API void omp_get_place_proc_ids_8_(const int64_t *place, int64_t *ids)
{
    int p = clamp(*place), n = omp_get_place_num_procs(p);
    int small[64], *got = n <= 64 ? small : malloc(sizeof *got * (size_t)n);
    if (got == NULL)
        bp_fatal("omp_get_place_proc_ids: out of memory");
    omp_get_place_proc_ids(p, got);
    for (int i = 0; i < n; i++)
        ids[i] = got[i];
    if (got != small)
        free(got);
}

BP_API void omp_get_partition_place_nums_(int32_t *nums)
{
    omp_get_partition_place_nums(nums);
}

BP_API void omp_get_partition_place_nums_8_(int64_t *nums)
{
    int n = omp_get_partition_num_places();
    int small[64], *got = n <= 64 ? small : malloc(sizeof *got * (size_t)n);
    if (got == NULL)
        bp_fatal("omp_get_partition_place_nums: out of memory");
    omp_get_partition_place_nums(got);
    for (int i = 0; i < n; i++)
        nums[i] = got[i];
    if (got != small)
        free(got);
}

/* Locks: the Fortran variable is the lock (see the top). */
BP_API void omp_init_lock_(int32_t *lock) { omp_init_lock(lock); }
BP_API void omp_destroy_lock_(int32_t *lock) { omp_destroy_lock(lock); }
BP_API void omp_set_lock_(int32_t *lock) { omp_set_lock(lock); }
BP_API void omp_unset_lock_(int32_t *lock) { omp_unset_lock(lock); }
BP_API int32_t omp_test_lock_(int32_t *lock) { return omp_test_lock(lock); }
BP_API void omp_init_nest_lock_(int64_t *lock) { omp_init_nest_lock(lock); }
BP_API void omp_destroy_nest_lock_(int64_t *lock) { omp_destroy_nest_lock(lock); }
BP_API void omp_set_nest_lock_(int64_t *lock) { omp_set_nest_lock(lock); }
BP_API void omp_unset_nest_lock_(int64_t *lock) { omp_unset_nest_lock(lock); }
BP_API int32_t omp_test_nest_lock_(int64_t *lock) { return omp_test_nest_lock(lock); }
BP_API void omp_init_lock_with_hint_(int32_t *lock, const int32_t *hint)
{
    omp_init_lock_with_hint(lock, *hint);
}
BP_API void omp_init_nest_lock_with_hint_(int64_t *lock, const int32_t *hint)
{
    omp_init_nest_lock_with_hint(lock, *hint);
}

BP_API int32_t omp_control_tool_(const int32_t *command, const int32_t *modifier, void *arg)
{
    return omp_control_tool(*command, *modifier, arg);
}

/* omp_event_handle_kind and omp_allocator_handle_kind are 8; omp_lib
 * passes an event by value, an allocator by reference. */
BP_API void omp_fulfill_event_(uintptr_t event) { omp_fulfill_event(event); }

BP_API void omp_set_default_allocator_(const int64_t *a)
{
    omp_set_default_allocator((omp_allocator_handle_t)*a);
}

BP_API void omp_destroy_allocator_(const int64_t *a)
{
    omp_destroy_allocator((omp_allocator_handle_t)*a);
}

BP_API int64_t omp_init_allocator_(const int64_t *space, const int32_t *ntraits, const void *traits)
{
    return (int64_t)omp_init_allocator((uintptr_t)*space, *ntraits, traits);
}

BP_API int64_t omp_init_allocator_8_(const int64_t *space, const int64_t *ntraits,
                                     const void *traits)
{
    return (int64_t)omp_init_allocator((uintptr_t)*space, clamp(*ntraits), traits);
}

/* The affinity format's: a Fortran string as a C one (NULL for an empty
 * one: the format in force), in buf when it fits, else on the heap. */
static char *c_string(const char *s, size_t len, char *buf, size_t size)
{
    if (len == 0)
        return NULL;
    char *c = len < size ? buf : malloc(len + 1);
    if (c == NULL)
        bp_fatal("the affinity format: a string of %zu bytes: out of memory", len);
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

/* A C string's first len bytes into a Fortran one, padded with blanks. */
static void fortran_string(char *f, size_t len, const char *c)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

BP_API void omp_set_affinity_format_(const char *format, size_t len)
{
    char buf[512];
    char *c = c_string(format, len, buf, sizeof buf);
    omp_set_affinity_format(c != NULL ? c : "");
    if (c != NULL && c != buf)
        free(c);
}

BP_API int32_t omp_get_affinity_format_(char *buffer, size_t len)
{
    size_t n = omp_get_affinity_format(NULL, 0);
    char *c = malloc(n + 1);
    if (c == NULL)
        bp_fatal("omp_get_affinity_format: out of memory");
    omp_get_affinity_format(c, n + 1);
    fortran_string(buffer, len, c);
    free(c);
    return (int32_t)n;
}

BP_API void omp_display_affinity_(const char *format, size_t len)
{
    char buf[512];
    char *c = c_string(format, len, buf, sizeof buf);
    omp_display_affinity(c);
    if (c != NULL && c != buf)
        free(c);
}

BP_API int32_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_len,
                                     size_t format_len)
{
    char buf[512];
    char *c = c_string(format, format_len, buf, sizeof buf);
    size_t n = omp_capture_affinity(NULL, 0, c);
    char *out = malloc(n + 1);
    if (out == NULL)
        bp_fatal("omp_capture_affinity: out of memory");
    omp_capture_affinity(out, n + 1, c);
    fortran_string(buffer, buffer_len, out);
    free(out);
    if (c != NULL && c != buf)
        free(c);
    return (int32_t)n;
}

/* libomp's kmp_* extensions by their Fortran names (LLVM's omp_lib
 * declares them): integers and sizes by reference, kmp_pointer_kind
 * values (an address) by reference too. */
BP_API void kmp_set_stacksize_(const int32_t *size) { kmp_set_stacksize(*size); }
BP_API void kmp_set_stacksize_s_(const size_t *size) { kmp_set_stacksize_s(*size); }
BP_API int32_t kmp_get_stacksize_(void) { return kmp_get_stacksize(); }
BP_API size_t kmp_get_stacksize_s_(void) { return kmp_get_stacksize_s(); }
BP_API void kmp_set_blocktime_(const int32_t *ms) { kmp_set_blocktime(*ms); }
BP_API int32_t kmp_get_blocktime_(void) { return kmp_get_blocktime(); }
BP_API void kmp_set_library_(const int32_t *mode) { kmp_set_library(*mode); }
BP_API int32_t kmp_get_library_(void) { return kmp_get_library(); }
BP_API void kmp_set_library_serial_(void) { kmp_set_library_serial(); }
BP_API void kmp_set_library_turnaround_(void) { kmp_set_library_turnaround(); }
BP_API void kmp_set_library_throughput_(void) { kmp_set_library_throughput(); }
BP_API void kmp_set_disp_num_buffers_(const int32_t *n) { kmp_set_disp_num_buffers(*n); }
BP_API void kmp_set_warnings_on_(void) { kmp_set_warnings_on(); }
BP_API void kmp_set_warnings_off_(void) { kmp_set_warnings_off(); }
BP_API int32_t kmp_get_num_known_threads_(void) { return kmp_get_num_known_threads(); }

BP_API void kmp_set_defaults_(const char *settings, size_t len)
{
    char buf[512];
    char *c = c_string(settings, len, buf, sizeof buf);
    if (c != NULL)
        kmp_set_defaults(c);
    if (c != NULL && c != buf)
        free(c);
}

BP_API void *kmp_malloc_(const size_t *size) { return kmp_malloc(*size); }
BP_API void *kmp_calloc_(const size_t *nelem, const size_t *elsize)
{
    return kmp_calloc(*nelem, *elsize);
}
BP_API void *kmp_realloc_(void *const *ptr, const size_t *size) { return kmp_realloc(*ptr, *size); }
BP_API void *kmp_aligned_malloc_(const size_t *size, const size_t *alignment)
{
    return kmp_aligned_malloc(*size, *alignment);
}
BP_API void kmp_free_(void *const *ptr) { kmp_free(*ptr); }

BP_API int32_t kmp_get_affinity_max_proc_(void) { return kmp_get_affinity_max_proc(); }
BP_API void kmp_create_affinity_mask_(void **mask) { kmp_create_affinity_mask(mask); }
BP_API void kmp_destroy_affinity_mask_(void **mask) { kmp_destroy_affinity_mask(mask); }
BP_API int32_t kmp_set_affinity_(void **mask) { return kmp_set_affinity(mask); }
BP_API int32_t kmp_get_affinity_(void **mask) { return kmp_get_affinity(mask); }
BP_API int32_t kmp_set_affinity_mask_proc_(const int32_t *proc, void **mask)
{
    return kmp_set_affinity_mask_proc(*proc, mask);
}
BP_API int32_t kmp_unset_affinity_mask_proc_(const int32_t *proc, void **mask)
{
    return kmp_unset_affinity_mask_proc(*proc, mask);
}
BP_API int32_t kmp_get_affinity_mask_proc_(const int32_t *proc, void **mask)
{
    return kmp_get_affinity_mask_proc(*proc, mask);
}
