// The decode benchmark's matrix-vector product as a model compiler emits it:
// an scf.parallel over rows (one parallel region per call), each row an
// scf.for dot product that adds the products in column order from 0.0, the
// order of decode.c's C matvec, so both give bit-identical results.
module {
  // y[r] = sum_c w[r, c] * x[c]
  func.func @matvec(%w: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>)
      attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %rows = memref.dim %w, %c0 : memref<?x?xf32>
    %cols = memref.dim %w, %c1 : memref<?x?xf32>
    scf.parallel (%r) = (%c0) to (%rows) step (%c1) {
      %acc = scf.for %c = %c0 to %cols step %c1 iter_args(%s = %zero) -> f32 {
        %a = memref.load %w[%r, %c] : memref<?x?xf32>
        %b = memref.load %x[%c] : memref<?xf32>
        %p = arith.mulf %a, %b : f32
        %t = arith.addf %s, %p : f32
        scf.yield %t : f32
      }
      memref.store %acc, %y[%r] : memref<?xf32>
      scf.reduce
    }
    return
  }
}
