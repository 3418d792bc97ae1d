/* report_json.c: the JSON profile (docs/profile-format.md) and the choice
 * of its file.
 *
 * Which file. Several processes of one run may profile (a script that runs
 * two programs, a server's workers), and a wrapper process that ran no
 * region writes nothing at all (profile.c). The run is named by the first
 * profiled process and inherited through the environment; the file starts
 * with it and the writer's pid. A process writes PATH unless PATH holds
 * another process's profile of the same run, in which case it writes
 * PATH.<pid>; a child of fork() always writes PATH.<pid> (its parent, which
 * writes later, owns PATH). A file of an earlier run is replaced. The check
 * and the write are one step under an flock of the directory, and the file
 * is written under a temporary name and renamed, so two processes ending
 * together neither both take PATH nor leave a half-written file. A PATH
 * that is not a regular file (a link, /dev/stdout, a pipe) is never read
 * and is written as it is. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"

static void json_frame(FILE *f, const struct bp_site_frame *fr)
{
    fprintf(f, "{\"address\": \"0x%" PRIxPTR "\", \"name\": ", (uintptr_t)fr->address);
    bp_json_string(f, fr->name ? fr->name : "?+0x0");
    fprintf(f, ", \"module\": ");
    bp_json_string(f, fr->module);
    fprintf(f, ", \"module_offset\": \"0x%" PRIxPTR "\"}", fr->module_offset);
}

static void json_sites(FILE *f, const struct bp_profile_row *r, const char *indent)
{
    size_t n;
    struct bp_site *sites = bp_sites_sorted(&r->sites, &n);
    fprintf(f, ",\n%s  \"call_sites\": [", indent);
    for (size_t i = 0; sites != NULL && i < n; i++) {
        const struct bp_site *s = &sites[i];
        fprintf(f, "%s\n%s   {\"frames\": [", i ? "," : "", indent);
        for (int k = 0; !s->other && s->frames != NULL && k < s->nframes; k++) {
            fprintf(f, "%s", k ? ", " : "");
            json_frame(f, &s->frames[k]);
        }
        fprintf(f, "], \"location\": ");
        if (s->file != NULL) {
            fprintf(f, "{\"file\": ");
            bp_json_string(f, s->file);
            fprintf(f, ", \"function\": ");
            bp_json_string(f, s->function);
            fprintf(f, ", \"line\": %d, \"column\": %d}", s->line, s->column);
        } else {
            fprintf(f, "null");
        }
        fprintf(f, ", \"other\": %s, \"calls\": %" PRIu64 ", \"wall_ns\": %" PRId64
                   ", \"gap_before_ns\": %" PRId64 ", \"barrier_wait_ns\": %" PRId64 "}",
                s->other ? "true" : "false", s->calls, s->wall_ns, s->gap_before_ns,
                s->wait_ns);
    }
    fprintf(f, "]");
    free(sites);
}

static void json_steps(FILE *f, const struct bp_profile_row *r, int threads, int bound,
                       const char *indent)
{
    fprintf(f, ",\n%s  \"steps\": [", indent);
    int first = 1;
    for (uint32_t k = 0; k < r->steps.n; k++) {
        const struct bp_step *s = &r->steps.s[k];
        if (s->calls == 0)
            continue;
        fprintf(f, "%s\n%s   {\"index\": %" PRIu32 ", \"rest\": %s, \"calls\": %" PRIu64
                   ", \"barrier_wait_ns\": %" PRId64 ", \"work_ns\": %" PRId64
                   ", \"last_arrival\": ",
                first ? "" : ",", indent, k, (int)k >= bound ? "true" : "false", s->calls,
                s->wait_ns, s->work_ns);
        first = 0;
        if (s->last == NULL) {
            fprintf(f, "null}");
            continue;
        }
        fputc('[', f);
        for (int i = 0; i < threads; i++)
            fprintf(f, "%s%" PRIu64, i ? ", " : "", i < s->last_n ? s->last[i] : 0);
        fprintf(f, "]}");
    }
    fprintf(f, "]");
}

/* "totals": {...}, "functions": [...] of one table; `indent` before each
 * function. */
static void json_table(FILE *f, const struct bp_report_part *p, int bound, const char *indent)
{
    const struct bp_profile_totals *t = &p->tot;
    int threads = t->threads < p->max_threads ? t->threads : p->max_threads;
    fprintf(f, "\"totals\": {\"span_ns\": %" PRId64 ", \"regions_ns\": %" PRId64
               ", \"gaps_ns\": %" PRId64 ", \"barrier_wait_ns\": %" PRId64
               ", \"regions\": %" PRIu64 ", \"barriers\": %" PRIu64 ", \"woken\": %" PRIu64
               ", \"wake_mean_ns\": %" PRId64 ", \"wake_max_ns\": %" PRId64
               ", \"obtain_ns\": %" PRId64 "},\n%s\"functions\": [",
            t->span_ns, t->regions_ns, t->gaps_ns, t->wait_ns, t->regions, t->barriers,
            t->woken, bp_wake_mean(t), t->wake_max_ns, t->obtain_ns, indent);
    for (size_t i = 0; i < p->nrows; i++) {
        const struct bp_profile_row *r = &p->rows[i];
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
                bp_wall_quantile(r, 0.5), bp_wall_quantile(r, 0.99), indent);
        for (int k = 0; r->per_thread != NULL && k < threads; k++) {
            struct bp_thread_stats st = bp_thread_stats_of(r, k);
            fprintf(f, "%s{\"barrier_wait_ns\": %" PRId64 ", \"last_at_join\": %" PRIu64
                       ", \"iterations\": ",
                    k ? ", " : "", st.wait_ns, st.last_at_join);
            if (st.iterations_counted)
                fprintf(f, "%" PRIu64 "}", st.iterations);
            else
                fprintf(f, "null}");
        }
        fprintf(f, "]");
        json_sites(f, r, indent);
        json_steps(f, r, threads, bound, indent);
        fprintf(f, "}");
    }
    fprintf(f, "\n%s]", indent);
}

const char *bp_signal_name(int sig)
{
    switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    default: return "a signal";
    }
}

static int write_file(FILE *f, const struct bp_report_meta *meta,
                      const struct bp_report_part *parts, size_t nparts)
{
    /* the run and the pid first: other processes read them back (below) */
    fprintf(f, "{\"run\": ");
    bp_json_string(f, meta->run);
    fprintf(f, ", \"pid\": %ld,\n ", meta->pid);
    if (meta->rank >= 0)
        fprintf(f, "\"rank\": %ld, ", meta->rank);
    if (meta->host != NULL && meta->host[0] != '\0') {
        fprintf(f, "\"host\": ");
        bp_json_string(f, meta->host);
        fprintf(f, ", ");
    }
    fprintf(f, "\"complete\": %s, ", meta->complete ? "true" : "false");
    if (meta->signal != 0)
        fprintf(f, "\"ended_by\": \"%s\", ", bp_signal_name(meta->signal));
    fprintf(f, "\"callers\": %d, \"step_bound\": %d, \"threads\": %d,\n ", meta->callers,
            meta->step_bound, parts[0].tot.threads);
    json_table(f, &parts[0], meta->step_bound, " ");
    fprintf(f, ",\n \"waits\": [");
    for (int i = 0; parts[0].waits != NULL && i < parts[0].nwaits; i++)
        fprintf(f, "%s{\"spin_ns\": %" PRId64 ", \"sleep_ns\": %" PRId64 ", \"sleeps\": %" PRIu64
                   ", \"wakes\": %" PRIu64 "}",
                i ? ", " : "", (int64_t)parts[0].waits[i].spin_ns,
                (int64_t)parts[0].waits[i].sleep_ns, (uint64_t)parts[0].waits[i].sleeps,
                (uint64_t)parts[0].waits[i].wakes);
    fprintf(f, "]");
    fprintf(f, ",\n \"forking_threads\": [");
    const struct bp_caller_row *c = parts[0].callers;
    int first = 1;
    for (int i = 0; c != NULL && i <= BP_MAX_CALLER_ROWS; i++) {
        if (i >= parts[0].ncallers && (i < BP_MAX_CALLER_ROWS || c[i].regions == 0))
            continue;
        fprintf(f, "%s\n  {\"tid\": %ld, \"regions\": %" PRIu64 ", \"span_ns\": %" PRId64
                   ", \"regions_ns\": %" PRId64 ", \"gaps_ns\": %" PRId64
                   ", \"obtain_ns\": %" PRId64 "}",
                first ? "" : ",", c[i].tid, c[i].regions, c[i].regions_ns + c[i].gaps_ns,
                c[i].regions_ns, c[i].gaps_ns, c[i].obtain_ns);
        first = 0;
    }
    fprintf(f, "]");
    fprintf(f, ",\n \"tasks\": [");
    for (int i = 0; i < meta->ntasks; i++) {
        const struct bp_task_row *r = &meta->tasks[i];
        char *name = NULL, *module = NULL;
        uintptr_t offset = 0;
        if (r->fn != NULL)
            bp_name_function(r->fn, &name, &module, &offset);
        fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
        if (r->fn == NULL)
            fprintf(f, "null");
        else
            bp_json_string(f, name ? name : "?+0x0");
        fprintf(f, ", \"module\": ");
        bp_json_string(f, module);
        fprintf(f, ", \"address\": \"0x%" PRIxPTR "\", \"module_offset\": \"0x%" PRIxPTR
                   "\", \"tasks\": %" PRIu64 ", \"time_ns\": %" PRId64 "}",
                (uintptr_t)r->fn, offset, r->calls, r->ns);
        free(name);
        free(module);
    }
    fprintf(f, "]");
    fprintf(f, ",\n \"phases\": [");
    for (size_t p = 1; p < nparts; p++) {
        fprintf(f, "%s\n  {\"name\": ", p > 1 ? "," : "");
        bp_json_string(f, parts[p].name);
        fprintf(f, ", \"threads\": %d,\n   ", parts[p].tot.threads);
        json_table(f, &parts[p], meta->step_bound, "   ");
        fprintf(f, "}");
    }
    fprintf(f, "%s]}\n", nparts > 1 ? "\n " : "");
    return ferror(f) ? -EIO : 0;
}

/* Another process of this run wrote path, a regular file: its first line
 * names the run and the pid. */
static int taken_by_other(const char *path, const struct bp_report_meta *meta)
{
    char head[256], want[160];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    head[n > 0 ? n : 0] = '\0';
    snprintf(want, sizeof want, "{\"run\": \"%s\", \"pid\": ", meta->run);
    size_t w = strlen(want);
    if (strncmp(head, want, w) != 0)
        return 0; /* an earlier run's, or not ours at all */
    return atol(head + w) != meta->pid;
}

/* The directory of path, open for flock; -1 if it cannot be opened. */
static int lock_dir(const char *path)
{
    char dir[4200];
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0)
        flock(fd, LOCK_EX);
    return fd;
}

int bp_report_json(const char *path, const struct bp_report_meta *meta,
                   const struct bp_report_part *parts, size_t nparts, char *written,
                   size_t size)
{
    /* anything but a regular file (or none yet), such as /dev/stdout or a
     * pipe, is written to as it is, and never read */
    struct stat st;
    int whole = lstat(path, &st) != 0 || S_ISREG(st.st_mode);
    int dir = whole ? lock_dir(path) : -1;
    if (whole && (meta->in_child || taken_by_other(path, meta)))
        snprintf(written, size, "%s.%ld", path, meta->pid);
    else
        snprintf(written, size, "%s", path);
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", written, meta->pid);
    if (!whole)
        snprintf(tmp, sizeof tmp, "%s", written);
    int err = 0;
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        err = -errno;
    } else {
        err = write_file(f, meta, parts, nparts);
        if (fclose(f) != 0 && err == 0)
            err = -errno;
        if (whole && err == 0 && rename(tmp, written) != 0)
            err = -errno;
        if (whole && err != 0)
            unlink(tmp);
    }
    if (dir >= 0)
        close(dir); /* and its lock */
    return err;
}
