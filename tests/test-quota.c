/* test-quota.c: the CPU quota (quota.c) read from fake cgroup trees written
 * to a temporary directory: /proc/self/cgroup, /proc/self/mountinfo and the
 * cgroup files under the mount points they name.
 *   v2: cpu.max in the process's cgroup; a smaller one in an ancestor;
 *       "max" everywhere (none); the root only (none: it has no cpu.max)
 *   v1: the cpu controller's cfs quota and period, in a container whose
 *       cgroup is the mount's root; in an ancestor; -1 (none); the cpu
 *       controller mounted with cpuacct; cpuset alone is not it
 *   both mounted: the smaller of the two; a hybrid machine whose v2 side
 *       has no quota files
 *   rounding up (1.5 CPUs: 2; 1 us: 1), a mount point with an escaped
 *       space, no cgroup files at all
 *   garbage (cpu.max "abc", "50000", "-5 100000"; cfs quota "12x"; period
 *       0): no quota, and a warning naming the file and the value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/internal.h"
#include "check.h"

static char root[4096];

static void mkdirs(const char *path)
{
    char p[8192];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

/* Write text to root/rel, making its directories. */
static void put(const char *rel, const char *text)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    mkdirs(path);
    *slash = '/';
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void fresh(void)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_EQ(system(cmd), 0);
    mkdirs(root);
}

static const char *const V2_MOUNT =
    "24 30 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n";
static const char *const ROOTFS_MOUNT =
    "22 1 0:21 / / rw,relatime - overlay overlay rw,lowerdir=/x\n";

/* bp_cpu_quota on the tree: its answer and the CPUs, rounded up, must be
 * want_cpus (0: no quota), read from a file ending in want_file; a warning
 * naming warn_text must be printed when it is given, none when not. */
static void expect(const char *what, int want_cpus, const char *want_file, const char *warn_text)
{
    char errs[8192];
    snprintf(errs, sizeof errs, "%s/stderr", root);
    fflush(stderr);
    int saved = dup(2);
    FILE *e = fopen(errs, "w+");
    CHECK(e != NULL);
    dup2(fileno(e), 2);
    struct bp_quota q;
    int got = bp_cpu_quota(root, &q);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[8192] = "";
    rewind(e);
    size_t n = fread(text, 1, sizeof text - 1, e);
    text[n] = '\0';
    fclose(e);
    int cpus = got ? bp_quota_cpus(&q) : 0;
    int ok = (got != 0) == (want_cpus != 0) && cpus == want_cpus;
    size_t fl = want_file != NULL ? strlen(want_file) : 0, ql = strlen(q.file);
    if (ok && want_file != NULL)
        ok = ql >= fl && strcmp(q.file + ql - fl, want_file) == 0;
    if (ok && warn_text != NULL)
        ok = strstr(text, "buddypool") != NULL && strstr(text, warn_text) != NULL &&
             strstr(text, "default team is the allowed CPUs") != NULL;
    if (ok && warn_text == NULL)
        ok = text[0] == '\0';
    if (!ok) {
        fprintf(stderr, "FAIL: %s: got %d (%d CPUs, %lld/%lld us from '%s'), want %d CPUs "
                "from ...%s; stderr: '%s'\n", what, got, cpus, q.quota_us, q.period_us,
                q.file, want_cpus, want_file ? want_file : "-", text);
        exit(1);
    }
    printf("ok: %s: %d CPUs%s%s\n", what, cpus, warn_text ? ", warned: " : "",
           warn_text ? warn_text : "");
}

/* A v2 machine (or container with its own cgroup namespace) whose process
 * is in cgroup path. */
static void v2(const char *path)
{
    fresh();
    char text[4096];
    snprintf(text, sizeof text, "0::%s\n", path);
    put("proc/self/cgroup", text);
    snprintf(text, sizeof text, "%s%s", ROOTFS_MOUNT, V2_MOUNT);
    put("proc/self/mountinfo", text);
}

/* A v1 machine: the cpu controller (with cpuacct) at cpu_path, whose
 * mount's root is mount_root, and cpuset elsewhere. */
static void v1(const char *cpu_path, const char *mount_root)
{
    fresh();
    char text[8192];
    snprintf(text, sizeof text, "5:cpuset:/\n4:cpu,cpuacct:%s\n1:name=systemd:/\n", cpu_path);
    put("proc/self/cgroup", text);
    snprintf(text, sizeof text,
             "%s30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
             "31 30 0:28 %s /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup "
             "rw,cpu,cpuacct\n"
             "33 30 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n",
             ROOTFS_MOUNT, mount_root);
    put("proc/self/mountinfo", text);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/bp-quota-%ld", tmp ? tmp : "/tmp", (long)getpid());

    /* ---- cgroup v2 ---- */
    v2("/kubepods/pod1/ctr");
    put("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "150000 100000\n");
    put("sys/fs/cgroup/kubepods/pod1/cpu.max", "max 100000\n");
    expect("v2: 1.5 CPUs in the process's cgroup, rounded up", 2, "pod1/ctr/cpu.max", NULL);
    put("sys/fs/cgroup/kubepods/cpu.max", "50000 100000\n");
    expect("v2: an ancestor's 0.5 CPUs holds for its children", 1, "kubepods/cpu.max", NULL);
    put("sys/fs/cgroup/kubepods/cpu.max", "400000 50000\n");
    expect("v2: an ancestor's 8 CPUs: the cgroup's own 1.5 is smaller", 2, "ctr/cpu.max",
           NULL);
    put("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n");
    put("sys/fs/cgroup/kubepods/cpu.max", "max 100000\n");
    expect("v2: max everywhere: no quota", 0, NULL, NULL);
    put("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "1 100000\n");
    expect("v2: 1 us in 100 ms is still one thread", 1, "ctr/cpu.max", NULL);
    put("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "1000000 100000\n");
    expect("v2: 10 CPUs", 10, "ctr/cpu.max", NULL);
    put("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "abc\n");
    expect("v2: garbage", 0, NULL, "holds 'abc'");
    put("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "50000\n");
    expect("v2: a quota without its period", 0, NULL, "holds '50000'");
    put("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "-5 100000\n");
    expect("v2: a negative quota", 0, NULL, "holds '-5 100000'");
    put("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "100000 0\n");
    expect("v2: a period of 0", 0, NULL, "holds '100000 0'");
    put("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "");
    expect("v2: an empty file", 0, NULL, NULL); /* unreadable: as if absent */

    v2("/");
    expect("v2: the root cgroup (no cpu.max there)", 0, NULL, NULL);
    put("sys/fs/cgroup/cpu.max", "200000 100000\n");
    expect("v2: a container's namespace root with a quota", 2, "sys/fs/cgroup/cpu.max", NULL);

    /* a mount point with a space, escaped as the kernel writes it */
    fresh();
    put("proc/self/cgroup", "0::/a\n");
    put("proc/self/mountinfo",
        "24 30 0:22 / /sys/fs/my\\040cgroup rw - cgroup2 cgroup2 rw\n");
    put("sys/fs/my cgroup/a/cpu.max", "300000 100000\n");
    expect("v2: an escaped mount point", 3, "my cgroup/a/cpu.max", NULL);

    /* ---- cgroup v1 ---- */
    v1("/docker/abc", "/docker/abc"); /* the container's cgroup is the mount's root */
    put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "200000\n");
    put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    expect("v1: a container's cgroup mounted as the root", 2, "cpu,cpuacct/cpu.cfs_quota_us",
           NULL);
    v1("/x/y", "/");
    put("sys/fs/cgroup/cpu,cpuacct/x/y/cpu.cfs_quota_us", "-1\n");
    put("sys/fs/cgroup/cpu,cpuacct/x/y/cpu.cfs_period_us", "100000\n");
    put("sys/fs/cgroup/cpu,cpuacct/x/cpu.cfs_quota_us", "250000\n");
    put("sys/fs/cgroup/cpu,cpuacct/x/cpu.cfs_period_us", "100000\n");
    put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
    put("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    expect("v1: an ancestor's 2.5 CPUs, rounded up", 3, "x/cpu.cfs_quota_us", NULL);
    put("sys/fs/cgroup/cpu,cpuacct/x/cpu.cfs_quota_us", "-1\n");
    expect("v1: -1 everywhere: no quota", 0, NULL, NULL);
    put("sys/fs/cgroup/cpu,cpuacct/x/y/cpu.cfs_quota_us", "12x\n");
    expect("v1: a garbage quota", 0, NULL, "holds '12x'");
    put("sys/fs/cgroup/cpu,cpuacct/x/y/cpu.cfs_quota_us", "100000\n");
    put("sys/fs/cgroup/cpu,cpuacct/x/y/cpu.cfs_period_us", "0\n");
    expect("v1: a period of 0", 0, NULL, "cpu.cfs_period_us beside a quota of 100000 us");
    put("sys/fs/cgroup/cpu,cpuacct/x/y/cpu.cfs_period_us", "100000\n");
    expect("v1: 1 CPU", 1, "x/y/cpu.cfs_quota_us", NULL);
    /* cpuset alone is not the cpu controller: its quota files are not read */
    put("sys/fs/cgroup/cpuset/cpu.cfs_quota_us", "50000\n");
    put("sys/fs/cgroup/cpuset/cpu.cfs_period_us", "100000\n");
    expect("v1: cpuset's hierarchy is not the cpu controller's", 1, "x/y/cpu.cfs_quota_us",
           NULL);

    /* ---- both mounted ---- */
    v1("/x", "/");
    put("sys/fs/cgroup/cpu,cpuacct/x/cpu.cfs_quota_us", "300000\n");
    put("sys/fs/cgroup/cpu,cpuacct/x/cpu.cfs_period_us", "100000\n");
    {
        char text[8192];
        snprintf(text, sizeof text, "%s/proc/self/mountinfo", root);
        FILE *f = fopen(text, "a");
        CHECK(f != NULL);
        fputs("40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n", f);
        fclose(f);
        snprintf(text, sizeof text, "%s/proc/self/cgroup", root);
        f = fopen(text, "a");
        CHECK(f != NULL);
        fputs("0::/\n", f);
        fclose(f);
    }
    expect("hybrid: v1's quota, v2's side without quota files", 3, "x/cpu.cfs_quota_us", NULL);
    put("sys/fs/cgroup/unified/cpu.max", "150000 100000\n");
    expect("both with a quota: the smaller", 2, "unified/cpu.max", NULL);

    /* ---- nothing to read ---- */
    fresh();
    expect("no /proc/self/cgroup", 0, NULL, NULL);
    put("proc/self/cgroup", "0::/a\n");
    expect("no mountinfo", 0, NULL, NULL);
    put("proc/self/mountinfo", ROOTFS_MOUNT);
    expect("no cgroup mount", 0, NULL, NULL);

    char cmd[8192];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_EQ(system(cmd), 0);
    return 0;
}
