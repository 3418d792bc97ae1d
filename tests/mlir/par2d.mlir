// par2d.mlir: a 2-D parallel loop with non-zero lower bounds and steps other
// than 1 (rows 2, 5, 8, ... and columns 1, 3, 5, ... of a dynamically sized
// matrix). The OpenMP lowering collapses both dimensions into one iteration
// space. Each iteration reports (i, j) through @visit2 and writes
// out[i][j] = i * 1000 + j; the other elements are left alone.
func.func private @visit2(i64, i64)

func.func @par2d(%out: memref<?x?xi64>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %k1000 = arith.constant 1000 : i64
  %rows = memref.dim %out, %c0 : memref<?x?xi64>
  %cols = memref.dim %out, %c1 : memref<?x?xi64>
  scf.parallel (%i, %j) = (%c2, %c1) to (%rows, %cols) step (%c3, %c2) {
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    func.call @visit2(%ii, %jj) : (i64, i64) -> ()
    %m = arith.muli %ii, %k1000 : i64
    %v = arith.addi %m, %jj : i64
    memref.store %v, %out[%i, %j] : memref<?x?xi64>
    scf.reduce
  }
  return
}
