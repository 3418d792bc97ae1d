/* kmp_task.c: the libomp entry points for explicit tasks that clang calls
 * (__kmpc_omp_task_alloc, __kmpc_omp_task, the if(0) pair, taskwait,
 * taskyield, taskgroup, detach), a thin layer over task.c.
 *
 * clang allocates a task through the runtime and fills it: the runtime's
 * part (struct kmp_task: the shareds pointer, the entry, the untied part
 * number and two compiler words) comes first, the task's privates follow
 * within sizeof_kmp_task_t, and sizeof_shareds bytes of shared pointers
 * after that, pointer-aligned. Here all of it is a task's payload, at a
 * 64-byte boundary. The entry is called as entry(gtid, task); an untied
 * task's entry runs one part per call and queues the task again through
 * __kmpc_omp_task before it returns, which task.c counts (requeues): the
 * destructors thunk, when the compiler asked for one, runs after the last
 * part. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "../internal.h"
#include "kmp.h"

/* The task has a destructors thunk: the generic flag of a task whose body
 * a discard still runs (kmp_body then runs the thunk alone). */
#define BP_KMP_DESTRUCTORS BP_TASK_DISCARD_BODY

static void kmp_body(struct bp_task *task)
{
    kmp_task_t *kt = bp_task_payload(task);
    int32_t gtid = bp_gtid(bp_self());
    if (task->flags & BP_TASK_DISCARDED) { /* cancelled: its destructors alone */
        kt->data1.destructors(gtid, kt);
        return;
    }
    /* relaxed: this part holds the task; a later part counts after it */
    uint32_t before = atomic_load_explicit(&task->requeues, memory_order_relaxed);
    BP_HOOK_CODE_FRAME();
    if (kt->routine != NULL) /* a task made with none runs nothing, as on libomp */
        kt->routine(gtid, kt);
    if ((task->flags & BP_KMP_DESTRUCTORS) &&
        atomic_load_explicit(&task->requeues, memory_order_relaxed) == before)
        kt->data1.destructors(gtid, kt);
}

BP_API kmp_task_t *__kmpc_omp_task_alloc(ident_t *loc, int32_t gtid, int32_t flags,
                                         size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                                         kmp_routine_entry_t task_entry)
{
    (void)loc;
    (void)gtid;
    if (flags & (KMP_TASK_PROXY | KMP_TASK_HIDDEN_HELPER))
        bp_fatal("__kmpc_omp_task_alloc: proxy and hidden helper tasks (target offload) are "
                 "not supported");
    /* The compiler's kmp_task_t may end before data2 (priority, which the
     * pool does not read) or data1 (the destructors, read only when the
     * flag says they exist), as libomp's own tests' structs do: the
     * runtime writes shareds, routine and part_id, and reads no field the
     * caller's struct lacks. Its shareds follow the caller's size. */
    size_t need = (flags & KMP_TASK_DESTRUCTORS) ? offsetof(kmp_task_t, data2)
                                                 : offsetof(kmp_task_t, data1);
    if (sizeof_kmp_task_t < need)
        bp_fatal("__kmpc_omp_task_alloc: a task of %zu bytes, less than the %zu of its "
                 "shareds, routine, part_id%s",
                 sizeof_kmp_task_t, need,
                 (flags & KMP_TASK_DESTRUCTORS) ? " and destructors" : "");
    size_t shareds_at = (sizeof_kmp_task_t + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
    uint32_t bf = ((flags & KMP_TASK_TIED) ? 0 : BP_TASK_UNTIED) |
                  ((flags & KMP_TASK_FINAL) ? BP_TASK_FINAL : 0) |
                  ((flags & KMP_TASK_DESTRUCTORS) ? BP_KMP_DESTRUCTORS : 0);
    size_t payload = shareds_at + sizeof_shareds;
    struct bp_task *task = bp_task_new(payload > sizeof(kmp_task_t) ? payload : sizeof(kmp_task_t),
                                       64, kmp_body, bf, (const void *)task_entry);
    kmp_task_t *kt = bp_task_payload(task);
    memset(kt, 0, sizeof_kmp_task_t < sizeof *kt ? sizeof_kmp_task_t : sizeof *kt);
    kt->shareds = sizeof_shareds > 0 ? (char *)kt + shareds_at : NULL;
    kt->routine = task_entry;
    return kt;
}

BP_API int32_t __kmpc_omp_task(ident_t *loc, int32_t gtid, kmp_task_t *new_task)
{
    (void)loc;
    (void)gtid;
    struct bp_thread *t = bp_self();
    BP_HOOK_ENTER();
    bp_task_submit(t, bp_task_of_payload(new_task), !bp_task_included(t));
    BP_HOOK_LEAVE();
    return 0;
}

BP_API void __kmpc_omp_task_begin_if0(ident_t *loc, int32_t gtid, kmp_task_t *task)
{
    (void)loc;
    (void)gtid;
    struct bp_task *bt = bp_task_of_payload(task);
    bp_task_begin_undeferred(bp_self(), bt, &bt->frame);
}

BP_API void __kmpc_omp_task_complete_if0(ident_t *loc, int32_t gtid, kmp_task_t *task)
{
    (void)loc;
    struct bp_task *bt = bp_task_of_payload(task);
    if (bt->flags & BP_KMP_DESTRUCTORS)
        task->data1.destructors(gtid, task);
    bp_task_end_undeferred(bp_self(), bt, &bt->frame);
}

BP_API int32_t __kmpc_omp_taskwait(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    BP_HOOK_ENTER();
    bp_taskwait(bp_self());
    BP_HOOK_LEAVE();
    return 0;
}

BP_API int32_t __kmpc_omp_taskyield(ident_t *loc, int32_t gtid, int end_part)
{
    (void)loc;
    (void)gtid;
    (void)end_part;
    bp_taskyield(bp_self());
    return 0;
}

BP_API void __kmpc_taskgroup(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    BP_HOOK_ENTER();
    bp_taskgroup_begin(bp_self());
    BP_HOOK_LEAVE();
}

BP_API void __kmpc_end_taskgroup(ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    BP_HOOK_ENTER();
    bp_taskgroup_end(bp_self());
    BP_HOOK_LEAVE();
}

enum { BP_DEPS_ON_STACK = 16 };

/* The two lists clang passes (the noalias one is a list like the other),
 * as task dependences; deps is the caller's small array or malloc's. */
static struct bp_dep *read_deps(int32_t ndeps, const kmp_depend_info_t *list, int32_t nnoalias,
                                const kmp_depend_info_t *noalias, struct bp_dep *small)
{
    if (ndeps < 0 || nnoalias < 0)
        bp_fatal("__kmpc_omp_task_with_deps: %d and %d dependences", (int)ndeps, (int)nnoalias);
    int n = ndeps + nnoalias;
    struct bp_dep *deps = n <= BP_DEPS_ON_STACK ? small : malloc(sizeof *deps * (size_t)n);
    if (deps == NULL)
        bp_fatal("__kmpc_omp_task_with_deps: %d dependences: out of memory", n);
    for (int i = 0; i < n; i++) {
        const kmp_depend_info_t *d = i < ndeps ? &list[i] : &noalias[i - ndeps];
        uint8_t f = d->flags;
        deps[i].addr = (uintptr_t)d->base_addr;
        /* omp_all_memory: the all flag (clang today), or any dependence on
         * the address (intptr_t)-1 (older clang; libomp reads both) */
        deps[i].kind = (f & 0x80) || d->base_addr == (intptr_t)-1 ? BP_DEP_ALL
                       : (f & 4)    ? BP_DEP_MUTEXINOUTSET
                       : (f & 8)    ? BP_DEP_INOUTSET
                       : (f & 2)    ? BP_DEP_INOUT
                       : (f & 1)    ? BP_DEP_IN
                                    : 0;
        if (deps[i].kind == 0)
            bp_fatal("__kmpc_omp_task_with_deps: a dependence of unknown kind 0x%x", f);
    }
    return deps;
}

BP_API int32_t __kmpc_omp_task_with_deps(ident_t *loc, int32_t gtid, kmp_task_t *new_task,
                                         int32_t ndeps, kmp_depend_info_t *dep_list,
                                         int32_t ndeps_noalias,
                                         kmp_depend_info_t *noalias_dep_list)
{
    (void)loc;
    (void)gtid;
    struct bp_thread *t = bp_self();
    struct bp_dep small[BP_DEPS_ON_STACK];
    struct bp_dep *deps = read_deps(ndeps, dep_list, ndeps_noalias, noalias_dep_list, small);
    BP_HOOK_ENTER();
    bp_task_submit_deps(t, bp_task_of_payload(new_task), deps, ndeps + ndeps_noalias,
                        !bp_task_included(t));
    BP_HOOK_LEAVE();
    if (deps != small)
        free(deps);
    return 0;
}

/* The dependences of an if(0) task, which clang then runs itself, or of
 * taskwait depend(...); with nowait, an empty task with them instead. */
static void wait_deps(int32_t ndeps, kmp_depend_info_t *dep_list, int32_t ndeps_noalias,
                      kmp_depend_info_t *noalias_dep_list, int nowait)
{
    if (ndeps + ndeps_noalias == 0)
        return;
    struct bp_dep small[BP_DEPS_ON_STACK];
    struct bp_dep *deps = read_deps(ndeps, dep_list, ndeps_noalias, noalias_dep_list, small);
    bp_taskwait_deps(bp_self(), deps, ndeps + ndeps_noalias, nowait);
    if (deps != small)
        free(deps);
}

BP_API void __kmpc_omp_wait_deps(ident_t *loc, int32_t gtid, int32_t ndeps,
                                 kmp_depend_info_t *dep_list, int32_t ndeps_noalias,
                                 kmp_depend_info_t *noalias_dep_list)
{
    (void)loc;
    (void)gtid;
    BP_HOOK_ENTER();
    wait_deps(ndeps, dep_list, ndeps_noalias, noalias_dep_list, 0);
    BP_HOOK_LEAVE();
}

BP_API void __kmpc_omp_taskwait_deps_51(ident_t *loc, int32_t gtid, int32_t ndeps,
                                        kmp_depend_info_t *dep_list, int32_t ndeps_noalias,
                                        kmp_depend_info_t *noalias_dep_list,
                                        int32_t has_no_wait)
{
    (void)loc;
    (void)gtid;
    BP_HOOK_ENTER();
    wait_deps(ndeps, dep_list, ndeps_noalias, noalias_dep_list, has_no_wait != 0);
    BP_HOOK_LEAVE();
}

/* detach: the task completes once its event is fulfilled too. */
BP_API void *__kmpc_task_allow_completion_event(ident_t *loc, int32_t gtid, kmp_task_t *task)
{
    (void)loc;
    (void)gtid;
    return bp_task_add_event(bp_task_of_payload(task));
}

/* ---- task reductions ------------------------------------------------- */

/* clang's reduction items: __kmpc_taskred_init's (with the original's
 * address, an initialiser taking it) and __kmpc_task_reduction_init's
 * older ones. */
typedef struct kmp_taskred_input {
    void *reduce_shar;
    void *reduce_orig;
    size_t reduce_size;
    void *reduce_init;
    void *reduce_fini;
    void *reduce_comb;
    uint32_t flags; /* lazy_priv: ours are all made at once */
} kmp_taskred_input_t;
typedef struct kmp_task_red_input {
    void *reduce_shar;
    size_t reduce_size;
    void *reduce_init;
    void *reduce_fini;
    void *reduce_comb;
    uint32_t flags;
} kmp_task_red_input_t;

/* One item in a taskgroup: a copy per thread of the team, each stride
 * bytes, initialised at once; the group's end folds them into the shared
 * item in thread order and finalises them (kmp_red_finish). */
struct kmp_red_item {
    void *shar, *orig;
    size_t size, stride;
    char *copies;
    void (*fini)(void *);
    void (*comb)(void *, void *);
};
struct kmp_modifier;
struct kmp_red {
    int n, threads;
    struct kmp_modifier *modifier; /* a thread's view of its team's; NULL: own */
    struct kmp_red_item items[];
};

/* Every thread's copy of each item, folded into the item (fold) or not,
 * finalised; then the copies and r go. */
static void red_free(struct kmp_red *r, int fold)
{
    for (int i = 0; i < r->n; i++) {
        struct kmp_red_item *it = &r->items[i];
        for (int k = 0; k < r->threads; k++) {
            void *copy = it->copies + (size_t)k * it->stride;
            if (fold)
                it->comb(it->shar, copy);
            if (it->fini != NULL)
                it->fini(copy);
        }
        free(it->copies);
    }
    free(r);
}

static void kmp_red_finish(struct bp_taskgroup *g)
{
    red_free(g->kmp_reductions, 1);
    g->kmp_reductions = NULL;
}

/* The items of data (with_orig: __kmpc_taskred_init's), with copies for
 * `threads` threads, each initialised. */
static struct kmp_red *red_make(int num, const void *data, int with_orig, int threads)
{
    if (num < 0)
        bp_fatal("__kmpc_taskred_init: %d items", num);
    struct kmp_red *r = malloc(sizeof *r + sizeof r->items[0] * (size_t)num);
    if (r == NULL)
        bp_fatal("__kmpc_taskred_init: out of memory");
    r->n = num;
    r->threads = threads;
    r->modifier = NULL;
    for (int i = 0; i < num; i++) {
        struct kmp_red_item *it = &r->items[i];
        void *init;
        if (with_orig) {
            const kmp_taskred_input_t *in = (const kmp_taskred_input_t *)data + i;
            *it = (struct kmp_red_item){in->reduce_shar, in->reduce_orig, in->reduce_size, 0,
                                        NULL, (void (*)(void *))in->reduce_fini,
                                        (void (*)(void *, void *))in->reduce_comb};
            init = in->reduce_init;
        } else {
            const kmp_task_red_input_t *in = (const kmp_task_red_input_t *)data + i;
            *it = (struct kmp_red_item){in->reduce_shar, NULL, in->reduce_size, 0, NULL,
                                        (void (*)(void *))in->reduce_fini,
                                        (void (*)(void *, void *))in->reduce_comb};
            init = in->reduce_init;
        }
        if (it->comb == NULL)
            bp_fatal("__kmpc_taskred_init: an item without a combiner");
        it->stride = (it->size + 63) & ~(size_t)63;
        void *mem = NULL;
        if (posix_memalign(&mem, 64, it->stride * (size_t)threads + 1) != 0)
            bp_fatal("__kmpc_taskred_init: out of memory");
        it->copies = mem;
        for (int k = 0; k < threads; k++) {
            void *copy = it->copies + (size_t)k * it->stride;
            if (init == NULL)
                memset(copy, 0, it->size);
            else if (with_orig)
                ((void (*)(void *, void *))init)(copy, it->orig != NULL ? it->orig : it->shar);
            else
                ((void (*)(void *))init)(copy);
        }
    }
    return r;
}

/* Make the items' copies in t's innermost taskgroup; the handle is it. */
static void *red_init(int num, const void *data, int with_orig)
{
    struct bp_thread *t = bp_self();
    struct bp_taskgroup *g = bp_taskgroup_current(t);
    if (g == NULL)
        bp_fatal("__kmpc_taskred_init: a task reduction outside a taskgroup");
    if (g->kmp_reductions != NULL)
        bp_fatal("__kmpc_taskred_init: a second task reduction in one taskgroup");
    g->kmp_reductions = red_make(num, data, with_orig, t->team_size > 0 ? t->team_size : 1);
    g->finish = kmp_red_finish;
    return g;
}

BP_API void *__kmpc_taskred_init(int gtid, int num, void *data)
{
    (void)gtid;
    return red_init(num, data, 1);
}

BP_API void *__kmpc_task_reduction_init(int gtid, int num, void *data)
{
    (void)gtid;
    return red_init(num, data, 0);
}

/* The calling thread's copy of an item named by its shared or original
 * address, or by any thread's copy, in the given taskgroup (NULL: the
 * innermost) or one enclosing it. */
BP_API void *__kmpc_task_reduction_get_th_data(int gtid, void *tskgrp, void *data)
{
    (void)gtid;
    struct bp_thread *t = bp_self();
    struct bp_taskgroup *g = tskgrp != NULL ? tskgrp : bp_taskgroup_current(t);
    for (; g != NULL; g = g->prev) {
        struct kmp_red *r = g->kmp_reductions;
        if (r == NULL)
            continue;
        for (int i = 0; i < r->n; i++) {
            struct kmp_red_item *it = &r->items[i];
            char *p = data;
            if (p == it->shar || p == it->orig ||
                (p >= it->copies && p < it->copies + it->stride * (size_t)r->threads)) {
                int tid = t->tid < r->threads ? t->tid : 0;
                return it->copies + (size_t)tid * it->stride;
            }
        }
    }
    bp_fatal("__kmpc_task_reduction_get_th_data: %p is in no task reduction of the "
             "enclosing taskgroups", data);
}

/* `reduction(task, ...)` on a parallel or worksharing construct: every
 * thread of the team calls the init, its items naming its own private
 * copies of the list items, and the fini. The first thread to arrive makes
 * the team's copies, one per thread, and publishes them in the team's word;
 * each thread then runs in a taskgroup of its own whose items are its own
 * private copies, viewing the team's copies, so that a task of any thread
 * that names its maker's item finds the running thread's copy. At the
 * fini each thread waits for its taskgroup's tasks; the last to arrive
 * (all tasks complete) folds every copy, in thread order, into its own
 * private copy, which the construct's ordinary reduction then combines
 * with the others'. In a team of one it is a taskgroup reduction. */
struct kmp_modifier {
    struct bp_team_red head;
    struct kmp_red *team; /* the copies */
    _Atomic int arrived;  /* threads past their fini */
};

/* A cancelled region's: its copies finalised, not folded. */
static void modifier_drop(struct bp_team_red *self)
{
    struct kmp_modifier *m = (struct kmp_modifier *)self;
    red_free(m->team, 0);
    free(m);
}

/* A thread's view of the team's copies: its own items' addresses. */
static struct kmp_red *red_view(struct kmp_modifier *m, int num, const void *data,
                                int with_orig)
{
    struct kmp_red *v = malloc(sizeof *v + sizeof v->items[0] * (size_t)num);
    if (v == NULL)
        bp_fatal("__kmpc_taskred_modifier_init: out of memory");
    v->n = num;
    v->threads = m->team->threads;
    v->modifier = m;
    for (int i = 0; i < num; i++) {
        v->items[i] = m->team->items[i];
        if (with_orig) {
            const kmp_taskred_input_t *in = (const kmp_taskred_input_t *)data + i;
            v->items[i].shar = in->reduce_shar;
            v->items[i].orig = in->reduce_orig;
        } else {
            v->items[i].shar = ((const kmp_task_red_input_t *)data + i)->reduce_shar;
            v->items[i].orig = NULL;
        }
    }
    return v;
}

static void *modifier_init(int is_ws, int num, void *data, int with_orig)
{
    struct bp_thread *t = bp_self();
    bp_taskgroup_begin(t);
    _Atomic(void *) *slot = bp_team_reduction_slot(t, is_ws ? ++t->ws_red_depth : 0);
    if (slot == NULL)
        return red_init(num, data, with_orig);
    struct bp_taskgroup *g = bp_taskgroup_current(t);
    void *expect = NULL;
    struct kmp_modifier *m;
    /* acq_rel: the first makes the copies; the others wait for them */
    if (atomic_compare_exchange_strong_explicit(slot, &expect, BP_TEAM_RED_BUSY,
                                                memory_order_acq_rel, memory_order_acquire)) {
        m = malloc(sizeof *m);
        if (m == NULL)
            bp_fatal("__kmpc_taskred_modifier_init: out of memory");
        m->head.drop = modifier_drop;
        m->team = red_make(num, data, with_orig, t->team_size);
        atomic_init(&m->arrived, 0);
        /* release: the copies, made and initialised */
        atomic_store_explicit(slot, m, memory_order_release);
    } else {
        m = bp_wait_while(slot, BP_TEAM_RED_BUSY);
    }
    if (m->team->n != num)
        bp_fatal("__kmpc_taskred_modifier_init: %d items where the team's first thread had %d",
                 num, m->team->n);
    /* this thread's view: its own items, the team's copies */
    struct kmp_red *v = red_view(m, num, data, with_orig);
    g->kmp_reductions = v;
    g->finish = NULL; /* the fini folds, once every thread's tasks are done */
    return g;
}

static void modifier_fini(int is_ws)
{
    struct bp_thread *t = bp_self();
    struct bp_taskgroup *g = bp_taskgroup_current(t);
    struct kmp_red *v = g != NULL ? g->kmp_reductions : NULL;
    if (v == NULL || v->modifier == NULL) { /* a team of one: the group folds */
        if (g == NULL)
            bp_fatal("__kmpc_task_reduction_modifier_fini: no task reduction is open");
        if (is_ws)
            t->ws_red_depth--;
        bp_taskgroup_end(t);
        return;
    }
    struct kmp_modifier *m = v->modifier;
    int threads = m->team->threads;
    _Atomic(void *) *slot = bp_team_reduction_slot(t, is_ws ? t->ws_red_depth-- : 0);
    bp_taskgroup_end(t); /* this thread's tasks, complete */
    /* acq_rel: the last sees every thread's tasks' writes to the copies */
    if (atomic_fetch_add_explicit(&m->arrived, 1, memory_order_acq_rel) + 1 == threads) {
        for (int i = 0; i < m->team->n; i++) {
            struct kmp_red_item *it = &m->team->items[i];
            it->shar = v->items[i].shar; /* into this thread's private copy */
        }
        struct bp_taskgroup fold = {.kmp_reductions = m->team};
        kmp_red_finish(&fold);
        free(m);
        /* release: the construct's next instance finds it empty */
        atomic_store_explicit(slot, NULL, memory_order_release);
    }
    free(v);
}

BP_API void *__kmpc_taskred_modifier_init(ident_t *loc, int gtid, int is_ws, int num, void *data)
{
    (void)loc, (void)gtid;
    return modifier_init(is_ws, num, data, 1);
}

BP_API void *__kmpc_task_reduction_modifier_init(ident_t *loc, int gtid, int is_ws, int num,
                                                 void *data)
{
    (void)loc, (void)gtid;
    return modifier_init(is_ws, num, data, 0);
}

BP_API void __kmpc_task_reduction_modifier_fini(ident_t *loc, int gtid, int is_ws)
{
    (void)loc, (void)gtid;
    modifier_fini(is_ws);
}

/* ---- taskloop ---------------------------------------------------------- */

typedef void (*kmp_task_dup_t)(kmp_task_t *dst, kmp_task_t *src, int32_t last);

/* clang's taskloop: `task` is a pattern the runtime copies into each task,
 * with lb and ub (inclusive, by st) pointing into it; task_dup, when given,
 * finishes a copy (firstprivates, the last-iteration flag). The pattern
 * is not run: its destructors run, then it is freed. */
static void kmp_taskloop(kmp_task_t *task, int32_t if_val, uint64_t *lb, uint64_t *ub,
                         int64_t st, int32_t nogroup, int32_t sched, uint64_t param,
                         int strict, void *task_dup)
{
    struct bp_thread *t = bp_self();
    struct bp_task *pat = bp_task_of_payload(task);
    size_t lb_at = (size_t)((char *)lb - (char *)task), ub_at = (size_t)((char *)ub - (char *)task);
    if ((char *)lb < (char *)task || lb_at + sizeof *lb > pat->payload_size ||
        (char *)ub < (char *)task || ub_at + sizeof *ub > pat->payload_size)
        bp_fatal("__kmpc_taskloop: loop bounds outside the task");
    if (st == 0)
        bp_fatal("__kmpc_taskloop: a stride of 0");
    if (sched < BP_TASKLOOP_DEFAULT || sched > BP_TASKLOOP_NUM_TASKS)
        bp_fatal("__kmpc_taskloop: schedule %d is none of 0 (none), 1 (grainsize), "
                 "2 (num_tasks)", (int)sched);
    uint64_t lo = *lb, hi = *ub; /* the compiler tested that the loop runs */
    uint64_t n = st > 0 ? (hi - lo) / (uint64_t)st + 1 : (lo - hi) / (uint64_t)-st + 1;
    bp_hook_work(BP_WORK_TASKLOOP, 1, n);
    struct bp_taskloop_plan plan;
    bp_taskloop_plan(&plan, n, sched, param, strict,
                     10 * (uint64_t)(t->team_size > 0 ? t->team_size : 1));
    if (!nogroup)
        bp_taskgroup_begin(t);
    int deferred = if_val && !bp_task_included(t);
    uint32_t flags = pat->flags & (BP_TASK_UNTIED | BP_TASK_FINAL | BP_KMP_DESTRUCTORS);
    uint64_t first = 0;
    for (uint64_t k = 0; k < plan.ntasks; k++) {
        uint64_t count = bp_taskloop_count(&plan, k);
        struct bp_task *bt = bp_task_new(pat->payload_size, 64, kmp_body, flags, pat->fn);
        kmp_task_t *kt = bp_task_payload(bt);
        memcpy(kt, task, pat->payload_size);
        if (task->shareds != NULL)
            kt->shareds = (char *)kt + ((char *)task->shareds - (char *)task);
        uint64_t task_lo = lo + first * (uint64_t)st;
        uint64_t task_hi = task_lo + (count - 1) * (uint64_t)st;
        memcpy((char *)kt + lb_at, &task_lo, sizeof task_lo);
        memcpy((char *)kt + ub_at, &task_hi, sizeof task_hi);
        first += count;
        if (task_dup != NULL)
            ((kmp_task_dup_t)task_dup)(kt, task, k + 1 == plan.ntasks);
        bp_task_submit(t, bt, deferred);
    }
    if (pat->flags & BP_KMP_DESTRUCTORS)
        task->data1.destructors(bp_gtid(t), task);
    bp_task_free(pat);
    if (!nogroup)
        bp_taskgroup_end(t);
    bp_hook_work(BP_WORK_TASKLOOP, 0, n);
}

BP_API void __kmpc_taskloop(ident_t *loc, int32_t gtid, kmp_task_t *task, int32_t if_val,
                            uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup,
                            int32_t sched, uint64_t grainsize, void *task_dup)
{
    (void)loc;
    (void)gtid;
    BP_HOOK_ENTER();
    kmp_taskloop(task, if_val, lb, ub, st, nogroup, sched, grainsize, 0, task_dup);
    BP_HOOK_LEAVE();
}

BP_API void __kmpc_taskloop_5(ident_t *loc, int32_t gtid, kmp_task_t *task, int32_t if_val,
                              uint64_t *lb, uint64_t *ub, int64_t st, int32_t nogroup,
                              int32_t sched, uint64_t grainsize, int32_t modifier,
                              void *task_dup)
{
    (void)loc;
    (void)gtid;
    BP_HOOK_ENTER();
    kmp_taskloop(task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier != 0, task_dup);
    BP_HOOK_LEAVE();
}

/* libomp's view of the dependence graph, for tools and tests: a task's node
 * (its first word the list of its successors) and that list, as it is when
 * asked (taskdep.c). */
BP_API void *__kmpc_task_get_depnode(kmp_task_t *task)
{
    return bp_task_depnode(bp_task_of_payload(task));
}

BP_API void *__kmpc_task_get_successors(kmp_task_t *task)
{
    return bp_task_successors(bp_task_of_payload(task));
}

/* The affinity clause's hint (`task affinity(...)`): a task runs where a
 * thread is free, so the hint is taken and not used; libomp does the same. */
BP_API int32_t __kmpc_omp_reg_task_with_affinity(ident_t *loc, int32_t gtid, kmp_task_t *new_task,
                                                 int32_t naffins, void *affin_list)
{
    (void)loc;
    (void)gtid;
    (void)new_task;
    (void)naffins;
    (void)affin_list;
    return 0;
}

/* The old name of a task's submission. */
BP_API int32_t __kmpc_omp_task_parts(ident_t *loc, int32_t gtid, kmp_task_t *new_task)
{
    return __kmpc_omp_task(loc, gtid, new_task);
}

/* Whether the calling thread's team can run tasks on other threads. */
BP_API int32_t __kmpc_omp_has_task_team(int32_t gtid)
{
    (void)gtid;
    return bp_self()->team_size > 1;
}

/* A number for the task running now and for its parent (0: none), unique
 * among the tasks alive: the task's address, as a tool may compare them. */
BP_API uint64_t __kmpc_get_taskid(void)
{
    return (uint64_t)(uintptr_t)bp_task_current(bp_self());
}

BP_API uint64_t __kmpc_get_parent_taskid(void)
{
    struct bp_task *task = bp_task_current(bp_self());
    return task != NULL ? (uint64_t)(uintptr_t)task->parent : 0;
}
