#!/usr/bin/env python3
"""check-taskprof.py PROGRAM [first]: the profile's tasks
(docs/profile-format.md) for tests/gomp/gomp-taskprof.c, run profiled and
traced at 2 threads: a row per task function with its exact count, own
times that leave out the tasks run inside a task and its waits for them,
the text table, and one trace slice per task. With `first`, for
tests/omp-clang/task-first.c (whose first task starts the pool from its
code): every task row's time lies within the run's span, and the ten
tasks of its region are counted."""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)
    return ok


def first(prog, env, prof_path):
    p = subprocess.run([prog], env=env, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and "tasks 10" in p.stdout, "the program ran its tasks: %s %s"
          % (p.stdout, p.stderr[-2000:]))
    prof = json.load(open(prof_path))
    rows = prof.get("tasks") or []
    span = prof["totals"]["span_ns"]
    check(all(0 <= r["time_ns"] <= span for r in rows),
          "every task row's time lies within the span of %d ns: %s" % (span, rows))
    check(sum(r["tasks"] for r in rows) == 10, "the region's ten tasks are counted, the task "
          "that started the pool is not (got %s)" % [r["tasks"] for r in rows])
    return report()


def main():
    prog = sys.argv[1]
    tmp = tempfile.mkdtemp()
    prof_path, trace_path = os.path.join(tmp, "p.json"), os.path.join(tmp, "t.json")
    env = dict(os.environ, OMP_NUM_THREADS="2", BUDDY_THREAD_POOL_PROFILE="1",
               BUDDY_THREAD_POOL_PROFILE_OUT=prof_path, BUDDY_THREAD_POOL_TRACE=trace_path)
    if len(sys.argv) > 2 and sys.argv[2] == "first":
        return first(prog, env, prof_path)
    p = subprocess.run([prog], env=env, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and "tasks 1030" in p.stdout, "the program ran its tasks: %s %s"
          % (p.stdout, p.stderr[-2000:]))
    prof = json.load(open(prof_path))
    rows = prof.get("tasks")
    if not check(isinstance(rows, list), "the JSON profile has a tasks list"):
        return report()
    counts = sorted(r["tasks"] for r in rows)
    check(counts == [10, 20, 1000], "three task functions, 1000, 20 and 10 tasks (got %s)" % counts)
    check(all(r["name"] and r["module"] and r["time_ns"] >= 0 for r in rows),
          "each row is named, with a time: %s" % rows)
    parent = [r for r in rows if r["tasks"] == 10]
    child = [r for r in rows if r["tasks"] == 20]
    if parent and child:
        parent, child = parent[0], child[0]
        # own time: a parent sleeps 1 ms, each of its two children 5 ms.
        # Sleeps last at least that long; the parent's time holds neither
        # its children (run inside it) nor the wait for them, so it stays
        # below theirs.
        check(parent["time_ns"] >= 10 * 1e6, "the parents' own time holds their sleeps (%d ns)"
              % parent["time_ns"])
        check(child["time_ns"] >= 20 * 5e6, "the children's time holds their sleeps (%d ns)"
              % child["time_ns"])
        check(parent["time_ns"] < child["time_ns"],
              "a parent's time leaves out its children and the wait for them (%d ns, "
              "children %d ns)" % (parent["time_ns"], child["time_ns"]))
    check("tasks, per task function" in p.stderr, "the text report has the tasks table")
    trace = json.load(open(trace_path))
    slices = [e for e in trace["traceEvents"] if e.get("cat") == "task" and e.get("ph") == "X"]
    check(len(slices) == 1030, "one trace slice per task (got %d)" % len(slices))
    return report()


def report():
    if failures:
        print("check-taskprof: %d check(s) failed" % len(failures))
        return 1
    print("check-taskprof: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
