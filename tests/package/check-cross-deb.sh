#!/bin/sh
# check-cross-deb.sh ARCH [OUT_DIR]: cross-build the Debian packages for
# ARCH (riscv64, arm64) with dpkg-buildpackage -a ARCH (tools/build-deb.sh),
# check them with lintian (no errors), unpack them into a scratch root, and
# link a gcc -fopenmp program (openmp-program.c, cross-compiled) against the
# root's library with pkg-config; under qemu-user it must run its region on
# that library (a team of 2, the root's file mapped, a profile at exit).
# `make check-cross` runs it (tools/check-cross.sh deb-ARCH); the packages
# are left in OUT_DIR (default build-cross-deb-ARCH).
set -eu
arch=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=${2:-$src/build-cross-deb-$arch}
fail() { echo "FAIL ($arch): $*"; exit 1; }
triplet=$(dpkg-architecture -f -a "$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null) ||
    fail "not a Debian architecture: $arch"
multiarch=$(dpkg-architecture -f -a "$arch" -qDEB_HOST_MULTIARCH)
qemu=qemu-$(dpkg-architecture -f -a "$arch" -qDEB_HOST_GNU_CPU)
version=$(sed -n 's/^#define BUDDYPOOL_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
    "$src/include/buddypool.h" | paste -sd.)
rm -rf "$out"
sh "$src/tools/build-deb.sh" -a "$arch" -o "$out" -j "$(nproc)"
lintian --tag-display-limit 0 "$out/buddypool_${version}_$arch.changes" >"$out/lintian.log" 2>&1 || true
grep -v "^running with root privileges" "$out/lintian.log" || true
! grep -q "^E:" "$out/lintian.log" || fail "lintian reports errors"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
for p in libbuddypool0 libbuddypool-dev buddypool-tools; do
    deb=$out/${p}_${version}_$arch.deb
    [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "$p is not for $arch"
    dpkg-deb -x "$deb" "$root"
done
lib=$root/usr/lib/$multiarch
case $arch in riscv64) machine=RISC-V ;; arm64) machine=AArch64 ;; *) machine=. ;; esac
readelf -h "$lib/libbuddypool.so.0" | grep -q "Machine: *$machine" ||
    fail "libbuddypool.so.0 is not for $arch: $(readelf -h "$lib/libbuddypool.so.0" | grep Machine)"
export PKG_CONFIG_PATH="$lib/pkgconfig"
"$triplet-gcc" -fopenmp $(pkg-config --cflags buddypool) -c "$here/openmp-program.c" -o "$work/prog.o"
"$triplet-gcc" "$work/prog.o" $(pkg-config --libs buddypool) -o "$work/prog"
QEMU_LD_PREFIX=/usr/$triplet LD_LIBRARY_PATH="$lib" OMP_NUM_THREADS=2 BUDDY_THREAD_POOL_PROFILE=1 \
    "$qemu" "$work/prog" >"$work/out" 2>"$work/err" || { cat "$work/out" "$work/err"; fail "the program fails"; }
grep -qx "team 2" "$work/out" || fail "not a team of 2: $(cat "$work/out")"
grep -qx "mapped $lib/libbuddypool.so.$version" "$work/out" || fail "the root's library is not mapped: $(cat "$work/out")"
grep -q "^buddypool profile: 2 threads, 1 regions" "$work/err" || fail "no profile: $(cat "$work/err")"
echo "check-cross-deb: $arch packages built by dpkg-buildpackage -a $arch, lintian clean, a gcc -fopenmp program runs on them under $qemu"
