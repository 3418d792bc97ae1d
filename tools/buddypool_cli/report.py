"""report.py: `buddypool report`: a saved profile as text or as an HTML page,
with the SVG timeline of one step."""
import argparse
import glob
import html
import re
import statistics

from .diff import report_diff
from .multi import report_multi
from .top import live_path, process_alive, read_live
from .profiles import (LEGEND, about, at_least, color, count_text, fail, functions_table,
    legend_lines, load_json, load_profile, page, resolve_names, steps_table, table_title,
    thread_lines, threads_table, totals_rows, waits_table, write_page)


def table_lines(title, t, fns, opts, waits=None):
    """One table of the text report: its title, totals and functions."""
    out = ["", title] + ["  %-15s%s" % row for row in totals_rows(t, waits)]
    return out + ["", "  times in ms; wall% and gap% are shares of the span"] + \
        functions_table("", t, fns, opts).text()


def report_text(prof, path, opts):
    out = [about(prof, path)]
    out += table_lines(table_title(None, prof.get("threads"), prof["totals"], len(prof["functions"])),
                       prof["totals"], prof["functions"], opts, prof.get("waits"))
    out += thread_lines(prof["functions"], opts.top)
    steps = steps_table(prof["functions"])
    if steps.rows:
        out += ["", "  the steps with the most waiting (times in ms)"] + steps.text()
    for ph in prof.get("phases", []):
        out += table_lines(table_title(ph["name"], ph.get("threads"), ph["totals"], len(ph["functions"])),
                           ph["totals"], ph["functions"], opts)
    return out + legend_lines()




# ---- report: HTML -----------------------------------------------------------

def totals_html(tid, t, waits=None):
    rows = totals_rows(t, waits) + [("regions", count_text(t.get("regions"))),
                                    ("barriers", count_text(t.get("barriers")))]
    return "<table id='%s'>%s</table>" % (tid, "".join(
        "<tr><th>%s</th><td>%s</td></tr>" % (html.escape(k), html.escape(v.strip())) for k, v in rows))


def legend_html():
    return "<div class=legend>%s</div>" % "".join(
        "<p><b>%s</b>: %s</p>" % (html.escape(term), html.escape(text)) for term, text in LEGEND)


def report_html(prof, path, trace, opts):
    t, fns = prof["totals"], prof["functions"]
    title = table_title(None, prof.get("threads"), t, len(fns))
    body = ["<h1>buddypool profile</h1>",
            "<p>%s; %s</p>" % (html.escape(about(prof, path)), html.escape(title)),
            totals_html("totals", t, prof.get("waits"))]
    if prof.get("waits"):
        body += ["<h2>Waiting, per thread</h2><p class=note>times in ms</p>",
                 waits_table(prof["waits"]).html()]
    body.append("<h2>Timeline</h2>")
    if trace is None:
        body.append("<p id=timeline-missing>No trace given: run with <code>--trace</code> and pass it "
                    "to <code>buddypool report --trace</code> for a timeline.</p>")
    else:
        body.append(svg_timeline(trace, {int(f["address"], 16): f.get("display", f["name"])
                                         for f in fns if "address" in f}))
    body += ["<h2>Functions</h2><p class=note>times in ms; wall% and gap% are shares of the span; "
             "the call sites under each function</p>", functions_table("functions", t, fns, opts).html()]
    steps = steps_table(fns)
    if steps.rows:
        body += ["<h2>The steps with the most waiting</h2><p class=note>times in ms</p>", steps.html()]
    body += ["<h2>Per thread</h2><p class=note>times in ms</p>", threads_table(fns, opts.top).html()]
    for i, ph in enumerate(prof.get("phases", [])):
        body += ["<h2>Phase %s</h2><p>%s</p>" % (html.escape(ph["name"]), html.escape(table_title(
                     ph["name"], ph.get("threads"), ph["totals"], len(ph["functions"])))),
                 totals_html("phase-%d-totals" % i, ph["totals"]),
                 functions_table("phase-%d" % i, ph["totals"], ph["functions"], opts).html()]
    return page("buddypool profile", body + ["<h2>Legend</h2>", legend_html()])


# ---- report: the timeline -----------------------------------------------------

def natural(text):
    """A sort key that puts buddypool-2 before buddypool-10."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def trace_parts(trace, display):
    """The trace's lanes ([(tid, name)], thread 0's first), slices (regions,
    named by the profile's names of their addresses, and waits) and phase
    marks, by time."""
    events = [e for e in trace.get("traceEvents", []) if isinstance(e, dict)]
    meta = {}
    for e in events:
        if e.get("ph") == "M" and isinstance(e.get("args"), dict):
            meta.setdefault(e.get("tid"), {}).update(e["args"])
    slices = []
    for e in events:
        if e.get("ph") == "X" and is_number(e.get("ts")) and is_number(e.get("dur")) and "name" in e:
            name = str(e["name"])
            try:
                name = display.get(int(e.get("args", {}).get("address", "x"), 16), name)
            except (AttributeError, TypeError, ValueError):
                pass
            slices.append({"tid": e.get("tid"), "ts": e["ts"], "dur": e["dur"], "cat": e.get("cat"),
                           "name": name})
    marks = sorted(({"name": str(e.get("name")), "ts": e["ts"]} for e in events
                    if e.get("cat") == "phase" and e.get("ph") == "i" and is_number(e.get("ts"))),
                   key=lambda m: m["ts"])
    names = {tid: str(meta.get(tid, {}).get("name", tid)) for tid in {s["tid"] for s in slices}}
    lanes = sorted(names.items(), key=lambda tn: (not tn[1].startswith("thread 0"),
                                                  meta.get(tn[0], {}).get("sort_index", 0), natural(tn[1])))
    return lanes, sorted(slices, key=lambda s: s["ts"]), marks


def phase_step(marks):
    """The step between the last two marks of the phase marked most often
    (of a tie, the one marked last), if some phase is marked twice."""
    counts = {}
    for m in marks:
        counts[m["name"]] = counts.get(m["name"], 0) + 1
    last = {m["name"]: k for k, m in enumerate(marks)}
    name = max(counts, key=lambda n: (counts[n], last[n]), default=None)
    if name is None or counts[name] < 2:
        return None
    lo, hi = [m["ts"] for m in marks if m["name"] == name][-2:]
    if hi <= lo:
        return None
    return {"lo": lo, "hi": hi, "rule": "phase",
            "text": "One step: from the second-to-last to the last of the %d marks of phase '%s'" %
                    (counts[name], name)}


def z_function(seq):
    """z[i]: the length of the longest common prefix of seq and seq[i:]."""
    n = len(seq)
    z = [0] * n
    lo = hi = 0
    for i in range(1, n):
        if i < hi:
            z[i] = min(hi - i, z[i - lo])
        while i + z[i] < n and seq[z[i]] == seq[i + z[i]]:
            z[i] += 1
        if i + z[i] > hi:
            lo, hi = i, i + z[i]
    if n:
        z[0] = n
    return z


def period_step(t0):
    """One period of thread 0's regions t0 (by time): the step of a loop.

    The period is the p for which the end of the sequence of region names
    repeats the longest: the longest tail with s[i] == s[i - p] all along,
    which must hold two periods at least, the smallest p of a tie. A decode
    loop of 28 layers of 12 regions and a head region repeats every 337
    regions all through its tokens, a layer (12) only back to the last head;
    a run that ends in the middle of a token repeats the same, which the
    last 2p regions alone would not. Within that tail the step begins after
    the longest gap that recurs once a period (the host's work between two
    tokens: the median of each position's gaps; of a tie, the latest), and
    is the last whole period that begins there. None if nothing repeats."""
    codes = {}
    seq = [codes.setdefault(e["name"], len(codes)) for e in t0]
    n = len(seq)
    z = z_function(seq[::-1])  # z[p]: how far back from the end s[i] == s[i - p]
    best = None
    for p in range(1, n // 2 + 1):
        if z[p] >= p and (best is None or z[p] + p > best[1]):
            best = (p, z[p] + p)
    if best is None:
        return None
    p, tail = best
    start = n - tail
    gaps = {}
    for i in range(max(start, 1), n):
        gaps.setdefault((i - start) % p, []).append(t0[i]["ts"] - t0[i - 1]["ts"] - t0[i - 1]["dur"])
    first = {phase: start + phase + (n - start - phase - p) // p * p for phase in range(p)}
    phase = max(range(p), key=lambda k: (statistics.median(gaps.get(k, [0])), first[k]))
    q = first[phase]
    return {"lo": t0[q]["ts"], "hi": t0[q + p - 1]["ts"] + t0[q + p - 1]["dur"], "rule": "period",
            "text": "One step: thread 0's regions repeat every %d regions (over its last %d), "
                    "from %s to %s" % (p, tail, t0[q]["name"], t0[q + p - 1]["name"])}


def last_step(t0, n=50):
    """Thread 0's last n regions, where nothing repeats."""
    return {"lo": t0[-n:][0]["ts"], "hi": t0[-1]["ts"] + t0[-1]["dur"], "rule": "none",
            "text": "No repeating step found: thread 0's last %d regions" % min(n, len(t0))}


def pick_step(t0, marks):
    """The time window of the timeline's one step, a decode token: between
    the last two phase marks of the phase marked most often, when one is
    marked twice (phase_step); else one period of thread 0's regions
    (period_step); else its last regions. With its rule and a caption."""
    return phase_step(marks) or period_step(t0) or last_step(t0)


def lane_geometry(nlanes, plot=480):
    """The lanes' height and the labels' font size: the lanes share `plot`
    pixels, each 12 to 34 high (many threads: a taller picture), the labels
    no taller than a lane, so that they never overlap."""
    lane = max(12, min(34, plot // max(nlanes, 1)))
    return lane, min(11, lane - 2)


def svg_lanes(lanes, lane, font, top, left, width):
    """The lanes' labels (cut to fit, the full name on hover) and lines."""
    fit = int((left - 8) / (0.6 * font))
    out = []
    for k, (_, name) in enumerate(lanes):
        y = top + lane * k
        label = name if len(name) <= fit else name[:fit - 1] + "\u2026"
        out.append("<text class=lane x='4' y='%.1f' font-size='%d'><title>%s</title>%s</text>" % (
            y + lane / 2 + font * 0.35, font, html.escape(name), html.escape(label)))
        out.append("<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#ddd'/>" % (left, y + lane, width - 10,
                                                                           y + lane))
    return out


def svg_slice(e, k, x, w, lane, top):
    """One slice's rectangle on lane k: a region in its color, a wait in gray
    in the lane's lower half."""
    y = top + lane * k
    title = "<title>%s: %.3f us</title>" % (html.escape(e["name"]), e["dur"])
    if e["cat"] == "region":
        return ("<rect class=region x='%.2f' y='%d' width='%.2f' height='%d' fill='%s' stroke='white' "
                "stroke-width='0.6'>%s</rect>" % (x, y + 1, w, max(lane - 3, 1), color(e["name"]), title))
    return ("<rect class=wait x='%.2f' y='%d' width='%.2f' height='%d' fill='#555' opacity='0.55'>%s"
            "</rect>" % (x, y + lane // 2, w, max(lane // 2 - 2, 1), title))


def svg_timeline(trace, display):
    """The timeline of one step (pick_step) as an SVG picture with its
    caption. display: the resolved name of each function address."""
    lanes, slices, marks = trace_parts(trace, display)
    thread0 = {tid for tid, name in lanes if name.startswith("thread 0")}
    t0 = [e for e in slices if e["cat"] == "region" and e["tid"] in thread0]
    if not t0:
        return "<p id=timeline-missing>The trace has no regions of thread 0.</p>"
    step = pick_step(t0, marks)
    lo, hi = step["lo"], step["hi"]
    shown = [e for e in slices if lo - 1e-3 <= e["ts"] and e["ts"] + e["dur"] <= hi + 1e-3]
    lane, font = lane_geometry(len(lanes))
    width, left, top = 1100, 150, 20
    height = top + lane * len(lanes) + 24
    scale = (width - left - 10) / max(hi - lo, 1e-9)
    row = {tid: k for k, (tid, _) in enumerate(lanes)}
    out = ["<svg id=timeline xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
           "font-family='sans-serif' font-size='11'>" % (width, height),
           "<rect width='100%' height='100%' fill='white'/>"] + svg_lanes(lanes, lane, font, top, left, width)
    for e in sorted(shown, key=lambda e: e["cat"] != "region"):
        out.append(svg_slice(e, row[e["tid"]], left + (e["ts"] - lo) * scale, max(e["dur"] * scale, 0.5),
                             lane, top))
    for m in marks:
        if lo <= m["ts"] <= hi:
            x = left + (m["ts"] - lo) * scale
            out.append("<line class=mark x1='%.2f' y1='%d' x2='%.2f' y2='%d' stroke='#c00' "
                       "stroke-dasharray='3,2'><title>phase %s</title></line>" % (
                           x, top, x, top + lane * len(lanes), html.escape(m["name"])))
    for i in range(6):
        out.append("<text x='%.1f' y='%d' text-anchor='%s' fill='#444'>%.0f us</text>" % (
            left + (width - left - 10) * i / 5, height - 4, "end" if i == 5 else "middle", (hi - lo) * i / 5))
    out.append("</svg>")
    regions = sum(1 for e in shown if e["cat"] == "region" and e["tid"] in thread0)
    caption = "%s (%.0f us, %d regions on thread 0, %d slices on %d threads); regions in color, " \
              "waits in gray, phase marks dashed (hover for names and times)." % (
                  step["text"], hi - lo, regions, len(shown), len(lanes))
    return "<p id=timeline-caption class=caption data-rule='%s' data-regions='%d'>%s</p>%s" % (
        step["rule"], regions, html.escape(caption), "\n".join(out))



def load_live(what):
    """A process's live counters (a /dev/shm/buddypool-PID file, or a PID)
    as a profile: its whole-run table, as the process last updated it (one
    that ended by SIGKILL left them behind)."""
    path = live_path(int(what)) if what.isdigit() else what
    try:
        live = read_live(path)
    except OSError as e:
        fail("report: %s: %s" % (path, e.strerror), 1)
    except ValueError as e:
        fail("report: %s" % e, 1)
    if live is None:
        fail("report: %s: no such live-counter file" % path, 1)
    tot = {k: live[k] for k in ("regions_ns", "gaps_ns", "barrier_wait_ns", "regions", "barriers")}
    tot["span_ns"] = tot["regions_ns"] + tot["gaps_ns"]
    fns = [{"name": r["name"], "module": r["module"], "calls": r["calls"], "wall_ns": r["wall_ns"],
            "gap_before_ns": r["gap_before_ns"], "barrier_wait_ns": r["barrier_wait_ns"],
            "barriers": r["barriers"]} for r in live["functions"] if r["calls"] > 0]
    return {"pid": live["pid"], "live": "running" if process_alive(live["pid"]) else "ended",
            "threads": live["threads"], "totals": tot, "functions": fns}


def expand(names):
    """The profiles named: files, or globs (quoted from the shell) that name
    some, in order, each file once."""
    out = []
    for name in names:
        found = sorted(glob.glob(name)) if glob.has_magic(name) else [name]
        if not found:
            fail("report: %s: no file matches" % name, 1)
        out += [f for f in found if f not in out]
    return out


def cmd_report(argv):
    ap = argparse.ArgumentParser(prog="buddypool report")
    ap.add_argument("profile", nargs="*")
    ap.add_argument("--diff", nargs=2, metavar=("BASE", "NEW"))
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--sites", type=int, default=5)
    ap.add_argument("--html")
    ap.add_argument("--trace")
    ap.add_argument("--live", action="store_true")
    opts = ap.parse_args(argv)
    opts.profile = expand(opts.profile) or None
    if (opts.profile is None) == (opts.diff is None):
        fail("report: give PROFILE.json, or --diff BASE.json NEW.json (see buddypool --help)")
    if opts.live and (opts.diff or opts.trace or len(opts.profile or []) > 1):
        fail("report: --live reads one process's live counters: no --diff, --trace or other "
             "profiles with it")
    if opts.profile and len(opts.profile) > 1:
        if opts.trace:
            fail("report: --trace draws one profile's timeline, not several processes'")
        report_multi(opts.profile, opts)
        return
    if opts.profile:
        opts.profile = opts.profile[0]
    at_least("report", "--top", opts.top, 1)
    at_least("report", "--sites", opts.sites, 0)
    if opts.diff:
        if opts.trace:
            fail("report: --trace draws one profile's timeline, not a --diff's")
        report_diff(opts.diff[0], opts.diff[1], opts)
        return
    if opts.trace and not opts.html:
        fail("report: --trace draws the HTML page's timeline: give --html too")
    prof = load_live(opts.profile) if opts.live else load_profile(opts.profile)
    trace = load_json(opts.trace, "trace-event file") if opts.trace else None
    if trace is not None and not (isinstance(trace, dict) and isinstance(trace.get("traceEvents"), list)):
        fail("report: %s is not a trace-event file (no traceEvents)" % opts.trace, 1)
    resolve_names(prof)
    if opts.html:
        write_page(opts.html, report_html(prof, opts.profile, trace, opts))
    else:
        print("\n".join(report_text(prof, opts.profile, opts)))
