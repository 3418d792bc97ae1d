#!/usr/bin/env python3
"""ab_instr.py: the instructions the library executes per region (PARALLEL)
and per barrier episode (BARRIER), counted by callgrind, for builds of
buddypool side by side (a commit's beside its parent's, or a chain).

Timings of a fork and a join on a shared 2-CPU guest move with where the
host puts the two CPUs (a cache-line round trip of 100 or 450 ns), which
hides a change of a few instructions; the instruction count does not
move. Each build's overhead benchmark (clang objects, and gcc objects with
--gcc) runs one construct under valgrind --tool=callgrind with a fixed
number of repetitions; the count is the self cost of every function of the
library (src/) but the spin of the waits (wait.c's flag_wait and what it
inlines from prim.h: how long a thread spins depends on timing, not on the
code), divided by the calls of the construct's entry point (__kmpc_fork_call
or GOMP_parallel for PARALLEL, __kmpc_barrier or GOMP_barrier for BARRIER;
a BARRIER's count is per thread's call). Both threads' work is counted:
thread 0's and the worker's.

  ab_instr.py BUILD [BUILD...] [--gcc] [--labels A,B,...] [--inner N]

Prints a markdown table and one line per build, object and construct:
  RESULT ab_instr build=LABEL objects=clang|gcc construct=NAME instructions=X
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# the entry point each construct calls once per repetition, per ABI
CONSTRUCTS = {"PARALLEL": {"clang": "__kmpc_fork_call", "gcc": "GOMP_parallel"},
              "BARRIER": {"clang": "__kmpc_barrier", "gcc": "GOMP_barrier"}}
SPIN = re.compile(r"(wait\.c|prim\.h):flag_wait\b")


def count(prog, construct, objects, inner):
    """Library instructions per call of the construct's entry."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="close", OMP_PLACES="cores")
        for k in ("BUDDY_THREAD_POOL_PROFILE", "BUDDY_THREAD_POOL_TRACE"):
            env.pop(k, None)
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                            prog, "--only", construct, "--trials", "3", "--inner", str(inner)],
                           env=env, capture_output=True, text=True, timeout=1200)
        if p.returncode != 0:
            sys.exit("ab_instr.py: %s under callgrind failed (%d):\n%s" % (prog, p.returncode,
                                                                          p.stderr[-2000:]))
        # from /: the annotation shortens paths under its working directory
        ann = subprocess.run(["callgrind_annotate", "--threshold=100", "--inclusive=no", out],
                             capture_output=True, text=True, cwd="/").stdout
        raw = open(out).read()
    total = 0
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+)", line)
        if not m or "/src/" not in m.group(2) or SPIN.search(m.group(2)):
            continue
        total += int(m.group(1).replace(",", ""))
    # calls of the entry: each "cfn=" naming it is followed by "calls=N ..."
    entry = CONSTRUCTS[construct][objects]
    names, n, target = {}, 0, False
    for line in raw.splitlines():
        m = re.match(r"fn=\((\d+)\) (.*)$", line)  # a name's first mention
        if m:
            names[m.group(1)] = m.group(2)
        m = re.match(r"cfn=\((\d+)\)(?: (.*))?$", line)
        if m:
            if m.group(2):
                names[m.group(1)] = m.group(2)
            target = names.get(m.group(1)) == entry
            continue
        m = re.match(r"calls=(\d+) ", line)
        if m and target:
            n += int(m.group(1))
        target = False
    if n == 0:
        sys.exit("ab_instr.py: no call of %s found in %s's profile" % (entry, prog))
    return total / n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--gcc", action="store_true", help="also the gcc objects")
    ap.add_argument("--labels", default=None)
    ap.add_argument("--inner", type=int, default=20000, help="repetitions per trial")
    args = ap.parse_args()
    labels = args.labels.split(",") if args.labels else [str(i) for i in range(len(args.builds))]
    if len(labels) != len(args.builds):
        sys.exit("ab_instr.py: --labels names %d builds, %d are given" % (len(labels),
                                                                          len(args.builds)))
    objects = [("clang", "buddypool")] + ([("gcc", "gcc-buddypool")] if args.gcc else [])
    cols = [(o, c) for o, _ in objects for c in CONSTRUCTS]
    lines = ["library instructions per construct (callgrind, 2 threads, the waits' spin left "
             "out)", "",
             "| build | " + " | ".join("%s, %s objects" % (c, o) for o, c in cols) + " |",
             "| --- |" + " --- |" * len(cols)]
    results = []
    for label, build in zip(labels, args.builds):
        cells = []
        for o, suffix in objects:
            prog = os.path.join(build, "bench", "overhead", "overhead-" + suffix)
            if not os.access(prog, os.X_OK):
                sys.exit("ab_instr.py: %s: no such program" % prog)
            for c in CONSTRUCTS:
                v = count(prog, c, o, args.inner)
                cells.append("%.0f" % v)
                results.append("RESULT ab_instr build=%s objects=%s construct=%s "
                               "instructions=%.1f" % (label, o, c, v))
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
        print("%s done" % label, file=sys.stderr)
    print("\n".join(lines))
    print("\n".join(results))


main()
