"""diff.py: `buddypool report --diff`: two profiles lined up by function."""
import html
import os

from .profiles import (Table, about, color, count_text, full_name, load_profile, ms_text, page,
    resolve_names, share, write_page)


DIFF_FIELDS = ("calls", "wall_ns", "gap_before_ns", "gap_after_ns", "barrier_wait_ns", "barriers")
DIFF_TOTALS = (("span", "span_ns"), ("in regions", "regions_ns"), ("gaps", "gaps_ns"),
               ("barrier waits", "barrier_wait_ns"), ("regions", "regions"), ("barriers", "barriers"))
DIFF_TOTAL_COLUMNS = (("base", 12), ("new", 12), ("delta", 12), ("change", 8))
DIFF_COLUMNS = (("calls", 21), ("wall_base", 11), ("wall_new", 11), ("wall_delta", 11),
                ("wall_ratio", 11), ("gap_before_delta", 17), ("barrier_wait_delta", 19))


def field(f, key):
    """A figure of a row that may be missing (a row of one profile only): 0."""
    return (f or {}).get(key) or 0


def delta_text(delta, time=True):
    return "%+.3f" % (delta / 1e6) if time else "%+d" % delta


def totals_diff_table(tid, base, new):
    table = Table(tid, DIFF_TOTAL_COLUMNS, label="total")
    for label, key in DIFF_TOTALS:
        b, n = field(base, key), field(new, key)
        text = ms_text if key.endswith("_ns") else count_text
        table.add({"base": text(b), "new": text(n), "delta": delta_text(n - b, key.endswith("_ns")),
                   "change": "%+.1f%%" % share(n - b, b) if b else "-"},
                  label + (" (ms)" if key.endswith("_ns") else ""), kind="row")
    return table


def rows_by_name(fns):
    """{recorded name: function}; functions of one name (in two modules)
    added up."""
    rows = {}
    for f in fns:
        if f["name"] in rows:
            rows[f["name"]] = dict(rows[f["name"]], **{k: field(rows[f["name"]], k) + field(f, k)
                                                        for k in DIFF_FIELDS})
        else:
            rows[f["name"]] = f
    return rows


def diff_cells(b, n):
    """The cells of one row of the diff: b, n the base's and the new
    profile's function (None: only in the other)."""
    def side(f, key, text):
        return "-" if f is None else text(f.get(key))
    wall_b, wall_n = field(b, "wall_ns"), field(n, "wall_ns")
    return {"calls": "%s -> %s" % (side(b, "calls", count_text), side(n, "calls", count_text)),
            "wall_base": side(b, "wall_ns", ms_text), "wall_new": side(n, "wall_ns", ms_text),
            "wall_delta": delta_text(wall_n - wall_b),
            "wall_ratio": "%.2fx" % (wall_n / wall_b) if b is not None and n is not None and wall_b
                          else "-",
            "gap_before_delta": delta_text(field(n, "gap_before_ns") - field(b, "gap_before_ns")),
            "barrier_wait_delta": delta_text(field(n, "barrier_wait_ns") - field(b, "barrier_wait_ns"))}


def rows_diff_table(tid, base_fns, new_fns, top):
    """The functions of both profiles lined up by name, the largest change
    of wall time first."""
    base, new = rows_by_name(base_fns), rows_by_name(new_fns)
    pairs = [(base.get(k), new.get(k)) for k in list(base) + [k for k in new if k not in base]]
    pairs.sort(key=lambda bn: -abs(field(bn[1], "wall_ns") - field(bn[0], "wall_ns")))
    table = Table(tid, DIFF_COLUMNS, modules=True)
    for b, n in pairs[:top]:
        f = n or b
        mark = "added: " if b is None else "removed: " if n is None else ""
        table.add(diff_cells(b, n), mark + f.get("display", f["name"]),
                  os.path.basename(f.get("module") or ""), title=full_name(f), swatch=color(f["name"]))
    if len(pairs) > top:
        table.note("... %d more rows (--top)" % (len(pairs) - top))
    return table


def diff_sections(base, new, top):
    """(title, totals table, rows table) for the whole run and each phase
    both profiles have; and a line naming the phases only one has."""
    sections = [("whole run", totals_diff_table("diff-totals", base["totals"], new["totals"]),
                 rows_diff_table("diff-functions", base["functions"], new["functions"], top))]
    base_phases = {ph["name"]: ph for ph in base.get("phases", [])}
    new_phases = {ph["name"]: ph for ph in new.get("phases", [])}
    for i, name in enumerate(k for k in base_phases if k in new_phases):
        b, n = base_phases[name], new_phases[name]
        sections.append(("phase '%s'" % name, totals_diff_table("diff-phase-%d-totals" % i, b["totals"],
                                                                 n["totals"]),
                         rows_diff_table("diff-phase-%d" % i, b["functions"], n["functions"], top)))
    only = []
    for mine, theirs, which in ((base_phases, new_phases, "BASE"), (new_phases, base_phases, "NEW")):
        names = [k for k in mine if k not in theirs]
        if names:
            only.append("phases only in %s: %s" % (which, ", ".join("'%s'" % k for k in names)))
    return sections, "; ".join(only)


DIFF_NOTE = ("times in ms; rows lined up by function name, the largest change of wall time first; "
             "delta: new - base; wall_ratio: new / base")


def report_diff(base_path, new_path, opts):
    base, new = load_profile(base_path), load_profile(new_path)
    resolve_names(base)
    resolve_names(new)
    sections, only = diff_sections(base, new, opts.top)
    title = ["buddypool report --diff: BASE -> NEW", "  BASE " + about(base, base_path),
             "  NEW  " + about(new, new_path)]
    if opts.html:
        body = ["<h1>buddypool profile diff</h1>"] + ["<p>%s</p>" % html.escape(t.strip()) for t in title[1:]]
        for head, totals, rows in sections:
            body += ["<h2>%s</h2>" % html.escape(head), totals.html(),
                     "<p class=note>%s</p>" % html.escape(DIFF_NOTE), rows.html()]
        if only:
            body.append("<p id=diff-phases-only>%s</p>" % html.escape(only))
        write_page(opts.html, page("buddypool profile diff", body))
        return
    out = title
    for head, totals, rows in sections:
        out += ["", head] + totals.text() + ["", "  " + DIFF_NOTE] + rows.text()
    if only:
        out += ["", only]
    print("\n".join(out))
