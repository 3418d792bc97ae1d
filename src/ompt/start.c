/* start.c: the OpenMP tool interface's start and end, and the entry points
 * a tool looks up (OpenMP 5.2, 19.2 and 19.6).
 *
 * Finding the tool. When the pool starts (before any OpenMP event), unless
 * OMP_TOOL is "disabled": first an ompt_start_tool already in the process
 * (the program's own, or a library's that is loaded: dlsym of the default
 * scope), then each library of OMP_TOOL_LIBRARIES in its order (a
 * colon-separated list of names or paths, each dlopen'ed and searched for
 * ompt_start_tool). The first ompt_start_tool that returns a result is the
 * tool; one that returns NULL declines, and the search goes on. The tool's
 * initialize is called at once, with the lookup below; if it returns 0 the
 * tool is not used (nor is its finalize called). OMP_TOOL_VERBOSE_INIT
 * ("stdout", "stderr", "disabled" or a file name) has every step of the
 * search written there.
 *
 * The end. The tool's finalize is called once: at the process's exit (the
 * pool's destructor, after the workers' thread_end), or when the tool calls
 * ompt_finalize_tool; the initial thread's implicit task and thread end
 * first. After it no callback is called.
 *
 * Entry points. ompt_set_callback answers, per event, what buddypool sends:
 * ompt_set_always for the events of events.c, sync.c and tasks.c,
 * ompt_set_never for the rest
 * (device events, and the events of constructs not yet reported), and
 * ompt_set_error for a number that is no event. The place and processor
 * queries answer as the omp_* routines do (they are those routines); the
 * task and region queries read the calling thread's records (ompt.h). */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buddypool.h"

#include "ompt.h"
#include "../listeners.h"
#include "../abi/abi.h"
#include "../core/log.h"

/* The tool is started and not finalized: set at the pool's start, before
 * any event; cleared once by finalization (ended). */
static int active;
static _Atomic int ended;
static ompt_start_tool_result_t *tool;

/* The value of _OPENMP for the specification the interface follows (5.2),
 * and the runtime's name as a tool is told it (made at the start). */
enum { BP_OMPT_VERSION = 202111 };
static char runtime_version[64];

/* ---- OMP_TOOL_VERBOSE_INIT ---------------------------------------------- */

static FILE *verbose;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    if (verbose == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(verbose, fmt, ap);
    va_end(ap);
    fputc('\n', verbose);
    fflush(verbose);
}

static void verbose_open(void)
{
    const char *v = getenv("OMP_TOOL_VERBOSE_INIT");
    if (v == NULL || *v == '\0' || strcasecmp(v, "disabled") == 0)
        return;
    if (strcasecmp(v, "stdout") == 0) {
        verbose = stdout;
    } else if (strcasecmp(v, "stderr") == 0) {
        verbose = stderr;
    } else if ((verbose = fopen(v, "w")) == NULL) {
        bp_warn("OMP_TOOL_VERBOSE_INIT=%s: cannot open the file (%s); the tool's start is not "
                "logged", v, strerror(errno));
    }
}

static void verbose_close(void)
{
    if (verbose != NULL && verbose != stdout && verbose != stderr)
        fclose(verbose);
    verbose = NULL;
}

/* ---- finding the tool --------------------------------------------------- */

/* A tool's, if the program or a library defines one: never buddypool's. */
extern ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                 const char *runtime_version)
    __attribute__((weak));

static ompt_start_tool_result_t *try_start(ompt_start_tool_t start, const char *where)
{
    ompt_start_tool_result_t *r = start(BP_OMPT_VERSION, runtime_version);
    if (r == NULL)
        say("  ompt_start_tool in %s returned NULL: the tool declines", where);
    else if (r->initialize == NULL)
        say("  ompt_start_tool in %s gave no initialize: it is not used", where);
    else
        say("  ompt_start_tool in %s returned a tool", where);
    return r != NULL && r->initialize != NULL ? r : NULL;
}

static ompt_start_tool_result_t *from_libraries(const char *list)
{
    say("OMP_TOOL_LIBRARIES=%s", list);
    char *copy = strdup(list);
    if (copy == NULL)
        return NULL;
    ompt_start_tool_result_t *r = NULL;
    for (char *save = NULL, *name = strtok_r(copy, ":", &save); name != NULL && r == NULL;
         name = strtok_r(NULL, ":", &save)) {
        void *h = dlopen(name, RTLD_LAZY | RTLD_GLOBAL);
        if (h == NULL) {
            say("  %s: cannot be opened (%s)", name, dlerror());
            continue;
        }
        ompt_start_tool_t start = (ompt_start_tool_t)dlsym(h, "ompt_start_tool");
        if (start == NULL) {
            say("  %s: opened, no ompt_start_tool in it", name);
            dlclose(h);
            continue;
        }
        if ((r = try_start(start, name)) == NULL)
            dlclose(h);
    }
    free(copy);
    return r;
}

static ompt_start_tool_result_t *find_tool(void)
{
    const char *v = getenv("OMP_TOOL");
    if (v != NULL && strcasecmp(v, "disabled") == 0) {
        say("OMP_TOOL=disabled: no tool is searched for");
        return NULL;
    }
    if (v != NULL && *v != '\0' && strcasecmp(v, "enabled") != 0)
        bp_warn("OMP_TOOL=%s: expected enabled or disabled; a tool is searched for (enabled)", v);
    say("searching the process for ompt_start_tool");
    /* the program's own (linked with the static library, or exported to
     * the shared one, which refers to it), else any loaded library's */
    ompt_start_tool_t start = ompt_start_tool;
    if (start == NULL)
        start = (ompt_start_tool_t)dlsym(RTLD_DEFAULT, "ompt_start_tool");
    ompt_start_tool_result_t *r = NULL;
    if (start == NULL)
        say("  none in the program or its loaded libraries");
    else
        r = try_start(start, "the process");
    const char *libs = getenv("OMP_TOOL_LIBRARIES");
    if (r == NULL && libs != NULL && *libs != '\0')
        r = from_libraries(libs);
    else if (r == NULL)
        say("OMP_TOOL_LIBRARIES is not set");
    return r;
}

static ompt_interface_fn_t lookup(const char *name);


int bp_ompt_start(int max_threads)
{
    (void)max_threads;
    snprintf(runtime_version, sizeof runtime_version, "buddypool %s", buddypool_version());
    verbose_open();
    say("buddypool: looking for an OpenMP tool (OMPT)");
    tool = find_tool();
    if (tool != NULL) {
        /* the host is the only device: omp_get_initial_device() */
        if (tool->initialize(lookup, omp_get_initial_device(), &tool->tool_data) != 0) {
            active = 1;
            say("the tool's initialize returned 1: the tool is started");
        } else {
            say("the tool's initialize returned 0: the tool is not used");
            tool = NULL;
        }
    } else {
        say("no tool is started");
    }
    verbose_close();
    if (active)
        bp_ompt_thread_known(&bp_ompt_tls); /* the initial thread and task */
    return active;
}

void bp_ompt_finish(void)
{
    /* relaxed: the exchange alone picks the one thread that finalizes */
    if (!active || atomic_exchange_explicit(&ended, 1, memory_order_relaxed))
        return;
    bp_ompt_initial_end();
    tool->finalize(&tool->tool_data);
    for (int e = 0; e < BP_OMPT_EVENTS; e++) /* release: see bp_ompt_cb */
        __atomic_store_n(&bp_ompt_cb[e], NULL, __ATOMIC_RELEASE);
}

int bp_ompt_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *ra)
{
    /* relaxed: a hint; a tool finalized meanwhile has no callbacks left */
    if (!active || atomic_load_explicit(&ended, memory_order_relaxed))
        return -2; /* omp_control_tool_notool */
    ompt_callback_control_tool_t cb =
        (ompt_callback_control_tool_t)bp_ompt_callback(ompt_callback_control_tool);
    return cb != NULL ? cb(command, modifier, arg, ra) : -1; /* _nocallback */
}

/* ---- the entry points --------------------------------------------------- */

/* What ompt_set_callback answers for each event. */
static ompt_set_result_t support(int event)
{
    switch (event) {
    case ompt_callback_thread_begin:
    case ompt_callback_thread_end:
    case ompt_callback_parallel_begin:
    case ompt_callback_parallel_end:
    case ompt_callback_implicit_task:
    case ompt_callback_control_tool:
    case ompt_callback_sync_region:
    case ompt_callback_sync_region_wait:
    case ompt_callback_reduction:
    case ompt_callback_task_create:
    case ompt_callback_task_schedule:
    case ompt_callback_dependences:
    case ompt_callback_task_dependence:
    case ompt_callback_mutex_acquire:
    case ompt_callback_mutex_acquired:
    case ompt_callback_mutex_released:
    case ompt_callback_lock_init:
    case ompt_callback_lock_destroy:
    case ompt_callback_nest_lock:
    case ompt_callback_work:
    case ompt_callback_dispatch:
    case ompt_callback_masked:
    case ompt_callback_cancel:
        return ompt_set_always;
    case ompt_callback_flush: /* gcc's flush is a fence in the compiled code */
        return ompt_set_sometimes;
    default:
        return event > 0 && event < BP_OMPT_EVENTS ? ompt_set_never : ompt_set_error;
    }
}

static int set_callback(ompt_callbacks_t event, ompt_callback_t callback)
{
    ompt_set_result_t r = support((int)event);
    if (r > ompt_set_never) /* release: see bp_ompt_cb */
        __atomic_store_n(&bp_ompt_cb[event], callback, __ATOMIC_RELEASE);
    return r;
}

static int get_callback(ompt_callbacks_t event, ompt_callback_t *callback)
{
    if ((int)event <= 0 || (int)event >= BP_OMPT_EVENTS || callback == NULL)
        return 0;
    ompt_callback_t cb = bp_ompt_callback((int)event);
    if (cb == NULL)
        return 0;
    *callback = cb;
    return 1;
}

static ompt_data_t *get_thread_data(void)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    return th->begun ? &th->data : NULL;
}

static int get_state(ompt_wait_id_t *wait_id)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    if (!th->begun)
        return ompt_state_undefined;
    if (wait_id != NULL)
        *wait_id = th->wait_id;
    return th->state;
}

/* The region ancestor_level levels out: the explicit tasks on the
 * thread's stack belong to the region of the implicit task under them. */
static int get_parallel_info(int ancestor_level, ompt_data_t **parallel_data, int *team_size)
{
    struct bp_ompt_thread *th = &bp_ompt_tls;
    struct bp_ompt_task *t = NULL;
    for (int level = 0, regions = -1; regions < ancestor_level; level++) {
        if ((t = bp_ompt_task_at(th, level)) == NULL)
            return 0;
        if (!(t->flags & ompt_task_explicit))
            regions++;
    }
    if (ancestor_level < 0)
        return 0;
    if (parallel_data != NULL)
        *parallel_data = t->parallel;
    if (team_size != NULL)
        *team_size = (int)t->team_size;
    return 2;
}

static int get_task_info(int ancestor_level, int *flags, ompt_data_t **task_data,
                         ompt_frame_t **task_frame, ompt_data_t **parallel_data, int *thread_num)
{
    struct bp_ompt_task *t = bp_ompt_task_at(&bp_ompt_tls, ancestor_level);
    if (t == NULL)
        return 0;
    if (flags != NULL)
        *flags = t->flags;
    if (task_data != NULL)
        *task_data = t->dp;
    if (task_frame != NULL)
        *task_frame = &t->frame;
    if (parallel_data != NULL)
        *parallel_data = t->parallel;
    if (thread_num != NULL)
        *thread_num = (int)t->thread_num;
    return 2;
}

/* No task's private memory is kept apart from its stack and heap. */
static int get_task_memory(void **addr, size_t *size, int block)
{
    (void)block;
    if (addr != NULL)
        *addr = NULL;
    if (size != NULL)
        *size = 0;
    return 0;
}

static uint64_t get_unique_id(void)
{
    static _Atomic uint64_t next = 1;
    /* relaxed: only uniqueness is asked */
    return atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
}

static int get_num_procs(void) { return omp_get_num_procs(); }

static int get_num_places(void) { return omp_get_num_places(); }

static int get_place_proc_ids(int place_num, int ids_size, int *ids)
{
    if (place_num < 0 || place_num >= omp_get_num_places())
        return 0;
    int n = omp_get_place_num_procs(place_num);
    if (ids != NULL && n <= ids_size)
        omp_get_place_proc_ids(place_num, ids);
    return n;
}

static int get_place_num(void) { return omp_get_place_num(); }

static int get_partition_place_nums(int place_nums_size, int *place_nums)
{
    int n = omp_get_partition_num_places();
    if (place_nums != NULL && n <= place_nums_size)
        omp_get_partition_place_nums(place_nums);
    return n;
}

static int get_proc_id(void) { return sched_getcpu(); }

static int get_num_devices(void) { return 0; }

static int get_target_info(uint64_t *device_num, ompt_id_t *target_id, ompt_id_t *host_op_id)
{
    (void)device_num, (void)target_id, (void)host_op_id;
    return 0; /* no target region runs on the host's behalf */
}

static const struct {
    ompt_state_t state;
    const char *name;
} states[] = {
    {ompt_state_work_serial, "ompt_state_work_serial"},
    {ompt_state_work_parallel, "ompt_state_work_parallel"},
    {ompt_state_work_reduction, "ompt_state_work_reduction"},
    {ompt_state_wait_barrier, "ompt_state_wait_barrier"},
    {ompt_state_wait_barrier_implicit_parallel, "ompt_state_wait_barrier_implicit_parallel"},
    {ompt_state_wait_barrier_implicit_workshare, "ompt_state_wait_barrier_implicit_workshare"},
    {ompt_state_wait_barrier_implicit, "ompt_state_wait_barrier_implicit"},
    {ompt_state_wait_barrier_explicit, "ompt_state_wait_barrier_explicit"},
    {ompt_state_wait_barrier_implementation, "ompt_state_wait_barrier_implementation"},
    {ompt_state_wait_barrier_teams, "ompt_state_wait_barrier_teams"},
    {ompt_state_wait_taskwait, "ompt_state_wait_taskwait"},
    {ompt_state_wait_taskgroup, "ompt_state_wait_taskgroup"},
    {ompt_state_wait_mutex, "ompt_state_wait_mutex"},
    {ompt_state_wait_lock, "ompt_state_wait_lock"},
    {ompt_state_wait_critical, "ompt_state_wait_critical"},
    {ompt_state_wait_atomic, "ompt_state_wait_atomic"},
    {ompt_state_wait_ordered, "ompt_state_wait_ordered"},
    {ompt_state_idle, "ompt_state_idle"},
    {ompt_state_overhead, "ompt_state_overhead"},
    {ompt_state_undefined, "ompt_state_undefined"},
};

/* The spec starts the enumeration at ompt_state_undefined. */
static int enumerate_states(int current, int *next, const char **next_name)
{
    int n = (int)(sizeof states / sizeof states[0]), i = 0;
    if (current != ompt_state_undefined) {
        while (i < n && (int)states[i].state != current)
            i++;
        if (i >= n - 2) /* unknown, or the last before undefined */
            return 0;
        i++;
    }
    *next = states[i].state;
    *next_name = states[i].name;
    return 1;
}

/* One mutex implementation: the futex lock of wait.c (spin, then sleep).
 * The enumeration starts at ompt_mutex_impl_none (0). */
static int enumerate_mutex_impls(int current, int *next, const char **next_name)
{
    if (current != 0)
        return 0;
    *next = 1;
    *next_name = "buddypool_futex_lock";
    return 1;
}

static void finalize_tool(void) { bp_ompt_finish(); }

static const struct {
    const char *name;
    ompt_interface_fn_t fn;
} entry_points[] = {
#define ENTRY(n) {"ompt_" #n, (ompt_interface_fn_t)n}
    ENTRY(set_callback),        ENTRY(get_callback),
    ENTRY(get_thread_data),     ENTRY(get_state),
    ENTRY(get_parallel_info),   ENTRY(get_task_info),
    ENTRY(get_task_memory),     ENTRY(get_unique_id),
    ENTRY(get_num_procs),       ENTRY(get_num_places),
    ENTRY(get_place_proc_ids),  ENTRY(get_place_num),
    ENTRY(get_partition_place_nums), ENTRY(get_proc_id),
    ENTRY(get_num_devices),     ENTRY(get_target_info),
    ENTRY(enumerate_states),    ENTRY(enumerate_mutex_impls),
    ENTRY(finalize_tool),
#undef ENTRY
};

static ompt_interface_fn_t lookup(const char *name)
{
    for (size_t i = 0; name != NULL && i < sizeof entry_points / sizeof entry_points[0]; i++)
        if (strcmp(name, entry_points[i].name) == 0)
            return entry_points[i].fn;
    return NULL;
}
