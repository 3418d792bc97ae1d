"""top.py: `buddypool top`: a running process's live counters (live.c)."""
import argparse
import os
import struct
import sys
import time

from .profiles import Table, at_least, demangle, fail, pct_text


# The live counters' layout (docs/profile-format.md): native byte order, the
# fields naturally aligned (no padding in these orders).
LIVE_MAGIC = b"BPLIVE1\0"
LIVE_HEADER = struct.Struct("=8sIIIIQqqQqqqQQi")
LIVE_HEADER_FIELDS = ("magic", "header_size", "row_size", "rows_cap", "threads", "rows", "start_ns",
                      "updated_ns", "regions", "regions_ns", "gaps_ns", "barrier_wait_ns", "barriers",
                      "resets", "pid")
LIVE_ROW = struct.Struct("=QqqqQ152s64s")
LIVE_ROW_FIELDS = ("calls", "wall_ns", "gap_before_ns", "barrier_wait_ns", "barriers", "name", "module")
TOTAL_COUNTERS = ("regions", "regions_ns", "gaps_ns", "barrier_wait_ns", "barriers")
ROW_COUNTERS = ("calls", "wall_ns", "gap_before_ns", "barrier_wait_ns", "barriers")
TOP_COLUMNS = (("calls/s", 11), ("wall%", 7), ("gap%", 7), ("barrier_wait%", 14))


def live_path(pid):
    """Where process pid keeps its live counters: /dev/shm, or the
    directory BUDDY_THREAD_POOL_LIVE_DIR names (as the process did)."""
    return os.path.join(os.environ.get("BUDDY_THREAD_POOL_LIVE_DIR") or "/dev/shm",
                        "buddypool-%d" % pid)


def c_string(raw):
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def read_live(path):
    """The live file's header fields, its rows in header["functions"]; None
    when the file is gone. ValueError when it is not a live file."""
    try:
        with open(path, "rb") as f:
            head = f.read(LIVE_HEADER.size)
            if len(head) < LIVE_HEADER.size or not head.startswith(LIVE_MAGIC):
                raise ValueError("%s is not a buddypool live-counter file" % path)
            live = dict(zip(LIVE_HEADER_FIELDS, LIVE_HEADER.unpack(head)))
            if live["row_size"] < LIVE_ROW.size:
                raise ValueError("%s: rows of %d bytes, fewer than %d" % (path, live["row_size"],
                                                                           LIVE_ROW.size))
            f.seek(live["header_size"])
            n = min(live["rows"], live["rows_cap"])
            data = f.read(n * live["row_size"])
    except FileNotFoundError:
        return None
    rows = []
    for at in range(0, len(data) - LIVE_ROW.size + 1, live["row_size"]):
        row = dict(zip(LIVE_ROW_FIELDS, LIVE_ROW.unpack_from(data, at)))
        row["name"], row["module"] = c_string(row["name"]), c_string(row["module"])
        rows.append(row)
    live["functions"] = rows
    return live


def process_alive(pid):
    """Whether process pid runs (a zombie has ended)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rpartition(")")[2].split()[:1] not in (["Z"], ["X"])
    except OSError:
        return False


def counter_deltas(old, new, keys, restart):
    """new - old for each counter; new itself where the counting started
    again in between (a profile reset, a counter that went down, no old)."""
    if restart or old is None or any(new[k] < old[k] for k in keys):
        return {k: new[k] for k in keys}
    return {k: new[k] - old[k] for k in keys}


def top_lines(pid, old, new, elapsed, top, names):
    """One table of `top`: the counters' changes from old to new over
    elapsed seconds. names: the display name of each recorded name."""
    reset = new["resets"] != old["resets"]
    tot = counter_deltas(old, new, TOTAL_COUNTERS, reset)
    span, threads = elapsed * 1e9, new["threads"]
    rows = []
    for i, r in enumerate(new["functions"]):
        o = old["functions"][i] if i < len(old["functions"]) else None
        rows.append((r, counter_deltas(o, r, ROW_COUNTERS, reset or o is None or o["name"] != r["name"])))
    rows.sort(key=lambda rd: -rd[1]["wall_ns"])
    table = Table("top", TOP_COLUMNS, modules=True)
    for r, d in rows[:top]:
        table.add({"calls/s": "%.1f" % (d["calls"] / elapsed), "wall%": pct_text(d["wall_ns"], span),
                   "gap%": pct_text(d["gap_before_ns"], span),
                   "barrier_wait%": pct_text(d["barrier_wait_ns"], span * threads)},
                  names.get(r["name"], r["name"]), r["module"])
    if len(rows) > top:
        table.note("... %d more rows (--top)" % (len(rows) - top))
    head = ("buddypool top: pid %d, %d threads, %.1f regions/s; in regions %s, gaps %s, barrier waits "
            "%s of the threads' time (over %.2f s)%s" % (
                pid, threads, tot["regions"] / elapsed, pct_text(tot["regions_ns"], span),
                pct_text(tot["gaps_ns"], span), pct_text(tot["barrier_wait_ns"], span * threads), elapsed,
                "; the profile was reset" if reset else ""))
    return [head] + table.text()


def watch(pid, path, opts):
    """Prints a table each interval until --count tables, or the process
    ends."""
    names = {}
    old, then = read_live(path), time.monotonic()
    for shown in range(opts.count or sys.maxsize):
        time.sleep(opts.interval)
        new, now = read_live(path), time.monotonic()
        if new is None or not process_alive(pid):
            print("buddypool top: process %d ended" % pid, flush=True)
            return
        fresh = [r["name"] for r in new["functions"] if r["name"] not in names]
        names.update({n: n for n in fresh})
        names.update(demangle(fresh))
        lines = top_lines(pid, old, new, now - then, opts.top, names)
        clear = "\033[H\033[2J" if sys.stdout.isatty() else ("\n" if shown else "")
        print(clear + "\n".join(lines), flush=True)
        old, then = new, now


def cmd_top(argv):
    ap = argparse.ArgumentParser(prog="buddypool top")
    ap.add_argument("pid", type=int)
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--count", type=int)
    ap.add_argument("--top", type=int, default=20)
    opts = ap.parse_args(argv)
    for what, value in (("PID", opts.pid), ("--top", opts.top), ("--count", opts.count)):
        at_least("top", what, value, 1)
    if not opts.interval > 0:
        fail("top: --interval %s: must be more than 0 seconds" % opts.interval)
    path = live_path(opts.pid)
    try:
        live = read_live(path)
    except (OSError, ValueError) as e:
        fail("top: %s" % e, 1)
    if live is None:
        fail("top: no live profile for PID %d (%s): is it running with BUDDY_THREAD_POOL_PROFILE=1?"
             % (opts.pid, path), 1)
    if not process_alive(opts.pid):
        fail("top: process %d is not running (%s is left from it: `buddypool report --live %d` "
             "reads its counters)" % (opts.pid, path, opts.pid), 1)
    try:
        watch(opts.pid, path, opts)
    except ValueError as e:
        fail("top: %s" % e, 1)
    except KeyboardInterrupt:
        print()
