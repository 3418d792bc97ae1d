/* trace.c: the timeline (BUDDY_THREAD_POOL_TRACE=PATH). Every thread that
 * takes part in regions keeps its last BUDDY_THREAD_POOL_TRACE_EVENTS events
 * in a ring of its own, written by that thread alone: a region as thread 0
 * saw it (fork to join) or as a worker ran it (start to its arrival at the
 * join; the slice names the OS thread that forked it, so each worker slice
 * belongs to one application thread's region), a barrier wait (arrival to
 * release), thread 0's wait at the join.
 * At unload or exit, with the workers joined, the rings are written as a
 * Chrome trace-event JSON file (Perfetto, chrome://tracing): one track per
 * thread, complete ("X") events in microseconds, regions named by their
 * function, and an instant ("i") event for each buddypool_profile_phase
 * call (docs/profile-format.md). Memory is fixed per thread; the file says how many of the
 * oldest events were dropped. Tracing uses the profiling hooks' clock reads
 * (bp_profiling is on while tracing), but prints no profile unless
 * BUDDY_THREAD_POOL_PROFILE=1 asks for it. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile.h"

struct event {
    int64_t start_ns, end_ns;
    const void *fn;  /* the region function; NULL for waits */
    uint32_t kind;   /* BP_TRACE_* */
    uint32_t forker; /* a worker's region: its forking thread's OS id; else 0 */
};

struct bp_trace_ring {
    struct bp_trace_ring *next;
    long tid;           /* the OS thread */
    int pool_id;        /* worker number, 0 for a thread that forks regions */
    uint64_t count;     /* events recorded; the last `cap` are kept */
    struct event ev[];
};

static struct {
    struct bp_trace_ring *_Atomic rings;
    size_t cap;
    atomic_int warned;
} tr;

#ifndef BP_NO_PROFILER
int bp_tracing;
#endif

void bp_trace_init(void)
{
    if (bp_config.trace_out == NULL)
        return;
#ifdef BP_NO_PROFILER
    bp_warn("this build has no profiler; BUDDY_THREAD_POOL_TRACE is ignored");
#else
    tr.cap = (size_t)bp_config.trace_events;
    bp_tracing = 1;
#endif
}

static struct bp_trace_ring *ring_of(struct bp_listen_thread *lt)
{
    if (lt->trace != NULL)
        return lt->trace;
    struct bp_trace_ring *r = malloc(sizeof *r + tr.cap * sizeof r->ev[0]);
    if (r == NULL) {
        if (!atomic_exchange(&tr.warned, 1))
            bp_warn("trace: out of memory for a thread's %zu events; its events are lost",
                    tr.cap);
        return NULL;
    }
    r->tid = (long)syscall(SYS_gettid);
    r->pool_id = lt->worker;
    r->count = 0;
    /* release: the fields above before the ring is seen in the list */
    r->next = atomic_load_explicit(&tr.rings, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&tr.rings, &r->next, r, memory_order_release,
                                                  memory_order_relaxed))
        ;
    lt->trace = r;
    return r;
}

void bp_trace_off(void)
{
#ifndef BP_NO_PROFILER
    bp_tracing = 0;
#endif
}

static void record(struct bp_listen_thread *lt, int kind, const void *fn, long forker,
                   int64_t start_ns, int64_t end_ns)
{
    struct bp_trace_ring *r = ring_of(lt);
    if (r == NULL)
        return;
    r->ev[r->count % tr.cap] =
        (struct event){start_ns, end_ns, fn, (uint32_t)kind, (uint32_t)forker};
    r->count++;
}

void bp_trace_event(struct bp_listen_thread *lt, int kind, const void *fn, int64_t start_ns,
                    int64_t end_ns)
{
    record(lt, kind, fn, 0, start_ns, end_ns);
}

void bp_trace_served(struct bp_listen_thread *lt, const void *fn, long forker,
                     int64_t start_ns, int64_t end_ns)
{
    record(lt, BP_TRACE_REGION, fn, forker, start_ns, end_ns);
}

long bp_trace_tid(struct bp_listen_thread *lt)
{
    struct bp_trace_ring *r = ring_of(lt);
    return r != NULL ? r->tid : (long)syscall(SYS_gettid);
}

/* The events a ring still holds: its last min(count, cap), from index
 * count - kept on (modulo cap). */
static uint64_t kept_of(const struct bp_trace_ring *r)
{
    return r->count < tr.cap ? r->count : tr.cap;
}

/* Names of region functions, looked up once each while writing. */
enum { NAME_CACHE = 1024 };
struct name_cache {
    const void *fn[NAME_CACHE];
    char *name[NAME_CACHE];
};

static const char *name_of(struct name_cache *c, const void *fn)
{
    size_t i = (size_t)(((uintptr_t)fn >> 4) * 0x9e3779b97f4a7c15u) % NAME_CACHE;
    for (size_t k = 0; k < NAME_CACHE; k++, i = (i + 1) % NAME_CACHE) {
        if (c->fn[i] == fn)
            return c->name[i];
        if (c->fn[i] == NULL) {
            char *module;
            uintptr_t offset;
            c->fn[i] = fn;
            bp_name_function(fn, &c->name[i], &module, &offset);
            free(module);
            return c->name[i] ? c->name[i] : "?";
        }
    }
    return "region"; /* more than NAME_CACHE functions: the rest go unnamed */
}

static void write_events(FILE *f, const struct bp_trace_ring *r, struct name_cache *names,
                         int64_t origin, long pid, int *first)
{
    static const char *const wait_names[] = {"", "", "barrier wait", "join wait", "", ""};
    char thread_name[32];
    if (r->pool_id > 0)
        snprintf(thread_name, sizeof thread_name, "buddypool-%d", r->pool_id);
    else
        snprintf(thread_name, sizeof thread_name, "thread 0 (tid %ld)", r->tid);
    fprintf(f, "%s\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %ld, \"tid\": %ld, "
               "\"args\": {\"name\": \"%s\"}}",
            *first ? "" : ",", pid, r->tid, thread_name);
    fprintf(f, ",\n  {\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": %ld, \"tid\": %ld, "
               "\"args\": {\"sort_index\": %d}}",
            pid, r->tid, r->pool_id);
    *first = 0;
    for (uint64_t k = r->count - kept_of(r); k < r->count; k++) {
        const struct event *e = &r->ev[k % tr.cap];
        int64_t ts = e->start_ns - origin, dur = e->end_ns - e->start_ns;
        if (ts < 0)
            ts = 0; /* origin is the earliest start: never, but keep the JSON valid */
        if (dur < 0)
            dur = 0;
        if (e->kind == BP_TRACE_PHASE) {
            fprintf(f, ",\n  {\"name\": ");
            bp_json_string(f, (const char *)e->fn);
            fprintf(f, ", \"cat\": \"phase\", \"ph\": \"i\", \"s\": \"t\", \"ts\": %" PRId64
                       ".%03d, \"pid\": %ld, \"tid\": %ld}",
                    ts / 1000, (int)(ts % 1000), pid, r->tid);
            continue;
        }
        int named = e->kind == BP_TRACE_REGION || e->kind == BP_TRACE_TASK;
        fprintf(f, ",\n  {\"name\": ");
        if (named)
            bp_json_string(f, name_of(names, e->fn));
        else
            fprintf(f, "\"%s\"", wait_names[e->kind]);
        fprintf(f, ", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": %" PRId64 ".%03d, \"dur\": %" PRId64
                   ".%03d, \"pid\": %ld, \"tid\": %ld",
                e->kind == BP_TRACE_REGION ? "region" : e->kind == BP_TRACE_TASK ? "task" : "wait",
                ts / 1000, (int)(ts % 1000), dur / 1000, (int)(dur % 1000), pid, r->tid);
        if (named) {
            fprintf(f, ", \"args\": {\"address\": \"0x%" PRIxPTR "\"", (uintptr_t)e->fn);
            if (e->forker != 0)
                fprintf(f, ", \"forked_by\": %" PRIu32, e->forker);
            fputc('}', f);
        }
        fputc('}', f);
    }
}

void bp_trace_write(const char *path)
{
    if (!bp_tracing)
        return;
    /* acquire: the rings' fields (the workers are joined, or idle) */
    struct bp_trace_ring *rings = atomic_load_explicit(&tr.rings, memory_order_acquire);
    int64_t origin = INT64_MAX;
    uint64_t dropped = 0, kept = 0;
    int threads = 0;
    for (struct bp_trace_ring *r = rings; r != NULL; r = r->next) {
        uint64_t n = kept_of(r);
        for (uint64_t k = r->count - n; k < r->count; k++)
            if (r->ev[k % tr.cap].start_ns < origin)
                origin = r->ev[k % tr.cap].start_ns;
        dropped += r->count - n;
        kept += n;
        threads++;
    }
    if (origin == INT64_MAX)
        origin = 0;
    FILE *f = fopen(path, "w");
    struct name_cache *names = calloc(1, sizeof *names);
    if (f == NULL || names == NULL) {
        int err = f == NULL ? errno : ENOMEM;
        bp_warn("could not write the trace to '%s' (BUDDY_THREAD_POOL_TRACE): %s", path,
                strerror(err));
        if (f != NULL)
            fclose(f);
        free(names);
        return;
    }
    long pid = (long)getpid();
    int first = 1;
    fprintf(f, "{\"traceEvents\": [");
    for (struct bp_trace_ring *r = rings; r != NULL; r = r->next)
        write_events(f, r, names, origin, pid, &first);
    fprintf(f, "\n ],\n \"displayTimeUnit\": \"ns\",\n \"otherData\": {\"events_per_thread\": %zu, "
               "\"threads\": %d, \"events\": %" PRIu64 ", \"dropped_events\": %" PRIu64 "}}\n",
            tr.cap, threads, kept, dropped);
    int err = ferror(f) ? EIO : 0;
    if (fclose(f) != 0 && err == 0)
        err = errno;
    if (err != 0)
        bp_warn("could not write the trace to '%s' (BUDDY_THREAD_POOL_TRACE): %s", path,
                strerror(err));
    else if (dropped > 0)
        bp_warn("trace: %" PRIu64 " older events dropped (BUDDY_THREAD_POOL_TRACE_EVENTS=%zu "
                "per thread); '%s' holds the last %" PRIu64, dropped, tr.cap, path, kept);
    for (size_t i = 0; i < NAME_CACHE; i++)
        free(names->name[i]);
    free(names);
}

void bp_trace_free(struct bp_listen_thread *self)
{
    struct bp_trace_ring *r = atomic_exchange_explicit(&tr.rings, NULL, memory_order_acquire);
    while (r != NULL) {
        struct bp_trace_ring *next = r->next;
        free(r);
        r = next;
    }
    self->trace = NULL;
}
