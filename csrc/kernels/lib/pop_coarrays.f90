! pop_coarrays.f90 - the Co-Array Fortran halo update and global sum of the POP proxies (the Cray X1
! study's "Co-Array Fortran replacements for communication latency-sensitive routines"),
! called from lib/pop_caf.c, which owns the decomposition. Images are MPI's ranks + 1
! (OpenCoarrays on MPI); offsets from C are 0-based. One field and one sum live at a time: the
! solver's (a coarray's allocation is collective, every image the same size).
module pop_coarrays
  use iso_c_binding
  implicit none
  private
  real(c_double), allocatable, target :: field(:)[:]
  real(c_double), allocatable :: part(:)[:], total(:)[:]
  integer :: peers(8), npeers              ! the distinct remote neighbours' images
contains

  ! Whether this image is MPI rank `rank` of `nranks` (OpenCoarrays started after MPI).
  integer(c_int) function caf_pop_images_are(rank, nranks) bind(C, name="caf_pop_images_are")
    integer(c_int), value :: rank, nranks
    caf_pop_images_are = merge(1, 0, this_image() == rank + 1 .and. num_images() == nranks)
  end function

  ! Collective: the field of n doubles on every image, its local part to C; the neighbours
  ! the halo update synchronises with.
  subroutine caf_pop_field_alloc(n, ranks, nr, p) bind(C, name="caf_pop_field_alloc")
    integer(c_long), value :: n
    integer(c_int), intent(in) :: ranks(8)
    integer(c_int), value :: nr
    type(c_ptr), intent(out) :: p
    allocate(field(n)[*])
    npeers = nr
    peers(1:nr) = ranks(1:nr) + 1
    p = c_loc(field)
  end subroutine

  subroutine caf_pop_field_free() bind(C, name="caf_pop_field_free")
    deallocate(field)        ! collective: no image still writes into it
  end subroutine

  ! Pairwise synchronisation with the neighbours only (the August 2004 version: no barrier).
  subroutine caf_pop_sync_peers() bind(C, name="caf_pop_sync_peers")
    if (npeers > 0) sync images (peers(1:npeers))
  end subroutine

  ! cnt points of my field from src (stride sld) into rank's from dst (stride tld): a row or
  ! a corner is contiguous, a column strided by each block's own row length.
  subroutine caf_pop_put(dst, tld, src, sld, cnt, rank) bind(C, name="caf_pop_put")
    integer(c_long), value :: dst, src
    integer(c_int), value :: tld, sld, cnt, rank
    integer(c_long) :: last
    last = int(cnt - 1, c_long)
    field(dst + 1 : dst + last * tld + 1 : tld)[rank + 1] = &
        field(src + 1 : src + last * sld + 1 : sld)
  end subroutine

  subroutine caf_pop_sum_alloc() bind(C, name="caf_pop_sum_alloc")
    allocate(part(1)[*], total(1)[*])
  end subroutine

  subroutine caf_pop_sum_free() bind(C, name="caf_pop_sum_free")
    deallocate(part, total)
  end subroutine

  ! "GLOBAL SUM: master reads partial sums from remote memory": every image leaves its partial
  ! sum in its own coarray; image 1, once every one has, reads them in image order (the same
  ! bits on every image) and writes the total into each image's coarray.
  real(c_double) function caf_pop_sum(v) bind(C, name="caf_pop_sum")
    real(c_double), value :: v
    real(c_double) :: t
    integer :: r
    part(1) = v
    if (this_image() == 1) then
      sync images (*)          ! every partial sum written
      t = v
      do r = 2, num_images()
        t = t + part(1)[r]
      end do
      do r = 2, num_images()
        total(1)[r] = t
      end do
      sync images (*)          ! every total written (and every partial sum read)
    else
      sync images (1)
      sync images (1)
      t = total(1)
    end if
    caf_pop_sum = t
  end function
end module
