/* target.c: target constructs and the device memory routines. buddypool
 * has no offload device: the host is the only device and the initial one
 * (device number 0, omp_get_num_devices() 0), and every target construct
 * runs on it, as libgomp and libomp run one when they find no device.
 *
 * gcc. A target region is GOMP_target_ext(device, fn, map arrays, flags,
 * depend, args); libgomp's host fallback runs fn(hostaddrs) as the
 * initial thread of a new device would run it, and so does buddypool
 * (fork.c's bp_device_begin): level 0, a team of one, the environment's
 * ICVs, the construct's thread_limit from args; its regions get full
 * teams of their own. Mapped variables are the host's own (hostaddrs);
 * firstprivate ones (map kind 12) are copied first, at the alignment the
 * kind's high byte gives, and the region gets the copies. With nowait the
 * region is a deferred task (GOMP_task, with the depend clause's
 * dependences) that holds the copies and the address array; without it,
 * a depend clause is waited for first. The data constructs (target data,
 * enter/exit data, update) move nothing: their depend clauses are waited
 * for, or with nowait become an empty deferred task that has them.
 *
 * clang. Without offload targets clang compiles a target region as host
 * code inline and calls the runtime only for target nowait, whose task
 * (__kmpc_omp_target_task_alloc) is an untied task like any other; the
 * region runs in the encountering task's data environment, as under
 * libomp. The omp_target_* routines are libomptarget's there; buddypool
 * defines them, so a program linked with it alone needs no libomptarget.
 *
 * Device numbers. A construct's device(n) or default-device-var naming
 * another device than the host runs on the host too, as libgomp does
 * (silently), unless OMP_TARGET_OFFLOAD=mandatory, under which it stops
 * the program with a message (OpenMP's error termination); so does
 * device(omp_invalid_device) (-4) always. -2 is gcc's if(false). The
 * routines take the host as 0 or omp_initial_device (-1, OpenMP 5.2) and
 * fail on other numbers as libgomp's do (NULL, EINVAL, 0). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "gomp.h"
#include "kmp.h"
#include "../internal.h"

/* gcc's device numbers and flags (gomp-constants.h) and OpenMP's. */
enum {
    GOMP_DEVICE_ICV = -1,           /* no device clause: default-device-var */
    GOMP_DEVICE_HOST_FALLBACK = -2, /* if(false) */
    BP_INITIAL_DEVICE = -1,         /* omp_initial_device, in the routines */
    BP_INVALID_DEVICE = -4,         /* omp_invalid_device */
    GOMP_TARGET_FLAG_NOWAIT = 1 << 0,
    GOMP_MAP_FIRSTPRIVATE = 12,
    /* args: an entry's device bits, its id, a value in the next entry */
    GOMP_TARGET_ARG_DEVICE_MASK = 0x7f,
    GOMP_TARGET_ARG_SUBSEQUENT_PARAM = 0x80,
    GOMP_TARGET_ARG_ID_MASK = 0xff00,
    GOMP_TARGET_ARG_THREAD_LIMIT = 0x200,
    GOMP_TARGET_ARG_VALUE_SHIFT = 16,
};

/* Under OMP_TARGET_OFFLOAD=mandatory, a device other than the host. */
static _Noreturn void no_device(const char *entry, int device)
{
    bp_fatal("%s: OMP_TARGET_OFFLOAD is mandatory but device %d does not exist: "
             "buddypool has no offload device, only the host (device 0)",
             entry, device);
}

/* The device a construct names runs nothing but the host: stop where
 * OpenMP says the program stops. */
static void construct_device(int device, const char *entry)
{
    if (device == GOMP_DEVICE_HOST_FALLBACK)
        return;
    bp_config_load();
    if (device == GOMP_DEVICE_ICV)
        device = bp_icv(bp_self())->default_device;
    if (device == BP_INVALID_DEVICE)
        bp_fatal("%s: the device is omp_invalid_device; the program stops, as OpenMP says",
                 entry);
    if (device != 0 && device != BP_INITIAL_DEVICE &&
        bp_config.target_offload == BP_OFFLOAD_MANDATORY)
        no_device(entry, device);
}

/* Is device_num the host, for a routine? Another number is no device: the
 * routine fails, or under OMP_TARGET_OFFLOAD=mandatory the program stops
 * (for a number that could name a device, as libgomp does). */
static bool routine_host(int device_num, const char *entry)
{
    if (device_num == 0 || device_num == BP_INITIAL_DEVICE)
        return true;
    bp_config_load();
    if (device_num > 0 && bp_config.target_offload == BP_OFFLOAD_MANDATORY)
        no_device(entry, device_num);
    return false;
}

/* The thread_limit clause in gcc's args (0: none). */
static int args_thread_limit(void **args)
{
    if (args == NULL)
        return 0;
    while (*args != NULL) {
        uintptr_t id = (uintptr_t)*args++;
        uintptr_t value = id >> GOMP_TARGET_ARG_VALUE_SHIFT;
        if (id & GOMP_TARGET_ARG_SUBSEQUENT_PARAM)
            value = (uintptr_t)*args++;
        if ((id & GOMP_TARGET_ARG_DEVICE_MASK) != 0 ||
            (id & GOMP_TARGET_ARG_ID_MASK) != GOMP_TARGET_ARG_THREAD_LIMIT)
            continue;
        return value > INT_MAX ? INT_MAX : (int)value;
    }
    return 0;
}

/* Run a target region's code on the host as a device's initial thread. */
static void run_region(void (*fn)(void *), void **hostaddrs, int thread_limit)
{
    struct bp_device_frame f;
    bp_device_begin(&f, thread_limit);
    fn(hostaddrs);
    bp_device_end(&f);
}

/* The firstprivate entries' bytes, each at its alignment from a block
 * aligned to the largest: their total, and that alignment. */
static size_t firstprivate_size(size_t mapnum, const size_t *sizes,
                                const unsigned short *kinds, size_t *align)
{
    size_t total = 0;
    *align = 1;
    for (size_t i = 0; i < mapnum; i++) {
        if ((kinds[i] & 0xff) != GOMP_MAP_FIRSTPRIVATE)
            continue;
        size_t a = (size_t)1 << (kinds[i] >> 8);
        if (a > *align)
            *align = a;
        total = (total + a - 1) & ~(a - 1);
        total += sizes[i];
    }
    return total;
}

/* Copy the firstprivate entries into block (aligned as firstprivate_size
 * says); addrs[i] becomes the copy's address, or with relative its
 * offset in block. */
static void firstprivate_copy(char *block, size_t mapnum, void **hostaddrs, void **addrs,
                              const size_t *sizes, const unsigned short *kinds, bool relative)
{
    size_t at = 0;
    for (size_t i = 0; i < mapnum; i++) {
        if ((kinds[i] & 0xff) != GOMP_MAP_FIRSTPRIVATE)
            continue;
        size_t a = (size_t)1 << (kinds[i] >> 8);
        at = (at + a - 1) & ~(a - 1);
        if (hostaddrs[i] != NULL) {
            memcpy(block + at, hostaddrs[i], sizes[i]);
            addrs[i] = relative ? (void *)(uintptr_t)at : block + at;
        }
        at += sizes[i];
    }
}

/* A target nowait's task: its block is a struct deferred, the address
 * array, a byte per entry (1: the address is an offset into the copies),
 * then the copies at the block's alignment. */
struct deferred {
    void (*fn)(void *);
    size_t mapnum;
    size_t copies_at;
    int thread_limit;
};

static void deferred_run(void *data)
{
    struct deferred *d = data;
    void **addrs = (void **)(d + 1);
    const unsigned char *relative = (const unsigned char *)(addrs + d->mapnum);
    for (size_t i = 0; i < d->mapnum; i++)
        if (relative[i])
            addrs[i] = (char *)data + d->copies_at + (uintptr_t)addrs[i];
    run_region(d->fn, addrs, d->thread_limit);
}

static void defer_region(void (*fn)(void *), size_t mapnum, void **hostaddrs,
                         const size_t *sizes, const unsigned short *kinds, void **depend,
                         int thread_limit)
{
    size_t align;
    size_t copies = firstprivate_size(mapnum, sizes, kinds, &align);
    if (align < _Alignof(struct deferred))
        align = _Alignof(struct deferred);
    size_t head = sizeof(struct deferred) + mapnum * (sizeof(void *) + 1);
    size_t copies_at = (head + align - 1) & ~(align - 1);
    size_t size = copies_at + copies;
    if (size > LONG_MAX)
        bp_fatal("GOMP_target_ext: a target nowait of %zu bytes of data is too large", size);
    /* at the copies' alignment: an included task runs on this block */
    void *mem = NULL;
    if (posix_memalign(&mem, align < sizeof(void *) ? sizeof(void *) : align, size) != 0)
        bp_fatal("GOMP_target_ext: out of memory for a target nowait's %zu bytes", size);
    char *block = mem;
    struct deferred *d = (struct deferred *)block;
    *d = (struct deferred){fn, mapnum, copies_at, thread_limit};
    void **addrs = (void **)(d + 1);
    unsigned char *relative = (unsigned char *)(addrs + mapnum);
    memcpy(addrs, hostaddrs, mapnum * sizeof(void *));
    for (size_t i = 0; i < mapnum; i++)
        relative[i] = (kinds[i] & 0xff) == GOMP_MAP_FIRSTPRIVATE && hostaddrs[i] != NULL;
    firstprivate_copy(block + copies_at, mapnum, hostaddrs, addrs, sizes, kinds, true);
    GOMP_task(deferred_run, block, NULL, (long)size, (long)align, true,
              depend != NULL ? GOMP_TASK_FLAG_DEPEND : 0, depend, 0, NULL);
    free(block);
}

/* ---- gcc ------------------------------------------------------------------ */

BP_API void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs,
                            size_t *sizes, unsigned short *kinds, unsigned int flags,
                            void **depend, void **args)
{
    construct_device(device, "GOMP_target_ext");
    int thread_limit = args_thread_limit(args);
    if (flags & GOMP_TARGET_FLAG_NOWAIT) {
        defer_region(fn, mapnum, hostaddrs, sizes, kinds, depend, thread_limit);
        return;
    }
    if (depend != NULL)
        GOMP_taskwait_depend(depend);
    size_t align;
    size_t copies = firstprivate_size(mapnum, sizes, kinds, &align);
    if (copies == 0) {
        run_region(fn, hostaddrs, thread_limit);
        return;
    }
    char *raw = copies + align - 1 <= 4096 ? __builtin_alloca(copies + align - 1)
                                           : malloc(copies + align - 1);
    if (raw == NULL)
        bp_fatal("GOMP_target_ext: out of memory for %zu bytes of firstprivate data", copies);
    char *block = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    firstprivate_copy(block, mapnum, hostaddrs, hostaddrs, sizes, kinds, false);
    run_region(fn, hostaddrs, thread_limit);
    if (copies + align - 1 > 4096)
        free(raw);
}

/* gcc 4.9 to 5's form: no firstprivate map kind, no clauses in args. */
BP_API void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum,
                        void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
    (void)unused, (void)mapnum, (void)sizes, (void)kinds;
    construct_device(device, "GOMP_target");
    run_region(fn, hostaddrs, 0);
}

/* The data constructs: the host's data is the device's. */
BP_API void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                 unsigned short *kinds)
{
    (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    construct_device(device, "GOMP_target_data_ext");
}

BP_API void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs,
                             size_t *sizes, unsigned char *kinds)
{
    (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    construct_device(device, "GOMP_target_data");
}

BP_API void GOMP_target_end_data(void) {}

BP_API void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs,
                               size_t *sizes, unsigned char *kinds)
{
    (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    construct_device(device, "GOMP_target_update");
}

/* A stand-alone data construct's depend clause, with or without nowait. */
static void data_depend(void **depend, unsigned int flags)
{
    if (depend == NULL)
        return;
    if (flags & GOMP_TARGET_FLAG_NOWAIT)
        GOMP_taskwait_depend_nowait(depend);
    else
        GOMP_taskwait_depend(depend);
}

BP_API void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                   unsigned short *kinds, unsigned int flags, void **depend)
{
    (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    construct_device(device, "GOMP_target_update_ext");
    data_depend(depend, flags);
}

BP_API void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs,
                                        size_t *sizes, unsigned short *kinds,
                                        unsigned int flags, void **depend)
{
    (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
    construct_device(device, "GOMP_target_enter_exit_data");
    data_depend(depend, flags);
}

/* A program built with an offload compiler registers its device images at
 * start-up and unregisters them at exit: with no device there is nothing to
 * load them on, and its target regions run their host code (libgomp
 * records them for devices it does not have either). */
BP_API void GOMP_offload_register_ver(unsigned version, const void *host_table,
                                      int target_type, const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

BP_API void GOMP_offload_unregister_ver(unsigned version, const void *host_table,
                                        int target_type, const void *target_data)
{
    (void)version, (void)host_table, (void)target_type, (void)target_data;
}

BP_API void GOMP_offload_register(const void *host_table, int target_type,
                                  const void *target_data)
{
    (void)host_table, (void)target_type, (void)target_data;
}

BP_API void GOMP_offload_unregister(const void *host_table, int target_type,
                                    const void *target_data)
{
    (void)host_table, (void)target_type, (void)target_data;
}

/* ---- clang ---------------------------------------------------------------- */

BP_API kmp_task_t *__kmpc_omp_target_task_alloc(ident_t *loc, int32_t gtid, int32_t flags,
                                                size_t sizeof_kmp_task_t,
                                                size_t sizeof_shareds,
                                                kmp_routine_entry_t task_entry,
                                                int64_t device_id)
{
    construct_device(device_id < INT_MIN || device_id > INT_MAX ? INT_MAX : (int)device_id,
                     "__kmpc_omp_target_task_alloc");
    return __kmpc_omp_task_alloc(loc, gtid, flags & ~KMP_TASK_TIED, sizeof_kmp_task_t,
                                 sizeof_shareds, task_entry);
}

/* A target construct's thread_limit clause: clang calls it inside the
 * undeferred task that runs the region on the host, so thread-limit-var
 * changes for that task alone (its regions get no more threads). */
BP_API void __kmpc_set_thread_limit(ident_t *loc, int32_t gtid, int32_t thread_limit)
{
    (void)loc, (void)gtid;
    if (thread_limit > 0) {
        struct bp_icv *icv = bp_icv_set(bp_self());
        icv->thread_limit = icv->team_cap = thread_limit;
    }
}

/* target-offload-var, numbered as libomp's (BP_OFFLOAD_*). */
BP_API int __kmpc_get_target_offload(void)
{
    bp_config_load();
    return bp_config.target_offload;
}

/* ---- the device memory routines ------------------------------------------ */

BP_API void *omp_target_alloc(size_t size, int device_num)
{
    return routine_host(device_num, "omp_target_alloc") ? malloc(size) : NULL;
}

BP_API void omp_target_free(void *device_ptr, int device_num)
{
    if (routine_host(device_num, "omp_target_free"))
        free(device_ptr);
}

BP_API int omp_target_is_present(const void *ptr, int device_num)
{
    return ptr == NULL || routine_host(device_num, "omp_target_is_present");
}

BP_API int omp_target_is_accessible(const void *ptr, size_t size, int device_num)
{
    (void)ptr, (void)size;
    return routine_host(device_num, "omp_target_is_accessible");
}

BP_API void *omp_get_mapped_ptr(const void *ptr, int device_num)
{
    return routine_host(device_num, "omp_get_mapped_ptr") ? (void *)ptr : NULL;
}

BP_API int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                             size_t src_offset, int dst_device_num, int src_device_num)
{
    if (!routine_host(dst_device_num, "omp_target_memcpy") ||
        !routine_host(src_device_num, "omp_target_memcpy"))
        return EINVAL;
    if (length > 0)
        memmove((char *)dst + dst_offset, (const char *)src + src_offset, length);
    return 0;
}

/* One sub-volume of omp_target_memcpy_rect: 0, or EINVAL where a size
 * overflows. */
static int copy_rect(char *dst, const char *src, size_t element_size, int num_dims,
                     const size_t *volume, const size_t *dst_offsets,
                     const size_t *src_offsets, const size_t *dst_dimensions,
                     const size_t *src_dimensions)
{
    if (num_dims == 1) {
        size_t bytes, dst_at, src_at;
        if (__builtin_mul_overflow(element_size, volume[0], &bytes) ||
            __builtin_mul_overflow(element_size, dst_offsets[0], &dst_at) ||
            __builtin_mul_overflow(element_size, src_offsets[0], &src_at))
            return EINVAL;
        if (bytes > 0)
            memmove(dst + dst_at, src + src_at, bytes);
        return 0;
    }
    size_t dst_slice = element_size, src_slice = element_size;
    for (int i = 1; i < num_dims; i++)
        if (__builtin_mul_overflow(dst_slice, dst_dimensions[i], &dst_slice) ||
            __builtin_mul_overflow(src_slice, src_dimensions[i], &src_slice))
            return EINVAL;
    size_t dst_at, src_at;
    if (__builtin_mul_overflow(dst_slice, dst_offsets[0], &dst_at) ||
        __builtin_mul_overflow(src_slice, src_offsets[0], &src_at))
        return EINVAL;
    for (size_t j = 0; j < volume[0]; j++) {
        int r = copy_rect(dst + dst_at + j * dst_slice, src + src_at + j * src_slice,
                          element_size, num_dims - 1, volume + 1, dst_offsets + 1,
                          src_offsets + 1, dst_dimensions + 1, src_dimensions + 1);
        if (r != 0)
            return r;
    }
    return 0;
}

/* With dst and src both NULL: the most dimensions it takes (no bound). */
BP_API int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size,
                                  int num_dims, const size_t *volume,
                                  const size_t *dst_offsets, const size_t *src_offsets,
                                  const size_t *dst_dimensions,
                                  const size_t *src_dimensions, int dst_device_num,
                                  int src_device_num)
{
    if (dst == NULL && src == NULL)
        return INT_MAX;
    if (!routine_host(dst_device_num, "omp_target_memcpy_rect") ||
        !routine_host(src_device_num, "omp_target_memcpy_rect") || dst == NULL ||
        src == NULL || num_dims < 1)
        return EINVAL;
    return copy_rect(dst, src, element_size, num_dims, volume, dst_offsets, src_offsets,
                     dst_dimensions, src_dimensions);
}

/* The host's memory is mapped by nothing: no pointer can be associated
 * with another (EINVAL, as libgomp answers with no device). */
BP_API int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                                    size_t size, size_t device_offset, int device_num)
{
    (void)host_ptr, (void)device_ptr, (void)size, (void)device_offset, (void)device_num;
    return EINVAL;
}

BP_API int omp_target_disassociate_ptr(const void *ptr, int device_num)
{
    (void)ptr, (void)device_num;
    return EINVAL;
}

/* OpenMP 6.0: fill memory of a device; the pointer, or NULL for no
 * device. */
BP_API void *omp_target_memset(void *ptr, int value, size_t count, int device_num)
{
    if (!routine_host(device_num, "omp_target_memset"))
        return NULL;
    if (count > 0)
        memset(ptr, value, count);
    return ptr;
}

/* ---- interop objects (OpenMP 5.2, 18.12) --------------------------------- */

/* With no device there is no foreign runtime to work with: no interop
 * object is ever made (the interop construct needs a device), so the
 * routines answer for omp_interop_none, the one object there is: no
 * implementation-defined properties, every value empty (omp_irc_empty, or
 * omp_irc_out_of_range for a property that does not exist), the names of
 * the predefined properties, and a description of each return code.
 * libomp without libomptarget returns 0 and NULL and leaves ret_code as
 * it was; these are the answers OpenMP gives. */
enum { IPR_FIRST = -9, IRC_NO_VALUE = 1, IRC_EMPTY = -1, IRC_OUT_OF_RANGE = -2,
       IRC_OTHER = -6 };

static const char *const ipr_names[] = {"fr_id",      "fr_name", "vendor",
                                        "vendor_name", "device_num", "platform",
                                        "device",     "device_context", "targetsync"};

BP_API int omp_get_num_interop_properties(const void *interop)
{
    (void)interop;
    return 0;
}

/* What a value query answers: omp_interop_none holds no value. */
static void interop_value(const void *interop, int property, int *ret_code)
{
    if (ret_code == NULL)
        return;
    if (property < IPR_FIRST || property >= 0)
        *ret_code = IRC_OUT_OF_RANGE;
    else
        *ret_code = interop == NULL ? IRC_EMPTY : IRC_OTHER; /* none is made */
}

BP_API intptr_t omp_get_interop_int(const void *interop, int property, int *ret_code)
{
    interop_value(interop, property, ret_code);
    return 0;
}

BP_API void *omp_get_interop_ptr(const void *interop, int property, int *ret_code)
{
    interop_value(interop, property, ret_code);
    return NULL;
}

BP_API const char *omp_get_interop_str(const void *interop, int property, int *ret_code)
{
    interop_value(interop, property, ret_code);
    return NULL;
}

BP_API const char *omp_get_interop_name(const void *interop, int property)
{
    (void)interop;
    return property >= IPR_FIRST && property < 0 ? ipr_names[-1 - property] : NULL;
}

/* The type of a property's value: there is none without a foreign runtime. */
BP_API const char *omp_get_interop_type_desc(const void *interop, int property)
{
    (void)interop, (void)property;
    return NULL;
}

BP_API const char *omp_get_interop_rc_desc(const void *interop, int ret_code)
{
    static const char *const desc[] = {
        "no value: the property has none (omp_irc_no_value)",
        "success (omp_irc_success)",
        "the interop object is omp_interop_none (omp_irc_empty)",
        "no such property (omp_irc_out_of_range)",
        "the property's value is not an integer (omp_irc_type_int)",
        "the property's value is not a pointer (omp_irc_type_ptr)",
        "the property's value is not a string (omp_irc_type_str)",
        "another error (omp_irc_other)"};
    (void)interop;
    return ret_code <= IRC_NO_VALUE && ret_code >= IRC_OTHER ? desc[IRC_NO_VALUE - ret_code]
                                                              : NULL;
}

/* libomp's Fortran names of the interop routines take their arguments by
 * value, as the C ones (its omp_lib binds them with bind(c) and value). */
BP_API int omp_get_num_interop_properties_(const void *interop)
    __attribute__((alias("omp_get_num_interop_properties")));
BP_API intptr_t omp_get_interop_int_(const void *interop, int property, int *ret_code)
    __attribute__((alias("omp_get_interop_int")));
BP_API void *omp_get_interop_ptr_(const void *interop, int property, int *ret_code)
    __attribute__((alias("omp_get_interop_ptr")));
BP_API const char *omp_get_interop_str_(const void *interop, int property, int *ret_code)
    __attribute__((alias("omp_get_interop_str")));
BP_API const char *omp_get_interop_name_(const void *interop, int property)
    __attribute__((alias("omp_get_interop_name")));
BP_API const char *omp_get_interop_type_desc_(const void *interop, int property)
    __attribute__((alias("omp_get_interop_type_desc")));
BP_API const char *omp_get_interop_rc_desc_(const void *interop, int ret_code)
    __attribute__((alias("omp_get_interop_rc_desc")));
