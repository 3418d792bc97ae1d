#!/usr/bin/env python3
"""tasks.py: the task overhead benchmark (bench/tasks) on every runtime side
by side.

  tasks.py BUILD_DIR [--threads 1,2] [--rounds N] [--trials N] [--only TESTS]
           [--out FILE]

Runs tasks-buddypool (clang objects) and tasks-libomp, tasks-gcc-buddypool
(gcc objects) and tasks-libgomp, alternating program by program, round by
round, at each thread count. Each run prints its median per-task overhead
per test (over its trials); the table gives the median over the rounds,
in microseconds per task, and each buddypool build's ratio to the peer built
by the same compiler and to the best peer. Lower is better; a ratio at or
below 1.00 meets the peer.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

BUILDS = [("buddypool", "clang", "tasks-buddypool"), ("libomp", "clang", "tasks-libomp"),
          ("gcc-buddypool", "gcc", "tasks-gcc-buddypool"), ("libgomp", "gcc", "tasks-libgomp")]
RESULT = re.compile(r"^RESULT tasks test=(\S+) threads=(\d+) median_us=(\S+) best_us=(\S+)$", re.M)
SCRUB = ("OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY",
         "BUDDY_THREAD_POOL_PROFILE", "BUDDY_THREAD_POOL_TRACE", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")


def run(prog, threads, trials, only):
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    env["OMP_NUM_THREADS"] = str(threads)
    cmd = [prog, "--trials", str(trials)] + (["--only", only] if only else [])
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.exit("tasks.py: %s failed (exit %d): %s" % (prog, p.returncode, p.stderr[-2000:]))
    return {m.group(1): float(m.group(3)) for m in RESULT.finditer(p.stdout)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--trials", type=int, default=11)
    ap.add_argument("--only", default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    try:
        threads = [int(x) for x in args.threads.split(",")]
    except ValueError:
        sys.exit("tasks.py: --threads %s: a list of thread counts, such as 1,2" % args.threads)
    if args.rounds < 1 or args.trials < 1 or any(t < 1 for t in threads):
        sys.exit("tasks.py: --rounds, --trials and every thread count need at least 1")
    progs = {}
    for label, _, name in BUILDS:
        progs[label] = os.path.join(args.build, "bench", "tasks", name)
        if not os.access(progs[label], os.X_OK):
            sys.exit("tasks.py: no %s (build the project first)" % progs[label])
    data = {}  # (threads, label, test) -> [median per round]
    tests = []
    for t in threads:
        for r in range(args.rounds):
            for label, _, _ in BUILDS:
                res = run(progs[label], t, args.trials, args.only)
                for test, v in res.items():
                    if test not in tests:
                        tests.append(test)
                    data.setdefault((t, label, test), []).append(v)
            print("threads %d: round %d of %d done" % (t, r + 1, args.rounds), file=sys.stderr)
    lines = ["| threads | test | buddypool (clang) | libomp | gcc-buddypool | libgomp "
             "| clang: bp / libomp | gcc: bp / libgomp | best bp / best peer |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t in threads:
        for test in tests:
            m = {label: statistics.median(data[(t, label, test)]) for label, _, _ in BUILDS}

            def ratio(a, b):
                # overheads near zero make ratios meaningless: clamp the divisor
                return "%.2f" % (a / b) if b > 0.005 else "n/a"
            best_bp = min(m["buddypool"], m["gcc-buddypool"])
            best_peer = min(m["libomp"], m["libgomp"])
            lines.append("| %d | %s | %.3f | %.3f | %.3f | %.3f | %s | %s | %s |" % (
                t, test, m["buddypool"], m["libomp"], m["gcc-buddypool"], m["libgomp"],
                ratio(m["buddypool"], m["libomp"]), ratio(m["gcc-buddypool"], m["libgomp"]),
                ratio(best_bp, best_peer)))
    text = ("per-task overhead, us (median of %d rounds, each the median of %d trials)\n\n"
            % (args.rounds, args.trials)) + "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
