#!/usr/bin/env python3
"""check-cli.py BUDDYPOOL GCC_PROGRAM CLANG_PROGRAM LINKED_PROGRAM: the
`buddypool` command (LINKED_PROGRAM has libbuddypool.a linked in).

  run     the gcc-built (libgomp) and clang-built (libomp) programs run on the
          pool: their own checks pass, the profile report prints, the JSON
          profile and the trace-event file are written and hold the
          program's regions; a program with the pool linked in runs as it is
          (no second, preloaded copy); --cpus and --numa place it; bad
          arguments exit 2 naming what was wrong, a missing program 127
  report  the text table of a saved profile (and --top), outlined functions
          named from the ELF symbol table (and file:line for gcc's debug
          information) by elfutils, and the call sites' frames too when the
          profile has them; bad files named (check-report.py checks the
          report's contents on fixtures)
  html    the HTML page, loaded in headless Chromium (--dump-dom): the totals
          and function tables and an SVG timeline with region slices
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checks import check, report

def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def function_rows(text):
    """The function rows of the report's tables (calls, wall, wall%: not a
    call site's row under them)."""
    return [l for l in text.splitlines() if re.match(r"^\s+\d+\s+\d+\.\d{3}\s+\d+\.\d%", l)]


def main():
    cli, gcc_prog, clang_prog, linked_prog = sys.argv[1:5]
    tmp = tempfile.mkdtemp()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BUDDY_", "OMP_"))}
    # The programs `buddypool run` starts (only those) get this preloaded
    # first: a sanitizer's runtime, in a sanitizer build.
    first = os.environ.get("CHECK_CLI_PRELOAD_FIRST")
    run_env = dict(env, LD_PRELOAD=first) if first else env
    try:
        profiles = {}
        for label, prog in (("gcc", gcc_prog), ("clang", clang_prog)):
            js, tr = os.path.join(tmp, label + ".json"), os.path.join(tmp, label + "-trace.json")
            p = run([cli, "run", "--threads", "2", "--profile", "--json", js, "--trace", tr, "--", prog],
                    env=run_env)
            check(p.returncode == 0, "%s: exit 0 (got %d): %s" % (label, p.returncode, p.stderr[-1500:]))
            check("buddypool profile: 2 threads" in p.stderr, "%s: the profile report is printed" % label)
            prof = json.load(open(js))
            check(prof["threads"] == 2 and prof["totals"]["regions"] > 0,
                  "%s: the JSON profile holds the program's regions on 2 threads" % label)
            trace = json.load(open(tr))
            regions = [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "region"]
            check(len(regions) >= prof["totals"]["regions"],
                  "%s: the trace has a slice per region at least" % label)
            profiles[label] = (js, tr)
        js = os.path.join(tmp, "linked.json")
        p = run([cli, "run", "--json", js, "--", linked_prog, "--config", "tiny"], env=run_env)
        check(p.returncode == 0 and "has buddypool linked in" in p.stderr,
              "a program with buddypool linked in runs as it is (%r)" % p.stderr[-500:])
        check(json.load(open(js))["totals"]["regions"] > 0, "and its own profile is kept")
        stripped = os.path.join(tmp, "stripped-program")
        shutil.copy(linked_prog, stripped)
        if shutil.which("strip") and run(["strip", stripped]).returncode == 0:
            js = os.path.join(tmp, "stripped.json")
            p = run([cli, "run", "--json", js, "--", stripped, "--config", "tiny"], env=run_env)
            check(p.returncode == 0 and "has buddypool linked in" in p.stderr and
                  json.load(open(js))["totals"]["regions"] > 0,
                  "a stripped program with buddypool linked in runs as it is, its profile kept")
        # placement
        p = run([cli, "run", "--cpus", "0", "--", "grep", "Cpus_allowed_list", "/proc/self/status"],
                env=run_env)
        check(p.returncode == 0 and re.search(r"Cpus_allowed_list:\s+0$", p.stdout, re.M) is not None,
              "--cpus 0 runs the program on CPU 0 (%r)" % p.stdout)
        p = run([cli, "run", "--numa", "0", "--", "grep", "-c", "interleave", "/proc/self/numa_maps"],
                env=run_env)
        if "no NUMA support" in p.stderr:
            print("note: this machine has no NUMA support; --numa gives:", p.stderr.strip())
            check(p.returncode == 2, "--numa without NUMA support exits 2")
        else:
            check(p.returncode == 0 and int(p.stdout.strip() or 0) > 0,
                  "--numa 0 interleaves the program's memory (%r %r)" % (p.stdout, p.stderr))
        # bad input
        for args, what in ((["run", "--threads", "0", "--", "true"], "--threads 0"),
                           (["run", "--cpus", "x", "--", "true"], "--cpus 'x'"),
                           (["run", "--cpus", "5000", "--", "true"], "--cpus 5000"),
                           (["run", "--numa", "x", "--", "true"], "--numa x"),
                           (["run", "true"], "no '--"),
                           (["run", "--"], "no program"),
                           (["frobnicate"], "frobnicate: unknown command"),
                           (["report", "/nonexistent.json"], "/nonexistent.json"),
                           (["report", gcc_prog], "is not a buddypool profile"),
                           (["run", "--cpus", "\u00b2", "--", "true"], "--cpus"),
                           (["report", "x.json", "--trace", "t.json"], "give --html too")):
            p = run([cli] + args, env=env)
            want = 1 if args[0] == "report" and "--trace" not in args else 2
            if args[:2] == ["run", "--numa"] and "no NUMA support" in p.stderr:
                what = "no NUMA support"
            check(p.returncode == want and what in p.stderr,
                  "buddypool %s: exit %d naming %r (got %d: %r)" % (" ".join(args), want, what,
                                                                   p.returncode, p.stderr.strip()))
        p = run([cli, "run", "--", os.path.join(tmp, "no-such-program")], env=env)
        check(p.returncode == 127 and "no-such-program" in p.stderr, "a missing program: exit 127, named")
        # names from the programs' symbol tables and debug information
        for label, pattern in (("gcc", r"main\._omp_fn\.\d+ \(\S*constructs\.c:\d+"),
                               ("clang", r"main\.omp_outlined")):
            p = run([cli, "report", profiles[label][0], "--top", "100"], env=env)
            check(re.search(pattern, p.stdout) is not None,
                  "%s: report names the outlined functions (%s)" % (label, pattern))
        prof = json.load(open(profiles["gcc"][0]))
        if any(s.get("frames") for f in prof["functions"] for s in f.get("call_sites") or []):
            p = run([cli, "report", profiles["gcc"][0], "--top", "100"], env=env)
            check(re.search(r"  from main \(\S*constructs\.c:\d+", p.stdout) is not None,
                  "gcc: report names the call sites' frames (main, file:line)")
        else:
            print("note: the gcc profile has no call-site frames: their names are not checked here")
        # report, text
        js, tr = profiles["clang"]
        prof = json.load(open(js))
        p = run([cli, "report", js], env=env)
        check(p.returncode == 0, "report: exit 0")
        check("%d regions" % prof["totals"]["regions"] in p.stdout, "report: the totals")
        top = max(prof["functions"], key=lambda f: f["wall_ns"])
        row = "%9d %11.3f" % (top["calls"], top["wall_ns"] / 1e6)
        rows = function_rows(p.stdout)
        check(rows and rows[0].startswith("  " + row), "report: the function with the most wall time first")
        check(len(rows) >= len(prof["functions"]), "report: a row per function")
        p = run([cli, "report", js, "--top", "1"], env=env)
        rows = function_rows(p.stdout)
        check(len(rows) == 1 + len(prof.get("phases", [])) and rows[0].startswith("  " + row),
              "report --top 1: one row per table")
        # report, HTML in a browser
        page = os.path.join(tmp, "profile.html")
        p = run([cli, "report", js, "--trace", tr, "--html", page], env=env)
        check(p.returncode == 0 and os.path.exists(page), "report --html writes the page")
        chromium = shutil.which("chromium")
        check(chromium is not None, "chromium is installed (make check installs it)")
        if chromium:
            p = run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--dump-dom",
                     "file://" + page])
            dom = p.stdout
            check(p.returncode == 0 and "<table id=\"totals\"" in dom, "the browser finds the totals table")
            check("<table id=\"functions\"" in dom and dom.count("<tr class=\"fn\">") >= len(prof["functions"]),
                  "the browser finds the function table")
            m = re.search(r"<svg id=\"timeline\".*?</svg>", dom, re.S)
            check(m is not None, "the browser finds the SVG timeline")
            if m:
                n = len(re.findall(r"<rect class=\"region\"", m.group(0)))
                check(n >= 2, "the timeline has region slices (%d)" % n)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report("check-cli")


sys.exit(main())
