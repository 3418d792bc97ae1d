#!/usr/bin/env python3
"""ab.py: builds of buddypool side by side, for changes that must not make
the pool slower (a commit's build beside its parent's, or a chain of
commits, oldest first).

Each round runs every build once, the order rotating from round to round
(so that a drift in the machine's load hits all alike): the overhead
benchmark's PARALLEL and BARRIER (bench/overhead, clang objects, and gcc
objects with --gcc; --constructs names others, or all of them) and the graph benchmark's small shape (bench/graph).
The programs are each build's own, compiled from the same benchmark
sources by the same compilers: the objects are the same, only the library
differs. Prints a markdown table (per build and metric: the median and the
best over the rounds, and the median over the rounds of its ratio to the
previous build in the same round) and one line per build and metric for
scripts:
  RESULT ab build=LABEL metric=NAME median=X best=Y ratio_prev=R
A ratio below 1 means faster for times (us), above 1 for rates (tok/s).
The ratio is taken within each round because the machine may change under
a long run: on the 2-CPU KVM guest the cache-line round trip between the
two CPUs (which the overhead benchmark prints, and the table's last column
gives) moved from 450 ns to 100 ns between two runs, and with it every
construct's cost; builds compared within a round see the same machine.

  ab.py BUILD BUILD [BUILD...] [--rounds N] [--threads N] [--tokens N] [--gcc]
        [--bind] [--labels A,B,...] [--constructs NAME,...|all] [--out FILE]
        [--json FILE]

--json writes every round's figures, so that any two builds can be
compared round by round afterwards (the table compares each with the
previous one). Stopped by SIGTERM (a time limit) or ^C, the script prints
the table of the rounds completed so far, saying so, and writes --out and
--json with them.

--bind runs every program with OMP_PROC_BIND=close OMP_PLACES=cores, which
binds the forking thread too: on the 2-CPU KVM guest an unbound forking
thread makes PARALLEL bimodal from run to run (0.61 or 0.75-0.80 us, by
where the scheduler puts it), which a median over rounds then reports as
whichever mode happened to be the more frequent.
"""
import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys

SCRUB = ["OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "KMP_BLOCKTIME",
         "GOMP_SPINCOUNT", "BUDDY_THREAD_POOL_PROFILE", "BUDDY_THREAD_POOL_SPIN_US",
         "BUDDY_THREAD_POOL_THREADS", "BUDDY_THREAD_POOL_OVERSUBSCRIBE",
         "BUDDY_THREAD_POOL_TRACE"]
CONSTRUCTS = ["PARALLEL", "BARRIER"]
ALL_CONSTRUCTS = ["PARALLEL", "FOR", "PARALLEL_FOR", "BARRIER", "SINGLE", "CRITICAL",
                  "REDUCTION", "LOCK", "ORDERED", "FOR_DYNAMIC", "FOR_GUIDED"]


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


def measure(build, threads, tokens, objects, bind, constructs):
    """One round of one build: {metric: value}."""
    out = {}
    for suffix, tag in objects:
        text = run([prog(build, "overhead", suffix), "--only", ",".join(constructs)], threads,
                   bind)
        for m in re.finditer(r"^RESULT overhead construct=(\S+) threads=\d+ median_us=(\S+)",
                             text, re.M):
            out["%s%s (us)" % (m.group(1), tag)] = float(m.group(2))
        m = re.search(r"^cache line round trip, threads 0 and 1: ([0-9.]+) ns", text, re.M)
        if m and suffix == objects[0][0]:
            out["round trip (ns)"] = float(m.group(1))
    text = run([prog(build, "graph", "buddypool"), "--config", "small", "--tokens",
                str(tokens)], threads, bind)
    m = re.search(r"^RESULT graph .* tok_s=(\S+)", text, re.M)
    if m is None:
        sys.exit("ab.py: no RESULT line from %s" % prog(build, "graph", "buddypool"))
    out["graph small (tok/s)"] = float(m.group(1))
    return out


class Stopped(Exception):
    pass


def stopped(signum, frame):
    raise Stopped()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=400, help="graph tokens per run")
    ap.add_argument("--gcc", action="store_true", help="also the gcc objects' overhead")
    ap.add_argument("--bind", action="store_true",
                    help="OMP_PROC_BIND=close OMP_PLACES=cores (the forking thread bound too)")
    ap.add_argument("--labels", default=None, help="names of the builds in the table, A,B,...")
    ap.add_argument("--constructs", default=",".join(CONSTRUCTS),
                    help="the overhead benchmark's constructs to time (default %s; "
                    "`all`: every one)" % ",".join(CONSTRUCTS))
    ap.add_argument("--out", default=None, help="also write the table to this file")
    ap.add_argument("--json", default=None,
                    help="also write every round's figures to this file: {label: [{metric: "
                    "value}, ...]}, rounds in order, for ratios between any two builds")
    args = ap.parse_args()
    builds = args.builds
    if len(builds) < 2:
        sys.exit("ab.py: give two builds at least")
    if args.rounds < 1 or args.threads < 1 or args.tokens < 1:
        sys.exit("ab.py: --rounds, --threads and --tokens must be at least 1")
    labels = args.labels.split(",") if args.labels else [chr(ord("A") + i) if i < 26 else
                                                          str(i) for i in range(len(builds))]
    if len(labels) != len(builds):
        sys.exit("ab.py: --labels names %d builds, %d are given" % (len(labels), len(builds)))
    objects = [("buddypool", "")] + ([("gcc-buddypool", ", gcc")] if args.gcc else [])
    constructs = (ALL_CONSTRUCTS if args.constructs == "all"
                  else [c for c in args.constructs.split(",") if c])
    for build in builds:
        for p in [prog(build, "overhead", s) for s, _ in objects] + [prog(build, "graph",
                                                                          "buddypool")]:
            if not os.access(p, os.X_OK):
                sys.exit("ab.py: %s: no such program (build the benchmarks there)" % p)
    runs = [[] for _ in builds]
    n = len(builds)
    done = 0
    # stopped (a time limit's SIGTERM, ^C): the table of the rounds done
    signal.signal(signal.SIGTERM, stopped)
    try:
        for r in range(args.rounds):
            for k in range(n):
                which = (r + k) % n if r % 2 == 0 else (r - k) % n
                runs[which].append(measure(builds[which], args.threads, args.tokens, objects,
                                           args.bind, constructs))
            done = r + 1
            print("round %d of %d" % (r + 1, args.rounds), file=sys.stderr)
    except (Stopped, KeyboardInterrupt):
        if done == 0:
            sys.exit("ab.py: stopped before the first round was done")
        print("ab.py: stopped after %d complete rounds of %d; the table holds those" %
              (done, args.rounds), file=sys.stderr)
        runs = [x[:done] for x in runs]
    metrics = list(runs[0][0])
    lines = ["%d threads, %d rounds%s, every build once a round in a rotating order, graph "
             "small %d tokens a run%s" %
             (args.threads, done, "" if done == args.rounds else
              " (stopped; %d asked)" % args.rounds, args.tokens,
              ", OMP_PROC_BIND=close OMP_PLACES=cores" if args.bind else ""), "",
             "| build | " + " | ".join("%s median (best) | / previous" % m for m in metrics) +
             " |",
             "| --- |" + " --- | --- |" * len(metrics)]
    results = []
    for i, label in enumerate(labels):
        cells = []
        for m in metrics:
            v = [x[m] for x in runs[i]]
            med = statistics.median(v)
            best = max(v) if "tok/s" in m else min(v)
            ratio = statistics.median(x[m] / y[m] for x, y in zip(runs[i], runs[i - 1])) \
                if i > 0 else 1.0
            cells.append("%.4g (%.4g) | %s" % (med, best, "%.3f" % ratio if i > 0 else "-"))
            results.append("RESULT ab build=%s metric=%s median=%.6g best=%.6g ratio_prev=%.4f" %
                           (label, m.split(" (")[0].replace(" ", "_").replace(",", ""), med,
                            best, ratio))
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    table = "\n".join(lines)
    print(table)
    print("\n".join(results))
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({label: runs[i] for i, label in enumerate(labels)}, f, indent=1)
            f.write("\n")


main()
