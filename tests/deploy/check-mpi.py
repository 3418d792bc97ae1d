#!/usr/bin/env python3
"""check-mpi.py: MPI ranks on buddypool, each kept to its CPUs.

  check-mpi.py MPIRUN PROGRAM [--preload LIB]

Runs PROGRAM (tests/deploy/mpi-team.c) as 2 ranks with Open MPI's mpirun
(--allow-run-as-root: CI runs as root), each bound to a core
(--bind-to core), with buddypool linked in, or with LIB preloaded into
every rank (-x LD_PRELOAD). Checks, for the default team and for
OMP_NUM_THREADS=2: every rank reports, the ranks' masks are disjoint, a
rank's default team is the CPUs of its mask, an explicit size is honoured,
every region of a rank got the same team, its workers are buddypool's
threads, and no thread of any region ran outside its rank's mask. Exits 77 (skipped) with the reason where the
machine has fewer than 2 allowed CPUs or mpirun cannot start 2 ranks.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import expect, report  # noqa: E402  (tests/checks.py)

SKIP = 77


def mpirun(mpirun_path, program, env_extra, preload):
    cmd = [mpirun_path, "--allow-run-as-root", "-np", "2", "--bind-to", "core"]
    for k, v in env_extra.items():
        cmd += ["-x", "%s=%s" % (k, v)]
    if preload:
        cmd += ["-x", "LD_PRELOAD=%s" % preload]
    cmd.append(program)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "BUDDY_THREAD_POOL_", "GOMP_", "KMP_"))}
    # Open MPI's shared-memory transport in a container without ptrace
    # rights warns about its single-copy mechanism: the copy-in/out one is
    # as right, and quiet
    env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    return p, cmd


def main():
    if len(sys.argv) not in (3, 5) or (len(sys.argv) == 5 and sys.argv[3] != "--preload"):
        sys.exit("usage: check-mpi.py MPIRUN PROGRAM [--preload LIB]")
    mpirun_path, program = sys.argv[1], sys.argv[2]
    preload = sys.argv[4] if len(sys.argv) == 5 else None
    if len(os.sched_getaffinity(0)) < 2:
        print("SKIP: fewer than 2 allowed CPUs: two ranks cannot each have a core")
        sys.exit(SKIP)
    for label, env_extra, want_team in (("default team", {}, None),
                                        ("OMP_NUM_THREADS=2", {"OMP_NUM_THREADS": "2"}, 2)):
        p, cmd = mpirun(mpirun_path, program, env_extra, preload)
        lines = re.findall(r"^RANK (\d+) (.*)$", p.stdout, re.M)
        if p.returncode != 0 and not lines:
            if "not enough slots" in p.stderr or "There are not enough slots" in p.stdout:
                print("SKIP: mpirun cannot start 2 ranks here: %s" % p.stderr.strip()[-500:])
                sys.exit(SKIP)
            sys.exit("FAIL: %s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                 p.stderr))
        print("%s:\n%s" % (" ".join(cmd), p.stdout.strip()))
        ranks = {int(r): dict(kv.split("=", 1) for kv in rest.split()) for r, rest in lines}
        expect("%s: both ranks report" % label, sorted(ranks), [0, 1])
        expect("%s: mpirun's exit status" % label, p.returncode, 0)
        masks = {r: set(map(int, d["mask"].split(","))) for r, d in ranks.items()}
        if len(masks) == 2:
            expect("%s: the ranks' masks are disjoint" % label, masks[0] & masks[1], set())
        for r, d in sorted(ranks.items()):
            want = want_team if want_team is not None else len(masks[r])
            expect("%s: rank %d's team" % (label, r), int(d["team"]), want)
            expect("%s: rank %d: no thread outside its mask" % (label, r), int(d["outside"]), 0)
            expect("%s: rank %d: every region the same team" % (label, r), int(d["varied"]), 0)
            # 200 regions, each worker of each on a buddypool thread
            expect("%s: rank %d: the workers are buddypool's" % (label, r),
                   int(d["pool_workers"]), 200 * (int(d["team"]) - 1))
    sys.exit(report("each rank's pool keeps to its CPUs%s" % (" (preloaded)" if preload else "")))


if __name__ == "__main__":
    main()
