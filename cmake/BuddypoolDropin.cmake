# Drop-in mode, for environments that cannot preload: $(BUILD)/dropin holds
# libgomp.so.1 and libomp.so.5, so that
#     LD_LIBRARY_PATH=$(BUILD)/dropin program
# runs a program linked with libgomp or libomp on the pool. Each is an empty
# library (cmake/dropin.c) with the runtime's soname and version nodes
# (cmake/dropin-*.map) whose one dependency is libbuddypool.so.0, found
# through its RUNPATH ($ORIGIN/..): the program's references to GOMP_*,
# __kmpc_* and omp_* bind to buddypool's unversioned definitions, and a
# process that loads both names still has one buddypool and one pool.
# LD_LIBRARY_PATH comes before a program's RUNPATH (as CMake and Debian's
# linker write it) but not before an old-style RPATH: a program linked with
# -Wl,--disable-new-dtags and an RPATH to its runtime keeps that runtime.
#
# Built by default; installed only with BUDDYPOOL_INSTALL_DROPIN=ON, into
# LIBDIR/buddypool/dropin (never beside the real runtimes, which they would
# replace for every program).
option(BUDDYPOOL_DROPIN "Build the drop-in libgomp.so.1 and libomp.so.5 in dropin/" ON)
option(BUDDYPOOL_INSTALL_DROPIN "Install the drop-in libraries in LIBDIR/buddypool/dropin" OFF)
if(NOT BUDDYPOOL_DROPIN)
  return()
endif()
set(bp_dropin_libs "gomp|1|libgomp" "omp|5|libomp")
foreach(entry IN LISTS bp_dropin_libs)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 major)
  list(GET parts 2 map)
  set(t buddypool_dropin_${name})
  add_library(${t} SHARED ${CMAKE_CURRENT_LIST_DIR}/dropin.c)
  # The file is the soname itself (libgomp.so.1): no libgomp.so link a
  # linker's -lgomp could pick up.
  set_target_properties(${t} PROPERTIES OUTPUT_NAME ${name} SUFFIX .so.${major}
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/dropin
    BUILD_RPATH_USE_ORIGIN ON INSTALL_RPATH "$ORIGIN/../..")
  target_link_options(${t} PRIVATE -Wl,--no-as-needed
    -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/dropin-${map}.map)
  set_property(TARGET ${t} APPEND PROPERTY LINK_DEPENDS
    ${CMAKE_CURRENT_LIST_DIR}/dropin-${map}.map)
  target_link_libraries(${t} PRIVATE buddypool_shared)
  if(BUDDYPOOL_INSTALL_DROPIN)
    install(TARGETS ${t} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/buddypool/dropin)
  endif()
endforeach()
