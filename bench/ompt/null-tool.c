/* null-tool.c: an OMPT tool that registers every host callback and does
 * nothing in them, for bench/ompt-cost.py: what a tool costs each
 * construct, on buddypool and on libomp alike (the same tool, built
 * against LLVM's omp-tools.h). It counts nothing and prints nothing: the
 * callbacks' own work is a tool's, not the runtime's. */
#include <omp-tools.h>
#include <stddef.h>

/* One empty function per callback type, so that each is called through
 * the pointer type it is registered with. */
static void thread_begin(ompt_thread_t t, ompt_data_t *d) { (void)t, (void)d; }
static void thread_end(ompt_data_t *d) { (void)d; }
static void parallel_begin(ompt_data_t *e, const ompt_frame_t *f, ompt_data_t *p, unsigned n,
                           int fl, const void *ra)
{
    (void)e, (void)f, (void)p, (void)n, (void)fl, (void)ra;
}
static void parallel_end(ompt_data_t *p, ompt_data_t *e, int fl, const void *ra)
{
    (void)p, (void)e, (void)fl, (void)ra;
}
static void implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t, unsigned n,
                          unsigned i, int fl)
{
    (void)ep, (void)p, (void)t, (void)n, (void)i, (void)fl;
}
static void sync_region(ompt_sync_region_t k, ompt_scope_endpoint_t ep, ompt_data_t *p,
                        ompt_data_t *t, const void *ra)
{
    (void)k, (void)ep, (void)p, (void)t, (void)ra;
}
static void task_create(ompt_data_t *e, const ompt_frame_t *f, ompt_data_t *n, int fl, int d,
                        const void *ra)
{
    (void)e, (void)f, (void)n, (void)fl, (void)d, (void)ra;
}
static void task_schedule(ompt_data_t *a, ompt_task_status_t s, ompt_data_t *b)
{
    (void)a, (void)s, (void)b;
}
static void dependences(ompt_data_t *t, const ompt_dependence_t *d, int n)
{
    (void)t, (void)d, (void)n;
}
static void mutex_acquire(ompt_mutex_t k, unsigned h, unsigned i, ompt_wait_id_t w,
                          const void *ra)
{
    (void)k, (void)h, (void)i, (void)w, (void)ra;
}
static void mutex(ompt_mutex_t k, ompt_wait_id_t w, const void *ra) { (void)k, (void)w, (void)ra; }
static void nest_lock(ompt_scope_endpoint_t ep, ompt_wait_id_t w, const void *ra)
{
    (void)ep, (void)w, (void)ra;
}
static void work(ompt_work_t k, ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t,
                 uint64_t c, const void *ra)
{
    (void)k, (void)ep, (void)p, (void)t, (void)c, (void)ra;
}
static void dispatch(ompt_data_t *p, ompt_data_t *t, ompt_dispatch_t k, ompt_data_t i)
{
    (void)p, (void)t, (void)k, (void)i;
}
static void masked(ompt_scope_endpoint_t ep, ompt_data_t *p, ompt_data_t *t, const void *ra)
{
    (void)ep, (void)p, (void)t, (void)ra;
}
static void flush(ompt_data_t *t, const void *ra) { (void)t, (void)ra; }
static void cancel(ompt_data_t *t, int fl, const void *ra) { (void)t, (void)fl, (void)ra; }

static int initialize(ompt_function_lookup_t lookup, int dev, ompt_data_t *data)
{
    (void)dev, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (set == NULL)
        return 0;
    set(ompt_callback_thread_begin, (ompt_callback_t)thread_begin);
    set(ompt_callback_thread_end, (ompt_callback_t)thread_end);
    set(ompt_callback_parallel_begin, (ompt_callback_t)parallel_begin);
    set(ompt_callback_parallel_end, (ompt_callback_t)parallel_end);
    set(ompt_callback_implicit_task, (ompt_callback_t)implicit_task);
    set(ompt_callback_sync_region, (ompt_callback_t)sync_region);
    set(ompt_callback_sync_region_wait, (ompt_callback_t)sync_region);
    set(ompt_callback_reduction, (ompt_callback_t)sync_region);
    set(ompt_callback_task_create, (ompt_callback_t)task_create);
    set(ompt_callback_task_schedule, (ompt_callback_t)task_schedule);
    set(ompt_callback_dependences, (ompt_callback_t)dependences);
    set(ompt_callback_mutex_acquire, (ompt_callback_t)mutex_acquire);
    set(ompt_callback_lock_init, (ompt_callback_t)mutex_acquire);
    set(ompt_callback_mutex_acquired, (ompt_callback_t)mutex);
    set(ompt_callback_mutex_released, (ompt_callback_t)mutex);
    set(ompt_callback_lock_destroy, (ompt_callback_t)mutex);
    set(ompt_callback_nest_lock, (ompt_callback_t)nest_lock);
    set(ompt_callback_work, (ompt_callback_t)work);
    set(ompt_callback_dispatch, (ompt_callback_t)dispatch);
    set(ompt_callback_masked, (ompt_callback_t)masked);
    set(ompt_callback_flush, (ompt_callback_t)flush);
    set(ompt_callback_cancel, (ompt_callback_t)cancel);
    return 1;
}

static void finalize(ompt_data_t *data) { (void)data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
    (void)version, (void)runtime;
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}
