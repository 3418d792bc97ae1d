#!/usr/bin/env python3
"""check-report.py BUDDYPOOL PIE_PROGRAM NOPIE_PROGRAM: `buddypool report`,
`report --diff` and `top` on fixtures (tests/data/) and synthetic files, with
exact expectations; the programs (gcc-built, with symbols and debug
information) only lend their symbols to call-site frames.

  text    the report of tests/data/profile-base.json: the totals with the
          waiting and wake-up lines, the function rows with their call sites
          under them (source location, frames, other sites), '-' for the
          iterations gcc's static loops do not count, the per-thread
          section, the steps with the most waiting (a rest step, a tie, an
          untracked last arrival), the phases; --top and --sites
  names   recorded C++ names demangled with their offset kept; call-site
          frames named by eu-addr2line by offset (PIE) and by address
          (ET_EXEC), C++ ones demangled; without the tools a note and the
          names as recorded
  diff    profile-base.json against profile-new.json: exact totals and rows,
          added and removed rows, phases matched by name; bad input
  html    the pages in headless Chromium: the function table with its call
          sites, steps, per-thread, waits and phase tables; the timeline's
          step from phase marks (tests/data/trace-phases.json) and from the
          period of the regions (3 tokens of 28 layers x 12 regions + a
          head, also ending in a partial token), 32 lanes whose labels do
          not overlap, a long lane name cut with the full name on hover
  top     a live-counter file written here for a child that sleeps: the
          rates and shares of two rows and the totals (within 10%), a
          profile reset, the end of the process, a missing, a stale and a
          foreign file
"""
import html.parser
import json
import mmap
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

from checks import check, report

# The live-counter files of this test's own directory, which `buddypool top`
# reads through the variable: a profiled process of another test running
# at the same time removes the leftovers it finds in /dev/shm.
LIVE_DIR = tempfile.mkdtemp()
os.environ["BUDDY_THREAD_POOL_LIVE_DIR"] = LIVE_DIR

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
BASE = os.path.join(DATA, "profile-base.json")
NEW = os.path.join(DATA, "profile-new.json")
GGML = "ggml_graph_compute(ggml_cgraph*) [clone ._omp_fn.0]+0x0"


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def fields(line):
    """A text row's cells: runs of characters between two spaces or more."""
    return re.split(r"\s{2,}", line.strip())


def has_row(text, cells):
    """Whether a line of text has exactly these cells."""
    return any(fields(line) == cells for line in text.splitlines())


# ---- text -------------------------------------------------------------------

def check_text(cli):
    p = run([cli, "report", BASE])
    out = p.stdout
    check(p.returncode == 0, "report: exit 0 (%d: %s)" % (p.returncode, p.stderr))
    check("buddypool profile: 2 threads, 310 regions, 530 barriers, 3 rows" in out, "report: the title")
    check(has_row(out, ["waiting", "4.000 ms spinning, 2.000 ms asleep, 8 sleeps, 4 wakes (all threads)"]),
          "report: the waiting line sums the threads' waits")
    check(has_row(out, ["woken to start", "4 times: fork to start mean 25.0 us, max 60.0 us"]),
          "report: the woken-to-start line")
    check(has_row(out, ["calls", "wall", "wall%", "gap_before", "gap%", "gap_after", "barrier_wait",
                        "barrier_wait_t0", "barriers", "function", "module"]),
          "report: the columns named as the JSON's fields")
    check("times in ms" in out, "report: the unit in a header line")
    rows = (["100", "50.000", "49.0%", "4.000", "3.9%", "4.000", "6.000", "2.000", "300", GGML, "libggml.so"],
            ["60", "35.000", "2.400", "4.000", "from llama::decode()+0x41 < main+0x101"],
            ["40", "15.000", "1.600", "2.000", "from ggml.c:120 ggml_graph_compute: ggml_compute_forward+0x81"],
            ["200", "30.000", "29.4%", "14.000", "13.7%", "15.000", "3.000", "1.000", "220", "layer_norm+0x0",
             "libmodel.so"],
            ["150", "24.000", "10.500", "2.400", "from forward+0x1c"],
            ["50", "6.000", "3.500", "0.600", "from other sites"])
    lines = [fields(l) for l in out.splitlines()]
    at = [lines.index(r) if r in lines else -1 for r in rows]
    check(all(k >= 0 for k in at) and at == sorted(at) and at[-1] - at[0] == len(rows) - 1,
          "report: each function's row with its call sites under it, in order (%s)" % at)
    check(has_row(out, [GGML, "wall_p50 480.0 us", "wall_p99 900.0 us"]), "report: the wall quantiles")
    check(has_row(out, ["iterations", "-", "-"]) and has_row(out, ["iterations", "51200", "51200"]),
          "report: null iterations print '-', counted ones their number")
    check(has_row(out, ["last_at_join", "30", "70"]) and has_row(out, ["barrier_wait", "2.000", "4.000"]),
          "report: the per-thread figures")
    steps = out[out.find("the steps with the most waiting"):]
    step_rows = [fields(l) for l in steps.splitlines()[2:10]]
    check(step_rows[:2] == [["1", "100", "3.500", "15.000", "thread 1 (90 of 100)", GGML],
                            ["0", "200", "2.550", "20.000", "thread 0 (120 of 200)", "layer_norm+0x0"]],
          "report: the steps with the most waiting first (%s)" % step_rows[:2])
    check(["rest (>= 4)", "20", "0.500", "2.000", "-", GGML] in step_rows,
          "report: the rest step, its last arrival not tracked: '-'")
    check(["3", "30", "0.400", "3.000", "thread 0 (15 of 30)", GGML] in step_rows,
          "report: a tie of last arrivals names the lowest thread")
    check("buddypool profile, phase 'prefill': 2 threads, 20 regions, 60 barriers, 1 rows" in out and
          "buddypool profile, phase 'decode': 2 threads, 210 regions, 230 barriers, 2 rows" in out,
          "report: a table per phase")
    check(has_row(out, ["20", "12.000", "0.800", "1.000", "from ggml.c:120 ggml_graph_compute: ggml_compute_forward+0x81"]),
          "report: the phases' call sites")
    p = run([cli, "report", BASE, "--top", "1"])
    fn_rows = [l for l in p.stdout.splitlines() if re.match(r"^\s+\d+\s+\d+\.\d{3}\s+\d+\.\d%", l)]
    check(len(fn_rows) == 3 and "... 2 more rows (--top)" in p.stdout, "report --top 1: one row per table")
    p = run([cli, "report", BASE, "--sites", "0"])
    check(p.returncode == 0 and "  from " not in p.stdout, "report --sites 0: no call sites")
    p = run([cli, "report", BASE, "--sites", "1"])
    check("... 1 more call sites (--sites)" in p.stdout and "from ggml.c:120" not in p.stdout.split("prefill")[0],
          "report --sites 1: one site per function, the rest counted")
    p = run([cli, "report", NEW])
    check("(incomplete: written on the profile signal" in p.stdout, "report: an incomplete profile says so")


# ---- names ------------------------------------------------------------------

def symbols(path):
    """{name: value} of the ELF file's functions (eu-readelf)."""
    p = run(["eu-readelf", "-s", "-W", path])
    out = {}
    for line in p.stdout.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[3] == "FUNC" and cols[6] != "UND":
            out.setdefault(cols[7].split("@")[0], int(cols[1], 16))
    return out


def libstdcxx():
    p = run(["gcc", "-print-file-name=libstdc++.so.6"]) if shutil.which("gcc") else None
    for path in ([p.stdout.strip()] if p else []) + ["/usr/lib/x86_64-linux-gnu/libstdc++.so.6"]:
        if os.path.isabs(path) and os.path.isfile(path):
            return os.path.realpath(path)
    return None


def check_names(cli, tmp, pie, nopie):
    env = dict(os.environ, PATH="/nonexistent")
    p = run([sys.executable, cli, "report", BASE], env=env)
    check(p.returncode == 0 and "eu-addr2line (elfutils) is not installed" in p.stderr and
          "c++filt (binutils) is not installed" in p.stderr,
          "without elfutils and binutils: a note on stderr (%r)" % p.stderr)
    check("_Z18ggml_graph_computeP11ggml_cgraph._omp_fn.0+0x0  libggml.so" in p.stdout,
          "without c++filt: names as recorded")
    if shutil.which("eu-addr2line") is None or shutil.which("eu-readelf") is None:
        print("note: elfutils is not installed: frames are not named from symbols here")
        return
    prof = json.load(open(BASE))
    main_pie, main_exec = symbols(pie).get("main"), symbols(nopie).get("main")
    check(main_pie is not None and main_exec is not None, "the programs have a main symbol")
    frames = [{"address": "0x7fff00000000", "name": "x+0x21", "module": pie,
               "module_offset": "0x%x" % (main_pie + 0x21)},
              {"address": "0x%x" % (main_exec + 0x21), "name": "y+0x21", "module": nopie,
               "module_offset": "0x1"}]
    lib = libstdcxx()
    now = symbols(lib).get("_ZNSt6chrono3_V212system_clock3nowEv") if lib else None
    if now is not None:
        frames.append({"address": "0x7fff00000000", "name": "z+0x4", "module": lib,
                       "module_offset": "0x%x" % (now + 4)})
    prof["functions"][1]["call_sites"][0]["frames"] = frames
    path = os.path.join(tmp, "frames.json")
    json.dump(prof, open(path, "w"))
    p = run([cli, "report", path])
    m = re.search(r"from main \((\S*)\) < main \((\S*)\)( < (.*))?$", p.stdout, re.M)
    check(m is not None and all(re.search(r"constructs\.c:\d+|device-api\.c:\d+", g) for g in m.groups()[:2]),
          "frames named from the symbols and lines: by offset (PIE), by address (ET_EXEC) (%r)" %
          (m.group(0) if m else p.stdout[-2000:]))
    if now is not None:
        check(m is not None and (m.group(4) or "").startswith("std::chrono::_V2::system_clock::now()"),
              "a C++ frame's name demangled (%r)" % (m.group(4) if m else None))


# ---- diff ---------------------------------------------------------------------

def check_diff(cli, tmp, chromium):
    p = run([cli, "report", "--diff", BASE, NEW])
    out = p.stdout
    check(p.returncode == 0, "diff: exit 0 (%d: %s)" % (p.returncode, p.stderr))
    whole = out[:out.find("phase 'prefill'")]
    for cells in (["102.000", "101.000", "-1.000", "-1.0%", "span (ms)"],
                  ["82.000", "82.500", "+0.500", "+0.6%", "in regions (ms)"],
                  ["20.000", "18.500", "-1.500", "-7.5%", "gaps (ms)"],
                  ["9.000", "9.100", "+0.100", "+1.1%", "barrier waits (ms)"],
                  ["310", "330", "+20", "+6.5%", "regions"], ["530", "570", "+40", "+7.5%", "barriers"]):
        check(has_row(whole, cells), "diff: the total %s" % cells)
    rows = [["200 -> -", "30.000", "-", "-30.000", "-", "-14.000", "-3.000", "removed: layer_norm+0x0",
             "libmodel.so"],
            ["- -> 200", "-", "20.000", "+20.000", "-", "+12.000", "+2.000", "added: rms_norm+0x0", "libmodel.so"],
            ["100 -> 120", "50.000", "60.000", "+10.000", "1.20x", "+0.500", "+1.000", GGML, "libggml.so"],
            ["10 -> 10", "2.000", "2.500", "+0.500", "1.25x", "+0.000", "+0.100", "lm_head+0x0", "libmodel.so"]]
    got = [fields(l) for l in whole.splitlines() if " -> " in l and "BASE" not in l]
    check(got == rows, "diff: the rows lined up by name, the largest wall change first (%s)" % got)
    check(has_row(out, ["20 -> 24", "12.000", "14.000", "+2.000", "1.17x", "+0.100", "+0.000", GGML,
                        "libggml.so"]), "diff: the phase of the same name compared")
    check("phases only in BASE: 'decode'; phases only in NEW: 'sample'" in out, "diff: the phases of one side")
    check("(incomplete: written on the profile signal" in out, "diff: the incomplete profile named")
    for args, status, what in ((["--diff", BASE, "/nonexistent.json"], 1, "/nonexistent.json"),
                               (["--diff", os.path.join(DATA, "trace-phases.json"), NEW], 1,
                                "is not a buddypool profile"),
                               (["--diff", BASE], 2, "expected 2 arguments"),
                               ([BASE, "--diff", BASE, NEW], 2, "give PROFILE.json, or --diff"),
                               (["--diff", BASE, NEW, "--trace", "t.json"], 2, "not a --diff's"),
                               ([BASE, "--sites", "-1"], 2, "--sites -1")):
        p = run([cli, "report"] + args)
        check(p.returncode == status and what in p.stderr, "report %s: exit %d naming %r (%d: %r)" % (
            " ".join(args), status, what, p.returncode, p.stderr.strip()))
    if chromium:
        page = os.path.join(tmp, "diff.html")
        p = run([cli, "report", "--diff", BASE, NEW, "--html", page])
        tables = dom_tables(chromium, page)
        got = [r["cells"] for r in tables.get("diff-functions", [])[1:]]
        check(got == rows, "diff --html: the rows in the browser (%s)" % got)
        check(["-1.000" in r["cells"] for r in tables.get("diff-totals", [])][1:2] == [True],
              "diff --html: the totals in the browser")


# ---- html ---------------------------------------------------------------------

class Tables(html.parser.HTMLParser):
    """The tables of a page by id: rows of {"class", "cells", "titles"};
    and the SVG's lane labels."""

    def __init__(self):
        super().__init__()
        self.tables, self.table, self.row, self.cell, self.lanes = {}, None, None, None, []
        self.lane = None  # the list the text of a lane's label or title goes to

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = self.tables.setdefault(a.get("id"), [])
        elif tag == "tr" and self.table is not None:
            self.row = {"class": a.get("class"), "cells": [], "titles": []}
            self.table.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []
            self.row["titles"].append(a.get("title"))
        elif tag == "text" and a.get("class") == "lane":
            self.lanes.append({"y": float(a["y"]), "size": float(a["font-size"]), "title": [], "label": []})
            self.lane = self.lanes[-1]["label"]
        elif tag == "title" and self.lane is not None:
            self.lane = self.lanes[-1]["title"]

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row["cells"].append("".join(self.cell).strip())
            self.cell = None
        elif tag == "title" and self.lane is not None:
            self.lane = self.lanes[-1]["label"]
        elif tag == "text":
            self.lane = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        elif self.lane is not None:
            self.lane.append(data)


def dom(chromium, page):
    p = run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--dump-dom", "file://" + page])
    return p.stdout


def dom_tables(chromium, page, text=None):
    parser = Tables()
    parser.feed(text if text is not None else dom(chromium, page))
    return parser.tables


def check_html(cli, tmp, chromium):
    page = os.path.join(tmp, "report.html")
    p = run([cli, "report", BASE, "--trace", os.path.join(DATA, "trace-phases.json"), "--html", page])
    check(p.returncode == 0, "report --html: exit 0 (%s)" % p.stderr)
    text = dom(chromium, page)
    check_html_tables(dom_tables(chromium, page, text))
    check("overflow-wrap:anywhere" in text, "html: long names wrap")
    m = re.search(r'<p id="timeline-caption"[^>]*data-rule="(\w+)" data-regions="(\d+)"', text)
    check(m is not None and m.groups() == ("phase", "4"),
          "html: the step from the last two of the 3 'token' marks: 4 regions (%r)" % (m and m.groups(),))
    regions = re.findall(r'<rect class="region"[^>]*><title>([^<]*)</title>', text)
    check(len(regions) == 8 and any(t.startswith(GGML.replace(">", "&gt;")) for t in regions),
          "html: the step's regions on both threads, named by the profile (%s)" % regions)
    check_period(cli, tmp, chromium)
    check_lanes(cli, tmp, chromium)


def check_html_tables(tables):
    fns = tables.get("functions", [])
    check(fns and fns[0]["cells"] == ["calls", "wall", "wall%", "gap_before", "gap%", "gap_after",
                                      "barrier_wait", "barrier_wait_t0", "barriers", "function", "module"],
          "html: the function table's columns")
    got = [(r["class"], [c for c in r["cells"] if c]) for r in fns[1:4]]
    check(got == [("fn", ["100", "50.000", "49.0%", "4.000", "3.9%", "4.000", "6.000", "2.000", "300", GGML,
                          "libggml.so"]),
                  ("site", ["60", "35.000", "2.400", "4.000", "from llama::decode()+0x41 < main+0x101"]),
                  ("site", ["40", "15.000", "1.600", "2.000", "from ggml.c:120 ggml_graph_compute: ggml_compute_forward+0x81"])],
          "html: a function's row, its call sites under it (%s)" % got)
    check(any("_Z18ggml_graph_computeP11ggml_cgraph._omp_fn.0+0x0" in (t or "") and GGML in (t or "")
              for r in fns for t in r["titles"]), "html: a name's cell holds all its names on hover")
    steps = [r["cells"] for r in tables.get("steps", [])]
    check(steps[1:2] == [["1", "100", "3.500", "15.000", "thread 1 (90 of 100)", GGML]] and
          ["rest (>= 4)", "20", "0.500", "2.000", "-", GGML] in steps, "html: the steps table")
    per_thread = [r["cells"] for r in tables.get("per-thread", [])]
    check(["0", "2.000", "30", "-", ""] in per_thread and ["1", "2.000", "80", "51200", ""] in per_thread,
          "html: the per-thread table, '-' for null iterations (%s)" % per_thread[:4])
    check([r["cells"] for r in tables.get("waits", [])][-1:] == [["4.000", "2.000", "8", "4", "all"]],
          "html: the waits table")
    check("phase-0" in tables and "phase-1" in tables, "html: a table per phase")


def check_period(cli, tmp, chromium):
    """Three tokens, then also a partial fourth (and one phase mark, too few
    to make a step): the step is one token, not one layer."""
    for which, cut in (("token", 0), ("partial", 60)):
        page = os.path.join(tmp, which + ".html")
        trace = os.path.join(tmp, which + ".json")
        json.dump(token_trace(3, cut), open(trace, "w"))
        run([cli, "report", BASE, "--trace", trace, "--html", page])
        text = dom(chromium, page)
        m = re.search(r'<p id="timeline-caption"[^>]*data-rule="(\w+)" data-regions="(\d+)">([^<]*)', text)
        n = len(re.findall(r'<rect class="region"', text))
        check(m is not None and m.groups()[:2] == ("period", "337") and n == 674 and
              "repeat every 337 regions" in m.group(3) and "from layer.a+0x0 to lm_head+0x0" in m.group(3),
              "html: %s trace: one token by the period, 337 regions on 2 threads (%r, %d rects)" % (
                  which, m and m.groups(), n))


def token_trace(tokens, partial):
    """A decode trace of two threads: tokens of 28 layers of 12 regions and
    a head region, then `partial` regions of one more token; the host's
    work between tokens leaves a longer gap before each token."""
    layer = ["layer.%s+0x0" % c for c in "abcdefghijkl"]
    token = layer * 28 + ["lm_head+0x0"]
    names = (token * tokens + token[:partial])
    ev = lane_events(2) + [{"name": "decode", "cat": "phase", "ph": "i", "s": "t", "ts": 0.0, "pid": 1,
                            "tid": 100}]
    t = 0.0
    for i, name in enumerate(names):
        t += 50.0 if i % len(token) == 0 else 1.0
        ev += [region(100, name, t, 9.0), region(101, name, t + 0.5, 8.0),
               {"name": "join wait", "cat": "wait", "ph": "X", "ts": t + 8.5, "dur": 0.5, "pid": 1, "tid": 100}]
        t += 9.0
    return {"traceEvents": ev}


def region(tid, name, ts, dur):
    return {"name": name, "cat": "region", "ph": "X", "ts": ts, "dur": dur, "pid": 1, "tid": tid}


def lane_events(n, long_name=None):
    ev = []
    for k in range(n):
        name = "thread 0 (tid %d)" % (100 + k) if k == 0 else long_name if k == 5 and long_name else \
            "buddypool-%d" % k
        ev += [{"name": "thread_name", "ph": "M", "pid": 1, "tid": 100 + k, "args": {"name": name}},
               {"name": "thread_sort_index", "ph": "M", "pid": 1, "tid": 100 + k, "args": {"sort_index": k}}]
    return ev


def check_lanes(cli, tmp, chromium):
    long_name = "a worker thread with a name far too long for the margin"
    ev = lane_events(32, long_name)
    for i in range(12):
        ev += [region(100 + k, "region_%d+0x0" % (i % 4), 20.0 * i + k * 0.1, 15.0) for k in range(32)]
    trace, page = os.path.join(tmp, "wide.json"), os.path.join(tmp, "wide.html")
    json.dump({"traceEvents": ev}, open(trace, "w"))
    run([cli, "report", BASE, "--trace", trace, "--html", page])
    text = dom(chromium, page)
    parser = Tables()
    parser.feed(text)
    lanes = parser.lanes
    ys = [lane["y"] for lane in lanes]
    check(len(lanes) == 32, "html: 32 threads, 32 lanes (%d)" % len(lanes))
    check(all(b - a >= lane["size"] for a, b, lane in zip(ys, ys[1:], lanes)) and min(
        lane["size"] for lane in lanes) >= 8, "html: the lanes' labels do not overlap (%s)" % ys[:4])
    m = re.search(r'<svg id="timeline"[^>]*height="(\d+)"', text)
    check(m is not None and int(m.group(1)) >= 32 * 12, "html: the picture grows with the lanes")
    cut = [("".join(lane["label"]), "".join(lane["title"])) for lane in lanes if lane["title"] == [long_name]]
    check(len(cut) == 1 and cut[0][0].endswith("\u2026") and long_name.startswith(cut[0][0][:-1]),
          "html: a long lane name cut, the full name on hover (%s)" % cut)


# ---- top ----------------------------------------------------------------------

HEADER = struct.Struct("=8sIIIIQqqQqqqQQi")
ROW = struct.Struct("=QqqqQ152s64s")
# Two rows: per second of the writer's clock, calls, wall, gap_before and
# barrier wait (over all 4 threads: 0.8 s/s is 20% of their time).
RATES = (("_Z3foov+0x10", "libfoo.so", 200, 0.40, 0.05, 0.80),
         ("bar+0x0", "prog", 50, 0.10, 0.02, 0.20))
THREADS = 4


class LiveFile:
    """A live-counter file for process pid whose counters grow at RATES;
    reset() starts them again (as buddypool_profile_reset does)."""

    def __init__(self, pid):
        self.path = os.path.join(LIVE_DIR, "buddypool-%d" % pid)
        size = 128 + 4 * 256
        with open(self.path, "wb") as f:
            f.write(b"\0" * size)
        self.fd = os.open(self.path, os.O_RDWR)
        self.map = mmap.mmap(self.fd, size)
        self.map[:HEADER.size] = HEADER.pack(b"BPLIVE1\0", 128, 256, 4, THREADS, 0, 1, 1, 0, 0, 0, 0, 0, 0, pid)
        for i, (name, module, *_) in enumerate(RATES):
            self.map[128 + i * 256:128 + i * 256 + ROW.size] = ROW.pack(0, 0, 0, 0, 0, name.encode(),
                                                                       module.encode())
        struct.pack_into("=Q", self.map, 24, len(RATES))
        self.start, self.resets, self.stop = time.monotonic(), 0, True

    def update(self):
        s = time.monotonic() - self.start
        regions = regions_ns = gaps_ns = wait_ns = 0
        for i, (_, _, calls, wall, gap, wait) in enumerate(RATES):
            row = [int(calls * s), int(wall * s * 1e9), int(gap * s * 1e9), int(wait * s * 1e9)]
            struct.pack_into("=Qqqq", self.map, 128 + i * 256, *row)
            regions, regions_ns, gaps_ns, wait_ns = (regions + row[0], regions_ns + row[1],
                                                     gaps_ns + row[2], wait_ns + row[3])
        struct.pack_into("=QqqqQQ", self.map, 48, regions, regions_ns, gaps_ns, wait_ns, regions, self.resets)

    def reset(self):
        self.start, self.resets = time.monotonic(), self.resets + 1

    def write(self):
        while not self.stop:
            self.update()
            time.sleep(0.002)

    def close(self):
        self.map.close()
        os.close(self.fd)


def near(got, want, what):
    return check(abs(got - want) <= 0.1 * want, "top: %s %.2f within 10%% of %.2f" % (what, got, want))


def top_tables(out):
    """Each table of top's output: (header numbers, {name: row numbers})."""
    tables = []
    for line in out.splitlines():
        m = re.match(r"buddypool top: pid \d+, (\d+) threads, ([\d.]+) regions/s; in regions ([\d.]+)%, "
                     r"gaps ([\d.]+)%, barrier waits ([\d.]+)%", line)
        if m:
            tables.append(([float(g) for g in m.groups()], {}, line))
        elif tables and re.match(r"^\s+[\d.]+\s+[\d.]+%", line):
            cells = fields(line)
            tables[-1][1][cells[4]] = [float(c.rstrip("%")) for c in cells[:4]] + [cells[5]]
    return tables


def check_rates(table):
    head, rows, _ = table
    near(head[1], 250, "regions/s")
    near(head[2], 50, "in regions %")
    near(head[3], 7, "gaps %")
    near(head[4], 25, "barrier waits %")
    for (name, _, calls, wall, gap, wait), shown in zip(RATES, ("foo()+0x10", "bar+0x0")):
        row = rows.get(shown)
        if check(row is not None, "top: a row for %s (%s)" % (shown, list(rows))):
            near(row[0], calls, shown + " calls/s")
            near(row[1], wall * 100, shown + " wall%")
            near(row[2], gap * 100, shown + " gap%")
            near(row[3], wait * 100 / THREADS, shown + " barrier_wait%")


def watch_with_reset(cli, pid, live, rows=len(RATES)):
    """Runs `top --count 3` on the live file, resetting the profile as soon
    as the first table is out (so in the second table's interval). Returns
    top's output, status and stderr."""
    top = subprocess.Popen([cli, "top", str(pid), "--interval", "0.8", "--count", "3"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = [top.stdout.readline() for _ in range(rows + 2)]  # the header, the columns, the rows
    live.reset()
    out, err = top.communicate(timeout=60)
    return "".join(first) + out, top.returncode, err


def writing(live):
    """A thread that keeps the live file's counters growing."""
    live.stop = False
    writer = threading.Thread(target=live.write, daemon=True)
    writer.start()
    return writer


def check_top_rates(cli, pid, live):
    """Three tables, a profile reset before the second."""
    writer = writing(live)
    out, status, err = watch_with_reset(cli, pid, live)
    live.stop = True
    writer.join()
    tables = top_tables(out)
    check(status == 0 and len(tables) == 3, "top --count 3: three tables (%d: %r)" % (
        status, out[-500:] + err))
    check("\033[" not in out, "top: no screen clearing when stdout is not a terminal")
    if len(tables) == 3:
        check_rates(tables[0])
        check("the profile was reset" in tables[1][2] and
              all(v >= 0 for row in tables[1][1].values() for v in row[:4]) and
              tables[1][0][1] < 250, "top: after a reset, counting again from 0 (%s)" % tables[1][2])
        check_rates(tables[2])


def check_top_end(cli, child, live):
    """The watched process ends: top says so and exits 0; then the file
    it left is refused."""
    writer = writing(live)
    watcher = subprocess.Popen([cli, "top", str(child.pid), "--interval", "0.2"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    time.sleep(0.7)
    child.kill()
    child.wait()
    out, err = watcher.communicate(timeout=30)
    live.stop = True
    writer.join()
    ended = "buddypool top: process %d ended" % child.pid
    check(watcher.returncode == 0 and out.rstrip().endswith(ended) and len(top_tables(out)) >= 1,
          "top: the process ends, top says so, exit 0 (%r %r)" % (out[-200:], err))
    p = run([cli, "top", str(child.pid)])
    check(p.returncode == 1 and "process %d is not running" % child.pid in p.stderr,
          "top: a file left by a process that ended (%r)" % p.stderr)


def check_top_foreign(cli, live):
    """A file of another magic, for a process that runs (this one)."""
    live.map[:8] = b"NOTLIVE\0"
    os.rename(live.path, os.path.join(LIVE_DIR, "buddypool-%d" % os.getpid()))
    live.path = os.path.join(LIVE_DIR, "buddypool-%d" % os.getpid())
    p = run([cli, "top", str(os.getpid())])
    check(p.returncode == 1 and "is not a buddypool live-counter file" in p.stderr,
          "top: a file that is not a live-counter file (%r)" % p.stderr)


def check_top(cli):
    child = subprocess.Popen(["sleep", "60"])
    live = None
    try:
        p = run([cli, "top", str(child.pid)])
        check(p.returncode == 1 and p.stderr.strip() == (
            "buddypool top: no live profile for PID %d (%s/buddypool-%d): is it running with "
            "BUDDY_THREAD_POOL_PROFILE=1?" % (child.pid, LIVE_DIR, child.pid)),
            "top: a missing file (%r)" % p.stderr)
        p = run([cli, "top", "0"])
        check(p.returncode == 2 and "PID 0" in p.stderr, "top 0: exit 2 (%r)" % p.stderr)
        live = LiveFile(child.pid)
        check_top_rates(cli, child.pid, live)
        check_top_end(cli, child, live)
        check_top_foreign(cli, live)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if live is not None:
            live.stop = True
            live.close()
            os.unlink(live.path)


def main():
    cli, pie, nopie = sys.argv[1:4]
    tmp = tempfile.mkdtemp()
    chromium = shutil.which("chromium")
    try:
        check_text(cli)
        check_names(cli, tmp, pie, nopie)
        check(chromium is not None, "chromium is installed (make check installs it)")
        check_diff(cli, tmp, chromium)
        if chromium:
            check_html(cli, tmp, chromium)
        check_top(cli)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report("check-report")


sys.exit(main())
