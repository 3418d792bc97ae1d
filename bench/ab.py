#!/usr/bin/env python3
"""ab.py: two builds of buddypool side by side, for a change that must not
make the pool slower (another commit's build as A, this one's as B).

Each round runs, for A and for B in turn (the order alternating from round
to round, so that a drift in the machine's load hits both alike): the
overhead benchmark's PARALLEL and BARRIER (bench/overhead, clang objects,
and gcc objects with --gcc) and the graph benchmark's small shape
(bench/graph). The programs are each build's own, compiled from the same
benchmark sources by the same compilers: the objects are the same, only
the library differs. Prints a markdown table (median, best and worst over
the rounds for each build, and B's median over A's) and one line per metric
for scripts:
  RESULT ab metric=NAME a_median=X b_median=Y ratio=Y/X
A ratio below 1 means B is faster for times (us), above 1 for rates (tok/s).

  ab.py A_BUILD B_BUILD [--rounds N] [--threads N] [--tokens N] [--gcc]
        [--bind] [--labels A,B] [--out FILE]

--bind runs every program with OMP_PROC_BIND=close OMP_PLACES=cores, which
binds the forking thread too: on the 2-CPU KVM guest an unbound forking
thread makes PARALLEL bimodal from run to run (0.61 or 0.75-0.80 us, by
where the scheduler puts it), which a median over rounds then reports as
whichever mode happened to be the more frequent.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

SCRUB = ["OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "KMP_BLOCKTIME",
         "GOMP_SPINCOUNT", "BUDDY_THREAD_POOL_PROFILE", "BUDDY_THREAD_POOL_SPIN_US",
         "BUDDY_THREAD_POOL_THREADS", "BUDDY_THREAD_POOL_OVERSUBSCRIBE",
         "BUDDY_THREAD_POOL_TRACE"]
CONSTRUCTS = ["PARALLEL", "BARRIER"]


def prog(build, bench, suffix):
    return os.path.join(build, "bench", bench, "%s-%s" % (bench, suffix))


def run(cmd, threads, bind):
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    env["OMP_NUM_THREADS"] = str(threads)
    if bind:
        env.update(OMP_PROC_BIND="close", OMP_PLACES="cores")
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit("ab.py: %s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                    p.stderr))
    return p.stdout


def measure(build, threads, tokens, objects, bind):
    """One round of one build: {metric: value}."""
    out = {}
    for suffix, tag in objects:
        text = run([prog(build, "overhead", suffix), "--only", ",".join(CONSTRUCTS)], threads,
                   bind)
        for m in re.finditer(r"^RESULT overhead construct=(\S+) threads=\d+ median_us=(\S+)",
                             text, re.M):
            out["%s%s (us)" % (m.group(1), tag)] = float(m.group(2))
    text = run([prog(build, "graph", "buddypool"), "--config", "small", "--tokens",
                str(tokens)], threads, bind)
    m = re.search(r"^RESULT graph .* tok_s=(\S+)", text, re.M)
    if m is None:
        sys.exit("ab.py: no RESULT line from %s" % prog(build, "graph", "buddypool"))
    out["graph small (tok/s)"] = float(m.group(1))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=400, help="graph tokens per run")
    ap.add_argument("--gcc", action="store_true", help="also the gcc objects' overhead")
    ap.add_argument("--bind", action="store_true",
                    help="OMP_PROC_BIND=close OMP_PLACES=cores (the forking thread bound too)")
    ap.add_argument("--labels", default="A,B", help="names of the two builds in the table")
    ap.add_argument("--out", default=None, help="also write the table to this file")
    args = ap.parse_args()
    if args.rounds < 1 or args.threads < 1 or args.tokens < 1:
        sys.exit("ab.py: --rounds, --threads and --tokens must be at least 1")
    labels = args.labels.split(",")
    if len(labels) != 2:
        sys.exit("ab.py: --labels takes two names, A,B")
    objects = [("buddypool", "")] + ([("gcc-buddypool", ", gcc")] if args.gcc else [])
    for build in (args.a, args.b):
        for p in [prog(build, "overhead", s) for s, _ in objects] + [prog(build, "graph",
                                                                          "buddypool")]:
            if not os.access(p, os.X_OK):
                sys.exit("ab.py: %s: no such program (build the benchmarks there)" % p)
    runs = {0: [], 1: []}
    for r in range(args.rounds):
        for which in ((0, 1) if r % 2 == 0 else (1, 0)):
            runs[which].append(measure((args.a, args.b)[which], args.threads, args.tokens,
                                       objects, args.bind))
        print("round %d of %d" % (r + 1, args.rounds), file=sys.stderr)
    lines = ["%d threads, %d rounds alternating, graph small %d tokens a run%s" %
             (args.threads, args.rounds, args.tokens,
              ", OMP_PROC_BIND=close OMP_PLACES=cores" if args.bind else ""), "",
             "| metric | %s median | %s median | %s / %s | %s range | %s range |" %
             (labels[0], labels[1], labels[1], labels[0], labels[0], labels[1]),
             "| --- | --- | --- | --- | --- | --- |"]
    results = []
    for metric in runs[0][0]:
        a = [x[metric] for x in runs[0]]
        b = [x[metric] for x in runs[1]]
        ma, mb = statistics.median(a), statistics.median(b)
        lines.append("| %s | %.4g | %.4g | %.3f | %.4g-%.4g | %.4g-%.4g |" %
                     (metric, ma, mb, mb / ma, min(a), max(a), min(b), max(b)))
        results.append("RESULT ab metric=%s a_median=%.6g b_median=%.6g ratio=%.4f" %
                       (metric.split(" (")[0].replace(" ", "_").replace(",", ""), ma, mb,
                        mb / ma))
    table = "\n".join(lines)
    print(table)
    print("\n".join(results))
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")


main()
