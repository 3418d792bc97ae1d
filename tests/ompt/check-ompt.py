#!/usr/bin/env python3
"""check-ompt.py MODE PROGRAM [TOOL]: run an OMPT test program (regions.c)
and check what the test tool (record.c) saw.

Modes:
  record      the tool from OMP_TOOL_LIBRARIES: every region, implicit task
              and thread begun and ended, the tool's own checks clean,
              omp_control_tool answered by the tool
  in-program  the tool linked into the program: found without
              OMP_TOOL_LIBRARIES
  verbose     OMP_TOOL_VERBOSE_INIT=stdout with a missing library before the
              tool: both tries logged, the tool started
  disabled    OMP_TOOL=disabled: no tool, omp_control_tool gives -2
  decline-start, decline-init
              the tool's ompt_start_tool returns NULL / its initialize 0: not
              used (finalize not called), omp_control_tool gives -2
  bad-env     OMP_TOOL=maybe: a warning, and the tool is started
  pause       the tool on gomp-pause (workers ended by omp_pause_resource and
              started again): every worker's thread_begin has its thread_end,
              the restarted workers begin again, the tool's checks are clean
  constructs  the tool from OMP_TOOL_LIBRARIES on constructs.c: every sync
              region, reduction, task and lock the program counted was
              reported, paired, and the tool's own checks are clean
Extra environment (LD_PRELOAD for the preloaded runs, LD_LIBRARY_PATH for
the drop-in ones, with BP_TEST_DROPIN set: the tool must have been started
by buddypool) comes from the test.
"""
import os
import re
import subprocess
import sys


def fail(msg, out):
    sys.exit("check-ompt: %s\n--- output ---\n%s" % (msg, out))


def run(prog, env):
    e = dict(os.environ)
    e.update(env)
    e.setdefault("OMP_NUM_THREADS", "2")
    p = subprocess.run([prog], env=e, capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    if p.returncode != 0:
        fail("%s exited %d" % (prog, p.returncode), out)
    return p.stdout, p.stderr, out


def fields(line_re, out):
    m = re.search(line_re, out, re.M)
    return {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", m.group(0))} if m else None


def check_recorded(out):
    prog = fields(r"^REGIONS .*$", out)
    rec = fields(r"^OMPT-RECORD thread_begin.*$", out)
    sets = fields(r"^OMPT-SET .*$", out)
    if prog is None or rec is None or sets is None:
        fail("no REGIONS, OMPT-RECORD or OMPT-SET line", out)
    if "OMPT-ERROR" in out or rec["errors"] != 0:
        fail("the tool found errors", out)
    apps = prog.get("app_threads", 1)  # each application thread's initial task
    # a league is a region too, and each of its teams an initial task
    leagues, teams = prog.get("leagues", 0), prog.get("league_teams", 0)
    want = {"parallel_begin": prog["regions"] + leagues,
            "parallel_end": prog["regions"] + leagues,
            "implicit_begin": prog["implicit"] + apps + teams,
            "implicit_end": prog["implicit"] + apps + teams,
            "initial": apps, "max_team": 2, "thread_end": rec["thread_begin"]}
    for k, v in want.items():
        if rec[k] != v:
            fail("%s=%d, expected %d" % (k, rec[k], v), out)
    if rec["thread_begin"] < 2:
        fail("thread_begin=%d: the workers were not seen" % rec["thread_begin"], out)
    if prog["control"] != 43:
        fail("omp_control_tool gave %d, not the tool's 43" % prog["control"], out)
    if sets["thread_begin"] != 5 or sets["implicit_task"] != 5 or sets["bogus"] != 0 or \
            not 1 <= sets["target"] <= 5 or not 1 <= sets["masked"] <= 5:
        fail("ompt_set_callback's answers %s" % sets, out)


def check_constructs(out):
    prog = fields(r"^CONSTRUCTS .*$", out)
    sync = fields(r"^OMPT-SYNC .*$", out)
    tasks = fields(r"^OMPT-TASKS .*$", out)
    mutex = fields(r"^OMPT-MUTEX .*$", out)
    rec = fields(r"^OMPT-RECORD thread_begin.*$", out)
    if None in (prog, sync, tasks, mutex, rec):
        fail("no CONSTRUCTS, OMPT-SYNC, OMPT-TASKS, OMPT-MUTEX or OMPT-RECORD line", out)
    if "OMPT-ERROR" in out or rec["errors"] != 0:
        fail("the tool found errors", out)
    clang = prog["compiler"] == 1
    want = [
        ("sync regions paired with their waits", sync["unpaired"], 0),
        # three regions of 2 threads: each thread's closing barrier
        ("implicit_parallel", sync["implicit_parallel"], 6),
        ("taskwait", sync["taskwait"], prog["taskwaits"]),
        # the program's taskgroups, and the taskloop's own
        ("taskgroup", sync["taskgroup"], prog["taskgroups"] + prog["taskloops"]),
        # clang's reductions go through the runtime, the parallel's own too;
        # gcc's never do
        ("reduction", sync["reduction"], prog["reductions"] + 1 if clang else 0),
        ("reduction_end", sync["reduction_end"], sync["reduction"]),
        ("completed", tasks["completed"], tasks["created"]),
        ("taskwait_tasks", tasks["taskwait_tasks"], 1),
        # each task with a dependence, and the taskwait's with one
        ("dependences", tasks["dependences"], prog["depend_tasks"] + 1),
        ("pairs paired", tasks["bad_pairs"], 0),
        ("deps", tasks["deps"], prog["depend_tasks"] + 1),
        ("detached", tasks["detached"], 1),
        ("released", mutex["released"], mutex["acquired"]),
        ("critical", mutex["critical"], prog["critical"]),
        ("lock", mutex["lock"], prog["locks"]),
        ("test_lock", mutex["test_lock"], prog["tested"]),
        ("nest", mutex["nest"], prog["nested"]),
        ("nest_again", mutex["nest_again"], prog["nested"]),
        ("nest_release", mutex["nest_release"], prog["nested"]),
        ("atomic", mutex["atomic"], prog["atomics"]),
        ("ordered", mutex["ordered"], prog["ordered"]),
        ("lock init", mutex["init"], 2),
        ("lock destroy", mutex["destroy"], 2),
    ]
    work = fields(r"^OMPT-WORK .*$", out)
    if work is None:
        fail("no OMPT-WORK line", out)
    want += [
        ("work paired", work["unpaired"], 0),
        # every single, on the thread that ran it and on the other
        ("single", work["single"], prog["singles"]),
        ("single_other", work["single_other"], prog["singles"]),
        # the schedule(dynamic) loop and the ordered one (dynamic), on each
        # thread; their chunks: 10 of 10 iterations, 10 of 1
        ("loop_dynamic", work["loop_dynamic"], 4),
        ("chunks", work["chunks"], prog["chunks"] + prog["ordered"]),
        ("chunk_iterations", work["chunk_iterations"], 100 + prog["ordered"]),
        ("sections", work["sections"], 2),
        ("section_dispatches", work["section_dispatches"], prog["sections"]),
        ("taskloop", work["taskloop"], prog["taskloops"]),
        # gcc inlines static loops, master, masked and flush; clang calls
        # the runtime (the two reduction loops are static, on each thread)
        ("loop_static", work["loop_static"], 4 if clang else 0),
        ("masked", work["masked"], prog["masked"] if clang else 0),
        ("masked_end", work["masked_end"], work["masked"]),
        ("flush", work["flush"], prog["flushes"] if clang else 0),
        # cancel parallel by thread 0 (OMP_CANCELLATION=true)
        ("cancel_activated", work["cancel_activated"], prog["cancels"]),
    ]
    # ... seen by thread 1 at its barrier (and by clang's closing one)
    if not prog["cancels"] <= work["cancel_detected"] <= 2 * prog["cancels"]:
        fail("cancel_detected: %d, for %d cancels" % (work["cancel_detected"],
                                                      prog["cancels"]), out)
    for what, got, exp in want:
        if got != exp:
            fail("%s: %d, expected %d" % (what, got, exp), out)
    # at least: the barriers the program wrote (gcc's single closes with an
    # explicit barrier too), the tasks it made (and the taskwait's, and
    # the taskloop's), its undeferred tasks (if(0), the final task's child,
    # the taskwait's)
    if sync["explicit"] < prog["barriers"]:
        fail("explicit barriers: %d, fewer than %d" % (sync["explicit"], prog["barriers"]), out)
    if tasks["created"] < prog["tasks"] + 1 + (10 if clang else 1):
        fail("created: %d, fewer than the program's %d tasks" % (tasks["created"],
                                                                  prog["tasks"]), out)
    # each task with a dependence waits for at most one earlier one here
    # (a chain), unless that one completed first
    if tasks["pairs"] > prog["depend_tasks"]:
        fail("task_dependence: %d pairs, more than %d tasks with dependences"
             % (tasks["pairs"], prog["depend_tasks"]), out)
    if tasks["undeferred"] < 3:
        fail("undeferred: %d, fewer than 3" % tasks["undeferred"], out)


def check_none(out):
    prog = fields(r"^REGIONS .*$", out)
    if prog is None:
        fail("no REGIONS line", out)
    if re.search(r"^OMPT-RECORD thread_begin", out, re.M):
        fail("a tool that should not run was finalized", out)
    if prog["control"] != -2:
        fail("omp_control_tool gave %d, not omp_control_tool_notool (-2)" % prog["control"],
             out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if os.environ.get("BP_SKIP"):
        print("check-ompt: skipped: %s" % os.environ["BP_SKIP"])
        sys.exit(77)
    mode, prog = sys.argv[1], sys.argv[2]
    dropin = os.environ.get("BP_TEST_DROPIN") is not None
    tool = sys.argv[3] if len(sys.argv) > 3 else ""
    libs = {"OMP_TOOL_LIBRARIES": tool} if tool else {}
    if mode in ("record", "in-program"):
        _, _, out = run(prog, libs)
        check_recorded(out)
    elif mode == "pause":
        _, _, out = run(prog, dict(libs, OMP_NUM_THREADS="3", GOMP_PAUSE_BUDDYPOOL="1"))
        rec = fields(r"^OMPT-RECORD thread_begin.*$", out)
        if rec is None or "gomp-pause: all checks passed" not in out:
            fail("no OMPT-RECORD line, or gomp-pause failed", out)
        if "OMPT-ERROR" in out or rec["errors"] != 0:
            fail("the tool found errors", out)
        if rec["thread_end"] != rec["thread_begin"]:
            fail("thread_end=%d, thread_begin=%d" % (rec["thread_end"], rec["thread_begin"]), out)
        # a team of 3 has 2 workers: ended by the first hard pause and started
        # again by the next region, at least
        if rec["thread_begin"] - rec["initial"] < 4:
            fail("%d worker thread_begins: the restarted workers were not seen"
                 % (rec["thread_begin"] - rec["initial"]), out)
    elif mode == "constructs":
        _, _, out = run(prog, dict(libs, OMP_CANCELLATION="true"))
        check_constructs(out)
    elif mode == "verbose":
        missing = "/nonexistent/libno-such-tool.so"
        _, _, out = run(prog, {"OMP_TOOL_LIBRARIES": missing + ":" + tool,
                               "OMP_TOOL_VERBOSE_INIT": "stdout"})
        for want in [missing + ": cannot be opened", "ompt_start_tool in %s returned a tool"
                     % tool, "the tool is started"]:
            if want not in out:
                fail("the log lacks %r" % want, out)
        check_recorded(out)
    elif mode == "disabled":
        _, _, out = run(prog, dict(libs, OMP_TOOL="disabled"))
        check_none(out)
        if "OMPT-RECORD started" in out:
            fail("OMP_TOOL=disabled, yet the tool was started", out)
    elif mode in ("decline-start", "decline-init"):
        _, _, out = run(prog, dict(libs, BP_TEST_TOOL_DECLINE=mode.split("-")[1]))
        check_none(out)
        if mode == "decline-init" and "initialize declines" not in out:
            fail("initialize was not called", out)
    elif mode == "bad-env":
        _, err, out = run(prog, dict(libs, OMP_TOOL="maybe"))
        if "OMP_TOOL=maybe" not in err:
            fail("no warning names OMP_TOOL=maybe", out)
        check_recorded(out)
    else:
        sys.exit("check-ompt: unknown mode %s" % mode)
    if dropin and not re.search(r"^OMPT-RECORD started by buddypool ", out, re.M):
        fail("drop-in mode, yet the tool was not started by buddypool", out)
    print("check-ompt %s: ok" % mode)


if __name__ == "__main__":
    main()
