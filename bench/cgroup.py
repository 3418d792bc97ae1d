"""cgroup.py: a cgroup with a CPU quota, for the benchmarks and tests that
run programs under one (bench/quota.py, tests/deploy/check-cgroup.py).

  cg = make_cgroup()            # or raises Unavailable naming why not
  cg.quota(1.5)                 # 1.5 CPUs; None: no quota
  subprocess.run(cmd, preexec_fn=cg.enter)
  cg.remove()

cgroup v2's cpu.max where the unified hierarchy has the cpu controller
(enabled for the root's children if it is not yet), else v1's
cpu.cfs_quota_us in the cpu controller's hierarchy. Needs root.
"""
import os


class Unavailable(Exception):
    """No cgroup with a CPU quota can be made here; the message says why."""


def mounts():
    """(fstype, mount point, super options) of every cgroup mount."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rest = left.split(), right.split()
            if len(fields) >= 5 and len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2"):
                point = fields[4].replace("\\040", " ")
                out.append((rest[0], point, rest[2].split(",")))
    return out


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


class Cgroup:
    """A fresh cgroup under base, v2 or v1, with children made on request."""

    def __init__(self, base, v2, name):
        self.v2 = v2
        self.path = os.path.join(base, name)
        os.mkdir(self.path)
        self.children = []

    def child(self, name="inner"):
        c = os.path.join(self.path, name)
        os.mkdir(c)
        self.children.append(c)
        return c

    def quota_file(self, where=None):
        return os.path.join(where or self.path, "cpu.max" if self.v2 else "cpu.cfs_quota_us")

    def quota(self, cpus, where=None):
        """The quota of `where` (this cgroup by default): cpus CPUs, or none."""
        where = where or self.path
        if self.v2:
            write(os.path.join(where, "cpu.max"),
                  "max 100000" if cpus is None else "%d 100000" % round(cpus * 100000))
        else:
            write(os.path.join(where, "cpu.cfs_period_us"), "100000")
            write(os.path.join(where, "cpu.cfs_quota_us"),
                  "-1" if cpus is None else str(round(cpus * 100000)))

    def enter(self, where=None):
        """Move the calling process into `where` (for preexec_fn)."""
        write(os.path.join(where or self.path, "cgroup.procs"), str(os.getpid()))

    def remove(self):
        for c in self.children[::-1] + [self.path]:
            try:
                os.rmdir(c)
            except OSError as e:
                print("note: could not remove %s: %s" % (c, e))


def make_cgroup(name=None):
    """A fresh cgroup whose CPU quota can be set; raises Unavailable."""
    name = name or "bp-quota-%d" % os.getpid()
    if os.geteuid() != 0:
        raise Unavailable("not root: no cgroup can be made")
    found = mounts()
    if not found:
        raise Unavailable("no cgroup file system is mounted")
    reasons = []
    for fstype, point, opts in found:
        if fstype != "cgroup2":
            continue
        try:
            with open(os.path.join(point, "cgroup.controllers")) as f:
                if "cpu" not in f.read().split():
                    reasons.append("%s: no cpu controller" % point)
                    continue
            sub = os.path.join(point, "cgroup.subtree_control")
            with open(sub) as f:
                if "cpu" not in f.read().split():
                    write(sub, "+cpu")
            cg = Cgroup(point, True, name)
            if os.path.exists(cg.quota_file()):
                return cg
            cg.remove()
            reasons.append("%s: no cpu.max in a new cgroup" % point)
        except OSError as e:
            reasons.append("%s: %s" % (point, e))
    for fstype, point, opts in found:
        if fstype == "cgroup" and "cpu" in opts:
            try:
                cg = Cgroup(point, False, name)
                cg.quota(None)
                return cg
            except OSError as e:
                reasons.append("%s: %s" % (point, e))
    raise Unavailable("no cgroup with a CPU quota can be made here (%s)" %
                      "; ".join(reasons or ["no cpu controller mounted"]))
