# Cross-build for aarch64: see cross.cmake.
set(BP_CROSS_ARCH aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/cross.cmake)
