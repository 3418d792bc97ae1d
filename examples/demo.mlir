// The kernels of a small model block, written as a model compiler emits them:
// RMSNorm (a sum-of-squares reduction, then a scale), matrix-vector products
// for the MLP's gate, up and down projections, a gated activation and the
// residual add. Each scf.parallel becomes one parallel region.
module {
  func.func @sumsq(%x: memref<?xf32>) -> f32 attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %n = memref.dim %x, %c0 : memref<?xf32>
    %s = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
      %v = memref.load %x[%i] : memref<?xf32>
      %sq = arith.mulf %v, %v : f32
      scf.reduce(%sq : f32) {
      ^bb0(%a: f32, %b: f32):
        %r = arith.addf %a, %b : f32
        scf.reduce.return %r : f32
      }
    }
    return %s : f32
  }

  // out[i] = x[i] * scale * w[i]
  func.func @rms_apply(%x: memref<?xf32>, %w: memref<?xf32>, %scale: f32,
                       %out: memref<?xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %x[%i] : memref<?xf32>
      %g = memref.load %w[%i] : memref<?xf32>
      %a = arith.mulf %v, %scale : f32
      %b = arith.mulf %a, %g : f32
      memref.store %b, %out[%i] : memref<?xf32>
      scf.reduce
    }
    return
  }

  // y = W x, one row per iteration
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

  // out[i] = max(gate[i], 0) * up[i]
  func.func @gated(%gate: memref<?xf32>, %up: memref<?xf32>, %out: memref<?xf32>)
      attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %n = memref.dim %gate, %c0 : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %g = memref.load %gate[%i] : memref<?xf32>
      %u = memref.load %up[%i] : memref<?xf32>
      %m = arith.maximumf %g, %zero : f32
      %o = arith.mulf %m, %u : f32
      memref.store %o, %out[%i] : memref<?xf32>
      scf.reduce
    }
    return
  }

  // x[i] += y[i]
  func.func @residual(%x: memref<?xf32>, %y: memref<?xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %a = memref.load %x[%i] : memref<?xf32>
      %b = memref.load %y[%i] : memref<?xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %x[%i] : memref<?xf32>
      scf.reduce
    }
    return
  }
}
