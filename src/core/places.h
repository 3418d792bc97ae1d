/* places.h: the machine: the topology sysfs tells (topology.c) and
 * the place list threads are bound to (places.c). */
#ifndef BUDDYPOOL_PLACES_H
#define BUDDYPOOL_PLACES_H

#include <sched.h>

/* Places a list holds, at most. */
enum { BP_MAX_PLACES = 4096 };

/* topology.c */

/* A CPU list as sysfs writes it ("0-3,8,10-11") at path into *set; 0 if
 * unreadable or empty. */
int bp_read_cpu_list(const char *path, cpu_set_t *set);
/* Read the topology under path instead of /sys/devices/system (tests). */
void bp_topo_set_root(const char *path);
/* Forget what was read (the pool's shutdown). */
void bp_topo_free(void);
/* The key that groups CPUs into places of kind ("threads", "cores",
 * "ll_caches", "numa_domains", "sockets"): CPUs with equal keys share a
 * place; a CPU whose key the machine does not tell gets one of its own. */
long bp_topo_group_key(const char *kind, int cpu);
/* The allowed CPUs in the pool's placement order (the top of topology.c):
 * first threads of cores before SMT siblings, a NUMA node's CPUs together.
 * At most max into cpus, with each one's SMT rank in its core and its NUMA
 * node; their count, or -1 when out of memory. */
int bp_topo_order(const cpu_set_t *allowed, int *cpus, long *smt, long *node, int max);

/* KMP_HW_SUBSET's value applied to *set (libomp's syntax: comma-separated
 * "[count|*]unit[@offset]", spaces anywhere, unit s/socket/package,
 * n/numa, c/core, t/thread; not its older "x" separators and "o" offsets,
 * nor its other units and core attributes; in each unit of the layer
 * above, keep `count` (all: `*` or none) of the next layer's units after
 * the first `offset`; layers not named keep all): 1 with *set narrowed, or 0 with why (a phrase) when
 * the value is not understood, asks for more than a unit has, or keeps
 * no CPU. */
int bp_topo_subset(const char *spec, cpu_set_t *set, char *why, size_t why_size);

/* places.c */

/* The CPUs the process may run on into *set; their count, 0 if unknown. */
int bp_allowed_cpus(cpu_set_t *set);
/* The place list over the allowed CPUs, from OMP_PLACES or one place per
 * CPU; by the pool's start-up. 0, or -1 when out of memory. */
int bp_places_init(const cpu_set_t *allowed);
int bp_places_count(void);
/* Free the list (the pool's shutdown); no place is left. */
void bp_places_free(void);
/* The places the API lists: OMP_PLACES's, or the pool's one place per CPU
 * unless OMP_PROC_BIND=false (no place when threads are not bound). */
int bp_places_listed(void);
/* Place p's CPUs (NULL when there is no place p). */
const cpu_set_t *bp_place_set(int p);
/* The first place holding cpu, or -1. */
int bp_place_of_cpu(int cpu);
/* The place of thread i of a team whose thread 0 is on place first: under
 * OMP_PLACES the i-th place after it (close); on the pool's own list the
 * i-th nearest: the other first SMT threads of first's NUMA node, then of
 * the other nodes, then the siblings in the same order (i = 0: first). */
int bp_place_near(int first, int i);
/* Thread tid's place in a team of nth under bind policy `policy`
 * (omp_proc_bind_t) forked by a thread on place `at` whose partition is
 * *first, *count (0 places: the whole list); *first, *count become the
 * thread's partition (spread divides it, the others keep it). */
int bp_place_assign(int policy, int at, int tid, int nth, int *first, int *count);

/* quota.c */

/* A CPU quota: quota_us of CPU time in every period_us, read from file. */
struct bp_quota {
    long long quota_us, period_us; /* 0: no quota */
    char file[4160];
};
/* The process's CPU quota, the smallest of its cgroups' and their
 * ancestors' (cgroup v2 cpu.max, v1 cpu.cfs_quota_us), with every path read
 * under root ("" for the machine's; tests give fake trees): 1 with *q set,
 * 0 when none limits it or a value is bad (a warning names it). */
int bp_cpu_quota(const char *root, struct bp_quota *q);
/* The CPUs the quota q allows, rounded up; 0 for none. */
int bp_quota_cpus(const struct bp_quota *q);

#endif
