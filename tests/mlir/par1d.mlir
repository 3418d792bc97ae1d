// par1d.mlir: a 1-D parallel loop as a model compiler emits it (an
// elementwise op over a dynamically sized buffer). Every iteration reports
// itself to the driver through @visit, then writes out[i] = i * scale + 1.
func.func private @visit(i64)

func.func @par1d(%out: memref<?xi64>, %scale: i64) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i64
  %n = memref.dim %out, %c0 : memref<?xi64>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %ii = arith.index_cast %i : index to i64
    func.call @visit(%ii) : (i64) -> ()
    %m = arith.muli %ii, %scale : i64
    %v = arith.addi %m, %one : i64
    memref.store %v, %out[%i] : memref<?xi64>
    scf.reduce
  }
  return
}
