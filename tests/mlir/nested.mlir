// nested.mlir: a parallel loop inside a parallel loop. The inner loop
// becomes a parallel region forked from inside the outer one, which the pool
// runs serially on the thread running the outer iteration. The inner loop
// also reduces: rowsum[i] = sum over j of (i + 1) * j, combined through
// __kmpc_reduce inside the serialized nested region.
func.func private @visit_outer(i64)
func.func private @visit_inner(i64, i64)

func.func @nested(%out: memref<?x?xi64>, %rowsum: memref<?xi64>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %rows = memref.dim %out, %c0 : memref<?x?xi64>
  %cols = memref.dim %out, %c1 : memref<?x?xi64>
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %ii = arith.index_cast %i : index to i64
    func.call @visit_outer(%ii) : (i64) -> ()
    %w = arith.addi %ii, %one : i64
    %sum = scf.parallel (%j) = (%c0) to (%cols) step (%c1) init (%zero) -> i64 {
      %jj = arith.index_cast %j : index to i64
      func.call @visit_inner(%ii, %jj) : (i64, i64) -> ()
      memref.store %jj, %out[%i, %j] : memref<?x?xi64>
      %p = arith.muli %w, %jj : i64
      scf.reduce(%p : i64) {
      ^bb0(%a: i64, %b: i64):
        %s = arith.addi %a, %b : i64
        scf.reduce.return %s : i64
      }
    }
    memref.store %sum, %rowsum[%i] : memref<?xi64>
    scf.reduce
  }
  return
}
