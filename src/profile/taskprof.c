/* taskprof.c: the profile's explicit tasks, per task function: how many
 * ran and how long their own code took (a task's time excludes the tasks
 * its thread ran inside it, at a taskwait for one, so recursive tasks are
 * not counted twice). A leaf: the listener (listen.c) calls
 * bp_taskprof_record once per task run when profiling, and the report
 * reads a snapshot.
 *
 * Tasks run on every thread at once, so the table takes no lock: an
 * open-addressed array of BP_TASK_PROF_ROWS rows whose key (the function)
 * a thread claims by a compare-and-swap from 0, and whose counts it adds
 * atomically (relaxed: they are statistics, read after the regions). A
 * function that finds no free row within BP_TASK_PROF_PROBES counts in the
 * last row, "other tasks". A reset clears the rows while no region of the
 * resetting thread runs; another thread's tasks may then still land in
 * the new table, counted there. */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

enum { BP_TASK_PROF_ROWS = 256, BP_TASK_PROF_PROBES = 16 };

struct row {
    _Atomic uintptr_t fn;
    _Atomic uint64_t calls;
    _Atomic int64_t ns;
};
static struct row rows[BP_TASK_PROF_ROWS + 1]; /* the last: other tasks */

static size_t slot_of(uintptr_t fn)
{
    fn ^= fn >> 15;
    fn *= (uintptr_t)0x2545f4914f6cdd1dull;
    return (size_t)(fn >> 7) % BP_TASK_PROF_ROWS;
}

void bp_taskprof_record(const void *fn, int64_t ns)
{
    uintptr_t key = (uintptr_t)fn != 0 ? (uintptr_t)fn : 1;
    struct row *r = &rows[BP_TASK_PROF_ROWS];
    size_t s = slot_of(key);
    for (int k = 0; k < BP_TASK_PROF_PROBES; k++, s = (s + 1) % BP_TASK_PROF_ROWS) {
        uintptr_t have = atomic_load_explicit(&rows[s].fn, memory_order_relaxed);
        if (have == 0 && atomic_compare_exchange_strong_explicit(
                             &rows[s].fn, &have, key, memory_order_relaxed, memory_order_relaxed))
            have = key;
        if (have == key) {
            r = &rows[s];
            break;
        }
    }
    atomic_fetch_add_explicit(&r->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->ns, ns, memory_order_relaxed);
}

static int by_time(const void *a, const void *b)
{
    const struct bp_task_row *x = a, *y = b;
    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

int bp_taskprof_snapshot(struct bp_task_row **out)
{
    struct bp_task_row *v = malloc(sizeof *v * (BP_TASK_PROF_ROWS + 1));
    *out = v;
    if (v == NULL)
        return -1;
    int n = 0;
    for (int i = 0; i <= BP_TASK_PROF_ROWS; i++) {
        uint64_t calls = atomic_load_explicit(&rows[i].calls, memory_order_relaxed);
        if (calls == 0)
            continue;
        uintptr_t fn = atomic_load_explicit(&rows[i].fn, memory_order_relaxed);
        v[n++] = (struct bp_task_row){i == BP_TASK_PROF_ROWS ? NULL : (const void *)fn, calls,
                                      atomic_load_explicit(&rows[i].ns, memory_order_relaxed)};
    }
    qsort(v, (size_t)n, sizeof *v, by_time);
    return n;
}

void bp_taskprof_clear(void)
{
    for (int i = 0; i <= BP_TASK_PROF_ROWS; i++) {
        atomic_store_explicit(&rows[i].calls, 0, memory_order_relaxed);
        atomic_store_explicit(&rows[i].ns, 0, memory_order_relaxed);
        atomic_store_explicit(&rows[i].fn, 0, memory_order_relaxed);
    }
}
