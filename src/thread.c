/* thread.c: the calling thread's state (struct bp_thread, internal.h), in
 * thread-local storage: its place in the current team and region, the
 * implicit task it runs and that task's ICVs. Every layer reads it through
 * bp_self(); this file defines it and nothing here calls another module but
 * the environment's, so any file may use it without joining a circle. */
#include "internal.h"
#include "pool.h"

_Thread_local struct bp_thread bp_tls = {.team_size = 1, .gtid = -1, .place = -1};
static _Atomic int next_gtid;

int bp_gtid(struct bp_thread *t)
{
    if (t->gtid < 0)
        t->gtid = atomic_fetch_add_explicit(&next_gtid, 1, memory_order_relaxed);
    return t->gtid;
}

void bp_icv_init(struct bp_thread *t)
{
    bp_config_load();
    bp_task_icvs(t, &bp_config.icv);
}
