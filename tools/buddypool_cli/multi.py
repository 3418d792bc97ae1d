"""multi.py: `buddypool report` of several profiles: the processes of one
run (MPI ranks, a server's workers) side by side and summed."""
import html
import os

from .diff import DIFF_FIELDS, rows_by_name
from .profiles import (Table, about, count_text, functions_table, load_profile, ms_text, page,
    pct_text, resolve_names, write_page)

PROCESS_COLUMNS = (("rank", 5), ("threads", 8), ("span", 11), ("in_regions", 11),
                   ("gaps", 11), ("gap%", 6), ("barrier_wait", 13), ("regions", 9),
                   ("barriers", 9), ("slowest_steps", 14))
TOTAL_KEYS = ("span_ns", "regions_ns", "gaps_ns", "barrier_wait_ns", "regions", "barriers")


def label_of(prof, path):
    return "pid %s (%s)%s" % (prof.get("pid", "?"), os.path.basename(path),
                              ", ended by %s" % prof["ended_by"] if prof.get("ended_by") else "")


def slowest_steps(profs):
    """For each step (a function's k-th barrier episode, by name) that every
    process ran, the process whose step's work per call was longest: the
    one the others wait for at the collective that follows. A count per
    process, and the number of steps compared."""
    keyed = []
    for prof in profs:
        steps = {}
        for f in prof["functions"]:
            for s in f.get("steps") or []:
                if not s.get("rest") and s.get("calls"):
                    steps[(f["name"], s.get("index"))] = (s.get("work_ns") or 0) / s["calls"]
        keyed.append(steps)
    common = set.intersection(*(set(k) for k in keyed)) if keyed else set()
    counts = [0] * len(profs)
    for key in common:
        work = [k[key] for k in keyed]
        counts[work.index(max(work))] += 1
    return counts, len(common)


def merged(profs):
    """The totals and the function table summed over the processes (a
    function by its recorded name); the span is the sum of the spans."""
    tot = {k: sum(p["totals"].get(k) or 0 for p in profs) for k in TOTAL_KEYS}
    fns = rows_by_name([dict({k: f.get(k) for k in DIFF_FIELDS}, name=f["name"],
                             display=f.get("display", f["name"]), module=f.get("module"))
                        for p in profs for f in p["functions"]])
    return tot, list(fns.values())


def tables(paths, opts):
    profs = [load_profile(p) for p in paths]
    for prof in profs:
        resolve_names(prof)
    counts, ncommon = slowest_steps(profs)
    per = Table("processes", PROCESS_COLUMNS, label="process")
    for prof, path, slow in zip(profs, paths, counts):
        t = prof["totals"]
        per.add({"rank": count_text(prof.get("rank")), "threads": count_text(prof.get("threads")),
                 "span": ms_text(t.get("span_ns")), "in_regions": ms_text(t.get("regions_ns")),
                 "gaps": ms_text(t.get("gaps_ns")), "gap%": pct_text(t.get("gaps_ns"), t.get("span_ns")),
                 "barrier_wait": ms_text(t.get("barrier_wait_ns")),
                 "regions": count_text(t.get("regions")), "barriers": count_text(t.get("barriers")),
                 "slowest_steps": "%d of %d" % (slow, ncommon) if ncommon else "-"},
                label_of(prof, path), kind="row")
    tot, fns = merged(profs)
    slowest = None
    if ncommon:
        k = counts.index(max(counts))
        slowest = ("the slowest process at the steps all %d ran (%d steps): %s, in %d of them "
                   "(%s): the one the others wait for at a collective" %
                   (len(profs), ncommon, label_of(profs[k], paths[k]), counts[k],
                    pct_text(counts[k], ncommon)))
    funcs = functions_table("functions", tot, fns, opts)
    return profs, per, tot, funcs, slowest


def multi_text(paths, opts):
    profs, per, tot, funcs, slowest = tables(paths, opts)
    out = ["buddypool profiles: %d processes" % len(profs)]
    out += ["  " + about(p, path) for p, path in zip(profs, paths)]
    out += ["", "per process (times in ms; slowest_steps: the steps it was the slowest "
            "process at, of those all ran)"] + per.text()
    out += ["", "across the processes: span %s ms (the sum of theirs), in regions %s, gaps %s, "
            "barrier waits %s, %s regions, %s barriers" %
            (ms_text(tot["span_ns"]), ms_text(tot["regions_ns"]), ms_text(tot["gaps_ns"]),
             ms_text(tot["barrier_wait_ns"]), count_text(tot["regions"]),
             count_text(tot["barriers"]))]
    if slowest:
        out.append(slowest)
    out += ["", "functions summed over the processes (times in ms; wall% and gap% are shares of "
            "the summed span)"] + funcs.text()
    return out


def multi_html(paths, opts):
    profs, per, tot, funcs, slowest = tables(paths, opts)
    body = ["<h1>buddypool profiles: %d processes</h1>" % len(profs),
            "<ul>%s</ul>" % "".join("<li>%s</li>" % html.escape(about(p, path))
                                    for p, path in zip(profs, paths)),
            "<h2>Per process</h2><p class=note>times in ms</p>", per.html()]
    if slowest:
        body.append("<p id=slowest>%s</p>" % html.escape(slowest))
    body += ["<h2>Functions summed over the processes</h2><p class=note>times in ms; wall% and "
             "gap% are shares of the summed span</p>", funcs.html()]
    return page("buddypool profiles", body)


def report_multi(paths, opts):
    if opts.html:
        write_page(opts.html, multi_html(paths, opts))
    else:
        print("\n".join(multi_text(paths, opts)))
