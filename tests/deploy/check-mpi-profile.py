#!/usr/bin/env python3
"""check-mpi-profile.py: the profiles of an MPI job's ranks, and one report
of them.

  check-mpi-profile.py MPIRUN PROGRAM BUDDYPOOL

Runs PROGRAM (tests/deploy/mpi-team.c, buddypool linked in) as 2 Open MPI
ranks, profiled:
  - BUDDY_THREAD_POOL_PROFILE_OUT=DIR/p.json (no pattern): the ranks are one
    run, named after the MPI job; one writes p.json, the other p.json.<pid>
    and says so; each JSON names its rank and host;
  - DIR/p-%r.json: p-0.json and p-1.json, rank 0's and rank 1's;
  - `buddypool report 'DIR/p-*.json'` (a glob) shows both processes, the
    slowest process at the steps, and the functions summed (their regions
    add up); --html writes the same page; a glob that matches nothing is an
    error naming it.
Exits 77 (skipped) where the machine has fewer than 2 allowed CPUs.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import expect, report  # noqa: E402  (tests/checks.py)


def mpirun(mpirun_path, program, out):
    cmd = [mpirun_path, "--allow-run-as-root", "-np", "2", "--bind-to", "core",
           "-x", "BUDDY_THREAD_POOL_PROFILE=1", "-x", "BUDDY_THREAD_POOL_PROFILE_OUT=" + out,
           "-x", "OMP_NUM_THREADS=2", program]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "BUDDY_THREAD_POOL_", "GOMP_", "KMP_"))}
    env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit("FAIL: %s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: check-mpi-profile.py MPIRUN PROGRAM BUDDYPOOL")
    mpirun_path, program, cli = sys.argv[1:]
    if len(os.sched_getaffinity(0)) < 2:
        print("SKIP: fewer than 2 allowed CPUs: two ranks cannot each have a core")
        sys.exit(77)
    tmp = tempfile.mkdtemp()

    p = mpirun(mpirun_path, program, os.path.join(tmp, "p.json"))
    files = sorted(glob.glob(os.path.join(tmp, "p.json*")))
    expect("no pattern: p.json and p.json.<pid>", [os.path.basename(f).split(".")[:2]
                                                   for f in files], [["p", "json"], ["p", "json"]])
    profs = [json.load(open(f)) for f in files]
    expect("no pattern: one run, named after the MPI job",
           len({q["run"] for q in profs}) == 1 and profs[0]["run"].startswith("mpi-"), True)
    expect("no pattern: each file is its rank's", sorted(q.get("rank") for q in profs), [0, 1])
    expect("no pattern: each names its host", all(q.get("host") for q in profs), True)
    if len(files) == 2:
        other = [f for f in files if not f.endswith("p.json")][0]
        pid = other.rsplit(".", 1)[1]
        expect("no pattern: the second rank says where it wrote",
               "JSON profile written to %s (the run's first process wrote the given path)" % other
               in p.stderr and json.load(open(other))["pid"] == int(pid), True)

    mpirun(mpirun_path, program, os.path.join(tmp, "p-%r.json"))
    ranks = {}
    for r in (0, 1):
        f = os.path.join(tmp, "p-%d.json" % r)
        ranks[r] = json.load(open(f)) if os.path.exists(f) else None
        expect("%%r: p-%d.json is rank %d's" % (r, r), (ranks[r] or {}).get("rank"), r)

    r = subprocess.run([cli, "report", os.path.join(tmp, "p-*.json")], capture_output=True,
                       text=True, timeout=120)
    out = r.stdout
    expect("report of a glob: exit 0", r.returncode, 0)
    expect("report: both processes", "buddypool profiles: 2 processes" in out, True)
    rows = re.findall(r"^\s+(\d)\s+2\s.*pid (\d+) \(p-(\d)\.json\)$", out, re.M)
    expect("report: a row per rank", sorted((a, c) for a, _, c in rows), [("0", "0"), ("1", "1")])
    expect("report: the slowest process at the steps",
           "the slowest process at the steps all 2 ran" in out, True)
    if all(ranks.values()):
        total = sum(q["totals"]["regions"] for q in ranks.values())
        expect("report: the regions across the processes add up",
               ", %d regions," % total in out, True)
    expect("report: the functions summed over the processes",
           "functions summed over the processes" in out and "main._omp_fn" in out, True)
    page = os.path.join(tmp, "p.html")
    r = subprocess.run([cli, "report", os.path.join(tmp, "p-0.json"), os.path.join(tmp, "p-1.json"),
                        "--html", page], capture_output=True, text=True, timeout=120)
    text = open(page).read() if os.path.exists(page) else ""
    expect("report --html of two profiles", r.returncode == 0 and "id='processes'" in text and
           "id='functions'" in text, True)
    r = subprocess.run([cli, "report", os.path.join(tmp, "none-*.json")], capture_output=True,
                       text=True, timeout=60)
    expect("report: a glob that matches nothing is named", r.returncode == 1 and
           "none-*.json: no file matches" in r.stderr, True)
    sys.exit(report("the ranks' profiles"))


if __name__ == "__main__":
    main()
