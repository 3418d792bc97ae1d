#!/bin/sh
# test-install.sh BUILD_DIR MODEL_OBJECT: install buddypool into a scratch
# prefix, then link MLIR-lowered kernels against it the ways a user would:
# with pkg-config (shared, static archive, fully static) and with CMake's
# find_package. Each program must run right with no OpenMP runtime loaded.
set -eu
if [ -n "${BP_SKIP:-}" ]; then
    echo "skipped: $BP_SKIP"
    exit 77
fi
build=$1
model=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cc=${CC:-cc}

cmake --install "$build" --prefix "$prefix" >/dev/null
"$prefix/bin/buddypool" run -- sh -c 'case " $LD_PRELOAD " in *" '"$prefix"'/bin/../lib/libbuddypool.so.0 "*) ;; *) exit 1;; esac' ||
    { echo "the installed buddypool command does not preload the installed library"; exit 1; }
for f in bin/buddypool include/buddypool.h lib/libbuddypool.a lib/libbuddypool.so \
         lib/pkgconfig/buddypool.pc lib/cmake/buddypool/buddypoolConfig.cmake; do
    [ -e "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cflags=$(pkg-config --cflags buddypool)
libs=$(pkg-config --libs --static buddypool)
echo "pkg-config --libs --static buddypool: $libs"

no_omp() { # the program loads no OpenMP runtime
    if ldd "$1" | grep -E 'lib(g?omp|iomp)' ; then echo "$1 loads an OpenMP runtime"; exit 1; fi
}

# 1. as pkg-config gives it (the shared library, found through the rpath)
$cc $cflags "$here/install/driver.c" "$model" $libs -o "$work/driver-shared"
no_omp "$work/driver-shared"
loaded=$(ldd "$work/driver-shared" | awk '/libbuddypool/ {print $3}')
[ "$(realpath "$loaded")" = "$(realpath "$prefix/lib/libbuddypool.so")" ] ||
    { echo "shared: loads '$loaded', not the installed library"; exit 1; }
"$work/driver-shared"

# 2. the static archive, the rest dynamic
$cc $cflags "$here/install/driver.c" "$model" -Wl,-Bstatic $libs -Wl,-Bdynamic -o "$work/driver-static"
no_omp "$work/driver-static"
if ldd "$work/driver-static" | grep -q libbuddypool; then echo "static: still loads libbuddypool.so"; exit 1; fi
"$work/driver-static"

# 3. fully static
$cc $cflags "$here/install/driver.c" "$model" -static $libs -o "$work/driver-full-static"
"$work/driver-full-static"

# 4. CMake's find_package and the exported target
cmake -S "$here/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
      -DMODEL_OBJECT="$model" >/dev/null
cmake --build "$work/consumer" >/dev/null
no_omp "$work/consumer/driver-cmake"
"$work/consumer/driver-cmake"
echo "test-install: installed layout, pkg-config and find_package all link and run"
