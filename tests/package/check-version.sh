#!/bin/sh
# check-version.sh SOURCE_DIR BUILD_DIR PRINT_VERSION: every place that
# states buddypool's version agrees with the header's BUDDYPOOL_VERSION_*
# macros: the library (buddypool_version()), the `buddypool` command, the
# pkg-config and CMake package files, the shared library's file name and
# soname, and debian/changelog (the Debian packages' version); and a build
# told to expect another version stops with a message naming both.
set -eu
src=$1 build=$2
out=$("$3")
header=$(echo "$out" | sed -n 's/^header //p')
fail() { echo "FAIL: $*"; exit 1; }
[ -n "$header" ] || fail "print-version printed no header version: $out"
echo "header: $header"
library=$(echo "$out" | sed -n 's/^library //p')
[ "$library" = "$header" ] || fail "buddypool_version() is '$library', the header says $header"
command=$("$build/buddypool" --version)
[ "$command" = "buddypool $header" ] || fail "buddypool --version says '$command'"
pc=$(sed -n 's/^Version: //p' "$build/buddypool.pc")
[ "$pc" = "$header" ] || fail "buddypool.pc says Version: $pc"
grep -q "PACKAGE_VERSION \"$header\"" "$build/buddypoolConfigVersion.cmake" ||
    fail "buddypoolConfigVersion.cmake does not say $header"
major=${header%%.*}
[ -e "$build/libbuddypool.so.$header" ] || fail "no libbuddypool.so.$header in $build"
readelf -d "$build/libbuddypool.so.$header" | grep -q "SONAME.*\[libbuddypool.so.$major\]" ||
    fail "the soname is not libbuddypool.so.$major"
# debian/changelog's first entry: "buddypool (VERSION) DIST; urgency=..."
deb=$(sed -n '1s/^buddypool (\([^)]*\)).*/\1/p' "$src/debian/changelog")
[ "$deb" = "$header" ] || fail "debian/changelog's latest version is '$deb', the header says $header"
# A build that expects another version (debian/rules passes the changelog's)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if cmake -S "$src" -B "$tmp" -DBUDDYPOOL_TESTS=OFF -DBUDDYPOOL_EXPECT_VERSION=9.9.9 \
        >"$tmp/log" 2>&1; then
    fail "configuring with BUDDYPOOL_EXPECT_VERSION=9.9.9 succeeded"
fi
grep -q "version mismatch: include/buddypool.h says $header, the build expects 9.9.9" "$tmp/log" ||
    { cat "$tmp/log"; fail "no clear message for a version mismatch"; }
echo "check-version: $header everywhere"
