#!/bin/sh
# check-cross.sh ARCH...: cross-build the library and its portable tests
# (unit, pool, signals, stress) for each ARCH (riscv64, aarch64) with
# Debian's cross compiler and run them under qemu-user (`make check-cross`,
# run by .ci/run; see cmake/toolchain-ARCH.cmake). ARCH `portable` is a
# native build with the portable pause and futex of src/prim.h
# (BUDDYPOOL_PORTABLE_PRIMS), running the whole suite. ARCH deb-riscv64 or
# deb-arm64 cross-builds the Debian packages for that architecture with
# dpkg-buildpackage -a and runs a program on them under qemu-user
# (tests/package/check-cross-deb.sh; the packages in build-cross-deb-*).
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)
[ $# -gt 0 ] || set -- riscv64 aarch64 portable deb-riscv64 deb-arm64
for arch in "$@"; do
    dir=build-cross-$arch
    case $arch in
        deb-*)
            sh tests/package/check-cross-deb.sh "${arch#deb-}" "$dir"
            continue ;;
    esac
    if [ "$arch" = portable ]; then
        opts="-DBUDDYPOOL_PORTABLE_PRIMS=ON"
    elif [ -f "cmake/toolchain-$arch.cmake" ]; then
        opts="-DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-$arch.cmake"
    else
        echo "check-cross: no cmake/toolchain-$arch.cmake" >&2
        exit 2
    fi
    cmake -S . -B "$dir" $opts -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$dir" -j "$jobs"
    if [ "$arch" = portable ] && ! nm "$dir/libbuddypool.a" | grep -q ' T bp_futex_wait$'; then
        echo "check-cross: the portable build does not use the portable futex" >&2
        exit 1
    fi
    (cd "$dir" && ctest --output-on-failure -j "$jobs")
done
