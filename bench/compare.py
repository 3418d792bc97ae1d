#!/usr/bin/env python3
"""compare.py: buddypool side by side with libomp and libgomp (`make bench`).

Runs the overhead benchmark (bench/overhead), the decode benchmark
(bench/decode), the ggml-shaped graph benchmark (bench/graph: one region
per token, a barrier after every node; --only graph, not run by default)
and the idle benchmark (bench/idle: CPU used by idle pool
threads, wake latency after a 1 s pause; at most IDLE_ROUNDS rounds, each
takes seconds) for every runtime build, alternating the runtimes round by
round, and prints one markdown table per benchmark: a row per runtime and
setting with the median and best over the rounds and the ratio to the best
peer. Peers run at their best settings, pinned like the pool:
libomp default and KMP_BLOCKTIME=infinite, libgomp default and
OMP_WAIT_POLICY=active, all with OMP_PROC_BIND=close OMP_PLACES=cores and the
same OMP_NUM_THREADS as the pool. Writes the tables (results.md), the raw
runs (results.json) and a plot (results.svg) to --out.

  compare.py BUILD_DIR [--quick] [--rounds N] [--threads 1,2] [--out DIR]
             [--only overhead,decode,idle,graph] [--decode-config NAME]
             [--decode-tokens N] [--graph-configs small,medium,large]

--decode-config and --decode-tokens choose the decode benchmark's model
(tiny, small, default) and the tokens it generates (default: the default
model, 32 tokens; with --quick the small one, 16). --graph-configs the
graph benchmark's shapes (default all three; 64 tokens each, 16 with
--quick).
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

PEER_ENV = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
# (label, build suffix, runtime-specific environment)
SETTINGS = [
    ("buddypool", "buddypool", {}),
    ("buddypool, gcc objects", "gcc-buddypool", {}),
    ("libomp", "libomp", dict(PEER_ENV)),
    ("libomp KMP_BLOCKTIME=infinite", "libomp", dict(PEER_ENV, KMP_BLOCKTIME="infinite")),
    ("libgomp", "libgomp", dict(PEER_ENV)),
    ("libgomp OMP_WAIT_POLICY=active", "libgomp", dict(PEER_ENV, OMP_WAIT_POLICY="active")),
]
IDLE_ROUNDS = 3
CONSTRUCTS = ["PARALLEL", "FOR", "PARALLEL_FOR", "BARRIER", "SINGLE", "CRITICAL", "REDUCTION",
              "LOCK", "ORDERED", "FOR_DYNAMIC", "FOR_GUIDED"]
# Variables a setting must not inherit from the caller's environment.
SCRUB = ["OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "KMP_BLOCKTIME",
         "GOMP_SPINCOUNT", "BUDDY_THREAD_POOL_PROFILE", "BUDDY_THREAD_POOL_SPIN_US", "BUDDY_THREAD_POOL_THREADS",
         "BUDDY_THREAD_POOL_OVERSUBSCRIBE"]


# The overhead benchmark's cache-line round trip between threads 0 and 1: the
# floor of any hand-off, which moves with where the host runs the two CPUs.
ROUND_TRIP = re.compile(r"^cache line round trip, threads 0 and 1: ([0-9.]+) ns", re.M)


def round_trip_line(data, threads_list):
    parts = []
    for threads in threads_list:
        v = data.get(("round_trip", "all", threads, "ns"))
        if v:
            parts.append("%d threads: median %.0f ns, from %.0f to %.0f over %d runs" %
                         (threads, statistics.median(v), min(v), max(v), len(v)))
    return ("Cache-line round trip between threads 0 and 1, measured by each overhead run "
            "(the floor of a hand-off; ratios are comparable within one run): " +
            "; ".join(parts) + ".") if parts else None


def parse_results(text, kind):
    """The key=value pairs of each `RESULT <kind> ...` line."""
    out = []
    for line in text.splitlines():
        m = re.match(r"RESULT %s (.*)$" % kind, line.strip())
        if m:
            out.append(dict(kv.split("=", 1) for kv in m.group(1).split()))
    return out


def run(cmd, env_extra, threads):
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    env.update(env_extra)
    env["OMP_NUM_THREADS"] = str(threads)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        sys.exit("compare.py: %s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode,
                                                          p.stderr[-3000:]))
    return p.stdout


SETTLE_S = 3.0


def settle(build, threads):
    """Run parallel regions at `threads` for SETTLE_S seconds, results discarded."""
    prog = os.path.join(build, "bench", "overhead", "overhead-buddypool")
    if not os.path.exists(prog):
        return
    t0 = time.time()
    while time.time() - t0 < SETTLE_S:
        run([prog, "--quick", "--only", "PARALLEL_FOR,BARRIER"], {}, threads)


def measure(build, args):
    """{(bench, label, threads, item): [values per round]} and the settings run."""
    data = {}
    quick = args.quick
    over_args = ["--quick"] if quick else ["--trials", "20"]
    dec_args = (["--config", "small", "--prompt", "4", "--tokens", "16"] if quick
                else ["--config", "default", "--prompt", "8", "--tokens", "32"])
    if args.decode_config:
        dec_args[1] = args.decode_config
    if args.decode_tokens:
        dec_args[5] = str(args.decode_tokens)
    idle_args = (["--idle-ms", "1000", "--measure-ms", "300", "--trials", "1"] if quick
                 else ["--idle-ms", "1000", "--measure-ms", "500", "--trials", "3"])
    # plan[threads]: each setting's runs at that thread count
    plan = {}
    for threads in args.threads:
        for label, suffix, env in SETTINGS:
            over = os.path.join(build, "bench", "overhead", "overhead-" + suffix)
            dec = os.path.join(build, "bench", "decode", "decode-" + suffix)
            idle = os.path.join(build, "bench", "idle", "idle-" + suffix)
            graph = os.path.join(build, "bench", "graph", "graph-" + suffix)
            runs = []
            if os.path.exists(graph) and "graph" in args.only:
                for shape in args.graph_configs:
                    runs.append(("graph", label, threads, [graph, "--config", shape, "--tokens",
                                                           "16" if quick else "64"], env))
            if os.path.exists(over) and "overhead" in args.only:
                runs.append(("overhead", label, threads, [over] + over_args, env))
            if os.path.exists(dec) and "decode" in args.only:
                runs.append(("decode", label, threads, [dec] + dec_args, env))
            if os.path.exists(idle) and "idle" in args.only:
                runs.append(("idle", label, threads, [idle] + idle_args, env))
            if runs:
                plan.setdefault(threads, []).append(runs)
    if not plan:
        sys.exit("compare.py: no benchmark builds under %s/bench" % build)
    tokens, sums = {}, {}
    for r in range(args.rounds):
        order = []
        for threads in args.threads:
            groups = plan.get(threads, [])
            # rotate the settings each round so that no setting always runs
            # first after the thread count changes
            k = r % len(groups) if groups else 0
            for runs in groups[k:] + groups[:k]:
                order.extend(runs)
        last_threads = None
        for bench, label, threads, cmd, env in order:
            if bench == "idle" and r >= IDLE_ROUNDS:
                continue
            if threads != last_threads and len(plan) > 1:
                # Settle: on the development VM the first runs after the
                # thread count grew often found a cache-line transfer several
                # times dearer (the host had the CPUs apart while one idled),
                # and whichever setting ran first paid for it. Discarded runs
                # at the new count go first.
                settle(build, threads)
            last_threads = threads
            out = run(cmd, env, threads)
            if bench == "idle":
                for res in parse_results(out, "idle"):
                    for item in ("idle_cpu_pct", "wake_us", "all_started_us"):
                        data.setdefault((bench, label, threads, item), []).append(float(res[item]))
            elif bench == "graph":
                for res in parse_results(out, "graph"):
                    key = (bench, label, threads, res["config"])
                    data.setdefault(key, []).append(float(res["tok_s"]))
                    sums.setdefault((threads, res["config"]), {})[label] = res["checksum"]
            elif bench == "overhead":
                for res in parse_results(out, "overhead"):
                    key = (bench, label, threads, res["construct"])
                    data.setdefault(key, []).append(float(res["median_us"]))
                m = ROUND_TRIP.search(out)
                if m:
                    data.setdefault(("round_trip", "all", threads, "ns"), []).append(float(m.group(1)))
            else:
                for res in parse_results(out, "decode"):
                    data.setdefault((bench, label, threads, "decode_tok_s"), []).append(
                        float(res["decode_tok_s"]))
                    data.setdefault((bench, label, threads, "prefill_tok_s"), []).append(
                        float(res["prefill_tok_s"]))
                    data.setdefault((bench, label, threads, "regions_per_token"), []).append(
                        float(res["regions_per_token"]))
                    tokens.setdefault(threads, {})[label] = res["tokens"]
        print("round %d of %d done" % (r + 1, args.rounds), file=sys.stderr)
    return data, tokens, sums


def ranked(data, bench, threads, item, best):
    """The settings measured for one table row group: [(label, values)], and
    the best peer's median (best: max for rates, min for times; None
    without peers) and the best of the peers' bests."""
    rows = [(label, data.get((bench, label, threads, item))) for label, _, _ in SETTINGS]
    rows = [(l, v) for l, v in rows if v]
    peers = [v for l, v in rows if not l.startswith("buddypool")]
    if not peers:
        return rows, None, None
    return rows, best(statistics.median(v) for v in peers), best(best(v) for v in peers)


def ratio_text(value, peer):
    return "%.2fx" % (value / peer) if peer else "-"


def graph_table(data, threads_list, shapes):
    lines = ["| threads | shape | runtime | tok/s median | best | ratio to best peer (medians) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for threads in threads_list:
        for shape in shapes:
            rows, best_peer, _ = ranked(data, "graph", threads, shape, max)
            for label, v in rows:
                med = statistics.median(v)
                lines.append("| %d | %s | %s | %.1f | %.1f | %s |" %
                             (threads, shape, label, med, max(v), ratio_text(med, best_peer)))
    return "\n".join(lines)


def overhead_table(data, threads_list):
    lines = ["| threads | construct | runtime | median us | best us | ratio to best peer (medians) | ratio (bests) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for threads in threads_list:
        for c in CONSTRUCTS:
            rows, best_peer, best_peer_best = ranked(data, "overhead", threads, c, min)
            for label, v in rows:
                med = statistics.median(v)
                lines.append("| %d | %s | %s | %.3f | %.3f | %s | %s |" %
                             (threads, c, label, med, min(v), ratio_text(med, best_peer),
                              ratio_text(min(v), best_peer_best)))
    return "\n".join(lines)


def decode_table(data, threads_list):
    lines = ["| threads | runtime | decode tok/s median | best | prefill tok/s median | regions/token | ratio to best peer |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for threads in threads_list:
        rows, best_peer, _ = ranked(data, "decode", threads, "decode_tok_s", max)
        for label, v in rows:
            med = statistics.median(v)
            pre = statistics.median(data[("decode", label, threads, "prefill_tok_s")])
            reg = statistics.median(data[("decode", label, threads, "regions_per_token")])
            lines.append("| %d | %s | %.2f | %.2f | %.2f | %.0f | %s |" %
                         (threads, label, med, max(v), pre, reg, ratio_text(med, best_peer)))
    return "\n".join(lines)


def idle_table(data, threads_list):
    lines = ["| threads | runtime | idle CPU per pool thread, % of a CPU (worst) | wake after 1 s idle, us (median) | last thread started, us (median) |",
             "| --- | --- | --- | --- | --- |"]
    for threads in threads_list:
        for label, _, _ in SETTINGS:
            cpu = data.get(("idle", label, threads, "idle_cpu_pct"))
            if not cpu:
                continue
            wake = data[("idle", label, threads, "wake_us")]
            started = data[("idle", label, threads, "all_started_us")]
            lines.append("| %d | %s | %.3f | %.1f | %.1f |" % (
                threads, label, max(cpu), statistics.median(wake), statistics.median(started)))
    return "\n".join(lines)


COLORS = ["#1b9e77", "#66a61e", "#d95f02", "#e6ab02", "#7570b3", "#e7298a"]


def svg_bars(title, groups, series, values, unit, x0, y0, w, h):
    """A grouped bar chart as SVG elements: groups along x, one bar per series."""
    out = []
    vmax = max([v for v in values.values() if v is not None] + [1e-9])
    out.append('<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>' % (x0, y0 - 8, title))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (x0, y0 + h, x0 + w, y0 + h))
    gw = w / max(len(groups), 1)
    bw = gw * 0.8 / max(len(series), 1)
    for gi, g in enumerate(groups):
        for si, s in enumerate(series):
            v = values.get((g, s))
            if v is None:
                continue
            bh = h * v / vmax
            x = x0 + gi * gw + gw * 0.1 + si * bw
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %.3g %s</title></rect>'
                       % (x, y0 + h - bh, bw * 0.95, bh, COLORS[si % len(COLORS)], g, s, v, unit))
            out.append('<text x="%.1f" y="%.1f" font-size="8" text-anchor="middle">%.3g</text>'
                       % (x + bw / 2, y0 + h - bh - 2, v))
        out.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle">%s</text>'
                   % (x0 + gi * gw + gw / 2, y0 + h + 14, g))
    out.append('<text x="%d" y="%d" font-size="10" transform="rotate(-90 %d %d)">%s</text>'
               % (x0 - 8, y0 + h // 2, x0 - 8, y0 + h // 2, unit))
    return out


def write_svg(path, data, threads, machine):
    labels = [l for l, _, _ in SETTINGS]
    over = {(c, l): statistics.median(data[("overhead", l, threads, c)])
            for c in CONSTRUCTS for l in labels if ("overhead", l, threads, c) in data}
    dec = {("decode", l): statistics.median(data[("decode", l, threads, "decode_tok_s")])
           for l in labels if ("decode", l, threads, "decode_tok_s") in data}
    W, H = 900, 640
    el = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (W, H),
          '<rect width="100%" height="100%" fill="white"/>',
          '<text x="20" y="22" font-size="13">%s, %d threads</text>' % (machine, threads)]
    el += svg_bars("Overhead per construct (us, lower is better)", CONSTRUCTS, labels, over, "us",
                   60, 60, 800, 250)
    el += svg_bars("Decode (tok/s, higher is better)", ["decode"], labels, dec, "tok/s", 60, 380, 300, 200)
    for i, l in enumerate(labels):
        el.append('<rect x="420" y="%d" width="12" height="12" fill="%s"/>' % (400 + 20 * i, COLORS[i]))
        el.append('<text x="438" y="%d" font-size="12">%s</text>' % (410 + 20 * i, l))
    el.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(el) + "\n")


def machine_line():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d CPUs, %s" % (model or platform.machine(), os.cpu_count() or 0,
                                time.strftime("%Y-%m-%d"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--quick", action="store_true", help="a look in under a minute")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--threads", default=None, help="comma-separated thread counts")
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", default="overhead,decode,idle",
                    help="comma-separated benchmarks: overhead, decode, idle, graph")
    ap.add_argument("--graph-configs", default="small,medium,large",
                    help="the graph benchmark's shapes")
    ap.add_argument("--decode-config", choices=["tiny", "small", "default"], default=None,
                    help="the decode benchmark's model")
    ap.add_argument("--decode-tokens", type=int, default=None,
                    help="tokens the decode benchmark generates")
    args = ap.parse_args()
    if args.decode_tokens is not None and args.decode_tokens < 1:
        sys.exit("compare.py: --decode-tokens %d: need at least 1" % args.decode_tokens)
    if args.rounds is None:
        args.rounds = 2 if args.quick else 7
    args.only = args.only.split(",")
    unknown = [b for b in args.only if b not in ("overhead", "decode", "idle", "graph")]
    if unknown:
        sys.exit("compare.py: --only %s: unknown benchmark(s) %s (overhead, decode, idle, graph)" %
                 (",".join(args.only), ",".join(unknown)))
    args.graph_configs = args.graph_configs.split(",")
    bad = [c for c in args.graph_configs if c not in ("small", "medium", "large")]
    if bad:
        sys.exit("compare.py: --graph-configs %s: unknown shape(s) %s (small, medium, large)" %
                 (",".join(args.graph_configs), ",".join(bad)))
    if args.rounds < 1:
        sys.exit("compare.py: --rounds %d: need at least 1" % args.rounds)
    try:
        args.threads = ([int(t) for t in args.threads.split(",")] if args.threads
                        else [os.cpu_count() or 1])
        args.threads = list(dict.fromkeys(args.threads))  # each count once, in order
    except ValueError:
        sys.exit("compare.py: --threads %r is not a list of integers" % args.threads)
    if any(t < 1 for t in args.threads):
        sys.exit("compare.py: --threads %r: counts must be positive" % args.threads)
    out_dir = args.out or os.path.join(args.build, "bench-results")
    os.makedirs(out_dir, exist_ok=True)

    machine = machine_line()
    data, tokens, sums = measure(args.build, args)
    cmd = "bench/compare.py %s%s --rounds %d --threads %s --only %s" % (
        args.build, " --quick" if args.quick else "", args.rounds, ",".join(map(str, args.threads)),
        ",".join(args.only))
    if args.decode_config:
        cmd += " --decode-config " + args.decode_config
    if args.decode_tokens:
        cmd += " --decode-tokens %d" % args.decode_tokens
    if "graph" in args.only:
        cmd += " --graph-configs " + ",".join(args.graph_configs)
    md = ["# buddypool against libomp and libgomp", "",
          "%s; `%s`; medians over %d rounds, runtimes alternating." % (machine, cmd, args.rounds), ""]
    if any(k[0] == "overhead" for k in data):
        md += ["## Overhead per construct (EPCC-style, us)", ""]
        rt = round_trip_line(data, args.threads)
        if rt:
            md += [rt, ""]
        md += [overhead_table(data, args.threads), ""]
    if any(k[0] == "decode" for k in data):
        md += ["## Decode", "", decode_table(data, args.threads), ""]
        for threads, by_label in sorted(tokens.items()):
            same = len(set(by_label.values())) == 1
            md.append("Generated tokens at %d threads identical across runtimes: %s" %
                      (threads, "yes" if same else "NO: " + json.dumps(by_label)))
        md.append("")
    if any(k[0] == "graph" for k in data):
        md += ["## Graph decode (one region per token, a barrier after every node)", "",
               graph_table(data, args.threads, args.graph_configs), ""]
        for (threads, shape), by_label in sorted(sums.items()):
            same = len(set(by_label.values())) == 1
            md.append("Logits checksum at %d threads, %s, identical across runtimes: %s" %
                      (threads, shape, "yes" if same else "NO: " + json.dumps(by_label)))
        md.append("")
    if any(k[0] == "idle" for k in data):
        md += ["## Idle", "",
               "After 1 s without regions, the CPU used by each pool thread over the next "
               "%s ms, then the time of one empty region (fork to join) and until its last "
               "thread started; %d rounds." % ("300" if args.quick else "500",
                                                min(args.rounds, IDLE_ROUNDS)), "",
               idle_table(data, args.threads), ""]
    text = "\n".join(md)
    print(text)
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"machine": machine, "command": cmd,
                   "runs": [{"bench": k[0], "runtime": k[1], "threads": k[2], "item": k[3], "values": v}
                            for k, v in sorted(data.items())]}, f, indent=1)
    svg = os.path.join(out_dir, "results.svg")
    write_svg(svg, data, max(args.threads), machine)
    print("wrote %s, results.json and results.svg in %s" % ("results.md", out_dir), file=sys.stderr)


main()
