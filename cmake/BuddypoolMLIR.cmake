# Lowering of MLIR files to objects the way a model compiler does it:
# scf.parallel -> OpenMP -> LLVM dialect -> LLVM IR -> PIC object.
# memref goes to LLVM before scf goes to cf: -convert-scf-to-openmp wraps
# each loop body in memref.alloca_scope, which must still hold one block when
# it is lowered, and an scf.for inside the body would be split into several.
find_program(BP_MLIR_OPT NAMES mlir-opt-22 mlir-opt HINTS /usr/lib/llvm-22/bin REQUIRED)
find_program(BP_MLIR_TRANSLATE NAMES mlir-translate-22 mlir-translate HINTS /usr/lib/llvm-22/bin REQUIRED)
find_program(BP_LLC NAMES llc-22 llc HINTS /usr/lib/llvm-22/bin REQUIRED)

# bp_mlir_object(<out-var> <file.mlir> [NUM_THREADS n] [NAME base])
# Lowers <file.mlir> into ${CMAKE_CURRENT_BINARY_DIR}/<base>.o and puts the
# object's path in <out-var>. NUM_THREADS n adds num_threads(n) to every
# parallel loop (a __kmpc_push_num_threads before each fork).
function(bp_mlir_object out src)
  cmake_parse_arguments(A "" "NUM_THREADS;NAME" "" ${ARGN})
  get_filename_component(base ${src} NAME_WE)
  if(A_NAME)
    set(base ${A_NAME})
  endif()
  set(scf_to_omp -convert-scf-to-openmp)
  if(A_NUM_THREADS)
    set(scf_to_omp -convert-scf-to-openmp=num-threads=${A_NUM_THREADS})
  endif()
  get_filename_component(abs ${src} ABSOLUTE)
  set(dir ${CMAKE_CURRENT_BINARY_DIR})
  add_custom_command(
    OUTPUT ${dir}/${base}.o
    COMMAND ${BP_MLIR_OPT} ${abs} ${scf_to_omp} -finalize-memref-to-llvm
            -convert-scf-to-cf -convert-arith-to-llvm -convert-index-to-llvm
            -convert-cf-to-llvm -convert-openmp-to-llvm -convert-func-to-llvm
            -reconcile-unrealized-casts -o ${dir}/${base}.llvm.mlir
    COMMAND ${BP_MLIR_TRANSLATE} -mlir-to-llvmir ${dir}/${base}.llvm.mlir -o ${dir}/${base}.ll
    COMMAND ${BP_LLC} -O2 -filetype=obj -relocation-model=pic ${dir}/${base}.ll -o ${dir}/${base}.o
    DEPENDS ${abs}
    COMMENT "Lowering ${src} (MLIR -> OpenMP -> object)"
    VERBATIM)
  set(${out} ${dir}/${base}.o PARENT_SCOPE)
endfunction()
