/* topology.c: what the machine tells of its CPUs, from sysfs
 * (/sys/devices/system): which core, package, NUMA node and last-level
 * cache each CPU belongs to. places.c groups CPUs into places with it. The
 * root of the tree can be moved (bp_topo_set_root) so that tests read fake
 * trees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *root = "/sys/devices/system";

void bp_topo_set_root(const char *path) { root = path; }

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
    if (strcmp(kind, "numa_domains") == 0) {
        for (int node = 0; node < 1024; node++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/node/node%d/cpu%d", root, node, cpu);
            FILE *f = fopen(path, "r");
            if (f != NULL) {
                fclose(f);
                return node;
            }
        }
        return 0; /* no NUMA information: one domain */
    }
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
