# The cross-build settings shared by cmake/toolchain-<arch>.cmake, which set
# BP_CROSS_ARCH first: Debian's cross compiler (<triple>-gcc, package
# gcc-<triple>), the target's C library in /usr/<triple> (package
# libc6-dev-<debian-arch>-cross), and qemu-user (qemu-<arch>) to run the
# tests. tools/check-cross.sh uses them.
if(BP_CROSS_ARCH STREQUAL "riscv64")
  set(triple riscv64-linux-gnu)
  # gcc 12 calls libatomic for 1- and 2-byte atomics (the tests use them)
  set(CMAKE_C_STANDARD_LIBRARIES "-latomic")
elseif(BP_CROSS_ARCH STREQUAL "aarch64")
  set(triple aarch64-linux-gnu)
else()
  message(FATAL_ERROR "cross.cmake: BP_CROSS_ARCH='${BP_CROSS_ARCH}': riscv64 or aarch64")
endif()
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${BP_CROSS_ARCH})
set(CMAKE_C_COMPILER ${triple}-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/${triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${BP_CROSS_ARCH} -L /usr/${triple})
