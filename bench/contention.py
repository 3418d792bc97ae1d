#!/usr/bin/env python3
"""contention.py: the decode-shaped benchmarks on a machine that is not idle,
for every runtime setting, side by side.

  contention.py BUILD_DIR [--bench graph|decode] [--rounds N] [--threads N]
                [--config SHAPE] [--tokens N] [--loads L,L,...] [--base BUILD_DIR]
                [--out FILE]

--bench graph (the default) runs bench/graph (llama.cpp's shape: one region
per token, a barrier after every node) at --config small, medium or large;
--bench decode runs bench/decode (a Qwen3-shaped decoder, one region per
operation) at --config tiny, small or default.

The loads (--loads picks some, by name):
  idle    nothing else runs;
  first   a CPU-bound process of another program pinned to the first
          allowed CPU;
  last    the same on the last allowed CPU;
  every   one such process on every allowed CPU;
  quota   the benchmark in a cgroup whose CPU quota is the team size less
          half a CPU (needs root; skipped, saying why, where no cgroup can be
          made: bench/cgroup.py); the graph's runs there take QUOTA_TOKENS
          times the tokens, so that a run spans some twenty of the quota's
          100 ms periods (a run of 60 ms fits in one period's allowance and
          is never throttled; one of 0.25 s spans two or three periods and
          reads high by whatever part of a throttle it ends before); the
          decoder's cannot (its tokens' work grows with their number) and
          span five to nine;
  copy    two copies of the same setting at once (two inference processes
          sharing the machine); a round's figure is the mean of the two.
Under each load the settings alternate round by round, in a rotating order:
buddypool at its defaults, on clang objects and on gcc objects; libgomp at
its default, OMP_WAIT_POLICY=active and OMP_PROC_BIND=true; libomp at its
default and KMP_BLOCKTIME=infinite; and for the graph, llama.cpp's own pool
(graph-ggmlpool: its default, no polling, and the yielding barrier of older
ggml), built by gcc and by clang. Every run gets OMP_NUM_THREADS=--threads
(the allowed CPUs by default).

The compiler matters as much as the runtime: the same graph runs some 10%
faster compiled by clang 22 than by gcc 12 on the development guest, on
every runtime. So each setting is compared with the peers built by the
same compiler: libgomp (gcc objects) and the gcc-built pool with
buddypool on gcc objects, libomp (clang objects) and the clang-built pool
with buddypool on clang objects.

Prints a markdown table per load: tokens/s median, the spread (least and
most, and the quartiles), each setting's median over the best peer
setting built by the same compiler (the peers' best under the same load),
the medians of the first and second half of the rounds (how stable the
median is), and, where the idle load ran too, the median as a share of
the setting's fair-share rate (fair_share). The graph's logits checksum,
or the decoder's generated tokens, must agree across settings.

The fair-share rate is nearly a bound on any runtime under a load that
takes CPUs away: the setting's own idle median times the share of its
idle CPU time the load leaves each team thread when the kernel shares
the CPUs fairly. With a busy loop on every CPU each thread gets at most
half of a CPU; with a second copy, 2T threads share the CPUs; under a
quota of q CPUs the T threads share q. A token whose threads each run at
a fraction s of their idle speed takes at least 1/s of its idle compute,
so a runtime passes the rate only by the part of its idle time that is
not compute and does not stretch under the load (the barriers'
hand-offs: on the 2-CPU development guest two threads run the graph at
84% of twice one thread's rate, so at most some 16%); under a quota that
means waiting more cheaply than idle. The second copy's share assumes
the two copies run side by side throughout. A program with serial work
between its regions (the decoder) leaves CPUs unused idle, and a second
copy fills them: the rate is a bound only for one whose threads compute
nearly all the time (the graph). With one CPU busy it depends on where
the threads are placed, and idle is the rate itself: no share is given
there.

A setting whose run takes more than --slow seconds (20; under the quota,
whose graph runs are QUOTA_TOKENS times as long, that many times --slow)
under a load runs only once there, and a run is stopped after 3 times
that, its figure then the tokens over that time, more than it would have
reached (libomp's default with a CPU busy took minutes a run): its row
says so, and it is far from the best peer.

--base BUILD_DIR adds that build's buddypool (another commit's, say),
alternating with the rest, to measure a change; --no-peers leaves the
other runtimes out.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import cgroup

RESULT = re.compile(r"^RESULT (graph|decode) (.*)$", re.M)
QUOTA_TOKENS = 8  # the graph's runs under the quota are this many times as long
# per benchmark: the shapes, the default shape and tokens, the figure read
# (tokens/s), the output that must agree across runtimes, and how many times
# the tokens the quota load's runs take (QUOTA_TOKENS where a token's work
# does not depend on how many there are: the graph's context is fixed, the
# decoder's grows with every token, so its longer runs would be another
# workload, at 19-29% of the short one's fair-share rate under the quota). The
# tokens make a run last about 0.2 s idle, so that the two copies of the
# copy load run side by side for most of their time (with 32 graph tokens
# the second copy started when the first was half done).
BENCHES = {
    "graph": (["small", "medium", "large"], "small", 256, "tok_s", "checksum", QUOTA_TOKENS),
    "decode": (["tiny", "small", "default"], "tiny", 3000, "decode_tok_s", "tokens", 1),
}
# (label, program suffix, environment, benchmarks it runs (None: all), the
# compiler of its objects)
SETTINGS = [
    ("buddypool", "buddypool", {}, None, "clang"),
    ("buddypool, gcc objects", "gcc-buddypool", {}, None, "gcc"),
    ("libgomp", "libgomp", {}, None, "gcc"),
    ("libgomp OMP_WAIT_POLICY=active", "libgomp", {"OMP_WAIT_POLICY": "active"}, None, "gcc"),
    ("libgomp OMP_PROC_BIND=true", "libgomp", {"OMP_PROC_BIND": "true"}, None, "gcc"),
    ("libomp", "libomp", {}, None, "clang"),
    ("libomp KMP_BLOCKTIME=infinite", "libomp", {"KMP_BLOCKTIME": "infinite"}, None, "clang"),
    ("ggml pool (gcc)", "ggmlpool", {}, ("graph",), "gcc"),
    ("ggml pool (gcc) GRAPH_GGML_POLL=0", "ggmlpool", {"GRAPH_GGML_POLL": "0"}, ("graph",), "gcc"),
    ("ggml pool (gcc) GRAPH_GGML_YIELD=1000", "ggmlpool", {"GRAPH_GGML_YIELD": "1000"},
     ("graph",), "gcc"),
    ("ggml pool (clang)", "ggmlpool-clang", {}, ("graph",), "clang"),
    ("ggml pool (clang) GRAPH_GGML_POLL=0", "ggmlpool-clang", {"GRAPH_GGML_POLL": "0"},
     ("graph",), "clang"),
    ("ggml pool (clang) GRAPH_GGML_YIELD=1000", "ggmlpool-clang", {"GRAPH_GGML_YIELD": "1000"},
     ("graph",), "clang"),
]
OURS = ("buddypool", "gcc-buddypool")  # the program suffixes of buddypool's own settings
LOADS = ["idle", "first", "last", "every", "quota", "copy"]
SCRUB = ["OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "KMP_BLOCKTIME",
         "GOMP_SPINCOUNT", "BUDDY_THREAD_POOL_PROFILE", "BUDDY_THREAD_POOL_SPIN_US",
         "BUDDY_THREAD_POOL_THREADS", "GRAPH_GGML_POLL", "GRAPH_GGML_YIELD"]


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


def start(prog, env_extra, threads, shape, tokens, extra_args=(), preexec=None):
    """Start one run of prog (threads None: its default team; preexec: called
    in the child before it starts)."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    env.update(env_extra)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    return subprocess.Popen([prog, "--config", shape, "--tokens", str(tokens)] +
                            list(extra_args), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=preexec)


def finish(p, prog, limit=None):
    """A started run's RESULT line's fields; None when it ran past limit
    seconds (then it is stopped; without a limit, 600 s is an error)."""
    try:
        out, err = p.communicate(timeout=limit or 600)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        if limit:
            return None
        sys.exit("contention.py: %s ran past 600 s" % prog)
    if p.returncode != 0:
        sys.exit("contention.py: %s failed (exit %d): %s" % (prog, p.returncode, err[-2000:]))
    m = RESULT.search(out)
    if m is None:
        sys.exit("contention.py: %s printed no RESULT line" % prog)
    return dict(kv.split("=", 1) for kv in m.group(2).split())


def run(prog, env_extra, threads, shape, tokens, extra_args=(), preexec=None):
    """One run of prog; its RESULT line's fields."""
    return finish(start(prog, env_extra, threads, shape, tokens, extra_args, preexec), prog)


class Load:
    """A load on the machine while the settings run: busy processes pinned to
    cpus, a cgroup with a CPU quota (quota CPUs), or a second copy."""

    def __init__(self, name, label, cpus=(), quota=None, copies=1, tokens_times=1):
        self.name, self.label, self.cpus, self.quota, self.copies = name, label, cpus, quota, copies
        self.tokens_times = tokens_times
        self.procs, self.cg = [], None

    def __enter__(self):
        if self.quota is not None:
            self.cg = cgroup.make_cgroup()  # raises cgroup.Unavailable
            self.cg.quota(self.quota)
        self.procs = hogs(self.cpus)
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()
        if self.cg is not None:
            self.cg.remove()

    def measure(self, prog, env, threads, shape, tokens, limit):
        """One round's figures of prog under this load: one run's fields, or
        each copy's; None for a run stopped after limit seconds."""
        pre = self.cg.enter if self.cg is not None else None
        ps = [start(prog, env, threads, shape, tokens * self.tokens_times, preexec=pre)
              for _ in range(self.copies)]
        return [finish(p, prog, limit) for p in ps]


def loads_for(names, allowed, threads, quota_times):
    out = []
    for name in names:
        if name == "idle":
            out.append(Load(name, "idle"))
        elif name == "first":
            out.append(Load(name, "a busy loop on CPU %d (first)" % allowed[0], [allowed[0]]))
        elif name == "last":
            out.append(Load(name, "a busy loop on CPU %d (last)" % allowed[-1], [allowed[-1]]))
        elif name == "every":
            out.append(Load(name, "a busy loop on every CPU", allowed))
        elif name == "quota":
            q = max(threads - 0.5, 0.5)
            out.append(Load(name, "a CPU quota of %g CPUs" % q, quota=q,
                            tokens_times=quota_times))
        elif name == "copy":
            out.append(Load(name, "a second copy at once", copies=2))
    return out


def fair_share(name, threads, ncpu, quota):
    """The share of the CPU time it gets idle that each of the team's
    threads gets, at most, under the load `name` when the kernel shares the
    CPUs fairly (see the top of the file); None where it depends on
    placement (one CPU busy), and idle, whose rate is the one the others
    are set against."""
    idle = min(1.0, ncpu / threads)  # a team larger than the CPUs shares them idle
    if name == "every":  # each CPU: a busy loop beside the team's threads on it
        return min(0.5, ncpu / (threads + ncpu)) / idle
    if name == "copy":  # two teams on the CPUs
        return min(1.0, ncpu / (2.0 * threads)) / idle
    if name == "quota":
        return min(1.0, min(quota, ncpu) / threads) / idle
    return None


def quartiles(v):
    """The first and third quartiles of v (the median of each half)."""
    v = sorted(v)
    h = len(v) // 2
    if h == 0:
        return v[0], v[0]
    return statistics.median(v[:h]), statistics.median(v[-h:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--bench", default="graph", choices=sorted(BENCHES))
    ap.add_argument("--config", default=None,
                    help="graph: small, medium, large; decode: tiny, small, default")
    ap.add_argument("--tokens", type=int, default=None,
                    help="tokens per run (graph: 256, decode: 3000)")
    ap.add_argument("--loads", default=",".join(LOADS),
                    help="some of " + ", ".join(LOADS))
    ap.add_argument("--slow", type=float, default=20,
                    help="a setting whose run under a load takes longer (s; times the "
                    "longer runs' factor under the quota) runs once there")
    ap.add_argument("--base", default=None,
                    help="another build whose buddypool runs beside this one's")
    ap.add_argument("--no-peers", action="store_true",
                    help="buddypool only (with --base: the two builds side by side)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    shapes, shape0, tokens0, figure, agree, quota_times = BENCHES[args.bench]
    args.config = args.config or shape0
    args.tokens = args.tokens or tokens0
    if args.config not in shapes:
        sys.exit("contention.py: --config %s: bench/%s has %s" % (args.config, args.bench,
                                                                 ", ".join(shapes)))
    if args.rounds < 1 or args.tokens < 1:
        sys.exit("contention.py: --rounds and --tokens need at least 1")
    names = args.loads.split(",")
    for n in names:
        if n not in LOADS:
            sys.exit("contention.py: --loads: '%s' is not one of %s" % (n, ", ".join(LOADS)))
    allowed = sorted(os.sched_getaffinity(0))
    args.ncpu = len(allowed)
    threads = args.threads or len(allowed)
    if threads < 1:
        sys.exit("contention.py: --threads %d: need at least 1" % threads)
    # (label, build directory, program suffix, environment, compiler)
    settings = [(label, args.build, suffix, env, cc) for label, suffix, env, benches, cc
                in SETTINGS if benches is None or args.bench in benches]
    if args.base:
        if not os.path.exists(bench_prog(args.base, args.bench, "buddypool")):
            sys.exit("contention.py: --base %s: no %s there" %
                     (args.base, bench_prog(args.base, args.bench, "buddypool")))
        settings[1:1] = [("base buddypool", args.base, "buddypool", {}, "clang")]
    if args.no_peers:
        settings = [s for s in settings if s[2] in OURS]
    settings = [s for s in settings if os.path.exists(bench_prog(s[1], args.bench, s[2]))]
    loads = loads_for(names, allowed, threads, quota_times)
    data, sums, skipped, slow = {}, {}, {}, {}
    for load in loads:
        try:
            with load:
                for r in range(args.rounds):
                    k = r % len(settings)
                    for label, build, suffix, env, _ in settings[k:] + settings[:k]:
                        if (load.name, label) in slow:
                            continue
                        prog = bench_prog(build, args.bench, suffix)
                        # --slow is for a run of --tokens: the quota's are longer
                        limit = args.slow * load.tokens_times
                        t0 = time.time()
                        res = load.measure(prog, env, threads, args.config, args.tokens,
                                           limit * 3)
                        took = time.time() - t0
                        if took > limit:
                            slow[(load.name, label)] = (took, None in res)
                        # a stopped run: at most its tokens over the time it had
                        data.setdefault((load.name, label), []).append(statistics.mean(
                            float(x[figure]) if x is not None else
                            args.tokens * load.tokens_times / (limit * 3) for x in res))
                        for x in res:
                            if x is not None:
                                sums.setdefault(load.name, set()).add(x[agree])
                    print("%s: round %d of %d done" % (load.label, r + 1, args.rounds),
                          file=sys.stderr)
        except cgroup.Unavailable as e:
            skipped[load.name] = str(e)
            print("contention.py: %s skipped: %s" % (load.label, e), file=sys.stderr)
        # the table so far, so that an interrupted run keeps its loads
        emit(table(args, threads, settings, loads, data, sums, skipped, slow), args.out,
             quiet=load is not loads[-1])


def table(args, threads, settings, loads, data, sums, skipped, slow):
    """The markdown lines of the measurements so far."""
    figure_agree = BENCHES[args.bench][4]
    # the quota's longer runs, when it ran and lengthened them
    longer = [load.tokens_times for load in loads
              if load.name == "quota" and load.name not in skipped and load.tokens_times != 1]
    lines = ["%s benchmark, shape %s, %d tokens a run%s, %d threads, "
             "%d rounds per load, settings alternating; `bench/contention.py %s --bench %s "
             "--rounds %d --config %s --tokens %d --loads %s --slow %g%s%s`" %
             (args.bench, args.config, args.tokens,
              " (%d under the quota)" % (args.tokens * longer[0]) if longer else "",
              threads, args.rounds, args.build, args.bench,
              args.rounds, args.config, args.tokens, args.loads, args.slow,
              " --base %s" % args.base if args.base else "",
              " --no-peers" if args.no_peers else ""), "",
             "| load | runtime | tok/s median | least - most | quartiles | over the best peer "
             "of its compiler | first half, second half | of its fair-share rate |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    summary = []
    for load in loads:
        if load.name in skipped:
            lines.append("| %s | skipped: %s | | | | | | |" % (load.label, skipped[load.name]))
            continue
        rows = [(label, data.get((load.name, label)), suffix, cc)
                for label, _, suffix, _, cc in settings]
        rows = [r for r in rows if r[1]]
        if not rows:
            continue
        # each compiler's best peer setting under this load
        best_of = {}
        for label, v, suffix, cc in rows:
            if suffix not in OURS:
                best_of[cc] = max(best_of.get(cc, (0, None)), (statistics.median(v), label))
        share = fair_share(load.name, threads, args.ncpu, load.quota)

        def of_fair(label, med):
            """med as a share of label's fair-share rate, or '-'."""
            idle = data.get(("idle", label))
            return ("%.0f%%" % (100 * med / (statistics.median(idle) * share))
                    if share and idle else "-")

        for label, v, suffix, cc in rows:
            best, best_label = best_of.get(cc, (None, None))
            med = statistics.median(v)
            q1, q3 = quartiles(v)
            h = len(v) // 2
            halves = ("%.0f, %.0f" % (statistics.median(v[:h]), statistics.median(v[h:]))
                      if h else "-")
            note = ""
            if (load.name, label) in slow and len(v) == 1:
                took, stopped = slow[(load.name, label)]
                note = (" (1 round, stopped after %.0f s: at most the rate shown)" % took
                        if stopped else " (1 round: it took %.0f s)" % took)
            lines.append("| %s | %s%s | %.1f | %.0f - %.0f | %.0f - %.0f | %s | %s | %s |" % (
                load.label, label, note, med, min(v), max(v), q1, q3,
                "%.2fx" % (med / best) if best else "-", halves, of_fair(label, med)))
            if suffix in OURS and not label.startswith("base") and best:
                fair = (of_fair(label, med), of_fair(best_label, best))
                summary.append("%s: %s %.2fx the best %s peer (%s)%s" %
                               (load.label, label, med / best, cc, best_label,
                                "; %s of its fair-share rate, the peer %s" % fair
                                if "-" not in fair else ""))
    lines.append("")
    lines += summary
    lines.append("")
    for load in loads:
        if load.name in skipped or load.name not in sums:
            continue
        what = "Logits checksum" if figure_agree == "checksum" else "Generated tokens"
        lines.append("%s identical across settings (%s): %s" %
                     (what, load.label, "yes" if len(sums[load.name]) == 1 else
                      "NO: %s" % sorted(v[:60] for v in sums[load.name])))
    return lines


def emit(lines, out, quiet=False):
    """Print a table's lines (unless quiet), and write them to the file out
    when given."""
    text = "\n".join(lines)
    if not quiet:
        print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
