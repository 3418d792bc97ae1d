// reduce.mlir: parallel reductions (scf.reduce), which the OpenMP lowering
// turns into __kmpc_reduce with a combiner function. Each kernel starts from
// a caller-given initial value, so the result checks that it is combined in
// exactly once. The values summed are small integers: every partial sum is
// exact in f32 and f64, so results do not depend on the combining order.
func.func private @visit(i64)

// sum over i of in[i], plus init (i64, arith.addi).
func.func @sum_i64(%in: memref<?xi64>, %init: i64) -> i64 attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?xi64>
  %r = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%init) -> i64 {
    %ii = arith.index_cast %i : index to i64
    func.call @visit(%ii) : (i64) -> ()
    %v = memref.load %in[%i] : memref<?xi64>
    scf.reduce(%v : i64) {
    ^bb0(%a: i64, %b: i64):
      %s = arith.addi %a, %b : i64
      scf.reduce.return %s : i64
    }
  }
  return %r : i64
}

// sum over i of in[i], plus init (f64, arith.addf).
func.func @sum_f64(%in: memref<?xf64>, %init: f64) -> f64 attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?xf64>
  %r = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%init) -> f64 {
    %ii = arith.index_cast %i : index to i64
    func.call @visit(%ii) : (i64) -> ()
    %v = memref.load %in[%i] : memref<?xf64>
    scf.reduce(%v : f64) {
    ^bb0(%a: f64, %b: f64):
      %s = arith.addf %a, %b : f64
      scf.reduce.return %s : f64
    }
  }
  return %r : f64
}

// sum over i of in[i], plus init (f32, arith.addf).
func.func @sum_f32(%in: memref<?xf32>, %init: f32) -> f32 attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  %r = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%init) -> f32 {
    %ii = arith.index_cast %i : index to i64
    func.call @visit(%ii) : (i64) -> ()
    %v = memref.load %in[%i] : memref<?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}

// Three reductions of one loop (one __kmpc_reduce with three variables):
// res_i[0] = sum of in_i, res_d[0] = sum of in_d, res_f[0] = sum of in_f,
// each from zero. All three inputs have the size of in_i.
func.func @sum_mixed(%in_i: memref<?xi64>, %in_d: memref<?xf64>, %in_f: memref<?xf32>,
                     %res_i: memref<1xi64>, %res_d: memref<1xf64>, %res_f: memref<1xf32>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zi = arith.constant 0 : i64
  %zd = arith.constant 0.0 : f64
  %zf = arith.constant 0.0 : f32
  %n = memref.dim %in_i, %c0 : memref<?xi64>
  %ri, %rd, %rf = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zi, %zd, %zf) -> (i64, f64, f32) {
    %ii = arith.index_cast %i : index to i64
    func.call @visit(%ii) : (i64) -> ()
    %vi = memref.load %in_i[%i] : memref<?xi64>
    %vd = memref.load %in_d[%i] : memref<?xf64>
    %vf = memref.load %in_f[%i] : memref<?xf32>
    scf.reduce(%vi, %vd, %vf : i64, f64, f32) {
    ^bb0(%a: i64, %b: i64):
      %s = arith.addi %a, %b : i64
      scf.reduce.return %s : i64
    }, {
    ^bb0(%a: f64, %b: f64):
      %s = arith.addf %a, %b : f64
      scf.reduce.return %s : f64
    }, {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  memref.store %ri, %res_i[%c0] : memref<1xi64>
  memref.store %rd, %res_d[%c0] : memref<1xf64>
  memref.store %rf, %res_f[%c0] : memref<1xf32>
  return
}
