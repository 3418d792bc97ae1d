/* env.c: every environment variable buddypool reads is parsed here, once,
 * into bp_config: the initial task's ICVs and the library's settings. A bad
 * value gets one warning naming the variable, the value and what is used
 * instead; the program goes on. Beside them, the ICVs of the whole program
 * that calls may change (nteams-var, teams-thread-limit-var), as libgomp
 * keeps its global ICVs in its env.c. A leaf below everything but the log. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "../internal.h"

#define BP_DEFAULT_STACK ((size_t)256 << 20)    /* 256 MiB, reserved not committed */
#define BP_DEFAULT_SPIN_NS ((int64_t)2000000)   /* 2 ms */

struct bp_config bp_config = {
    .stack_bytes = BP_DEFAULT_STACK,
    .spin_ns = BP_DEFAULT_SPIN_NS,
    .pin = 1,
    .profile_slots = 4096,
    .profile_callers = 1,
    .profile_steps = 1024,
    .trace_events = 65536,
    .icv = {.run_sched = BP_OMP_STATIC, .max_active_levels = 1, .num_teams = 1,
            .default_allocator = 1},
    .target_offload = BP_OFFLOAD_DEFAULT,
    .task_throttle = 1,
};

/* Parse a whole decimal integer in [lo, hi], spaces around allowed. */
static int parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno != 0)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static void load_threads(const char *name, int *out, const char *instead)
{
    const char *s = getenv(name);
    long long v;
    if (s == NULL)
        return;
    if (parse_int(s, 1, INT_MAX, &v) == 0)
        *out = (int)v;
    else
        bp_warn("%s='%s' is not a positive integer; %s", name, s, instead);
}

/* A comma-separated list (OMP_NUM_THREADS, OMP_PROC_BIND: one entry per
 * nesting level), each entry read, spaces around it left out, by
 * entry(text, length, &value); the first BP_NTHREADS_LEVELS values are
 * kept in list. 0, or -1 at the first entry that is not one. */
static int load_list(const char *s, int (*entry)(const char *, size_t, int *), int *list,
                     int *n_list)
{
    *n_list = 0;
    for (const char *p = s;;) {
        size_t n = strcspn(p, ",");
        const char *e = p;
        size_t m = n;
        while (m > 0 && isspace((unsigned char)*e))
            e++, m--;
        while (m > 0 && isspace((unsigned char)e[m - 1]))
            m--;
        int v;
        if (!entry(e, m, &v))
            return -1;
        if (*n_list < BP_NTHREADS_LEVELS)
            list[(*n_list)++] = v;
        if (p[n] == '\0')
            return 0;
        p += n + 1;
    }
}

static int count_entry(const char *p, size_t n, int *v)
{
    char entry[32];
    long long x;
    if (n >= sizeof entry)
        return 0;
    memcpy(entry, p, n);
    entry[n] = '\0';
    if (parse_int(entry, 1, INT_MAX, &x) != 0)
        return 0;
    *v = (int)x;
    return 1;
}

/* OMP_NUM_THREADS: a count, or a list of them, one per nesting level: the
 * initial task's nthreads-var is the first, the tasks of a level-k region
 * get entry k (the last one holds for deeper levels). */
static void load_num_threads(void)
{
    const char *s = getenv("OMP_NUM_THREADS");
    int list[BP_NTHREADS_LEVELS], n_list;
    if (s == NULL)
        return;
    if (load_list(s, count_entry, list, &n_list) != 0) {
        bp_warn("OMP_NUM_THREADS='%s' is not a positive integer (or a list of them); "
                "using one thread per allowed CPU", s);
        return;
    }
    memcpy(bp_config.nthreads_list, list, sizeof(int) * (size_t)n_list);
    bp_config.nthreads_levels = n_list;
    bp_config.icv.nthreads = list[0];
}

/* Which of the count words the n bytes at p are, compared by cmp (strncmp,
 * or strncasecmp for case aside): its index, or -1. */
static int word_index(const char *p, size_t n, const char *const *words, int count,
                      int (*cmp)(const char *, const char *, size_t))
{
    for (int i = 0; i < count; i++)
        if (strlen(words[i]) == n && cmp(p, words[i], n) == 0)
            return i;
    return -1;
}

/* An environment variable that names one of n words, case aside, spaces
 * around allowed: its index, -1 when unset, -2 when it names none. */
static int load_word(const char *name, const char *const *words, int n)
{
    const char *s = getenv(name);
    if (s == NULL)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    int i = word_index(s, len, words, n, strncasecmp);
    return i >= 0 ? i : -2;
}

/* A boolean OMP_* variable (true or false, any case); 1, 0, or -1 unset. */

static int load_bool(const char *name)
{
    static const char *const words[] = {"false", "true"};
    int v = load_word(name, words, 2);
    if (v == -2)
        bp_warn("%s='%s' is neither true nor false; ignoring it", name, getenv(name));
    return v < 0 ? -1 : v;
}

/* A boolean of libomp's (KMP_*): its words for false and true, in pairs;
 * -1 unset or, with a warning, not one of them. */
static int load_kmp_bool(const char *name)
{
    static const char *const words[] = {"false", "true", "0", "1", "off", "on",
                                        "no", "yes", ".false.", ".true.", "f", "t", "n", "y"};
    int v = load_word(name, words, 14);
    if (v == -2)
        bp_warn("%s='%s' is neither true nor false (libomp's words: true, 1, on, yes and "
                "their opposites); ignoring it", name, getenv(name));
    return v < 0 ? -1 : v % 2;
}

/* OMP_MAX_ACTIVE_LEVELS, else the older OMP_NESTED (true: every supported
 * level, false: one), else every supported level when OMP_NUM_THREADS or
 * OMP_PROC_BIND is a list of more than one entry, else one: libgomp's
 * rules. A count beyond the supported levels means them all (OpenMP).
 * After the lists are read. */
static void load_nesting(void)
{
    int nested = load_bool("OMP_NESTED");
    const char *s = getenv("OMP_MAX_ACTIVE_LEVELS");
    long long v;
    if (s != NULL && parse_int(s, 0, INT_MAX, &v) == 0) {
        bp_config.icv.max_active_levels = v < BP_SUPPORTED_LEVELS ? (int)v : BP_SUPPORTED_LEVELS;
        return;
    }
    if (nested >= 0)
        bp_config.icv.max_active_levels = nested ? BP_SUPPORTED_LEVELS : 1;
    else if (bp_config.nthreads_levels > 1 || bp_config.bind_levels > 1)
        bp_config.icv.max_active_levels = BP_SUPPORTED_LEVELS;
    if (s != NULL)
        bp_warn("OMP_MAX_ACTIVE_LEVELS='%s' is not a non-negative integer; using %d", s,
                bp_config.icv.max_active_levels);
}

/* The device ICVs: default-device-var, a device number (the host, the
 * only device, is 0; another number is accepted and means the host too
 * unless OMP_TARGET_OFFLOAD is mandatory, target.c), and
 * target-offload-var. */
static void load_devices(void)
{
    const char *s = getenv("OMP_DEFAULT_DEVICE");
    long long v;
    if (s != NULL) {
        if (parse_int(s, 0, INT_MAX, &v) == 0)
            bp_config.icv.default_device = (int)v;
        else
            bp_warn("OMP_DEFAULT_DEVICE='%s' is not a non-negative integer; using 0", s);
    }
    /* numbered as BP_OFFLOAD_* */
    static const char *const offload[] = {"disabled", "default", "mandatory"};
    int o = load_word("OMP_TARGET_OFFLOAD", offload, 3);
    if (o >= 0)
        bp_config.target_offload = o;
    else if (o == -2)
        bp_warn("OMP_TARGET_OFFLOAD='%s' is not default, mandatory or disabled; using "
                "default", getenv("OMP_TARGET_OFFLOAD"));
}

/* The predefined allocators, numbered from 1 as omp.h numbers them; the
 * memory spaces, from 0, each the space of the allocator one above it. */
static const char *const allocators[] = {
    "omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc",
    "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",   "omp_cgroup_mem_alloc",
    "omp_pteam_mem_alloc",   "omp_thread_mem_alloc"};
static const char *const memspaces[] = {"omp_default_mem_space", "omp_large_cap_mem_space",
                                        "omp_const_mem_space", "omp_high_bw_mem_space",
                                        "omp_low_lat_mem_space"};
enum { N_ALLOCATORS = sizeof allocators / sizeof allocators[0],
       N_MEMSPACES = sizeof memspaces / sizeof memspaces[0] };

const char *bp_allocator_name(uintptr_t a)
{
    return a >= 1 && a <= N_ALLOCATORS ? allocators[a - 1] : NULL;
}

/* def-allocator-var: OMP_ALLOCATOR names a predefined allocator, or
 * (OpenMP 5.1) a memory space, meaning that space's predefined allocator;
 * traits after the space (`space:key=value,...`) are not supported and
 * are said to be ignored. */
static void load_allocator(void)
{
    int a = load_word("OMP_ALLOCATOR", allocators, N_ALLOCATORS);
    if (a >= 0) {
        bp_config.icv.default_allocator = (uintptr_t)a + 1;
        return;
    }
    if (a == -1)
        return;
    const char *s = getenv("OMP_ALLOCATOR");
    const char *name = s + strspn(s, " \t");
    for (int m = 0; m < N_MEMSPACES; m++) {
        size_t len = strlen(memspaces[m]);
        if (strncasecmp(name, memspaces[m], len) != 0)
            continue;
        const char *rest = name + len + strspn(name + len, " \t");
        if (*rest != '\0' && *rest != ':')
            continue;
        bp_config.icv.default_allocator = (uintptr_t)m + 1;
        if (*rest == ':')
            bp_warn("OMP_ALLOCATOR='%s': allocator traits are not supported here; using %s", s,
                    allocators[m]);
        return;
    }
    bp_warn("OMP_ALLOCATOR='%s' names no predefined allocator or memory space; using "
            "omp_default_mem_alloc", s);
}

static void load_misc_icvs(void)
{
    int dynamic = load_bool("OMP_DYNAMIC");
    if (dynamic >= 0)
        bp_config.icv.dynamic = dynamic;
    if (load_bool("OMP_DISPLAY_AFFINITY") == 1)
        bp_config.display_affinity = 1;
    int cancellation = load_bool("OMP_CANCELLATION");
    if (cancellation >= 0)
        bp_config.cancellation = cancellation;
    const char *s = getenv("OMP_MAX_TASK_PRIORITY");
    long long v;
    if (s != NULL) {
        if (parse_int(s, 0, INT_MAX, &v) == 0)
            bp_config.max_task_priority = (int)v;
        else
            bp_warn("OMP_MAX_TASK_PRIORITY='%s' is not a non-negative integer; using 0", s);
    }
    load_threads("OMP_NUM_TEAMS", &bp_config.nteams, "left unset");
    load_threads("OMP_TEAMS_THREAD_LIMIT", &bp_config.teams_thread_limit, "left unset");
    load_devices();
    load_allocator();
    static const char *const display[] = {"false", "true", "verbose"};
    int d = load_word("OMP_DISPLAY_ENV", display, 3);
    if (d >= 0)
        bp_config.display_env = d;
    else if (d == -2)
        bp_warn("OMP_DISPLAY_ENV='%s' is not true, false or verbose; using false",
                getenv("OMP_DISPLAY_ENV"));
    /* libomp's KMP_SETTINGS prints its settings at start-up: here the
     * verbose display (buddypool's variables with OpenMP's), unless
     * OMP_DISPLAY_ENV says otherwise */
    else if (load_kmp_bool("KMP_SETTINGS") == 1)
        bp_config.display_env = 2;
}

/* OMP_STACKSIZE: a size with an optional B, K, M or G suffix; no suffix means
 * kilobytes, as the OpenMP specification says. */
static void load_stacksize(void)
{
    const char *s = getenv("OMP_STACKSIZE");
    if (s == NULL)
        return;
    char *end;
    errno = 0;
    while (isspace((unsigned char)*s) && *s)
        s++;
    unsigned long long v = strtoull(s, &end, 10);
    int ok = end != s && errno == 0 && *s != '-';
    unsigned shift = 10;
    while (isspace((unsigned char)*end))
        end++;
    switch (toupper((unsigned char)*end)) {
    case 'B': shift = 0; end++; break;
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: break;
    }
    while (isspace((unsigned char)*end))
        end++;
    ok = ok && *end == '\0' && v > 0 && v <= (SIZE_MAX >> shift);
    size_t bytes = ok ? (size_t)v << shift : 0;
    /* at least 64K, and at least what the C library accepts (128K on aarch64) */
    size_t least = 64 * 1024;
    if ((size_t)PTHREAD_STACK_MIN > least)
        least = (size_t)PTHREAD_STACK_MIN;
    if (ok && bytes >= least) {
        bp_config.stack_bytes = bytes;
        return;
    }
    bp_warn("OMP_STACKSIZE='%s' is not a size of at least %zuK (N, NB, NK, NM or NG); "
            "using the default 256M", getenv("OMP_STACKSIZE"), least >> 10);
}

static void load_wait_policy(void)
{
    const char *s = getenv("OMP_WAIT_POLICY");
    if (s == NULL)
        return;
    if (strcasecmp(s, "active") == 0)
        bp_config.spin_ns = INT64_MAX, bp_config.spin_chosen = 1;
    else if (strcasecmp(s, "passive") == 0)
        bp_config.spin_ns = 0, bp_config.spin_chosen = 1;
    else
        bp_warn("OMP_WAIT_POLICY='%s' is neither ACTIVE nor PASSIVE; "
                "using the default (spin, then sleep)", s);
}

static void load_spin(void)
{
    const char *s = getenv("BUDDY_THREAD_POOL_SPIN_US");
    long long v;
    if (s == NULL)
        return;
    if (parse_int(s, 0, INT64_MAX / 1000, &v) == 0)
        bp_config.spin_ns = v * 1000, bp_config.spin_chosen = 1;
    else if (bp_config.spin_ns == INT64_MAX)
        bp_warn("BUDDY_THREAD_POOL_SPIN_US='%s' is not a non-negative integer; "
                "spinning without sleeping (OMP_WAIT_POLICY=active)", s);
    else
        bp_warn("BUDDY_THREAD_POOL_SPIN_US='%s' is not a non-negative integer; "
                "using %lld", s, (long long)(bp_config.spin_ns / 1000));
}

static void load_wait_pair(void)
{
    static const char *const words[] = {"auto", "symmetric", "asymmetric"};
    int v = load_word("BUDDY_THREAD_POOL_WAIT_PAIR", words, 3);
    if (v == -2)
        bp_warn("BUDDY_THREAD_POOL_WAIT_PAIR='%s' is none of auto, symmetric, asymmetric; "
                "using auto", getenv("BUDDY_THREAD_POOL_WAIT_PAIR"));
    bp_config.wait_pair = v < 0 ? BP_WAIT_PAIR_AUTO : v;
}

/* A text from the environment (a path, a place list: `noun` in the
 * warning), copied into buf (static storage: nothing to free when the
 * library unloads, and a later setenv() cannot change it); NULL when unset,
 * empty or too long (warning: `instead` says what happens). */
static const char *load_text(const char *name, const char *noun, char *buf, size_t size,
                             const char *instead)
{
    const char *s = getenv(name);
    if (s == NULL)
        return NULL;
    size_t len = strlen(s);
    if (len == 0) {
        bp_warn("%s='' is an empty %s; %s", name, noun, instead);
        return NULL;
    }
    if (len >= size) {
        bp_warn("%s is a %s of %zu bytes (at most %zu); %s", name, noun, len, size - 1, instead);
        return NULL;
    }
    memcpy(buf, s, len + 1);
    return buf;
}

static const char *load_path(const char *name, char *buf, size_t size, const char *instead)
{
    return load_text(name, "path", buf, size, instead);
}

/* One OMP_PROC_BIND entry as an omp_proc_bind_t value. */
static int bind_entry(const char *p, size_t n, int *v)
{
    static const char *const names[] = {"false", "true", "close", "spread", "master", "primary"};
    static const int values[] = {0, 1, 3, 4, 2, 2};
    int i = word_index(p, n, names, 6, strncasecmp);
    if (i >= 0)
        *v = values[i];
    return i >= 0;
}

/* libomp's KMP_AFFINITY, read when neither OMP_PLACES nor OMP_PROC_BIND
 * is set, as the same settings: granularity=fine|thread|core|node|socket|
 * package gives the places (threads, cores, numa_domains, sockets; core by
 * default, as libomp's), compact the close policy, scatter and balanced
 * spread, explicit with proclist=[...] a place per CPU listed, none and
 * disabled no binding; reset gives the region's caller its own mask back
 * after each outermost region (libomp's), noreset keeps its place.
 * verbose, warnings, respect and their no- forms change nothing here; anything else is warned about and the variable is
 * ignored. Writes OMP_PLACES's text into places. */
static int load_kmp_affinity(char *places, size_t size, int *bind)
{
    const char *s = getenv("KMP_AFFINITY");
    if (s == NULL)
        return 0;
    const char *gran = "cores", *list = NULL;
    size_t list_len = 0;
    int type = -1; /* omp_proc_bind_t; 0: no binding */
    int reset = 0;  /* reset: the caller's own mask after each outermost region */
    static const char *const quiet[] = {"verbose", "noverbose", "warnings", "nowarnings",
                                        "respect", "norespect", "noreset"};
    for (const char *p = s; *p != '\0';) {
        p += strspn(p, " ,");
        size_t n = strcspn(p, ",");
        if (strncmp(p, "proclist=[", 10) == 0) {
            const char *end = strchr(p, ']');
            if (end == NULL)
                goto bad;
            list = p + 10;
            list_len = (size_t)(end - list);
            n = (size_t)(end + 1 - p);
        } else if (n > 12 && strncmp(p, "granularity=", 12) == 0) {
            static const char *const g[] = {"fine", "thread", "core", "node", "socket", "package"};
            static const char *const as_places[] = {"threads", "threads", "cores",
                                                    "numa_domains", "sockets", "sockets"};
            int k = word_index(p + 12, n - 12, g, 6, strncmp);
            if (k < 0)
                goto bad;
            gran = as_places[k];
        } else if (n > 0) {
            static const char *const t[] = {"disabled", "none", "compact", "scatter",
                                            "balanced", "explicit"};
            static const int as_bind[] = {0, 0, 3, 4, 4, 3};
            int k = word_index(p, n, t, 6, strncmp);
            if (k >= 0) {
                type = as_bind[k];
                if (k == 5)
                    gran = NULL; /* explicit: the proclist's CPUs */
            } else if (n == 5 && strncmp(p, "reset", 5) == 0) {
                reset = 1;
            } else if (word_index(p, n, quiet, 7, strncmp) < 0) {
                goto bad;
            }
        }
        p += n;
    }
    if (type < 0 || (gran == NULL && list == NULL))
        goto bad;
    *bind = type;
    bp_config.affinity_reset = reset && type != 0;
    if (type == 0)
        return 1;
    if (gran != NULL) {
        snprintf(places, size, "%s", gran);
        return 1;
    }
    size_t at = 0; /* proclist=[0,1,2-3] as {0},{1},{2},{3} */
    for (const char *p = list; p < list + list_len;) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0)
            goto bad;
        if (*end == '-') {
            const char *q = end + 1;
            b = strtol(q, &end, 10);
            if (end == q || b < a)
                goto bad;
        }
        for (long c = a; c <= b; c++) {
            int w = snprintf(places + at, size - at, "%s{%ld}", at ? "," : "", c);
            if (w < 0 || (size_t)w >= size - at)
                goto bad;
            at += (size_t)w;
        }
        p = end + (*end == ',');
        if (end < list + list_len && *end != ',')
            goto bad;
    }
    return at > 0;
bad:
    bp_warn("KMP_AFFINITY='%s' is not [granularity=fine|thread|core|node|socket|package,]"
            "compact|scatter|balanced|none|disabled, or explicit with proclist=[...]; "
            "ignoring it", s);
    return 0;
}

/* OMP_PROC_BIND: false leaves every thread where the OS puts it; a binding
 * policy also binds the first application thread to place 0. A list gives
 * each nesting level its bind-var, as OMP_NUM_THREADS does its nthreads-var
 * (false, alone or in a list, binds nothing). Unset: workers are
 * pinned, callers are not, unless OMP_PLACES is set (libgomp binds then
 * too). Values are omp_proc_bind_t's. */
static void load_proc_bind(void)
{
    static char places[4096];
    bp_config.places = load_text("OMP_PLACES", "place list", places, sizeof places,
                                 "using one place per allowed CPU");
    const char *s = getenv("OMP_PROC_BIND");
    /* libomp's subset of the machine (KMP_PLACE_THREADS its older name),
     * applied to the allowed CPUs by places.c */
    static char subset[256];
    static const char *const subset_names[] = {"KMP_HW_SUBSET", "KMP_PLACE_THREADS"};
    for (int i = 0; i < 2 && bp_config.hw_subset == NULL; i++) {
        bp_config.hw_subset_name = subset_names[i];
        bp_config.hw_subset = load_text(subset_names[i], "subset", subset, sizeof subset,
                                        "using every allowed CPU");
    }
    int kmp_bind;
    if (s == NULL && bp_config.places == NULL && getenv("OMP_PLACES") == NULL &&
        load_kmp_affinity(places, sizeof places, &kmp_bind)) {
        if (kmp_bind == 0) {
            bp_config.pin = 0;
            bp_config.icv.proc_bind = 0;
            return;
        }
        bp_config.places = places;
        bp_config.pin_caller = 1;
        bp_config.icv.proc_bind = kmp_bind;
        return;
    }
    if (s == NULL) {
        /* close: worker i on the i-th place from the caller's; with places
         * asked for, true, and the caller is bound too (as in libgomp) */
        bp_config.pin_caller = bp_config.places != NULL;
        bp_config.icv.proc_bind = bp_config.pin_caller ? 1 : 3;
        return;
    }
    int list[BP_NTHREADS_LEVELS], n_list, any_false = 0;
    if (load_list(s, bind_entry, list, &n_list) != 0) {
        bp_config.icv.proc_bind = 3;
        bp_warn("OMP_PROC_BIND='%s' is not true, false, close, spread or primary (or a "
                "list of them); pinning the workers only", s);
        return;
    }
    for (int i = 0; i < n_list; i++)
        any_false |= list[i] == 0;
    if (any_false) {
        bp_config.pin = 0;
        bp_config.icv.proc_bind = 0;
        return;
    }
    bp_config.pin_caller = 1;
    bp_config.icv.proc_bind = list[0];
    memcpy(bp_config.bind_list, list, sizeof(int) * (size_t)n_list);
    bp_config.bind_levels = n_list;
}

static void load_flag(const char *name, int *out)
{
    const char *s = getenv(name);
    if (s == NULL)
        return;
    if (strcmp(s, "0") == 0 || strcmp(s, "1") == 0)
        *out = s[0] == '1';
    else
        bp_warn("%s='%s' is neither 0 nor 1; using 0", name, s);
}

/* OMP_SCHEDULE: [monotonic:|nonmonotonic:]static|dynamic|guided|auto[,chunk],
 * and libomp's extension kinds: trapezoidal (kept as itself, run as
 * guided) and static_steal (libomp reports and runs it as dynamic). */
static void load_schedule(void)
{
    const char *s = getenv("OMP_SCHEDULE");
    if (s == NULL)
        return;
    static const char *const kinds[] = {"static", "dynamic", "guided", "auto"};
    static const char *const libomp_kinds[] = {"trapezoidal", "static_steal"};
    const char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    const char *colon = strchr(p, ':');
    int monotonic = 0;
    if (colon != NULL) {
        size_t n = (size_t)(colon - p);
        if (n == 9 && strncasecmp(p, "monotonic", 9) == 0) {
            monotonic = BP_OMP_MONOTONIC;
            p = colon + 1;
        } else if (n == 12 && strncasecmp(p, "nonmonotonic", 12) == 0) {
            p = colon + 1;
        }
    }
    size_t n = strcspn(p, ", \t");
    int i = word_index(p, n, kinds, 4, strncasecmp);
    int kind = i >= 0 ? BP_OMP_STATIC + i : 0;
    if (i < 0) {
        i = word_index(p, n, libomp_kinds, 2, strncasecmp);
        kind = i == 0 ? BP_OMP_TRAPEZOIDAL : i == 1 ? BP_OMP_DYNAMIC : 0;
    }
    p += n;
    while (isspace((unsigned char)*p))
        p++;
    long long chunk = 0;
    int ok = kind != 0;
    if (ok && *p == ',')
        ok = parse_int(p + 1, 1, INT_MAX, &chunk) == 0;
    else if (ok)
        ok = *p == '\0';
    if (ok) {
        bp_config.icv.run_sched = kind | monotonic;
        bp_config.icv.run_chunk = (int)chunk;
    } else {
        bp_warn("OMP_SCHEDULE='%s' is not [monotonic:|nonmonotonic:]static, dynamic, guided, "
                "auto (or libomp's trapezoidal or static_steal) with an optional chunk of 1 to "
                "%d; using static", s, INT_MAX);
    }
}

/* A count in lo..hi from the environment into *out; a bad value warns and
 * keeps *out. */
static void load_count(const char *name, int lo, int hi, int *out)
{
    const char *s = getenv(name);
    long long v;
    if (s == NULL)
        return;
    if (parse_int(s, lo, hi, &v) == 0)
        *out = (int)v;
    else
        bp_warn("%s='%s' is not an integer from %d to %d; using %d", name, s, lo, hi, *out);
}

/* BUDDY_THREAD_POOL_PROFILE_SIGNAL: USR1, SIGUSR2, RTMIN+3 or a number. */
static void load_signal(void)
{
    const char *s = getenv("BUDDY_THREAD_POOL_PROFILE_SIGNAL");
    if (s == NULL || s[0] == '\0')
        return;
    const char *name = strncmp(s, "SIG", 3) == 0 ? s + 3 : s;
    long long v = -1;
    if (strcmp(name, "USR1") == 0)
        v = SIGUSR1;
    else if (strcmp(name, "USR2") == 0)
        v = SIGUSR2;
    else if (strcmp(name, "HUP") == 0)
        v = SIGHUP;
    else if (strncmp(name, "RTMIN+", 6) == 0 && parse_int(name + 6, 0, SIGRTMAX - SIGRTMIN, &v) == 0)
        v += SIGRTMIN;
    else if (parse_int(name, 1, SIGRTMAX, &v) != 0)
        v = -1;
    /* not one that cannot be caught, that a fault raises, or that the
     * program's own workings send */
    static const int refused[] = {SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
                                  SIGTRAP, SIGSYS, SIGABRT, SIGCHLD, SIGPIPE, SIGALRM};
    for (size_t i = 0; v > 0 && i < sizeof refused / sizeof refused[0]; i++)
        if (v == refused[i])
            v = -1;
    if (v < 0) {
        bp_warn("BUDDY_THREAD_POOL_PROFILE_SIGNAL='%s' is not a signal to dump on (USR1, "
                "USR2, HUP, RTMIN+N or a number from 1 to %d that no fault, child or timer "
                "raises); no dumps on a signal", s, SIGRTMAX);
        return;
    }
    bp_config.profile_signal = (int)v;
}

static void load_profile(void)
{
    load_flag("BUDDY_THREAD_POOL_PROFILE", &bp_config.profile);
    load_count("BUDDY_THREAD_POOL_PROFILE_SLOTS", 1, 1 << 24, &bp_config.profile_slots);
    load_count("BUDDY_THREAD_POOL_PROFILE_CALLERS", 0, BP_MAX_CALLERS,
               &bp_config.profile_callers);
    load_count("BUDDY_THREAD_POOL_PROFILE_STEPS", 1, 1 << 16, &bp_config.profile_steps);
    load_signal();
    static char out_path[4096], trace_path[4096];
    bp_config.profile_out = load_path("BUDDY_THREAD_POOL_PROFILE_OUT", out_path,
                                      sizeof out_path, "writing no JSON profile");
    bp_config.trace_out = load_path("BUDDY_THREAD_POOL_TRACE", trace_path, sizeof trace_path,
                                    "writing no trace");
    static char live_dir[4096];
    bp_config.live_dir = load_path("BUDDY_THREAD_POOL_LIVE_DIR", live_dir, sizeof live_dir,
                                   "using /dev/shm");
    load_count("BUDDY_THREAD_POOL_TRACE_EVENTS", 16, 1 << 24, &bp_config.trace_events);
}

static void load_all(void)
{
    int limit = 0, omp_limit = 0;
    load_threads("BUDDY_THREAD_POOL_THREADS", &limit, "using no limit");
    load_threads("OMP_THREAD_LIMIT", &omp_limit, "ignoring it");
    if (omp_limit > 0 && (limit == 0 || omp_limit < limit))
        limit = omp_limit;
    bp_config.thread_limit = limit;
    load_num_threads();
    load_misc_icvs();
    load_stacksize();
    load_wait_policy();
    load_spin(); /* after OMP_WAIT_POLICY: the explicit knob wins */
    load_wait_pair();
    load_proc_bind();
    load_nesting(); /* after the OMP_NUM_THREADS and OMP_PROC_BIND lists */
    load_flag("BUDDY_THREAD_POOL_OVERSUBSCRIBE", &bp_config.oversubscribe);
    load_schedule();
    /* libomp places a league's host teams on places of their own; here
     * they run one after another on the encountering thread (teams.c) */
    const char *teams_bind = getenv("KMP_TEAMS_PROC_BIND");
    if (teams_bind != NULL)
        bp_warn("KMP_TEAMS_PROC_BIND='%s': host teams run one after another on the "
                "encountering thread here, so there are no teams to place; ignored",
                teams_bind);
    /* libomp's switch for running a task at once when its maker's queue
     * is full; false queues every deferred task (task.c) */
    if (load_kmp_bool("KMP_ENABLE_TASK_THROTTLING") == 0)
        bp_config.task_throttle = 0;
    load_profile();
}

static pthread_once_t config_once = PTHREAD_ONCE_INIT;

void bp_config_load(void)
{
    pthread_once(&config_once, load_all);
}

int bp_process_is_python(void)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    const char *base = strrchr(exe, '/');
    return strncmp(base != NULL ? base + 1 : exe, "python", 6) == 0;
}

int bp_config_max_threads(void)
{
    bp_config_load();
    int max = bp_config.thread_limit > 0 ? bp_config.thread_limit : BP_MAX_THREADS;
    return max < BP_MAX_THREADS ? max : BP_MAX_THREADS;
}

/* ---- the ICVs of the whole program that calls may change ---------------- */

/* nteams-var and teams-thread-limit-var: OMP_NUM_TEAMS and
 * OMP_TEAMS_THREAD_LIMIT, then omp_set_num_teams and
 * omp_set_teams_thread_limit (teams.c). 0: unset. */
static _Atomic int nteams_var = -1, teams_thread_limit_var = -1;

/* The environment's value is read only after the configuration is loaded
 * (a program's first call may be omp_get_max_teams). */
static int league_var(_Atomic int *v, const int *from_env)
{
    int x = atomic_load_explicit(v, memory_order_relaxed);
    if (x < 0) { /* not yet set by a call: the environment's */
        bp_config_load();
        x = *from_env;
    }
    return x;
}

int bp_nteams_var(void) { return league_var(&nteams_var, &bp_config.nteams); }

int bp_teams_thread_limit_var(void)
{
    return league_var(&teams_thread_limit_var, &bp_config.teams_thread_limit);
}

void bp_set_nteams_var(int n)
{
    /* relaxed: an ICV, read without ordering against anything else */
    atomic_store_explicit(&nteams_var, n, memory_order_relaxed);
}

void bp_set_teams_thread_limit_var(int n)
{
    /* relaxed: as above */
    atomic_store_explicit(&teams_thread_limit_var, n, memory_order_relaxed);
}

int bp_thread_limit_var(const struct bp_icv *icv)
{
    if (icv->thread_limit > 0) /* set by a teams construct */
        return icv->thread_limit;
    bp_config_load();
    if (bp_config.thread_limit <= 0)
        return INT_MAX;
    return bp_config.thread_limit < BP_MAX_THREADS ? bp_config.thread_limit : BP_MAX_THREADS;
}
