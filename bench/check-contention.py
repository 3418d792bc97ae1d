#!/usr/bin/env python3
"""check-contention.py BUILD_DIR OUT: a check of bench/contention.py, not a
measurement. It checks the shares fair_share gives each load, then runs
contention.py on buddypool alone, idle and with a second copy, 4 graph
tokens a run, one round, and checks the table it writes to OUT: each
setting's second-copy row gives its median as a share of its fair-share
rate, and that share is the median over the idle median times
fair_share's share for a second copy, within a percent; idle's row
gives none; and both loads' logits agree across the settings.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contention import fair_share  # noqa: E402


def check_shares():
    # (load, threads, CPUs, quota): the share of its idle CPU time each
    # team thread keeps
    cases = [
        (("every", 2, 2, None), 0.5),   # each CPU: the loop and one thread
        (("every", 1, 2, None), 0.5),   # a thread never gets more than its CPU's half
        (("every", 4, 2, None), 2 / 3),  # idle, 4 threads share 2 CPUs: 1/2 each; loaded 1/3
        (("copy", 2, 2, None), 0.5),
        (("copy", 1, 4, None), 1.0),    # two 1-thread teams on 4 CPUs do not meet
        (("quota", 2, 2, 1.5), 0.75),
        (("quota", 1, 2, 1.5), 1.0),    # one thread cannot use more than 1 CPU
        (("quota", 4, 2, 3.5), 1.0),    # a quota above the CPUs takes nothing
        (("idle", 2, 2, None), None),
        (("first", 2, 2, None), None),
    ]
    got = [(args, want, fair_share(*args)) for args, want in cases]
    bad = [(args, want, g) for args, want, g in got
           if (want is None) != (g is None) or (want is not None and abs(g - want) > 1e-9)]
    for args, want, got in bad:
        print("FAIL: fair_share%r = %r, want %r" % (args, got, want))
    return not bad


def check_table(build, out):
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run([sys.executable, os.path.join(here, "contention.py"), build,
                        "--rounds", "1", "--tokens", "4", "--loads", "idle,copy", "--no-peers",
                        "--out", out], stdout=subprocess.DEVNULL)
    if p.returncode != 0:
        print("FAIL: contention.py exited %d" % p.returncode)
        return False
    text = open(out).read()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and cells[0] in ("idle", "a second copy at once"):
            rows[(cells[0], cells[1])] = (float(cells[2]), cells[7])
    ok = True
    settings = sorted({label for _, label in rows})
    if "buddypool" not in settings:
        print("FAIL: no buddypool row in\n" + text)
        return False
    ncpu = len(os.sched_getaffinity(0))
    share = fair_share("copy", ncpu, ncpu, None)  # the team: one thread per CPU
    for label in settings:
        idle, copy = rows.get(("idle", label)), rows.get(("a second copy at once", label))
        if idle is None or copy is None:
            print("FAIL: %s has no idle or no second-copy row" % label)
            ok = False
            continue
        if idle[1] != "-":
            print("FAIL: %s idle gives a share of its fair-share rate: %s" % (label, idle[1]))
            ok = False
        # from the printed medians, rounded to 0.1: within a percent
        want = 100 * copy[0] / (idle[0] * share)
        got = float(copy[1].rstrip("%")) if re.fullmatch(r"[0-9]+%", copy[1]) else None
        if got is None or abs(got - want) > 1:
            print("FAIL: %s second copy: %s of its fair-share rate, want %.0f%% (%.1f over "
                  "%.1f times %g)" % (label, copy[1], want, copy[0], idle[0], share))
            ok = False
    for load in ("idle", "a second copy at once"):
        if "Logits checksum identical across settings (%s): yes" % load not in text:
            print("FAIL: the logits differ across settings (%s)" % load)
            ok = False
    if not ok:
        print(text)
    return ok


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check-contention.py BUILD_DIR OUT")
    ok = check_shares()
    ok = check_table(sys.argv[1], sys.argv[2]) and ok
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
