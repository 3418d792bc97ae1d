/* quota.c: the CPU time the process may use, from its cgroups' CPU quota.
 *
 * A container's CPU limit (docker --cpus, Kubernetes limits.cpu, systemd's
 * CPUQuota) is a bandwidth quota: the cgroup's threads together may run
 * `quota` microseconds in every `period`, however many CPUs they may run
 * on. A team with more threads than the quota allows spends the period's
 * share early and then has all its threads stopped until the next period,
 * in the middle of a barrier as likely as not: a team of 2 under a quota of
 * 1 CPU made libgomp 12 times slower than a team of 1. So the pool's
 * default team is the quota rounded up (1.5 CPUs: 2), never more than the
 * allowed CPUs, as Go sizes GOMAXPROCS and coreutils' nproc counts; an
 * explicit size is still honoured (life.c, fork.c), its threads past the
 * quota waiting politely as threads past the CPUs do.
 *
 * Where the quota is. /proc/self/cgroup names the process's cgroup in each
 * hierarchy ("0::/path" for the unified v2 one, "N:cpu,cpuacct:/path" for
 * a v1 hierarchy with the cpu controller); /proc/self/mountinfo says where
 * each hierarchy is mounted and which of its cgroups is the mount's root (a
 * container without its own cgroup namespace sees its cgroup mounted as the
 * root: the path "/docker/ID" is then the mount point itself). The quota is
 * v2's cpu.max ("QUOTA PERIOD", or "max PERIOD" for none) or v1's
 * cpu.cfs_quota_us (-1 for none) over cpu.cfs_period_us, in the process's
 * cgroup and in each ancestor up to the mount's root: a parent's quota
 * holds for all its children together, so the smallest ratio of all is the
 * process's. Both kinds are read where both are mounted (a hybrid machine
 * has the cpu controller in only one of them; the other has no such
 * files).
 *
 * A value that is not what the kernel writes gets a warning naming the file
 * and the value, and no quota (the CPU count) is taken. The quota is read
 * once, at the pool's start-up; one changed later (a pod resized in place)
 * is not followed. Tests read fake trees: every path is taken under a root
 * that is "" for the machine's. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

enum { PATH_BYTES = 4096 };

/* A mountinfo field as the kernel escapes it (\040 for a space, \011,
 * \012, \134) into out; 0 if it does not fit. */
static int unescape(const char *in, size_t n, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (c == '\\' && i + 3 < n && isdigit((unsigned char)in[i + 1]) &&
            isdigit((unsigned char)in[i + 2]) && isdigit((unsigned char)in[i + 3])) {
            c = (char)((in[i + 1] - '0') * 64 + (in[i + 2] - '0') * 8 + (in[i + 3] - '0'));
            i += 3;
        }
        if (o + 1 >= size)
            return 0;
        out[o++] = c;
    }
    out[o] = '\0';
    return 1;
}

/* Does the comma-separated list hold name as one of its items? */
static int has_item(const char *list, size_t n, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && list[j] != ',')
            j++;
        if (j - i == len && strncmp(list + i, name, len) == 0)
            return 1;
        i = j + 1;
    }
    return 0;
}

/* The directory of cgroup `path` of the hierarchy that a mount of type
 * fstype ("cgroup2", or "cgroup" with the option "cpu") holds, under root,
 * into dir; *mount_len is the length of its mount point's part (the walk
 * up stops there). 0 when no such mount holds it. */
static int cgroup_dir(const char *root, const char *fstype, const char *path, char *dir,
                      size_t *mount_len)
{
    char name[PATH_BYTES], line[3 * PATH_BYTES];
    snprintf(name, sizeof name, "%s/proc/self/mountinfo", root);
    FILE *f = fopen(name, "r");
    if (f == NULL)
        return 0;
    size_t best = 0;
    int found = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        /* id parent major:minor root mount-point options [optional...] - type source super */
        const char *field[5];
        size_t len[5];
        const char *p = line;
        int k = 0;
        for (; k < 5 && *p != '\0'; k++) {
            while (*p == ' ')
                p++;
            field[k] = p;
            while (*p != ' ' && *p != '\n' && *p != '\0')
                p++;
            len[k] = (size_t)(p - field[k]);
        }
        const char *dash = strstr(p, " - ");
        if (k < 5 || dash == NULL)
            continue;
        char type[64], source[PATH_BYTES], super[PATH_BYTES];
        if (sscanf(dash + 3, "%63s %4095s %4095s", type, source, super) != 3 ||
            strcmp(type, fstype) != 0)
            continue;
        if (strcmp(fstype, "cgroup") == 0 && !has_item(super, strlen(super), "cpu"))
            continue;
        char mroot[PATH_BYTES], mpoint[PATH_BYTES];
        if (!unescape(field[3], len[3], mroot, sizeof mroot) ||
            !unescape(field[4], len[4], mpoint, sizeof mpoint))
            continue;
        /* the mount shows mroot's subtree: path must lie in it */
        size_t rl = strcmp(mroot, "/") == 0 ? 0 : strlen(mroot);
        if (strncmp(path, mroot, rl) != 0 || (path[rl] != '/' && path[rl] != '\0'))
            continue;
        if (found && rl < best) /* a mount of a deeper root shows more of the path */
            continue;
        char candidate[PATH_BYTES];
        int n = snprintf(candidate, sizeof candidate, "%s%s%s", root, mpoint, path + rl);
        if (n <= 0 || n >= PATH_BYTES)
            continue;
        memcpy(dir, candidate, (size_t)n + 1);
        *mount_len = strlen(root) + strlen(mpoint);
        best = rl;
        found = 1;
    }
    fclose(f);
    /* "/a/b/" and "/" leave a slash behind */
    size_t dl = found ? strlen(dir) : 0;
    while (dl > *mount_len && dir[dl - 1] == '/')
        dir[--dl] = '\0';
    return found;
}

/* The first line of the file at path into buf (newline removed); 0 if it
 * cannot be read. */
static int read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int ok = fgets(buf, (int)size, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* A positive decimal count of microseconds (at most about 3 years). */
static int micros(const char *s, long long *out)
{
    char *end;
    while (*s == ' ')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    long long v = strtoll(s, &end, 10);
    while (*end == ' ')
        end++;
    if (*end != '\0' || v <= 0 || v > (1LL << 46))
        return 0;
    *out = v;
    return 1;
}

/* Keep quota/period in *q if it is smaller than what q holds (or q holds
 * none), naming file. */
static void keep(struct bp_quota *q, long long quota, long long period, const char *file)
{
    /* quota/period < q->quota/q->period, in whole numbers: both below 2^47 */
    if (q->quota_us > 0 && (__int128)quota * q->period_us >= (__int128)q->quota_us * period)
        return;
    q->quota_us = quota;
    q->period_us = period;
    snprintf(q->file, sizeof q->file, "%s", file);
}

/* One cgroup directory's quota into q; 0 (and a warning) on a bad value.
 * A directory without the files has none. */
static int dir_quota(const char *dir, int v2, struct bp_quota *q)
{
    char path[PATH_BYTES + 32], text[256], ptext[256];
    long long quota, period;
    if (v2) {
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        if (!read_line(path, text, sizeof text))
            return 1;
        char *space = strchr(text, ' ');
        if (space != NULL) {
            *space = '\0';
            int unlimited = strcmp(text, "max") == 0;
            int ok = micros(space + 1, &period) && (unlimited || micros(text, &quota));
            *space = ' ';
            if (ok && unlimited)
                return 1;
            if (ok) {
                keep(q, quota, period, path);
                return 1;
            }
        }
        bp_warn("%s holds '%s', not 'QUOTA PERIOD' or 'max PERIOD' in microseconds; the CPU "
                "quota is not used: the default team is the allowed CPUs", path, text);
        return 0;
    }
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
    if (!read_line(path, text, sizeof text))
        return 1;
    if (strcmp(text, "-1") == 0)
        return 1;
    char ppath[PATH_BYTES + 32];
    snprintf(ppath, sizeof ppath, "%s/cpu.cfs_period_us", dir);
    if (!micros(text, &quota)) {
        bp_warn("%s holds '%s', not -1 or a positive count of microseconds; the CPU quota is "
                "not used: the default team is the allowed CPUs", path, text);
        return 0;
    }
    if (!read_line(ppath, ptext, sizeof ptext) || !micros(ptext, &period)) {
        bp_warn("%s beside a quota of %lld us is not a positive count of microseconds; the "
                "CPU quota is not used: the default team is the allowed CPUs", ppath, quota);
        return 0;
    }
    keep(q, quota, period, path);
    return 1;
}

/* The quota of cgroup `path` of one hierarchy and its ancestors into q. */
static int hierarchy_quota(const char *root, int v2, const char *path, struct bp_quota *q)
{
    char dir[PATH_BYTES];
    size_t stop = 0;
    if (!cgroup_dir(root, v2 ? "cgroup2" : "cgroup", path, dir, &stop))
        return 1;
    for (;;) {
        if (!dir_quota(dir, v2, q))
            return 0;
        char *slash = strrchr(dir, '/');
        if (slash == NULL || (size_t)(slash - dir) < stop)
            return 1;
        *slash = '\0';
    }
}

int bp_cpu_quota(const char *root, struct bp_quota *q)
{
    q->quota_us = q->period_us = 0;
    q->file[0] = '\0';
    char name[PATH_BYTES], line[PATH_BYTES + 64];
    snprintf(name, sizeof name, "%s/proc/self/cgroup", root);
    FILE *f = fopen(name, "r");
    if (f == NULL)
        return 0;
    int ok = 1;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        /* id:controllers:path */
        char *c1 = strchr(line, ':'), *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL || c2[1] != '/')
            continue;
        if (strncmp(line, "0::", 3) == 0)
            ok = hierarchy_quota(root, 1, c2 + 1, q);
        else if (has_item(c1 + 1, (size_t)(c2 - c1 - 1), "cpu"))
            ok = hierarchy_quota(root, 0, c2 + 1, q);
    }
    fclose(f);
    if (!ok)
        q->quota_us = q->period_us = 0;
    return q->quota_us > 0;
}

int bp_quota_cpus(const struct bp_quota *q)
{
    if (q->quota_us <= 0 || q->period_us <= 0)
        return 0;
    long long n = (q->quota_us + q->period_us - 1) / q->period_us;
    return n < BP_MAX_THREADS ? (int)n : BP_MAX_THREADS;
}
