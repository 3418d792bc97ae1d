#!/usr/bin/env python3
"""check-archer.py EXPECT PROGRAM ARCHER [PRELOAD]: run a program built with
-fsanitize=thread under LLVM's Archer (OMP_TOOL_LIBRARIES=ARCHER, 2
threads, TSAN_OPTIONS=ignore_noninstrumented_modules=1 as Archer asks) and
check what ThreadSanitizer reported.

EXPECT is `clean` (a race-free program: no report, and it exits 0, its
results right) or `race` (a racy one: at least one data race reported).
ThreadSanitizer misses a race now and then (a race between two tasks that
run at once went unreported in 4 of 80 runs on libomp, and about as often
on buddypool): a racy program gets up to RACE_TRIES runs to show it.
Either way Archer must say that it started (ARCHER_OPTIONS=verbose=1):
without it every OpenMP synchronization is invisible to TSan, and a clean
run would prove nothing. PRELOAD (libbuddypool.so over a program linked
with libgomp) is preloaded into the program alone. A program that cannot
run here (BP_SKIP) is skipped with exit 77.
"""
import os
import subprocess
import sys

RACE_TRIES = 5


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ("clean", "race"):
        sys.exit(__doc__)
    if os.environ.get("BP_SKIP"):
        print("check-archer: skipped: %s" % os.environ["BP_SKIP"])
        sys.exit(77)
    expect, prog, archer = sys.argv[1:4]
    env = dict(os.environ)
    if len(sys.argv) == 5:  # the program's alone, not this script's
        env["LD_PRELOAD"] = sys.argv[4]
    env.update(OMP_NUM_THREADS="2", OMP_TOOL_LIBRARIES=archer, ARCHER_OPTIONS="verbose=1",
               TSAN_OPTIONS="ignore_noninstrumented_modules=1 exitcode=66")
    for tries in range(1, RACE_TRIES + 1):
        p = subprocess.run([prog], env=env, capture_output=True, text=True, timeout=300)
        out = p.stdout + p.stderr
        races = out.count("WARNING: ThreadSanitizer: data race")
        others = out.count("WARNING: ThreadSanitizer:") - races
        if "Archer detected OpenMP application with TSan" not in out:
            sys.exit("check-archer: Archer did not start (no 'Archer detected' line):\n" + out)
        if expect == "clean" or races > 0 or p.returncode not in (0, 66):
            break
    if expect == "clean":
        if races or others or p.returncode != 0:
            sys.exit("check-archer: %d data races and %d other reports (exit %d) in a "
                     "race-free program:\n%s" % (races, others, p.returncode, out))
    else:
        if races < 1:
            sys.exit("check-archer: the race was not reported in %d runs (exit %d):\n%s"
                     % (tries, p.returncode, out))
        if p.returncode not in (0, 66):
            sys.exit("check-archer: exit %d:\n%s" % (p.returncode, out))
    print("check-archer %s: %d data races reported, as expected (run %d)" % (expect, races,
                                                                              tries))


if __name__ == "__main__":
    main()
