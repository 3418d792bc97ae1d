#!/usr/bin/env python3
"""check-threadpoolctl.py: Python's thread control on buddypool.

  check-threadpoolctl.py --python PY --lib LIBBUDDYPOOL --dropin DIR --cli BUDDYPOOL
                         --probe PROBE_GCC --probe-clang PROBE_CLANG --openblas LIB

Runs tests/deploy/threadpool.py (numpy, Debian's OpenBLAS OpenMP build,
threadpoolctl, and the probe library built with gcc -fopenmp) with Debian's
python3 natively on libgomp (the reference), and on buddypool in three
ways: LD_PRELOAD=libbuddypool.so, `buddypool run`, and drop-in mode
(LD_LIBRARY_PATH=the drop-in directory). In every phase (before any limit,
inside threadpool_limits(1, "openmp") and its controller form, inside
threadpool_limits(1, "blas"), after each) each buddypool mode must give
the probe the team and omp_get_max_threads the native run gives, OpenBLAS
the same count, and every OpenMP runtime threadpool_info() lists must show
the thread count the probe really gets; buddypool must run the regions.
Where a cgroup with a CPU quota can be made, under a quota of 1 CPU the
preloaded and drop-in runs must show 1 everywhere before any limit (the
default team buddypool really gives). With the probe built by clang (libomp
loaded beside a preloaded buddypool) the limit must still hold through
libgomp, and buddypool must say once that libomp's own count is not read.
Exits 77 (skipped) where Debian's python3 lacks numpy or threadpoolctl.
"""
import argparse
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, ".."), os.path.join(here, "..", "..", "bench")]
import cgroup  # noqa: E402  (bench/cgroup.py)
from checks import expect, report  # noqa: E402  (tests/checks.py)

SKIP = 77


def run(args, cmd_prefix, env_extra, probe, preexec=None):
    """threadpool.py in one mode: its phases by name, and its stderr."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "BUDDY_THREAD_POOL_", "GOMP_", "KMP_", "OPENBLAS_"))
           and k not in ("LD_PRELOAD", "LD_LIBRARY_PATH")}
    env.update(env_extra)
    cmd = cmd_prefix + [args.python, os.path.join(here, "threadpool.py"), probe, args.openblas]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300,
                       preexec_fn=preexec)
    if p.returncode != 0:
        sys.exit("FAIL: %s (%s): exit %d\n%s%s" % (" ".join(cmd), env_extra, p.returncode,
                                                  p.stdout, p.stderr))
    phases = {}
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            phases[d["phase"]] = d
    return phases, p.stderr



def compare(mode, got, ref):
    for name, r in ref.items():
        g = got.get(name)
        if g is None:
            expect("%s: phase %s ran" % (mode, name), False, True)
            continue
        expect("%s %s: the probe's team" % (mode, name), g["team"], r["team"])
        expect("%s %s: omp_get_max_threads" % (mode, name), g["max"], r["max"])
        expect("%s %s: OpenBLAS's count" % (mode, name), g["blas"], r["blas"])
        if r["torch"] is not None:  # torch installed: its count as on libgomp
            expect("%s %s: torch.get_num_threads()" % (mode, name), g["torch"], r["torch"])
        expect("%s %s: every OpenMP runtime threadpool_info lists shows the real count" %
               (mode, name), sorted({n for _, n in g["openmp"]}), [g["max"]])
        expect("%s %s: buddypool is loaded" % (mode, name), g["buddypool"], True)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--python", "--lib", "--dropin", "--cli", "--probe", "--probe-clang",
                "--openblas"):
        ap.add_argument(opt, required=True)
    args = ap.parse_args()
    check = subprocess.run([args.python, "-c", "import numpy, threadpoolctl"],
                           capture_output=True, text=True)
    if check.returncode != 0:
        print("SKIP: %s has no numpy or threadpoolctl (python3-numpy, python3-threadpoolctl): %s"
              % (args.python, check.stderr.strip().splitlines()[-1:]))
        sys.exit(SKIP)
    ref, _ = run(args, [], {}, args.probe)
    expect("native: libgomp runs the regions, not buddypool",
           any(d["buddypool"] for d in ref.values()), False)
    expect("native: the openmp limit holds there", ref["openmp-limit"]["max"], 1)
    modes = [("preloaded", [], {"LD_PRELOAD": args.lib}),
             ("buddypool run", [args.cli, "run", "--"], {}),
             ("drop-in", [], {"LD_LIBRARY_PATH": args.dropin})]
    for mode, prefix, env in modes:
        got, err = run(args, prefix, env, args.probe)
        compare(mode, got, ref)
        expect("%s: no warning" % mode, "threadpoolctl" in err, False)

    # libomp beside buddypool (the probe built by clang), libgomp too (OpenBLAS's)
    got, err = run(args, [], {"LD_PRELOAD": args.lib}, args.probe_clang)
    expect("libomp beside: the openmp limit still holds (through libgomp)",
           got["openmp-limit"]["team"], 1)
    expect("libomp beside: buddypool says once that libomp's count is not read",
           err.count("threadpoolctl") == 1 and "libomp" in err and "drop-in" in err, True)

    try:
        cg = cgroup.make_cgroup()
    except cgroup.Unavailable as e:
        print("note: the quota part is skipped: %s" % e)
        cg = None
    if cg is not None:
        try:
            cg.quota(1)
            for mode, prefix, env in (modes[0], modes[2]):
                got, _ = run(args, prefix, env, args.probe, preexec=cg.enter)
                b = got["before"]
                expect("%s under a quota of 1: the default team, everywhere" % mode,
                       (b["team"], b["max"], sorted({n for _, n in b["openmp"]})), (1, 1, [1]))
        finally:
            cg.remove()
    sys.exit(report("threadpoolctl's limits reach buddypool in every mode"))


if __name__ == "__main__":
    main()
