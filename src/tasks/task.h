/* task.h: what a task is: the types every layer reads (a thread
 * keeps its initial implicit task in its own state, thread.h), defined by
 * task.c; the calls are tasking.h's. */
#ifndef BUDDYPOOL_TASK_H
#define BUDDYPOOL_TASK_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/env.h"

struct bp_team;
struct bp_thread;
struct bp_dep_node;
struct bp_dep_table;

/* A taskgroup: how many of the tasks made in it (and their descendants)
 * are not complete. On the heap, made and freed by the task whose code
 * opens and closes it. */
struct bp_taskgroup {
    struct bp_taskgroup *prev; /* the one enclosing it in the same task */
    /* its tasks made and complete, on lines of their own: the maker's
     * count stays in its cache while other threads complete the tasks */
    alignas(64) _Atomic uint32_t made;
    alignas(64) _Atomic uint32_t done;
    /* task reductions, the ABI layers': gcc's descriptors (the group's
     * own, chained to those it inherits from prev), and libomp's items,
     * which `finish` folds once the group's tasks are complete */
    uintptr_t *gomp_reductions;
    void *kmp_reductions;
    void (*finish)(struct bp_taskgroup *g);
    _Atomic int cancelled;     /* cancel taskgroup (cancel.c) */
};

/* BP_TASK_UNTIED and BP_TASK_FINAL have the bits of gcc's GOMP_task flags,
 * which GOMP_task then takes as they are (gomp_task.c). */
enum {
    BP_TASK_UNTIED = 1u << 0,   /* untied (run as tied, which OpenMP allows) */
    BP_TASK_FINAL = 1u << 1,    /* final: its descendants are included tasks */
    BP_TASK_LINKED = 1u << 2,   /* counted in its parent, taskgroup and team */
    BP_TASK_IMPLICIT = 1u << 3, /* an implicit task (never freed here) */
    BP_TASK_STARTED = 1u << 4,  /* its body has begun (an untied task's next */
                                /* part is queued again, not anew) */
    BP_TASK_WAITED = 1u << 5,   /* undeferred with dependences: its maker */
                                /* waits for them, then runs it */
    BP_TASK_HOLDS_PARENT = 1u << 6, /* it holds its parent's memory */
    BP_TASK_DISCARD_BODY = 1u << 7, /* discarded (cancel.c), its body still runs, */
                                    /* with BP_TASK_DISCARDED, to undo what it must */
    BP_TASK_DISCARDED = 1u << 8,
    BP_TASK_ON_STACK = 1u << 9, /* an included task on its maker's stack */
};

/* A task. The ABI layer puts its data after the header (bp_task_payload)
 * and says how to run it (body). Two counts keep it:
 *   refs  1 until it completes, plus one per child not complete: a
 *         taskwait waits for 1; at 0 (complete, and every child too) its
 *         children's dependence table goes, then its own hold on its memory;
 *   mem   holds on its memory: that one, one per child not yet freed (a
 *         heap task's children hold it, BP_TASK_HOLDS_PARENT), one per
 *         dependence list that names it (taskdep.c); at 0 it is freed.
 * So a task's chain of parents can always be read while it lives, whatever
 * the parents' state. */
struct bp_task {
    void (*body)(struct bp_task *task); /* runs it, or its next untied part */
    struct bp_task *parent;
    struct bp_taskgroup *in_group; /* the taskgroup it counts in; NULL: none */
    struct bp_taskgroup *group;    /* the innermost one its own code is in */
    struct bp_team *team;          /* the team that counts it; NULL: none */
    _Atomic int32_t refs;          /* a heap or stack task's; an implicit one's is */
                                   /* children_made - children_done, plus 1 */
    _Atomic int32_t mem_holds;
    uint32_t children_made;        /* an implicit task's children, made by its */
                                   /* own thread */
    _Atomic int32_t pending;       /* runs of its body to come, plus one while an */
                                   /* event (detach) is not fulfilled: 0 is complete */
    uint32_t flags;                /* BP_TASK_* */
    int depth;                     /* its parent's plus one; implicit tasks 0 */
    const void *fn;                /* the task's function, as the profile names it */
    uint64_t tool;                 /* the listeners' word (hooks.h), 0 when made */
    void *mem;                     /* what to free; NULL: not on the heap */
    size_t payload_size;           /* bytes of the ABI's data (bp_task_new) */
    _Atomic uint32_t requeues;     /* times its untied parts were queued again */
    /* dependences (taskdep.c): its predecessors not complete (plus one
     * while it is being registered), its own successors, and its
     * children's table; a task readied by another's completion waits in
     * its team's inbox through next_ready when it cannot be queued; a
     * task on the stack (BP_TASK_ON_STACK) that made a counted child has
     * its heap stand-in there (task.c) */
    _Atomic int32_t npred;
    struct bp_dep_node *dep;
    struct bp_dep_table *dep_table;
    struct bp_task *next_ready;
    /* Last, what an implicit task never reads (its ICVs are its thread's),
     * so that setting one up clears only what comes before (thread.c):
     * its data environment's ICVs, and an undeferred task's creator, as it
     * was (bp_task_begin_undeferred) */
    struct bp_icv icv;
    struct bp_task_frame {
        struct bp_task *prev;
        struct bp_icv icv;     /* the ICVs to give back, when icv_saved */
        int icv_ready;
        int icv_saved;         /* an included task's: its ICVs were lent */
        uint32_t task_id;
        struct bp_task_frame *lender; /* the thread's icv_lender, as it was */
    } frame;
};
/* An implicit task: a task whose children's completions are counted on a
 * line of their own (children_done; children_made, its own thread's, is in
 * the task). Only these need the alignment, so a struct bp_task on a stack
 * (an included task's) needs none: its maker does not realign the stack. */
struct bp_implicit_task {
    struct bp_task task;
    alignas(64) _Atomic uint32_t children_done;
};
/* The implicit task that task (flags BP_TASK_IMPLICIT) is. */
static inline struct bp_implicit_task *bp_implicit_of(struct bp_task *task)
{
    return (struct bp_implicit_task *)((char *)task - offsetof(struct bp_implicit_task, task));
}

/* Where the ABI layer's data starts in a task of bp_task_new. */
#define BP_TASK_HEADER ((sizeof(struct bp_task) + 63) & ~(size_t)63)
static inline void *bp_task_payload(struct bp_task *task)
{
    return (char *)task + BP_TASK_HEADER;
}
static inline struct bp_task *bp_task_of_payload(void *payload)
{
    return (struct bp_task *)((char *)payload - BP_TASK_HEADER);
}

#endif
