#!/usr/bin/env python3
"""check-sites.py MODE TEST-SITES [LIBRARY [BUDDYPOOL]]: the profile's call
sites, barrier steps, files and live view, read back from what test-sites
(tests/test-sites.c) leaves.

  sites    default settings: site_body's two call sites (fork_a 3, fork_b 5)
           and its 4 steps of 8 calls, thread T-1 last at step 1; kmp_body's
           located site; the text report's columns and site lines
  callers  BUDDY_THREAD_POOL_PROFILE_CALLERS=3: fork_a < via_x < main;
           0: no sites at all
  bound    BUDDY_THREAD_POOL_PROFILE_STEPS=4: many_body keeps steps 0-3 and
           counts the other 14 episodes in the rest
  wrapper  LIBRARY preloaded into wrappers (timeout, env, sh -c) of the same
           environment: the program's JSON stays; a second program of the run
           writes PATH.<pid>; a file of an earlier run is replaced; wrappers
           print nothing
  graph    PROGRAM is bench/graph (4 layers, 5 tokens after 2 of warm-up):
           one row of 7 calls, 55 steps (13 nodes per layer, norm, head, the
           join) of 7 calls each; thread 0 alone runs the norms
  blas     PROGRAM is tests/libs' lib-blas with OpenBLAS (LIBRARY) at 2
           threads and BUDDY_THREAD_POOL_PROFILE_CALLERS=4: OpenBLAS's one
           outlined body splits into its cblas_sgemm and cblas_dgemm callers
  serve    `test-sites serve` with BUDDY_THREAD_POOL_PROFILE_SIGNAL=USR2:
           the live counters grow while it runs, the signal dumps a report
           and an incomplete JSON while it goes on, `BUDDYPOOL top PID` shows
           its row, and at exit the final JSON is complete and the live file
           gone
"""
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

from checks import check, report


def run(cmd, env_extra, timeout=120):
    env = dict(os.environ)
    env["BUDDY_THREAD_POOL_PROFILE"] = "1"
    env.pop("BUDDY_THREAD_POOL_PROFILE_RUN", None)
    env.update(env_extra)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    check(p.returncode == 0, "%s exits 0 (got %d): %s" % (cmd, p.returncode, p.stderr[-2000:]))
    return p


def load(path):
    with open(path) as f:
        return json.load(f)


def profiled(cmd, tmp, env=None):
    """Run cmd profiled with its JSON in tmp: the run and the profile."""
    out = os.path.join(tmp, "p.json")
    p = run(cmd, dict(env or {}, BUDDY_THREAD_POOL_PROFILE_OUT=out))
    return p, load(out)


def row(prof, prefix):
    rows = [f for f in prof["functions"] if f["name"].startswith(prefix + "+")]
    check(len(rows) == 1, "one row for %s (got %d)" % (prefix, len(rows)))
    return rows[0] if rows else None


def site_names(f):
    return [[fr["name"].split("+")[0] for fr in s["frames"]] for s in f["call_sites"]]


def check_sites(program, tmp):
    p, prof = profiled([program], tmp)
    threads = prof["threads"]
    check(prof["callers"] == 1 and prof["step_bound"] == 1024, "the defaults: 1 frame, 1024 steps")
    body = row(prof, "site_body")
    if body is None:
        return
    check(body["calls"] == 8, "site_body ran 8 times (got %d)" % body["calls"])
    got = sorted((n[0], s["calls"]) for n, s in zip(site_names(body), body["call_sites"]))
    check(got == [("fork_a", 3), ("fork_b", 5)], "site_body's sites: fork_a 3, fork_b 5 (got %s)" % got)
    for s in body["call_sites"]:
        fr = s["frames"][0]
        check(fr["module"].endswith("test-sites") and int(fr["module_offset"], 16) > 0,
              "a site frame names its module and offset (%s)" % fr)
        check(s["location"] is None and s["other"] is False, "a site of buddypool_parallel has no location")
    steps = body["steps"]
    check([s["index"] for s in steps] == [0, 1, 2, 3], "site_body has steps 0-3 (got %s)" %
          [s["index"] for s in steps])
    check(all(s["calls"] == 8 for s in steps), "each step reached 8 times")
    if threads >= 2 and len(steps) == 4:
        check(steps[1]["last_arrival"][threads - 1] == 8,
              "thread %d arrived last at step 1 every time (%s)" % (threads - 1, steps[1]["last_arrival"]))
        check(steps[1]["work_ns"] >= 8 * 5000000,
              "step 1's work holds the 5 ms sleeps (%d ns)" % steps[1]["work_ns"])
        check(steps[1]["barrier_wait_ns"] >= 8 * (threads - 1) * 4000000,
              "the others wait about 5 ms at step 1 (%d ns)" % steps[1]["barrier_wait_ns"])
        worst = max(steps, key=lambda s: s["barrier_wait_ns"])
        check(worst["index"] == 1, "step 1 has the most waiting")
    kmp = row(prof, "kmp_body")
    if kmp is not None:
        located = [s for s in kmp["call_sites"] if s["location"] is not None]
        check(len(kmp["call_sites"]) == 2 and len(located) == 1, "kmp_body: two sites, one located")
        if located:
            check(located[0]["location"] == {"file": "test-sites.c", "function": "kmp_caller",
                                             "line": 77, "column": 5} and located[0]["calls"] == 4,
                  "the located site: test-sites.c:77:5 kmp_caller, 4 calls (got %s)" % located[0])
            check("test-sites.c:77 kmp_caller" in p.stderr, "the text report names the location")
    header = [l for l in p.stderr.splitlines() if l.strip().startswith("calls ")]
    check(header and header[0].split()[:9] == ["calls", "wall", "wall%", "gap_before", "gap%", "gap_after",
                                               "barrier_wait", "barrier_wait_t0", "barriers"],
          "the table's columns carry the figures' names (%s)" % header[:1])
    check(re.search(r"^\s+3\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+<- fork_a\+0x[0-9a-f]+  test-sites$",
                    p.stderr, re.M) is not None, "a site line under site_body: 3 calls from fork_a")
    check("barrier steps with the most waiting" in p.stderr and
          re.search(r"^\s+8\s+[0-9.]+\s+[0-9.]+\s+1  thread %d, 8 of 8\s+site_body\+0x0$" % (threads - 1),
                    p.stderr, re.M) is not None if threads >= 2 else True,
          "the steps table shows site_body's step 1 and its last thread")


def check_stdout(program):
    """A JSON path that is not a regular file is written as it is, never
    read: /dev/stdout on a pipe gets the profile, and the run ends."""
    p = run([program], {"BUDDY_THREAD_POOL_PROFILE_OUT": "/dev/stdout"}, timeout=60)
    at = p.stdout.find('{"run": ')
    check(at >= 0, "the JSON profile went to the pipe on standard output")
    if at >= 0:
        prof = json.loads(p.stdout[at:])
        check(prof["totals"]["regions"] == 16, "it holds the 16 regions")


def check_callers(program, tmp):
    _, prof = profiled([program], tmp, {"BUDDY_THREAD_POOL_PROFILE_CALLERS": "3"})
    check(prof["callers"] == 3, "callers 3 in the JSON")
    body = row(prof, "site_body")
    if body is not None:
        names = sorted(site_names(body))
        check(names[0] == ["fork_a", "via_x", "main"], "fork_a's site: fork_a < via_x < main (got %s)" % names[0])
        check(names[1][:2] == ["fork_b", "main"], "fork_b's site: fork_b < main < ... (got %s)" % names[1])
    _, prof = profiled([program], tmp, {"BUDDY_THREAD_POOL_PROFILE_CALLERS": "0"})
    check(prof["callers"] == 0 and all(f["call_sites"] == [] for f in prof["functions"]),
          "callers 0: no call sites")
    p, prof = profiled([program], tmp, {"BUDDY_THREAD_POOL_PROFILE_CALLERS": "17"})
    check("BUDDY_THREAD_POOL_PROFILE_CALLERS='17'" in p.stderr and prof["callers"] == 1,
          "a bad CALLERS value is named and the default kept")


def check_bound(program, tmp):
    _, prof = profiled([program], tmp, {"BUDDY_THREAD_POOL_PROFILE_STEPS": "4"})
    check(prof["step_bound"] == 4, "step_bound 4 in the JSON")
    many = row(prof, "many_body")
    if many is None:
        return
    got = [(s["index"], s["rest"], s["calls"]) for s in many["steps"]]
    check(got == [(0, False, 2), (1, False, 2), (2, False, 2), (3, False, 2), (4, True, 14)],
          "many_body: steps 0-3 twice each, the rest 14 (got %s)" % got)
    check(many["steps"][-1]["last_arrival"] is None, "the rest tracks no last thread")


def check_graph(program, tmp):
    p, prof = profiled([program, "--layers", "4", "--tokens", "5"], tmp)
    check("55 nodes" not in p.stdout and "54 nodes per token" in p.stdout, "graph says 54 nodes per token")
    fns = prof["functions"]
    check(len(fns) == 1 and fns[0]["calls"] == 7, "one region function, 7 calls (got %s)" %
          [(f["name"], f["calls"]) for f in fns])
    if len(fns) != 1:
        return
    f = fns[0]
    steps = f["steps"]
    check(f["barriers"] == 7 * 55 and [s["index"] for s in steps] == list(range(55)) and
          all(s["calls"] == 7 for s in steps), "55 steps of 7 calls each (got %d barriers, %d steps)" %
          (f["barriers"], len(steps)))
    check(len(f["call_sites"]) == 1 and f["call_sites"][0]["calls"] == 7,
          "one call site, the token function's fork")


def check_blas(program, lib, tmp):
    _, prof = profiled([program, lib], tmp, {"BUDDY_THREAD_POOL_PROFILE_CALLERS": "4",
                                            "OMP_NUM_THREADS": "2"})
    rows = [f for f in prof["functions"] if os.path.basename(f["module"]).startswith("libopenblas")]
    check(len(rows) == 1, "one OpenBLAS row (got %d)" % len(rows))
    if not rows:
        return
    by = {}
    for s in rows[0]["call_sites"]:
        names = [fr["name"].split("+")[0] for fr in s["frames"]]
        key = "sgemm" if "cblas_sgemm" in names else "dgemm" if "cblas_dgemm" in names else "other"
        by[key] = by.get(key, 0) + s["calls"]
    check(by.get("sgemm", 0) >= 1 and by.get("sgemm") == by.get("dgemm") and "other" not in by,
          "OpenBLAS's regions split into cblas_sgemm and cblas_dgemm callers, as many each (got %s)" % by)


def json_files(tmp):
    return sorted(f for f in os.listdir(tmp) if f.startswith("p.json"))


def check_wrapper(program, lib, tmp):
    out = os.path.join(tmp, "p.json")
    env = {"BUDDY_THREAD_POOL_PROFILE_OUT": out, "LD_PRELOAD": lib}
    with open(out, "w") as f:
        f.write('{"run": "1-1", "pid": 1, "complete": true}\n')  # an earlier run's
    p = run(["timeout", "60", "env", "sh", "-c", program], env)
    check(json_files(tmp) == ["p.json"], "one JSON file (got %s)" % json_files(tmp))
    prof = load(out)
    check(prof["totals"]["regions"] == 16 and prof["complete"],
          "the program's 16 regions stay in PATH, replacing the earlier run's (got %d)" %
          prof["totals"]["regions"])
    check(p.stderr.count("buddypool profile:") == 1, "one table: the wrappers print none")
    check("no parallel region ran" not in p.stderr, "a wrapper that never used the runtime says nothing")
    p = run(["sh", "-c", "%s && %s" % (program, program)], env)
    files = json_files(tmp)
    check(len(files) == 2 and files[0] == "p.json" and re.fullmatch(r"p\.json\.\d+", files[1]),
          "two programs of one run: PATH and PATH.<pid> (got %s)" % files)
    if len(files) == 2:
        first, second = load(out), load(os.path.join(tmp, files[1]))
        check(first["run"] == second["run"] and first["pid"] != second["pid"] and
              files[1] == "p.json.%d" % second["pid"], "the same run, two processes, each in its own file")
        check(first["totals"]["regions"] == second["totals"]["regions"] == 16, "both keep their 16 regions")
        check(("JSON profile written to %s" % os.path.join(tmp, files[1])) in p.stderr,
              "the report says where the second file went")


def live_read(pid):
    """The live header's counters and rows (docs/profile-format.md)."""
    try:
        with open("/dev/shm/buddypool-%d" % pid, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if len(data) < 128 or data[:8] != b"BPLIVE1\0":
        return None
    hsize, rsize, cap, threads, rows = struct.unpack_from("=IIIIQ", data, 8)
    regions = struct.unpack_from("=Q", data, 48)[0]
    out = {"threads": threads, "regions": regions, "rows": {}}
    for i in range(rows):
        calls, wall = struct.unpack_from("=Qq", data, hsize + i * rsize)
        name = data[hsize + i * rsize + 40: hsize + i * rsize + 192].split(b"\0")[0].decode()
        out["rows"][name] = calls
    return out


def wait_for(what, cond, seconds=20):
    end = time.time() + seconds
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    check(False, "in %d s: %s" % (seconds, what))
    return None


def check_serve(program, tool, tmp):
    out = os.path.join(tmp, "p.json")
    env = dict(os.environ, BUDDY_THREAD_POOL_PROFILE="1", BUDDY_THREAD_POOL_PROFILE_OUT=out,
               BUDDY_THREAD_POOL_PROFILE_SIGNAL="USR2")
    errf = open(os.path.join(tmp, "stderr"), "w+")
    proc = subprocess.Popen([program, "serve"], env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=errf)
    try:
        live = wait_for("the live counters count regions", lambda: (live_read(proc.pid) or {}).get("regions", 0) > 5 and live_read(proc.pid))
        if live:
            check(live["rows"].get("site_body+0x0", 0) > 0, "the live file has site_body's row (%s)" % live["rows"])
        os.kill(proc.pid, signal.SIGUSR2)
        dumped = wait_for("the signal writes the JSON", lambda: os.path.exists(out) and load(out))
        check(proc.poll() is None, "the process runs on after the dump")
        if dumped:
            check(dumped["complete"] is False and dumped["totals"]["regions"] > 0,
                  "the dump is marked incomplete and has the regions so far")
        after = wait_for("the counters grow after the dump",
                         lambda: dumped and (live_read(proc.pid) or {}).get("regions", 0) > dumped["totals"]["regions"] + 5)
        check(bool(after), "regions go on after the dump")
        top = subprocess.run([sys.executable, tool, "top", str(proc.pid), "--count", "2", "--interval", "0.3"],
                             capture_output=True, text=True, timeout=60)
        check(top.returncode == 0 and "site_body" in top.stdout,
              "buddypool top shows the running process's row (rc %d): %s%s" %
              (top.returncode, top.stdout[-1500:], top.stderr[-500:]))
        proc.stdin.close()
        check(proc.wait(timeout=60) == 0, "the server exits 0 when its input closes")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    final = load(out)
    check(final["complete"] is True and dumped and final["totals"]["regions"] > dumped["totals"]["regions"],
          "the final JSON is complete and holds more regions than the dump")
    check(not os.path.exists("/dev/shm/buddypool-%d" % proc.pid), "the live file is removed at exit")
    errf.seek(0)
    err = errf.read()
    check(err.count("buddypool profile:") == 2, "two tables on stderr: the dump's and the exit's")


def main():
    mode, program = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        if mode == "sites":
            check_sites(program, tmp)
            check_stdout(program)
        elif mode == "callers":
            check_callers(program, tmp)
        elif mode == "bound":
            check_bound(program, tmp)
        elif mode == "graph":
            check_graph(program, tmp)
        elif mode == "blas":
            check_blas(program, sys.argv[3], tmp)
        elif mode == "wrapper":
            check_wrapper(program, sys.argv[3], tmp)
        elif mode == "serve":
            check_serve(program, sys.argv[3], tmp)
        else:
            check(False, "unknown mode %s" % mode)
    sys.exit(report("check-sites " + mode))


main()
