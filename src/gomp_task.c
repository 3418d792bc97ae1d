/* gomp_task.c: the libgomp entry points for explicit tasks (GOMP_task,
 * GOMP_taskwait, GOMP_taskyield, GOMP_taskgroup_*), a thin layer over
 * task.c.
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
    if ((flags & GOMP_TASK_FLAG_DEPEND) && depend != NULL)
        bp_fatal("GOMP_task: task dependences (depend) are not supported yet");
    int has_event = (flags & GOMP_TASK_FLAG_DETACH) && detach != NULL;
    int included = bp_task_included(t);
    if (included && !has_event) {
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
    bp_task_submit(t, task, if_clause && !included);
}

BP_API void GOMP_taskwait(void) { bp_taskwait(bp_self()); }

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
