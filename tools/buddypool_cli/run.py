"""run.py: `buddypool run`: a program on the pool, by preloading the library."""
import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys

from .profiles import fail


def parse_cpus(text):
    """0-3,8 -> {0, 1, 2, 3, 8}; None if malformed (or past CPU 65535)."""
    cpus = set()
    for part in text.split(","):
        m = re.fullmatch(r"\s*([0-9]+)\s*(?:-\s*([0-9]+)\s*)?", part, re.ASCII)
        if m is None:
            return None
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if lo > hi or hi > 65535:
            return None
        cpus.update(range(lo, hi + 1))
    return cpus


def bind_numa(nodes):
    """Run on the CPUs of `nodes` and interleave memory over them (inherited by
    the program through exec)."""
    try:
        numa = ctypes.CDLL("libnuma.so.1")
    except OSError:
        fail("run: --numa %s: libnuma.so.1 is not installed (Debian package libnuma1)" % nodes)
    if numa.numa_available() < 0:
        fail("run: --numa %s: this machine has no NUMA support" % nodes)
    numa.numa_parse_nodestring.restype = ctypes.c_void_p
    numa.numa_parse_nodestring.argtypes = [ctypes.c_char_p]
    mask = numa.numa_parse_nodestring(nodes.encode())
    if not mask:
        fail("run: --numa %s: not a list of this machine's NUMA nodes (0-%d)" %
             (nodes, numa.numa_max_node()))
    numa.numa_run_on_node_mask.argtypes = [ctypes.c_void_p]
    numa.numa_set_interleave_mask.argtypes = [ctypes.c_void_p]
    if numa.numa_run_on_node_mask(ctypes.c_void_p(mask)) != 0:
        fail("run: --numa %s: cannot run on those nodes" % nodes)
    numa.numa_set_interleave_mask(ctypes.c_void_p(mask))


def defined_symbols(path, wanted):
    """Which of `wanted` the ELF file at path defines (its symbol tables, read
    by elfutils' eu-readelf); None when that cannot be told."""
    if shutil.which("eu-readelf") is None:
        return None
    p = subprocess.run(["eu-readelf", "-s", "-W", path], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    found = set()
    for line in p.stdout.splitlines():
        cols = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(cols) >= 8 and cols[0].endswith(":") and cols[6] != "UND" and cols[7] in wanted:
            found.add(cols[7])
    return found


def has_marker(path):
    """Whether the file holds the string the library carries in its data
    (found where stripping removed the symbol tables)."""
    try:
        with open(path, "rb") as f:
            return b"buddypool runtime: libbuddypool is linked in" in f.read()
    except OSError:
        return False


def cmd_run(argv, lib, usage):
    """lib: the library to preload; usage: the command's --help text."""
    if argv[:1] in (["-h"], ["--help"]):
        print(usage)
        sys.exit(0)
    if "--" not in argv:
        fail("run: no '-- PROGRAM [ARGS...]' (see buddypool --help)")
    cut = argv.index("--")
    ap = argparse.ArgumentParser(prog="buddypool run")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--cpus")
    ap.add_argument("--numa")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--trace")
    opts = ap.parse_args(argv[:cut])
    program = argv[cut + 1:]
    if not program:
        fail("run: no program after '--'")
    if not os.path.exists(lib):
        fail("run: the library %s is missing" % lib, 1)
    if " " in lib or ":" in lib:
        fail("run: the library's path %r holds a space or a colon, which LD_PRELOAD cannot "
             "carry" % lib, 1)
    env = dict(os.environ)
    if opts.threads is not None:
        if opts.threads < 1:
            fail("run: --threads %d: must be 1 or more" % opts.threads)
        env["BUDDY_THREAD_POOL_THREADS"] = env["OMP_NUM_THREADS"] = str(opts.threads)
    if opts.numa is not None:
        bind_numa(opts.numa)
    if opts.cpus is not None:
        cpus = parse_cpus(opts.cpus)
        allowed = os.sched_getaffinity(0)
        if not cpus:
            fail("run: --cpus %r: not a CPU list such as 0-3,8" % opts.cpus)
        if not cpus <= allowed:
            fail("run: --cpus %s: CPUs %s are not allowed here (allowed: %s)" %
                 (opts.cpus, ",".join(map(str, sorted(cpus - allowed))),
                  ",".join(map(str, sorted(allowed)))))
        os.sched_setaffinity(0, cpus)
    if opts.profile or opts.json:
        env["BUDDY_THREAD_POOL_PROFILE"] = "1"
    # absolute: the program may change its directory
    if opts.json:
        env["BUDDY_THREAD_POOL_PROFILE_OUT"] = os.path.abspath(opts.json)
    if opts.trace:
        env["BUDDY_THREAD_POOL_TRACE"] = os.path.abspath(opts.trace)
    # A program with the pool linked in (libbuddypool.a) already runs on it:
    # a second, preloaded copy would only report an empty profile over its own.
    path = shutil.which(program[0]) or program[0]
    own = defined_symbols(path, {"buddypool_parallel", "buddypool_profile_phase"})
    if not own:
        own = has_marker(path)
    if own:
        print("buddypool: %s has buddypool linked in; running it as it is" % program[0],
              file=sys.stderr)
    else:
        # after what is preloaded already (a sanitizer's runtime must be first)
        env["LD_PRELOAD"] = (env["LD_PRELOAD"] + " " if env.get("LD_PRELOAD") else "") + lib
    try:
        os.execvpe(program[0], program, env)
    except OSError as e:
        fail("run: %s: %s" % (program[0], e.strerror), 127)
