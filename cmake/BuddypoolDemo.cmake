# make demo's program, decode-demo: the decode benchmark (bench/decode,
# a Qwen3-shaped model on synthetic weights) compiled by gcc -fopenmp, so
# its regions call the GOMP_* ABI, and linked with the static library in
# place of libgomp. It needs gcc alone: none of the tests' tools (clang-22,
# libomp, the MLIR tools), so `make demo` builds it with the tests off on a
# machine that has only the compiler and CMake. The flags are the
# benchmark builds' (cmake/BuddypoolOpenMP.cmake).
option(BUDDYPOOL_DEMO "Build make demo's decode program (gcc -fopenmp objects on buddypool)" OFF)
if(NOT BUDDYPOOL_DEMO)
  return()
endif()
if(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "BUDDYPOOL_DEMO: the demo is compiled by gcc -fopenmp, and the C "
    "compiler is ${CMAKE_C_COMPILER} (${CMAKE_C_COMPILER_ID}); configure with CC=gcc")
endif()
add_executable(decode-demo ${PROJECT_SOURCE_DIR}/bench/decode/decode.c)
target_compile_options(decode-demo PRIVATE -fopenmp -O2 -g -ffp-contract=off
  -falign-functions=64 -falign-loops=64 -Wall -Wextra)
target_link_libraries(decode-demo PRIVATE buddypool_static m)
