"""profiles.py: reading a saved profile, naming its functions and call sites
offline, and the tables (text and HTML cells) and pages every report uses."""
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap


def fail(msg, status=2):
    print("buddypool " + msg, file=sys.stderr)
    sys.exit(status)




# ---- profiles -----------------------------------------------------------------

def load_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        fail("report: %s: %s" % (path, e.strerror), 1)
    except ValueError as e:
        fail("report: %s is not a %s (JSON: %s)" % (path, what, e), 1)


def load_profile(path):
    """The JSON profile at path, its fields checked as far as the report
    needs them to be there (the rest may be missing: an older profile)."""
    prof = load_json(path, "buddypool profile")
    try:
        prof["totals"]["span_ns"]
        for f in all_functions(prof):
            f["name"], f["calls"], f["wall_ns"]
    except (AttributeError, KeyError, TypeError):
        fail("report: %s is not a buddypool profile (no totals or functions)" % path, 1)
    return prof


def all_functions(prof):
    """The functions of the whole run's table and of every phase's."""
    return prof["functions"] + [f for ph in prof.get("phases", []) for f in ph["functions"]]


def by_wall(rows):
    """Functions or call sites, the most wall time first."""
    return sorted(rows, key=lambda r: -(r.get("wall_ns") or 0))


def share(part, whole):
    return 100.0 * part / whole if whole else 0.0


def ms_text(ns):
    """A time in ms; '-' where it was not measured (null)."""
    return "-" if ns is None else "%.3f" % (ns / 1e6)


def us_text(ns):
    """A time in us; '-' where there is none (null, or -1: no distribution)."""
    return "-" if ns is None or ns < 0 else "%.1f us" % (ns / 1e3)


def count_text(n):
    return "-" if n is None else str(n)


def pct_text(part, whole):
    return "-" if part is None or not whole else "%.1f%%" % share(part, whole)


# ---- names ------------------------------------------------------------------

OFFSET = re.compile(r"^(.*?)(\+0x[0-9a-fA-F]+)?$", re.S)


def note_missing(tool, what):
    print("buddypool: %s is not installed: %s" % (tool, what), file=sys.stderr)


def demangle(names):
    """{name: demangled} for the C++ names among `names`, a recorded
    `symbol+0xoffset` keeping its offset (c++filt turns gcc's outlined
    `_Z...._omp_fn.0` into `f(args) [clone ._omp_fn.0]`)."""
    parts = {n: OFFSET.match(n).groups("") for n in set(names)}
    mangled = sorted(n for n, (sym, _) in parts.items() if sym.startswith("_Z"))
    if not mangled:
        return {}
    if shutil.which("c++filt") is None:
        note_missing("c++filt (binutils)", "C++ names as recorded")
        return {}
    p = subprocess.run(["c++filt"], input="".join(parts[n][0] + "\n" for n in mangled),
                       capture_output=True, text=True)
    lines = p.stdout.splitlines()
    if p.returncode != 0 or len(lines) != len(mangled):
        return {}
    return {n: sym + parts[n][1] for n, sym in zip(mangled, lines)}


def elf_is_exec(path):
    """Whether the ELF file at path is a position-dependent executable
    (ET_EXEC: its addresses are absolute, not offsets from a base)."""
    try:
        with open(path, "rb") as f:
            head = f.read(18)
    except OSError:
        return False
    if len(head) < 18 or head[:4] != b"\x7fELF":
        return False
    return int.from_bytes(head[16:18], "little" if head[5] == 1 else "big") == 2


def addr2line(module, items):
    """Names each (entry, back) of one module from its symbols and debug
    information: entry["display"] = "function (file:line)". `back` is taken
    off the address: 1 for a return address, so that the line is the call's."""
    key = "address" if elf_is_exec(module) else "module_offset"
    todo = []
    for entry, back in items:
        try:
            todo.append((entry, back, "0x%x" % (int(entry[key], 16) - back)))
        except (KeyError, TypeError, ValueError):
            pass
    if not todo:
        return
    p = subprocess.run(["eu-addr2line", "-C", "-f", "-e", module] + [a for _, _, a in todo],
                       capture_output=True, text=True)
    lines = p.stdout.splitlines()
    if p.returncode != 0 or len(lines) != 2 * len(todo):
        return
    for k, (entry, back, _) in enumerate(todo):
        func, where = lines[2 * k], lines[2 * k + 1]
        if func and func != "??":
            # a frame without a line keeps its recorded address, so that two
            # call sites in one function stay apart
            where = entry.get("name", "?") if where.startswith("??") and back else where
            entry["display"] = func + ("" if where.startswith("??") else " (%s)" % where)


def resolve_names(prof):
    """Sets "display" on every function and call-site frame of the profile:
    the name from the module's ELF symbol table, and file:line from its debug
    information when present, by elfutils' eu-addr2line (the library can name
    only exported functions: outlined ones read module+0xoffset), C++ names
    demangled; else the recorded name, demangled. The call sites' source
    locations get their function demangled. A note on stderr when a tool is
    missing."""
    fns = all_functions(prof)
    sites = [s for f in fns for s in f.get("call_sites") or []]
    frames = [fr for s in sites for fr in s.get("frames") or []]
    locations = [s["location"] for s in sites if s.get("location")]
    names = demangle([e.get("name", "?") for e in fns + frames] +
                     [str(loc.get("function", "")) for loc in locations])
    for e in fns + frames:
        e["display"] = names.get(e.get("name", "?"), e.get("name", "?"))
    for loc in locations:
        loc["function"] = names.get(str(loc.get("function", "")), loc.get("function", "?"))
    if shutil.which("eu-addr2line") is None:
        note_missing("eu-addr2line (elfutils)", "names as recorded")
        return
    by_module = {}
    for entry, back in [(f, 0) for f in fns] + [(fr, 1) for fr in frames]:
        module = entry.get("module")
        if module and os.path.isfile(module):
            by_module.setdefault(module, []).append((entry, back))
    for module, items in by_module.items():
        addr2line(module, items)


def site_name(site):
    """Where a call site forked from: the source location clang recorded,
    then the names of its frames, innermost first (one source location is
    often forked from several places: a helper inlined into its callers)."""
    if site.get("other"):
        return "other sites"
    frames = " < ".join(fr.get("display", fr.get("name", "?")) for fr in site.get("frames") or [])
    loc = site.get("location")
    if loc:
        where = "%s:%s %s" % (loc.get("file", "?"), loc.get("line", "?"), loc.get("function", "?"))
        return where + (": " + frames if frames else "")
    return frames or "?"


def full_name(f):
    """What hovering over a function's name shows: every name it has."""
    parts = [f.get("display", f["name"]), f["name"], f.get("module") or ""]
    return "\n".join(dict.fromkeys(p for p in parts if p))


# ---- tables ----------------------------------------------------------------

class Table:
    """A table of a report, rendered as text or HTML: right-aligned cells
    under `columns` ((name, width in characters) pairs), then a left-aligned
    label (a function's name), and the module's file name with `modules`.
    A row's kind: "fn" (a function), "site" (a call site under it), "row"
    (any other), "note" (a line of text)."""

    def __init__(self, tid, columns, label="function", modules=False):
        self.tid, self.columns, self.label, self.modules = tid, columns, label, modules
        self.rows = []

    def add(self, cells, label, module="", kind="fn", title=None, swatch=None):
        self.rows.append({"cells": cells, "label": label, "module": module, "kind": kind,
                          "title": title or label, "swatch": swatch})

    def note(self, text):
        self.add({}, text, kind="note")

    def _line(self, cells, label, module):
        nums = " ".join(cells.get(c, "").rjust(w) for c, w in self.columns)
        return ("  %s  %s  %s" % (nums, label, module)).rstrip()

    def text(self):
        out = [self._line({c: c for c, _ in self.columns}, self.label,
                          "module" if self.modules else "")]
        return out + ["  " + r["label"] if r["kind"] == "note" else
                      self._line(r["cells"], r["label"], r["module"]) for r in self.rows]

    def _html_row(self, r):
        if r["kind"] == "note":
            return "<tr class=note><td colspan=%d>%s</td></tr>" % (
                len(self.columns) + 1 + self.modules, html.escape(r["label"]))
        cells = "".join("<td>%s</td>" % html.escape(r["cells"].get(c, "")) for c, _ in self.columns)
        swatch = "<span class=sw style='background:%s'></span>" % r["swatch"] if r["swatch"] else ""
        label = "<td class=name title=\"%s\">%s%s</td>" % (html.escape(r["title"]), swatch,
                                                          html.escape(r["label"]))
        module = "<td class=module>%s</td>" % html.escape(r["module"]) if self.modules else ""
        return "<tr class=%s>%s%s%s</tr>" % (r["kind"], cells, label, module)

    def html(self):
        head = "".join("<th>%s</th>" % html.escape(c) for c, _ in self.columns)
        head += "<th class=name>%s</th>" % html.escape(self.label)
        head += "<th class=module>module</th>" if self.modules else ""
        return "<table id='%s'><thead><tr>%s</tr></thead><tbody>%s</tbody></table>" % (
            self.tid, head, "".join(self._html_row(r) for r in self.rows))


# The function table's columns: the JSON's fields without _ns (times in ms),
# and wall% and gap% (wall and gap_before as shares of the span).
COLUMNS = (("calls", 9), ("wall", 11), ("wall%", 6), ("gap_before", 11), ("gap%", 6),
           ("gap_after", 11), ("barrier_wait", 13), ("barrier_wait_t0", 16), ("barriers", 9))
SITE_COLUMNS = ("calls", "wall", "gap_before", "barrier_wait")


def function_cells(f, span):
    return {"calls": count_text(f.get("calls")), "wall": ms_text(f.get("wall_ns")),
            "wall%": pct_text(f.get("wall_ns"), span), "gap_before": ms_text(f.get("gap_before_ns")),
            "gap%": pct_text(f.get("gap_before_ns"), span), "gap_after": ms_text(f.get("gap_after_ns")),
            "barrier_wait": ms_text(f.get("barrier_wait_ns")),
            "barrier_wait_t0": ms_text(f.get("barrier_wait_t0_ns")),
            "barriers": count_text(f.get("barriers"))}


def add_sites(table, f, limit):
    """The function's call sites (the `limit` with the most wall time) as
    rows under it."""
    sites = by_wall(f.get("call_sites") or [])
    for s in sites[:limit]:
        cells = function_cells(s, None)
        table.add({c: cells[c] for c in SITE_COLUMNS}, "from " + site_name(s), kind="site")
    if limit > 0 and len(sites) > limit:
        table.note("            ... %d more call sites (--sites)" % (len(sites) - limit))


def functions_table(tid, t, fns, opts):
    """The table of one profile table's functions, call sites under each."""
    table = Table(tid, COLUMNS, modules=True)
    rows = by_wall(fns)
    for f in rows[:opts.top]:
        table.add(function_cells(f, t.get("span_ns")), f.get("display", f["name"]),
                  os.path.basename(f.get("module") or ""), title=full_name(f), swatch=color(f["name"]))
        add_sites(table, f, opts.sites)
    if len(rows) > opts.top:
        table.note("... %d more rows (--top)" % (len(rows) - opts.top))
    return table


STEP_COLUMNS = (("step", 12), ("calls", 9), ("barrier_wait", 13), ("work", 11),
                ("last_arrival", 24))


def last_arrival_text(step):
    """The thread that arrived last in most of the step's episodes (the
    lowest of a tie), and in how many; '-' where it was not tracked."""
    counts = step.get("last_arrival")
    if not counts or max(counts) == 0:
        return "-"
    k = counts.index(max(counts))
    return "thread %d (%d of %s)" % (k, counts[k], count_text(step.get("calls")))


def steps_table(fns, n=10):
    """The n steps of all functions with the most barrier waiting."""
    steps = [(s, f) for f in fns for s in f.get("steps") or []]
    table = Table("steps", STEP_COLUMNS)
    for s, f in sorted(steps, key=lambda sf: -(sf[0].get("barrier_wait_ns") or 0))[:n]:
        index = count_text(s.get("index"))
        table.add({"step": "rest (>= %s)" % index if s.get("rest") else index,
                   "calls": count_text(s.get("calls")), "barrier_wait": ms_text(s.get("barrier_wait_ns")),
                   "work": ms_text(s.get("work_ns")), "last_arrival": last_arrival_text(s)},
                  f.get("display", f["name"]), title=full_name(f), swatch=color(f["name"]))
    return table


# Per thread k of a function: (column, its text from per_thread[k]).
THREAD_FIELDS = (("barrier_wait", lambda p: ms_text(p.get("barrier_wait_ns"))),
                 ("last_at_join", lambda p: count_text(p.get("last_at_join"))),
                 ("iterations", lambda p: count_text(p.get("iterations"))))


def quantiles_text(f):
    return "wall_p50 %s  wall_p99 %s" % (us_text(f.get("wall_p50_ns")), us_text(f.get("wall_p99_ns")))


def thread_lines(fns, top, per_line=8):
    """The per-thread section of the text report: per function its wall time
    quantiles, then per thread (`per_line` threads to a line) its figures."""
    out = ["", "  per function: wall_p50 / wall_p99, and per thread (times in ms): barrier_wait",
           "  (the join's included), last_at_join (regions in which it reached the join last),",
           "  iterations (loop iterations it ran)"]
    for f in by_wall(fns)[:top]:
        out.append("  %s  %s" % (f.get("display", f["name"]), quantiles_text(f)))
        per_thread = f.get("per_thread") or []
        for lo in range(0, len(per_thread), per_line):
            chunk = per_thread[lo:lo + per_line]
            out.append("      %-14s" % "thread" + "".join(" %11d" % k for k in range(lo, lo + len(chunk))))
            for name, text in THREAD_FIELDS:
                out.append("      %-14s" % name + "".join(" %11s" % text(p) for p in chunk))
    return out


def threads_table(fns, top):
    """The per-thread section as one HTML table: a row per function, then a
    row per thread."""
    table = Table("per-thread", (("thread", 7),) + tuple((name, 12) for name, _ in THREAD_FIELDS))
    for f in by_wall(fns)[:top]:
        table.add({}, "%s: %s" % (f.get("display", f["name"]), quantiles_text(f)), title=full_name(f),
                  swatch=color(f["name"]))
        for k, p in enumerate(f.get("per_thread") or []):
            cells = {name: text(p) for name, text in THREAD_FIELDS}
            cells["thread"] = str(k)
            table.add(cells, "", kind="row")
    return table


WAIT_FIELDS = ("spin_ns", "sleep_ns", "sleeps", "wakes")


def waits_table(waits):
    """How each thread waited (entry 0: the threads that fork regions)."""
    table = Table("waits", (("spin", 11), ("sleep", 11), ("sleeps", 9), ("wakes", 9)), label="thread")
    total = {k: sum(w.get(k) or 0 for w in waits) for k in WAIT_FIELDS}
    for k, w in enumerate(waits + [total]):
        label = "all" if k == len(waits) else "0 (the threads that fork)" if k == 0 else "worker %d" % k
        table.add({"spin": ms_text(w.get("spin_ns")), "sleep": ms_text(w.get("sleep_ns")),
                   "sleeps": count_text(w.get("sleeps")), "wakes": count_text(w.get("wakes"))},
                  label, kind="row")
    return table


def totals_rows(t, waits=None):
    """The totals as (label, value) pairs, as the exit report gives them;
    with `waits` (the whole run) how the threads waited."""
    span = t.get("span_ns")
    rows = [("span", "%12s ms" % ms_text(span)),
            ("in regions", "%12s ms  %6s of span" % (ms_text(t.get("regions_ns")),
                                                    pct_text(t.get("regions_ns"), span))),
            ("gaps", "%12s ms  %6s of span" % (ms_text(t.get("gaps_ns")), pct_text(t.get("gaps_ns"), span))),
            ("barrier waits", "%12s ms  (all threads)" % ms_text(t.get("barrier_wait_ns")))]
    if waits is not None:
        w = {k: sum(x.get(k) or 0 for x in waits) for k in WAIT_FIELDS}
        rows.append(("waiting", "%12s ms spinning, %s ms asleep, %d sleeps, %d wakes (all threads)" % (
            ms_text(w["spin_ns"]), ms_text(w["sleep_ns"]), w["sleeps"], w["wakes"])))
    if t.get("woken"):
        rows.append(("woken to start", "%12d times: fork to start mean %s, max %s" % (
            t["woken"], us_text(t.get("wake_mean_ns")), us_text(t.get("wake_max_ns")))))
    return rows


def table_title(phase, threads, t, nrows):
    return "buddypool profile%s: %s threads, %s regions, %s barriers, %d rows" % (
        "" if phase is None else ", phase '%s'" % phase, count_text(threads),
        count_text(t.get("regions")), count_text(t.get("barriers")), nrows)


def about(prof, path):
    """Which process wrote the profile, and whether it is complete."""
    text = path + "".join(", %s %s" % (k, prof[k]) for k in ("pid", "rank", "host", "run")
                          if k in prof)
    if prof.get("complete") is False:
        text += " (incomplete: written on the profile signal while the process ran on)"
    if prof.get("ended_by"):
        text += " (written as the process was ending by %s)" % prof["ended_by"]
    if prof.get("live") == "running":
        text += " (live counters of a running process: the whole run's table so far)"
    elif prof.get("live"):
        text += (" (live counters left by a process that ended without writing its profile: "
                 "the whole run's table as it last updated it)")
    return text


LEGEND = (
    ("calls", "regions run; wall: fork to join on thread 0; wall%, gap%: wall and gap_before "
              "as shares of the span; all times in ms."),
    ("gap_before, gap_after", "time between regions that ends at / starts after a call of the "
     "function: the same gaps seen from both sides, not to be added. A gap is all wall time "
     "between two regions: serial work of the caller, or time spent outside the model."),
    ("barrier_wait", "time all threads waited in the function's barriers, from arrival to "
     "release; barrier_wait_t0: thread 0 alone; barriers: barrier episodes (explicit barriers, "
     "reductions and the join that ends each region), all threads arriving once counting one."),
    ("from", "a call site: where the regions were forked from, the source location when the "
     "compiler recorded one, else the callers' frames, innermost first (a < b: a called from b)."),
    ("step", "the k-th barrier episode of a function's regions (rest: all from the bound on); "
     "work: from the end of the step before (the fork, for step 0) to the last thread's "
     "arrival; last_arrival: the thread that arrived last most often."),
    ("-", "not measured (the iterations of a gcc schedule(static) loop, which never tells the "
          "runtime)."))


def legend_lines():
    out = [""]
    for term, text in LEGEND:
        out += textwrap.wrap("%s: %s" % (term, text), 92, initial_indent="  ", subsequent_indent="    ")
    return out



# ---- pages --------------------------------------------------------------------

def color(name):
    """A hue of its own for each function name (stable across runs)."""
    h = int(hashlib.md5(name.encode()).hexdigest()[:8], 16)
    return "hsl(%d, %d%%, %d%%)" % (h % 360, 45 + (h >> 9) % 30, 45 + (h >> 14) % 20)


STYLE = ("body{font-family:sans-serif;margin:20px} table{border-collapse:collapse;margin-bottom:16px}"
         "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;vertical-align:top}"
         ".name,.module,#totals td{text-align:left}"
         "td.name{min-width:18em;max-width:42em;overflow-wrap:anywhere}"
         "tr.site td{color:#555;font-size:90%} tr.site td.name{padding-left:24px}"
         "tr.note td{text-align:left;color:#777} p.caption{max-width:1100px}"
         ".sw{display:inline-block;width:10px;height:10px;margin-right:6px}")


def page(title, body):
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title><style>%s</style>"
            "</head><body>%s</body></html>\n" % (html.escape(title), STYLE, "\n".join(body)))


def write_page(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        fail("report: --html %s: %s" % (path, e.strerror), 1)


def at_least(cmd, what, value, least):
    if value is not None and value < least:
        fail("%s: %s %d: must be %d or more" % (cmd, what, value, least))
