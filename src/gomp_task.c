/* gomp_task.c: the libgomp entry points for explicit tasks (GOMP_task,
 * GOMP_taskwait, GOMP_taskyield, GOMP_taskgroup_*), a thin layer over
 * task.c; depend clauses are read into task dependences (taskdep.c).
 *
 * gcc passes a task's firstprivate data as a block (data, arg_size,
 * arg_align) that a deferred task copies: with cpyfn when the block holds
 * objects that need copying, else byte for byte. An included task (its
 * maker's team has one thread, or its maker is final) runs at once on a
 * task of the caller's stack, with the caller's block, copied only when
 * cpyfn says so. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"
#include "internal.h"

/* gcc's flags (gomp-constants.h). */
enum {
    GOMP_TASK_FLAG_UNTIED = 1 << 0,
    GOMP_TASK_FLAG_FINAL = 1 << 1,
    GOMP_TASK_FLAG_MERGEABLE = 1 << 2,
    GOMP_TASK_FLAG_DEPEND = 1 << 3,
    GOMP_TASK_FLAG_PRIORITY = 1 << 4,
    GOMP_TASK_FLAG_DETACH = 1 << 13,
};

/* gcc's dependence kinds in an omp_depend_t (depobj). */
enum {
    GOMP_DEPEND_IN = 1,
    GOMP_DEPEND_OUT = 2,
    GOMP_DEPEND_INOUT = 3,
    GOMP_DEPEND_MUTEXINOUTSET = 4,
    GOMP_DEPEND_INOUTSET = 5,
};

/* gcc's depend array: {n, nout, addresses: nout out/inout, then in} or
 * {0, n, nout, nmutexinoutset, nin, addresses in that order, then n - (the
 * three) depobj pointers, each to {address, kind}}. Read into deps (n of
 * them, from dep_of). */
static int depend_count(void **depend)
{
    uintptr_t n = depend[0] != NULL ? (uintptr_t)depend[0] : (uintptr_t)depend[1];
    if (n > (uintptr_t)1 << 24)
        bp_fatal("GOMP_task: %lu dependences", (unsigned long)n);
    return (int)n;
}

static void depend_read(void **depend, struct bp_dep *deps, int n)
{
    if (depend[0] != NULL) {
        uintptr_t nout = (uintptr_t)depend[1];
        for (int i = 0; i < n; i++)
            deps[i] = (struct bp_dep){(uintptr_t)depend[2 + i],
                                      (uintptr_t)i < nout ? BP_DEP_INOUT : BP_DEP_IN};
        return;
    }
    uintptr_t nout = (uintptr_t)depend[2], nmtx = (uintptr_t)depend[3];
    uintptr_t normal = nout + nmtx + (uintptr_t)depend[4];
    for (int i = 0; i < n; i++) {
        uintptr_t k = (uintptr_t)i;
        if (k < normal) {
            deps[i].addr = (uintptr_t)depend[5 + i];
            deps[i].kind = k < nout ? BP_DEP_INOUT : k < nout + nmtx ? BP_DEP_MUTEXINOUTSET
                                                                       : BP_DEP_IN;
            continue;
        }
        void **obj = depend[5 + i];
        deps[i].addr = (uintptr_t)obj[0];
        switch ((uintptr_t)obj[1]) {
        case GOMP_DEPEND_IN: deps[i].kind = BP_DEP_IN; break;
        case GOMP_DEPEND_OUT:
        case GOMP_DEPEND_INOUT: deps[i].kind = BP_DEP_INOUT; break;
        case GOMP_DEPEND_MUTEXINOUTSET: deps[i].kind = BP_DEP_MUTEXINOUTSET; break;
        case GOMP_DEPEND_INOUTSET: deps[i].kind = BP_DEP_INOUTSET; break;
        default:
            bp_fatal("GOMP_task: a depend object of unknown kind %lu",
                     (unsigned long)(uintptr_t)obj[1]);
        }
    }
}

enum { BP_DEPS_ON_STACK = 16 };

/* A deferred task's data: its block follows (the payload is the block). */
static void gomp_body(struct bp_task *task)
{
    void (*fn)(void *) = (void (*)(void *))(uintptr_t)task->fn;
    fn(bp_task_payload(task));
}

/* Run fn on its block now, copied by cpyfn when there is one. */
static void run_block(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align)
{
    if (cpyfn == NULL) {
        fn(data);
        return;
    }
    size_t align = arg_align > 0 ? (size_t)arg_align : 1;
    void *mem = NULL;
    if (posix_memalign(&mem, align < sizeof(void *) ? sizeof(void *) : align,
                       arg_size > 0 ? (size_t)arg_size : 1) != 0)
        bp_fatal("GOMP_task: a block of %ld bytes: out of memory", arg_size);
    cpyfn(mem, data);
    fn(mem);
    free(mem);
}

static uint32_t task_flags(unsigned flags)
{
    return ((flags & GOMP_TASK_FLAG_FINAL) ? BP_TASK_FINAL : 0) |
           ((flags & GOMP_TASK_FLAG_UNTIED) ? BP_TASK_UNTIED : 0);
}

BP_API void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align, bool if_clause, unsigned flags,
                      void **depend, int priority, void *detach)
{
    (void)priority; /* a hint: tasks run in the order the queues give */
    struct bp_thread *t = bp_self();
    if (arg_size < 0 || arg_align < 0 || (arg_align & (arg_align - 1)) != 0)
        bp_fatal("GOMP_task: a data block of %ld bytes aligned to %ld", arg_size, arg_align);
    int ndeps = (flags & GOMP_TASK_FLAG_DEPEND) && depend != NULL ? depend_count(depend) : 0;
    int has_event = (flags & GOMP_TASK_FLAG_DETACH) && detach != NULL;
    int included = bp_task_included(t);
    if (included && !has_event && ndeps == 0) {
        struct bp_task s = {.fn = (const void *)fn, .flags = task_flags(flags)};
        struct bp_task_frame fr;
        bp_task_begin_undeferred(t, &s, 0, &fr);
        run_block(fn, data, cpyfn, arg_size, arg_align);
        bp_task_end_undeferred(t, &s, &fr);
        return;
    }
    struct bp_task *task = bp_task_new((size_t)arg_size, arg_align > 0 ? (size_t)arg_align : 1,
                                       gomp_body, task_flags(flags), (const void *)fn);
    if (arg_size > 0) {
        if (cpyfn != NULL)
            cpyfn(bp_task_payload(task), data);
        else
            memcpy(bp_task_payload(task), data, (size_t)arg_size);
    }
    if (has_event)
        *(void **)detach = bp_task_add_event(task);
    if (ndeps == 0) {
        bp_task_submit(t, task, if_clause && !included);
        return;
    }
    struct bp_dep small[BP_DEPS_ON_STACK];
    struct bp_dep *deps = ndeps <= BP_DEPS_ON_STACK ? small : malloc(sizeof *deps * (size_t)ndeps);
    if (deps == NULL)
        bp_fatal("GOMP_task: %d dependences: out of memory", ndeps);
    depend_read(depend, deps, ndeps);
    bp_task_submit_deps(t, task, deps, ndeps, if_clause && !included);
    if (deps != small)
        free(deps);
}

BP_API void GOMP_taskwait(void) { bp_taskwait(bp_self()); }

BP_API void GOMP_taskwait_depend(void **depend)
{
    int ndeps = depend != NULL ? depend_count(depend) : 0;
    struct bp_dep small[BP_DEPS_ON_STACK];
    struct bp_dep *deps = ndeps <= BP_DEPS_ON_STACK ? small : malloc(sizeof *deps * (size_t)ndeps);
    if (deps == NULL)
        bp_fatal("GOMP_taskwait_depend: %d dependences: out of memory", ndeps);
    depend_read(depend, deps, ndeps);
    bp_taskwait_deps(bp_self(), deps, ndeps);
    if (deps != small)
        free(deps);
}

BP_API void GOMP_taskyield(void) { bp_taskyield(bp_self()); }

BP_API void GOMP_taskgroup_start(void) { bp_taskgroup_begin(bp_self()); }

BP_API void GOMP_taskgroup_end(void) { bp_taskgroup_end(bp_self()); }

/* Both ABIs: an event's handle is its task. */
BP_API void omp_fulfill_event(uintptr_t event)
{
    if (event == 0)
        bp_fatal("omp_fulfill_event: a null event handle");
    bp_task_fulfill((void *)event);
}
