/* report.c: the profile's text report, printed on stderr (the JSON file is
 * report_json.c's; names.c names the functions and call sites, figures.c
 * derives what both show from a row).
 *
 * The table has one row per region function, as docs/profiling.md defines it, and
 * under each row its call sites (the most expensive first). After it come
 * the per-thread figures of the first rows and the barrier steps with the
 * most waiting. The column names are the figures' names; units are in the
 * header line. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static int by_wall(const void *a, const void *b)
{
    const struct bp_profile_row *x = a, *y = b;
    if (x->wall_ns != y->wall_ns)
        return x->wall_ns > y->wall_ns ? -1 : 1;
    return x->calls > y->calls ? -1 : x->calls < y->calls;
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

static double share(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The waits of all threads, summed. */
static struct bp_wait_stats wait_total(const struct bp_wait_stats *w, int n)
{
    struct bp_wait_stats sum = {0};
    for (int i = 0; w != NULL && i < n; i++) {
        sum.spin_ns += w[i].spin_ns;
        sum.sleep_ns += w[i].sleep_ns;
        sum.sleeps += w[i].sleeps;
        sum.wakes += w[i].wakes;
    }
    return sum;
}

enum { BP_SITES_SHOWN = 5 };

/* A site as one name: its source location when clang gave one, else its
 * frames, innermost first. */
static void site_name(FILE *out, const struct bp_site *s)
{
    if (s->other) {
        fprintf(out, "other call sites");
        return;
    }
    if (s->nframes == 0 || s->frames == NULL) {
        fprintf(out, "(no call site recorded)");
        return;
    }
    if (s->file != NULL)
        fprintf(out, "%s:%d %s  ", s->file, s->line, s->function ? s->function : "");
    for (int k = 0; k < s->nframes; k++)
        fprintf(out, "%s%s", k ? " < " : "", s->frames[k].name ? s->frames[k].name : "?");
    fprintf(out, "  %s", bp_base_name(s->frames[0].module));
}

/* The row's call sites, under it in the table's columns. */
static void write_sites(FILE *out, const struct bp_profile_row *r)
{
    size_t n;
    struct bp_site *sites = bp_sites_sorted(&r->sites, &n);
    if (sites == NULL)
        return;
    for (size_t i = 0; i < n && i < BP_SITES_SHOWN; i++) {
        const struct bp_site *s = &sites[i];
        fprintf(out, "  %9" PRIu64 " %11.3f %6s %11.3f %6s %11s %12.3f %15s %9s    <- ",
                s->calls, ms(s->wall_ns), "", ms(s->gap_before_ns), "", "", ms(s->wait_ns), "",
                "");
        site_name(out, s);
        fputc('\n', out);
    }
    if (n > BP_SITES_SHOWN)
        fprintf(out, "  %9s %11s %6s %11s %6s %11s %12s %15s %9s    <- ... %zu more call sites\n",
                "", "", "", "", "", "", "", "", "", n - BP_SITES_SHOWN);
    free(sites);
}

/* Each forking thread's timeline, when more than one thread forked. */
static void write_callers(FILE *out, const struct bp_report_part *p)
{
    const struct bp_caller_row *c = p->callers;
    int rest = c != NULL && c[BP_MAX_CALLER_ROWS].regions > 0;
    if (c == NULL || p->ncallers + rest < 2)
        return;
    fprintf(out, "\n  per forking thread (each thread's span = its regions + its gaps):\n");
    fprintf(out, "  %12s %9s %11s %11s %11s %17s\n", "thread", "regions", "span", "in regions",
            "gaps", "obtaining workers");
    for (int i = 0; i <= BP_MAX_CALLER_ROWS; i++) {
        if (i >= p->ncallers && (i < BP_MAX_CALLER_ROWS || !rest))
            continue;
        char name[24];
        if (c[i].tid >= 0)
            snprintf(name, sizeof name, "tid %ld", c[i].tid);
        else
            snprintf(name, sizeof name, "the rest");
        fprintf(out, "  %12s %9" PRIu64 " %11.3f %11.3f %11.3f %17.3f\n", name, c[i].regions,
                ms(c[i].regions_ns + c[i].gaps_ns), ms(c[i].regions_ns), ms(c[i].gaps_ns),
                ms(c[i].obtain_ns));
    }
}

/* The explicit tasks, per task function, when any ran. */
enum { BP_TASKS_SHOWN = 20 };
static void write_tasks(FILE *out, const struct bp_report_meta *meta)
{
    if (meta->ntasks <= 0)
        return;
    fprintf(out, "\n  tasks, per task function (time: the tasks' own code, in ms):\n");
    fprintf(out, "  %12s %11s %11s    %s\n", "tasks", "time", "mean_us", "function");
    for (int i = 0; i < meta->ntasks && i < BP_TASKS_SHOWN; i++) {
        const struct bp_task_row *r = &meta->tasks[i];
        char *name = NULL, *module = NULL;
        uintptr_t offset = 0;
        if (r->fn != NULL)
            bp_name_function(r->fn, &name, &module, &offset);
        const char *base = module != NULL ? strrchr(module, '/') : NULL;
        fprintf(out, "  %12" PRIu64 " %11.3f %11.3f    %s%s%s\n", r->calls, ms(r->ns),
                r->calls ? (double)r->ns / 1e3 / (double)r->calls : 0.0,
                r->fn == NULL ? "(other task functions)" : name != NULL ? name : "?",
                module != NULL ? "  " : "", module != NULL ? (base ? base + 1 : module) : "");
        free(name);
        free(module);
    }
    if (meta->ntasks > BP_TASKS_SHOWN)
        fprintf(out, "  ... %d more task functions (the JSON profile has them all)\n",
                meta->ntasks - BP_TASKS_SHOWN);
}

/* One table: the whole run (phase NULL, with the waits) or one phase. */
static void write_table(FILE *out, const char *phase, const struct bp_profile_totals *t,
                        const struct bp_profile_row *rows, size_t n,
                        const struct bp_wait_stats *waits, int nwaits)
{
    if (phase == NULL)
        fprintf(out, "\nbuddypool profile: %d threads, %" PRIu64 " regions, %" PRIu64
                     " barriers, %zu rows\n",
                t->threads, t->regions, t->barriers, n);
    else
        fprintf(out, "\nbuddypool profile, phase '%s': %d threads, %" PRIu64 " regions, %" PRIu64
                     " barriers, %zu rows\n",
                phase, t->threads, t->regions, t->barriers, n);
    fprintf(out, "  span           %12.3f ms\n", ms(t->span_ns));
    fprintf(out, "  in regions     %12.3f ms  %5.1f%% of span\n", ms(t->regions_ns),
            share(t->regions_ns, t->span_ns));
    fprintf(out, "  gaps           %12.3f ms  %5.1f%% of span\n", ms(t->gaps_ns),
            share(t->gaps_ns, t->span_ns));
    fprintf(out, "  barrier waits  %12.3f ms  (all threads)\n", ms(t->wait_ns));
    if (waits != NULL) {
        struct bp_wait_stats w = wait_total(waits, nwaits);
        fprintf(out, "  waiting        %12.3f ms spinning, %.3f ms asleep, %" PRIu64
                     " sleeps, %" PRIu64 " wakes (all threads)\n",
                ms(w.spin_ns), ms(w.sleep_ns), (uint64_t)w.sleeps, (uint64_t)w.wakes);
    }
    if (t->woken > 0)
        fprintf(out, "  woken to start %12" PRIu64 " times: fork to start mean %.1f us, max %.1f us\n",
                t->woken, (double)bp_wake_mean(t) / 1e3, (double)t->wake_max_ns / 1e3);
    if (t->obtain_ns > 0)
        fprintf(out, "  obtaining workers %9.3f ms  (forks that made or grew their team)\n",
                ms(t->obtain_ns));
    fprintf(out, "\n  times in ms; wall%% and gap%% (gap_before) are shares of the span; "
                 "under each function its call sites\n");
    fprintf(out, "  %9s %11s %6s %11s %6s %11s %12s %15s %9s  %s\n", "calls", "wall", "wall%",
            "gap_before", "gap%", "gap_after", "barrier_wait", "barrier_wait_t0", "barriers",
            "function  module");
    for (size_t i = 0; i < n; i++) {
        const struct bp_profile_row *r = &rows[i];
        const char *name = r->name ? r->name : "?+0x0";
        fprintf(out, "  %9" PRIu64 " %11.3f %5.1f%% %11.3f %5.1f%% %11.3f %12.3f %15.3f %9" PRIu64
                     "  %s  %s\n",
                r->calls, ms(r->wall_ns), share(r->wall_ns, t->span_ns), ms(r->gap_before_ns),
                share(r->gap_before_ns, t->span_ns), ms(r->gap_after_ns), ms(r->wait_ns),
                ms(r->wait_t0_ns), r->barriers, name, bp_base_name(r->module));
        write_sites(out, r);
    }
}

enum { BP_DETAIL_ROWS = 10 };

/* The per-thread section of the whole run's table: its first rows (sorted
 * by wall time). */
static void write_detail(FILE *out, const struct bp_report_part *part)
{
    int threads = part->tot.threads < part->max_threads ? part->tot.threads : part->max_threads;
    size_t n = part->nrows < BP_DETAIL_ROWS ? part->nrows : BP_DETAIL_ROWS;
    if (n == 0)
        return;
    fprintf(out, "\n  per function: wall p50 / p99, and per thread: barrier_wait in ms (the join's\n"
                 "  included), last_at_join: regions in which it reached the join last,\n"
                 "  iterations: loop iterations it ran ('-': its loops were not counted, as a gcc\n"
                 "  static loop divides its iterations itself)\n");
    for (size_t i = 0; i < n; i++) {
        const struct bp_profile_row *r = &part->rows[i];
        fprintf(out, "  %s  wall p50 %.1f us  p99 %.1f us\n", r->name ? r->name : "?+0x0",
                (double)bp_wall_quantile(r, 0.5) / 1e3, (double)bp_wall_quantile(r, 0.99) / 1e3);
        if (r->per_thread == NULL || threads < 2)
            continue;
        fprintf(out, "      %-14s", "thread");
        for (int k = 0; k < threads; k++)
            fprintf(out, " %11d", k);
        fprintf(out, "\n      %-14s", "barrier_wait");
        for (int k = 0; k < threads; k++)
            fprintf(out, " %11.3f", ms(bp_thread_stats_of(r, k).wait_ns));
        fprintf(out, "\n      %-14s", "last_at_join");
        for (int k = 0; k < threads; k++)
            fprintf(out, " %11" PRIu64, bp_thread_stats_of(r, k).last_at_join);
        fprintf(out, "\n      %-14s", "iterations");
        for (int k = 0; k < threads; k++) {
            struct bp_thread_stats st = bp_thread_stats_of(r, k);
            if (st.iterations_counted)
                fprintf(out, " %11" PRIu64, st.iterations);
            else
                fprintf(out, " %11s", "-"); /* no loop counted them: not measured */
        }
        fprintf(out, "\n");
    }
}

static void write_legend(FILE *out, int phases)
{
    if (phases)
        fprintf(out, "\n  phase: the regions run after buddypool_profile_phase(name) and before\n"
                     "    the next phase began, and the gaps before them; span = regions + gaps.");
    fprintf(out,
            "\n  calls: regions run; wall: fork to join on thread 0; wall%%, gap%%: share of the span.\n"
            "  gap_before / gap_after: time between regions that ends at / starts after a call\n"
            "    of the function; they show the same gaps from both sides: do not add them.\n"
            "    A gap is all wall time between two regions: serial work of the caller, or\n"
            "    time the process spent outside the model.\n"
            "  barrier_wait: time all threads waited in the function's barriers, from arrival\n"
            "    to release; barrier_wait_t0: thread 0 alone; barriers: barrier episodes\n"
            "    (explicit barriers, reductions and the join that ends each region), all\n"
            "    threads arriving once counting one.\n"
            "  <- a call site: where the function's regions were forked from (the fork call's\n"
            "    return address, or BUDDY_THREAD_POOL_PROFILE_CALLERS frames, innermost first;\n"
            "    file:line when clang's -g names it), with its calls, wall, gap_before and\n"
            "    barrier_wait.\n"
            "  step k: the k-th barrier episode of a region (the join is the last); work: from\n"
            "    the end of the step before to the last thread's arrival.\n"
            "  tasks: explicit tasks run, per task function; their time is their own code's,\n"
            "    without the tasks a thread ran inside them (at a taskwait, say).\n\n");
}

enum { BP_STEPS_SHOWN = 10 };

struct step_ref {
    const struct bp_profile_row *row;
    uint32_t index;
};

static int by_step_wait(const void *a, const void *b)
{
    const struct step_ref *x = a, *y = b;
    int64_t wx = x->row->steps.s[x->index].wait_ns, wy = y->row->steps.s[y->index].wait_ns;
    if (wx != wy)
        return wx > wy ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The thread that arrived last at a step most often, and how often. */
static int most_last(const struct bp_step *s, uint64_t *times)
{
    int who = -1;
    *times = 0;
    for (int i = 0; s->last != NULL && i < s->last_n; i++)
        if (s->last[i] > *times) {
            *times = s->last[i];
            who = i;
        }
    return who;
}

/* The steps of all rows with the most waiting. */
static void write_steps(FILE *out, const struct bp_report_part *part, int bound)
{
    size_t total = 0, n = 0;
    for (size_t i = 0; i < part->nrows; i++)
        total += part->rows[i].steps.n;
    struct step_ref *refs = malloc(sizeof *refs * (total ? total : 1));
    if (refs == NULL)
        return;
    for (size_t i = 0; i < part->nrows; i++)
        for (uint32_t k = 0; k < part->rows[i].steps.n; k++)
            if (part->rows[i].steps.s[k].calls > 0)
                refs[n++] = (struct step_ref){&part->rows[i], k};
    qsort(refs, n, sizeof *refs, by_step_wait);
    if (n > 0 && refs[0].row->steps.s[refs[0].index].wait_ns > 0) {
        fprintf(out, "\n  barrier steps with the most waiting (of %zu; times in ms)\n", n);
        fprintf(out, "  %9s %12s %11s %8s  %-22s %s\n", "calls", "barrier_wait", "work", "step",
                "last_arrival", "function");
    }
    for (size_t i = 0; i < n && i < BP_STEPS_SHOWN; i++) {
        const struct bp_step *s = &refs[i].row->steps.s[refs[i].index];
        if (s->wait_ns == 0)
            break;
        char step[24], last[48];
        if ((int)refs[i].index >= bound)
            snprintf(step, sizeof step, ">=%u", (unsigned)bound);
        else
            snprintf(step, sizeof step, "%u", (unsigned)refs[i].index);
        uint64_t times;
        int who = most_last(s, &times);
        if (who >= 0)
            snprintf(last, sizeof last, "thread %d, %" PRIu64 " of %" PRIu64, who, times,
                     s->calls);
        else
            snprintf(last, sizeof last, "-");
        fprintf(out, "  %9" PRIu64 " %12.3f %11.3f %8s  %-22s %s\n", s->calls, ms(s->wait_ns),
                ms(s->work_ns), step, last, refs[i].row->name ? refs[i].row->name : "?+0x0");
    }
    free(refs);
}

void bp_report_write(FILE *out, const char *json_path, const struct bp_report_meta *meta,
                     struct bp_report_part *parts, size_t nparts)
{
    for (size_t p = 0; p < nparts; p++)
        qsort(parts[p].rows, parts[p].nrows, sizeof *parts[p].rows, by_wall);
    fflush(stdout); /* the program's own output first, when both go to one file */
    if (meta->signal != 0)
        fprintf(out, "buddypool: process %ld is ending by %s; its profile:\n", meta->pid,
                bp_signal_name(meta->signal));
    for (size_t p = 0; p < nparts; p++) {
        write_table(out, parts[p].name, &parts[p].tot, parts[p].rows, parts[p].nrows,
                    parts[p].waits, parts[p].nwaits);
        if (p == 0) {
            write_callers(out, &parts[0]);
            write_detail(out, &parts[0]);
            write_steps(out, &parts[0], meta->step_bound);
            write_tasks(out, meta);
        }
    }
    write_legend(out, nparts > 1);
    if (json_path != NULL) {
        char written[4200];
        int err = bp_report_json(json_path, meta, parts, nparts, written, sizeof written);
        if (err != 0)
            bp_warn("could not write the JSON profile to '%s' "
                    "(BUDDY_THREAD_POOL_PROFILE_OUT): %s", json_path, strerror(-err));
        else if (strcmp(written, json_path) != 0)
            fprintf(out, "  JSON profile written to %s (%s)\n", written,
                    meta->in_child ? "a child of fork()"
                                   : "the run's first process wrote the given path");
        else
            fprintf(out, "  JSON profile written to %s\n", written);
    }
    fflush(out);
}
