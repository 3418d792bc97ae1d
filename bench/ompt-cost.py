#!/usr/bin/env python3
"""ompt-cost.py: what an OpenMP tool costs each construct, on buddypool and
on libomp, with the same tool: bench/ompt/null-tool.c, which registers
every host callback and does nothing in them (so that what is measured is
the runtime's work to call a tool, not the tool's).

Each round runs the overhead benchmark (bench/overhead, clang objects:
overhead-buddypool and overhead-libomp) four ways in a rotating order:
each runtime without a tool and with the null tool (OMP_TOOL_LIBRARIES);
the gcc objects on buddypool (overhead-gcc-buddypool, which libgomp could
not run under a tool at all) with and without the tool too. Per construct
it prints the median over the rounds of each way, and the median over the
rounds of the per-round ratio with/without the tool (a ratio within a
round, as the machine may change under a long run), as a markdown table
and one line per runtime and construct:
  RESULT ompt-cost runtime=R construct=C none_us=X tool_us=Y ratio=Z

  ompt-cost.py BUILD [--rounds N] [--threads N] [--bind]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

SCRUB = ["OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "KMP_BLOCKTIME",
         "OMP_TOOL", "OMP_TOOL_LIBRARIES", "OMP_TOOL_VERBOSE_INIT", "LD_PRELOAD"]
RUNTIMES = [("buddypool", "overhead-buddypool"), ("libomp", "overhead-libomp"),
            ("buddypool, gcc", "overhead-gcc-buddypool")]


def run(prog, threads, bind, tool):
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    env["OMP_NUM_THREADS"] = str(threads)
    if bind:
        env.update(OMP_PROC_BIND="close", OMP_PLACES="cores")
    if tool:
        env.update(OMP_TOOL_LIBRARIES=tool, OMP_TOOL_VERBOSE_INIT="stderr")
    p = subprocess.run([prog], env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit("ompt-cost.py: %s failed (%d):\n%s%s" % (prog, p.returncode, p.stdout,
                                                           p.stderr[-3000:]))
    if tool and "libomp" not in prog and "the tool is started" not in p.stderr:
        sys.exit("ompt-cost.py: %s did not start the tool:\n%s" % (prog, p.stderr[-3000:]))
    return {m.group(1): float(m.group(2)) for m in re.finditer(
        r"^RESULT overhead construct=(\S+) threads=\d+ median_us=(\S+)", p.stdout, re.M)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bind", action="store_true",
                    help="OMP_PROC_BIND=close OMP_PLACES=cores for every run")
    args = ap.parse_args()
    if args.rounds < 1:
        sys.exit("ompt-cost.py: --rounds must be at least 1")
    tool = os.path.join(args.build, "bench", "ompt", "libompt-null.so")
    progs = {name: os.path.join(args.build, "bench", "overhead", exe) for name, exe in RUNTIMES}
    for path in [tool] + list(progs.values()):
        if not os.path.exists(path):
            sys.exit("ompt-cost.py: %s is missing (build the benchmarks first)" % path)
    ways = [(name, t) for name, _ in RUNTIMES for t in (None, tool)]
    runs = {w: [] for w in ways}
    for r in range(args.rounds):
        for k in range(len(ways)):
            w = ways[(r + k) % len(ways)]
            runs[w].append(run(progs[w[0]], args.threads, args.bind, w[1]))
        print("round %d of %d" % (r + 1, args.rounds), file=sys.stderr)
    constructs = list(runs[ways[0]][0].keys())
    print("%d rounds, %d threads%s; us per construct, median over the rounds; ratio: the "
          "median of the per-round ratios with the tool / without\n"
          % (args.rounds, args.threads, ", OMP_PROC_BIND=close OMP_PLACES=cores"
             if args.bind else ""))
    head = "| construct |"
    for name, _ in RUNTIMES:
        head += " %s | %s, null tool | ratio |" % (name, name)
    print(head)
    print("| --- |" + " --- | --- | --- |" * len(RUNTIMES))
    lines = []
    for c in constructs:
        row = "| %s |" % c
        for name, _ in RUNTIMES:
            none = [x[c] for x in runs[(name, None)]]
            with_tool = [x[c] for x in runs[(name, tool)]]
            ratio = statistics.median(b / a for a, b in zip(none, with_tool) if a > 0)
            a, b = statistics.median(none), statistics.median(with_tool)
            row += " %.4f | %.4f | %.2f |" % (a, b, ratio)
            lines.append("RESULT ompt-cost runtime=%s construct=%s none_us=%.4f tool_us=%.4f "
                         "ratio=%.3f" % (name.replace(", ", "-"), c, a, b, ratio))
        print(row)
    print()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
