/* tools.h: the OpenMP tool interface's types, as the OpenMP 5.2
 * specification (chapter 19 and its omp-tools.h appendix) defines them:
 * the names and values a tool compiled against any omp-tools.h expects.
 * Only what buddypool's side of the interface uses; a tool includes its
 * own omp-tools.h. */
#ifndef BUDDYPOOL_OMPT_TOOLS_H
#define BUDDYPOOL_OMPT_TOOLS_H

#include <stdint.h>

typedef union ompt_data_t {
    uint64_t value;
    void *ptr;
} ompt_data_t;

typedef struct ompt_frame_t {
    ompt_data_t exit_frame;
    ompt_data_t enter_frame;
    int exit_frame_flags;
    int enter_frame_flags;
} ompt_frame_t;

typedef uint64_t ompt_id_t;
typedef uint64_t ompt_wait_id_t;
typedef void *ompt_device_t;

typedef enum ompt_callbacks_t {
    ompt_callback_thread_begin = 1,
    ompt_callback_thread_end = 2,
    ompt_callback_parallel_begin = 3,
    ompt_callback_parallel_end = 4,
    ompt_callback_task_create = 5,
    ompt_callback_task_schedule = 6,
    ompt_callback_implicit_task = 7,
    ompt_callback_target = 8,
    ompt_callback_target_data_op = 9,
    ompt_callback_target_submit = 10,
    ompt_callback_control_tool = 11,
    ompt_callback_device_initialize = 12,
    ompt_callback_device_finalize = 13,
    ompt_callback_device_load = 14,
    ompt_callback_device_unload = 15,
    ompt_callback_sync_region_wait = 16,
    ompt_callback_mutex_released = 17,
    ompt_callback_dependences = 18,
    ompt_callback_task_dependence = 19,
    ompt_callback_work = 20,
    ompt_callback_masked = 21,
    ompt_callback_target_map = 22,
    ompt_callback_sync_region = 23,
    ompt_callback_lock_init = 24,
    ompt_callback_lock_destroy = 25,
    ompt_callback_mutex_acquire = 26,
    ompt_callback_mutex_acquired = 27,
    ompt_callback_nest_lock = 28,
    ompt_callback_flush = 29,
    ompt_callback_cancel = 30,
    ompt_callback_reduction = 31,
    ompt_callback_dispatch = 32,
    ompt_callback_target_emi = 33,
    ompt_callback_target_data_op_emi = 34,
    ompt_callback_target_submit_emi = 35,
    ompt_callback_target_map_emi = 36,
    ompt_callback_error = 37
} ompt_callbacks_t;
enum { BP_OMPT_EVENTS = 38 }; /* event numbers are below this */

typedef enum ompt_set_result_t {
    ompt_set_error = 0,
    ompt_set_never = 1,
    ompt_set_impossible = 2,
    ompt_set_sometimes = 3,
    ompt_set_sometimes_paired = 4,
    ompt_set_always = 5
} ompt_set_result_t;

typedef enum ompt_thread_t {
    ompt_thread_initial = 1,
    ompt_thread_worker = 2,
    ompt_thread_other = 3,
    ompt_thread_unknown = 4
} ompt_thread_t;

typedef enum ompt_scope_endpoint_t {
    ompt_scope_begin = 1,
    ompt_scope_end = 2,
    ompt_scope_beginend = 3
} ompt_scope_endpoint_t;

typedef enum ompt_task_flag_t {
    ompt_task_initial = 0x00000001,
    ompt_task_implicit = 0x00000002,
    ompt_task_explicit = 0x00000004,
    ompt_task_target = 0x00000008,
    ompt_task_taskwait = 0x00000010,
    ompt_task_undeferred = 0x08000000,
    ompt_task_untied = 0x10000000,
    ompt_task_final = 0x20000000,
    ompt_task_mergeable = 0x40000000,
    ompt_task_merged = (int)0x80000000
} ompt_task_flag_t;

typedef enum ompt_parallel_flag_t {
    ompt_parallel_invoker_program = 0x00000001,
    ompt_parallel_invoker_runtime = 0x00000002,
    ompt_parallel_league = 0x40000000,
    ompt_parallel_team = (int)0x80000000
} ompt_parallel_flag_t;

typedef enum ompt_frame_flag_t {
    ompt_frame_runtime = 0x00,
    ompt_frame_application = 0x01,
    ompt_frame_cfa = 0x10,
    ompt_frame_framepointer = 0x20,
    ompt_frame_stackaddress = 0x30
} ompt_frame_flag_t;

typedef enum ompt_state_t {
    ompt_state_work_serial = 0x000,
    ompt_state_work_parallel = 0x001,
    ompt_state_work_reduction = 0x002,
    ompt_state_wait_barrier = 0x010,
    ompt_state_wait_barrier_implicit_parallel = 0x011,
    ompt_state_wait_barrier_implicit_workshare = 0x012,
    ompt_state_wait_barrier_implicit = 0x013,
    ompt_state_wait_barrier_explicit = 0x014,
    ompt_state_wait_barrier_implementation = 0x015,
    ompt_state_wait_barrier_teams = 0x016,
    ompt_state_wait_taskwait = 0x020,
    ompt_state_wait_taskgroup = 0x021,
    ompt_state_wait_mutex = 0x040,
    ompt_state_wait_lock = 0x041,
    ompt_state_wait_critical = 0x042,
    ompt_state_wait_atomic = 0x043,
    ompt_state_wait_ordered = 0x044,
    ompt_state_wait_target = 0x080,
    ompt_state_wait_target_map = 0x081,
    ompt_state_wait_target_update = 0x082,
    ompt_state_idle = 0x100,
    ompt_state_overhead = 0x101,
    ompt_state_undefined = 0x102
} ompt_state_t;

typedef enum ompt_sync_region_t {
    ompt_sync_region_barrier = 1,
    ompt_sync_region_barrier_implicit = 2,
    ompt_sync_region_barrier_explicit = 3,
    ompt_sync_region_barrier_implementation = 4,
    ompt_sync_region_taskwait = 5,
    ompt_sync_region_taskgroup = 6,
    ompt_sync_region_reduction = 7,
    ompt_sync_region_barrier_implicit_workshare = 8,
    ompt_sync_region_barrier_implicit_parallel = 9,
    ompt_sync_region_barrier_teams = 10
} ompt_sync_region_t;

typedef enum ompt_mutex_t {
    ompt_mutex_lock = 1,
    ompt_mutex_test_lock = 2,
    ompt_mutex_nest_lock = 3,
    ompt_mutex_test_nest_lock = 4,
    ompt_mutex_critical = 5,
    ompt_mutex_atomic = 6,
    ompt_mutex_ordered = 7
} ompt_mutex_t;

typedef enum ompt_task_status_t {
    ompt_task_complete = 1,
    ompt_task_yield = 2,
    ompt_task_cancel = 3,
    ompt_task_detach = 4,
    ompt_task_early_fulfill = 5,
    ompt_task_late_fulfill = 6,
    ompt_task_switch = 7,
    ompt_taskwait_complete = 8
} ompt_task_status_t;

typedef enum ompt_dependence_type_t {
    ompt_dependence_type_in = 1,
    ompt_dependence_type_out = 2,
    ompt_dependence_type_inout = 3,
    ompt_dependence_type_mutexinoutset = 4,
    ompt_dependence_type_source = 5,
    ompt_dependence_type_sink = 6,
    ompt_dependence_type_inoutset = 7,
    ompt_dependence_type_out_all_memory = 34,
    ompt_dependence_type_inout_all_memory = 35
} ompt_dependence_type_t;

typedef struct ompt_dependence_t {
    ompt_data_t variable;
    ompt_dependence_type_t dependence_type;
} ompt_dependence_t;

typedef enum ompt_work_t {
    ompt_work_loop = 1,
    ompt_work_sections = 2,
    ompt_work_single_executor = 3,
    ompt_work_single_other = 4,
    ompt_work_workshare = 5,
    ompt_work_distribute = 6,
    ompt_work_taskloop = 7,
    ompt_work_scope = 8,
    ompt_work_loop_static = 10,
    ompt_work_loop_dynamic = 11,
    ompt_work_loop_guided = 12,
    ompt_work_loop_other = 13
} ompt_work_t;

typedef enum ompt_dispatch_t {
    ompt_dispatch_iteration = 1,
    ompt_dispatch_section = 2,
    ompt_dispatch_ws_loop_chunk = 3,
    ompt_dispatch_taskloop_chunk = 4,
    ompt_dispatch_distribute_chunk = 5
} ompt_dispatch_t;

typedef struct ompt_dispatch_chunk_t {
    uint64_t start;
    uint64_t iterations;
} ompt_dispatch_chunk_t;

typedef enum ompt_cancel_flag_t {
    ompt_cancel_parallel = 0x01,
    ompt_cancel_sections = 0x02,
    ompt_cancel_loop = 0x04,
    ompt_cancel_taskgroup = 0x08,
    ompt_cancel_activated = 0x10,
    ompt_cancel_detected = 0x20,
    ompt_cancel_discarded_task = 0x40
} ompt_cancel_flag_t;

typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *interface_function_name);
typedef void (*ompt_callback_t)(void);

typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num,
                                 ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);

typedef struct ompt_start_tool_result_t {
    ompt_initialize_t initialize;
    ompt_finalize_t finalize;
    ompt_data_t tool_data;
} ompt_start_tool_result_t;

typedef ompt_start_tool_result_t *(*ompt_start_tool_t)(unsigned int omp_version,
                                                       const char *runtime_version);

/* the callbacks buddypool sends */
typedef void (*ompt_callback_thread_begin_t)(ompt_thread_t thread_type, ompt_data_t *thread_data);
typedef void (*ompt_callback_thread_end_t)(ompt_data_t *thread_data);
typedef void (*ompt_callback_parallel_begin_t)(ompt_data_t *encountering_task_data,
                                               const ompt_frame_t *encountering_task_frame,
                                               ompt_data_t *parallel_data,
                                               unsigned int requested_parallelism, int flags,
                                               const void *codeptr_ra);
typedef void (*ompt_callback_parallel_end_t)(ompt_data_t *parallel_data,
                                             ompt_data_t *encountering_task_data, int flags,
                                             const void *codeptr_ra);
typedef void (*ompt_callback_implicit_task_t)(ompt_scope_endpoint_t endpoint,
                                              ompt_data_t *parallel_data, ompt_data_t *task_data,
                                              unsigned int actual_parallelism,
                                              unsigned int index, int flags);
typedef int (*ompt_callback_control_tool_t)(uint64_t command, uint64_t modifier, void *arg,
                                            const void *codeptr_ra);

typedef void (*ompt_callback_sync_region_t)(ompt_sync_region_t kind,
                                            ompt_scope_endpoint_t endpoint,
                                            ompt_data_t *parallel_data, ompt_data_t *task_data,
                                            const void *codeptr_ra);
typedef void (*ompt_callback_mutex_acquire_t)(ompt_mutex_t kind, unsigned int hint,
                                              unsigned int impl, ompt_wait_id_t wait_id,
                                              const void *codeptr_ra);
typedef void (*ompt_callback_mutex_t)(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                      const void *codeptr_ra);
typedef void (*ompt_callback_nest_lock_t)(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
                                          const void *codeptr_ra);
typedef void (*ompt_callback_task_create_t)(ompt_data_t *encountering_task_data,
                                            const ompt_frame_t *encountering_task_frame,
                                            ompt_data_t *new_task_data, int flags,
                                            int has_dependences, const void *codeptr_ra);
typedef void (*ompt_callback_task_schedule_t)(ompt_data_t *prior_task_data,
                                              ompt_task_status_t prior_task_status,
                                              ompt_data_t *next_task_data);
typedef void (*ompt_callback_task_dependence_t)(ompt_data_t *src_task_data,
                                                ompt_data_t *sink_task_data);
typedef void (*ompt_callback_dependences_t)(ompt_data_t *task_data,
                                            const ompt_dependence_t *deps, int ndeps);

typedef void (*ompt_callback_work_t)(ompt_work_t work_type, ompt_scope_endpoint_t endpoint,
                                     ompt_data_t *parallel_data, ompt_data_t *task_data,
                                     uint64_t count, const void *codeptr_ra);
typedef void (*ompt_callback_dispatch_t)(ompt_data_t *parallel_data, ompt_data_t *task_data,
                                         ompt_dispatch_t kind, ompt_data_t instance);
typedef void (*ompt_callback_masked_t)(ompt_scope_endpoint_t endpoint,
                                       ompt_data_t *parallel_data, ompt_data_t *task_data,
                                       const void *codeptr_ra);
typedef void (*ompt_callback_flush_t)(ompt_data_t *thread_data, const void *codeptr_ra);
typedef void (*ompt_callback_cancel_t)(ompt_data_t *task_data, int flags,
                                       const void *codeptr_ra);

#endif
