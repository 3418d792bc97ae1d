// teams.mlir: the host teams construct as MLIR's OpenMP dialect writes it
// (flang's `teams distribute [parallel do]`): a league of num_teams teams
// (__kmpc_push_num_teams_51, __kmpc_fork_teams), a distribute loop with
// the default schedule (__kmpc_for_static_init, 92), with
// dist_schedule(static, 3) (91), and distribute composed with a
// worksharing loop in each team's region (__kmpc_dist_for_static_init).
// Every iteration reports itself through @visit.
llvm.func @visit(i32)

llvm.func @teams_distribute(%n: i32, %nt: i32) {
  omp.teams num_teams(to %nt : i32) {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    omp.distribute {
      omp.loop_nest (%i) : i32 = (%c0) to (%n) step (%c1) {
        llvm.call @visit(%i) : (i32) -> ()
        omp.yield
      }
    }
    omp.terminator
  }
  llvm.return
}

llvm.func @teams_distribute_chunked(%n: i32, %nt: i32) {
  omp.teams num_teams(to %nt : i32) {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    omp.distribute dist_schedule_static dist_schedule_chunk_size(%c3 : i32) {
      omp.loop_nest (%i) : i32 = (%c0) to (%n) step (%c1) {
        llvm.call @visit(%i) : (i32) -> ()
        omp.yield
      }
    }
    omp.terminator
  }
  llvm.return
}

llvm.func @teams_distribute_parallel(%n: i32, %nt: i32) {
  omp.teams num_teams(to %nt : i32) {
    omp.parallel {
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %c1 = llvm.mlir.constant(1 : i32) : i32
      omp.distribute {
        omp.wsloop {
          omp.loop_nest (%i) : i32 = (%c0) to (%n) step (%c1) {
            llvm.call @visit(%i) : (i32) -> ()
            omp.yield
          }
        } {omp.composite}
      } {omp.composite}
      omp.terminator
    } {omp.composite}
    omp.terminator
  }
  llvm.return
}
