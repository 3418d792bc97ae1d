#!/bin/sh
# check-cross.sh ARCH...: cross-build the library and its portable tests
# (unit, pool, signals, fork, stress) for each ARCH (riscv64, aarch64) with
# Debian's cross compiler and run them under qemu-user (`make check-cross`,
# run by .ci/run). See cmake/toolchain-ARCH.cmake.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)
[ $# -gt 0 ] || set -- riscv64 aarch64
for arch in "$@"; do
    [ -f "cmake/toolchain-$arch.cmake" ] ||
        { echo "check-cross: no cmake/toolchain-$arch.cmake" >&2; exit 2; }
    dir=build-cross-$arch
    cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="cmake/toolchain-$arch.cmake" \
          -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$dir" -j "$jobs"
    (cd "$dir" && ctest --output-on-failure -j "$jobs")
done
