/* report.c: the profile's two writers: the text table printed on stderr and
 * the JSON file of DESIGN.md. Region functions are named with dladdr as
 * symbol+0xoffset (the nearest exported symbol when the outlined function
 * itself is local), or module+0xoffset when no symbol covers the address. */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct name {
    char fn[256];
    const char *module; /* path, "" when unknown */
};

static void name_of(const void *fn, struct name *n)
{
    Dl_info info;
    n->module = "";
    if (fn == NULL) {
        snprintf(n->fn, sizeof n->fn, "other+0x0");
        return;
    }
    if (dladdr(fn, &info) == 0) {
        snprintf(n->fn, sizeof n->fn, "0x%" PRIxPTR "+0x0", (uintptr_t)fn);
        return;
    }
    n->module = info.dli_fname ? info.dli_fname : "";
    if (info.dli_sname != NULL && info.dli_saddr != NULL) {
        snprintf(n->fn, sizeof n->fn, "%s+0x%" PRIxPTR, info.dli_sname,
                 (uintptr_t)fn - (uintptr_t)info.dli_saddr);
    } else {
        const char *base = strrchr(n->module, '/');
        base = base ? base + 1 : n->module;
        snprintf(n->fn, sizeof n->fn, "%s+0x%" PRIxPTR, base[0] ? base : "?",
                 (uintptr_t)fn - (uintptr_t)info.dli_fbase);
    }
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

static void write_text(FILE *out, const struct bp_profile_totals *t,
                       const struct bp_profile_row *rows, size_t n)
{
    fprintf(out, "\nbuddypool profile: %d threads, %" PRIu64 " regions, %" PRIu64
                 " barriers, %zu region functions\n",
            t->threads, t->regions, t->barriers, n);
    fprintf(out, "  span           %12.3f ms\n", ms(t->span_ns));
    fprintf(out, "  in regions     %12.3f ms  %5.1f%% of span\n", ms(t->regions_ns),
            share(t->regions_ns, t->span_ns));
    fprintf(out, "  gaps           %12.3f ms  %5.1f%% of span\n", ms(t->gaps_ns),
            share(t->gaps_ns, t->span_ns));
    fprintf(out, "  barrier waits  %12.3f ms  (all threads)\n\n", ms(t->wait_ns));
    fprintf(out, "  %9s %11s %6s %11s %6s %11s %11s %11s %9s  %s\n", "calls", "wall_ms",
            "wall%", "gap_bef_ms", "gap%", "gap_aft_ms", "barwait_ms", "bw_t0_ms", "barriers",
            "function  module");
    for (size_t i = 0; i < n; i++) {
        const struct bp_profile_row *r = &rows[i];
        struct name nm;
        name_of(r->fn, &nm);
        const char *base = strrchr(nm.module, '/');
        fprintf(out, "  %9" PRIu64 " %11.3f %5.1f%% %11.3f %5.1f%% %11.3f %11.3f %11.3f %9" PRIu64
                     "  %s  %s\n",
                r->calls, ms(r->wall_ns), share(r->wall_ns, t->span_ns), ms(r->gap_before_ns),
                share(r->gap_before_ns, t->span_ns), ms(r->gap_after_ns), ms(r->wait_ns),
                ms(r->wait_t0_ns), r->barriers, nm.fn, base ? base + 1 : nm.module);
    }
    fprintf(out,
            "\n  calls: regions run; wall: fork to join on thread 0; wall%%, gap%%: share of the span.\n"
            "  gap_bef / gap_aft: time between regions that ends at / starts after a call of\n"
            "    the function; they show the same gaps from both sides: do not add them.\n"
            "    A gap is all wall time between two regions: serial work of the caller, or\n"
            "    time the process spent outside the model.\n"
            "  barwait: time all threads waited in the function's barriers, from arrival to\n"
            "    release; bw_t0: thread 0 alone; barriers: barrier episodes (explicit\n"
            "    barriers and reductions), all threads arriving once counting one.\n\n");
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static int write_json(const char *path, const struct bp_profile_totals *t,
                      const struct bp_profile_row *rows, size_t n)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -errno;
    fprintf(f, "{\"threads\": %d,\n \"totals\": {\"span_ns\": %" PRId64 ", \"regions_ns\": %" PRId64
               ", \"gaps_ns\": %" PRId64 ", \"barrier_wait_ns\": %" PRId64
               ", \"regions\": %" PRIu64 ", \"barriers\": %" PRIu64 "},\n \"functions\": [",
            t->threads, t->span_ns, t->regions_ns, t->gaps_ns, t->wait_ns, t->regions,
            t->barriers);
    for (size_t i = 0; i < n; i++) {
        const struct bp_profile_row *r = &rows[i];
        struct name nm;
        name_of(r->fn, &nm);
        fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
        json_string(f, nm.fn);
        fprintf(f, ", \"module\": ");
        json_string(f, nm.module);
        fprintf(f, ", \"address\": \"0x%" PRIxPTR "\", \"calls\": %" PRIu64
                   ", \"wall_ns\": %" PRId64 ", \"gap_before_ns\": %" PRId64
                   ", \"gap_after_ns\": %" PRId64 ", \"barrier_wait_ns\": %" PRId64
                   ", \"barrier_wait_t0_ns\": %" PRId64 ", \"barriers\": %" PRIu64 "}",
                (uintptr_t)r->fn, r->calls, r->wall_ns, r->gap_before_ns, r->gap_after_ns,
                r->wait_ns, r->wait_t0_ns, r->barriers);
    }
    fprintf(f, "\n ]}\n");
    int err = ferror(f) ? -EIO : 0;
    if (fclose(f) != 0 && err == 0)
        err = -errno;
    return err;
}

void bp_report_write(FILE *out, const char *json_path, const struct bp_profile_totals *tot,
                     struct bp_profile_row *rows, size_t nrows)
{
    qsort(rows, nrows, sizeof *rows, by_wall);
    write_text(out, tot, rows, nrows);
    if (json_path != NULL) {
        int err = write_json(json_path, tot, rows, nrows);
        if (err != 0)
            bp_warn("could not write the JSON profile to '%s' "
                    "(BUDDY_THREAD_POOL_PROFILE_OUT): %s", json_path, strerror(-err));
    }
    fflush(out);
}
