/* cancel.h: cancellation, for both ABIs (cancel.c). */
#ifndef BUDDYPOOL_CANCEL_H
#define BUDDYPOOL_CANCEL_H

#include "../tasks/task.h"
#include "thread.h"

struct bp_team;

/* The constructs a cancel names; all of it is inert while cancel-var
 * (bp_config.cancellation) is false. */
enum { BP_CANCEL_PARALLEL = 1, BP_CANCEL_WS = 2 /* for, sections */, BP_CANCEL_TASKGROUP = 3 };
/* `cancel`: activate cancellation of t's innermost construct of the kind;
 * 1 when t is to leave it (0: a taskgroup cancel outside any taskgroup). */
int bp_cancel(struct bp_thread *t, int kind);
/* `cancellation point`: is cancellation of the kind active for t? */
int bp_cancelled(struct bp_thread *t, int kind);
/* Is t's region cancelled? Its taskgroup? Tasks made there are discarded. */
int bp_cancelled_region(const struct bp_thread *t);
int bp_task_cancelled(struct bp_thread *t);
/* A queued task about to begin on t: discarded (its body never runs) when
 * its region or its taskgroup is cancelled. */
int bp_task_discarded(const struct bp_thread *t, const struct bp_task *task);
/* t gives up a barrier of its cancelled region in team: its episode count
 * back to the canceller's. bp_cancel_clear: thread 0's, at the join once
 * every thread has arrived. */
void bp_cancel_rejoin(struct bp_thread *t, struct bp_team *team);
void bp_cancel_clear(struct bp_team *team);

#endif
