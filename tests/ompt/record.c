/* record.c: an OMPT tool for the tests, built against LLVM's omp-tools.h
 * (so that buddypool's side is checked against the header tools use). It
 * registers the callbacks of threads, parallel regions and implicit tasks,
 * gives every thread, region and task a number in the data the runtime
 * hands it, and checks at each end that the data it gets back is what it
 * set at the begin, that the queries agree with the callbacks
 * (ompt_get_thread_data, ompt_get_parallel_info, ompt_get_task_info), and
 * that begins and ends pair. At finalize it prints one line:
 *   OMPT-RECORD thread_begin=N thread_end=N initial=N parallel_begin=N
 *     parallel_end=N implicit_begin=N implicit_end=N max_team=N errors=N
 * and the answers of ompt_set_callback it got:
 *   OMPT-SET thread_begin=R implicit_task=R target=R task_create=R bogus=R
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

static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested, int flags,
                              const void *codeptr_ra)
{
    (void)encountering_task_frame;
    atomic_fetch_add(&parallel_begin, 1);
    if (encountering_task_data == NULL || encountering_task_data->value == 0)
        ERROR("parallel_begin: the encountering task has no data");
    if (requested < 1)
        ERROR("parallel_begin: requested %u", requested);
    if (!(flags & ompt_parallel_team))
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
    } else {
        ERROR("implicit_task endpoint %d", (int)endpoint);
    }
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
    set_results[2] = set(ompt_callback_target, (ompt_callback_t)on_control_tool);
    set_results[3] = set(ompt_callback_task_create, (ompt_callback_t)on_control_tool);
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
    printf("OMPT-SET thread_begin=%d implicit_task=%d target=%d task_create=%d bogus=%d\n",
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
