# Building one OpenMP program for several runtimes, to compare them:
#   libomp    clang-22 -fopenmp objects linked with LLVM's libomp (Debian's
#             libomp-22-dev, found in /usr/lib/llvm-22/lib, rpath set)
#   libgomp   gcc -fopenmp objects linked with GNU libgomp
#   buddypool clang-22 -fopenmp objects linked with libbuddypool instead of
#             libomp: no OpenMP runtime is loaded
# Objects come from custom commands running clang-22 or gcc themselves, and
# the runtimes are linked by path, so the builds are the same whatever the
# project's own C compiler is (a sanitizer build may use clang).
find_program(BP_CLANG NAMES clang-22 HINTS /usr/lib/llvm-22/bin REQUIRED)
find_program(BP_GCC NAMES gcc REQUIRED)
find_library(BP_LIBOMP NAMES omp PATHS /usr/lib/llvm-22/lib NO_DEFAULT_PATH REQUIRED)
get_filename_component(BP_LIBOMP_DIR ${BP_LIBOMP} DIRECTORY)
execute_process(COMMAND ${BP_GCC} -print-file-name=libgomp.so
  OUTPUT_VARIABLE BP_LIBGOMP OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT EXISTS "${BP_LIBGOMP}")
  message(FATAL_ERROR "gcc's libgomp.so not found (gcc -print-file-name=libgomp.so)")
endif()

# bp_openmp_object(<out-var> <src.c> COMPILER clang|gcc NAME <base>
#                  [FLAGS flag...] [INCLUDES dir...] [DEPENDS header...])
# Compiles <src.c> with -O2 -g -fopenmp (and -ffp-contract=off, so every build
# rounds alike; functions and loops aligned to 64 bytes, so that where the
# linker places an object does not change the speed of its hot loops: the
# same gcc decode object ran 3-4% slower linked on buddypool than on libgomp
# until then, with matvec's loop at another offset in the cache line) into
# ${CMAKE_CURRENT_BINARY_DIR}/<base>.o.
function(bp_openmp_object out src)
  cmake_parse_arguments(A "" "COMPILER;NAME" "FLAGS;INCLUDES;DEPENDS" ${ARGN})
  if(A_COMPILER STREQUAL "clang")
    set(cc ${BP_CLANG})
  elseif(A_COMPILER STREQUAL "gcc")
    set(cc ${BP_GCC})
  else()
    message(FATAL_ERROR "bp_openmp_object: COMPILER must be clang or gcc, not '${A_COMPILER}'")
  endif()
  get_filename_component(abs ${src} ABSOLUTE)
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/${A_NAME}.o)
  set(incs)
  foreach(d IN LISTS A_INCLUDES)
    list(APPEND incs -I${d})
  endforeach()
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${cc} -std=gnu11 -O2 -g -fopenmp -fPIC -ffp-contract=off
            -falign-functions=64 -falign-loops=64 ${incs} ${A_FLAGS}
            -c ${abs} -o ${obj}
    DEPENDS ${abs} ${A_DEPENDS}
    COMMENT "Compiling ${src} with ${A_COMPILER} -fopenmp (${A_NAME})"
    VERBATIM)
  set(${out} ${obj} PARENT_SCOPE)
endfunction()

# bp_openmp_program(<name> RUNTIME libomp|libgomp|buddypool
#                   OBJECTS obj... [LIBS lib...])
function(bp_openmp_program name)
  cmake_parse_arguments(A "" "RUNTIME" "OBJECTS;LIBS" ${ARGN})
  add_executable(${name} ${A_OBJECTS})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  if(A_RUNTIME STREQUAL "libomp")
    target_link_libraries(${name} PRIVATE ${BP_LIBOMP} ${A_LIBS} m)
    set_target_properties(${name} PROPERTIES BUILD_RPATH ${BP_LIBOMP_DIR})
  elseif(A_RUNTIME STREQUAL "libgomp")
    target_link_libraries(${name} PRIVATE ${BP_LIBGOMP} Threads::Threads ${A_LIBS} m)
  elseif(A_RUNTIME STREQUAL "buddypool")
    target_link_libraries(${name} PRIVATE buddypool_static ${A_LIBS} m)
  else()
    message(FATAL_ERROR "bp_openmp_program: RUNTIME must be libomp, libgomp or buddypool")
  endif()
endfunction()

# bp_openmp_runtime_tests(<name> PEER libomp|libgomp OBJECTS obj... [LIBS lib...])
# Links the objects twice, as <name>-buddypool and <name>-<peer> (the peer
# validates the test itself), and runs each at 1, 2 and 4 threads
# (OMP_NUM_THREADS); 4 oversubscribes a 2-CPU machine, and buddypool, like the
# peers, gives the team asked for. The buddypool program gets the argument `buddypool` (tests that call an
# ABI directly read it).
function(bp_openmp_runtime_tests name)
  cmake_parse_arguments(A "" "PEER" "OBJECTS;LIBS" ${ARGN})
  bp_openmp_program(${name}-buddypool RUNTIME buddypool OBJECTS ${A_OBJECTS} LIBS ${A_LIBS})
  bp_openmp_program(${name}-${A_PEER} RUNTIME ${A_PEER} OBJECTS ${A_OBJECTS} LIBS ${A_LIBS})
  foreach(n 1 2 4)
    add_test(NAME ${name}-buddypool-${n} COMMAND ${name}-buddypool buddypool)
    add_test(NAME ${name}-${A_PEER}-${n} COMMAND ${name}-${A_PEER})
    set_tests_properties(${name}-buddypool-${n} PROPERTIES
      ENVIRONMENT "OMP_NUM_THREADS=${n}" TIMEOUT 120)
    set_tests_properties(${name}-${A_PEER}-${n} PROPERTIES
      ENVIRONMENT "OMP_NUM_THREADS=${n}" TIMEOUT 120)
  endforeach()
endfunction()

# bp_openmp_env_tests(<name> PEER libomp|libgomp)
# The programs of bp_openmp_runtime_tests(<name>) again under the
# environments that ICV tests read: a nested OMP_NUM_THREADS list, and
# OMP_SCHEDULE values with and without modifiers.
function(bp_openmp_env_tests name)
  cmake_parse_arguments(A "" "PEER" "" ${ARGN})
  set(envs "list|OMP_NUM_THREADS=3,2" "list-wide|OMP_NUM_THREADS=2,4"
    "sched-monotonic|OMP_NUM_THREADS=2|OMP_SCHEDULE=monotonic:guided,7"
    "sched-nonmonotonic|OMP_NUM_THREADS=2|OMP_SCHEDULE=nonmonotonic:dynamic,4"
    "sched-guided|OMP_NUM_THREADS=2|OMP_SCHEDULE=guided"
    "limit|OMP_NUM_THREADS=4|OMP_THREAD_LIMIT=4")
  foreach(e IN LISTS envs)
    string(REPLACE "|" ";" parts "${e}")
    list(GET parts 0 tag)
    list(SUBLIST parts 1 -1 env)
    add_test(NAME ${name}-buddypool-${tag} COMMAND ${name}-buddypool buddypool)
    add_test(NAME ${name}-${A_PEER}-${tag} COMMAND ${name}-${A_PEER})
    set_tests_properties(${name}-buddypool-${tag} ${name}-${A_PEER}-${tag} PROPERTIES
      ENVIRONMENT "${env}" TIMEOUT 120)
  endforeach()
endfunction()

# bp_openmp_places_tests(<name> PEER libomp|libgomp)
# The programs of bp_openmp_runtime_tests(<name>) under OMP_PLACES values.
function(bp_openmp_places_tests name)
  cmake_parse_arguments(A "" "PEER" "" ${ARGN})
  set(envs "threads|OMP_PLACES=threads" "cores-close|OMP_PLACES=cores|OMP_PROC_BIND=close"
    "sockets|OMP_PLACES=sockets" "list|OMP_PLACES={0:2}")
  foreach(e IN LISTS envs)
    string(REPLACE "|" ";" parts "${e}")
    list(GET parts 0 tag)
    list(SUBLIST parts 1 -1 env)
    add_test(NAME ${name}-buddypool-places-${tag} COMMAND ${name}-buddypool buddypool)
    add_test(NAME ${name}-${A_PEER}-places-${tag} COMMAND ${name}-${A_PEER})
    set_tests_properties(${name}-buddypool-places-${tag} ${name}-${A_PEER}-places-${tag}
      PROPERTIES ENVIRONMENT "${env}" TIMEOUT 120)
  endforeach()
endfunction()

# bp_openmp_benchmark(<name> <src.c> [DEPENDS header...])
# One benchmark source as four programs: <name>-libomp (clang + libomp),
# <name>-libgomp (gcc + libgomp), <name>-buddypool (clang objects on
# libbuddypool) and <name>-gcc-buddypool (gcc objects, the GOMP_* ABI, on
# libbuddypool). Each program gets its own object: one custom-command
# output shared by two targets could be built by both at once in a
# parallel make.
function(bp_openmp_benchmark name src)
  cmake_parse_arguments(A "" "" "DEPENDS" ${ARGN})
  bp_openmp_object(libomp_obj ${src} COMPILER clang NAME ${name}-libomp DEPENDS ${A_DEPENDS})
  bp_openmp_object(buddypool_obj ${src} COMPILER clang NAME ${name}-buddypool DEPENDS ${A_DEPENDS})
  bp_openmp_object(libgomp_obj ${src} COMPILER gcc NAME ${name}-libgomp DEPENDS ${A_DEPENDS})
  bp_openmp_object(gcc_buddypool_obj ${src} COMPILER gcc NAME ${name}-gcc-buddypool
    DEPENDS ${A_DEPENDS})
  bp_openmp_program(${name}-libomp RUNTIME libomp OBJECTS ${libomp_obj})
  bp_openmp_program(${name}-libgomp RUNTIME libgomp OBJECTS ${libgomp_obj})
  bp_openmp_program(${name}-buddypool RUNTIME buddypool OBJECTS ${buddypool_obj})
  bp_openmp_program(${name}-gcc-buddypool RUNTIME buddypool OBJECTS ${gcc_buddypool_obj})
endfunction()
