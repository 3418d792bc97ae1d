// A model library's kernels: y = 2 * x (a plain parallel loop) and sum(y)
// (a parallel reduction), the two shapes a model's steps lower to.
module {
  func.func @model_scale(%x: memref<?xf64>, %y: memref<?xf64>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %two = arith.constant 2.0 : f64
    %n = memref.dim %x, %c0 : memref<?xf64>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %x[%i] : memref<?xf64>
      %w = arith.mulf %v, %two : f64
      memref.store %w, %y[%i] : memref<?xf64>
      scf.reduce
    }
    return
  }
  func.func @model_sum(%x: memref<?xf64>) -> f64 attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f64
    %n = memref.dim %x, %c0 : memref<?xf64>
    %s = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f64 {
      %v = memref.load %x[%i] : memref<?xf64>
      scf.reduce(%v : f64) {
      ^bb0(%a: f64, %b: f64):
        %r = arith.addf %a, %b : f64
        scf.reduce.return %r : f64
      }
    }
    return %s : f64
  }
}
