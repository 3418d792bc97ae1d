/* test-topology.c: the pool's placement order (topology.c) on fake sysfs
 * trees written to a temporary directory: Intel's sibling numbering (n and
 * n + cores), AMD's and Arm's (n and n + 1), two NUMA nodes interleaved,
 * two nodes with SMT, two packages with equal core ids, a subset of the
 * CPUs allowed, and no tree at all (CPU order); the places a team takes
 * from its thread 0's on (places.c's bp_place_near). Also the NUMA node
 * keys OMP_PLACES=numa_domains groups by, and the CPUs KMP_HW_SUBSET keeps
 * (bp_topo_subset). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/internal.h"
#include "check.h"

enum { NCPU = 8 };

struct cpu_spec {
    int package, core, node;
};

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void mkdirs(const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

/* A tree for NCPU CPUs as spec says, under dir (made fresh). */
static void make_tree(const char *dir, const struct cpu_spec *spec)
{
    char path[4096], text[256];
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    CHECK_EQ(system(path), 0);
    for (int cpu = 0; cpu < NCPU; cpu++) {
        snprintf(path, sizeof path, "%s/cpu/cpu%d/topology", dir, cpu);
        mkdirs(path);
        snprintf(path, sizeof path, "%s/cpu/cpu%d/topology/core_id", dir, cpu);
        snprintf(text, sizeof text, "%d\n", spec[cpu].core);
        put(path, text);
        snprintf(path, sizeof path, "%s/cpu/cpu%d/topology/physical_package_id", dir, cpu);
        snprintf(text, sizeof text, "%d\n", spec[cpu].package);
        put(path, text);
    }
    for (int node = 0; node < NCPU; node++) {
        text[0] = '\0';
        for (int cpu = 0; cpu < NCPU; cpu++)
            if (spec[cpu].node == node)
                snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d",
                         text[0] ? "," : "", cpu);
        if (!text[0])
            continue;
        strcat(text, "\n");
        snprintf(path, sizeof path, "%s/node/node%d", dir, node);
        mkdirs(path);
        snprintf(path, sizeof path, "%s/node/node%d/cpulist", dir, node);
        put(path, text);
    }
    bp_topo_set_root(dir);
}

/* The order over the allowed CPUs (a bit mask) must be want[0..n). */
static void expect(const char *what, unsigned allowed_mask, const int *want, int n)
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    for (int cpu = 0; cpu < NCPU; cpu++)
        if (allowed_mask & (1u << cpu))
            CPU_SET(cpu, &allowed);
    int got[NCPU];
    long smt[NCPU], node[NCPU];
    int k = bp_topo_order(&allowed, got, smt, node, NCPU);
    int ok = k == n;
    for (int i = 0; ok && i < n; i++)
        ok = got[i] == want[i];
    if (!ok) {
        fprintf(stderr, "FAIL: %s: got", what);
        for (int i = 0; i < k; i++)
            fprintf(stderr, " %d", got[i]);
        fprintf(stderr, ", want");
        for (int i = 0; i < n; i++)
            fprintf(stderr, " %d", want[i]);
        fprintf(stderr, "\n");
        exit(1);
    }
    printf("ok: %s\n", what);
}

/* KMP_HW_SUBSET's spec over the allowed CPUs (a bit mask): the CPUs kept
 * as a mask, or -1 when it does not apply (why must then be said). */
static long subset(const char *spec, unsigned allowed_mask)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < NCPU; cpu++)
        if (allowed_mask & (1u << cpu))
            CPU_SET(cpu, &set);
    char why[256] = "";
    if (!bp_topo_subset(spec, &set, why, sizeof why)) {
        CHECK(why[0] != '\0');
        printf("ok: KMP_HW_SUBSET='%s' refused: %s\n", spec, why);
        return -1;
    }
    long mask = 0;
    for (int cpu = 0; cpu < NCPU; cpu++)
        if (CPU_ISSET(cpu, &set))
            mask |= 1L << cpu;
    CHECK_EQ(CPU_COUNT(&set), __builtin_popcountl((unsigned long)mask)); /* no CPU beyond */
    return mask;
}

int main(void)
{
    char dir[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/bp-topology-%ld", tmp ? tmp : "/tmp", (long)getpid());
    const unsigned all = (1u << NCPU) - 1;

    /* Intel: 4 cores, CPU n and n + 4 are one core's two threads */
    struct cpu_spec intel[NCPU];
    for (int c = 0; c < NCPU; c++)
        intel[c] = (struct cpu_spec){0, c % 4, 0};
    make_tree(dir, intel);
    expect("Intel numbering: first threads, then siblings", all,
           (const int[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);
    expect("a subset: a sibling after the other cores", (1u << 1) | (1u << 5) | (1u << 2),
           (const int[]){1, 2, 5}, 3);

    /* AMD and most Arm parts: CPU 2k and 2k + 1 share core k */
    struct cpu_spec amd[NCPU];
    for (int c = 0; c < NCPU; c++)
        amd[c] = (struct cpu_spec){0, c / 2, 0};
    make_tree(dir, amd);
    expect("adjacent siblings: one per core first", all, (const int[]){0, 2, 4, 6, 1, 3, 5, 7},
           8);

    /* two nodes interleaved, no SMT: node 0 has the even CPUs */
    struct cpu_spec inter[NCPU];
    for (int c = 0; c < NCPU; c++)
        inter[c] = (struct cpu_spec){c % 2, c, c % 2};
    make_tree(dir, inter);
    expect("interleaved nodes: a node's CPUs together", all,
           (const int[]){0, 2, 4, 6, 1, 3, 5, 7}, 8);
    CHECK_EQ(bp_topo_group_key("numa_domains", 5), 1);
    CHECK_EQ(bp_topo_group_key("numa_domains", 4), 0);

    /* two nodes of two cores of two threads: 0-3 node 0, siblings adjacent */
    struct cpu_spec both[NCPU];
    for (int c = 0; c < NCPU; c++)
        both[c] = (struct cpu_spec){c / 4, (c / 2) % 2, c / 4};
    make_tree(dir, both);
    expect("nodes and SMT: every core of node 0, of node 1, then siblings", all,
           (const int[]){0, 2, 4, 6, 1, 3, 5, 7}, 8);
    expect("one node's CPUs allowed", 0x0f, (const int[]){0, 2, 1, 3}, 4);
    /* a team whose thread 0 runs on CPU 6 (node 1): node 1's other core,
     * node 0's cores, then the siblings, node 1's first */
    cpu_set_t every;
    CPU_ZERO(&every);
    for (int c = 0; c < NCPU; c++)
        CPU_SET(c, &every);
    CHECK_EQ(bp_places_init(&every), 0);
    static const int near6[NCPU] = {6, 4, 0, 2, 5, 7, 1, 3};
    int first = bp_place_of_cpu(6);
    for (int i = 0; i < 2 * NCPU; i++) {
        const cpu_set_t *set = bp_place_set(bp_place_near(first, i));
        CHECK(set != NULL && CPU_ISSET(near6[i % NCPU], set));
    }
    printf("ok: a team from CPU 6 stays on node 1's cores, then node 0's, then siblings\n");
    bp_places_free();

    /* KMP_HW_SUBSET on the same machine: sockets (= nodes) 0-3 and 4-7,
     * cores {0,1} {2,3} {4,5} {6,7} */
    CHECK_EQ(subset("1s", all), 0x0f);
    CHECK_EQ(subset("1s@1", all), 0xf0);
    CHECK_EQ(subset("1n", all), 0xff);                 /* each socket's one node */
    CHECK_EQ(subset("2n", all), -1);
    CHECK_EQ(subset("1t", all), 0x55);                 /* a thread of each core */
    CHECK_EQ(subset("1c,1t", all), 0x11);              /* of each socket's first core */
    CHECK_EQ(subset("1s,1c@1,2t", all), 0x0c);
    CHECK_EQ(subset("*s,1c", all), 0x33);
    CHECK_EQ(subset("2s,2c,2t", all), 0xff);
    CHECK_EQ(subset(" 1S , 1C ", all), 0x03);          /* case and spaces */
    CHECK_EQ(subset("1t@1,1s", all), 0x0a);            /* any order, layers sorted */
    CHECK_EQ(subset("1t", all & ~1u), 0x56);           /* CPU 1 is its core's first allowed */
    CHECK_EQ(subset("3c", all), -1);                   /* more than a socket has */
    CHECK_EQ(subset("1s@2", all), -1);
    CHECK_EQ(subset("2t", 0x57), -1);                  /* core {6,7} has one allowed */
    CHECK_EQ(subset("0c", all), -1);
    CHECK_EQ(subset("1q", all), -1);
    CHECK_EQ(subset("1c:intel_core", all), -1);        /* core attributes */
    CHECK_EQ(subset("1L2", all), -1);                  /* cache layers */
    CHECK_EQ(subset("1c,2c", all), -1);                /* a layer twice */
    CHECK_EQ(subset("1c,", all), -1);                  /* an empty item */
    CHECK_EQ(subset("1 s , 1 c", all), 0x03);          /* spaces anywhere, as libomp */
    CHECK_EQ(subset("1s,2c", 0x3f), 0x0f);             /* socket 1's lone core is dropped */
    CHECK_EQ(subset("2c", 0x3f), -1);                  /* ... but must hold 2 without 1s */
    CHECK_EQ(subset("99999999999999999999c", all), -1);
    /* libomp's absolute form: units counted in the nearest named layer */
    CHECK_EQ(subset(":1s,2t@1", all), 0x06);           /* socket 0's 2nd and 3rd threads */
    CHECK_EQ(subset("1s,2t@1", all), -1);              /* per core: a core has 2 threads */
    CHECK_EQ(subset(":3t", all), 0x07);                /* the machine's first 3 threads */
    CHECK_EQ(subset(":2c,1t", all), 0x05);             /* the first 2 cores, a thread each */
    CHECK_EQ(subset(":1s@1,1c", all), 0x30);
    CHECK_EQ(subset(" :5t", all), 0x1f);
    CHECK_EQ(subset(":1s,5t", all), -1);               /* a socket has 4 */
    CHECK_EQ(subset("1c@5000", all), -1);
    printf("ok: KMP_HW_SUBSET keeps the units asked for in each unit above\n");

    /* two packages whose cores have the same ids: not siblings */
    struct cpu_spec pkgs[NCPU];
    for (int c = 0; c < NCPU; c++)
        pkgs[c] = (struct cpu_spec){c / 4, c % 4, 0};
    make_tree(dir, pkgs);
    expect("equal core ids in two packages are two cores", all,
           (const int[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);

    /* no tree: CPU order, one node */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ(system(cmd), 0);
    bp_topo_set_root(dir);
    expect("no topology: CPU order", all, (const int[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);
    CHECK_EQ(bp_topo_group_key("numa_domains", 3), 0);
    /* KMP_HW_SUBSET with nothing told: one socket of one-CPU cores, in
     * CPU order */
    CHECK_EQ(subset("1c", all), 0x01);
    CHECK_EQ(subset("2c@1", all), 0x06);
    CHECK_EQ(subset("1s,1c,1t", all & ~1u), 0x02);
    CHECK_EQ(subset("2t", all), -1);
    bp_topo_free();
    printf("test-topology: passed\n");
    return 0;
}
