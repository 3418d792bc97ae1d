#!/usr/bin/env python3
"""check-libs.py --lib LIBBUDDYPOOL --threads N [--preload-first LIB] [--skip WHY]
                 --peer PROGRAM [--linked PROGRAM] -- [ARGS...]

Runs a program that calls a real library built for libgomp (tests/libs) at
OMP_NUM_THREADS=N three ways: on libgomp (the reference), with libbuddypool
preloaded, and linked with libbuddypool (--linked, where the library can
be). Each run must exit 0 (the program compares the library's results with
a naive reference itself) and print exactly what the libgomp run printed:
the same hashes of the results, bit for bit. The buddypool runs are
profiled: the profile must count regions run on the pool, by teams of N
threads when N > 1, so a run that fell back to libgomp does not pass.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import check, report  # noqa: E402 (tests/checks.py)

def run(cmd, env_extra, what):
    env = dict(os.environ)
    for k in ("LD_PRELOAD", "BUDDY_THREAD_POOL_PROFILE", "BUDDY_THREAD_POOL_PROFILE_OUT",
              "OMP_NUM_THREADS"):
        env.pop(k, None)
    env.update(env_extra)
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=150)
    except subprocess.TimeoutExpired:
        check(False, "%s: did not finish in 150 s (a team waiting for a member it lacks?)" % what)
        return None
    check(p.returncode == 0, "%s: exit 0 (got %d):\n%s%s" % (what, p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--linked")
    ap.add_argument("--preload-first", action="append", default=[])
    ap.add_argument("--skip")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    opts = ap.parse_args(argv[:cut])
    args = argv[cut + 1:]
    if opts.skip:
        print("skipped:", opts.skip)
        return 77
    n = {"OMP_NUM_THREADS": str(opts.threads)}
    ref = run([opts.peer] + args, n, "on libgomp")
    if ref is None or ref.returncode != 0:
        return report("check-libs")
    print("libgomp, %d threads:\n%s" % (opts.threads, ref.stdout), end="")
    ways = [("preloaded", [opts.peer], {"LD_PRELOAD": " ".join(opts.preload_first + [opts.lib])})]
    if opts.linked:
        ways.append(("linked", [opts.linked], {}))
    with tempfile.TemporaryDirectory() as tmp:
        for name, prog, env in ways:
            path = os.path.join(tmp, name + ".json")
            env = dict(env, BUDDY_THREAD_POOL_PROFILE="1", BUDDY_THREAD_POOL_PROFILE_OUT=path, **n)
            p = run(prog + args, env, "buddypool " + name)
            if p is None:
                continue
            check(p.stdout == ref.stdout, "buddypool %s: the output of libgomp, bit for bit:\n--- libgomp\n%s--- buddypool\n%s"
                  % (name, ref.stdout, p.stdout))
            check("loaded beside buddypool" not in p.stderr,
                  "buddypool %s: every OpenMP entry point the library uses is buddypool's:\n%s" % (name, p.stderr))
            if not check(os.path.exists(path), "buddypool %s: the profile was written" % name):
                continue
            with open(path) as f:
                prof = json.load(f)
            regions = prof["totals"]["regions"]
            check(regions > 0, "buddypool %s: the library's regions ran on the pool (profile: %d)" % (name, regions))
            if opts.threads > 1:
                check(prof["threads"] == opts.threads,
                      "buddypool %s: teams of %d threads (profile: %d)" % (name, opts.threads, prof["threads"]))
            print("buddypool %s: same results, %d regions on the pool" % (name, regions))
    return report("check-libs")


if __name__ == "__main__":
    sys.exit(main())
