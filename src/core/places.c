/* places.c: the place list (OMP_PLACES) the pool binds its threads to, and
 * the OpenMP places API over it.
 *
 * A place is a set of CPUs. OMP_PLACES is an abstract name (threads, cores,
 * ll_caches, numa_domains, sockets, each with an optional "(count)") read
 * against the machine's topology in sysfs, or an explicit list:
 *   places: interval [, interval]...     interval: [!]place [: count [: stride]]
 *   place:  { res [, res]... }           res: [!]cpu [: count [: stride]]
 * ("{0:4}:2:4" is {0,1,2,3},{4,5,6,7}; "!" removes a CPU from its place,
 * and before a place the places listed so far equal to it).
 * Every place keeps only the CPUs the process may run on, and a place left
 * empty is dropped, as libgomp does. Without OMP_PLACES there is one place
 * per allowed CPU, in the pool's placement order (topology.c: a thread per
 * physical core first, a NUMA node's cores together). The string is read by env.c; it is parsed
 * here because its meaning needs the allowed CPUs and the topology, which
 * only the pool's start-up knows (topology.c reads the machine). A bad value
 * gets one warning naming it, and the default list. */
#include <ctype.h>
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

static cpu_set_t *places;
static int nplaces;
static int from_env; /* the list came from OMP_PLACES */
/* The pool's own list: each place's SMT rank in its core and NUMA node. */
static long own_smt[BP_MAX_PLACES], own_node[BP_MAX_PLACES];
/* The order of the places near `near_first` (bp_place_near). */
static int near_first = -1, near_n;
static int near_order[BP_MAX_PLACES];

/* ---- the CPUs the process may run on ------------------------------------- */

/* The CPUs of the process's cpuset cgroup (v2 or v1), else the online ones. */
static int cgroup_cpus(cpu_set_t *set)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[4096], path[4352];
    int found = 0;
    while (f != NULL && !found && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "0::", 3) == 0) {
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpuset.cpus.effective", line + 3);
            found = bp_read_cpu_list(path, set);
        } else if (strstr(line, ":cpuset:") != NULL) {
            const char *rel = strstr(line, ":cpuset:") + 8;
            snprintf(path, sizeof path, "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus", rel);
            found = bp_read_cpu_list(path, set);
        }
    }
    if (f != NULL)
        fclose(f);
    return found || bp_read_cpu_list("/sys/devices/system/cpu/online", set);
}

int bp_allowed_cpus(cpu_set_t *set)
{
    CPU_ZERO(set);
    if (sched_getaffinity(0, sizeof *set, set) != 0 || CPU_COUNT(set) == 0)
        return 0;
    /* Preloaded into a libgomp program with a binding asked for, libgomp's
     * start-up (which runs before buddypool's) has bound this thread to its
     * first place: the process's CPUs are then those of its cgroup. */
    int binding = bp_config.places != NULL || getenv("GOMP_CPU_AFFINITY") != NULL ||
                  (bp_config.pin_caller && getenv("OMP_PROC_BIND") != NULL);
    if (binding && dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD) != NULL) {
        cpu_set_t wide;
        if (cgroup_cpus(&wide) && CPU_COUNT(&wide) > CPU_COUNT(set))
            *set = wide;
    }
    char why[256];
    if (bp_config.hw_subset != NULL && !bp_topo_subset(bp_config.hw_subset, set, why, sizeof why))
        bp_warn("%s='%s': %s; using every allowed CPU", bp_config.hw_subset_name,
                bp_config.hw_subset, why);
    return CPU_COUNT(set);
}

/* ---- the explicit list --------------------------------------------------- */

struct cursor {
    const char *p;
};

static void skip_space(struct cursor *c)
{
    while (isspace((unsigned char)*c->p))
        c->p++;
}

static int eat(struct cursor *c, char ch)
{
    skip_space(c);
    if (*c->p != ch)
        return 0;
    c->p++;
    return 1;
}

/* A non-negative decimal number (negative when `negative` allows it). */
static int number(struct cursor *c, long *out, int negative)
{
    skip_space(c);
    char *end;
    long v = strtol(c->p, &end, 10);
    if (end == c->p || (!negative && v < 0))
        return 0;
    c->p = end;
    *out = v;
    return 1;
}

/* [: count [: stride]] after a place or a CPU: 1 and stride 1 by default;
 * a count above max (the CPUs or places there can be) is an error. */
static int repeat(struct cursor *c, long *count, long *stride, long max)
{
    *count = 1;
    *stride = 1;
    if (!eat(c, ':'))
        return 1;
    if (!number(c, count, 0) || *count < 1 || *count > max)
        return 0;
    if (eat(c, ':') && !number(c, stride, 1))
        return 0;
    return 1;
}

/* One {...} place into *set. */
static int parse_place(struct cursor *c, cpu_set_t *set)
{
    CPU_ZERO(set);
    if (!eat(c, '{'))
        return 0;
    do {
        int exclude = eat(c, '!');
        long cpu, count, stride;
        if (!number(c, &cpu, 0) || !repeat(c, &count, &stride, CPU_SETSIZE))
            return 0;
        for (long k = 0; k < count; k++) {
            long x = cpu + k * stride;
            if (x < 0 || x >= CPU_SETSIZE)
                return 0;
            if (exclude)
                CPU_CLR((int)x, set);
            else
                CPU_SET((int)x, set);
        }
    } while (eat(c, ','));
    return eat(c, '}');
}

static int add_place(const cpu_set_t *set, const cpu_set_t *allowed)
{
    cpu_set_t s;
    CPU_AND(&s, set, allowed);
    if (CPU_COUNT(&s) == 0)
        return 1; /* not ours to run on: dropped */
    if (nplaces >= BP_MAX_PLACES)
        return 0;
    places[nplaces++] = s;
    return 1;
}

/* The exclusion operator before a place (`!{2,3}`, or an interval of
 * them): the places listed so far that equal it, as this process may use
 * them, go. */
static void remove_place(const cpu_set_t *set, const cpu_set_t *allowed)
{
    cpu_set_t s;
    CPU_AND(&s, set, allowed);
    int k = 0;
    for (int p = 0; p < nplaces; p++)
        if (!CPU_EQUAL(&places[p], &s))
            places[k++] = places[p];
    nplaces = k;
}

/* The whole list; 0 on a syntax error. */
static int parse_list(const char *s, const cpu_set_t *allowed)
{
    struct cursor c = {s};
    do {
        cpu_set_t set;
        long count, stride;
        int exclude = eat(&c, '!');
        if (!parse_place(&c, &set) || !repeat(&c, &count, &stride, BP_MAX_PLACES))
            return 0;
        for (long k = 0; k < count; k++) {
            cpu_set_t moved;
            CPU_ZERO(&moved);
            for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &set)) {
                    long x = cpu + k * stride;
                    if (x < 0 || x >= CPU_SETSIZE)
                        return 0;
                    CPU_SET((int)x, &moved);
                }
            if (exclude)
                remove_place(&moved, allowed);
            else if (!add_place(&moved, allowed))
                return 0;
        }
    } while (eat(&c, ','));
    skip_space(&c);
    return *c.p == '\0';
}

/* ---- abstract names ------------------------------------------------------- */

/* NAME or NAME(count); 0 when s is not an abstract name. */
static int parse_abstract(const char *s, const cpu_set_t *allowed)
{
    static const char *const kinds[] = {"threads", "cores", "ll_caches", "numa_domains",
                                        "sockets"};
    while (isspace((unsigned char)*s))
        s++;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t n = strlen(kinds[k]);
        if (strncasecmp(s, kinds[k], n) != 0)
            continue;
        struct cursor c = {s + n};
        long count = BP_MAX_PLACES;
        if (eat(&c, '(') && (!number(&c, &count, 0) || count < 1 || !eat(&c, ')')))
            return 0;
        skip_space(&c);
        if (*c.p != '\0')
            return 0;
        /* places in the order of their first CPU */
        long keys[BP_MAX_PLACES];
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (!CPU_ISSET(cpu, allowed))
                continue;
            long key = bp_topo_group_key(kinds[k], cpu);
            int p = 0;
            while (p < nplaces && keys[p] != key)
                p++;
            if (p == nplaces) {
                if (nplaces >= count || nplaces >= BP_MAX_PLACES)
                    continue;
                keys[nplaces] = key;
                CPU_ZERO(&places[nplaces]);
                nplaces++;
            }
            CPU_SET(cpu, &places[p]);
        }
        return 1;
    }
    return 0;
}

/* One place per allowed CPU, in the pool's placement order (topology.c),
 * or CPU order when out of memory for it. */
static void one_per_cpu(const cpu_set_t *allowed)
{
    static int order[BP_MAX_PLACES];
    int n = bp_topo_order(allowed, order, own_smt, own_node, BP_MAX_PLACES);
    nplaces = 0;
    for (int cpu = 0; n < 0 && cpu < CPU_SETSIZE && nplaces < BP_MAX_PLACES; cpu++)
        if (CPU_ISSET(cpu, allowed)) {
            own_smt[nplaces] = own_node[nplaces] = 0;
            order[nplaces++] = cpu;
        }
    if (n >= 0)
        nplaces = n;
    for (int p = 0; p < nplaces; p++) {
        CPU_ZERO(&places[p]);
        CPU_SET(order[p], &places[p]);
    }
}

/* Give back the room of the places not made. */
static void shrink(void)
{
    cpu_set_t *fit = realloc(places, sizeof *places * (size_t)(nplaces > 0 ? nplaces : 1));
    if (fit != NULL)
        places = fit;
}

int bp_places_init(const cpu_set_t *allowed)
{
    places = malloc(sizeof *places * BP_MAX_PLACES);
    if (places == NULL)
        return -1;
    const char *s = bp_config.places;
    if (s != NULL) {
        nplaces = 0;
        int ok = parse_abstract(s, allowed);
        if (!ok) {
            nplaces = 0;
            ok = parse_list(s, allowed);
        }
        if (ok && nplaces > 0) {
            from_env = 1;
            shrink();
            return 0;
        }
        bp_warn("OMP_PLACES='%s' is not %s; using one place per allowed CPU", s,
                ok ? "a list with a CPU the process may run on"
                   : "threads, cores, ll_caches, numa_domains, sockets (each with an optional "
                     "(count)) or a list of {cpu,...} places");
    }
    one_per_cpu(allowed);
    shrink();
    return 0;
}

void bp_places_free(void)
{
    bp_topo_free();
    near_first = -1;
    free(places);
    places = NULL;
    nplaces = 0;
}

int bp_places_count(void) { return nplaces; }

const cpu_set_t *bp_place_set(int p) { return p >= 0 && p < nplaces ? &places[p] : NULL; }

static int by_nearness(const void *a, const void *b)
{
    int p = *(const int *)a, q = *(const int *)b, f = near_first, n = near_n;
    if (own_smt[p] != own_smt[q])
        return own_smt[p] < own_smt[q] ? -1 : 1;
    int away_p = own_node[p] != own_node[f], away_q = own_node[q] != own_node[f];
    if (away_p != away_q)
        return away_p - away_q;
    if (own_node[p] != own_node[q])
        return own_node[p] < own_node[q] ? -1 : 1;
    return (p - f + n) % n - (q - f + n) % n;
}

int bp_place_near(int first, int i)
{
    if (nplaces <= 0)
        return 0;
    if (from_env || first < 0 || first >= nplaces) /* close: the places after it */
        return ((first > 0 ? first : 0) + i) % nplaces;
    if (first != near_first || near_n != nplaces) {
        near_first = first;
        near_n = nplaces;
        for (int p = 0; p < nplaces; p++)
            near_order[p] = p;
        near_order[0] = first;
        near_order[first] = 0;
        qsort(near_order + 1, (size_t)nplaces - 1, sizeof *near_order, by_nearness);
    }
    return near_order[i % nplaces];
}

int bp_place_of_cpu(int cpu)
{
    for (int p = 0; p < nplaces; p++)
        if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &places[p]))
            return p;
    return -1;
}

/* The spec's assignment (OpenMP 5.2, 10.1.3), in closed form so that each
 * starter computes its own children's: the partition is c places from f,
 * the forker sits at place `at` of it (its first when outside it, as an
 * unbound forker is), r = at - f.
 *   primary: every thread on `at`, the partition kept.
 *   close (and true): T <= c, thread i on the i-th place after `at`; T > c,
 *     runs of consecutive threads on the places from `at` on, T / c threads
 *     each and one more on the first T % c of them (libomp's choice; libgomp
 *     puts the last T % c threads one per place from `at` again, which
 *     breaks the spec's consecutive numbers). The partition kept.
 *   spread, T <= c: the partition cut into T runs of consecutive places,
 *     the first c % T of them one place longer; the forker keeps its place
 *     in the run holding it, thread i takes the first place of the i-th run
 *     after that one, and each thread's partition is its run.
 *   spread, T > c: placed as close, each thread's partition its place. */
/* n items cut into m runs of consecutive items, the first n % m of them one
 * longer: the run item k is in, and (run_start) where run j starts. Places
 * into runs for spread, threads into runs for more threads than places. */
static int run_of(int k, int n, int m)
{
    int s = n / m, longer = n % m, edge = longer * (s + 1);
    return k < edge ? k / (s + 1) : longer + (k - edge) / s;
}

static int run_start(int j, int n, int m)
{
    int s = n / m, longer = n % m;
    return j < longer ? j * (s + 1) : longer * (s + 1) + (j - longer) * s;
}

int bp_place_assign(int policy, int at, int tid, int nth, int *first, int *count)
{
    int f = *first, c = *count > 0 ? *count : nplaces;
    if (c <= 0 || nth <= 1)
        return at;
    int r = at >= f && at < f + c ? at - f : 0;
    if (policy == 2) /* primary */
        return f + r;
    if (policy == 4 && nth <= c) {
        int j = (run_of(r, c, nth) + tid) % nth; /* the runs after the forker's */
        int start = run_start(j, c, nth);
        *first = f + start;
        *count = run_start(j + 1, c, nth) - start;
        return tid == 0 ? f + r : f + start;
    }
    /* places after the forker's: one a thread, or with more threads than
     * places a run of threads a place */
    int step = nth > c ? run_of(tid, nth, c) : tid;
    int p = f + (r + step) % c;
    if (policy == 4) { /* spread, more threads than places */
        *first = p;
        *count = 1;
    }
    return p;
}

/* The place list is there when threads are bound: OMP_PLACES, or the pool's
 * one place per CPU unless OMP_PROC_BIND=false. */
int bp_places_listed(void)
{
    return from_env || bp_config.pin ? nplaces : 0;
}
