/* affinity.c: the affinity format (affinity-format-var, OMP_AFFINITY_FORMAT)
 * and its routines: omp_set/get_affinity_format, omp_display_affinity,
 * omp_capture_affinity, and libomp's ompc_* names of them (LLVM's omp.h
 * maps the omp_* names onto those).
 *
 * A format is text with fields: % then an optional size, then a field's
 * letter or its long name in braces; %% is a percent sign. The size is a
 * positive width, after "0." (numbers padded with zeros on the left) or
 * "." (padded with spaces on the left), else padded with spaces on the
 * right. The fields, of the calling thread:
 *   t team_num          omp_get_team_num()
 *   T num_teams         omp_get_num_teams()
 *   L nesting_level     omp_get_level()
 *   n thread_num        omp_get_thread_num()
 *   N num_threads       omp_get_num_threads()
 *   a ancestor_tnum     omp_get_ancestor_thread_num(level - 1)
 *   H host              the host's name
 *   P process_id        getpid()
 *   i native_thread_id  the kernel's thread id
 *   A thread_affinity   the CPUs the thread may run on, as "0-3,6"
 * An unknown field is copied as it stands, with one warning. The default
 * is libgomp's, "level %L thread %i affinity %A". omp_display_affinity
 * writes one line to stderr, as libgomp does; ompc_display_affinity, which
 * clang-built code calls, to stdout, as libomp does. */
#include <ctype.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../abi/abi.h"
#include "../internal.h"

enum { BP_AFFINITY_FORMAT_MAX = 512 };

static char format_var[BP_AFFINITY_FORMAT_MAX] = "level %L thread %i affinity %A";
static int format_set; /* by OMP_AFFINITY_FORMAT or omp_set_affinity_format */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
/* libomp's default, which clang's code gets (bp_affinity_clang) */
static const char libomp_format[] = "OMP: pid %P tid %i thread %n bound to OS proc set {%A}";
/* clang's code has forked a region: the display goes to stdout, as
 * libomp's, in libomp's default format and way of listing CPUs */
static _Atomic int clang_code;

static int is_clang(void)
{
    /* relaxed: a choice made once, early */
    return atomic_load_explicit(&clang_code, memory_order_relaxed);
}

/* affinity-format-var from OMP_AFFINITY_FORMAT, read before any use. */
static void load_env(void)
{
    const char *env = getenv("OMP_AFFINITY_FORMAT");
    if (env == NULL)
        return;
    if (strlen(env) < sizeof format_var) {
        snprintf(format_var, sizeof format_var, "%s", env);
        format_set = 1;
    } else
        bp_warn("OMP_AFFINITY_FORMAT is %zu bytes, more than %d; using the default",
                strlen(env), BP_AFFINITY_FORMAT_MAX - 1);
}

static const char *format_of(const char *given)
{
    if (given != NULL && given[0] != '\0')
        return given;
    pthread_once(&env_once, load_env);
    return format_set || !is_clang() ? format_var : libomp_format;
}

const char *bp_affinity_format_var(void) { return format_of(NULL); }

/* Output with a running length: what does not fit is counted, not kept. */
struct out {
    char *buf;
    size_t size, len;
};

static void put(struct out *o, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++, o->len++)
        if (o->len + 1 < o->size)
            o->buf[o->len] = s[k];
}

static void put_field(struct out *o, const char *s, int width, int pad, int numeric)
{
    size_t n = strlen(s);
    size_t fill = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
    char c = pad == '0' && numeric ? '0' : ' ';
    if (c == '0' && s[0] == '-') { /* zeros go after the sign, as printf's %07d */
        put(o, s++, 1);
        n--;
    }
    if (pad != 0)
        for (size_t k = 0; k < fill; k++)
            put(o, &c, 1);
    put(o, s, n);
    if (pad == 0)
        for (size_t k = 0; k < fill; k++)
            put(o, " ", 1);
}

/* The thread's CPUs as ranges: "0-3,6" (libgomp's "0-1" for two in a row;
 * libomp's, for clang's code, "0,1": a range from three). */
static void cpu_list(char *s, size_t size)
{
    int least = is_clang() ? 2 : 1; /* the span that makes a range */
    cpu_set_t set;
    s[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    size_t len = 0;
    for (int c = 0; c < CPU_SETSIZE && len + 24 < size; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
            e++;
        if (e - c < least)
            e = c; /* the next in a row is listed on its own */
        len += (size_t)snprintf(s + len, size - len, e > c ? "%s%d-%d" : "%s%d",
                                len ? "," : "", c, e);
        c = e;
    }
}

static const struct {
    char letter;
    const char *name;
} fields[] = {{'t', "team_num"},    {'T', "num_teams"},      {'L', "nesting_level"},
              {'n', "thread_num"},  {'N', "num_threads"},    {'a', "ancestor_tnum"},
              {'H', "host"},        {'P', "process_id"},     {'i', "native_thread_id"},
              {'A', "thread_affinity"}};

static void warn_field(const char *what)
{
    static _Atomic int warned;
    if (atomic_exchange(&warned, 1) == 0)
        bp_warn("affinity format: unknown field '%s'; it is printed as written (this is "
                "said once)", what);
}

static size_t capture(char *buf, size_t size, const char *format)
{
    struct bp_thread *t = bp_self();
    struct out o = {buf, size, 0};
    for (const char *p = format; *p != '\0';) {
        if (*p != '%') {
            put(&o, p++, 1);
            continue;
        }
        const char *start = p++;
        if (*p == '%') {
            put(&o, "%", 1);
            p++;
            continue;
        }
        int pad = 0, width = 0;
        if (p[0] == '0' && p[1] == '.') {
            pad = '0';
            p += 2;
        } else if (p[0] == '.') {
            pad = '.';
            p++;
        }
        for (; isdigit((unsigned char)*p); p++)
            if (width < 10000)
                width = width * 10 + (*p - '0');
        char letter = 0;
        if (*p == '{') {
            const char *end = strchr(p, '}');
            for (size_t k = 0; end != NULL && k < sizeof fields / sizeof fields[0]; k++)
                if ((size_t)(end - p - 1) == strlen(fields[k].name) &&
                    strncmp(p + 1, fields[k].name, strlen(fields[k].name)) == 0)
                    letter = fields[k].letter;
            p = end != NULL ? end + 1 : p + strlen(p);
        } else if (*p != '\0') {
            letter = *p++;
        }
        char v[1024];
        int numeric = 1;
        long long num = 0;
        switch (letter) {
        case 't': num = bp_icv(t)->team_num; break; /* omp_get_team_num */
        case 'T': num = bp_icv(t)->num_teams; break; /* omp_get_num_teams */
        case 'L': num = t->level; break;
        case 'n': num = t->tid; break;
        case 'N': num = t->team_size; break;
        case 'a': {
            int tid = -1, n = 0;
            num = t->level >= 1 && bp_ancestor(t, t->level - 1, &tid, &n) ? tid : -1;
            break;
        }
        case 'P': num = (long long)getpid(); break;
        case 'i': num = (long long)syscall(SYS_gettid); break;
        case 'H':
            numeric = 0;
            if (gethostname(v, sizeof v) != 0)
                snprintf(v, sizeof v, "?");
            v[sizeof v - 1] = '\0';
            break;
        case 'A': numeric = 0; cpu_list(v, sizeof v); break;
        default: {
            char what[64];
            snprintf(what, sizeof what, "%.*s", (int)(p - start), start);
            warn_field(what);
            put(&o, start, (size_t)(p - start));
            continue;
        }
        }
        if (numeric)
            snprintf(v, sizeof v, "%lld", num);
        put_field(&o, v, width, pad, numeric);
    }
    if (size > 0)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return o.len;
}

static void set_format(const char *format)
{
    if (format == NULL)
        return;
    (void)format_of(NULL); /* the environment's first, so it cannot overwrite this */
    if (strlen(format) >= sizeof format_var) {
        bp_warn("omp_set_affinity_format: a format of %zu bytes, more than %d; kept as it was",
                strlen(format), BP_AFFINITY_FORMAT_MAX - 1);
        return;
    }
    snprintf(format_var, sizeof format_var, "%s", format);
    format_set = 1;
}

static size_t get_format(char *buf, size_t size)
{
    const char *f = format_of(NULL);
    if (size > 0)
        snprintf(buf, size, "%s", f);
    return strlen(f);
}

static void display(const char *format, FILE *to)
{
    char line[2048];
    size_t n = capture(line, sizeof line, format_of(format));
    if (n >= sizeof line)
        n = sizeof line - 1;
    line[n] = '\n';
    fwrite(line, 1, n + 1, to);
}

/* OMP_DISPLAY_AFFINITY=true: a thread entering a region shows its line,
 * in affinity-format-var, the first time and when what the fields can
 * show has changed since (its level, number, team size, ancestor, team,
 * league or CPUs), as OpenMP asks: not when only the format has. On
 * stderr, as libgomp; on stdout once clang's code has forked a region,
 * as libomp. */
void bp_affinity_clang(void)
{
    if (!is_clang())
        atomic_store_explicit(&clang_code, 1, memory_order_relaxed); /* relaxed: is_clang */
}

struct shown {
    int level, tid, team_size, ancestor, team_num, num_teams;
    cpu_set_t cpus;
};

void bp_affinity_region(struct bp_thread *t)
{
    static _Thread_local struct shown last;
    static _Thread_local int shown_once;
    struct shown now;
    memset(&now, 0, sizeof now); /* compared whole */
    now.level = t->level;
    now.tid = t->tid;
    now.team_size = t->team_size;
    int tid = -1, size = 0;
    now.ancestor = t->level >= 1 && bp_ancestor(t, t->level - 1, &tid, &size) ? tid : -1;
    now.team_num = bp_icv(t)->team_num;
    now.num_teams = bp_icv(t)->num_teams;
    if (sched_getaffinity(0, sizeof now.cpus, &now.cpus) != 0)
        CPU_ZERO(&now.cpus);
    if (shown_once && memcmp(&now, &last, sizeof now) == 0)
        return;
    last = now;
    shown_once = 1;
    char line[BP_AFFINITY_FORMAT_MAX * 2];
    size_t n = capture(line, sizeof line, format_of(NULL));
    if (n >= sizeof line)
        n = sizeof line - 1;
    line[n] = '\n';
    FILE *to = is_clang() ? stdout : stderr;
    flockfile(to);
    fwrite(line, 1, n + 1, to);
    fflush(to);
    funlockfile(to);
}

BP_API void omp_set_affinity_format(const char *format) { set_format(format); }

BP_API size_t omp_get_affinity_format(char *buffer, size_t size)
{
    return get_format(buffer, size);
}

BP_API void omp_display_affinity(const char *format) { display(format, stderr); }

BP_API size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
    return capture(buffer, size, format_of(format));
}

/* libomp's names, which LLVM's omp.h maps the routines to: a program that
 * calls them is clang's, and gets libomp's default format, CPU lists and
 * stream (stdout) from its first call, before any region. */
BP_API void ompc_set_affinity_format(const char *format)
{
    bp_affinity_clang();
    set_format(format);
}

BP_API size_t ompc_get_affinity_format(char *buffer, size_t size)
{
    bp_affinity_clang();
    return get_format(buffer, size);
}

BP_API size_t ompc_capture_affinity(char *buffer, size_t size, const char *format)
{
    bp_affinity_clang();
    return capture(buffer, size, format_of(format));
}

BP_API void ompc_display_affinity(const char *format)
{
    bp_affinity_clang();
    display(format, stdout);
}
