! omp-api.f90: the OpenMP API from Fortran (gfortran's omp_*_ names, and
! the omp_*_8_ ones when built with -fdefault-integer-8), on buddypool and
! on libgomp: each thread's number and the team's size, the nesting
! queries, the setters read back, simple and nestable locks counting exact
! sums. Run with OMP_NUM_THREADS set; prints "all checks passed" or the
! failed checks, and ends with status 1 on a failure.
program omp_api
  use omp_lib
  implicit none
  interface check
    procedure check4, check8
  end interface check
  integer, parameter :: maxt = 64, reps = 2000
  integer :: n, team, i, fails, counter, nested_ok
  integer :: seen(0:maxt - 1), level1(0:maxt - 1), anc(0:maxt - 1), size1(0:maxt - 1)
  integer :: chunk
  integer(omp_sched_kind) :: kind
  integer(omp_lock_kind) :: lck
  integer(omp_nest_lock_kind) :: nlck
  integer(omp_event_handle_kind) :: ev
  integer :: dran, nfmt, ncap
  character(len=64) :: fmt
  character(len=200) :: cap
  type(omp_alloctrait) :: traits(1)
  integer(omp_allocator_handle_kind) :: al
  logical :: inpar(0:maxt - 1)
  character(len=16) :: env
  double precision :: t0, t1

  fails = 0
  call get_environment_variable("OMP_NUM_THREADS", env)
  read (env, *) n
  call check(omp_get_max_threads() == n, "omp_get_max_threads is OMP_NUM_THREADS")
  call check(.not. omp_in_parallel(), "omp_in_parallel outside a region")
  call check(omp_get_level() == 0, "omp_get_level outside a region")
  call check(omp_get_thread_num() == 0, "omp_get_thread_num outside a region")
  call check(omp_get_num_threads() == 1, "omp_get_num_threads outside a region")
  call check(omp_get_num_procs() >= 1, "omp_get_num_procs")

  seen = 0
  counter = 0
  nested_ok = 0
  team = 0
  call omp_init_lock(lck)
  call omp_init_nest_lock(nlck)
  !$omp parallel private(i) shared(seen, counter, nested_ok, team, level1, anc, size1, inpar)
  !$omp single
  team = omp_get_num_threads()
  !$omp end single
  seen(omp_get_thread_num()) = seen(omp_get_thread_num()) + 1
  level1(omp_get_thread_num()) = omp_get_level()
  anc(omp_get_thread_num()) = omp_get_ancestor_thread_num(1) - omp_get_thread_num()
  size1(omp_get_thread_num()) = omp_get_team_size(1)
  inpar(omp_get_thread_num()) = omp_in_parallel()
  do i = 1, reps
    call omp_set_lock(lck)
    counter = counter + 1
    call omp_unset_lock(lck)
  end do
  call omp_set_nest_lock(nlck)
  call omp_set_nest_lock(nlck)
  if (omp_test_nest_lock(nlck) == 3) then
    nested_ok = nested_ok + 1
  end if
  call omp_unset_nest_lock(nlck)
  call omp_unset_nest_lock(nlck)
  call omp_unset_nest_lock(nlck)
  !$omp end parallel
  call check(team == n, "the team has OMP_NUM_THREADS threads")
  do i = 0, team - 1
    call check(seen(i) == 1, "each thread number once")
    call check(level1(i) == 1, "omp_get_level in the region")
    call check(anc(i) == 0, "omp_get_ancestor_thread_num(1) is the thread's number")
    call check(size1(i) == team, "omp_get_team_size(1) is the team's")
    call check(inpar(i) .eqv. (team > 1), "omp_in_parallel in an active region")
  end do
  call check(counter == team * reps, "a simple lock: every increment")
  call check(nested_ok == team, "a nestable lock: its depth")
  call check(omp_test_lock(lck), "omp_test_lock on a free lock")
  call check(.not. omp_test_lock(lck), "omp_test_lock on a held lock")
  call omp_unset_lock(lck)
  call omp_destroy_lock(lck)
  call omp_destroy_nest_lock(nlck)

  ! a detached task, completed by omp_fulfill_event (the event by value)
  dran = 0
  !$omp parallel shared(ev, dran)
  !$omp single
  !$omp task detach(ev) shared(dran)
  dran = dran + 1
  !$omp end task
  call omp_fulfill_event(ev)
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  call check(dran == 1, "omp_fulfill_event: the detached task ran and completed")

  ! the affinity format's character routines, and an allocator with a trait
  call omp_set_affinity_format("T%n of %N")
  nfmt = omp_get_affinity_format(fmt)
  call check(nfmt == 9 .and. fmt == "T%n of %N", "omp_set_affinity_format read back")
  ncap = omp_capture_affinity(cap, "thread %n")
  call check(ncap == 8 .and. cap == "thread 0", "omp_capture_affinity outside a region")
  traits(1) = omp_alloctrait(omp_atk_alignment, 64)
  al = omp_init_allocator(omp_default_mem_space, 1, traits)
  call check(al /= omp_null_allocator, "omp_init_allocator with an alignment trait")
  call omp_destroy_allocator(al)

  call omp_set_num_threads(3)
  call check(omp_get_max_threads() == 3, "omp_set_num_threads(3)")
  !$omp parallel shared(team)
  !$omp single
  team = omp_get_num_threads()
  !$omp end single
  !$omp end parallel
  call check(team == 3, "a region after omp_set_num_threads(3)")
  call omp_set_schedule(omp_sched_dynamic, 5)
  call omp_get_schedule(kind, chunk)
  call check(kind == omp_sched_dynamic .and. chunk == 5, "omp_set_schedule read back")
  call omp_set_dynamic(.true.)
  call check(omp_get_dynamic(), "omp_set_dynamic(.true.) read back")
  call omp_set_dynamic(.false.)
  call check(.not. omp_get_dynamic(), "omp_set_dynamic(.false.) read back")
  call omp_set_max_active_levels(2)
  call check(omp_get_max_active_levels() == 2, "omp_set_max_active_levels read back")
  call check(omp_get_ancestor_thread_num(0) == 0, "omp_get_ancestor_thread_num(0)")
  call check(omp_get_team_size(0) == 1, "omp_get_team_size(0)")
  call check(omp_get_ancestor_thread_num(1) == -1, "omp_get_ancestor_thread_num past the level")
  call check(.not. omp_in_final(), "omp_in_final outside a task")
  call check(omp_get_num_devices() >= 0, "omp_get_num_devices")
  call check(omp_get_wtick() > 0.0d0, "omp_get_wtick")
  t0 = omp_get_wtime()
  t1 = omp_get_wtime()
  call check(t1 >= t0, "omp_get_wtime does not go back")

  if (fails /= 0) then
    print '(a, i0, a)', "omp-api: ", fails, " checks failed"
    error stop 1
  end if
  print '(a, i0, a)', "omp-api: ", n, " threads: all checks passed"

contains

  ! omp_lib's logicals are of kind 4, the program's default ones of 8 under
  ! -fdefault-integer-8: a check for each
  subroutine check4(ok, what)
    logical(4), intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      fails = fails + 1
      print '(a, a)', "omp-api: CHECK failed: ", what
    end if
  end subroutine check4

  subroutine check8(ok, what)
    logical(8), intent(in) :: ok
    character(len=*), intent(in) :: what
    call check4(logical(ok, 4), what)
  end subroutine check8

end program omp_api
