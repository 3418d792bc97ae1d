"""threadpool.py: threadpoolctl's limits as a Python program sees them,
run by check-threadpoolctl.py with Debian's python3 in each mode.

  threadpool.py PROBE_LIB OPENBLAS_LIB

Loads numpy, OpenBLAS (OpenMP build, by its path) and the probe library
(probe.c), then prints one JSON line per phase: before any limit, inside
threadpool_limits(1, "openmp") and after it, inside threadpool_limits(1,
"blas") and after it, inside ThreadpoolController().limit(1, "openmp")
and after it. Each phase records the team of the probe's region with no
size (forked first, before anything else asks the runtime) and the
probe's omp_get_max_threads, every OpenMP runtime threadpool_info() lists
with its num_threads, OpenBLAS's, torch's get_num_threads() where torch
is installed, and whether buddypool is mapped.
"""
import ctypes
import json
import sys

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits, ThreadpoolController

try:  # python3-torch, where installed (make check does not install it)
    import torch
except ImportError:
    torch = None

probe = ctypes.CDLL(sys.argv[1])
openblas = ctypes.CDLL(sys.argv[2])
a = np.random.rand(256, 256)


def mapped(name):
    with open("/proc/self/maps") as f:
        return name in f.read()


def phase(name):
    team = probe.probe_team()  # first: the fork's own look at the limit
    a @ a  # numpy's BLAS call, as a library makes one
    line = {"phase": name, "team": team, "max": probe.probe_max_threads(),
            "openmp": sorted((i["filepath"].split("/")[-1], i["num_threads"])
                             for i in threadpool_info() if i["user_api"] == "openmp"),
            "blas": sorted(i["num_threads"] for i in threadpool_info()
                           if i["user_api"] == "blas"),
            "buddypool": mapped("libbuddypool"),
            "torch": torch.get_num_threads() if torch is not None else None}
    print(json.dumps(line), flush=True)


phase("before")
with threadpool_limits(limits=1, user_api="openmp"):
    phase("openmp-limit")
phase("after-openmp-limit")
with threadpool_limits(limits=1, user_api="blas"):
    phase("blas-limit")
phase("after-blas-limit")
controller = ThreadpoolController()
with controller.limit(limits=1, user_api="openmp"):
    phase("controller-limit")
phase("after-controller-limit")
