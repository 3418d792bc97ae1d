#!/usr/bin/env python3
"""check-ending.py BUDDYPOOL TEAM_PROGRAM [GOMP_PROGRAM LIB]: a profile is
never lost when a process ends by a signal, and its live counters live as
long as the process.

TEAM_PROGRAM is tests/deploy/team.c (buddypool linked in); GOMP_PROGRAM a
gcc program linked with libgomp (tests/stress/groups.c) that runs with LIB
(libbuddypool.so) preloaded, as a user profiles a gcc program.

  signals   a profiled process ended by SIGTERM, SIGINT, SIGHUP or SIGQUIT
            (their action the default) writes its text report and JSON
            (ended_by names the signal), removes its live file, and dies by
            the same signal (its parent sees the same status); also
            preloaded into the gcc program (SIGTERM)
  own       a program with its own SIGTERM handler keeps it (its exit
            status), and writes no profile at that signal
  deadline  a write that cannot finish (the JSON path a FIFO nobody reads)
            still ends the process by the signal within seconds; the same
            signal again ends it at once, another one lets the write go on
  dumps     with BUDDY_THREAD_POOL_PROFILE_SIGNAL, a dump leaves the live
            file in place: `buddypool top` reads the process before, after
            one dump and after another
  leftover  a process killed by SIGKILL leaves its live file; `buddypool
            report --live FILE` turns it into a report of its counters, and
            the next profiled process removes it (and says so)
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from checks import check, report

ENDING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


def default_actions():
    """In the child before exec: the ending signals' actions the default,
    whatever this test was started with (a shell's background job ignores
    SIGINT and SIGQUIT), and no core file from SIGQUIT."""
    for sig in ENDING:
        signal.signal(sig, signal.SIG_DFL)
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def start(cmd, env, extra):
    e = dict(env)
    e.update(extra)
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=e,
                            preexec_fn=default_actions)


LIVE_DIR = tempfile.mkdtemp()  # this test's own: other tests' processes clean /dev/shm


def shm(pid):
    return os.path.join(LIVE_DIR, "buddypool-%d" % pid)


def wait_for(path, seconds=10.0):
    end = time.time() + seconds
    while time.time() < end:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return False


def main():
    cli, team = sys.argv[1:3]
    gomp, lib = (sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 else (None, None)
    tmp = tempfile.mkdtemp()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("BUDDY_", "OMP_")) and k != "LD_PRELOAD"}
    # the live files in a directory of this test's own: a profiled process of
    # another test running at the same time would remove its leftover
    env["BUDDY_THREAD_POOL_LIVE_DIR"] = LIVE_DIR
    prof = {"BUDDY_THREAD_POOL_PROFILE": "1"}
    forever = [team, "2", "1000000000"]

    # ---- signals ----
    runs = [(sig, forever, {}) for sig in ENDING]
    if gomp:
        runs.append((signal.SIGTERM, [gomp, "1", "1000000"], {"LD_PRELOAD": lib}))
    for sig, cmd, extra in runs:
        name = signal.Signals(sig).name
        what = "%s%s" % (name, " (preloaded into a gcc program)" if extra else "")
        out = os.path.join(tmp, "%s-%d.json" % (name, len(extra)))
        p = start(cmd, env, dict(prof, BUDDY_THREAD_POOL_PROFILE_OUT=out, **extra))
        check(wait_for(shm(p.pid)), "%s: the live file appears" % what)
        time.sleep(0.2)
        p.send_signal(sig)
        err = p.communicate(timeout=60)[1].decode(errors="replace")
        check(p.returncode == -sig, "%s: the process died by %s (status %s)" %
              (what, name, p.returncode))
        check("is ending by %s" % name in err and "buddypool profile:" in err,
              "%s: the text report is printed, marked (stderr: %s)" % (what, err[-600:]))
        try:
            j = json.load(open(out))
            check(j.get("ended_by") == name and j["totals"]["regions"] > 0,
                  "%s: the JSON is written, ended_by %s, with the regions" % (what, name))
        except (OSError, ValueError) as e:
            check(False, "%s: the JSON is written (%s)" % (what, e))
        check(not os.path.exists(shm(p.pid)), "%s: the live file is removed" % what)

    def ended(extra, *sigs):
        """A profiled run of forever sent sigs, 0.5 s apart, once it runs:
        its status and the seconds it took to end after the last one."""
        p = start(forever, env, dict(prof, **extra))
        wait_for(shm(p.pid))
        time.sleep(0.2)
        for k, sig in enumerate(sigs):
            if k:
                time.sleep(0.5)
            t0 = time.time()
            p.send_signal(sig)
        p.communicate(timeout=60)
        if os.path.exists(shm(p.pid)):
            os.unlink(shm(p.pid))  # left by a handler's _exit: not these checks'
        return p.returncode, time.time() - t0

    # ---- own ----
    out = os.path.join(tmp, "own.json")
    rc, _ = ended({"BUDDY_THREAD_POOL_PROFILE_OUT": out, "TEAM_SIGTERM_EXIT": "7"}, signal.SIGTERM)
    check(rc == 7, "own handler: the program's handler ran (status %s)" % rc)
    check(not os.path.exists(out), "own handler: no profile written at the signal")

    # ---- deadline ----
    fifo = os.path.join(tmp, "fifo.json")
    os.mkfifo(fifo)
    rc, took = ended({"BUDDY_THREAD_POOL_PROFILE_OUT": fifo}, signal.SIGTERM)
    check(rc == -signal.SIGTERM and took < 30,
          "deadline: a write that cannot finish still ends the process by SIGTERM "
          "(status %s after %.1f s)" % (rc, took))
    rc, took = ended({"BUDDY_THREAD_POOL_PROFILE_OUT": fifo}, signal.SIGTERM, signal.SIGTERM)
    check(rc == -signal.SIGTERM and took < 3,
          "deadline: the same signal again ends the process at once (status %s after %.1f s)"
          % (rc, took))
    rc, took = ended({"BUDDY_THREAD_POOL_PROFILE_OUT": fifo}, signal.SIGTERM, signal.SIGHUP)
    check(rc == -signal.SIGTERM and took > 2,
          "deadline: another ending signal lets the write go on; the first one ends the "
          "process (status %s after %.1f s)" % (rc, took))

    # ---- dumps ----
    out = os.path.join(tmp, "dumps.json")
    p = start(forever, env, dict(prof, BUDDY_THREAD_POOL_PROFILE_OUT=out,
                                 BUDDY_THREAD_POOL_PROFILE_SIGNAL="USR2"))
    try:
        check(wait_for(shm(p.pid)), "dumps: the live file appears")
        for when in ("before any dump", "after a dump", "after a second dump"):
            if when != "before any dump":
                os.path.exists(out) and os.unlink(out)
                p.send_signal(signal.SIGUSR2)
                wait_for(out)
                check(os.path.exists(out), "dumps: the dump wrote the JSON (%s)" % when)
            t = subprocess.run([cli, "top", str(p.pid), "--count", "1", "--interval", "0.2"],
                               capture_output=True, text=True, timeout=60, env=env)
            check(t.returncode == 0 and "buddypool top: pid %d" % p.pid in t.stdout,
                  "dumps: top reads the process %s (exit %d: %s)" %
                  (when, t.returncode, (t.stdout + t.stderr)[-400:]))
            check(os.path.exists(shm(p.pid)), "dumps: the live file is there %s" % when)
    finally:
        p.kill()
        p.wait()

    # ---- leftover ----
    p = start(forever, env, prof)
    wait_for(shm(p.pid))
    time.sleep(0.3)
    p.kill()
    p.wait()
    left = shm(p.pid)
    check(os.path.exists(left), "leftover: SIGKILL leaves the live file")
    r = subprocess.run([cli, "report", "--live", left], capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 0 and "buddypool profile" in r.stdout and "team" in r.stdout,
          "leftover: report --live turns the leftover into a report (exit %d: %s)" %
          (r.returncode, (r.stdout + r.stderr)[-600:]))
    q = subprocess.run([team, "2", "10"], capture_output=True, text=True, timeout=60,
                       env=dict(env, **prof))
    check(not os.path.exists(left), "leftover: the next profiled process removes it")
    check("left by process %d" % p.pid in q.stderr,
          "leftover: and says so (stderr: %s)" % q.stderr[-400:])
    return report("check-ending")


if __name__ == "__main__":
    sys.exit(main())
