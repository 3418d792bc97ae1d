/* record.c: an OMPT tool for the tests, built against LLVM's omp-tools.h
 * (so that buddypool's side is checked against the header tools use). It
 * registers the callbacks of threads, parallel regions and implicit tasks,
 * gives every thread, region and task a number in the data the runtime
 * hands it, and checks at each end that the data it gets back is what it
 * set at the begin, that the queries agree with the callbacks
 * (ompt_get_thread_data, ompt_get_parallel_info, ompt_get_task_info), that
 * task frames lie where the stack says they must, and that begins and ends
 * pair. At finalize it prints one line:
 *   OMPT-RECORD thread_begin=N thread_end=N initial=N parallel_begin=N
 *     parallel_end=N implicit_begin=N implicit_end=N max_team=N errors=N
 * and the answers of ompt_set_callback it got:
 *   OMPT-SET thread_begin=R implicit_task=R target=R task_create=R bogus=R
 * It also follows the constructs inside regions (constructs.c): sync
 * regions and their waits (nested on each thread's stack of open ones,
 * each end the end of the innermost, each in the task that ompt_get_task_info
 * names), reductions, explicit tasks (each created once with fresh data,
 * begun, completed once, its dependences right after its creation),
 * locks (each acquired one what its thread waited for, each released one
 * held), and prints
 *   OMPT-SYNC explicit=N implicit_ws=N implementation=N implicit_parallel=N
 *     taskwait=N taskgroup=N unpaired=N reduction=N
 *   OMPT-TASKS created=N completed=N undeferred=N taskwait_tasks=N
 *     dependences=N deps=N detached=N pairs=N bad_pairs=N
 *   OMPT-MUTEX acquired=N released=N critical=N lock=N test_lock=N nest=N
 *     nest_again=N atomic=N ordered=N init=N destroy=N
 *   OMPT-WORK loop_static=N ... taskloop=N chunks=N chunk_iterations=N
 *     section_dispatches=N masked=N masked_end=N flush=N cancel_activated=N
 *     cancel_detected=N discarded=N unpaired=N
 * (each sync and work count is of begins; unpaired counts the kinds whose
 * begins, ends and waits do not add up).
 * Errors are printed as they happen: "OMPT-ERROR what".
 *
 * BP_TEST_TOOL_DECLINE=start: ompt_start_tool returns NULL (the runtime
 * looks further); =init: initialize returns 0 (the tool is not used, and
 * its finalize must not be called). omp_control_tool reaches
 * control_tool, which answers 40 + command. */
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ompt_get_thread_data_t get_thread_data;
static ompt_get_parallel_info_t get_parallel_info;
static ompt_get_task_info_t get_task_info;
static ompt_get_unique_id_t get_unique_id;

static _Atomic long thread_begin, thread_end, initial, parallel_begin, parallel_end,
    implicit_begin, implicit_end, errors, max_team;
static int set_results[5];

#define ERROR(...)                                                                  \
    do {                                                                            \
        atomic_fetch_add(&errors, 1);                                               \
        fprintf(stderr, "OMPT-ERROR " __VA_ARGS__);                                 \
        fputc('\n', stderr);                                                        \
    } while (0)

/* What the constructs' events add up to (OMPT-SYNC, -TASKS, -MUTEX). */
enum { KINDS = 11, MUTEXES = 8, OPEN = 64 };
static _Atomic long sync_begin[KINDS], sync_end[KINDS], wait_begin[KINDS], wait_end[KINDS],
    reduction_begin, reduction_end;
static _Atomic long created, completed, undeferred, taskwait_tasks, dependences, deps,
    detached;
static _Atomic long acquired, released, acquired_kind[MUTEXES], nest_again, nest_release,
    lock_init, lock_destroy;

/* A thread's open sync regions, innermost last, and its tasks' records. */
static _Thread_local struct {
    int kind;
    ompt_data_t *task;
    int waiting;
} open_sync[OPEN];
static _Thread_local int nopen, in_reduction;
static _Thread_local ompt_data_t *running[OPEN]; /* explicit tasks it runs */
static _Thread_local int nrunning;
static _Thread_local ompt_data_t *deps_due; /* created with dependences: told next */
static _Thread_local ompt_wait_id_t waiting_for;
static _Thread_local int waiting_kind;
static _Thread_local long held;

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
    atomic_fetch_add(&thread_begin, 1);
    if (type == ompt_thread_initial)
        atomic_fetch_add(&initial, 1);
    else if (type != ompt_thread_worker)
        ERROR("thread_begin of type %d", (int)type);
    if (thread_data->value != 0)
        ERROR("thread_begin: data already set (%llu)", (unsigned long long)thread_data->value);
    thread_data->value = get_unique_id();
    if (get_thread_data() != thread_data)
        ERROR("ompt_get_thread_data is not the thread_begin's data");
}

static void on_thread_end(ompt_data_t *thread_data)
{
    atomic_fetch_add(&thread_end, 1);
    if (thread_data->value == 0)
        ERROR("thread_end: data not set at its begin");
}

/* Task frames: the stack grows down, so a task's exit frame (the runtime's
 * frame that runs its code) is above the frames of its code, and its enter
 * frame (where its code called into the runtime) is between the two; a
 * callback's own frame is below both. */
static void check_frames(const char *where, const ompt_frame_t *f, int want_enter)
{
    /* the callback's frame: its frame pointer (a local's address may be on
     * a sanitizer's fake stack, elsewhere) */
    const char *here = __builtin_frame_address(0);
    /* libomp's enter frame is the address its entry's frame pointer points
     * to, which is the program's only where the program keeps frame
     * pointers: the reference run does not check frames */
    if (getenv("BP_TEST_TOOL_LIBOMP") != NULL)
        return;
    if (f == NULL) {
        ERROR("%s: no task frame", where);
        return;
    }
    void *exit_ptr = f->exit_frame.ptr, *enter_ptr = f->enter_frame.ptr;
    /* a tail call from the program's code into the runtime merges its
     * frame into the runtime's: then the enter frame is at the exit frame,
     * a few words above */
    if (exit_ptr != NULL && ((const char *)exit_ptr <= here || !(f->exit_frame_flags & 0x30)))
        ERROR("%s: exit frame %p not above the callback's (%p), or flags %#x", where, exit_ptr,
              (void *)here, f->exit_frame_flags);
    if (!want_enter)
        return;
    if (enter_ptr == NULL || (const char *)enter_ptr <= here ||
        (exit_ptr != NULL && (char *)enter_ptr > (char *)exit_ptr + 32) ||
        !(f->enter_frame_flags & ompt_frame_application))
        ERROR("%s: enter frame %p not between the callback's %p and the exit frame %p "
              "(flags %#x)", where, enter_ptr, (void *)here, exit_ptr, f->enter_frame_flags);
}

static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested, int flags,
                              const void *codeptr_ra)
{
    check_frames("parallel_begin", encountering_task_frame, 1);
    atomic_fetch_add(&parallel_begin, 1);
    if (encountering_task_data == NULL || encountering_task_data->value == 0)
        ERROR("parallel_begin: the encountering task has no data");
    if (requested < 1)
        ERROR("parallel_begin: requested %u", requested);
    if (!(flags & (ompt_parallel_team | ompt_parallel_league)))
        ERROR("parallel_begin: flags %#x", flags);
    if (codeptr_ra == NULL)
        ERROR("parallel_begin: no codeptr_ra");
    parallel_data->value = get_unique_id();
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                            int flags, const void *codeptr_ra)
{
    (void)flags, (void)codeptr_ra;
    atomic_fetch_add(&parallel_end, 1);
    if (parallel_data->value == 0)
        ERROR("parallel_end: data not set at its begin");
    /* libomp answers with the ended region's implicit task after a region
     * of one thread: BP_TEST_TOOL_LIBOMP skips the check there */
    ompt_data_t *task = NULL, *par = NULL;
    int size = 0;
    get_parallel_info(0, &par, &size);
    if ((get_task_info(0, NULL, &task, NULL, NULL, NULL) != 2 || task != encountering_task_data) &&
        !(getenv("BP_TEST_TOOL_LIBOMP") != NULL && par == parallel_data && size == 1))
        ERROR("parallel_end: ompt_get_task_info(0) is not the encountering task (the current "
              "region %s, of %d threads)", par == parallel_data ? "the ended one" : "another",
              size);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int n, unsigned int index, int flags)
{
    if (endpoint == ompt_scope_begin) {
        atomic_fetch_add(&implicit_begin, 1);
        if (task_data->value != 0 && !(flags & ompt_task_initial))
            ERROR("implicit_task begin: data already set");
        task_data->value = get_unique_id();
        if (flags & ompt_task_initial)
            return;
        if (parallel_data == NULL || parallel_data->value == 0)
            ERROR("implicit_task begin: its region has no data");
        if (index >= n)
            ERROR("implicit_task begin: thread %u of %u", index, n);
        long m = atomic_load(&max_team);
        while ((long)n > m && !atomic_compare_exchange_weak(&max_team, &m, (long)n))
            ;
        ompt_data_t *pd = NULL, *td = NULL;
        int size = 0, num = -1;
        if (get_parallel_info(0, &pd, &size) != 2 || pd != parallel_data || size != (int)n)
            ERROR("implicit_task begin: ompt_get_parallel_info(0) disagrees");
        if (get_task_info(0, NULL, &td, NULL, NULL, &num) != 2 || td != task_data ||
            num != (int)index)
            ERROR("implicit_task begin: ompt_get_task_info(0) disagrees");
    } else if (endpoint == ompt_scope_end) {
        atomic_fetch_add(&implicit_end, 1);
        if (task_data->value == 0)
            ERROR("implicit_task end: data not set at its begin");
        for (int i = 0; i < nopen; i++)
            if (open_sync[i].task == task_data)
                ERROR("implicit_task end: a sync region of kind %d is open", open_sync[i].kind);
    } else {
        ERROR("implicit_task endpoint %d", (int)endpoint);
    }
}

/* ---- constructs ------------------------------------------------------- */

/* Worksharing, masked, flush, cancel (OMPT-WORK). */
enum { WORKS = 14 };
static _Atomic long work_begin[WORKS], work_end[WORKS], chunks, chunk_iterations,
    section_dispatches, masked_begin, masked_end, flushes, cancel_activated, cancel_detected,
    cancel_discarded;
static _Thread_local int open_work[OPEN], nwork, in_masked;

/* An explicit task's record, in its data: from a static pool, so that the
 * tool frees nothing (the sanitizer builds would see a leak). */
struct task_rec {
    int flags;
    _Atomic int begun, completed, detached;
};
enum { RECS = 4096 };
static struct task_rec recs[RECS];
static _Atomic long nrecs;

static ompt_data_t *current_task(void)
{
    ompt_data_t *td = NULL;
    return get_task_info(0, NULL, &td, NULL, NULL, NULL) == 2 ? td : NULL;
}

/* libomp ends a worker's closing barrier when the worker is started
 * again or let go, with the task data its thread has then: the reference
 * run (BP_TEST_TOOL_LIBOMP) pairs that end by its kind alone. */
static int libomp_worker_end(ompt_sync_region_t kind)
{
    return kind == ompt_sync_region_barrier_implicit_parallel &&
           getenv("BP_TEST_TOOL_LIBOMP") != NULL;
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel_data, ompt_data_t *task_data,
                           const void *codeptr_ra)
{
    (void)codeptr_ra;
    if ((int)kind < 1 || (int)kind >= KINDS) {
        ERROR("sync_region of kind %d", (int)kind);
        return;
    }
    if (task_data == NULL || (task_data != current_task() && !(getenv("BP_TEST_TOOL_LIBOMP"))))
        ERROR("sync_region %d: not the current task's (ompt_get_task_info(0))", (int)kind);
    if (endpoint == ompt_scope_begin) {
        atomic_fetch_add(&sync_begin[kind], 1);
        ompt_frame_t *frame = NULL;
        int tflags = 0;
        /* the program's code called into the runtime for these: the task
         * has an enter frame (a region's closing barrier and the runtime's
         * own barriers come from the runtime itself) */
        int entered = kind == ompt_sync_region_barrier_explicit ||
                      kind == ompt_sync_region_barrier_implicit_workshare ||
                      kind == ompt_sync_region_taskwait || kind == ompt_sync_region_taskgroup;
        if (get_task_info(0, &tflags, NULL, &frame, NULL, NULL) == 2 &&
            !(tflags & ompt_task_initial)) {
            check_frames("sync_region begin", frame, entered);
            int size = 0;
            get_parallel_info(0, NULL, &size);
            /* the code of a task in a team of one (serialized) and of an
             * undeferred task may be called by the program itself */
            if (frame != NULL && frame->exit_frame.ptr == NULL &&
                !(tflags & ompt_task_undeferred) && size > 1)
            {
                int num = -1;
                get_task_info(0, NULL, NULL, NULL, NULL, &num);
                ERROR("sync_region %d begin: the task (flags %#x, thread %d of %d) has no exit "
                      "frame", (int)kind, tflags, num, size);
            }
        }
        ompt_data_t *pd = NULL;
        if (parallel_data == NULL || get_parallel_info(0, &pd, NULL) != 2 || pd != parallel_data)
            ERROR("sync_region %d begin: not the current region", (int)kind);
        if (nopen == OPEN) {
            ERROR("sync regions nested too deep");
            return;
        }
        open_sync[nopen].kind = kind;
        open_sync[nopen].task = task_data;
        open_sync[nopen++].waiting = 0;
    } else if (endpoint == ompt_scope_end) {
        atomic_fetch_add(&sync_end[kind], 1);
        if (parallel_data == NULL && kind != ompt_sync_region_barrier_implicit_parallel)
            ERROR("sync_region %d end: no region", (int)kind);
        if (nopen == 0 || open_sync[nopen - 1].kind != (int)kind ||
            (open_sync[nopen - 1].task != task_data && !libomp_worker_end(kind)) ||
            open_sync[nopen - 1].waiting) {
            ERROR("sync_region %d end: not the innermost open one", (int)kind);
            return;
        }
        nopen--;
    } else {
        ERROR("sync_region endpoint %d", (int)endpoint);
    }
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr_ra)
{
    (void)parallel_data, (void)codeptr_ra;
    if ((int)kind < 1 || (int)kind >= KINDS)
        return;
    int begin = endpoint == ompt_scope_begin;
    atomic_fetch_add(begin ? &wait_begin[kind] : &wait_end[kind], 1);
    if (nopen == 0 || open_sync[nopen - 1].kind != (int)kind ||
        (open_sync[nopen - 1].task != task_data && !(!begin && libomp_worker_end(kind))) ||
        open_sync[nopen - 1].waiting != !begin) {
        ERROR("sync_region_wait %d %s: not in its sync region", (int)kind,
              begin ? "begin" : "end");
        return;
    }
    open_sync[nopen - 1].waiting = begin;
}

static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                         ompt_data_t *parallel_data, ompt_data_t *task_data,
                         const void *codeptr_ra)
{
    (void)parallel_data, (void)task_data, (void)codeptr_ra;
    if (kind != ompt_sync_region_reduction)
        ERROR("reduction of kind %d", (int)kind);
    int begin = endpoint == ompt_scope_begin;
    if (in_reduction == begin)
        ERROR("reduction %s twice", begin ? "begin" : "end");
    in_reduction = begin;
    atomic_fetch_add(begin ? &reduction_begin : &reduction_end, 1);
}

static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame,
                           ompt_data_t *new_task_data, int flags, int has_dependences,
                           const void *codeptr_ra)
{
    (void)encountering_task_frame, (void)codeptr_ra;
    if (deps_due != NULL)
        ERROR("task_create: the last task's dependences were not told");
    atomic_fetch_add(&created, 1);
    if (!(flags & (ompt_task_explicit | ompt_task_taskwait)))
        ERROR("task_create: flags %#x", flags);
    if (flags & ompt_task_undeferred)
        atomic_fetch_add(&undeferred, 1);
    if (flags & ompt_task_taskwait)
        atomic_fetch_add(&taskwait_tasks, 1);
    if (encountering_task_data == NULL || encountering_task_data != current_task())
        ERROR("task_create: the encountering task is not the current one (flags %#x, enc %p cur %p)", flags, (void *)encountering_task_data, (void *)current_task());
    if (new_task_data == NULL || new_task_data->ptr != NULL) {
        ERROR("task_create: its data is not fresh");
        return;
    }
    long i = atomic_fetch_add(&nrecs, 1);
    if (i >= RECS) {
        ERROR("task_create: more than %d tasks", RECS);
        return;
    }
    struct task_rec *r = &recs[i];
    r->flags = flags;
    new_task_data->ptr = r;
    if (has_dependences)
        deps_due = new_task_data;
}

static _Atomic long pairs, bad_pairs;

static void on_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
    atomic_fetch_add(&pairs, 1);
    if (src == NULL || sink == NULL || src == sink || src->ptr == NULL || sink->ptr == NULL) {
        atomic_fetch_add(&bad_pairs, 1);
        ERROR("task_dependence: not two tasks created");
    }
}

static void on_dependences(ompt_data_t *task_data, const ompt_dependence_t *d, int ndeps)
{
    atomic_fetch_add(&dependences, 1);
    atomic_fetch_add(&deps, ndeps);
    if (task_data != deps_due || ndeps < 1)
        ERROR("dependences: not of the task just created with dependences (%d)", ndeps);
    deps_due = NULL;
    for (int i = 0; i < ndeps; i++)
        if (d[i].dependence_type < ompt_dependence_type_in ||
            (d[i].dependence_type > ompt_dependence_type_inoutset &&
             d[i].dependence_type != ompt_dependence_type_out_all_memory &&
             d[i].dependence_type != ompt_dependence_type_inout_all_memory))
            ERROR("dependences: type %d", (int)d[i].dependence_type);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    if (deps_due != NULL)
        ERROR("task_schedule: the last task's dependences were not told");
    struct task_rec *p = prior != NULL ? prior->ptr : NULL;
    switch (status) {
    case ompt_task_switch: {
        struct task_rec *n = next != NULL ? next->ptr : NULL;
        if (n == NULL || atomic_load(&n->completed)) {
            ERROR("task_schedule: switch to a task not created, or complete");
            return;
        }
        atomic_fetch_add(&n->begun, 1);
        if (nrunning == OPEN) {
            ERROR("tasks nested too deep");
            return;
        }
        running[nrunning++] = next;
        return;
    }
    case ompt_task_complete:
    case ompt_task_detach:
    case ompt_task_yield:
        if (nrunning == 0 || running[nrunning - 1] != prior || p == NULL) {
            ERROR("task_schedule %d: not the task this thread runs", (int)status);
            return;
        }
        nrunning--;
        if (status == ompt_task_detach)
            atomic_store(&p->detached, 1);
        if (status == ompt_task_complete && atomic_exchange(&p->completed, 1) == 0)
            atomic_fetch_add(&completed, 1);
        else if (status == ompt_task_complete)
            ERROR("task_schedule: a task completed twice");
        if (next == NULL)
            ERROR("task_schedule: no task to go back to");
        return;
    case ompt_taskwait_complete: /* a taskwait's task, never switched to */
        if (p == NULL || !(p->flags & ompt_task_taskwait) ||
            atomic_exchange(&p->completed, 1) != 0)
            ERROR("task_schedule: taskwait complete of a task not a taskwait's, or complete");
        else
            atomic_fetch_add(&completed, 1);
        return;
    case ompt_task_late_fulfill:
        if (p == NULL || !atomic_load(&p->detached) || atomic_exchange(&p->completed, 1) != 0)
            ERROR("task_schedule: late fulfill of a task not detached, or complete");
        else
            atomic_fetch_add(&completed, 1), atomic_fetch_add(&detached, 1);
        return;
    case ompt_task_early_fulfill:
        /* the task's code may end, and the task complete, on another thread
         * before this callback is heard: that is no error */
        if (p == NULL)
            ERROR("task_schedule: early fulfill of a task not created");
        else
            atomic_fetch_add(&detached, 1);
        return;
    default:
        ERROR("task_schedule: status %d", (int)status);
    }
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)hint, (void)codeptr_ra;
    if (impl < 1)
        ERROR("mutex_acquire: implementation %u", impl);
    /* a test lock that was not got is waited for no more */
    if (waiting_for != 0 && waiting_kind != ompt_mutex_test_lock &&
        waiting_kind != ompt_mutex_test_nest_lock)
        ERROR("mutex_acquire while waiting for another");
    waiting_for = wait_id;
    waiting_kind = kind;
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)codeptr_ra;
    if (waiting_for != wait_id || waiting_kind != (int)kind)
        ERROR("mutex_acquired (kind %d): not what the thread waited for", (int)kind);
    waiting_for = 0;
    held++;
    atomic_fetch_add(&acquired, 1);
    if ((int)kind >= 1 && (int)kind < MUTEXES)
        atomic_fetch_add(&acquired_kind[kind], 1);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)kind, (void)wait_id, (void)codeptr_ra;
    /* a lock may be released by another task's thread than its acquirer's
     * only for locks, which this program never does */
    if (held-- <= 0)
        ERROR("mutex_released: nothing held (kind %d)", (int)kind);
    atomic_fetch_add(&released, 1);
}

static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
                         const void *codeptr_ra)
{
    (void)codeptr_ra;
    if (endpoint == ompt_scope_begin) {
        if (waiting_for != wait_id)
            ERROR("nest_lock begin: not what the thread waited for");
        waiting_for = 0;
        atomic_fetch_add(&nest_again, 1);
    } else {
        atomic_fetch_add(&nest_release, 1);
    }
}

static void on_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                         ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)kind, (void)hint, (void)impl, (void)wait_id, (void)codeptr_ra;
    atomic_fetch_add(&lock_init, 1);
}

static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)kind, (void)wait_id, (void)codeptr_ra;
    atomic_fetch_add(&lock_destroy, 1);
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint,
                    ompt_data_t *parallel_data, ompt_data_t *task_data, uint64_t count,
                    const void *codeptr_ra)
{
    (void)count, (void)codeptr_ra;
    if ((int)kind < 1 || (int)kind >= WORKS) {
        ERROR("work of kind %d", (int)kind);
        return;
    }
    if (task_data == NULL || task_data != current_task() || parallel_data == NULL)
        ERROR("work %d: not the current task's, or no region", (int)kind);
    if (endpoint == ompt_scope_begin) {
        atomic_fetch_add(&work_begin[kind], 1);
        if (nwork < OPEN)
            open_work[nwork++] = kind;
    } else {
        atomic_fetch_add(&work_end[kind], 1);
        if (nwork == 0 || open_work[nwork - 1] != (int)kind)
            ERROR("work %d end: not the innermost open one", (int)kind);
        else
            nwork--;
    }
}

static void on_dispatch(ompt_data_t *parallel_data, ompt_data_t *task_data,
                        ompt_dispatch_t kind, ompt_data_t instance)
{
    (void)parallel_data;
    int open = nwork > 0 ? open_work[nwork - 1] : 0;
    if (task_data != current_task())
        ERROR("dispatch: not the current task's");
    if (kind == ompt_dispatch_section) {
        atomic_fetch_add(&section_dispatches, 1);
        if (open != ompt_work_sections)
            ERROR("dispatch of a section outside sections");
    } else if (kind == ompt_dispatch_ws_loop_chunk) {
        const ompt_dispatch_chunk_t *c = instance.ptr;
        atomic_fetch_add(&chunks, 1);
        if (c == NULL || c->iterations == 0)
            ERROR("dispatch: an empty chunk");
        else
            atomic_fetch_add(&chunk_iterations, (long)c->iterations);
        if (open < ompt_work_loop_static && open != ompt_work_loop)
            ERROR("dispatch of a loop chunk outside a loop (%d)", open);
    }
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                      ompt_data_t *task_data, const void *codeptr_ra)
{
    (void)parallel_data, (void)codeptr_ra;
    int begin = endpoint == ompt_scope_begin;
    if (task_data != current_task() || in_masked == begin)
        ERROR("masked %s: unpaired, or not the current task's", begin ? "begin" : "end");
    in_masked = begin;
    atomic_fetch_add(begin ? &masked_begin : &masked_end, 1);
}

static void on_flush(ompt_data_t *thread_data, const void *codeptr_ra)
{
    (void)codeptr_ra;
    if (thread_data == NULL || thread_data != get_thread_data())
        ERROR("flush: not the thread's data");
    atomic_fetch_add(&flushes, 1);
}

static void on_cancel(ompt_data_t *task_data, int flags, const void *codeptr_ra)
{
    (void)codeptr_ra;
    if (task_data == NULL)
        ERROR("cancel: no task");
    if (flags & ompt_cancel_activated)
        atomic_fetch_add(&cancel_activated, 1);
    if (flags & ompt_cancel_detected)
        atomic_fetch_add(&cancel_detected, 1);
    if (flags & ompt_cancel_discarded_task)
        atomic_fetch_add(&cancel_discarded, 1);
    if (!(flags & (ompt_cancel_parallel | ompt_cancel_sections | ompt_cancel_loop |
                   ompt_cancel_taskgroup | ompt_cancel_discarded_task)))
        ERROR("cancel: flags %#x name no construct", flags);
}

static int on_control_tool(uint64_t command, uint64_t modifier, void *arg,
                           const void *codeptr_ra)
{
    (void)modifier, (void)arg, (void)codeptr_ra;
    return 40 + (int)command;
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num,
                      ompt_data_t *tool_data)
{
    (void)initial_device_num, (void)tool_data;
    const char *decline = getenv("BP_TEST_TOOL_DECLINE");
    if (decline != NULL && strcmp(decline, "init") == 0) {
        printf("OMPT-RECORD initialize declines\n");
        return 0;
    }
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
    get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
    get_unique_id = (ompt_get_unique_id_t)lookup("ompt_get_unique_id");
    if (!set || !get_thread_data || !get_parallel_info || !get_task_info || !get_unique_id ||
        lookup("ompt_no_such_entry") != NULL) {
        printf("OMPT-ERROR lookup\n");
        return 0;
    }
    /* buddypool answers from inside initialize (its start-up is over);
     * libomp's answers there are not checked (BP_TEST_TOOL_LIBOMP) */
    ompt_get_num_procs_t num_procs = (ompt_get_num_procs_t)lookup("ompt_get_num_procs");
    ompt_get_num_places_t num_places = (ompt_get_num_places_t)lookup("ompt_get_num_places");
    if (!num_procs || !num_places) {
        printf("OMPT-ERROR lookup of ompt_get_num_procs or ompt_get_num_places\n");
        return 0;
    }
    int procs = num_procs(), places = num_places();
    if (getenv("BP_TEST_TOOL_LIBOMP") == NULL && (procs < 1 || places < 1)) {
        printf("OMPT-ERROR in initialize: %d procs, %d places\n", procs, places);
        return 0;
    }
    set_results[0] = set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
    set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
    set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
    set_results[1] = set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
    set(ompt_callback_control_tool, (ompt_callback_t)on_control_tool);
    set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
    set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
    set(ompt_callback_reduction, (ompt_callback_t)on_reduction);
    set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
    set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
    set(ompt_callback_dependences, (ompt_callback_t)on_dependences);
    set(ompt_callback_task_dependence, (ompt_callback_t)on_task_dependence);
    set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
    set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
    set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released);
    set(ompt_callback_nest_lock, (ompt_callback_t)on_nest_lock);
    set(ompt_callback_lock_init, (ompt_callback_t)on_lock_init);
    set(ompt_callback_lock_destroy, (ompt_callback_t)on_lock_destroy);
    set(ompt_callback_work, (ompt_callback_t)on_work);
    set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch);
    set(ompt_callback_flush, (ompt_callback_t)on_flush);
    set(ompt_callback_cancel, (ompt_callback_t)on_cancel);
    set_results[2] = set(ompt_callback_target, (ompt_callback_t)on_control_tool);
    set_results[3] = set(ompt_callback_masked, (ompt_callback_t)on_masked);
    set_results[4] = set((ompt_callbacks_t)99, (ompt_callback_t)on_control_tool);
    return 1;
}

static void finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    printf("OMPT-RECORD thread_begin=%ld thread_end=%ld initial=%ld parallel_begin=%ld "
           "parallel_end=%ld implicit_begin=%ld implicit_end=%ld max_team=%ld errors=%ld\n",
           atomic_load(&thread_begin), atomic_load(&thread_end), atomic_load(&initial),
           atomic_load(&parallel_begin), atomic_load(&parallel_end),
           atomic_load(&implicit_begin), atomic_load(&implicit_end), atomic_load(&max_team),
           atomic_load(&errors));
    int unpaired = 0;
    for (int k = 1; k < KINDS; k++)
        if (atomic_load(&sync_begin[k]) != atomic_load(&sync_end[k]) ||
            atomic_load(&wait_begin[k]) != atomic_load(&sync_begin[k]) ||
            atomic_load(&wait_end[k]) != atomic_load(&sync_begin[k])) {
            unpaired++;
            printf("OMPT-ERROR sync kind %d: %ld begins, %ld ends, %ld and %ld waits\n", k,
                   atomic_load(&sync_begin[k]), atomic_load(&sync_end[k]),
                   atomic_load(&wait_begin[k]), atomic_load(&wait_end[k]));
        }
    printf("OMPT-SYNC explicit=%ld implicit_ws=%ld implementation=%ld implicit_parallel=%ld "
           "taskwait=%ld taskgroup=%ld unpaired=%d reduction=%ld reduction_end=%ld\n",
           atomic_load(&sync_begin[ompt_sync_region_barrier_explicit]),
           atomic_load(&sync_begin[ompt_sync_region_barrier_implicit_workshare]),
           atomic_load(&sync_begin[ompt_sync_region_barrier_implementation]),
           atomic_load(&sync_begin[ompt_sync_region_barrier_implicit_parallel]),
           atomic_load(&sync_begin[ompt_sync_region_taskwait]),
           atomic_load(&sync_begin[ompt_sync_region_taskgroup]), unpaired,
           atomic_load(&reduction_begin), atomic_load(&reduction_end));
    printf("OMPT-TASKS created=%ld completed=%ld undeferred=%ld taskwait_tasks=%ld "
           "dependences=%ld deps=%ld detached=%ld pairs=%ld bad_pairs=%ld\n",
           atomic_load(&created), atomic_load(&completed), atomic_load(&undeferred),
           atomic_load(&taskwait_tasks), atomic_load(&dependences), atomic_load(&deps),
           atomic_load(&detached), atomic_load(&pairs), atomic_load(&bad_pairs));
    printf("OMPT-MUTEX acquired=%ld released=%ld critical=%ld lock=%ld test_lock=%ld nest=%ld "
           "nest_again=%ld nest_release=%ld atomic=%ld ordered=%ld init=%ld destroy=%ld\n",
           atomic_load(&acquired), atomic_load(&released),
           atomic_load(&acquired_kind[ompt_mutex_critical]),
           atomic_load(&acquired_kind[ompt_mutex_lock]),
           atomic_load(&acquired_kind[ompt_mutex_test_lock]),
           atomic_load(&acquired_kind[ompt_mutex_nest_lock]), atomic_load(&nest_again),
           atomic_load(&nest_release), atomic_load(&acquired_kind[ompt_mutex_atomic]),
           atomic_load(&acquired_kind[ompt_mutex_ordered]), atomic_load(&lock_init),
           atomic_load(&lock_destroy));
    int work_unpaired = 0;
    for (int k = 1; k < WORKS; k++)
        if (atomic_load(&work_begin[k]) != atomic_load(&work_end[k])) {
            work_unpaired++;
            printf("OMPT-ERROR work kind %d: %ld begins, %ld ends\n", k,
                   atomic_load(&work_begin[k]), atomic_load(&work_end[k]));
        }
    printf("OMPT-WORK loop_static=%ld loop_dynamic=%ld loop_guided=%ld loop_other=%ld "
           "sections=%ld single=%ld single_other=%ld distribute=%ld taskloop=%ld chunks=%ld "
           "chunk_iterations=%ld section_dispatches=%ld masked=%ld masked_end=%ld flush=%ld "
           "cancel_activated=%ld cancel_detected=%ld discarded=%ld unpaired=%d\n",
           atomic_load(&work_begin[ompt_work_loop_static]),
           atomic_load(&work_begin[ompt_work_loop_dynamic]),
           atomic_load(&work_begin[ompt_work_loop_guided]),
           atomic_load(&work_begin[ompt_work_loop_other]),
           atomic_load(&work_begin[ompt_work_sections]),
           atomic_load(&work_begin[ompt_work_single_executor]),
           atomic_load(&work_begin[ompt_work_single_other]),
           atomic_load(&work_begin[ompt_work_distribute]),
           atomic_load(&work_begin[ompt_work_taskloop]), atomic_load(&chunks),
           atomic_load(&chunk_iterations), atomic_load(&section_dispatches),
           atomic_load(&masked_begin), atomic_load(&masked_end), atomic_load(&flushes),
           atomic_load(&cancel_activated), atomic_load(&cancel_detected),
           atomic_load(&cancel_discarded), work_unpaired);
    printf("OMPT-SET thread_begin=%d implicit_task=%d target=%d masked=%d bogus=%d\n",
           set_results[0], set_results[1], set_results[2], set_results[3], set_results[4]);
    fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    const char *decline = getenv("BP_TEST_TOOL_DECLINE");
    if (decline != NULL && strcmp(decline, "start") == 0)
        return NULL;
    printf("OMPT-RECORD started by %s (%u)\n", runtime_version, omp_version);
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}
