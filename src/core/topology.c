/* topology.c: what the machine tells of its CPUs, from sysfs
 * (/sys/devices/system): which core, package, NUMA node and last-level
 * cache each CPU belongs to. places.c groups CPUs into places with it. The
 * root of the tree can be moved (bp_topo_set_root) so that tests read fake
 * trees.
 *
 * The pool's own order. Without OMP_PLACES the pool has one place per
 * allowed CPU, and worker i takes the i-th place after the caller's, so the
 * order of those places is the placement of a team. It is: one CPU of each
 * physical core before any second SMT thread of a core (two threads on one
 * core share its execution units: a decode step's matrix-vector products
 * run at about half speed there), and within that the CPUs of one NUMA node
 * together, nodes in order, so that a team that fits in a node's cores
 * stays there (places.c's bp_place_near takes a team's places from its
 * caller's on in this order). CPU numbering does not tell this by itself: Intel numbers a
 * core's siblings n and n + cores, AMD and most Arm parts n and n + 1, and
 * a two-node machine may interleave its nodes' CPUs. A machine that tells
 * nothing (no sysfs) keeps CPU order.
 *
 * KMP_HW_SUBSET (libomp's) narrows the CPUs the pool uses before any of
 * that: bp_topo_subset keeps, in every socket, NUMA node or core, the
 * units of the next layer the value asks for (bp_topo_subset's comment).
 * A value that starts with ':' is libomp's absolute form: a layer's units
 * are counted in the nearest layer above that the value names, not in
 * every one (":1s,2t@1" is the second and third threads of the first
 * socket, whichever cores they are on). */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

static const char *root = "/sys/devices/system";
/* Each CPU's NUMA node, read once (every node's cpulist); -1: not yet. */
static long *node_of;

void bp_topo_free(void)
{
    free(node_of);
    node_of = NULL;
}

void bp_topo_set_root(const char *path)
{
    root = path;
    bp_topo_free();
}

/* A CPU list as sysfs writes it ("0-3,8,10-11") into *set; 0 if unreadable. */
int bp_read_cpu_list(const char *path, cpu_set_t *set)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    char line[4096];
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    CPU_ZERO(set);
    for (char *p = line; ok && *p && *p != '\n';) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0)
            return 0;
        b = a;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a)
                return 0;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        p = *end == ',' ? end + 1 : end;
    }
    return ok && CPU_COUNT(set) > 0;
}


/* Read every node's CPU list; a CPU no node lists (no NUMA information)
 * is on node 0. 0, or -1 when out of memory. */
static int load_nodes(void)
{
    if (node_of != NULL)
        return 0;
    node_of = calloc(CPU_SETSIZE, sizeof *node_of);
    if (node_of == NULL)
        return -1;
    char path[4200];
    snprintf(path, sizeof path, "%s/node", root);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char *end;
        long node = strncmp(e->d_name, "node", 4) == 0 ? strtol(e->d_name + 4, &end, 10) : -1;
        if (node < 0 || end == e->d_name + 4 || *end != '\0')
            continue;
        cpu_set_t set;
        snprintf(path, sizeof path, "%s/node/node%ld/cpulist", root, node);
        if (!bp_read_cpu_list(path, &set))
            continue;
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, &set))
                node_of[cpu] = node;
    }
    if (d != NULL)
        closedir(d);
    return 0;
}

/* The number in a sysfs file, or -1. */
static long sysfs_number(const char *fmt, int cpu)
{
    char path[4200];
    snprintf(path, sizeof path, "%s", root);
    snprintf(path + strlen(path), sizeof path - strlen(path), fmt, cpu);
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* The key that groups CPUs into places of one kind; CPUs whose key the
 * machine does not tell are places of their own. */
long bp_topo_group_key(const char *kind, int cpu)
{
    if (strcmp(kind, "threads") == 0)
        return cpu;
    long pkg = sysfs_number("/cpu/cpu%d/topology/physical_package_id", cpu);
    if (strcmp(kind, "sockets") == 0)
        return pkg >= 0 ? pkg : cpu;
    if (strcmp(kind, "cores") == 0) {
        long core = sysfs_number("/cpu/cpu%d/topology/core_id", cpu);
        return pkg >= 0 && core >= 0 ? (pkg << 20) | core : -1 - cpu;
    }
    if (strcmp(kind, "numa_domains") == 0)
        return load_nodes() == 0 ? node_of[cpu] : 0;
    /* ll_caches: the first CPU sharing the highest-level cache */
    long best_level = -1, key = -1 - cpu;
    for (int i = 0; i < 8; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/cpu/cpu%d/cache/index%d/level", root, cpu, i);
        FILE *f = fopen(path, "r");
        long level;
        if (f == NULL)
            break;
        int ok = fscanf(f, "%ld", &level) == 1;
        fclose(f);
        snprintf(path, sizeof path, "%s/cpu/cpu%d/cache/index%d/shared_cpu_list", root, cpu, i);
        f = fopen(path, "r");
        long first;
        if (f == NULL)
            continue;
        if (ok && fscanf(f, "%ld", &first) == 1 && level > best_level) {
            best_level = level;
            key = first;
        }
        fclose(f);
    }
    return key;
}

struct cpu_rank {
    int cpu;
    long smt, node; /* the CPU's rank among its core's allowed CPUs, its node */
};

static int by_rank(const void *a, const void *b)
{
    const struct cpu_rank *x = a, *y = b;
    if (x->smt != y->smt)
        return x->smt < y->smt ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->cpu - y->cpu;
}

int bp_topo_order(const cpu_set_t *allowed, int *cpus, long *smt, long *node, int max)
{
    struct cpu_rank *r = malloc(sizeof *r * CPU_SETSIZE);
    long *core = malloc(sizeof *core * CPU_SETSIZE);
    if (r == NULL || core == NULL) {
        free(r);
        free(core);
        return -1;
    }
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++) {
        if (!CPU_ISSET(cpu, allowed))
            continue;
        core[n] = bp_topo_group_key("cores", cpu);
        long rank = 0;
        for (int k = 0; k < n; k++)
            rank += core[k] == core[n]; /* an unknown core's key is its own */
        r[n] = (struct cpu_rank){cpu, rank, bp_topo_group_key("numa_domains", cpu)};
        n++;
    }
    qsort(r, (size_t)n, sizeof *r, by_rank);
    for (int k = 0; k < n; k++) {
        cpus[k] = r[k].cpu;
        smt[k] = r[k].smt;
        node[k] = r[k].node;
    }
    free(r);
    free(core);
    return n;
}

/* ---- KMP_HW_SUBSET ------------------------------------------------------ */

enum { LAYER_SOCKET, LAYER_NODE, LAYER_CORE, LAYER_THREAD, LAYERS };

struct subset_cpu {
    int cpu;
    long key[LAYERS]; /* its socket, NUMA node, core, itself */
};

static int by_layers(const void *a, const void *b)
{
    const struct subset_cpu *x = a, *y = b;
    for (int l = 0; l < LAYERS; l++)
        if (x->key[l] != y->key[l])
            return x->key[l] < y->key[l] ? -1 : 1;
    return 0;
}

/* The layer a unit's name names, or -1. */
static int layer_named(const char *name)
{
    static const char *const names[][4] = {{"s", "socket", "sockets", "package"},
                                           {"n", "numa", "numa_domain", "numa_domains"},
                                           {"c", "core", "cores", NULL},
                                           {"t", "thread", "threads", NULL}};
    for (int l = 0; l < LAYERS; l++)
        for (int k = 0; k < 4; k++)
            if (names[l][k] != NULL && strcmp(name, names[l][k]) == 0)
                return l;
    return -1;
}

/* A decimal number at *q, capped past CPU_SETSIZE (then refused). */
static long subset_number(const char **q)
{
    long v = 0;
    for (; isdigit((unsigned char)**q); (*q)++)
        if (v <= CPU_SETSIZE)
            v = v * 10 + (**q - '0');
    return v;
}

/* One item "[count|*]unit[@offset]" into want/skip; 0 with why set. */
static int subset_item(const char *p, size_t len, long want[LAYERS], long skip[LAYERS],
                       char *why, size_t why_size)
{
    char item[64], name[32];
    if (len == 0 || len >= sizeof item) {
        snprintf(why, why_size, "an item is empty or too long");
        return 0;
    }
    size_t k = 0; /* the item without its spaces, as libomp reads it */
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)p[i]))
            item[k++] = p[i];
    item[k] = '\0';
    const char *q = item;
    long count = -1; /* all */
    if (*q == '*') {
        q++;
    } else if (isdigit((unsigned char)*q)) {
        count = subset_number(&q);
    }
    size_t n = 0;
    while (isalpha((unsigned char)*q) || *q == '_')
        if (n + 1 < sizeof name)
            name[n++] = (char)tolower((unsigned char)*q++);
        else
            q++;
    name[n] = '\0';
    int layer = layer_named(name);
    long offset = 0;
    if (*q == '@' && isdigit((unsigned char)q[1])) {
        q++;
        offset = subset_number(&q);
    }
    if (count > CPU_SETSIZE || offset >= CPU_SETSIZE) {
        snprintf(why, why_size, "'%s' asks for more than the %d CPUs there can be", item,
                 CPU_SETSIZE);
        return 0;
    }
    if (layer < 0 || *q != '\0' || count == 0) {
        snprintf(why, why_size,
                 "'%s' is not [count|*]unit[@offset] with unit s, n, c or t (socket, NUMA "
                 "node, core, thread; libomp's other units and core attributes are not "
                 "supported)", item);
        return 0;
    }
    if (want[layer] != 0) {
        snprintf(why, why_size, "'%s' names a layer twice", item);
        return 0;
    }
    want[layer] = count;
    skip[layer] = offset;
    return 1;
}

int bp_topo_subset(const char *spec, cpu_set_t *set, char *why, size_t why_size)
{
    long want[LAYERS] = {0}, skip[LAYERS] = {0}; /* want 0: the layer not named */
    const char *p0 = spec;
    while (isspace((unsigned char)*p0))
        p0++;
    int absolute = *p0 == ':'; /* libomp's absolute form (see the top) */
    if (absolute)
        spec = p0 + 1;
    for (const char *p = spec;; p++) { /* each item, then its comma */
        while (isspace((unsigned char)*p))
            p++;
        size_t len = strcspn(p, ",");
        size_t trim = len;
        while (trim > 0 && isspace((unsigned char)p[trim - 1]))
            trim--;
        if (!subset_item(p, trim, want, skip, why, why_size))
            return 0;
        p += len;
        if (*p != ',')
            break;
    }
    struct subset_cpu *c = malloc(sizeof *c * CPU_SETSIZE);
    if (c == NULL) {
        snprintf(why, why_size, "out of memory");
        return 0;
    }
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, set))
            continue;
        long pkg = sysfs_number("/cpu/cpu%d/topology/physical_package_id", cpu);
        c[n].cpu = cpu;
        c[n].key[LAYER_SOCKET] = pkg >= 0 ? pkg : 0; /* untold: one socket */
        c[n].key[LAYER_NODE] = bp_topo_group_key("numa_domains", cpu);
        long core = bp_topo_group_key("cores", cpu); /* untold: -1 - cpu */
        c[n].key[LAYER_CORE] = core >= 0 ? core : ((long)1 << 40) + cpu; /* in CPU order */
        c[n].key[LAYER_THREAD] = cpu;
        n++;
    }
    qsort(c, (size_t)n, sizeof *c, by_layers);
    /* In key order a layer's units in one parent (the layers above) come
     * one after the other: a unit's rank there counts the changes of its
     * key since the parent's first CPU. Every rank must be inside what is
     * asked, and every parent must hold what is asked; the CPUs a layer
     * above dropped are no parent's. */
    cpu_set_t kept;
    CPU_ZERO(&kept);
    static const char *const unit_names[LAYERS] = {"sockets", "NUMA nodes", "cores",
                                                   "threads"};
    static const char *const parent_names[LAYERS] = {"the machine", "a socket",
                                                     "a NUMA node of a socket", "a core"};
    int ok = 1;
    for (int l = 0; l < LAYERS && ok; l++) {
        if (want[l] == 0)
            continue;
        /* over the CPUs the layers above kept: prev is the last of them */
        long units = 0;
        int prev = -1;
        for (int i = 0; i <= n && ok; i++) {
            if (i < n && c[i].cpu < 0)
                continue;
            int new_parent = i == n || prev < 0;
            for (int h = 0; h < l && !new_parent; h++)
                new_parent = (!absolute || want[h] != 0) && c[i].key[h] != c[prev].key[h];
            if (new_parent) {
                if (prev >= 0 &&
                    (units <= skip[l] || (want[l] > 0 && units < skip[l] + want[l]))) {
                    char count[32] = "the";
                    if (want[l] > 0)
                        snprintf(count, sizeof count, "%ld", want[l]);
                    int up = l; /* the parent: the layer above, or the named one */
                    while (absolute && up > 0 && want[up - 1] == 0)
                        up--;
                    snprintf(why, why_size, "it asks for %s %s after the first %ld, but %s has %ld",
                             count, unit_names[l], skip[l], parent_names[up], units);
                    ok = 0;
                }
                units = 0;
            }
            if (i == n)
                break;
            if (new_parent || c[i].key[l] != c[prev].key[l])
                units++;
            prev = i;
            long rank = units - 1; /* of the CPU's unit in its parent */
            if (rank < skip[l] || (want[l] > 0 && rank >= skip[l] + want[l]))
                c[i].cpu = -1 - c[i].cpu; /* dropped */
        }
    }
    for (int i = 0; i < n && ok; i++)
        if (c[i].cpu >= 0)
            CPU_SET(c[i].cpu, &kept);
    free(c);
    if (ok && CPU_COUNT(&kept) == 0) {
        snprintf(why, why_size, "it keeps no CPU the process may run on");
        ok = 0;
    }
    if (ok)
        *set = kept;
    return ok;
}
