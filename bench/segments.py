#!/usr/bin/env python3
"""segments.py: where a region's time goes, for builds of buddypool side by
side: the fork's hand-off, the worker's part, the join's hand-off and
thread 0's part, each measured apart (x86 only).

Why. A region of 2 threads costs two cache-line hand-offs between the CPUs
(thread 0's go to the worker, the worker's arrival back) plus the code each
thread runs in between. On a shared guest the time of a hand-off depends
on the line: on the 2-CPU AMD EPYC guest a line's round trip took 650 to
930 TSC ticks by its address alone (bit 9 of it, in one run), and 100 or
450 ns by where the host put the two CPUs, so which lines a build's layout
and heap give its go and arrival words decides its PARALLEL median across
processes as much as its code does. Measured apart, the two code parts
compare builds; the hand-offs say which lines they drew.

How. For each commit, a worktree of it (under --workdir) gets time stamps
inserted into its sources (bench/segments/stamps.h: thread 0 publishing
the worker's go, the worker seeing it, the worker about to store its
arrival, thread 0 starting to wait for it, thread 0 having seen it), and its overhead benchmark is built
with them. Each round runs every build's PARALLEL once (2 threads,
OMP_PROC_BIND=close OMP_PLACES=cores), in a rotating order; each run
prints each segment's median over its regions, in TSC ticks:
  go_seen        thread 0's go store to the worker seeing it (hand-off)
  seen_arrive    the worker's part: its start, its share (the benchmark's
                 delay, the same in every build), its arrival
  arrive_joined  the arrival to thread 0 seeing it (hand-off)
  joined_go      thread 0's part: the end of the join, the return, the
                 next fork up to the next go
  go_wait        thread 0's own share: from its go store to the start of
                 its wait for the arrival (its start, the benchmark's delay,
                 its end); when it is longer than go_seen + seen_arrive,
                 thread 0, not the hand-off, makes arrive_joined
  wait_joined    the start of thread 0's wait to its end
  region         go to next go
The table gives, per build and segment, the median and the least over the
rounds. The stamps cost a few ticks each, alike in every build.

  segments.py COMMIT [COMMIT...] [--rounds N] [--workdir DIR] [--labels A,B,...]

Prints a markdown table and one line per build and segment:
  RESULT segments build=LABEL segment=NAME median=T least=T
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SEGMENTS = ["go_seen", "seen_arrive", "arrive_joined", "joined_go", "go_wait", "wait_joined",
            "region"]
# Where each stamp goes: the statements it is put before (-1) or after (1),
# as they read in the sources since the pool's first release; the first
# statement found is used, once.
STAMPS = [
    ("SEG_GO();", -1, ["bp_flag_publish(&go->flag, ++slot->go_count);"]),
    ("SEG_SEEN();", 1, ["bp_flag_wait(&go->flag, seen + 1);"]),
    ("SEG_ARRIVE();", -1, ["bp_flag_set(&me->arrive, end);"]),
    ("SEG_WAIT();", -1, ["used |= bp_join_children(team, 0, team_size, end, bp_tasks_poll, t);",
                         "used |= bp_join_children(t, team, 0, team_size, end);",
                         "bp_flag_wait(&team->members[i].arrive, end);"]),
    ("SEG_JOINED();", 1, ["used |= bp_join_children(team, 0, team_size, end, bp_tasks_poll, t);",
                          "used |= bp_join_children(t, team, 0, team_size, end);",
                          "bp_flag_wait(&team->members[i].arrive, end);"]),
]


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("segments.py: %s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode,
                                                          p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def insert_stamps(tree):
    """Put the four stamps into the worktree's sources, and the storage into
    the file that holds the first."""
    sources = []
    for d, _, files in os.walk(os.path.join(tree, "src")):
        sources += [os.path.join(d, f) for f in sorted(files) if f.endswith(".c")]
    texts = {f: open(f).read() for f in sources}
    patched = set()
    first = None
    for stamp, where, statements in STAMPS:
        for st in statements:
            hit = next((f for f in sources if st in texts[f]), None)
            if hit is not None:
                new = stamp + " " + st if where < 0 else st + " " + stamp
                texts[hit] = texts[hit].replace(st, new, 1)
                patched.add(hit)
                first = first or hit
                break
        else:
            sys.exit("segments.py: %s: no place for %s (the sources moved on: add the "
                     "statement to STAMPS)" % (tree, stamp))
    for f in patched:
        text = '#include "%s"\n' % os.path.join(HERE, "segments", "stamps.h") + texts[f]
        if f == first:
            text += '\n#include "%s"\n' % os.path.join(HERE, "segments", "stamps.c")
        with open(f, "w") as out:
            out.write(text)


def build(commit, workdir):
    tree = os.path.join(workdir, "seg-" + commit)
    if not os.path.isdir(tree):
        sh(["git", "-C", REPO, "worktree", "add", "--detach", tree, commit])
    else:  # the worktree of an earlier run: clean, at the commit asked for
        sh(["git", "-C", tree, "checkout", "-q", "--", "src"])
        sh(["git", "-C", tree, "checkout", "-q", "--detach", commit])
    insert_stamps(tree)
    bdir = os.path.join(tree, "build-seg")
    sh(["cmake", "-S", tree, "-B", bdir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
        "-DBUDDYPOOL_TESTS=ON"])
    sh(["cmake", "--build", bdir, "-j2", "--target", "overhead-buddypool"])
    prog = os.path.join(bdir, "bench", "overhead", "overhead-buddypool")
    sh(["git", "-C", tree, "checkout", "-q", "--", "src"])  # the worktree clean again
    return prog


def run(prog):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "KMP_",
                                                                      "BUDDY_THREAD_POOL"))}
    env.update(OMP_NUM_THREADS="2", OMP_PROC_BIND="close", OMP_PLACES="cores")
    p = subprocess.run([prog, "--only", "PARALLEL"], env=env, capture_output=True, text=True,
                       timeout=600)
    m = re.search(r"^SEGMENTS regions=\d+ (.*)$", p.stderr, re.M)
    if p.returncode != 0 or m is None:
        sys.exit("segments.py: %s gave no SEGMENTS line (%d):\n%s" % (prog, p.returncode,
                                                                       p.stderr[-2000:]))
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(1))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("commits", nargs="+")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--workdir", default="/tmp/bp-segments")
    ap.add_argument("--labels", default=None)
    args = ap.parse_args()
    if platform_machine() not in ("x86_64", "i686", "i386"):
        sys.exit("segments.py: the stamps read the x86 time stamp counter; this is %s"
                 % platform_machine())
    if args.rounds < 1:
        sys.exit("segments.py: --rounds must be at least 1")
    labels = args.labels.split(",") if args.labels else args.commits
    if len(labels) != len(args.commits):
        sys.exit("segments.py: --labels names %d builds, %d are given" % (len(labels),
                                                                           len(args.commits)))
    os.makedirs(args.workdir, exist_ok=True)
    progs = [build(c, args.workdir) for c in args.commits]
    runs = [[] for _ in progs]
    n = len(progs)
    for r in range(args.rounds):
        for k in range(n):
            which = (r + k) % n
            runs[which].append(run(progs[which]))
        print("round %d of %d" % (r + 1, args.rounds), file=sys.stderr)
    print("%d rounds, PARALLEL at 2 threads bound (OMP_PROC_BIND=close OMP_PLACES=cores), "
          "TSC ticks: median over the rounds (least)\n" % args.rounds)
    print("| build | " + " | ".join(SEGMENTS) + " |")
    print("| --- |" + " --- |" * len(SEGMENTS))
    results = []
    for label, rs in zip(labels, runs):
        cells = []
        for s in SEGMENTS:
            v = [x[s] for x in rs]
            med, least = statistics.median(v), min(v)
            cells.append("%d (%d)" % (med, least))
            results.append("RESULT segments build=%s segment=%s median=%g least=%d" % (
                label, s, med, least))
        print("| %s | %s |" % (label, " | ".join(cells)))
    print()
    print("\n".join(results))


def platform_machine():
    return os.uname().machine


if __name__ == "__main__":
    main()
