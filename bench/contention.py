#!/usr/bin/env python3
"""contention.py: the decode-shaped benchmarks on a machine that is not idle,
for every runtime setting, side by side.

  contention.py BUILD_DIR [--bench graph|decode] [--rounds N] [--threads N]
                [--config SHAPE] [--tokens N] [--base BUILD_DIR] [--out FILE]

--bench graph (the default) runs bench/graph (llama.cpp's shape: one region
per token, a barrier after every node) at --config small, medium or large;
--bench decode runs bench/decode (a Qwen3-shaped decoder, one region per
operation) at --config tiny, small or default.

Three loads: none, one CPU-bound process of another program pinned to the
last allowed CPU, and one such process on every allowed CPU. Under each
load the settings alternate round by round: buddypool as it places its
threads by default, buddypool with OMP_PROC_BIND=true (the application
thread bound too), libgomp and libomp at their defaults and at their
active-wait settings, and libgomp with OMP_PROC_BIND=true. Prints a
markdown table of tokens/s (median and best over the rounds) and each
setting's ratio to the best peer under the same load; the graph's logits
checksum, or the decoder's generated tokens, must agree across settings.

--base BUILD_DIR adds that build's buddypool (another commit's, say) at both
of buddypool's settings, alternating with the rest, to measure a change.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

RESULT = re.compile(r"^RESULT (graph|decode) (.*)$", re.M)
# per benchmark: the shapes, the default shape and tokens, the figure read
# (tokens/s) and the output that must agree across runtimes
BENCHES = {
    "graph": (["small", "medium", "large"], "small", 64, "tok_s", "checksum"),
    "decode": (["tiny", "small", "default"], "tiny", 1000, "decode_tok_s", "tokens"),
}
SETTINGS = [
    ("buddypool", "buddypool", {}),
    ("buddypool OMP_PROC_BIND=true", "buddypool", {"OMP_PROC_BIND": "true"}),
    ("libgomp", "libgomp", {}),
    ("libgomp OMP_WAIT_POLICY=active", "libgomp", {"OMP_WAIT_POLICY": "active"}),
    ("libgomp OMP_PROC_BIND=true", "libgomp", {"OMP_PROC_BIND": "true"}),
    ("libomp", "libomp", {}),
    ("libomp KMP_BLOCKTIME=infinite", "libomp", {"KMP_BLOCKTIME": "infinite"}),
]
SCRUB = ["OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "KMP_BLOCKTIME",
         "GOMP_SPINCOUNT", "BUDDY_THREAD_POOL_PROFILE", "BUDDY_THREAD_POOL_SPIN_US",
         "BUDDY_THREAD_POOL_THREADS"]


def hogs(cpus):
    """CPU-bound processes, one pinned to each of cpus."""
    procs = []
    for cpu in cpus:
        p = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        os.sched_setaffinity(p.pid, {cpu})
        procs.append(p)
    time.sleep(0.3)  # running before the measurement starts
    return procs


def bench_prog(build, bench, suffix):
    """The program of bench for one runtime in a build directory."""
    return os.path.join(build, "bench", bench, bench + "-" + suffix)


def run(prog, env_extra, threads, shape, tokens, extra_args=(), preexec=None):
    """One run of prog (threads None: its default team; preexec: called in
    the child before it starts); its RESULT line's fields."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    env.update(env_extra)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    p = subprocess.run([prog, "--config", shape, "--tokens", str(tokens)] + list(extra_args),
                       env=env, capture_output=True, text=True, timeout=600,
                       preexec_fn=preexec)
    if p.returncode != 0:
        sys.exit("contention.py: %s failed (exit %d): %s" % (prog, p.returncode, p.stderr[-2000:]))
    m = RESULT.search(p.stdout)
    if m is None:
        sys.exit("contention.py: %s printed no RESULT line" % prog)
    return dict(kv.split("=", 1) for kv in m.group(2).split())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--bench", default="graph", choices=sorted(BENCHES))
    ap.add_argument("--config", default=None,
                    help="graph: small, medium, large; decode: tiny, small, default")
    ap.add_argument("--tokens", type=int, default=None,
                    help="tokens per run (graph: 64, decode: 1000)")
    ap.add_argument("--base", default=None,
                    help="another build whose buddypool runs beside this one's")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    shapes, shape0, tokens0, figure, agree = BENCHES[args.bench]
    args.config = args.config or shape0
    args.tokens = args.tokens or tokens0
    if args.config not in shapes:
        sys.exit("contention.py: --config %s: bench/%s has %s" % (args.config, args.bench,
                                                                 ", ".join(shapes)))
    if args.rounds < 1 or args.tokens < 1:
        sys.exit("contention.py: --rounds and --tokens need at least 1")
    allowed = sorted(os.sched_getaffinity(0))
    threads = args.threads or len(allowed)
    if threads < 1:
        sys.exit("contention.py: --threads %d: need at least 1" % threads)
    # (label, build directory, program suffix, environment)
    settings = [(label, args.build, suffix, env) for label, suffix, env in SETTINGS]
    if args.base:
        if not os.path.exists(bench_prog(args.base, args.bench, "buddypool")):
            sys.exit("contention.py: --base %s: no %s there" %
                     (args.base, bench_prog(args.base, args.bench, "buddypool")))
        settings[2:2] = [("base " + label, args.base, suffix, env)
                         for label, suffix, env in SETTINGS if suffix == "buddypool"]
    loads = [("idle", []), ("one CPU busy (CPU %d)" % allowed[-1], [allowed[-1]]),
             ("every CPU busy", allowed)]
    data, sums = {}, {}
    for load, cpus in loads:
        procs = hogs(cpus)
        try:
            for r in range(args.rounds):
                k = r % len(settings)
                for label, build, suffix, env in settings[k:] + settings[:k]:
                    prog = bench_prog(build, args.bench, suffix)
                    if not os.path.exists(prog):
                        continue
                    res = run(prog, env, threads, args.config, args.tokens)
                    data.setdefault((load, label), []).append(float(res[figure]))
                    sums.setdefault(load, set()).add(res[agree])
                print("%s: round %d of %d done" % (load, r + 1, args.rounds), file=sys.stderr)
        finally:
            for p in procs:
                p.kill()
                p.wait()
    lines = ["%s benchmark, shape %s, %d tokens, %d threads, %d rounds per load, settings "
             "alternating; `bench/contention.py %s --bench %s --rounds %d --config %s "
             "--tokens %d%s`" %
             (args.bench, args.config, args.tokens, threads, args.rounds, args.build, args.bench,
              args.rounds, args.config, args.tokens,
              " --base %s" % args.base if args.base else ""), "",
             "| load | runtime | tok/s median | best | ratio to best peer (medians) |",
             "| --- | --- | --- | --- | --- |"]
    for load, _ in loads:
        rows = [(label, data.get((load, label))) for label, _, _, _ in settings]
        rows = [(l, v) for l, v in rows if v]
        peers = [statistics.median(v) for l, v in rows if not l.startswith(("buddypool", "base"))]
        best = max(peers) if peers else None
        for label, v in rows:
            med = statistics.median(v)
            lines.append("| %s | %s | %.1f | %.1f | %s |" % (
                load, label, med, max(v), "%.2fx" % (med / best) if best else "-"))
    lines.append("")
    for load, _ in loads:
        what = "Logits checksum" if agree == "checksum" else "Generated tokens"
        lines.append("%s identical across settings (%s): %s" %
                     (what, load, "yes" if len(sums.get(load, ())) == 1 else
                      "NO: %s" % sorted(v[:60] for v in sums[load])))
    emit(lines, args.out)


def emit(lines, out):
    """Print a table's lines, and write them to the file out when given."""
    text = "\n".join(lines)
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
