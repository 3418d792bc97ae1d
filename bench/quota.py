#!/usr/bin/env python3
"""quota.py: the graph benchmark under a cgroup CPU quota, every runtime at
its default team and at fixed teams, side by side.

  quota.py BUILD_DIR [--quotas 1,1.5] [--rounds N] [--config SHAPE]
           [--tokens N] [--out FILE]

For each quota (CPUs; made with bench/cgroup.py: cgroup v2 cpu.max, else
v1 cpu.cfs_quota_us; needs root), runs bench/graph (llama.cpp's shape) for
buddypool (clang objects), libgomp and libomp, each with no OMP_NUM_THREADS
(its default team: what a user who sets nothing gets) and with every fixed
team from 1 to the allowed CPUs. The settings alternate round by round,
rotating the order. Prints a markdown table per quota: each setting's
median and best tok/s, the team the default chose (from the RESULT line),
and each default's median over the best fixed team of the same runtime and
over the best setting of all. The logits checksum must agree everywhere.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cgroup  # noqa: E402
from contention import bench_prog, emit, run  # noqa: E402

RUNTIMES = [("buddypool", "buddypool"), ("libgomp", "libgomp"), ("libomp", "libomp")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--quotas", default="1,1.5")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--config", default="small", choices=["small", "medium", "large"])
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    try:
        quotas = [float(q) for q in args.quotas.split(",")]
    except ValueError:
        sys.exit("quota.py: --quotas %s: give CPUs, such as 1,1.5" % args.quotas)
    if any(q <= 0 for q in quotas) or args.rounds < 1 or args.tokens < 1:
        sys.exit("quota.py: quotas must be positive, --rounds and --tokens at least 1")
    ncpus = len(os.sched_getaffinity(0))
    settings = []  # (label, runtime, program suffix, threads or None)
    for name, suffix in RUNTIMES:
        if not os.path.exists(bench_prog(args.build, "graph", suffix)):
            sys.exit("quota.py: no %s" % bench_prog(args.build, "graph", suffix))
        settings.append(("%s default" % name, name, suffix, None))
        settings += [("%s %d thread%s" % (name, n, "s" if n > 1 else ""), name, suffix, n)
                     for n in range(1, ncpus + 1)]
    try:
        cg = cgroup.make_cgroup()
    except cgroup.Unavailable as e:
        sys.exit("quota.py: %s" % e)
    data, teams, sums = {}, {}, set()
    try:
        for q in quotas:
            cg.quota(q)
            for r in range(args.rounds):
                k = r % len(settings)
                for label, name, suffix, threads in settings[k:] + settings[:k]:
                    res = run(bench_prog(args.build, "graph", suffix), {}, threads, args.config,
                              args.tokens, preexec=cg.enter)
                    data.setdefault((q, label), []).append(float(res["tok_s"]))
                    teams[(q, label)] = res["threads"]
                    sums.add(res["checksum"])
                print("quota %g: round %d of %d done" % (q, r + 1, args.rounds), file=sys.stderr)
    finally:
        cg.remove()
    lines = ["graph benchmark, shape %s, %d tokens, %d allowed CPUs, %d rounds per quota, "
             "settings alternating; cgroup %s; `bench/quota.py %s --quotas %s --rounds %d "
             "--config %s --tokens %d`" %
             (args.config, args.tokens, ncpus, args.rounds,
              "v2 cpu.max" if cg.v2 else "v1 cpu.cfs_quota_us", args.build, args.quotas,
              args.rounds, args.config, args.tokens), ""]
    for q in quotas:
        med = {label: statistics.median(data[(q, label)]) for label, _, _, _ in settings}
        best_all = max(med.values())
        lines += ["Quota %g CPUs:" % q, "",
                  "| runtime | setting | team | tok/s median | best | spread | default / "
                  "its best fixed team | / best of all |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for name, _ in RUNTIMES:
            fixed = [med[l] for l, n, _, t in settings if n == name and t is not None]
            for label, n, _, threads in settings:
                if n != name:
                    continue
                v = data[(q, label)]
                is_def = threads is None
                lines.append("| %s | %s | %s | %.1f | %.1f | %.1f-%.1f | %s | %s |" % (
                    name, "default" if is_def else "fixed", teams[(q, label)], med[label],
                    max(v), min(v), max(v), "**%.2fx**" % (med[label] / max(fixed))
                    if is_def else "", "%.2fx" % (med[label] / best_all)))
        lines.append("")
    lines.append("Logits checksum identical across settings: %s" %
                 ("yes" if len(sums) == 1 else "NO: %s" % sorted(sums)))
    emit(lines, args.out)


if __name__ == "__main__":
    main()
