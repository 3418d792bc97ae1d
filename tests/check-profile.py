#!/usr/bin/env python3
"""check-profile.py MODE PROGRAM [ARGS...]: runs PROGRAM with profiling on
and checks the JSON profile (DESIGN.md) and the text report it leaves.

  known     PROGRAM is test-profile: exact calls and barriers per function,
            names from dladdr, the span invariant, gaps of the serial work
  overflow  test-profile with 2 slots: other+0x0 holds the rest, one warning,
            nothing lost
  threads   PROGRAM is test-threads: its three functions have calls
            [2, 2000, 2000]
  teams     PROGRAM is test-teams with its mode (concurrent or join): regions
            of several application threads at once, every one profiled;
            each forking thread's regions, gaps and span add up to the
            totals (its span = its regions + its gaps); traced too: a track
            per forking thread with its regions, each worker slice inside
            a region of the thread it names; (concurrent) each thread's
            team sizes, and time obtaining workers iff it had workers
  any       any program: the invariants, +0x names, one row per function
  pause     PROGRAM is gomp-pause (buddypool): the pool's workers end at each
            omp_pause_resource and new ones serve the next regions, beside
            another application thread's regions; profiled and traced, the
            invariants hold for both forking threads, and every worker
            slice (old threads' and new ones') lies in a region of its
            forking thread
  bad-out   test-profile with an unwritable JSON path: a message naming the
            path, and the text report still printed
  unloads   PROGRAM is test-dlopen LIBRARY N: one report per unload, N in all
  fork      PROGRAM is test-fork: the parent's JSON keeps its own regions; each
            of the 10 children writes its 400 regions to PATH.<pid>
  phases    PROGRAM is test-phases: per-phase calls, barriers and totals,
            phases adding up to the whole run; the report written by
            buddypool_profile_write; `reset` and `errors` modes
  decode    PROGRAM is a decode-buddypool build (tiny config): phases
            prefill and decode, each with its own regions, adding up
  idle      PROGRAM is test-phases: wait statistics of regions 60 ms apart
            (every worker sleeps and is woken), and with OMP_WAIT_POLICY=active
  trace     PROGRAM is test-phases, with BUDDY_THREAD_POOL_TRACE too: valid
            trace-event JSON, one region slice per region call on thread 0,
            one per region and worker, barrier waits inside their regions;
            with 16 events per thread the bound holds and drops are counted
"""
import bisect
import itertools
import json
import os
import re
import subprocess
import sys
import shutil
import tempfile

from checks import check, report

def run(program, args, env_extra):
    env = dict(os.environ)
    env["BUDDY_THREAD_POOL_PROFILE"] = "1"
    env.update(env_extra)
    p = subprocess.run([program] + args, env=env, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "%s exits 0 (got %d): %s" % (program, p.returncode, p.stderr[-2000:]))
    return p


def teams_trace(tr, ft, what):
    """The trace of test-teams: a track per forking thread with its regions,
    and each worker slice inside a region of the thread that forked it."""
    ev = tr["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    regions = [e for e in ev if e["ph"] == "X" and e["cat"] == "region"]
    forkers = {t for t, n in names.items() if n.startswith("thread 0")}
    check(forkers == {c["tid"] for c in ft},
          "a 'thread 0' track for each forking thread of the profile (%s vs %s)"
          % (sorted(forkers), sorted(c["tid"] for c in ft)))
    own = {t: [e for e in regions if e["tid"] == t] for t in forkers}
    for c in ft:
        check(len(own[c["tid"]]) == c["regions"], "thread %d's track has its %d regions (got %d)"
              % (c["tid"], c["regions"], len(own[c["tid"]])))
        check(all("forked_by" not in e["args"] for e in own[c["tid"]]),
              "a forking thread's own slices name no forker")
    # A forking thread's slices by start, and the latest end among the first
    # k+1 of them: the slices that hold a worker slice are those from the
    # last one starting at or before it, back while an earlier one may still
    # end after it (one step for regions that follow each other, a few for
    # nested ones). A thread beside the pauses forks tens of thousands of
    # regions; comparing every worker slice with every region took minutes.
    starts, reach = {}, {}
    for t in forkers:
        own[t].sort(key=lambda r: r["ts"])
        starts[t] = [r["ts"] for r in own[t]]
        reach[t] = list(itertools.accumulate((r["ts"] + r["dur"] for r in own[t]), max))
    served = {}  # (forker tid, index of its region slice) -> worker slices
    for e in regions:
        if e["tid"] in forkers:
            continue
        by = e["args"].get("forked_by")
        if not check(by in forkers, "worker slice on %s names a forking thread (%s)"
                     % (names.get(e["tid"]), by)):
            continue
        end = e["ts"] + e["dur"]
        held = []
        k = bisect.bisect_right(starts[by], e["ts"]) - 1
        while k >= 0 and end <= reach[by][k] + 0.001:
            r = own[by][k]
            if end <= r["ts"] + r["dur"] + 0.001:
                held.append(k)
            k -= 1
        if not check(len(held) == 1, "a worker slice lies within one region slice of thread %d "
                     "(%d, the slice at %.3f us)" % (by, len(held), e["ts"])):
            continue
        check(own[by][held[0]]["name"] == e["name"], "a worker slice has its region's name")
        served.setdefault((by, held[0]), []).append(e["tid"])
    check(all(len(set(w)) == len(w) for w in served.values()),
          "no worker has two slices in one region")
    if what == "concurrent":
        # application thread i of a pass of A threads forks teams of
        # 1 + (i + A) % 4: workers per region 2, 3 | 0, 1, 2, 3 | 0..3 twice
        per = {}
        for t in forkers:
            counts = {len(served.get((t, k), [])) for k in range(len(own[t]))}
            check(len(counts) == 1, "thread %d: the same number of workers in every region (%s)" % (t, counts))
            per[t] = counts.pop()
        check(sorted(per.values()) == sorted([2, 3, 0, 1, 2, 3] + [0, 1, 2, 3] * 2),
              "workers per region across the forking threads (got %s)" % sorted(per.values()))
        for c in ft:
            check((c["obtain_ns"] > 0) == (per[c["tid"]] > 0),
                  "thread %d obtained workers for its first region iff its team has any "
                  "(obtain_ns %d, %d workers)" % (c["tid"], c["obtain_ns"], per[c["tid"]]))


def invariants(prof, stderr):
    tot = prof["totals"]
    fns = prof["functions"]
    ft = prof["forking_threads"]
    for k in ("regions", "regions_ns", "gaps_ns", "obtain_ns"):
        check(sum(c[k] for c in ft) == tot[k], "the forking threads' %s add up to the totals' "
              "(%d vs %d)" % (k, sum(c[k] for c in ft), tot[k]))
    check(all(c["span_ns"] == c["regions_ns"] + c["gaps_ns"] for c in ft),
          "each forking thread's span is its regions plus its gaps")
    check(tot["span_ns"] == tot["regions_ns"] + tot["gaps_ns"],
          "span_ns %d == regions_ns %d + gaps_ns %d" % (tot["span_ns"], tot["regions_ns"], tot["gaps_ns"]))
    check(sum(f["wall_ns"] for f in fns) == tot["regions_ns"], "the rows' wall_ns add up to regions_ns")
    check(sum(f["calls"] for f in fns) == tot["regions"], "the rows' calls add up to regions")
    check(sum(f["barriers"] for f in fns) == tot["barriers"], "the rows' barriers add up to barriers")
    check(sum(f["barrier_wait_ns"] for f in fns) == tot["barrier_wait_ns"],
          "the rows' barrier_wait_ns add up to barrier_wait_ns")
    gaps = tot["gaps_ns"]
    check(sum(f["gap_before_ns"] for f in fns) == gaps, "gap_before_ns adds up to gaps_ns")
    check(sum(f["gap_after_ns"] for f in fns) == gaps, "gap_after_ns adds up to gaps_ns")
    for f in fns:
        check(re.fullmatch(r"[^\s]+\+0x[0-9a-f]+", f["name"]) is not None, "name %r is symbol+0xoffset" % f["name"])
        check(re.fullmatch(r"0x[0-9a-f]+", f["address"]) is not None, "address %r is hex" % f["address"])
        check(re.fullmatch(r"0x[0-9a-f]+", f["module_offset"]) is not None,
              "module_offset %r is hex" % f["module_offset"])
        m = re.fullmatch(r"(.+)\+0x([0-9a-f]+)", f["name"])
        if m and f["module"] and m.group(1) == os.path.basename(f["module"]):
            check(int(m.group(2), 16) == int(f["module_offset"], 16),
                  "%s: a module+0xoffset name has the module offset" % f["name"])
        check(0 <= f["barrier_wait_t0_ns"] <= f["barrier_wait_ns"], "%s: 0 <= barrier_wait_t0 <= barrier_wait" % f["name"])
        for k in ("calls", "wall_ns", "gap_before_ns", "gap_after_ns", "barriers"):
            check(isinstance(f[k], int) and f[k] >= 0, "%s: %s is a non-negative integer" % (f["name"], k))
    for f in fns:
        pt = f["per_thread"]
        check(len(pt) == prof["threads"] or (prof["threads"] < 2 and len(pt) <= 1),
              "%s: per_thread has an entry per thread (%d)" % (f["name"], len(pt)))
        if pt:
            check(sum(t["barrier_wait_ns"] for t in pt) == f["barrier_wait_ns"],
                  "%s: the threads' waits add up to barrier_wait_ns" % f["name"])
            check(sum(t["last_at_join"] for t in pt) <= f["calls"],
                  "%s: at most one last thread per call" % f["name"])
        check(0 < f["wall_p50_ns"] <= f["wall_p99_ns"] <= f["wall_ns"] * 1.07 + 1,
              "%s: 0 < wall p50 %d <= p99 %d <= the wall time" % (f["name"], f["wall_p50_ns"], f["wall_p99_ns"]))
    for f in fns:
        parts(prof, f)
    check(len(set(f["address"] for f in fns)) == len(fns), "one row per function")
    walls = [f["wall_ns"] for f in fns]
    check(walls == sorted(walls, reverse=True), "rows sorted by wall time")
    check("buddypool profile: %d threads, %d regions" % (prof["threads"], tot["regions"]) in stderr,
          "the text report on stderr gives the totals")
    check("do not add them" in stderr, "the text report has its legend")


def parts(prof, f):
    """A row's call sites and steps add up to the row (docs/profile-format.md)."""
    sites, steps = f["call_sites"], f["steps"]
    if prof["callers"] > 0:
        for k in ("calls", "wall_ns", "barrier_wait_ns"):
            key = "barrier_wait_ns" if k == "barrier_wait_ns" else k
            check(sum(s[key] for s in sites) == f[key],
                  "%s: the call sites' %s add up to the function's" % (f["name"], key))
        check(sum(s["gap_before_ns"] for s in sites) == f["gap_before_ns"],
              "%s: the call sites' gap_before_ns add up" % f["name"])
        for s in sites:
            check(len(s["frames"]) <= prof["callers"] and (s["other"] or len(s["frames"]) >= 1),
                  "%s: a site has 1..callers frames" % f["name"])
    else:
        check(sites == [], "%s: no call sites when callers is 0" % f["name"])
    check(sum(s["calls"] for s in steps) == f["barriers"],
          "%s: the steps' calls add up to its barriers" % f["name"])
    check(sum(s["barrier_wait_ns"] for s in steps) == f["barrier_wait_ns"],
          "%s: the steps' waits add up to its barrier_wait_ns (%d, %d)" %
          (f["name"], sum(s["barrier_wait_ns"] for s in steps), f["barrier_wait_ns"]))
    idx = [s["index"] for s in steps]
    check(idx == sorted(set(idx)) and all(0 <= i <= prof["step_bound"] for i in idx),
          "%s: step indices sorted, unique, within the bound" % f["name"])
    for s in steps:
        check(s["rest"] == (s["index"] == prof["step_bound"]), "%s: only the last step is the rest" % f["name"])
        check((s["last_arrival"] is None) == s["rest"], "%s: last_arrival is null for the rest only" % f["name"])
        if s["last_arrival"] is not None:
            check(sum(s["last_arrival"]) == s["calls"], "%s step %d: one last thread per episode" % (f["name"], s["index"]))
    if steps and not steps[0]["rest"]:
        check(steps[0]["calls"] == f["calls"], "%s: every region reaches step 0" % f["name"])
    for t in f["per_thread"]:
        check(t["iterations"] is None or (isinstance(t["iterations"], int) and t["iterations"] >= 0),
              "%s: iterations are a count or null (not measured)" % f["name"])


def load(path):
    with open(path) as f:
        return json.load(f)


def addresses(stdout):
    return {m.group(1): int(m.group(2), 16) for m in re.finditer(r"^(\w+)=0x([0-9a-f]+)$", stdout, re.M)}


def main():
    mode, program, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    tmp = tempfile.mkdtemp()
    try:
        check_mode(mode, program, args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(report("check-profile " + mode))


def check_mode(mode, program, args, tmp):
    out = os.path.join(tmp, "profile.json")
    if mode == "bad-out":
        bad = os.path.join(tmp, "no-such-dir", "profile.json")
        p = run(program, args, {"BUDDY_THREAD_POOL_PROFILE_OUT": bad})
        check(("'%s'" % bad) in p.stderr and "BUDDY_THREAD_POOL_PROFILE_OUT" in p.stderr,
              "a message names the unwritable path")
        check("buddypool profile:" in p.stderr, "the text report is still printed")
    elif mode in ("known", "overflow"):
        env = {"BUDDY_THREAD_POOL_PROFILE_OUT": out}
        if mode == "overflow":
            env["BUDDY_THREAD_POOL_PROFILE_SLOTS"] = "2"
        p = run(program, args, env)
        prof = load(out)
        invariants(prof, p.stderr)
        tot, fns = prof["totals"], prof["functions"]
        seq = re.search(r"^sequence=(\w+)$", p.stdout, re.M).group(1)
        threads = int(re.search(r"^threads=(\d+)$", p.stdout, re.M).group(1))
        # barrier episodes per call, the closing join included
        per_call = {"a": 3, "b": 1, "c": 3, "d": 2, "e": 2, "f": 1}
        check(tot["regions"] == len(seq), "%d regions (got %d)" % (len(seq), tot["regions"]))
        check(tot["barriers"] == sum(per_call[c] for c in seq),
              "%d barrier episodes (got %d)" % (sum(per_call[c] for c in seq), tot["barriers"]))
        check(prof["threads"] == threads, "threads %d == the pool's %d" % (prof["threads"], threads))
        # every gap holds at least the 2 ms of serial work between two regions
        check(tot["gaps_ns"] >= (len(seq) - 1) * 2000000, "gaps hold the serial work (%d ns)" % tot["gaps_ns"])
        addr = addresses(p.stdout)
        by_addr = {int(f["address"], 16): f for f in fns}
        rows = {}
        for c in per_call:
            if c == "f":
                f = [x for x in fns if x["name"].startswith("main+0x")]
                rows[c] = f[0] if len(f) == 1 else None
            else:
                rows[c] = by_addr.get(addr.get("region_" + c))
        if mode == "known":
            check(len(fns) == 6, "six rows (got %d)" % len(fns))
            check("BUDDY_THREAD_POOL_PROFILE_SLOTS" not in p.stderr, "no overflow warning")
            for c, f in rows.items():
                name = "region_" + c if c != "f" else "the serialized region"
                check(f is not None, "a row for %s" % name)
                if f is None:
                    continue
                calls = seq.count(c)
                not_first = calls - (seq[0] == c)
                not_last = calls - (seq[-1] == c)
                check(f["calls"] == calls, "%s: calls %d == %d" % (name, f["calls"], calls))
                check(f["barriers"] == calls * per_call[c],
                      "%s: barriers %d == %d" % (name, f["barriers"], calls * per_call[c]))
                if c != "f":
                    check(f["name"] == "region_%s+0x0" % c, "%s named %r by dladdr" % (name, f["name"]))
                check(os.path.realpath(f["module"]) == os.path.realpath(program),
                      "%s: module %r is the program" % (name, f["module"]))
                check(f["gap_before_ns"] >= not_first * 2000000, "%s: gap_before holds the serial work before it" % name)
                check(f["gap_after_ns"] >= not_last * 2000000, "%s: gap_after holds the serial work after it" % name)
                line = re.search(r"^\s+%d\s.*\s%s\s" % (calls, re.escape(f["name"])), p.stderr, re.M)
                check(line is not None, "%s: the text report has its row with %d calls" % (name, calls))
            b = rows["b"]
            if b is not None:
                # parallel_for(1000): thread i runs its static block each call
                split = [1000 // threads + (i < 1000 % threads) for i in range(threads)]
                got = [t["iterations"] for t in b["per_thread"]][:threads]
                want = [n * b["calls"] for n in split]
                check(got == want, "b: iterations per thread %s == %s" % (got, want))
            e = rows["e"]
            if e is not None and threads >= 2:
                pt = e["per_thread"]
                check(all(pt[k]["barrier_wait_ns"] >= 2 * 19000000 for k in range(threads - 1)),
                      "e: every thread but the late one waited 20 ms at each call")
                check(all(pt[threads - 1]["barrier_wait_ns"] < pt[k]["barrier_wait_ns"]
                          for k in range(threads - 1)), "e: the late thread waited least")
                # the others wait about 20 ms for the late thread, twice
                check(e["barrier_wait_t0_ns"] >= 2 * 19000000, "e: thread 0 waited for the late thread (%d ns)" % e["barrier_wait_t0_ns"])
                check(e["barrier_wait_ns"] >= 2 * (threads - 1) * 19000000,
                      "e: all threads but the late one waited (%d ns)" % e["barrier_wait_ns"])
                check(e["barrier_wait_ns"] - e["barrier_wait_t0_ns"] >= 2 * (threads - 2) * 19000000,
                      "e: the workers' waits are collected")
        else:
            other = [f for f in fns if f["name"] == "other+0x0"]
            check(len(other) == 1, "one other+0x0 row")
            check(len(fns) == 3, "two slots and the overflow row (got %d rows)" % len(fns))
            # the first two functions to run take the two slots
            named = sorted(f["name"] for f in fns if f["name"] != "other+0x0")
            check(named == ["region_a+0x0", "region_b+0x0"], "the slots hold %s" % named)
            rest = [c for c in seq if c not in "ab"]
            if other:
                check(other[0]["calls"] == len(rest), "other+0x0 holds the other functions' "
                      "%d calls (got %d)" % (len(rest), other[0]["calls"]))
                check(other[0]["barriers"] == sum(per_call[c] for c in rest),
                      "other+0x0 holds their barriers")
            check(p.stderr.count("BUDDY_THREAD_POOL_PROFILE_SLOTS") == 1, "exactly one overflow warning")
    elif mode == "threads":
        p = run(program, args, {"BUDDY_THREAD_POOL_PROFILE_OUT": out,
                                "BUDDY_THREAD_POOL_THREADS": "4", "BUDDY_THREAD_POOL_OVERSUBSCRIBE": "1"})
        prof = load(out)
        invariants(prof, p.stderr)
        calls = sorted(f["calls"] for f in prof["functions"])
        check(calls == [2, 2000, 2000], "calls per function %s == [2, 2000, 2000]" % calls)
    elif mode == "unloads":
        p = run(program, args, {"BUDDY_THREAD_POOL_PROFILE_OUT": out})
        loads = int(args[1])
        reports = p.stderr.count("buddypool profile:")
        check(reports == loads, "one report per unload: %d reports for %d loads" % (reports, loads))
        prof = load(out)  # the last unload's
        invariants(prof, p.stderr)
        # each load runs the two kernels three times
        check(sorted(f["calls"] for f in prof["functions"]) == [3, 3], "the last load's calls are [3, 3]")
    elif mode == "fork":
        trace = os.path.join(tmp, "trace.json")
        p = run(program, args, {"BUDDY_THREAD_POOL_PROFILE_OUT": out, "BUDDY_THREAD_POOL_TRACE": trace})
        ctraces = [f for f in os.listdir(tmp) if re.fullmatch(r"trace\.json\.\d+", f)]
        check(len(ctraces) == 10, "ten children wrote their trace to PATH.<pid> (got %d)" % len(ctraces))
        for c in ctraces:
            ct = load(os.path.join(tmp, c))
            t0 = [e["tid"] for e in ct["traceEvents"] if e.get("ph") == "M"
                  and e["name"] == "thread_name" and e["args"]["name"].startswith("thread 0")]
            n = sum(1 for e in ct["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "region"
                    and e.get("tid") in t0)
            check(n == 400, "child trace %s: a slice per region of its own on thread 0 (%d)" % (c, n))
        check(os.path.exists(trace), "the parent wrote its trace")
        prof = load(out)
        check(prof["totals"]["regions"] >= 2 * (10 + 10 * 200), "the parent's JSON has its own regions "
              "(%d)" % prof["totals"]["regions"])
        children = [f for f in os.listdir(tmp) if re.fullmatch(r"profile\.json\.\d+", f)]
        check(len(children) == 10, "ten children wrote PATH.<pid> (got %d)" % len(children))
        for c in children:
            cp = load(os.path.join(tmp, c))
            check(cp["totals"]["regions"] == 400, "child %s: 400 regions (got %d)" % (c, cp["totals"]["regions"]))
        check(p.stderr.count("buddypool profile:") == 11, "a report from the parent and each child")
    elif mode == "fork-first":
        # a phase named before any region, then fork(): each process's own profile
        p = run(program, ["fork-first"], {"BUDDY_THREAD_POOL_PROFILE_OUT": out})
        m = re.search(r"^child (\d+)$", p.stdout, re.M)
        check(m is not None, "the program names its child")
        prof = load(out)
        check(prof["totals"]["regions"] == 2, "the parent's JSON holds its 2 regions (got %d)"
              % prof["totals"]["regions"])
        phases = {ph["name"]: ph for ph in prof.get("phases", [])}
        check(list(phases) == ["startup"] and phases["startup"]["totals"]["regions"] == 2,
              "the parent's phase startup holds its 2 regions (got %s)" % list(phases))
        if m:
            cpath = "%s.%s" % (out, m.group(1))
            check(os.path.exists(cpath), "the child wrote PATH.<pid>")
            if os.path.exists(cpath):
                cp = load(cpath)
                check(cp["totals"]["regions"] == 3, "the child's JSON holds its 3 regions (got %d)"
                      % cp["totals"]["regions"])
        check(p.stderr.count("buddypool profile:") == 2, "a report from the parent and the child")
    elif mode == "phases":
        p = run(program, ["phases"], {"BUDDY_THREAD_POOL_PROFILE_OUT": out})
        prof = load(out)
        invariants(prof, p.stderr)
        addr = addresses(p.stdout)
        by = {int(f["address"], 16): f for f in prof["functions"]}
        a, b = by.get(addr.get("region_a")), by.get(addr.get("region_b"))
        check(a is not None and b is not None, "region_a and region_b have rows")
        check(a["calls"] == 6 and b["calls"] == 5, "whole run: calls a=6 b=5")
        phases = {ph["name"]: ph for ph in prof["phases"]}
        check(sorted(phases) == ["decode", "prefill"], "two phases, prefill and decode (got %s)"
              % sorted(phases))
        want = {"prefill": {"a": 3, "b": 1}, "decode": {"b": 4}}
        for name, ph in phases.items():
            t = ph["totals"]
            fns = {int(f["address"], 16): f for f in ph["functions"]}
            calls = {k: fns[addr["region_" + k]]["calls"] for k in "ab"
                     if addr["region_" + k] in fns}
            check(calls == want[name], "phase %s: calls %s == %s" % (name, calls, want[name]))
            check(t["regions"] == sum(want[name].values()), "phase %s: regions" % name)
            check(t["barriers"] == 2 * t["regions"], "phase %s: a barrier and a join per region"
                  % name)
            check(t["span_ns"] == t["regions_ns"] + t["gaps_ns"], "phase %s: span = regions + gaps"
                  % name)
            check(sum(f["wall_ns"] for f in ph["functions"]) == t["regions_ns"],
                  "phase %s: rows add up to regions_ns" % name)
            check(sum(f["gap_before_ns"] for f in ph["functions"]) == t["gaps_ns"],
                  "phase %s: gap_before adds up to gaps_ns" % name)
            check(ph["threads"] == prof["threads"], "phase %s: threads" % name)
        if sorted(phases) == ["decode", "prefill"] and a is not None:
            pa = [f for f in phases["prefill"]["functions"] if int(f["address"], 16) == addr["region_a"]][0]
            tot = prof["totals"]
            check(tot["regions_ns"] - phases["prefill"]["totals"]["regions_ns"]
                  - phases["decode"]["totals"]["regions_ns"] == a["wall_ns"] - pa["wall_ns"],
                  "the regions outside phases are the first three of region_a (wall)")
            check(tot["gaps_ns"] - phases["prefill"]["totals"]["gaps_ns"]
                  - phases["decode"]["totals"]["gaps_ns"] == a["gap_before_ns"] - pa["gap_before_ns"],
                  "the gaps outside phases are those before them (gaps)")
        check("buddypool profile, phase 'prefill': " in p.stderr and
              "buddypool profile, phase 'decode': " in p.stderr, "the report at exit has the phases")
        check(re.search(r"buddypool profile: \d+ threads, 11 regions", p.stdout) is not None and
              "phase 'decode': " in p.stdout, "buddypool_profile_write wrote the report to stdout")
        p = run(program, ["reset"], {"BUDDY_THREAD_POOL_PROFILE_OUT": out})
        prof = load(out)
        invariants(prof, p.stderr)
        check(prof["totals"]["regions"] == 2 and len(prof["functions"]) == 1 and
              prof["phases"] == [], "after a reset the profile holds the last 2 regions alone")
        p = run(program, ["errors"], {"BUDDY_THREAD_POOL_PROFILE_OUT": out})
        check(p.stderr.count("at most 32 phases") == 1, "one warning for the phase beyond 32")
        check(len(load(out)["phases"]) == 32, "32 phases in the JSON")
    elif mode == "decode":
        p = run(program, ["--config", "tiny"] + args, {"BUDDY_THREAD_POOL_PROFILE_OUT": out})
        prof = load(out)
        invariants(prof, p.stderr)
        names = [ph["name"] for ph in prof["phases"]]
        check(names == ["prefill", "decode"], "phases prefill, decode (got %s)" % names)
        m = re.search(r"regions_per_token=(\d+) ", p.stdout)
        per_token = int(m.group(1)) if m else 0
        gen = int(re.search(r" gen=(\d+) ", p.stdout).group(1)) if m else 0
        for ph in prof["phases"]:
            t = ph["totals"]
            check(t["span_ns"] == t["regions_ns"] + t["gaps_ns"], "%s: span = regions + gaps" % ph["name"])
            check(sum(f["calls"] for f in ph["functions"]) == t["regions"], "%s: rows add up" % ph["name"])
        if names == ["prefill", "decode"]:
            dec = prof["phases"][1]["totals"]["regions"]
            check(dec == (gen - 1) * per_token, "decode phase: %d regions == (%d - 1) steps x %d"
                  % (dec, gen, per_token))
            check(sum(ph["totals"]["regions"] for ph in prof["phases"]) <= prof["totals"]["regions"],
                  "the phases hold no more regions than the run")
    elif mode == "trace":
        trace = os.path.join(tmp, "trace.json")
        p = run(program, ["phases"], {"BUDDY_THREAD_POOL_PROFILE_OUT": out,
                                      "BUDDY_THREAD_POOL_TRACE": trace})
        prof, tr = load(out), load(trace)
        threads = prof["threads"]
        ev = tr["traceEvents"]
        slices = [e for e in ev if e["ph"] == "X"]
        names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
        workers = [t for t, n in names.items() if n.startswith("buddypool-")]
        callers = [t for t, n in names.items() if n.startswith("thread 0")]
        check(len(callers) == 1 and len(workers) == threads - 1,
              "one thread-0 track and %d worker tracks (got %s)" % (threads - 1, sorted(names.values())))
        calls = {}
        for e in slices:
            check(e["dur"] >= 0 and e["ts"] >= 0, "slice times are non-negative")
            if e["cat"] == "region" and e["tid"] in callers:
                calls[int(e["args"]["address"], 16)] = calls.get(int(e["args"]["address"], 16), 0) + 1
        want = {int(f["address"], 16): f["calls"] for f in prof["functions"]}
        check(calls == want, "one region slice per region call on thread 0 (%s vs %s)" % (calls, want))
        marks = [e for e in ev if e["ph"] == "i"]
        check([e["name"] for e in marks] == ["prefill", "decode", "prefill"] and
              all(e["cat"] == "phase" and e["tid"] in callers for e in marks),
              "one phase mark per buddypool_profile_phase call, on thread 0's track (got %s)" %
              [e["name"] for e in marks])
        names_by_addr = {int(f["address"], 16): f["name"] for f in prof["functions"]}
        check(all(e["name"] == names_by_addr.get(int(e["args"]["address"], 16)) for e in slices
                  if e["cat"] == "region"), "region slices are named like the profile's rows")
        regions = prof["totals"]["regions"]
        for t in workers:
            n = sum(1 for e in slices if e["tid"] == t and e["cat"] == "region")
            check(n == regions, "worker %s: a slice for each of the %d regions (got %d)" % (names[t], regions, n))
        for t in names:
            mine = sorted((e for e in slices if e["tid"] == t), key=lambda e: e["ts"])
            regs = [e for e in mine if e["cat"] == "region"]
            waits = [e for e in mine if e["name"] == "barrier wait"]
            check(len(waits) == regions, "%s: a barrier wait per region (got %d)" % (names[t], len(waits)))
            for w in waits:
                inside = any(r["ts"] <= w["ts"] and w["ts"] + w["dur"] <= r["ts"] + r["dur"] + 0.001
                             for r in regs)
                check(inside, "%s: a barrier wait lies inside a region slice" % names[t])
        joins = [e for e in slices if e["name"] == "join wait"]
        check(len(joins) == regions and all(e["tid"] in callers for e in joins),
              "a join wait per region, on thread 0")
        od = tr["otherData"]
        check(od["dropped_events"] == 0 and od["events"] == len(slices) + len(marks), "nothing dropped, all kept")
        p = run(program, ["phases"], {"BUDDY_THREAD_POOL_TRACE": trace, "BUDDY_THREAD_POOL_PROFILE": "0",
                                      "BUDDY_THREAD_POOL_TRACE_EVENTS": "16"})
        tr = load(trace)
        slices = [e for e in tr["traceEvents"] if e["ph"] == "X"]
        per = {}
        for e in slices:
            per[e["tid"]] = per.get(e["tid"], 0) + 1
        check(all(n <= 16 for n in per.values()), "at most 16 events per thread (%s)" % per)
        total = 3 * regions + 2 * regions * (threads - 1)
        od = tr["otherData"]
        check(od["events"] == len(slices) and od["events"] + od["dropped_events"] == total,
              "kept %d + dropped %d == %d events" % (od["events"], od["dropped_events"], total))
        check("older events dropped" in p.stderr, "a warning says events were dropped")
        check("buddypool profile:" not in p.stderr, "tracing alone prints no profile")
        # exit() inside a region: the profile is reported, the trace is not
        # (the other threads still record), nothing crashes
        gone = os.path.join(tmp, "exit-trace.json")
        p = run(program, ["exit"], {"BUDDY_THREAD_POOL_TRACE": gone, "BUDDY_THREAD_POOL_PROFILE_OUT": out})
        check("test-phases exit: passed" in p.stdout and "trace not written" in p.stderr
              and not os.path.exists(gone), "exit() in a region: a message, no trace (%r)" % p.stderr[-300:])
        bad = os.path.join(tmp, "no-such-dir", "trace.json")
        p = run(program, ["phases"], {"BUDDY_THREAD_POOL_TRACE": bad})
        check(("'%s'" % bad) in p.stderr and "BUDDY_THREAD_POOL_TRACE" in p.stderr,
              "a message names the unwritable trace path")
    elif mode == "idle":
        # regions 60 ms apart: every worker sleeps between them and is woken
        p = run(program, ["idle"], {"BUDDY_THREAD_POOL_PROFILE_OUT": out})
        prof = load(out)
        invariants(prof, p.stderr)
        tot, waits, threads = prof["totals"], prof["waits"], prof["threads"]
        check(len(waits) >= threads, "waits has an entry per thread")
        if threads >= 2:
            check(tot["woken"] >= 4 * (threads - 1), "woken %d >= 4 x %d workers" % (tot["woken"], threads - 1))
            check(0 < tot["wake_mean_ns"] <= tot["wake_max_ns"] < 60000000,
                  "0 < wake mean %d <= max %d < 60 ms" % (tot["wake_mean_ns"], tot["wake_max_ns"]))
            for i in range(1, threads):
                check(waits[i]["sleeps"] >= 4 and waits[i]["sleep_ns"] >= 4 * 20000000,
                      "worker %d slept 4 times, 80 ms or more (%s)" % (i, waits[i]))
            check(waits[0]["wakes"] >= 4, "the forking thread issued the wakes (%s)" % waits[0])
            check("woken to start" in p.stderr and "sleeps" in p.stderr, "the text report gives the waits")
        # workers sleep in the 1.5 s pause before the reset (it outlasts the
        # 1 s spin period), and not between the regions after it: the spin
        # period also outlasts the reset itself, which under a sanitizer on
        # a busy machine took over 100 ms
        p = run(program, ["idle-reset"], {"BUDDY_THREAD_POOL_PROFILE_OUT": out,
                                          "BUDDY_THREAD_POOL_SPIN_US": "1000000"})
        prof = load(out)
        check(prof["totals"]["regions"] == 3 and prof["totals"]["woken"] == 0 and
              all(w["sleeps"] == 0 for w in prof["waits"]),
              "after a reset, regions back to back: nothing slept, nobody woken (%s, %s)"
              % (prof["totals"], prof["waits"]))
        p = run(program, ["idle"], {"BUDDY_THREAD_POOL_PROFILE_OUT": out, "OMP_WAIT_POLICY": "active"})
        prof = load(out)
        check(prof["totals"]["woken"] == 0 and all(w["sleeps"] == 0 for w in prof["waits"]),
              "OMP_WAIT_POLICY=active: no thread slept")
        if threads >= 2:
            check(prof["waits"][1]["spin_ns"] >= 4 * 20000000,
                  "OMP_WAIT_POLICY=active: a worker spun through the pauses (%d ns)" % prof["waits"][1]["spin_ns"])
    elif mode in ("teams", "pause"):
        trace = os.path.join(tmp, "trace.json")
        p = run(program, args, {"BUDDY_THREAD_POOL_PROFILE_OUT": out,
                                "BUDDY_THREAD_POOL_TRACE": trace})
        prof = load(out)
        invariants(prof, p.stderr)
        tot, ft = prof["totals"], prof["forking_threads"]
        check(len(set(c["tid"] for c in ft)) == len(ft), "one entry per forking thread")
        # concurrent: 2, 4 and 8 application threads, 20 regions each; join: the
        # main thread's 3 regions, and 6 threads forking 20 regions each
        want = {"concurrent": (14, {20}, 280), "join": (7, {3, 20}, 123)}.get(args[0])
        if mode == "pause": # the main thread's regions and the other thread's, as many as ran
            check(len(ft) == 2, "two forking threads, the main one and the other (got %d)" % len(ft))
            check(tot["regions"] == sum(c["regions"] for c in ft),
                  "every region is a forking thread's (%d vs %d)"
                  % (tot["regions"], sum(c["regions"] for c in ft)))
        if want is not None:
            n, per, regions = want
            check(len(ft) == n, "%d forking threads (got %d)" % (n, len(ft)))
            check(set(c["regions"] for c in ft) == per,
                  "regions per thread %s (got %s)" % (sorted(per), sorted(set(c["regions"] for c in ft))))
            check(tot["regions"] == regions, "%d regions, all profiled (got %d)" % (regions, tot["regions"]))
        check("per forking thread" in p.stderr and "obtaining workers" in p.stderr,
              "the text report lists the forking threads and their time obtaining workers")
        teams_trace(load(trace), ft, args[0])
    elif mode == "any":
        p = run(program, args, {"BUDDY_THREAD_POOL_PROFILE_OUT": out})
        prof = load(out)
        invariants(prof, p.stderr)
        check(prof["totals"]["regions"] > 0, "some regions were profiled")
    else:
        sys.exit("check-profile.py: unknown mode " + mode)


main()
