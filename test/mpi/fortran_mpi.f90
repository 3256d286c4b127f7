! The Fortran 90 bindings (use mpi) through our mpifort: ring exchange with
! MPI_Sendrecv and status arrays, nonblocking MPI_Isend/MPI_Irecv with
! MPI_Waitall, MPI_Bcast of a character string, MPI_Allreduce and
! MPI_Alltoall; every value is checked, the ranks agree on the outcome,
! and a failure ends the program with exit status 1.
program fortran_mpi
  use mpi
  implicit none
  integer, parameter :: n = 500
  integer :: rank, nranks, left, right, i, errs, total, cnt, ierr
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2)
  real :: a(n), b(n)
  integer, allocatable :: sbuf(:), rbuf(:)
  character(len=16) :: word

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)

  do i = 1, n
    a(i) = real(rank) + real(i) / 1024.0
  end do
  b = -1.0
  call MPI_Sendrecv(a, n, MPI_REAL, right, 3, b, n, MPI_REAL, left, 3, MPI_COMM_WORLD, &
                    status, ierr)
  call MPI_Get_count(status, MPI_REAL, cnt, ierr)
  if (ierr /= MPI_SUCCESS .or. status(MPI_SOURCE) /= left .or. cnt /= n) errs = errs + 1
  do i = 1, n
    if (b(i) /= real(left) + real(i) / 1024.0) errs = errs + 1
  end do

  b = -1.0
  call MPI_Irecv(b, n, MPI_REAL, right, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(a, n, MPI_REAL, left, 4, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  if (statuses(MPI_SOURCE, 1) /= right) errs = errs + 1
  do i = 1, n
    if (b(i) /= real(right) + real(i) / 1024.0) errs = errs + 1
  end do

  word = ' '
  if (rank == 0) word = 'multidevice'
  call MPI_Bcast(word, len(word), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  if (word /= 'multidevice') errs = errs + 1

  call MPI_Allreduce(rank, cnt, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (cnt /= nranks * (nranks - 1) / 2) errs = errs + 1

  allocate(sbuf(nranks), rbuf(nranks))
  do i = 1, nranks
    sbuf(i) = rank * 1000 + (i - 1)
  end do
  rbuf = -1
  call MPI_Alltoall(sbuf, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, nranks
    if (rbuf(i) /= (i - 1) * 1000 + rank) errs = errs + 1
  end do

  if (errs > 0) print '(a,i0,a,i0,a)', 'fortran_mpi: rank ', rank, ': ', errs, ' wrong values'
  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'fortran_mpi: ok (', nranks, ' ranks, use mpi)'
    else
      print '(a,i0,a)', 'fortran_mpi: FAIL (', total, ' wrong values)'
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1
end program fortran_mpi
