#!/usr/bin/env python3
"""check-cgroup.py: the default team under a real cgroup CPU quota.

  check-cgroup.py TEAM_PROGRAM

Makes a cgroup with a CPU quota (cgroup v2's cpu.max where the machine's
unified hierarchy has the cpu controller, else v1's cpu.cfs_quota_us),
runs TEAM_PROGRAM (tests/deploy/team.c on buddypool) inside it and checks:
  - a quota of 1 CPU: the default team and omp_get_max_threads() are 1,
    omp_get_num_procs() still the allowed CPUs, and OMP_DISPLAY_ENV=true
    names the quota and its file
  - 1.5 CPUs: 2 threads (rounded up, at most the allowed CPUs)
  - 1 CPU on a parent cgroup, none on the process's own: 1 (an ancestor's
    quota holds)
  - an explicit size (OMP_NUM_THREADS=2, num_threads(2)) is honoured under
    a quota of 1, with the warning that the threads share the quota
  - no quota: one thread per allowed CPU
The cgroups are removed at the end. Exits 77 (skipped) with the reason where
the machine allows no such cgroup (not root, no writable cgroup file system,
no cpu controller) or has a single CPU (nothing to lower).
"""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, ".."), os.path.join(here, "..", "..", "bench")]
import cgroup  # noqa: E402  (bench/cgroup.py)
from checks import expect, report  # noqa: E402  (tests/checks.py)

SKIP = 77


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def run(prog, cg, cgroup_dir, args=(), env_extra=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "BUDDY_THREAD_POOL_", "GOMP_", "KMP_"))}
    env.update(env_extra or {})

    p = subprocess.run([prog] + list(args), env=env, capture_output=True, text=True,
                       timeout=120, preexec_fn=lambda: cg.enter(cgroup_dir))
    if p.returncode != 0:
        sys.exit("FAIL: %s %s in %s: exit %d\n%s%s" % (prog, " ".join(args), cgroup_dir,
                                                      p.returncode, p.stdout, p.stderr))
    line = [l for l in p.stdout.splitlines() if l.startswith("TEAM ")]
    if not line:
        sys.exit("FAIL: no TEAM line from %s:\n%s" % (prog, p.stdout))
    fields = dict(kv.split("=", 1) for kv in line[0].split()[1:])
    return {k: (int(v) if v.lstrip("-").isdigit() else v) for k, v in fields.items()}, p.stderr




def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check-cgroup.py TEAM_PROGRAM")
    prog = sys.argv[1]
    ncpus = len(os.sched_getaffinity(0))
    if ncpus < 2:
        skip("a single allowed CPU: a quota cannot lower the default team")
    try:
        cg = cgroup.make_cgroup()
    except cgroup.Unavailable as e:
        skip(str(e))
    print("cgroup %s (%s)" % (cg.path, "v2 cpu.max" if cg.v2 else "v1 cpu.cfs_quota_us"))
    quota_file = cg.quota_file()
    try:
        cg.quota(1)
        r, err = run(prog, cg, cg.path, env_extra={"OMP_DISPLAY_ENV": "true"})
        expect("quota 1: default team", r["team"], 1)
        expect("quota 1: omp_get_max_threads", r["max_threads"], 1)
        expect("quota 1: omp_get_num_procs stays the allowed CPUs", r["procs"], ncpus)
        want = "BUDDY_THREAD_POOL_DEFAULT_TEAM = '1' (the CPU quota, 1.00 CPUs"
        expect("quota 1: OMP_DISPLAY_ENV says where the default came from",
               want in err and quota_file in err, True)

        cg.quota(1.5)
        r, _ = run(prog, cg, cg.path)
        expect("quota 1.5: rounded up", r["team"], min(2, ncpus))

        cg.quota(1)
        r, err = run(prog, cg, cg.path, env_extra={"OMP_NUM_THREADS": "2"})
        expect("quota 1, OMP_NUM_THREADS=2: honoured", r["team"], 2)
        expect("quota 1, OMP_NUM_THREADS=2: no note unless the settings are displayed",
               "CPUs of CPU quota" in err, False)
        r, err = run(prog, cg, cg.path, env_extra={"OMP_NUM_THREADS": "2",
                                                   "OMP_DISPLAY_ENV": "true"})
        expect("quota 1, OMP_NUM_THREADS=2, OMP_DISPLAY_ENV=true: the note names the quota",
               "CPUs of CPU quota" in err, True)
        r, _ = run(prog, cg, cg.path, args=("2",))
        expect("quota 1, num_threads(2): honoured", r["team"], 2)

        inner = cg.child()
        cg.quota(None, inner)
        r, _ = run(prog, cg, inner)
        expect("a parent's quota of 1, none on the process's cgroup", r["team"], 1)

        cg.quota(None)
        r, err = run(prog, cg, cg.path, env_extra={"OMP_DISPLAY_ENV": "true"})
        expect("no quota: one thread per allowed CPU", r["team"], ncpus)
        expect("no quota: OMP_DISPLAY_ENV adds nothing",
               "BUDDY_THREAD_POOL_DEFAULT_TEAM" in err, False)
    finally:
        cg.remove()
    sys.exit(report("the default team follows the CPU quota"))


if __name__ == "__main__":
    main()
