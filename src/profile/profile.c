/* profile.c: the profiling mode's bookkeeping. The listener (listen.c)
 * hands it every outermost region at its end, on the thread that forked
 * it, which takes the profile's lock for the accounting alone (so regions
 * are accounted one at a time and nothing here needs atomics; the regions
 * themselves run at once); barrier waits are summed per thread during the
 * region and handed over at its join.
 *
 * Timelines. Regions of different application threads may overlap in time;
 * the regions of one thread never do. So each forking thread has a timeline
 * of its own (struct bp_timeline, in its state): the gap before a region is
 * its start minus the end of the same thread's previous region, both clock
 * readings that also bound the regions, so for each thread
 *     span = last end - first start = sum(wall) + sum(gaps)
 * holds exactly, and the tables' span is the sum of the threads' spans
 * (with one application thread, the one timeline's). A gap is credited to
 * the function of the region it ends (gap_before) and to the one it follows
 * on the same thread (gap_after). The report lists each forking thread's
 * regions, gaps and the time its forks spent making or growing its team
 * (obtaining workers); the first BP_MAX_CALLER_ROWS threads one by one, the
 * rest together.
 *
 * Tables. Functions are found by address in an open-addressed table of
 * twice BUDDY_THREAD_POOL_PROFILE_SLOTS buckets, of which at most that many
 * are used, so a search always ends at an empty bucket. A function is named
 * (dladdr) when it takes its row, while its code is surely mapped. When the
 * rows are all taken, a new function is counted in the overflow row
 * `other+0x0` (one warning), so the calls of all rows always add up to the
 * number of regions.
 *
 * Phases. The whole run has one table; buddypool_profile_phase(name) also
 * starts accounting regions into the table of that phase (up to
 * BP_MAX_PHASES names; a phase named again continues). A phase holds its
 * regions and the gaps before them (the gap before a phase's first region
 * is its own), so the phases' regions plus gaps add up to the whole span
 * from the first phase on. Phase calls take the profile's lock as the
 * accounting does.
 *
 * Each row also holds its call sites (sites.c) and barrier steps (steps.c);
 * the whole run's rows are mirrored into the live counters (live.c).
 *
 * Files. A process that ran no region writes nothing (a wrapper such as
 * `timeout` or `sh -c` that shares the environment must not replace the
 * program's file). The run is named once, by the first profiled process
 * (BUDDY_THREAD_POOL_PROFILE_RUN, inherited by its children), and report.c
 * writes a second process's file of the same run beside the first. */
#include <errno.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../prim.h"
#include "profile.h"

#ifndef BP_NO_PROFILER
int bp_profiling;
#endif

/* The profile's lock (see the top of the file); holds_lock, in the calling
 * thread's state, says whether it holds it. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void bp_profile_lock(void)
{
    pthread_mutex_lock(&lock);
    bp_lt.holds_lock = 1;
}

void bp_profile_unlock(void)
{
    bp_lt.holds_lock = 0;
    pthread_mutex_unlock(&lock);
}

int bp_profile_lock_held(void) { return bp_lt.holds_lock; }

int bp_profile_lock_timed(const struct timespec *deadline)
{
    if (pthread_mutex_timedlock(&lock, deadline) != 0)
        return 0;
    bp_lt.holds_lock = 1;
    return 1;
}

void bp_profile_lock_fork_child(void)
{
    bp_lt.holds_lock = 0;
    pthread_mutex_init(&lock, NULL); /* a thread the child does not have may have held it */
}

enum { BP_MAX_PHASES = 32 };



struct table {
    struct bp_profile_row *buckets; /* 2 * slots; fn == NULL: empty */
    size_t used;
    struct bp_profile_row other;    /* the overflow row */
    struct bp_profile_totals tot;
    int64_t first_start_ns, last_end_ns;
};

static struct {
    size_t slots;
    int max_threads;             /* entries of a row's per_thread */
    int warned;
    int in_child;                /* this process is a child of fork() */
    struct table all;
    struct table phases[BP_MAX_PHASES];
    char names[BP_MAX_PHASES][BP_PHASE_NAME];
    int nphases, current;        /* current: index, -1 outside any phase */
    int phase_warned;
    uint64_t epoch;              /* timelines of an older epoch are empty (clear) */
    struct bp_caller_row callers[BP_MAX_CALLER_ROWS + 1]; /* the last: the rest */
    int ncallers;
    int child_start;             /* a child of fork(): live file and dump writer at */
                                 /* its first region */
    char run[64];                /* BUDDY_THREAD_POOL_PROFILE_RUN */
    int ended_by;                /* the signal that ends the process; 0: none */
    int own_path;                /* the JSON path names the pid (%p): no PATH.<pid> */
} prof = {.current = -1, .epoch = 1};

/* A child of fork(), also of one before the pool started (a server that
 * forks its workers first): it writes PATH.<pid>. */
static int forked;
static void mark_child(void) { forked = 1; }

long bp_mpi_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    /* Slurm sets SLURM_PROCID in every step, a batch script's too: a rank
     * only in a step of several tasks */
    const char *ntasks = getenv("SLURM_NTASKS");
    size_t nvars = ntasks != NULL && atol(ntasks) > 1 ? 4 : 3;
    for (size_t i = 0; i < nvars; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        long r = v != NULL ? strtol(v, &end, 10) : -1;
        if (v != NULL && *v != '\0' && *end == '\0' && r >= 0)
            return r;
    }
    return -1;
}

/* The MPI job this process is a rank of (Open MPI, PMIx, Slurm); NULL
 * when it is none. */
static const char *mpi_job(char *buf, size_t size)
{
    if (bp_mpi_rank() < 0)
        return NULL;
    const char *job = getenv("OMPI_MCA_ess_base_jobid");
    if (job == NULL)
        job = getenv("PMIX_NAMESPACE");
    if (job == NULL && getenv("SLURM_JOB_ID") != NULL) {
        const char *step = getenv("SLURM_STEP_ID");
        snprintf(buf, size, "%s.%s", getenv("SLURM_JOB_ID"), step != NULL ? step : "0");
        job = buf;
    }
    return job;
}

int bp_profile_path(const char *pattern, char *out, size_t size)
{
    static _Atomic int warned;
    int pid_named = 0, any = 0;
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = pattern; *p != '\0' && n + 1 < size; p++) {
        char piece[300];
        if (p[0] != '%' || p[1] == '\0' || strchr("prh%", p[1]) == NULL) {
            if (p[0] == '%' && atomic_exchange_explicit(&warned, 1, memory_order_relaxed) == 0)
                bp_warn("profile: '%s': only %%p (pid), %%r (MPI rank), %%h (host) and %%%% "
                        "are replaced in a profile's path; the rest is kept as it is", pattern);
            out[n++] = *p;
            out[n] = '\0';
            continue;
        }
        p++;
        any = 1;
        if (*p == 'p') {
            snprintf(piece, sizeof piece, "%ld", (long)getpid());
            pid_named = 1;
        } else if (*p == 'r') {
            long r = bp_mpi_rank();
            snprintf(piece, sizeof piece, "%ld", r >= 0 ? r : 0L);
        } else if (*p == 'h') {
            if (gethostname(piece, sizeof piece - 1) != 0)
                snprintf(piece, sizeof piece, "host");
            piece[sizeof piece - 1] = '\0';
        } else {
            snprintf(piece, sizeof piece, "%%");
        }
        n += (size_t)snprintf(out + n, size - n, "%s", piece);
        if (n >= size)
            n = size - 1;
    }
    return pid_named ? 2 : any;
}

/* Name the run before anything else starts, so that every process this one
 * starts inherits it; the ranks of an MPI job, which their launcher starts,
 * are one run named after the job. */
__attribute__((constructor)) static void name_run(void)
{
    const char *on = getenv("BUDDY_THREAD_POOL_PROFILE");
    if (on == NULL || strcmp(on, "1") != 0)
        return;
    pthread_atfork(NULL, NULL, mark_child);
    if (getenv("BUDDY_THREAD_POOL_PROFILE_RUN") != NULL)
        return;
    char run[64], buf[128];
    const char *job = mpi_job(buf, sizeof buf);
    if (job != NULL) {
        snprintf(run, sizeof run, "mpi-%.59s", job);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(run, sizeof run, "%ld-%lld%09ld", (long)getpid(), (long long)ts.tv_sec,
                 (long)ts.tv_nsec);
    }
    setenv("BUDDY_THREAD_POOL_PROFILE_RUN", run, 0);
}

static int table_alloc(struct table *t)
{
    memset(t, 0, sizeof *t);
    t->other = (struct bp_profile_row){.name = (char *)"other+0x0", .module = (char *)"",
                                       .live = -1};
    t->buckets = calloc(2 * prof.slots, sizeof *t->buckets);
    if (t == &prof.all)
        t->other.live = bp_live_row(prof.slots, t->other.name, "");
    return t->buckets != NULL ? 0 : -1;
}

static void row_free(struct bp_profile_row *r)
{
    free(r->per_thread);
    free(r->wall_hist);
    bp_sites_free(&r->sites);
    bp_steps_free(&r->steps);
}

/* Forget a table's rows and totals; the buckets are freed, not cleared, so a
 * huge table costs nothing in a child of fork(). */
static void table_free(struct table *t)
{
    if (t->buckets != NULL) {
        for (size_t i = 0; i < 2 * prof.slots; i++) {
            free(t->buckets[i].name);
            free(t->buckets[i].module);
            row_free(&t->buckets[i]);
        }
        free(t->buckets);
    }
    row_free(&t->other);
    memset(t, 0, sizeof *t);
}

/* Forget everything: the whole run's table and every phase. */
static void clear(void)
{
    table_free(&prof.all);
    for (int i = 0; i < prof.nphases; i++)
        table_free(&prof.phases[i]);
    prof.nphases = 0;
    prof.current = -1;
    prof.warned = 0;
    prof.phase_warned = 0;
    prof.epoch++;
    memset(prof.callers, 0, sizeof prof.callers);
    prof.ncallers = 0;
    bp_taskprof_clear();
}

void bp_profile_init(int max_threads)
{
    prof.max_threads = max_threads > 0 ? max_threads : 1;
#ifdef BP_NO_PROFILER
    if (bp_config.profile)
        bp_warn("this build has no profiler; BUDDY_THREAD_POOL_PROFILE is ignored");
#else
    if (!bp_config.profile && !bp_tracing)
        return;
    prof.slots = (size_t)bp_config.profile_slots;
    prof.in_child = forked;
    const char *run = getenv("BUDDY_THREAD_POOL_PROFILE_RUN");
    if (run != NULL && strlen(run) < sizeof prof.run)
        memcpy(prof.run, run, strlen(run) + 1);
    else
        snprintf(prof.run, sizeof prof.run, "%ld", (long)getpid());
    if (bp_config.profile)
        bp_live_open(prof.slots + 1);
    if (table_alloc(&prof.all) != 0) {
        bp_warn("out of memory for %zu profile slots; profiling and tracing are off",
                prof.slots);
        bp_live_close();
        bp_trace_off();
        return;
    }
    bp_profiling = 1;
#endif
}

void bp_profile_fork_child(void)
{
    if (!bp_profiling)
        return;
    prof.in_child = 1;
    clear();
    bp_live_fork_child();
    bp_dump_signal_fork_child();
    prof.child_start = 1;
    if (table_alloc(&prof.all) != 0)
        bp_fatal("profile: out of memory in a child of fork()");
}

static struct bp_profile_row *row_of(struct table *t, const void *fn)
{
    size_t n = 2 * prof.slots;
    size_t i = (size_t)(((uintptr_t)fn >> 4) * 0x9e3779b97f4a7c15u) % n;
    for (;; i = (i + 1) % n) {
        struct bp_profile_row *r = &t->buckets[i];
        if (r->fn == fn)
            return r;
        if (r->fn == NULL)
            break;
    }
    if (t->used == prof.slots) {
        if (!prof.warned) {
            prof.warned = 1;
            bp_warn("profile: more than %zu region functions (BUDDY_THREAD_POOL_PROFILE_SLOTS); "
                    "the others are counted together as other+0x0", prof.slots);
        }
        return &t->other;
    }
    struct bp_profile_row *r = &t->buckets[i];
    r->fn = fn;
    bp_name_function(fn, &r->name, &r->module, &r->module_offset);
    r->live = t == &prof.all ? bp_live_row(t->used, r->name, r->module) : -1;
    t->used++;
    return r;
}

/* The per-thread and distribution parts of a row, made when first needed;
 * 0, or -1 when out of memory (the row then goes without them). */
static int row_detail(struct bp_profile_row *r, int threads)
{
    if (threads > prof.max_threads)
        threads = prof.max_threads;
    if (threads > r->per_thread_n || r->per_thread == NULL) {
        /* as large as the largest team of the row so far */
        struct bp_thread_stats *p = realloc(r->per_thread, sizeof *p * (size_t)threads);
        if (p == NULL)
            return -1;
        memset(p + r->per_thread_n, 0, sizeof *p * (size_t)(threads - r->per_thread_n));
        r->per_thread = p;
        r->per_thread_n = threads;
    }
    if (r->wall_hist == NULL)
        r->wall_hist = calloc(BP_WALL_BUCKETS, sizeof *r->wall_hist);
    return r->per_thread != NULL && r->wall_hist != NULL ? 0 : -1;
}

/* Account one region in table t (k: 0 the whole run's, 1 a phase's) on
 * timeline tl; gap: the time since tl's previous region (-1: none). */
static void account(struct table *t, int k, struct bp_timeline *tl,
                    const struct bp_region_sample *s, int64_t gap)
{
    const void *fn = s->fn;
    int64_t start_ns = s->start_ns, end_ns = s->end_ns;
    int threads = s->threads;
    struct bp_profile_row *r = row_of(t, fn);
    if (row_detail(r, threads) == 0) {
        r->wall_hist[bp_wall_bucket(end_ns - start_ns)]++;
        for (int i = 0; i < threads && i < r->per_thread_n; i++) {
            r->per_thread[i].wait_ns += s->thread_wait[i];
            if (s->thread_iters[i] != BP_ITERS_UNCOUNTED) {
                r->per_thread[i].iterations += s->thread_iters[i];
                r->per_thread[i].iterations_counted = 1;
            }
        }
        if (s->last_at_join >= 0 && s->last_at_join < r->per_thread_n)
            r->per_thread[s->last_at_join].last_at_join++;
    }
    struct bp_profile_totals *tot = &t->tot;
    if (tot->regions == 0)
        t->first_start_ns = gap >= 0 ? start_ns - gap : start_ns;
    if (gap >= 0) {
        r->gap_before_ns += gap;
        tot->gaps_ns += gap;
        /* gap_after only where this table also holds the thread's region
         * before */
        if (tl->last_row[k] != NULL && tl->last_seq[k] + 1 == tl->seq &&
            (k == 0 || tl->last_phase == prof.current))
            tl->last_row[k]->gap_after_ns += gap;
    }
    bp_sites_account(&r->sites, s, gap);
    bp_steps_account(&r->steps, s, prof.max_threads);
    r->calls++;
    r->wall_ns += end_ns - start_ns;
    r->wait_ns += s->wait_ns;
    r->wait_t0_ns += s->wait_t0_ns;
    r->barriers += s->barriers;
    tot->regions++;
    tot->regions_ns += end_ns - start_ns;
    tot->wait_ns += s->wait_ns;
    tot->barriers += s->barriers;
    tot->woken += (uint64_t)s->woken;
    tot->wake_sum_ns += s->wake_sum_ns;
    if (s->wake_max_ns > tot->wake_max_ns)
        tot->wake_max_ns = s->wake_max_ns;
    if (threads > tot->threads)
        tot->threads = threads;
    tot->obtain_ns += s->obtain_ns;
    if (end_ns > t->last_end_ns)
        t->last_end_ns = end_ns;
    tl->last_row[k] = r;
    tl->last_seq[k] = tl->seq;
    if (k == 1)
        tl->last_phase = prof.current;
    if (t == &prof.all)
        bp_live_update(r->live, r, tot, t->first_start_ns, end_ns);
}

static void region_locked(struct bp_listen_thread *lt, const struct bp_region_sample *s);

/* The calling thread's entry in the callers' table: a new one while there
 * is room, else the shared last one. */
static int caller_row(void)
{
    if (prof.ncallers == BP_MAX_CALLER_ROWS) {
        prof.callers[BP_MAX_CALLER_ROWS].tid = -1; /* the rest */
        return BP_MAX_CALLER_ROWS;
    }
    prof.callers[prof.ncallers].tid = (long)syscall(SYS_gettid);
    return prof.ncallers++;
}

void bp_profile_region(struct bp_listen_thread *lt, const struct bp_region_sample *s)
{
    bp_profile_lock();
    region_locked(lt, s);
    bp_profile_unlock();
}

static void region_locked(struct bp_listen_thread *lt, const struct bp_region_sample *s)
{
    if (prof.all.buckets == NULL)
        return;
    if (prof.child_start && bp_config.profile) {
        prof.child_start = 0;
        bp_live_open(prof.slots + 1);
        prof.all.other.live = bp_live_row(prof.slots, prof.all.other.name, "");
        bp_dump_signal_start(bp_profile_dump, bp_profile_end);
    }
    struct bp_timeline *tl = &lt->timeline;
    if (tl->epoch != prof.epoch) { /* the thread's first region since the profile began */
        memset(tl, 0, sizeof *tl);
        tl->epoch = prof.epoch;
        tl->caller = caller_row();
    }
    /* A thread's span starts at its first region: no gap before it. */
    int64_t gap = tl->seq > 0 ? s->start_ns - tl->last_end_ns : -1;
    tl->seq++;
    account(&prof.all, 0, tl, s, gap);
    if (prof.current >= 0)
        account(&prof.phases[prof.current], 1, tl, s, gap);
    tl->last_end_ns = s->end_ns;
    struct bp_caller_row *c = &prof.callers[tl->caller];
    c->regions++;
    c->regions_ns += s->end_ns - s->start_ns;
    if (gap >= 0)
        c->gaps_ns += gap;
    c->obtain_ns += s->obtain_ns;
}

/* The rows of a table, the overflow row last if used; NULL when out of
 * memory. */
static struct bp_profile_row *rows_of(const struct table *t, size_t *n)
{
    struct bp_profile_row *rows = malloc((t->used + 1) * sizeof *rows);
    if (rows == NULL)
        return NULL;
    *n = 0;
    for (size_t i = 0; i < 2 * prof.slots; i++)
        if (t->buckets[i].fn != NULL)
            rows[(*n)++] = t->buckets[i];
    if (t->other.calls > 0)
        rows[(*n)++] = t->other;
    return rows;
}

static struct bp_profile_totals totals_of(const struct table *t)
{
    struct bp_profile_totals tot = t->tot;
    tot.span_ns = tot.regions_ns + tot.gaps_ns;
    return tot;
}

/* The report's part for table t (phase name, or NULL for the whole run,
 * which alone carries the threads' waits); 0, or -1 when out of memory. */
static int part_of(struct bp_report_part *p, const char *name, const struct table *t,
                   const struct bp_wait_stats *waits, int nwaits)
{
    p->name = name;
    p->tot = totals_of(t);
    p->callers = name == NULL ? prof.callers : NULL;
    p->ncallers = name == NULL ? prof.ncallers : 0;
    p->rows = rows_of(t, &p->nrows);
    p->max_threads = prof.max_threads;
    p->waits = waits;
    p->nwaits = nwaits;
    return p->rows != NULL ? 0 : -1;
}

/* Write the report of everything recorded: text to out, JSON to json_path
 * (when not NULL; complete: the process is ending). 0, or -ENOMEM. */
static int report(FILE *out, const char *json_path, int complete)
{
    struct bp_report_part parts[1 + BP_MAX_PHASES];
    int n = 0, err = 0;
    /* one entry per thread the pool started (the callers' first), not per
     * thread it could have: the cap is thousands */
    int nwaits = bp_waits_count();
    if (nwaits > prof.max_threads)
        nwaits = prof.max_threads;
    struct bp_wait_stats *waits = calloc((size_t)nwaits, sizeof *waits);
    if (waits == NULL) {
        bp_warn("profile: out of memory for the report");
        return -ENOMEM;
    }
    bp_waits_read(waits, nwaits);
    err |= part_of(&parts[n++], NULL, &prof.all, waits, nwaits);
    for (int i = 0; i < prof.nphases; i++)
        err |= part_of(&parts[n++], prof.names[i], &prof.phases[i], NULL, 0);
    struct bp_task_row *tasks = NULL;
    int ntasks = bp_taskprof_snapshot(&tasks);
    err |= ntasks < 0;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    struct bp_report_meta meta = {prof.run,     (long)getpid(),
                                  bp_mpi_rank(), host,
                                  complete,     prof.ended_by,
                                  prof.in_child && !prof.own_path, bp_config.profile_callers,
                                  bp_config.profile_steps, tasks,
                                  ntasks};
    if (!err)
        bp_report_write(out, json_path, &meta, parts, (size_t)n);
    free(tasks);
    for (int i = 0; i < n; i++)
        free(parts[i].rows);
    free(waits);
    if (err)
        bp_warn("profile: out of memory for the report");
    return err ? -ENOMEM : 0;
}

/* The report at the end (complete) or on the dump signal: nothing from a
 * process that ran no region but one line when the program itself used the
 * runtime. */
static void report_all(int complete)
{
    if (prof.all.tot.regions == 0) {
        if (complete && !prof.in_child)
            bp_warn("profile: no parallel region ran in process %ld; no table, no JSON "
                    "written", (long)getpid());
        return;
    }
    char path[4200];
    const char *json = bp_config.profile_out;
    prof.own_path = json != NULL && bp_profile_path(json, path, sizeof path) == 2;
    report(stderr, json != NULL ? path : NULL, complete);
}

void bp_profile_report(struct bp_listen_thread *lt, int workers_stopped)
{
    if (!bp_profiling || prof.all.buckets == NULL)
        return;
    if (bp_config.profile)
        report_all(1);
    /* A child of fork() that ran no region has nothing of its own to say. */
    if (bp_tracing && !(prof.in_child && prof.all.tot.regions == 0)) {
        char buf[4240], expanded[4200];
        const char *path = expanded;
        int own = bp_profile_path(bp_config.trace_out, expanded, sizeof expanded) == 2;
        if (prof.in_child && !own) {
            snprintf(buf, sizeof buf, "%s.%ld", path, (long)getpid());
            path = buf;
        }
        if (workers_stopped)
            bp_trace_write(path);
        else
            bp_warn("trace not written: exit() was called inside a region, whose threads "
                    "still record");
    }
    /* The rings stay while workers may still write them (the process exits). */
    if (bp_tracing && workers_stopped)
        bp_trace_free(lt);
    bp_live_close();
    clear();
}

void bp_profile_dump(_Atomic int *stop)
{
    bp_profile_lock();
    /* the tables are gone once the final report is written; a dump that
     * got the lock only as the process ends leaves it to the final one */
    if (bp_profiling && bp_config.profile && prof.all.buckets != NULL && !atomic_load(stop))
        report_all(0);
    bp_profile_unlock();
}

void bp_profile_end(int sig)
{
    bp_live_unlink(); /* first: the write below may not finish */
    bp_profile_lock();
    if (bp_profiling && bp_config.profile && prof.all.buckets != NULL) {
        prof.ended_by = sig;
        report_all(1);
    }
    bp_profile_unlock();
}

/* ---- the profile API of buddypool.h ------------------------------------- */

/* life.c calls these (through listen.c) outside any region of the calling
 * thread (the profile changes between a thread's regions, as its phases
 * do), the runtime started. The lock taken, or -ENOTSUP: profiling is off
 * (tracing alone runs the hooks, not the profile), or the pool has shut
 * down. */
static int api_enter(void)
{
    bp_profile_lock();
    if (!bp_profiling || !bp_config.profile || prof.all.buckets == NULL) {
        bp_profile_unlock();
        return -ENOTSUP;
    }
    return 0;
}

/* A phase name for the trace's marks, which outlive a reset of the phases:
 * kept for the process (the first BP_TRACE_NAMES names; later ones mark as
 * "phase"). With the profile's lock held. */
enum { BP_TRACE_NAMES = 256 };
static const char *trace_name(const char *name)
{
    static char names[BP_TRACE_NAMES][BP_PHASE_NAME];
    static int n;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return names[i];
    if (n == BP_TRACE_NAMES)
        return "phase";
    memcpy(names[n], name, strlen(name) + 1);
    return names[n++];
}

int bp_profile_phase(const char *name)
{
    int err = api_enter();
    if (err)
        return err;
    int i = 0;
    while (i < prof.nphases && strcmp(prof.names[i], name) != 0)
        i++;
    if (i == prof.nphases) {
        if (prof.nphases == BP_MAX_PHASES || table_alloc(&prof.phases[i]) != 0) {
            if (!prof.phase_warned)
                bp_warn("profile: no room for phase '%s' (at most %d phases); its regions "
                        "count in the whole run only", name, BP_MAX_PHASES);
            prof.phase_warned = 1;
            prof.current = -1;
            bp_profile_unlock();
            return -ENOSPC;
        }
        memcpy(prof.names[i], name, strlen(name) + 1);
        prof.nphases++;
    }
    prof.current = i;
    if (bp_tracing) {
        int64_t now = bp_now_ns();
        bp_trace_event(&bp_lt, BP_TRACE_PHASE, trace_name(name), now, now);
    }
    bp_profile_unlock();
    return 0;
}

int bp_profile_reset(void)
{
    int err = api_enter();
    if (err)
        return err;
    clear();
    bp_live_reset();
    bp_waits_clear();
    err = table_alloc(&prof.all) != 0 ? -ENOMEM : 0;
    bp_profile_unlock();
    return err;
}

int bp_profile_write(FILE *out)
{
    if (out == NULL)
        return -EINVAL;
    int err = api_enter();
    if (err)
        return err;
    err = report(out, NULL, 0);
    bp_profile_unlock();
    return err;
}
