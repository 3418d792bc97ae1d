// A loop lowered with num-threads=2: each iteration reports the team size
// it ran in, so the test sees which count its region got.
module {
  func.func private @note_team2(i64)
  func.func @loop_team2(%n: index) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = arith.index_cast %i : index to i64
      func.call @note_team2(%v) : (i64) -> ()
      scf.reduce
    }
    return
  }
}
