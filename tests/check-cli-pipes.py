#!/usr/bin/env python3
"""check-cli-pipes.py BUDDYPOOL TEAM_PROGRAM: the `buddypool` command in a
pipe and under Ctrl-C, as a shell user runs it.

Each command whose output goes into a pipe already closed (what `| head`
does to a long output) must end quietly: killed by SIGPIPE as cat is, or
exit 0, with nothing on stderr (no BrokenPipeError traceback): --help,
report (text, --top, --sites), report --diff, and top. Ctrl-C (SIGINT) to
`top` watching a live process must end it with no traceback. A program
`buddypool run` starts gets SIGPIPE's default action (as from a shell),
not the ignored one Python gives itself. TEAM_PROGRAM (tests/deploy/team.c)
makes the profile and the live process."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from checks import check, report


def closed_pipe(cmd, env):
    """Run cmd with its stdout a pipe whose reading end is closed at once;
    (returncode, stderr)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    p.stdout.close()
    err = p.stderr.read().decode(errors="replace")
    return p.wait(timeout=60), err


def quiet(what, rc, err):
    check(rc in (0, -signal.SIGPIPE) and "Traceback" not in err and "BrokenPipe" not in err,
          "%s into a closed pipe: exit 0 or SIGPIPE, no traceback (got %s: %s)" %
          (what, rc, err[-800:]))


def main():
    cli, team = sys.argv[1:3]
    tmp = tempfile.mkdtemp()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BUDDY_", "OMP_"))}
    prof = os.path.join(tmp, "p.json")
    p = subprocess.run([cli, "run", "--threads", "2", "--json", prof, "--", team, "2", "2000"],
                       env=env, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(prof),
          "the profile is written (exit %d: %s)" % (p.returncode, p.stderr[-500:]))
    for what, args in (("--help", ["--help"]), ("report", ["report", prof]),
                       ("report --top 1", ["report", "--top", "1", prof]),
                       ("report --sites 2", ["report", "--sites", "2", prof]),
                       ("report --diff", ["report", "--diff", prof, prof])):
        rc, err = closed_pipe([cli] + args, env)
        quiet(what, rc, err)

    # the SIGPIPE disposition a program started by `buddypool run` gets (a
    # sanitizer build's runtime preloaded first, as check-cli.py does)
    first = os.environ.get("CHECK_CLI_PRELOAD_FIRST")
    no_preload = os.environ.get("CHECK_CLI_NO_PRELOAD")
    if no_preload:
        print("note: the SIGPIPE disposition of a run program is not checked: %s" % no_preload)
    else:
        p = subprocess.run([cli, "run", "--", "sh", "-c", "grep SigIgn /proc/self/status"],
                           env=dict(env, LD_PRELOAD=first) if first else env,
                           capture_output=True, text=True, timeout=60)
        ignored = int(p.stdout.split()[-1], 16) if p.stdout.strip() else -1
        check(ignored >= 0 and not ignored & (1 << (signal.SIGPIPE - 1)),
              "a program under `buddypool run` does not ignore SIGPIPE (SigIgn %s: %s)" %
              (p.stdout.strip(), p.stderr[-300:]))

    # a live process for top
    live = subprocess.Popen([team, "2", "100000000"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            env=dict(env, BUDDY_THREAD_POOL_PROFILE="1"))
    try:
        shm = "/dev/shm/buddypool-%d" % live.pid
        for _ in range(200):
            if os.path.exists(shm):
                break
            time.sleep(0.05)
        check(os.path.exists(shm), "the live process has its live file")
        rc, err = closed_pipe([cli, "top", str(live.pid), "--interval", "0.1", "--count", "50"],
                              env)
        quiet("top", rc, err)
        t = subprocess.Popen([cli, "top", str(live.pid), "--interval", "0.1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        time.sleep(1.0)
        t.send_signal(signal.SIGINT)
        out, err = t.communicate(timeout=30)
        err = err.decode(errors="replace")
        check(t.returncode in (0, 130) and "Traceback" not in err and "KeyboardInterrupt" not in err,
              "Ctrl-C ends top without a traceback (exit %s: %s)" % (t.returncode, err[-800:]))
    finally:
        live.kill()
        live.wait()
    return report("check-cli-pipes")


if __name__ == "__main__":
    sys.exit(main())
