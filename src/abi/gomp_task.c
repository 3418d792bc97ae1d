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
#include "abi.h"
#include "../internal.h"

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

/* memcpy, with the usual sizes of a task's block (a few pointers; a
 * taskloop's, its two bounds too) inlined as moves of a known size. */
static inline void copy_small(void *dst, const void *src, size_t n)
{
    switch (n) {
    case 8: memcpy(dst, src, 8); return;
    case 16: memcpy(dst, src, 16); return;
    case 24: memcpy(dst, src, 24); return;
    case 32: memcpy(dst, src, 32); return;
    case 40: memcpy(dst, src, 40); return;
    case 48: memcpy(dst, src, 48); return;
    default: memcpy(dst, src, n); return;
    }
}

/* A deferred task's data: its block follows (the payload is the block). */
static void gomp_body(struct bp_task *task)
{
    void (*fn)(void *) = (void (*)(void *))(uintptr_t)task->fn;
    BP_HOOK_CODE_FRAME();
    fn(bp_task_payload(task));
}

/* Run fn on its block now, copied by cpyfn when there is one. */
static void run_block(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align)
{
    BP_HOOK_CODE_FRAME();
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
    _Static_assert((unsigned)GOMP_TASK_FLAG_FINAL == (unsigned)BP_TASK_FINAL &&
                       (unsigned)GOMP_TASK_FLAG_UNTIED == (unsigned)BP_TASK_UNTIED,
                   "the pool's task flags have gcc's bits: no conversion");
    return flags & (GOMP_TASK_FLAG_FINAL | GOMP_TASK_FLAG_UNTIED);
}

/* A task run now on t's stack, as an included task, on its block (copied
 * by cpyfn when there is one). */
static inline __attribute__((always_inline)) void run_on_stack(struct bp_thread *t,
                                                               void (*fn)(void *), void *data,
                                                               void (*cpyfn)(void *, void *),
                                                               long arg_size, long arg_align,
                                                               unsigned flags)
{
    struct bp_task s; /* bp_task_begin_included sets what it reads */
    struct bp_task_frame fr;
    bp_task_begin_included(t, &s, task_flags(flags), (const void *)fn, &fr);
    run_block(fn, data, cpyfn, arg_size, arg_align);
    bp_task_end_included(t, &s, &fr);
}

/* Every task but an included one with a plain block (GOMP_task). */
static __attribute__((noinline)) void task_slow(struct bp_thread *t, void (*fn)(void *),
                                                 void *data, void (*cpyfn)(void *, void *),
                                                 long arg_size, long arg_align, bool if_clause,
                                                 unsigned flags, void **depend, void *detach)
{
    if (arg_size < 0 || arg_align < 0 || (arg_align & (arg_align - 1)) != 0)
        bp_fatal("GOMP_task: a data block of %ld bytes aligned to %ld", arg_size, arg_align);
    int ndeps = (flags & GOMP_TASK_FLAG_DEPEND) && depend != NULL ? depend_count(depend) : 0;
    int has_event = (flags & GOMP_TASK_FLAG_DETACH) && detach != NULL;
    /* a cancelled region or taskgroup makes no task, as libgomp; one with
     * an event is made (and discarded), so that its handle is valid */
    if (bp_config.cancellation && !has_event && bp_task_cancelled(t))
        return;
    int included = bp_task_included(t);
    /* On the stack, as an included task, unless it must be counted: one
     * that waits for an event or dependences. An undeferred one (if(0), or
     * its maker's queue full) too, as libgomp does: it runs now either way,
     * and its children are counted as any (except when a listener listens:
     * the profile's per-task figures come with the counted path). */
    if (!has_event && ndeps == 0 &&
        (included || (!bp_listening && (!if_clause || bp_task_queue_full(t))))) {
        run_on_stack(t, fn, data, cpyfn, arg_size, arg_align, flags);
        return;
    }
    struct bp_task *task = bp_task_new((size_t)arg_size, arg_align > 0 ? (size_t)arg_align : 1,
                                       gomp_body, task_flags(flags), (const void *)fn);
    if (has_event) {
        /* gcc's block carries the handle in its first word: the event goes
         * there before the block is copied, and into the variable detach
         * points to, as libgomp writes both */
        void *event = bp_task_add_event(task);
        *(void **)detach = event;
        if (data != NULL && arg_size >= (long)sizeof(void *))
            *(void **)data = event;
    }
    if (arg_size > 0) {
        if (cpyfn != NULL)
            cpyfn(bp_task_payload(task), data);
        else
            copy_small(bp_task_payload(task), data, (size_t)arg_size);
    }
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

/* An included task (a team of one, a final task) with no event, no
 * dependences and no cancellation in force runs here, in a function small
 * enough that entering it costs little; every other task in task_slow. */
BP_API void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align, bool if_clause, unsigned flags,
                      void **depend, int priority, void *detach)
{
    (void)priority; /* a hint: tasks run in the order the queues give */
    struct bp_thread *t = bp_self();
    __asm__("" : "+r"(t)); /* held in a register, not recomputed from TLS at each use */
    if (__builtin_expect((flags & (GOMP_TASK_FLAG_DEPEND | GOMP_TASK_FLAG_DETACH)) == 0 &&
                             cpyfn == NULL && !bp_config.cancellation && bp_task_included(t),
                         1)) {
        run_on_stack(t, fn, data, NULL, 0, 0, flags); /* a plain block: no copy */
        return;
    }
    BP_HOOK_ENTER();
    task_slow(t, fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, detach);
    BP_HOOK_LEAVE();
}

BP_API void GOMP_taskwait(void)
{
    BP_HOOK_ENTER();
    bp_taskwait(bp_self());
    BP_HOOK_LEAVE();
}

/* taskwait depend(...), and with nowait (gcc 13 and later). */
static void taskwait_depend(void **depend, int nowait, const char *entry)
{
    int ndeps = depend != NULL ? depend_count(depend) : 0;
    struct bp_dep small[BP_DEPS_ON_STACK];
    struct bp_dep *deps = ndeps <= BP_DEPS_ON_STACK ? small : malloc(sizeof *deps * (size_t)ndeps);
    if (deps == NULL)
        bp_fatal("%s: %d dependences: out of memory", entry, ndeps);
    depend_read(depend, deps, ndeps);
    BP_HOOK_ENTER();
    bp_taskwait_deps(bp_self(), deps, ndeps, nowait);
    BP_HOOK_LEAVE();
    if (deps != small)
        free(deps);
}

BP_API void GOMP_taskwait_depend(void **depend)
{
    taskwait_depend(depend, 0, "GOMP_taskwait_depend");
}

BP_API void GOMP_taskwait_depend_nowait(void **depend)
{
    taskwait_depend(depend, 1, "GOMP_taskwait_depend_nowait");
}

BP_API void GOMP_taskyield(void) { bp_taskyield(bp_self()); }

BP_API void GOMP_taskgroup_start(void)
{
    BP_HOOK_ENTER();
    bp_taskgroup_begin(bp_self());
    BP_HOOK_LEAVE();
}

BP_API void GOMP_taskgroup_end(void)
{
    BP_HOOK_ENTER();
    bp_taskgroup_end(bp_self());
    BP_HOOK_LEAVE();
}

/* Both ABIs: an event's handle is its task. */
BP_API void omp_fulfill_event(uintptr_t event)
{
    if (event == 0)
        bp_fatal("omp_fulfill_event: a null event handle");
    bp_task_fulfill((void *)event);
}

/* ---- task reductions ------------------------------------------------- */

/* gcc's task reduction descriptor (one per registration, maybe chained):
 *   d[0] items, d[1] bytes of one thread's copies, d[2] their alignment,
 *        which registering replaces with the copies' array (threads x
 *        d[1] bytes, zeroed: the compiled code initialises them and folds
 *        them at the end), d[3] an allocator (-1: malloc's), d[4] the next
 *        descriptor of the registration, then (once registered) the chain
 *        inherited from the enclosing taskgroup, d[5] ours (the
 *        registration's record), d[6] the array's end;
 *   then per item: its original's address, its offset in a thread's
 *        copies, a word of ours.
 * A task finds its thread's copy of an item (GOMP_task_reduction_remap)
 * by the original's address, or by the address of another thread's copy,
 * in its taskgroup's chain. */
struct registration {
    uintptr_t *inherited; /* the chain the registration's last d[4] goes on to */
};

/* Give each item of data's chain copies for `threads` threads, the chain
 * going on to `inherited`. */
static void copies_register(uintptr_t *data, size_t threads, uintptr_t *inherited)
{
    struct registration *r = malloc(sizeof *r);
    if (r == NULL)
        bp_fatal("GOMP_taskgroup_reduction_register: out of memory");
    r->inherited = inherited;
    for (uintptr_t *d = data;; d = (uintptr_t *)d[4]) {
        size_t align = d[2] > sizeof(void *) ? d[2] : sizeof(void *);
        if ((align & (align - 1)) != 0)
            bp_fatal("GOMP_taskgroup_reduction_register: an alignment of %zu", align);
        size_t size = d[1] * threads;
        void *copies = NULL;
        if (posix_memalign(&copies, align, size > 0 ? size : 1) != 0)
            bp_fatal("GOMP_taskgroup_reduction_register: %zu bytes: out of memory", size);
        memset(copies, 0, size);
        d[2] = (uintptr_t)copies;
        d[6] = d[2] + size;
        d[5] = 0;
        if (d[4] == 0) {
            d[4] = (uintptr_t)r->inherited;
            break;
        }
    }
    data[5] = (uintptr_t)r;
}

static void reduction_register(struct bp_thread *t, uintptr_t *data)
{
    struct bp_taskgroup *g = bp_taskgroup_current(t);
    if (g == NULL) { /* an orphaned taskgroup reduction: a group of its own */
        bp_taskgroup_begin(t);
        g = bp_taskgroup_current(t);
    }
    copies_register(data, t->team_size > 0 ? (size_t)t->team_size : 1, g->gomp_reductions);
    g->gomp_reductions = data;
}

void bp_gomp_parallel_reductions(uintptr_t *data, int threads)
{
    copies_register(data, threads > 0 ? (size_t)threads : 1, NULL);
}

/* A worksharing construct's task reductions (GOMP_loop_start,
 * GOMP_sections2_start, GOMP_scope_start): every thread passes a
 * descriptor of its own. The first to arrive gives its items copies for
 * the team and publishes where they are (a block on the heap: a thread's
 * descriptor is on its stack, and a cancelled construct's first thread may
 * leave it before a late one reads) in the team's word; the others take
 * the same copies into theirs. Each thread runs the construct in a
 * taskgroup of its own whose reductions they are. After the construct's
 * barrier thread 0's compiled code folds the copies, and every thread
 * calls GOMP_workshare_task_reduction_unregister. */
struct ws_copies {
    struct bp_team_red head;
    size_t n;         /* descriptors in the chain */
    uintptr_t at[];   /* descriptor k's copies, 2k, and their end, 2k + 1 */
};

static void ws_copies_drop(struct bp_team_red *self)
{
    struct ws_copies *w = (struct ws_copies *)self;
    for (size_t k = 0; k < w->n; k++)
        free((void *)w->at[2 * k]);
    free(w);
}

void bp_gomp_workshare_reductions(struct bp_thread *t, uintptr_t *data)
{
    bp_taskgroup_begin(t);
    struct bp_taskgroup *g = bp_taskgroup_current(t);
    /* every thread of the team opens the same constructs in the same
     * order: the depth names the same word on each */
    _Atomic(void *) *slot = bp_team_reduction_slot(t, ++t->ws_red_depth);
    size_t n = 1;
    for (uintptr_t *d = data; d[4] != 0; d = (uintptr_t *)d[4])
        n++;
    void *expect = NULL;
    /* acq_rel: the first makes the copies; the others wait for them */
    if (slot == NULL || atomic_compare_exchange_strong_explicit(
                            slot, &expect, BP_TEAM_RED_BUSY, memory_order_acq_rel,
                            memory_order_acquire)) {
        copies_register(data, t->team_size > 0 ? (size_t)t->team_size : 1, g->gomp_reductions);
        if (slot != NULL) {
            struct ws_copies *w = malloc(sizeof *w + 2 * n * sizeof w->at[0]);
            if (w == NULL)
                bp_fatal("GOMP_loop_start: task reductions: out of memory");
            w->head.drop = ws_copies_drop;
            w->n = n;
            uintptr_t *d = data;
            for (size_t k = 0; k < n; k++, d = (uintptr_t *)d[4]) {
                w->at[2 * k] = d[2];
                w->at[2 * k + 1] = d[6];
            }
            /* release: the copies, made and zeroed */
            atomic_store_explicit(slot, w, memory_order_release);
        }
    } else {
        const struct ws_copies *w = bp_wait_while(slot, BP_TEAM_RED_BUSY);
        if (w->n != n)
            bp_fatal("GOMP_loop_start: task reductions: %zu descriptors where the team's first "
                     "thread had %zu", n, w->n);
        struct registration *r = malloc(sizeof *r);
        if (r == NULL)
            bp_fatal("GOMP_loop_start: task reductions: out of memory");
        r->inherited = g->gomp_reductions;
        uintptr_t *d = data;
        for (size_t k = 0; k < n; k++) {
            d[2] = w->at[2 * k]; /* the first thread's copies, the same array */
            d[6] = w->at[2 * k + 1];
            d[5] = 0;
            uintptr_t *next = (uintptr_t *)d[4];
            if (k + 1 == n)
                d[4] = (uintptr_t)r->inherited;
            d = next;
        }
        data[5] = (uintptr_t)r;
    }
    g->gomp_reductions = data;
}

void bp_gomp_workshare_reductions_end(struct bp_thread *t, int cancelled)
{
    struct bp_taskgroup *g = bp_taskgroup_current(t);
    uintptr_t *data = g != NULL ? g->gomp_reductions : NULL;
    if (data == NULL || data[5] == 0)
        bp_fatal("GOMP_workshare_task_reduction_unregister: no worksharing construct with task "
                 "reductions is open");
    struct registration *r = (struct registration *)data[5];
    bp_taskgroup_end(t); /* its tasks: complete at the construct's barrier already */
    _Atomic(void *) *slot = bp_team_reduction_slot(t, t->ws_red_depth--);
    /* Cancelled, the construct's barrier was given up: threads may still
     * come to it and use the copies. They stay, and the team's word, until
     * the join clears it (cancel.c). */
    if (t->tid == 0 && !cancelled) { /* it has folded them: the copies go */
        for (uintptr_t *d = data; d != NULL && d != r->inherited; d = (uintptr_t *)d[4])
            free((void *)d[2]);
        if (slot != NULL) { /* release: the next construct finds it empty */
            free(atomic_load_explicit(slot, memory_order_relaxed));
            atomic_store_explicit(slot, NULL, memory_order_release);
        }
    }
    free(r);
    if (!cancelled)
        bp_barrier(t, BP_SYNC_BARRIER_RUNTIME); /* no thread starts the next construct before the word is empty */
}

void bp_gomp_reductions_begin(struct bp_thread *t, uintptr_t *data)
{
    bp_taskgroup_begin(t);
    bp_taskgroup_current(t)->gomp_reductions = data;
}

BP_API void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    reduction_register(bp_self(), data);
}

BP_API void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
    struct registration *r = (struct registration *)data[5];
    for (uintptr_t *d = data; d != NULL && d != r->inherited; d = (uintptr_t *)d[4])
        free((void *)d[2]);
    free(r);
}

BP_API void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
    struct bp_thread *t = bp_self();
    struct bp_taskgroup *g = bp_taskgroup_current(t);
    uintptr_t *chain = g != NULL ? g->gomp_reductions : NULL;
    uintptr_t tid = (uintptr_t)t->tid;
    for (size_t i = 0; i < cnt; i++) {
        uintptr_t p = (uintptr_t)ptrs[i];
        int found = 0;
        for (uintptr_t *d = chain; d != NULL && !found; d = (uintptr_t *)d[4]) {
            uintptr_t off = 0, orig = 0;
            if (p >= d[2] && p < d[6]) { /* a copy: the same item's */
                off = (p - d[2]) % d[1];
                for (uintptr_t j = 0; j < d[0]; j++)
                    if (d[7 + 3 * j + 1] == off)
                        orig = d[7 + 3 * j];
                found = 1;
            } else {
                for (uintptr_t j = 0; j < d[0] && !found; j++) {
                    if (d[7 + 3 * j] == p) {
                        off = d[7 + 3 * j + 1];
                        orig = p;
                        found = 1;
                    }
                }
            }
            if (found) {
                ptrs[i] = (void *)(d[2] + tid * d[1] + off);
                if (i < cntorig)
                    ptrs[cnt + i] = (void *)orig;
            }
        }
        if (!found)
            bp_fatal("GOMP_task_reduction_remap: %p is in no task reduction of the enclosing "
                     "taskgroups", (void *)p);
    }
}

/* ---- taskloop ---------------------------------------------------------- */

/* A task's copy of a taskloop's block (by cpyfn when there is one), whose
 * first two words gcc reserves for the task's own start and end. */
static void fill_block(void *arg, void *data, void (*cpyfn)(void *, void *), long arg_size,
                       uint64_t lo, uint64_t hi, int is_long)
{
    if (cpyfn != NULL)
        cpyfn(arg, data);
    else
        copy_small(arg, data, (size_t)arg_size);
    if (is_long) {
        ((long *)arg)[0] = (long)lo;
        ((long *)arg)[1] = (long)hi;
    } else {
        ((unsigned long long *)arg)[0] = lo;
        ((unsigned long long *)arg)[1] = hi;
    }
}

/* A taskloop run by lazy splitting (taskloop.c): what its tasks need. */
struct gomp_taskloop {
    struct bp_taskloop_run run; /* first: the callback is given it */
    void (*fn)(void *);
    void *data;
    void (*cpyfn)(void *, void *);
    long arg_size;
    uint32_t tflags;
    int is_long;
    uint64_t start, step;
};

static void gomp_taskloop_task(struct bp_thread *t, const struct bp_taskloop_run *r,
                               void *scratch, uint64_t k, uint64_t first, uint64_t count)
{
    (void)k;
    const struct gomp_taskloop *g = (const struct gomp_taskloop *)r;
    uint64_t lo = g->start + first * g->step, hi = lo + count * g->step;
    fill_block(scratch, g->data, g->cpyfn, g->arg_size, lo, hi, g->is_long);
    struct bp_task s;
    struct bp_task_frame fr;
    bp_task_begin_included(t, &s, g->tflags, (const void *)g->fn, &fr);
    g->fn(scratch);
    bp_task_end_included(t, &s, &fr);
}

/* A taskloop of n iterations from start by step (both ABI types in 64
 * bits, wrapping as they do): each task gets a copy of the block. In its
 * taskgroup, deferred, in a team of several threads, it runs by lazy
 * splitting; otherwise each task is made and submitted (queued, or run at
 * once when undeferred), or run on the stack when included. */
static void taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                     long arg_size, long arg_align, unsigned flags, unsigned long num_tasks,
                     uint64_t start, uint64_t n, uint64_t step, int is_long)
{
    struct bp_thread *t = bp_self();
    if (arg_size < 2 * (long)sizeof(uint64_t) || arg_align < 0 ||
        (arg_align & (arg_align - 1)) != 0)
        bp_fatal("GOMP_taskloop: a data block of %ld bytes aligned to %ld", arg_size,
                 arg_align);
    /* a reduction's descriptor follows the two bounds in the block */
    int reduction = (flags & (GOMP_TASK_FLAG_REDUCTION | GOMP_TASK_FLAG_NOGROUP)) ==
                    GOMP_TASK_FLAG_REDUCTION;
    uintptr_t *red = reduction ? ((uintptr_t **)data)[2] : NULL;
    if (n == 0) {
        if (reduction)
            red[2] = 0; /* tells the compiled code nothing was registered */
        return;
    }
    bp_hook_work(BP_WORK_TASKLOOP, 1, n);
    struct bp_taskloop_plan plan;
    bp_taskloop_plan(&plan, n,
                     (flags & GOMP_TASK_FLAG_GRAINSIZE) ? BP_TASKLOOP_GRAINSIZE
                     : num_tasks > 0                     ? BP_TASKLOOP_NUM_TASKS
                                                         : BP_TASKLOOP_DEFAULT,
                     num_tasks, (flags & GOMP_TASK_FLAG_STRICT) != 0,
                     (uint64_t)(t->team_size > 0 ? t->team_size : 1));
    int group = !(flags & GOMP_TASK_FLAG_NOGROUP);
    if (group)
        bp_taskgroup_begin(t);
    if (reduction)
        reduction_register(t, red);
    int included = bp_task_included(t);
    int deferred = (flags & GOMP_TASK_FLAG_IF) && !included;
    if (group && deferred) {
        struct gomp_taskloop g = {
            .run = {.task = gomp_taskloop_task,
                    .scratch_size = (size_t)arg_size,
                    .scratch_align = arg_align > 0 ? (size_t)arg_align : 1,
                    .fn = (const void *)fn,
                    .plan = plan},
            .fn = fn,
            .data = data,
            .cpyfn = cpyfn,
            .arg_size = arg_size,
            .tflags = task_flags(flags),
            .is_long = is_long,
            .start = start,
            .step = step,
        };
        bp_taskloop_lazy(t, &g.run);
        bp_taskgroup_end(t);
        bp_hook_work(BP_WORK_TASKLOOP, 0, n);
        return;
    }
    uint64_t lo = start;
    if (included) {
        /* one after another on the stack, each on its own copy of the
         * block in one buffer, one stack task begun again for each */
        void *buf = NULL;
        if (posix_memalign(&buf, arg_align > (long)sizeof(void *) ? (size_t)arg_align
                                                                  : sizeof(void *),
                           (size_t)arg_size) != 0)
            bp_fatal("GOMP_taskloop: a block of %ld bytes: out of memory", arg_size);
        struct bp_task s;
        struct bp_task_frame fr;
        bp_task_begin_included(t, &s, task_flags(flags), (const void *)fn, &fr);
        for (uint64_t k = 0; k < plan.ntasks; k++) {
            uint64_t hi = lo + bp_taskloop_count(&plan, k) * step;
            fill_block(buf, data, cpyfn, arg_size, lo, hi, is_long);
            if (k > 0)
                bp_task_next_included(t, &s, &fr);
            fn(buf);
            lo = hi;
        }
        bp_task_end_included(t, &s, &fr);
        free(buf);
    } else {
        for (uint64_t k = 0; k < plan.ntasks; k++) {
            uint64_t hi = lo + bp_taskloop_count(&plan, k) * step;
            struct bp_task *task =
                bp_task_new((size_t)arg_size, arg_align > 0 ? (size_t)arg_align : 1, gomp_body,
                            task_flags(flags), (const void *)fn);
            fill_block(bp_task_payload(task), data, cpyfn, arg_size, lo, hi, is_long);
            bp_task_submit(t, task, deferred);
            lo = hi;
        }
    }
    if (group)
        bp_taskgroup_end(t);
    bp_hook_work(BP_WORK_TASKLOOP, 0, n);
}

BP_API void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                          long arg_size, long arg_align, unsigned flags,
                          unsigned long num_tasks, int priority, long start, long end,
                          long step)
{
    (void)priority;
    if (step == 0)
        bp_fatal("GOMP_taskloop: a step of 0");
    uint64_t n = 0;
    if (step > 0 && start < end)
        n = ((uint64_t)end - (uint64_t)start + (uint64_t)step - 1) / (uint64_t)step;
    else if (step < 0 && start > end)
        n = ((uint64_t)start - (uint64_t)end + (uint64_t)-step - 1) / (uint64_t)-step;
    BP_HOOK_ENTER();
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, (uint64_t)start, n,
             (uint64_t)step, 1);
    BP_HOOK_LEAVE();
}

BP_API void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                              long arg_size, long arg_align, unsigned flags,
                              unsigned long num_tasks, int priority, unsigned long long start,
                              unsigned long long end, unsigned long long step)
{
    (void)priority;
    if (step == 0)
        bp_fatal("GOMP_taskloop_ull: a step of 0");
    uint64_t n = 0;
    if (flags & GOMP_TASK_FLAG_UP) {
        if (start < end)
            n = (end - start + step - 1) / step;
    } else if (start > end) {
        n = (start - end - step - 1) / -step;
    }
    BP_HOOK_ENTER();
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, start, n, step, 0);
    BP_HOOK_LEAVE();
}
