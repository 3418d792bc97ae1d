#!/usr/bin/env python3
"""teams.py: several application threads decoding at once, each with teams
of its own, on every runtime side by side.

  teams.py BUILD_DIR [--base BUILD_DIR] [--shapes AxK,...] [--rounds N]
           [--config SHAPE] [--tokens N] [--out FILE]

Runs bench/graph (llama.cpp's shape: one region per token, a barrier after
every node) with --app-threads A --team K for each shape AxK (default
1x2,2x1,2x2,4x1,4x2): A application threads, each decoding its own tokens
with num_threads(K), as a server decodes A requests at once. The runtimes
(buddypool, libgomp and libomp at their defaults, and with --base another
build's buddypool, such as one whose regions ran one at a time) alternate
round by round. Prints a markdown table of total tokens/s (median and best
over the rounds) and each runtime's ratio to the best peer for the shape;
every run's logits checksum must be the same.
"""
import argparse
import os
import statistics
import sys

from contention import bench_prog, emit, run

RUNTIMES = [("buddypool", "buddypool"), ("libgomp", "libgomp"), ("libomp", "libomp")]


def parse_shapes(text):
    shapes = []
    for part in text.split(","):
        a, sep, k = part.partition("x")
        if not sep or not a.isdigit() or not k.isdigit() or int(a) < 1 or int(k) < 1:
            sys.exit("teams.py: --shapes %s: each shape is AxK, application threads x team "
                     "size, both at least 1" % text)
        shapes.append((int(a), int(k)))
    return shapes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--base", default=None,
                    help="another build whose buddypool runs beside this one's")
    ap.add_argument("--shapes", default="1x2,2x1,2x2,4x1,4x2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--config", default="small", choices=["small", "medium", "large"])
    ap.add_argument("--tokens", type=int, default=64, help="tokens per application thread")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.rounds < 1 or args.tokens < 1:
        sys.exit("teams.py: --rounds and --tokens need at least 1")
    shapes = parse_shapes(args.shapes)
    settings = [(label, args.build, suffix) for label, suffix in RUNTIMES]
    if args.base:
        if not os.path.exists(bench_prog(args.base, "graph", "buddypool")):
            sys.exit("teams.py: --base %s: no %s there" %
                     (args.base, bench_prog(args.base, "graph", "buddypool")))
        settings.insert(1, ("base buddypool", args.base, "buddypool"))
    data, sums = {}, set()
    for apps, team in shapes:
        for r in range(args.rounds):
            k = r % len(settings)
            for label, build, suffix in settings[k:] + settings[:k]:
                prog = bench_prog(build, "graph", suffix)
                if not os.path.exists(prog):
                    continue
                res = run(prog, {}, team, args.config, args.tokens,
                          ["--app-threads", str(apps), "--team", str(team)])
                data.setdefault((apps, team, label), []).append(float(res["tok_s"]))
                sums.add(res["checksum"])
        print("%dx%d done" % (apps, team), file=sys.stderr)
    lines = ["graph benchmark, shape %s, %d tokens per application thread, %d rounds, runtimes "
             "alternating; `bench/teams.py %s --shapes %s --rounds %d --config %s --tokens %d%s`"
             % (args.config, args.tokens, args.rounds, args.build, args.shapes, args.rounds,
                args.config, args.tokens, " --base %s" % args.base if args.base else ""), "",
             "| application threads x team | runtime | tok/s median | best | "
             "ratio to best peer (medians) |",
             "| --- | --- | --- | --- | --- |"]
    for apps, team in shapes:
        rows = [(label, data.get((apps, team, label))) for label, _, _ in settings]
        rows = [(l, v) for l, v in rows if v]
        peers = [statistics.median(v) for l, v in rows if l in ("libgomp", "libomp")]
        best = max(peers) if peers else None
        for label, v in rows:
            med = statistics.median(v)
            lines.append("| %dx%d | %s | %.1f | %.1f | %s |" % (
                apps, team, label, med, max(v), "%.2fx" % (med / best) if best else "-"))
    lines.append("")
    lines.append("Logits checksum identical across runs: %s" %
                 ("yes" if len(sums) == 1 else "NO: %s" % sorted(sums)))
    emit(lines, args.out)
    if len(sums) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()
