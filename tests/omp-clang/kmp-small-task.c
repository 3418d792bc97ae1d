/* kmp-small-task.c: a task made by hand whose kmp_task_t is smaller than
 * libomp's 40 bytes (shareds, routine, part_id and the destructors union:
 * 32, as libomp's own detach tests declare it; and 24, without the
 * union), with shareds right after it. The runtime must place the shareds
 * after the caller's size, write no field past it, and run the task: a
 * detachable one completes only when its event is fulfilled (by a second
 * task), so taskwait returns after both ran. Built by clang, on buddypool
 * and on libomp. */
#include <omp.h>
#include <string.h>

#include "gomp-check.h"
#include "kmp-task-abi.h"

enum { KMP_TIED = 1, KMP_DETACHABLE = 1 << 6 };

/* The caller's smaller task structs. */
typedef struct {
    void *shareds;
    kmp_routine_entry_t routine;
    int32_t part_id;
    kmp_routine_entry_t destructors;
} task32_t;
typedef struct {
    void *shareds;
    kmp_routine_entry_t routine;
    int32_t part_id;
} task24_t;

void *__kmpc_task_allow_completion_event(ident_t *loc, int32_t gtid, void *task);
int32_t __kmpc_omp_taskwait(ident_t *loc, int32_t gtid);

struct shared {
    int *ran;
    omp_event_handle_t *event;
    long canary; /* the last shared: written before the task is queued */
};

static int32_t body(int32_t gtid, void *task)
{
    (void)gtid;
    struct shared *s = ((task24_t *)task)->shareds;
    EXPECT_EQ(s->canary, 0x5eed, "the shareds as the maker wrote them");
    __atomic_fetch_add(s->ran, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static int32_t fulfil(int32_t gtid, void *task)
{
    (void)gtid;
    struct shared *s = ((task24_t *)task)->shareds;
    omp_fulfill_event(*s->event);
    __atomic_fetch_add(s->ran, 1, __ATOMIC_SEQ_CST);
    return 0;
}

/* Make a task of `size` bytes running fn with shareds s (detachable:
 * return its event in *event). */
static void make(int32_t gtid, size_t size, kmp_routine_entry_t fn, struct shared *s,
                 omp_event_handle_t *event)
{
    int32_t flags = KMP_TIED | (event != NULL ? KMP_DETACHABLE : 0);
    void *task = __kmpc_omp_task_alloc(NULL, gtid, flags, size, sizeof *s, fn);
    task24_t *head = task;
    EXPECT_EQ((char *)head->shareds - (char *)task, (long)size, "the shareds follow the task");
    EXPECT_EQ(head->part_id, 0, "part_id");
    memcpy(head->shareds, s, sizeof *s);
    if (event != NULL)
        *event = (omp_event_handle_t)(uintptr_t)__kmpc_task_allow_completion_event(NULL, gtid,
                                                                                    task);
    __kmpc_omp_task(NULL, gtid, (kmp_task_t *)task);
}

int main(void)
{
    check_team_size("kmp-small-task");
    for (int round = 0; round < 50; round++) {
        int ran = 0;
#pragma omp parallel shared(ran)
#pragma omp single
        {
            int32_t gtid = __kmpc_global_thread_num(NULL);
            omp_event_handle_t event;
            struct shared s = {&ran, &event, 0x5eed};
            make(gtid, sizeof(task24_t), (kmp_routine_entry_t)body, &s, NULL);
            make(gtid, sizeof(task32_t), (kmp_routine_entry_t)body, &s, &event);
            make(gtid, sizeof(task32_t), (kmp_routine_entry_t)fulfil, &s, NULL);
            __kmpc_omp_taskwait(NULL, gtid);
            EXPECT_EQ(__atomic_load_n(&ran, __ATOMIC_SEQ_CST), 3, "every task ran");
        }
    }
    return check_summary("kmp-small-task");
}
