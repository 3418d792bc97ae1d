#!/usr/bin/env python3
"""check-decode.py MODE PROGRAM...: checks of the decode benchmark's builds.

  tokens      runs every PROGRAM on the tiny config with OMP_NUM_THREADS
              unset, 2 and 3 (buddypool: BUDDY_THREAD_POOL_THREADS and
              BUDDY_THREAD_POOL_OVERSUBSCRIBE=1 too, so 3 threads run on 2
              CPUs); the generated token ids, the hash of the last logits'
              bits and the regions per token must be identical in every run,
              the thread count the one asked for, and the tokens not all a
              few ids
  no-runtime  `ldd PROGRAM` shows no OpenMP runtime (libomp, libgomp, libiomp)
  bad-input   PROGRAM exits 2 on bad flags, with a message naming the flag
              and the value
  two-processes
              PROGRAM (a buddypool build, full pool: one thread per CPU) on
              the tiny config alone, then two copies at once on the same
              CPUs: both must finish with the tokens of the run alone, each
              at no less than a third of its decode speed alone. Best of
              three tries each, alone and in pairs, alternating: a pool
              whose waiters spin instead of yielding to the other process
              falls far below a third, whatever the machine's noise.
"""
import os
import re
import subprocess
import sys

RESULT = re.compile(r"^RESULT decode threads=(\d+) prompt=(\d+) gen=(\d+) "
                    r"prefill_tok_s=([0-9.]+) decode_tok_s=([0-9.]+) "
                    r"regions_per_token=(\d+) tokens=([0-9,]+)$", re.M)
LOGITS = re.compile(r"^  logits     bits hash ([0-9a-f]{16}) ", re.M)
THREAD_VARS = ("OMP_NUM_THREADS", "BUDDY_THREAD_POOL_THREADS", "BUDDY_THREAD_POOL_OVERSUBSCRIBE",
               "OMP_THREAD_LIMIT", "OMP_DYNAMIC")


def env_for(threads):
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
        env["BUDDY_THREAD_POOL_THREADS"] = str(threads)
        env["BUDDY_THREAD_POOL_OVERSUBSCRIBE"] = "1"
    return env


def tokens(programs):
    runs = []  # (label, tokens, regions_per_token, logits hash)
    failed = False
    for threads in (None, 2, 3):
        for prog in programs:
            label = "%s, OMP_NUM_THREADS=%s" % (os.path.basename(prog),
                                                "unset" if threads is None else threads)
            p = subprocess.run([prog, "--config", "tiny"], env=env_for(threads),
                               capture_output=True, text=True, timeout=60)
            m, h = RESULT.search(p.stdout), LOGITS.search(p.stdout)
            if p.returncode != 0 or not m or not h:
                print("FAIL: %s: exit %d, %s\n%s%s" % (label, p.returncode,
                      "RESULT and logits lines found" if m and h else "no RESULT or logits line",
                      p.stdout, p.stderr))
                failed = True
                continue
            got_threads, toks, rpt = int(m.group(1)), m.group(7).split(","), int(m.group(6))
            print("%-45s threads=%d regions_per_token=%d logits=%s tokens=%s" %
                  (label, got_threads, rpt, h.group(1), ",".join(toks)))
            if threads is not None and got_threads != threads:
                print("FAIL: %s: ran %d threads, asked for %d" % (label, got_threads, threads))
                failed = True
            runs.append((label, toks, rpt, h.group(1)))
    if not runs:
        return 1
    ref_label, ref, ref_rpt, ref_hash = runs[0]
    if len(set(ref)) < 3:
        print("FAIL: %s generated fewer than 3 distinct ids: %s" % (ref_label, ",".join(ref)))
        failed = True
    for label, toks, rpt, logits_hash in runs[1:]:
        if logits_hash != ref_hash:
            print("FAIL: last logits' bits hash %s (%s) != %s (%s)" %
                  (logits_hash, label, ref_hash, ref_label))
            failed = True
        if rpt != ref_rpt:
            print("FAIL: regions_per_token %d (%s) != %d (%s)" % (rpt, label, ref_rpt, ref_label))
            failed = True
        if toks != ref:
            failed = True
            first = next((i for i, (a, b) in enumerate(zip(ref, toks)) if a != b),
                         min(len(ref), len(toks)))
            print("FAIL: tokens differ from the first run's at index %d" % first)
            print("  %-45s %s" % (ref_label, ",".join(ref)))
            print("  %-45s %s" % (label, ",".join(toks)))
            print("  %-45s %s^" % ("", " " * len(",".join(ref[:first]) + ("," if first else ""))))
    if failed:
        return 1
    print("ok: %d runs, identical tokens and logits" % len(runs))
    return 0


def no_runtime(programs):
    failed = False
    for prog in programs:
        p = subprocess.run(["ldd", prog], capture_output=True, text=True)
        found = [l.strip() for l in p.stdout.splitlines() if re.search(r"lib(i?omp|gomp)\b", l)]
        if p.returncode != 0:
            print("FAIL: ldd %s: exit %d: %s" % (prog, p.returncode, p.stderr))
            failed = True
        elif found:
            print("FAIL: %s loads an OpenMP runtime: %s" % (prog, "; ".join(found)))
            failed = True
        else:
            print("ok: %s loads no OpenMP runtime" % os.path.basename(prog))
    return 1 if failed else 0


def bad_input(programs):
    cases = [
        (["--dim", "abc"], ["--dim", "abc"]),
        (["--layers", "0"], ["--layers", "0"]),
        (["--vocab", "99999999"], ["--vocab", "99999999"]),
        (["--config", "huge"], ["--config", "huge"]),
        (["--seed", "-1"], ["--seed", "-1"]),
        (["--config", "tiny", "--kv-heads", "3"], ["--kv-heads", "3"]),
        (["--config", "tiny", "--head-dim", "15"], ["--head-dim", "15"]),
        (["--bogus", "1"], ["--bogus"]),
        (["--config", "tiny", "--tokens"], ["--tokens"]),
    ]
    failed = False
    for prog in programs:
        for args, names in cases:
            p = subprocess.run([prog] + args, capture_output=True, text=True, timeout=60)
            first = p.stderr.splitlines()[0] if p.stderr else ""
            if p.returncode != 2 or not all(n in first for n in names):
                print("FAIL: %s %s: exit %d (want 2), message %r should name %s" %
                      (os.path.basename(prog), " ".join(args), p.returncode, first, names))
                failed = True
            else:
                print("ok: %s -> %s" % (" ".join(args), first))
    return 1 if failed else 0


def two_processes(programs):
    cmd = [programs[0], "--config", "tiny", "--tokens", "2000"]
    env = env_for(None)

    def parse(out, what):
        m = RESULT.search(out)
        if not m:
            raise SystemExit("FAIL: %s: no RESULT line:\n%s" % (what, out[-2000:]))
        return float(m.group(5)), m.group(7)

    alone, pairs, tokens_alone = [], [], None
    for _ in range(3):
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            print("FAIL: alone: exit %d\n%s" % (p.returncode, p.stderr[-2000:]))
            return 1
        speed, toks = parse(p.stdout, "alone")
        alone.append(speed)
        tokens_alone = toks
        procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
        outs = [q.communicate(timeout=300) for q in procs]
        pair = []
        for q, (out, err) in zip(procs, outs):
            if q.returncode != 0:
                print("FAIL: in a pair: exit %d\n%s" % (q.returncode, err[-2000:]))
                return 1
            speed, toks = parse(out, "in a pair")
            if toks != tokens_alone:
                print("FAIL: in a pair: other tokens than alone")
                return 1
            pair.append(speed)
        pairs.append(min(pair))
    best_alone, best_pair = max(alone), max(pairs)
    print("two-processes: alone %s tok/s, slower of each pair %s tok/s: %.2f of alone" %
          (" ".join("%.0f" % v for v in alone), " ".join("%.0f" % v for v in pairs),
           best_pair / best_alone))
    if best_pair < best_alone / 3:
        print("FAIL: with another full pool on the same CPUs a process ran at %.2f of its "
              "speed alone (at least 1/3 expected)" % (best_pair / best_alone))
        return 1
    return 0


def main():
    modes = {"tokens": tokens, "no-runtime": no_runtime, "bad-input": bad_input,
             "two-processes": two_processes}
    if len(sys.argv) < 3 or sys.argv[1] not in modes:
        print(__doc__, file=sys.stderr)
        return 2
    mode, programs = sys.argv[1], sys.argv[2:]
    return modes[mode](programs)


if __name__ == "__main__":
    sys.exit(main())
