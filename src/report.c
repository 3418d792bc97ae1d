/* report.c: the profile's two writers: the text table printed on stderr and
 * the JSON file of DESIGN.md, and the naming of region functions with dladdr
 * as symbol+0xoffset, or module+0xoffset (offset from the module's base) when
 * no exported symbol covers the address, as for a local outlined function. */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void bp_name_function(const void *fn, char **name, char **module, uintptr_t *offset)
{
    Dl_info info;
    char buf[64];
    *name = *module = NULL;
    *offset = 0;
    if (dladdr(fn, &info) == 0) {
        snprintf(buf, sizeof buf, "0x%" PRIxPTR "+0x0", (uintptr_t)fn);
        *name = strdup(buf);
        *module = strdup("");
        return;
    }
    const char *path = info.dli_fname ? info.dli_fname : "";
    *offset = (uintptr_t)fn - (uintptr_t)info.dli_fbase;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *sym = info.dli_sname;
    uintptr_t from = (uintptr_t)info.dli_saddr;
    if (sym == NULL || info.dli_saddr == NULL) {
        sym = base[0] ? base : "?"; /* a local function: module+offset */
        from = (uintptr_t)info.dli_fbase;
    }
    snprintf(buf, sizeof buf, "+0x%" PRIxPTR, (uintptr_t)fn - from);
    size_t len = strlen(sym) + strlen(buf) + 1;
    *name = malloc(len);
    if (*name != NULL)
        snprintf(*name, len, "%s%s", sym, buf); /* never cut: the offset stays */
    *module = strdup(path);
}

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

static int64_t wake_mean(const struct bp_profile_totals *t)
{
    return t->woken ? t->wake_sum_ns / (int64_t)t->woken : 0;
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
                t->woken, (double)wake_mean(t) / 1e3, (double)t->wake_max_ns / 1e3);
    fputc('\n', out);
    fprintf(out, "  %9s %11s %6s %11s %6s %11s %11s %11s %9s  %s\n", "calls", "wall_ms",
            "wall%", "gap_bef_ms", "gap%", "gap_aft_ms", "barwait_ms", "bw_t0_ms", "barriers",
            "function  module");
    for (size_t i = 0; i < n; i++) {
        const struct bp_profile_row *r = &rows[i];
        const char *name = r->name ? r->name : "?+0x0";
        const char *module = r->module ? r->module : "";
        const char *base = strrchr(module, '/');
        fprintf(out, "  %9" PRIu64 " %11.3f %5.1f%% %11.3f %5.1f%% %11.3f %11.3f %11.3f %9" PRIu64
                     "  %s  %s\n",
                r->calls, ms(r->wall_ns), share(r->wall_ns, t->span_ns), ms(r->gap_before_ns),
                share(r->gap_before_ns, t->span_ns), ms(r->gap_after_ns), ms(r->wait_ns),
                ms(r->wait_t0_ns), r->barriers, name, base ? base + 1 : module);
    }
}

/* The wall time below which a share q of the row's calls fall (the middle
 * of its bucket: within 6% of the true value); -1 without a distribution. */
static int64_t wall_quantile(const struct bp_profile_row *r, double q)
{
    if (r->wall_hist == NULL || r->calls == 0)
        return -1;
    uint64_t want = (uint64_t)((double)r->calls * q + 0.999999), seen = 0;
    if (want < 1)
        want = 1;
    for (int b = 0; b < BP_WALL_BUCKETS; b++) {
        seen += r->wall_hist[b];
        if (seen >= want)
            return bp_wall_bucket_mid(b);
    }
    return -1;
}

enum { BP_DETAIL_ROWS = 10 };

/* Thread k's figures in row r (zero where its teams were smaller). */
static struct bp_thread_stats stats_of(const struct bp_profile_row *r, int k)
{
    struct bp_thread_stats none = {0};
    return k < r->per_thread_n ? r->per_thread[k] : none;
}

/* The per-thread section of the whole run's table: its first rows (sorted
 * by wall time). */
static void write_detail(FILE *out, const struct bp_report_part *part)
{
    int threads = part->tot.threads < part->max_threads ? part->tot.threads : part->max_threads;
    size_t n = part->nrows < BP_DETAIL_ROWS ? part->nrows : BP_DETAIL_ROWS;
    if (n == 0)
        return;
    fprintf(out, "\n  per function: wall p50 / p99, and per thread: barrier waits (the join's\n"
                 "  included), regions in which it reached the join last, loop iterations\n");
    for (size_t i = 0; i < n; i++) {
        const struct bp_profile_row *r = &part->rows[i];
        fprintf(out, "  %s  wall p50 %.1f us  p99 %.1f us\n", r->name ? r->name : "?+0x0",
                (double)wall_quantile(r, 0.5) / 1e3, (double)wall_quantile(r, 0.99) / 1e3);
        if (r->per_thread == NULL || threads < 2)
            continue;
        fprintf(out, "      %-14s", "thread");
        for (int k = 0; k < threads; k++)
            fprintf(out, " %11d", k);
        fprintf(out, "\n      %-14s", "barwait_ms");
        for (int k = 0; k < threads; k++)
            fprintf(out, " %11.3f", ms(stats_of(r, k).wait_ns));
        fprintf(out, "\n      %-14s", "last_at_join");
        for (int k = 0; k < threads; k++)
            fprintf(out, " %11" PRIu64, stats_of(r, k).last_at_join);
        fprintf(out, "\n      %-14s", "iterations");
        for (int k = 0; k < threads; k++)
            fprintf(out, " %11" PRIu64, stats_of(r, k).iterations);
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
            "  gap_bef / gap_aft: time between regions that ends at / starts after a call of\n"
            "    the function; they show the same gaps from both sides: do not add them.\n"
            "    A gap is all wall time between two regions: serial work of the caller, or\n"
            "    time the process spent outside the model.\n"
            "  barwait: time all threads waited in the function's barriers, from arrival to\n"
            "    release; bw_t0: thread 0 alone; barriers: barrier episodes (explicit\n"
            "    barriers, reductions and the join that ends each region), all threads\n"
            "    arriving once counting one.\n\n");
}

/* Length of the valid UTF-8 sequence at s, or 0 if there is none. */
static int utf8_len(const unsigned char *s)
{
    if (s[0] > 0xf4)
        return 0;
    int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    /* no overlong forms, no surrogates, nothing past U+10FFFF (RFC 3629) */
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

/* A JSON string; bytes that are not UTF-8 (a path may hold any) become
 * U+FFFD, so the file always parses. */
void bp_json_string(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    fputc('"', f);
    while (*s) {
        if (*s == '"' || *s == '\\') {
            fprintf(f, "\\%c", *s++);
        } else if (*s < 0x20) {
            fprintf(f, "\\u%04x", *s++);
        } else if (*s < 0x80) {
            fputc(*s++, f);
        } else {
            int n = utf8_len(s);
            if (n == 0) {
                fputs("\\ufffd", f);
                s++;
            } else {
                fwrite(s, 1, (size_t)n, f);
                s += n;
            }
        }
    }
    fputc('"', f);
}

/* "totals": {...}, "functions": [...] of one table, as DESIGN.md gives
 * them; `indent` before each function. */
static void json_table(FILE *f, const struct bp_profile_totals *t,
                       const struct bp_profile_row *rows, size_t n, int max_threads,
                       const char *indent)
{
    int threads = t->threads < max_threads ? t->threads : max_threads;
    fprintf(f, "\"totals\": {\"span_ns\": %" PRId64 ", \"regions_ns\": %" PRId64
               ", \"gaps_ns\": %" PRId64 ", \"barrier_wait_ns\": %" PRId64
               ", \"regions\": %" PRIu64 ", \"barriers\": %" PRIu64 ", \"woken\": %" PRIu64
               ", \"wake_mean_ns\": %" PRId64 ", \"wake_max_ns\": %" PRId64 "},\n%s\"functions\": [",
            t->span_ns, t->regions_ns, t->gaps_ns, t->wait_ns, t->regions, t->barriers,
            t->woken, wake_mean(t), t->wake_max_ns, indent);
    for (size_t i = 0; i < n; i++) {
        const struct bp_profile_row *r = &rows[i];
        fprintf(f, "%s\n%s {\"name\": ", i ? "," : "", indent);
        bp_json_string(f, r->name ? r->name : "?+0x0");
        fprintf(f, ", \"module\": ");
        bp_json_string(f, r->module);
        fprintf(f, ", \"address\": \"0x%" PRIxPTR "\", \"calls\": %" PRIu64
                   ", \"wall_ns\": %" PRId64 ", \"gap_before_ns\": %" PRId64
                   ", \"gap_after_ns\": %" PRId64 ", \"barrier_wait_ns\": %" PRId64
                   ", \"barrier_wait_t0_ns\": %" PRId64 ", \"barriers\": %" PRIu64
                   ", \"module_offset\": \"0x%" PRIxPTR "\"",
                (uintptr_t)r->fn, r->calls, r->wall_ns, r->gap_before_ns, r->gap_after_ns,
                r->wait_ns, r->wait_t0_ns, r->barriers, r->module_offset);
        fprintf(f, ", \"wall_p50_ns\": %" PRId64 ", \"wall_p99_ns\": %" PRId64 ",\n%s  \"per_thread\": [",
                wall_quantile(r, 0.5), wall_quantile(r, 0.99), indent);
        for (int k = 0; r->per_thread != NULL && k < threads; k++)
            fprintf(f, "%s{\"barrier_wait_ns\": %" PRId64 ", \"last_at_join\": %" PRIu64
                       ", \"iterations\": %" PRIu64 "}",
                    k ? ", " : "", stats_of(r, k).wait_ns, stats_of(r, k).last_at_join,
                    stats_of(r, k).iterations);
        fprintf(f, "]}");
    }
    fprintf(f, "\n%s]", indent);
}

static int write_json(const char *path, const struct bp_report_part *parts, size_t nparts)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -errno;
    fprintf(f, "{\"threads\": %d,\n ", parts[0].tot.threads);
    json_table(f, &parts[0].tot, parts[0].rows, parts[0].nrows, parts[0].max_threads, " ");
    fprintf(f, ",\n \"waits\": [");
    for (int i = 0; parts[0].waits != NULL && i < parts[0].nwaits; i++)
        fprintf(f, "%s{\"spin_ns\": %" PRId64 ", \"sleep_ns\": %" PRId64 ", \"sleeps\": %" PRIu64
                   ", \"wakes\": %" PRIu64 "}",
                i ? ", " : "", (int64_t)parts[0].waits[i].spin_ns,
                (int64_t)parts[0].waits[i].sleep_ns, (uint64_t)parts[0].waits[i].sleeps,
                (uint64_t)parts[0].waits[i].wakes);
    fprintf(f, "]");
    fprintf(f, ",\n \"phases\": [");
    for (size_t p = 1; p < nparts; p++) {
        fprintf(f, "%s\n  {\"name\": ", p > 1 ? "," : "");
        bp_json_string(f, parts[p].name);
        fprintf(f, ", \"threads\": %d,\n   ", parts[p].tot.threads);
        json_table(f, &parts[p].tot, parts[p].rows, parts[p].nrows, parts[p].max_threads, "   ");
        fprintf(f, "}");
    }
    fprintf(f, "%s]}\n", nparts > 1 ? "\n " : "");
    int err = ferror(f) ? -EIO : 0;
    if (fclose(f) != 0 && err == 0)
        err = -errno;
    return err;
}

void bp_report_write(FILE *out, const char *json_path, struct bp_report_part *parts,
                     size_t nparts)
{
    for (size_t p = 0; p < nparts; p++)
        qsort(parts[p].rows, parts[p].nrows, sizeof *parts[p].rows, by_wall);
    fflush(stdout); /* the program's own output first, when both go to one file */
    for (size_t p = 0; p < nparts; p++) {
        write_table(out, parts[p].name, &parts[p].tot, parts[p].rows, parts[p].nrows,
                    parts[p].waits, parts[p].nwaits);
        if (p == 0)
            write_detail(out, &parts[0]);
    }
    write_legend(out, nparts > 1);
    if (json_path != NULL) {
        int err = write_json(json_path, parts, nparts);
        if (err != 0)
            bp_warn("could not write the JSON profile to '%s' "
                    "(BUDDY_THREAD_POOL_PROFILE_OUT): %s", json_path, strerror(-err));
    }
    fflush(out);
}
