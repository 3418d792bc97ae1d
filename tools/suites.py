#!/usr/bin/env python3
"""suites.py: run the OpenMP test suites of GCC (libgomp's run tests) and
LLVM (libomp's lit tests) on the stock runtime and on buddypool, side by
side, and count what buddypool passes of what the stock runtime passes.

The suites come from Debian's source packages (the versions of the
machine's Debian: gcc-12, llvm-toolchain-19), fetched with `--fetch DIR`
(apt-get source, with a deb-src entry added when the machine has none);
only the test folders are unpacked. Each test runs in three ways:

  native     built as the suite builds it, on libgomp (gcc) or libomp
             (clang-22);
  linked     the same compile and link line, with buddypool found first
             under the stock runtime's name (-lgomp or -lomp, through a
             folder of links), as a program built against buddypool is;
  preloaded  the native build run with LD_PRELOAD=libbuddypool.so.

A test counts only where the native run passes (a test the stock runtime
fails, or one needing a device, says nothing about buddypool). What a
test expects is read from its own directives: GCC's dg-do run, dg-options,
dg-additional-options, dg-set-target-env-var, dg-shouldfail, dg-output,
dg-require-effective-target (offload devices and LTO are skipped); LLVM's
RUN lines with lit's substitutions (FileCheck and `not` from
llvm-22-tools), REQUIRES, UNSUPPORTED. OMPT tests (LLVM's ompt/ folder)
are left out unless --ompt is given.

  python3 tools/suites.py --fetch /var/tmp/suites
  python3 tools/suites.py --suites /var/tmp/suites --lib build/libbuddypool.so \\
      [--only REGEX] [--jobs 2] [--json out.json]

It prints one line per test that the native runtime passes and buddypool
fails (the configuration, the status, the output's first line), then the
counts. It takes about 15 minutes per suite on 2 CPUs; it is not part of
`make check` (docs/testing.md)."""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

GCC_PKG = "gcc-12"
LLVM_PKG = "llvm-toolchain-19"
CLANG = "clang-22"
CLANGXX = "clang++-22"
LLVM_BIN = "/usr/lib/llvm-22/bin"
TIMEOUT = 60


def fetch(dest):
    """Download the two source packages and unpack their test folders."""
    os.makedirs(dest, exist_ok=True)
    sources = "/etc/apt/sources.list.d/bp-suites-src.sources"
    have_src = subprocess.run("grep -rqs '^Types:.*deb-src\\|^deb-src' /etc/apt/sources.list "
                              "/etc/apt/sources.list.d/", shell=True).returncode == 0
    if not have_src:
        codename = subprocess.run(["sh", "-c", ". /etc/os-release; echo $VERSION_CODENAME"],
                                  capture_output=True, text=True).stdout.strip() or "bookworm"
        with open(sources, "w") as f:
            f.write("Types: deb-src\nURIs: http://deb.debian.org/debian\n"
                    "Suites: %s %s-updates\nComponents: main\n"
                    "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
                    % (codename, codename))
        subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "source", "--download-only", GCC_PKG, LLVM_PKG], cwd=dest,
                   check=True)
    gcc_orig = glob.glob(os.path.join(dest, GCC_PKG + "_*.orig.tar.*"))[0]
    # Debian's gcc orig tarball holds the upstream tarball inside
    inner = subprocess.run(["tar", "tf", gcc_orig], capture_output=True, text=True,
                           check=True).stdout.split()
    dfsg = [n for n in inner if re.search(r"gcc-[0-9.]+-dfsg\.tar\.xz$", n)][0]
    subprocess.run(["tar", "xf", gcc_orig, dfsg], cwd=dest, check=True)
    subprocess.run(["tar", "xJf", dfsg, "--wildcards", "*/libgomp/testsuite/*"], cwd=dest,
                   check=True)
    shutil.rmtree(os.path.join(dest, dfsg.split("/")[0]))
    llvm_orig = glob.glob(os.path.join(dest, LLVM_PKG + "_*.orig.tar.*"))[0]
    subprocess.run(["tar", "xJf", llvm_orig, "--wildcards", "*/openmp/runtime/test/*"],
                   cwd=dest, check=True)


def run(cmd, env=None, cwd=None, shell=False, timeout=TIMEOUT):
    """(exit status or 'timeout', stdout + stderr)."""
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, shell=shell, capture_output=True,
                           timeout=timeout, executable="/bin/bash" if shell else None)
        out = (p.stdout + p.stderr).decode("utf-8", "replace")
        return p.returncode, out
    except subprocess.TimeoutExpired as e:
        out = ((e.stdout or b"") + (e.stderr or b"")).decode("utf-8", "replace")
        return "timeout", out


# ---- GCC: libgomp.c and libgomp.c-c++-common, as C --------------------------

def tcl_words(s):
    """The words of a Tcl list: "quoted", {braced} or bare."""
    words, i = [], 0
    while i < len(s):
        c = s[i]
        if c.isspace():
            i += 1
        elif c == '"':
            j = i + 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            words.append(s[i + 1:j])
            i = j + 1
        elif c == "{":
            depth, j = 1, i + 1
            while j < len(s) and depth:
                depth += {"{": 1, "}": -1}.get(s[j], 0)
                j += 1
            words.append(s[i + 1:j - 1])
            i = j
        else:
            j = i
            while j < len(s) and not s[j].isspace():
                j += 1
            words.append(s[i:j])
            i = j
    return words


def target_applies(words):
    """A dg directive's trailing { target ... } selector, as this machine
    (x86-64 Linux, no offload device) answers it; no selector applies."""
    for w in words:
        m = re.match(r"\s*(target|xfail)\s+(.*)", w, re.S)
        if m and m.group(1) == "target":
            sel = m.group(2)
            if "offload" in sel or "openacc" in sel:
                return False
            if re.search(r"x86_64|i\?86|\*-\*-linux\*|\*-\*-\*|lp64|pthread|fopenmp", sel):
                return not sel.strip().startswith("!")
            return False
    return True


def gcc_test(path):
    """What a GCC test asks: None when it is no run test or cannot run here."""
    text = open(path, errors="replace").read()
    t = {"opts": [], "env": {}, "fail": False, "output": [], "sources": []}
    run_test = True  # libgomp's tests run unless they say otherwise
    for m in re.finditer(r"\{\s*(dg-[a-z-]+)\s*(.*?)\}\s*(?:\*/|$)", text, re.M):
        name, rest = m.group(1), m.group(2)
        words = tcl_words(rest)
        if name == "dg-do":
            run_test = bool(words) and words[0] == "run" and target_applies(words[1:])
        elif name in ("dg-options", "dg-additional-options"):
            if words and target_applies(words[1:]):
                t["opts"] += words[0].split()
        elif name == "dg-set-target-env-var" and len(words) >= 2:
            t["env"][words[0]] = words[1]
        elif name == "dg-shouldfail":
            t["fail"] = True
        elif name == "dg-output" and words and target_applies(words[1:]):
            t["output"].append(words[0])
        elif name == "dg-additional-sources" and words:
            t["sources"] += words[0].split()
        elif name == "dg-require-effective-target" and words:
            if re.match(r"offload_|lto|avx_runtime|vect_", words[0]):
                return None
        elif name == "dg-skip-if" and target_applies(words[1:2] and ["target " + words[1]]):
            return None
    if not run_test:
        return None
    return t


def tcl_regex(s):
    """A dg-output pattern (a Tcl regular expression with Tcl's escapes) as
    Python's: \\n and friends are the characters; the rest is alike."""
    return s.replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t")


def gcc_job(path, how, lib, links, work):
    t = gcc_test(path)
    if t is None:
        return None
    d = tempfile.mkdtemp(dir=work)
    exe = os.path.join(d, "t")
    srcdir = os.path.dirname(path)
    extra = [os.path.join(srcdir, s) for s in t["sources"]]
    cmd = ["gcc", "-O2", "-fopenmp", "-I", srcdir] + t["opts"] + [path] + extra + \
        ["-o", exe, "-lm", "-latomic"]
    if how == "linked":
        cmd += ["-L", links, "-Wl,-rpath," + os.path.dirname(lib)]
    st, out = run(cmd, cwd=d, timeout=180)
    if st != 0:
        shutil.rmtree(d, ignore_errors=True)
        return ("build", out)
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    env.update(t["env"])
    if how == "preloaded":
        env["LD_PRELOAD"] = lib
    st, out = run([exe], env=env, cwd=d)
    shutil.rmtree(d, ignore_errors=True)
    if st == "timeout":
        return ("timeout", out)
    if (st != 0) != t["fail"]:
        return ("exit %s" % st, out)
    for pat in t["output"]:
        try:
            if not re.search(tcl_regex(pat), out, re.S):
                return ("output", out)
        except re.error:
            pass
    return ("pass", out)


# ---- LLVM: libomp's lit tests ----------------------------------------------

FEATURES = {"linux", "x86_64-target-arch", "x86-target-arch", "multicpu", "affinity",
            "hidden-helper", "clang", "clang-22", "openmp-5.0", "openmp-5.1", "openmp-5.2"}


def lit_expr(expr, features):
    """One REQUIRES/UNSUPPORTED item: features joined by &&, ||, !, ()."""
    toks = re.findall(r"&&|\|\||!|\(|\)|[^\s&|!()]+", expr)
    py = []
    for tok in toks:
        py.append({"&&": " and ", "||": " or ", "!": " not ", "(": "(", ")": ")"}.get(
            tok, " %s " % (tok in features)))
    try:
        return bool(eval("".join(py), {"__builtins__": {}}))
    except SyntaxError:
        return False


def lit_test(path, features, ompt):
    text = open(path, errors="replace").read()
    runs, requires, unsupported = [], [], []
    for line in text.splitlines():
        m = re.search(r"(RUN|REQUIRES|UNSUPPORTED|XFAIL):(.*)", line)
        if not m:
            continue
        kind, rest = m.group(1), m.group(2).strip()
        if kind == "RUN":
            if runs and runs[-1].endswith("\\"):
                runs[-1] = runs[-1][:-1] + " " + rest
            else:
                runs.append(rest)
        elif kind == "REQUIRES":
            requires += [x.strip() for x in rest.split(",") if x.strip()]
        elif kind == "UNSUPPORTED":
            unsupported += [x.strip() for x in rest.split(",") if x.strip()]
    if not runs:
        return None
    if ompt:
        features = features | {"ompt"}
    if not all(lit_expr(r, features) for r in requires):
        return None
    if any(lit_expr(u, features) for u in unsupported):
        return None
    return runs


def lit_job(path, how, lib, links, work, root, ompt):
    runs = lit_test(path, FEATURES, ompt)
    if runs is None:
        return None
    d = tempfile.mkdtemp(dir=work)
    exe = os.path.join(d, "t")
    flags = "-I %s -I %s/ompt -fno-omit-frame-pointer" % (root, root)
    if how == "linked":
        flags += " -L %s -Wl,-rpath,%s" % (links, os.path.dirname(lib))
    else:
        flags += " -Wl,-rpath,/usr/lib/llvm-22/lib"
    run_exe = exe if how != "preloaded" else "env LD_PRELOAD=%s %s" % (lib, exe)
    libs = " -lm -latomic"
    subs = [
        ("%libomp-compile-and-run", "%libomp-compile && %libomp-run"),
        ("%libomp-irbuilder-compile-and-run", "%libomp-irbuilder-compile && %libomp-run"),
        ("%libomp-c99-compile-and-run", "%libomp-c99-compile && %libomp-run"),
        ("%libomp-cxx-compile-and-run", "%libomp-cxx-compile && %libomp-run"),
        ("%libomp-cxx20-compile-and-run", "%libomp-cxx20-compile && %libomp-run"),
        ("%libomp-cxx-compile-c", "%clangXX %openmp_flags %flags -std=c++17 -x c++ %s -o %t" + libs),
        ("%libomp-cxx-compile", "%clangXX %openmp_flags %flags -std=c++17 %s -o %t" + libs),
        ("%libomp-cxx20-compile", "%clangXX %openmp_flags %flags -std=c++20 %s -o %t" + libs),
        ("%libomp-compile", "%clang %openmp_flags %flags %s -o %t" + libs),
        ("%libomp-irbuilder-compile",
         "%clang %openmp_flags %flags -fopenmp-enable-irbuilder %s -o %t" + libs),
        ("%libomp-c99-compile", "%clang %openmp_flags %flags -std=c99 %s -o %t" + libs),
        ("%libomp-run", run_exe),
        ("%clangXX", CLANGXX),
        ("%clang", CLANG),
        ("%openmp_flags", "-fopenmp"),
        ("%flags-use-compiler-omp-h", flags),
        ("%flags", flags),
        ("%python", sys.executable),
        ("%not", LLVM_BIN + "/not"),
        ("%sort-threads", "sort -n -s"),
        ("%preload-tool", "true ||"),
        ("%no-as-needed-flag", "-Wl,--no-as-needed"),
        ("%target_arch", "x86_64"),
    ]
    script = []
    for line in runs:
        for a, b in subs:
            line = line.replace(a, b)
        line = re.sub(r"(?<![\w/.-])FileCheck(?![\w-])", LLVM_BIN + "/FileCheck", line)
        line = line.replace("%s", path).replace("%S", os.path.dirname(path))
        line = line.replace("%t", exe).replace("%T", d)
        if re.search(r"(^|\s)%[a-zA-Z][\w-]+", line):
            shutil.rmtree(d, ignore_errors=True)
            return ("harness", "unknown substitution in: " + line)
        script.append(line)
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    status, out = "pass", ""
    for line in script:
        st, o = run("set -o pipefail; " + line, env=env, cwd=d, shell=True, timeout=180)
        out += o
        if st != 0:
            built = os.path.exists(exe)
            status = "timeout" if st == "timeout" else ("exit %s" % st if built else "build")
            break
    shutil.rmtree(d, ignore_errors=True)
    return (status, out)


# ---- driving ----------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fetch", metavar="DIR", help="download and unpack the suites into DIR")
    ap.add_argument("--suites", metavar="DIR", help="where --fetch put them")
    ap.add_argument("--lib", default="build/libbuddypool.so")
    ap.add_argument("--only", default="", help="a regular expression over test paths")
    ap.add_argument("--suite", choices=["gcc", "llvm", "both"], default="both")
    ap.add_argument("--ways", default="native,linked,preloaded")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--ompt", action="store_true", help="include LLVM's ompt/ tests")
    ap.add_argument("--json", help="write every result here")
    a = ap.parse_args()
    if a.fetch:
        fetch(a.fetch)
        if not a.suites:
            return 0
    if not a.suites:
        ap.error("--suites DIR (or --fetch DIR) is needed")
    lib = os.path.abspath(a.lib)
    if not os.path.exists(lib):
        ap.error("%s: no such library (build it first)" % lib)
    work = tempfile.mkdtemp(prefix="bp-suites-")
    links = os.path.join(work, "links")
    os.makedirs(links)
    for name in ("libgomp.so", "libomp.so"):
        os.symlink(lib, os.path.join(links, name))
    jobs = []
    gcc_root = glob.glob(os.path.join(a.suites, "gcc-*/libgomp/testsuite"))
    llvm_root = glob.glob(os.path.join(a.suites, "llvm-toolchain-*/openmp/runtime/test"))
    ways = a.ways.split(",")
    if a.suite in ("gcc", "both") and gcc_root:
        for sub in ("libgomp.c", "libgomp.c-c++-common"):
            for p in sorted(glob.glob(os.path.join(gcc_root[0], sub, "*.c"))):
                if re.search(a.only, p):
                    for how in ways:
                        jobs.append(("gcc", p, how))
    if a.suite in ("llvm", "both") and llvm_root:
        for p in sorted(glob.glob(os.path.join(llvm_root[0], "**", "*.c*"), recursive=True)):
            if not p.endswith((".c", ".cpp")) or (not a.ompt and "/ompt/" in p):
                continue
            if re.search(a.only, p):
                for how in ways:
                    jobs.append(("llvm", p, how))

    def one(job):
        suite, p, how = job
        if suite == "gcc":
            return job, gcc_job(p, how, lib, links, work)
        return job, lit_job(p, how, lib, links, work, llvm_root[0], a.ompt)

    results = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for (suite, p, how), r in ex.map(one, jobs):
            if r is not None:
                results.setdefault((suite, p), {})[how] = r
    shutil.rmtree(work, ignore_errors=True)

    counts = {}
    for (suite, p), by in sorted(results.items()):
        nat = by.get("native")
        if nat is None or nat[0] != "pass":
            continue
        c = counts.setdefault(suite, {"native": 0})
        c["native"] += 1
        for how in ways:
            if how == "native" or how not in by:
                continue
            st, out = by[how]
            c[how] = c.get(how, 0) + (st == "pass")
            if st != "pass":
                first = next((ln for ln in out.splitlines() if ln.strip()), "")[:160]
                print("%s %s %s: %s: %s" % (suite, how, os.path.relpath(p, a.suites), st,
                                            first))
    for suite, c in sorted(counts.items()):
        print("%s: the native runtime passes %d; buddypool %s" % (
            suite, c["native"],
            ", ".join("%s %d" % (h, c.get(h, 0)) for h in ways if h != "native")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"%s:%s" % k: {h: v[0] for h, v in by.items()}
                       for k, by in results.items()}, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
