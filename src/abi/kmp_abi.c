/* kmp_abi.c: the libomp entry points (`__kmpc_*`) of regions and
 * synchronisation that clang and MLIR's OpenMP lowering call, as a thin
 * layer over the pool; kmp_loop.c has the worksharing loops, kmp_task.c
 * the tasks, teams.c the teams construct. The compiled code
 * passes a source location and its global thread number to most of them;
 * the thread number is ignored (the calling thread's state is in
 * thread-local storage), the location only names a region's call site in
 * the profile. */
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "abi.h"
#include "../internal.h"
#include "kmp.h"


#include "kmp_invoke.inc"

void bp_kmpc_read_args(const char *who, int32_t argc, void **a, va_list ap)
{
    if (argc < 0 || argc > BP_MAX_REGION_ARGS)
        bp_fatal("%s: %d region arguments; at most %d are supported", who, (int)argc,
                 BP_MAX_REGION_ARGS);
    for (int i = 0; i < argc; i++)
        a[i] = va_arg(ap, void *);
}

void bp_kmpc_invoke(kmpc_micro fn, int32_t *gtid, int32_t *btid, int argc, void **a)
{
    invoke(fn, gtid, btid, argc, a);
}

static const char *source_of(const ident_t *loc)
{
    return loc != NULL ? loc->psource : NULL;
}

/* A region's microtask and arguments, sized to argc when forked, so that a
 * few arguments travel inline to the workers (bp_fork). */
struct fork_args {
    kmpc_micro fn;
    int argc;
    void *args[BP_MAX_REGION_ARGS];
};

static size_t fork_args_size(int argc)
{
    return offsetof(struct fork_args, args) + sizeof(void *) * (size_t)argc;
}

static void run_microtask(int tid, void *ctx)
{
    struct fork_args *f = ctx;
    int32_t gtid = bp_gtid(bp_self());
    int32_t btid = tid;
    BP_HOOK_CODE_FRAME();
    invoke(f->fn, &gtid, &btid, f->argc, f->args);
}

BP_API void __kmpc_fork_call(ident_t *loc, int32_t argc, kmpc_micro microtask, ...)
{
    BP_HOOK_SITE(source_of(loc));
    bp_affinity_clang();
    struct fork_args f;
    f.fn = microtask;
    f.argc = argc;
    va_list ap;
    va_start(ap, microtask);
    bp_kmpc_read_args("__kmpc_fork_call", argc, f.args, ap);
    va_end(ap);
    bp_peers_check(bp_self()); /* libgomp's beside may have set the ICV (peer.c) */
    bp_fork(0, run_microtask, &f, fork_args_size(argc), (const void *)microtask);
}

/* MLIR's OpenMP translation calls this form for `omp.parallel if(cond)`:
 * args is the one argument of the outlined function (its captured struct). */
BP_API void __kmpc_fork_call_if(ident_t *loc, int32_t argc, kmpc_micro microtask,
                                int32_t cond, void *args)
{
    BP_HOOK_SITE(source_of(loc));
    bp_affinity_clang();
    if (argc < 0 || argc > 1)
        bp_fatal("__kmpc_fork_call_if: %d region arguments; at most 1 is supported",
                 (int)argc);
    struct fork_args f;
    f.fn = microtask;
    f.argc = argc;
    f.args[0] = args;
    bp_fork(cond ? 0 : 1, run_microtask, &f, fork_args_size(argc), (const void *)microtask);
}

BP_API void __kmpc_push_num_threads(ident_t *loc, int32_t gtid, int32_t num_threads)
{
    (void)loc;
    (void)gtid;
    if (num_threads <= 0) {
        bp_warn("__kmpc_push_num_threads: num_threads(%d) is not positive; "
                "the next region uses the default", (int)num_threads);
        return;
    }
    bp_self()->pushed_threads = num_threads;
}

/* num_threads(strict: n) severity(...) message(...) (OpenMP 6.0): a
 * region that gets fewer threads warns (severity 1) or stops the program
 * (2, and any other value, fatal being OpenMP's default). */
static void push_strict(int severity, const char *message)
{
    if (severity != BP_STRICT_WARNING && severity != BP_STRICT_FATAL) {
        bp_warn("num_threads(strict): severity %d is neither 1 (warning) nor 2 (fatal); "
                "fatal is used", severity);
        severity = BP_STRICT_FATAL;
    }
    struct bp_thread *t = bp_self();
    t->pushed_strict = severity;
    t->pushed_message = message;
}

/* num_threads(list) (OpenMP 6.0): the first item for the next region, the
 * second for the regions its implicit tasks fork (their nthreads-var), and
 * for every level below them (fork.c's child_icv), as the last item of a
 * list goes on. A third item and more would be the levels below; they are
 * not kept, and a warning says so once. 0 when the list gives no count. */
static int push_list(const char *entry, uint32_t length, const int32_t *list)
{
    if (length == 0 || list == NULL || list[0] <= 0) {
        bp_warn("%s: the list's first count is missing or not positive; the next region "
                "uses the default", entry);
        return 0;
    }
    struct bp_thread *t = bp_self();
    t->pushed_threads = list[0];
    if (length > 1 && list[1] > 0)
        t->pushed_nested = list[1];
    static _Atomic int warned;
    /* relaxed: only the one warning depends on it */
    if (length > 2 && atomic_exchange_explicit(&warned, 1, memory_order_relaxed) == 0)
        bp_warn("%s: a list of %u counts; the ones after the second are not used (regions "
                "nested deeper get the second); this is said once", entry,
                (unsigned)length);
    return 1;
}

BP_API void __kmpc_push_num_threads_strict(ident_t *loc, int32_t gtid, int32_t num_threads,
                                           int severity, const char *message)
{
    __kmpc_push_num_threads(loc, gtid, num_threads);
    if (num_threads > 0)
        push_strict(severity, message);
}

BP_API void __kmpc_push_num_threads_list(ident_t *loc, int32_t gtid, uint32_t length,
                                         int32_t *list)
{
    (void)loc;
    (void)gtid;
    push_list("__kmpc_push_num_threads_list", length, list);
}

BP_API void __kmpc_push_num_threads_list_strict(ident_t *loc, int32_t gtid, uint32_t length,
                                                int32_t *list, int severity, const char *message)
{
    (void)loc;
    (void)gtid;
    if (push_list("__kmpc_push_num_threads_list_strict", length, list))
        push_strict(severity, message);
}

/* proc_bind(...) of the next region: omp_proc_bind_t's numbers, except
 * that clang emits 5 (LLVM's OMP_PROC_BIND_primary) for proc_bind(primary)
 * and 2 for the older proc_bind(master). libomp reads 5 as its own
 * proc_bind_intel (bind as KMP_AFFINITY says), so a primary team there is
 * spread over the places; here it is primary, as the clause says. */
BP_API void __kmpc_push_proc_bind(ident_t *loc, int32_t gtid, int proc_bind)
{
    (void)loc;
    (void)gtid;
    bp_push_proc_bind(proc_bind == 5 ? 2 : proc_bind);
}

BP_API void __kmpc_flush(ident_t *loc)
{
    (void)loc;
    atomic_thread_fence(memory_order_seq_cst); /* the flush is a full fence */
    bp_hook_flush();
}

BP_API int32_t __kmpc_global_thread_num(ident_t *loc)
{
    (void)loc;
    return bp_gtid(bp_self());
}

BP_API void __kmpc_barrier(ident_t *loc, int32_t gtid)
{
    (void)gtid;
    BP_HOOK_ENTER();
    bp_barrier(bp_self(), kmp_barrier_kind(loc));
    BP_HOOK_LEAVE();
}

/* The reduction protocol: every thread calls __kmpc_reduce with a pointer
 * to its private values. We return 1 to thread 0 alone, after it has folded
 * the other threads' values into its own with reduce_func in thread order
 * (so float results do not depend on timing); it then combines the result
 * into the shared variable and calls __kmpc_end_reduce. The others get 0
 * and do nothing more. We never return 2 (the atomic method). */
static int32_t reduce(void *data, kmpc_reduce_fn fn, int nowait)
{
    return bp_reduce(bp_self(), data, fn, nowait);
}

BP_API int32_t __kmpc_reduce(ident_t *loc, int32_t gtid, int32_t num_vars, size_t size,
                             void *data, kmpc_reduce_fn reduce_func,
                             kmp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    (void)num_vars;
    (void)size;
    (void)lck;
    BP_HOOK_ENTER();
    int32_t got = reduce(data, reduce_func, 0);
    BP_HOOK_LEAVE();
    return got;
}

BP_API void __kmpc_end_reduce(ident_t *loc, int32_t gtid, kmp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    (void)lck;
    bp_reduce_end(bp_self());
}

BP_API int32_t __kmpc_reduce_nowait(ident_t *loc, int32_t gtid, int32_t num_vars,
                                    size_t size, void *data, kmpc_reduce_fn reduce_func,
                                    kmp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    (void)num_vars;
    (void)size;
    (void)lck;
    BP_HOOK_ENTER();
    int32_t got = reduce(data, reduce_func, 1);
    BP_HOOK_LEAVE();
    return got;
}

BP_API void __kmpc_end_reduce_nowait(ident_t *loc, int32_t gtid, kmp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    (void)lck;
}

/* clang calls the outlined function itself between these two, so the
 * profile names an outermost serialized region by its call site. */
BP_API void __kmpc_serialized_parallel(ident_t *loc, int32_t gtid)
{
    (void)gtid;
    BP_HOOK_SITE(source_of(loc));
    bp_affinity_clang();
    bp_serial_begin(bp_self(), __builtin_return_address(0));
}

BP_API void __kmpc_end_serialized_parallel(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    bp_serial_end(bp_self());
}

/* The listeners hear of single and masked as libomp tells them: the
 * thread that runs a single from its start to __kmpc_end_single, each
 * other one at once (begin and end); a masked construct on the thread that
 * runs it. */
BP_API int32_t __kmpc_single(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    int won = bp_single(bp_self());
    if (__builtin_expect(bp_listening, 0)) {
        bp_hook_work(won ? BP_WORK_SINGLE : BP_WORK_SINGLE_OTHER, 1, 1);
        if (!won)
            bp_hook_work(BP_WORK_SINGLE_OTHER, 0, 1);
    }
    return won;
}

BP_API void __kmpc_end_single(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    bp_hook_work(BP_WORK_SINGLE, 0, 1);
}

static int32_t masked(int run)
{
    if (run)
        bp_hook_masked(1);
    return run;
}

BP_API int32_t __kmpc_master(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    return masked(bp_self()->tid == 0);
}

BP_API void __kmpc_end_master(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    bp_hook_masked(0);
}

BP_API int32_t __kmpc_masked(ident_t *loc, int32_t gtid, int32_t filter)
{
    (void)loc;
    (void)gtid;
    return masked(bp_self()->tid == filter);
}

BP_API void __kmpc_end_masked(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    bp_hook_masked(0);
}

/* A critical section's lock lives in the first word of its zero-initialised
 * kmp_critical_name, so no lock is ever allocated. */
BP_API void __kmpc_critical(ident_t *loc, int32_t gtid, kmp_critical_name *crit)
{
    (void)loc;
    (void)gtid;
    bp_abi_lock((_Atomic uint32_t *)&(*crit)[0], BP_MUTEX_CRITICAL, crit);
}

/* The hint (contended, speculative, ...) does not change the lock. */
BP_API void __kmpc_critical_with_hint(ident_t *loc, int32_t gtid, kmp_critical_name *crit,
                                      uint32_t hint)
{
    (void)hint;
    __kmpc_critical(loc, gtid, crit);
}

BP_API void __kmpc_end_critical(ident_t *loc, int32_t gtid, kmp_critical_name *crit)
{
    (void)loc;
    (void)gtid;
    bp_abi_unlock((_Atomic uint32_t *)&(*crit)[0], BP_MUTEX_CRITICAL, crit);
}

/* copyprivate: the single thread (didit) publishes its data; the others copy
 * it with cpy_func(own, published); the second barrier keeps the source
 * alive until every copy is made. */
BP_API void __kmpc_copyprivate(ident_t *loc, int32_t gtid, size_t cpy_size, void *cpy_data,
                               void (*cpy_func)(void *, void *), int32_t didit)
{
    (void)loc;
    (void)gtid;
    (void)cpy_size;
    struct bp_thread *t = bp_self();
    void *src = bp_copyprivate(t, cpy_data, didit);
    if (!didit)
        cpy_func(cpy_data, src);
    bp_barrier(t, BP_SYNC_BARRIER_RUNTIME);
}

/* The light form (LLVM's OpenMPIRBuilder): the thread that ran the single
 * passes its data, the others NULL; each gets the data back after a
 * barrier, copies, and the compiled code's own barrier follows. */
BP_API void *__kmpc_copyprivate_light(ident_t *loc, int32_t gtid, void *cpy_data)
{
    (void)loc;
    (void)gtid;
    return bp_copyprivate(bp_self(), cpy_data, cpy_data != NULL);
}

/* A split barrier (the Intel compilers'): every thread arrives; thread 0
 * gets 1 and runs on alone, the others wait until it calls
 * __kmpc_end_barrier_master and then get 0. The nowait form lets the
 * others go at once. */
BP_API int32_t __kmpc_barrier_master(ident_t *loc, int32_t gtid)
{
    (void)gtid;
    struct bp_thread *t = bp_self();
    BP_HOOK_ENTER();
    bp_barrier(t, kmp_barrier_kind(loc));
    if (t->tid != 0)
        bp_barrier(t, kmp_barrier_kind(loc)); /* until thread 0's end */
    BP_HOOK_LEAVE();
    return t->tid == 0;
}

BP_API void __kmpc_end_barrier_master(ident_t *loc, int32_t gtid)
{
    (void)gtid;
    BP_HOOK_ENTER();
    bp_barrier(bp_self(), kmp_barrier_kind(loc));
    BP_HOOK_LEAVE();
}

BP_API int32_t __kmpc_barrier_master_nowait(ident_t *loc, int32_t gtid)
{
    (void)gtid;
    struct bp_thread *t = bp_self();
    BP_HOOK_ENTER();
    bp_barrier(t, kmp_barrier_kind(loc));
    BP_HOOK_LEAVE();
    return t->tid == 0;
}

/* The scope construct has no runtime part beyond its reductions and
 * barrier, which the compiled code calls itself; nor do the old start and
 * end of the program's OpenMP use (the runtime starts lazily and ends at
 * exit). */
BP_API void __kmpc_scope(ident_t *loc, int32_t gtid, void *reserved)
{
    (void)loc;
    (void)gtid;
    (void)reserved;
}

BP_API void __kmpc_end_scope(ident_t *loc, int32_t gtid, void *reserved)
{
    (void)loc;
    (void)gtid;
    (void)reserved;
}

BP_API void __kmpc_begin(ident_t *loc, int32_t flags)
{
    (void)loc;
    (void)flags;
}

BP_API void __kmpc_end(ident_t *loc) { (void)loc; }

/* Nothing to undo: a pushed size is used up by the next region, as in
 * libomp, whose pop does nothing either. */
BP_API void __kmpc_pop_num_threads(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

BP_API int __kmpc_pause_resource(int kind) { return omp_pause_resource_all(kind); }

/* libomp's lock entry points, over a user's omp_lock_t (a pointer's room,
 * which a buddypool lock fits) passed by address. */
#define KMPC_LOCK_DO(name, routine)                                            \
    BP_API void __kmpc_##name(ident_t *loc, int32_t gtid, void **lock)        \
    {                                                                          \
        (void)loc;                                                             \
        (void)gtid;                                                            \
        routine(lock);                                                         \
    }
#define KMPC_LOCK_TEST(name, routine)                                          \
    BP_API int __kmpc_##name(ident_t *loc, int32_t gtid, void **lock)         \
    {                                                                          \
        (void)loc;                                                             \
        (void)gtid;                                                            \
        return routine(lock);                                                  \
    }
#define KMPC_LOCK_HINT(name, routine)                                          \
    BP_API void __kmpc_##name(ident_t *loc, int32_t gtid, void **lock, uintptr_t hint) \
    {                                                                          \
        (void)loc;                                                             \
        (void)gtid;                                                            \
        routine(lock, (int)hint);                                              \
    }
KMPC_LOCK_DO(init_lock, omp_init_lock)
KMPC_LOCK_HINT(init_lock_with_hint, omp_init_lock_with_hint)
KMPC_LOCK_DO(destroy_lock, omp_destroy_lock)
KMPC_LOCK_DO(set_lock, omp_set_lock)
KMPC_LOCK_DO(unset_lock, omp_unset_lock)
KMPC_LOCK_TEST(test_lock, omp_test_lock)
KMPC_LOCK_DO(init_nest_lock, omp_init_nest_lock)
KMPC_LOCK_HINT(init_nest_lock_with_hint, omp_init_nest_lock_with_hint)
KMPC_LOCK_DO(destroy_nest_lock, omp_destroy_nest_lock)
KMPC_LOCK_DO(set_nest_lock, omp_set_nest_lock)
KMPC_LOCK_DO(unset_nest_lock, omp_unset_nest_lock)
KMPC_LOCK_TEST(test_nest_lock, omp_test_nest_lock)

/* ---- queries ------------------------------------------------------------ */

BP_API int32_t __kmpc_ok_to_fork(ident_t *loc)
{
    (void)loc;
    return 1;
}

BP_API int32_t __kmpc_global_num_threads(ident_t *loc)
{
    (void)loc;
    return bp_pool_threads();
}

BP_API int32_t __kmpc_bound_thread_num(ident_t *loc)
{
    (void)loc;
    return bp_self()->tid;
}

BP_API int32_t __kmpc_bound_num_threads(ident_t *loc)
{
    (void)loc;
    return bp_self()->team_size;
}

BP_API int32_t __kmpc_in_parallel(ident_t *loc)
{
    (void)loc;
    return bp_self()->active_level > 0;
}

/* The error directive at run time (OpenMP 5.1): severity 1 a warning, 2
 * (or another value) a fatal error, which aborts as libomp's does; the
 * location as file:line:column from clang's source string. */
BP_API void __kmpc_error(ident_t *loc, int32_t severity, const char *message)
{
    char where[256] = "";
    const char *src = source_of(loc);
    char file[160], fn[64];
    int line, col;
    if (src != NULL && sscanf(src, ";%159[^;];%63[^;];%d;%d", file, fn, &line, &col) == 4)
        snprintf(where, sizeof where, "%s:%d:%d: ", file, line, col);
    if (severity == 1)
        bp_warn("warning: %serror directive encountered%s%s", where, message ? ": " : "",
                message ? message : "");
    else
        bp_fatal("%serror directive encountered%s%s", where, message ? ": " : "",
                 message ? message : "");
}

/* ---- cancellation (cancel.c): 1 cancelled, 0 not ------------------------ */

enum { KMP_CANCEL_PARALLEL = 1, KMP_CANCEL_LOOP = 2, KMP_CANCEL_SECTIONS = 3,
       KMP_CANCEL_TASKGROUP = 4 };

static int kmp_kind(int32_t kind, const char *entry)
{
    switch (kind) {
    case KMP_CANCEL_PARALLEL: return BP_CANCEL_PARALLEL;
    case KMP_CANCEL_LOOP:
    case KMP_CANCEL_SECTIONS: return BP_CANCEL_WS;
    case KMP_CANCEL_TASKGROUP: return BP_CANCEL_TASKGROUP;
    default: bp_fatal("%s: unknown construct kind %d", entry, (int)kind);
    }
}

/* What the listeners hear a cancel of libomp's kind cancels (hooks.h). */
static int kmp_cancel_heard(int32_t kind)
{
    static const int heard[] = {[KMP_CANCEL_PARALLEL] = BP_HOOK_CANCEL_PARALLEL,
                                [KMP_CANCEL_LOOP] = BP_HOOK_CANCEL_LOOP,
                                [KMP_CANCEL_SECTIONS] = BP_HOOK_CANCEL_SECTIONS,
                                [KMP_CANCEL_TASKGROUP] = BP_HOOK_CANCEL_TASKGROUP};
    return heard[kind]; /* kind checked by kmp_kind */
}

BP_API int32_t __kmpc_cancel(ident_t *loc, int32_t gtid, int32_t kind)
{
    (void)loc, (void)gtid;
    if (!bp_config.cancellation)
        return 0;
    int got = bp_cancel(bp_self(), kmp_kind(kind, "__kmpc_cancel"));
    if (got)
        bp_hook_cancel(kmp_cancel_heard(kind) | BP_HOOK_CANCEL_ACTIVATED, NULL);
    return got;
}

BP_API int32_t __kmpc_cancellationpoint(ident_t *loc, int32_t gtid, int32_t kind)
{
    (void)loc, (void)gtid;
    if (!bp_config.cancellation)
        return 0;
    int got = bp_cancelled(bp_self(), kmp_kind(kind, "__kmpc_cancellationpoint"));
    if (got)
        bp_hook_cancel(kmp_cancel_heard(kind) | BP_HOOK_CANCEL_DETECTED, NULL);
    return got;
}

/* libomp's kmp_get_cancellation_status(kind): is cancellation of the
 * kind (libomp's numbers, as __kmpc_cancel's) active for the calling
 * thread? 0 under cancel-var false and for a kind it does not know, as
 * libomp answers. A loop and sections both ask about the innermost
 * worksharing construct. Its Fortran name takes the kind by value too, as
 * libomp's does. */
BP_API int kmp_get_cancellation_status(int kind)
{
    if (!bp_config.cancellation || kind < KMP_CANCEL_PARALLEL || kind > KMP_CANCEL_TASKGROUP)
        return 0;
    return bp_cancelled(bp_self(), kmp_kind(kind, "kmp_get_cancellation_status"));
}

BP_API int kmp_get_cancellation_status_(int kind)
    __attribute__((alias("kmp_get_cancellation_status")));

BP_API int32_t __kmpc_cancel_barrier(ident_t *loc, int32_t gtid)
{
    (void)gtid;
    BP_HOOK_ENTER();
    int got = bp_barrier_cancel(bp_self(), kmp_barrier_kind(loc));
    BP_HOOK_LEAVE();
    if (got)
        bp_hook_cancel(BP_HOOK_CANCEL_PARALLEL | BP_HOOK_CANCEL_DETECTED, NULL);
    return got;
}
