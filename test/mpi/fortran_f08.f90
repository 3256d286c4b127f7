! Fortran 2008 bindings (use mpi_f08) through our mpifort: ring exchange
! with MPI_Sendrecv, nonblocking MPI_Isend/MPI_Irecv with MPI_Waitall and
! MPI_Status objects, a strided derived datatype, MPI_Bcast, MPI_Allreduce
! and MPI_Reduce; every value is checked, the ranks agree on the outcome,
! and a failure ends the program with exit status 1.
program fortran_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 1000
  integer :: rank, nranks, left, right, i, errs, total, cnt
  integer :: sendbuf(n), recvbuf(n), grid(4, n), column(n)
  double precision :: x, sx
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: st, sts(2)
  type(MPI_Datatype) :: row

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)

  ! blocking ring: each rank sends its numbers to the right
  do i = 1, n
    sendbuf(i) = rank * 100000 + i
  end do
  recvbuf = -1
  call MPI_Sendrecv(sendbuf, n, MPI_INTEGER, right, 7, recvbuf, n, MPI_INTEGER, left, 7, &
                    MPI_COMM_WORLD, st)
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  if (st%MPI_SOURCE /= left .or. st%MPI_TAG /= 7 .or. cnt /= n) errs = errs + 1
  do i = 1, n
    if (recvbuf(i) /= left * 100000 + i) errs = errs + 1
  end do

  ! nonblocking, the other way round
  recvbuf = -1
  call MPI_Irecv(recvbuf, n, MPI_INTEGER, right, 8, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sendbuf, n, MPI_INTEGER, left, 8, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, sts)
  if (sts(1)%MPI_SOURCE /= right) errs = errs + 1
  do i = 1, n
    if (recvbuf(i) /= right * 100000 + i) errs = errs + 1
  end do

  ! a derived datatype: row 2 of a 4 x n array (stride 4) to the right
  do i = 1, n
    grid(:, i) = -1
    grid(2, i) = rank * 7 + i
  end do
  call MPI_Type_vector(n, 1, 4, MPI_INTEGER, row)
  call MPI_Type_commit(row)
  column = -1
  call MPI_Sendrecv(grid(2, 1), 1, row, right, 9, column, n, MPI_INTEGER, left, 9, &
                    MPI_COMM_WORLD, st)
  call MPI_Type_free(row)
  do i = 1, n
    if (column(i) /= left * 7 + i) errs = errs + 1
  end do

  ! collectives
  x = 0.0d0
  if (rank == 0) x = 2.5d0
  call MPI_Bcast(x, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  if (x /= 2.5d0) errs = errs + 1
  x = dble(rank + 1)
  call MPI_Allreduce(x, sx, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (sx /= dble(nranks) * dble(nranks + 1) / 2.0d0) errs = errs + 1
  call MPI_Reduce(rank, cnt, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. cnt /= nranks - 1) errs = errs + 1

  if (errs > 0) print '(a,i0,a,i0,a)', 'fortran_f08: rank ', rank, ': ', errs, ' wrong values'
  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'fortran_f08: ok (', nranks, ' ranks, use mpi_f08)'
    else
      print '(a,i0,a)', 'fortran_f08: FAIL (', total, ' wrong values)'
    end if
  end if
  call MPI_Finalize()
  if (total /= 0) stop 1
end program fortran_f08
