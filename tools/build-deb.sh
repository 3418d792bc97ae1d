#!/bin/sh
# build-deb.sh [-a ARCH] [-o DIR] [-j JOBS]: build buddypool's Debian
# packages (libbuddypool0, libbuddypool-dev, buddypool-tools) with
# dpkg-buildpackage from debian/, into DIR (default build/deb), for ARCH
# (a Debian architecture: riscv64, arm64, ...; default the machine's).
# `make deb` runs it.
#
# dpkg-buildpackage builds in the source tree and writes the packages into
# its parent, so the build runs in a copy of the working tree (its tracked
# and not ignored files, uncommitted changes included) under a temporary
# directory, and leaves the tree as it was. A cross build (-a) needs Debian's
# cross compiler for ARCH (gcc-<triplet>) and the target's C library
# (libc6-dev-<arch>-cross); Build-Depends are then checked for the build
# machine only (-d), as those packages are not the multiarch ones
# dpkg-checkbuilddeps looks for.
set -eu
usage() {
    echo "usage: build-deb.sh [-a ARCH] [-o DIR] [-j JOBS]" >&2
    exit 2
}
cd "$(dirname "$0")/.."
root=$(pwd)
arch="" out=build/deb jobs=$(nproc)
while getopts a:o:j: opt; do
    case $opt in
        a) arch=$OPTARG ;;
        o) out=$OPTARG ;;
        j) jobs=$OPTARG ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { echo "build-deb.sh: unexpected argument '$1'" >&2; usage; }
case $jobs in
    '' | *[!0-9]* | 0) echo "build-deb.sh: -j '$jobs': a positive number of jobs" >&2; exit 2 ;;
esac
for tool in dpkg-buildpackage dh; do
    command -v $tool >/dev/null 2>&1 ||
        { echo "build-deb.sh: no $tool (install dpkg-dev and debhelper: make deb does)" >&2; exit 1; }
done
if [ -n "$arch" ]; then
    triplet=$(dpkg-architecture -f -a "$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null) ||
        { echo "build-deb.sh: -a '$arch': not a Debian architecture dpkg knows" >&2; exit 2; }
    command -v "$triplet-gcc" >/dev/null 2>&1 ||
        { echo "build-deb.sh: no $triplet-gcc for -a $arch (package gcc-$triplet)" >&2; exit 1; }
fi
version=$(sed -n '1s/^buddypool (\([^)]*\)).*/\1/p' debian/changelog)
[ -n "$version" ] || { echo "build-deb.sh: no version on debian/changelog's first line" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/buddypool-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/buddypool-$version
mkdir "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # tracked and untracked-but-not-ignored files that exist (a file deleted
    # in the working tree is not copied)
    git ls-files -z --cached --others --exclude-standard |
        tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$src"
else
    tar --exclude='./build*' --exclude=./_install -cf - . | tar -xf - -C "$src"
fi
[ -f "$src/debian/rules" ] || { echo "build-deb.sh: copying the tree failed" >&2; exit 1; }

set -- -us -uc -b "-j$jobs"
[ -z "$arch" ] || set -- "$@" -a "$arch" -d
echo "build-deb.sh: dpkg-buildpackage $* (buddypool $version${arch:+, $arch}) in $src"
(cd "$src" && dpkg-buildpackage "$@") >"$work/build.log" 2>&1 ||
    { tail -n 60 "$work/build.log"; echo "build-deb.sh: dpkg-buildpackage failed (log above)" >&2; exit 1; }
mkdir -p "$out"
# the packages of an earlier build for this architecture go: DIR holds one set
host=$(dpkg-architecture ${arch:+-f -a "$arch"} -qDEB_HOST_ARCH)
rm -f "$out"/libbuddypool0_*_"$host".deb "$out"/libbuddypool0-dbgsym_*_"$host".deb \
    "$out"/libbuddypool-dev_*_"$host".deb "$out"/buddypool-tools_*_"$host".deb \
    "$out"/buddypool_*_"$host".changes "$out"/buddypool_*_"$host".buildinfo
for f in "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo; do
    [ -e "$f" ] && cp "$f" "$out/"
done
ls "$work"/*.deb >/dev/null 2>&1 || { echo "build-deb.sh: no package was built" >&2; exit 1; }
echo "build-deb.sh: packages in $out:"
for f in "$work"/*.deb; do echo "  $(basename "$f")"; done
