#!/usr/bin/env python3
"""check-preload.py MODE [options] -- PROGRAM [ARGS...]: runs an OpenMP program
linked with libomp or libgomp under LD_PRELOAD=libbuddypool.so and checks
what buddypool says and does.

  supported    the program uses only what buddypool implements: no warning;
               the same output and exit status 0 with and without preload;
               the profile (BUDDY_THREAD_POOL_PROFILE=1) counts exactly the
               regions the program says it ran ("regions N", its last line;
               with --any-regions, at least one), on more than one thread
               where there are CPUs for it
  unsupported  the program imports entry points buddypool lacks: exactly one
               warning, naming the program's runtime and exactly those
               entry points (the program's undefined OpenMP symbols, nm -D -u,
               less what libbuddypool.so defines, nm -D), wrapped at 100
               columns; with --compare also the supported mode's output
               and profile checks
  none         a program with no other runtime (linked with buddypool): no
               warning, also when preloaded

Options: --lib LIBBUDDYPOOL (required), --nm NM, --any-regions, --runtime NAME (libomp,
libgomp: the runtime the warning must name), --expect NAME (an entry point
the warning must list; repeatable), --compare, --preload-first LIB (a
sanitizer runtime that must be loaded before libbuddypool.so), --skip WHY
(report WHY and exit 77: CTest's skip code).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checks import check, failures, report  # noqa: E402 (tests/checks.py)

OPENMP_NAME = re.compile(r"^(GOMP_|__kmp|omp_|kmp_)")
WARNING = re.compile(r"^buddypool: .* (is|are) loaded beside buddypool;")
WRAP_COLUMNS = 100
def run(cmd, env_extra, preload):
    env = dict(os.environ)
    for k in ("LD_PRELOAD", "BUDDY_THREAD_POOL_PROFILE", "BUDDY_THREAD_POOL_PROFILE_OUT"):
        env.pop(k, None)
    if preload:
        env["LD_PRELOAD"] = " ".join(preload)
    env.update(env_extra)
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        check(False, "%s did not finish in 60 s (LD_PRELOAD=%s)" % (" ".join(cmd), env.get("LD_PRELOAD", "")))
        return None
    return p


def nm_names(nm, path, which):
    out = subprocess.run([nm, "-D", which, path], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if fields:
            name = fields[-1].split("@")[0]
            if OPENMP_NAME.match(name):
                names.add(name)
    return names


def warnings_in(stderr):
    """The warnings about another runtime: each a list of its lines (the
    first, then the continuation lines indented by four)."""
    lines = stderr.splitlines()
    found = []
    for i, line in enumerate(lines):
        if WARNING.match(line):
            block = [line]
            for more in lines[i + 1:]:
                if not more.startswith("    "):
                    break
                block.append(more)
            found.append(block)
    check(stderr.count("loaded beside buddypool") == len(found),
          "every mention of another runtime on stderr is a whole warning")
    return found


def regions_said(stdout):
    m = re.search(r"^regions (\d+)$", stdout, re.M)
    check(m is not None, "the program prints its region count")
    return int(m.group(1)) if m else -1


def run_compared(cmd, lib_preload, any_regions=False):
    """Run without, then with preload and the profile on; compare. Returns
    the preloaded run's stderr."""
    failed_before = len(failures)
    plain = run(cmd, {}, None)
    if plain is None:
        return ""
    check(plain.returncode == 0, "without preload: exit 0 (got %d): %s%s" % (plain.returncode, plain.stdout[-1500:], plain.stderr[-1500:]))
    with tempfile.TemporaryDirectory() as tmp:
        json_path = os.path.join(tmp, "profile.json")
        pre = run(cmd, {"BUDDY_THREAD_POOL_PROFILE": "1", "BUDDY_THREAD_POOL_PROFILE_OUT": json_path}, lib_preload)
        if pre is None:
            return ""
        check(pre.returncode == 0, "preloaded: exit 0 (got %d): %s%s" % (pre.returncode, pre.stdout[-1500:], pre.stderr[-1500:]))
        check(pre.stdout == plain.stdout,
              "the same output with and without preload:\n--- without\n%s--- preloaded\n%s" % (plain.stdout, pre.stdout))
        want = -1 if any_regions else regions_said(pre.stdout)
        if want == 0:
            # a program that ran no region leaves no profile, and says so once
            check(not os.path.exists(json_path), "a run of no region writes no JSON profile")
            check(pre.stderr.count("no parallel region ran") == 1,
                  "one line says that no parallel region ran: %s" % pre.stderr[-1500:])
        elif check(os.path.exists(json_path), "the preloaded run leaves buddypool's JSON profile"):
            with open(json_path) as f:
                prof = json.load(f)
            got = prof["totals"]["regions"]
            if any_regions:
                check(got > 0, "buddypool's profile counts the program's regions (got %d): they ran on the pool" % got)
                want = got
            else:
                check(got == want, "buddypool's profile counts the program's %d regions (got %d): they ran on the pool" % (want, got))
            cpus = len(os.sched_getaffinity(0))
            limited = any(os.environ.get(k) for k in
                          ("BUDDY_THREAD_POOL_THREADS", "OMP_NUM_THREADS", "OMP_THREAD_LIMIT"))
            if want > 0 and cpus >= 2 and not limited:
                check(prof["threads"] >= 2, "the pool ran the regions on %d threads, expected 2 or more (%d CPUs)" % (prof["threads"], cpus))
        if len(failures) == failed_before:
            print("preloaded: %d regions on the pool, output as without preload" % want)
    return pre.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["supported", "unsupported", "none"])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--runtime")
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--any-regions", action="store_true")
    ap.add_argument("--preload-first", action="append", default=[])
    ap.add_argument("--skip")
    argv = sys.argv[1:]
    if "--" not in argv:
        ap.error("no '-- PROGRAM [ARGS...]'")
    cut = argv.index("--")
    opts = ap.parse_args(argv[:cut])
    opts.program = argv[cut + 1:]
    if not opts.program:
        ap.error("no program after '--'")
    if opts.skip:
        print("skipped:", opts.skip)
        return 77
    cmd = opts.program
    lib_preload = opts.preload_first + [opts.lib]

    if opts.mode == "none":
        for preload in (None, lib_preload):
            p = run(cmd, {}, preload)
            if p is None:
                continue
            check(p.returncode == 0, "exit 0 (got %d): %s" % (p.returncode, p.stderr[-1500:]))
            check(warnings_in(p.stderr) == [], "no warning without another runtime: %s" % p.stderr[-1500:])
        return report("check-preload")

    imports = nm_names(opts.nm, cmd[0], "--undefined-only")
    defined = nm_names(opts.nm, opts.lib, "--defined-only")
    check(len(defined) > 0, "nm lists libbuddypool.so's OpenMP entry points")
    missing = sorted(imports - defined)

    if opts.mode == "supported":
        check(missing == [], "buddypool defines every OpenMP entry point the program imports; it lacks: %s" % ", ".join(missing))
        stderr = run_compared(cmd, lib_preload, opts.any_regions)
        found = warnings_in(stderr)
        check(found == [], "no warning when buddypool defines all the program uses, got:\n%s" % "\n".join(sum(found, [])))
        return report("check-preload")

    # unsupported
    check(missing != [], "the program imports entry points buddypool lacks (nm)")
    for name in opts.expect:
        check(name in missing, "%s is among the entry points buddypool lacks (nm): %s" % (name, ", ".join(missing)))
    if opts.compare:
        stderr = run_compared(cmd, lib_preload)
    else:
        p = run(cmd, {}, lib_preload)
        stderr = p.stderr if p else ""
        if p:
            check(p.returncode == 0, "preloaded: exit 0 (got %d): %s" % (p.returncode, p.stderr[-1500:]))
    found = warnings_in(stderr)
    if not check(len(found) == 1, "exactly one warning (got %d): %s" % (len(found), stderr[-3000:])):
        return report("check-preload")
    block = found[0]
    print("\n".join(block))
    for line in block:
        check(len(line) <= WRAP_COLUMNS or " " not in line.strip(),
              "warning lines wrap at %d columns: %r" % (WRAP_COLUMNS, line))
    text = " ".join(line.strip() for line in block)
    m = re.match(r"buddypool: (\S+) is loaded beside buddypool; these OpenMP entry points the "
                 r"program uses are not buddypool's and run there: (.*)$", text)
    if not check(m is not None, "the warning's wording: %r" % text):
        return report("check-preload")
    path, listed = m.group(1), [n.strip() for n in m.group(2).split(",")]
    check(os.path.isabs(path) and os.path.exists(path), "the warning names the runtime's path: %r" % path)
    if opts.runtime:
        check(os.path.basename(path).startswith(opts.runtime + ".so"),
              "the warning names %s (got %s)" % (opts.runtime, path))
    check(listed == sorted(set(listed)), "the names are sorted and each listed once: %s" % listed)
    check(listed == missing, "the warning lists exactly the imports buddypool lacks:\n  listed: %s\n  nm:     %s"
          % (", ".join(listed), ", ".join(missing)))
    return report("check-preload")


if __name__ == "__main__":
    sys.exit(main())
