# Cross-build for riscv64: see cross.cmake.
set(BP_CROSS_ARCH riscv64)
include(${CMAKE_CURRENT_LIST_DIR}/cross.cmake)
