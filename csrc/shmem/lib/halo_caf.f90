! halo_caf.f90 - the Co-Array Fortran halo updates of shmem-halo (the Cray X1 study's Fig. 8.1:
! "Co-Array Fortran replacements for communication latency-sensitive routines"), called from
! the C driver (shmem_halo.c), which times them, fills the edges and checks the ghosts through
! the pointers caf_halo_init returns. Images are MPI's ranks + 1 (OpenCoarrays on MPI).
!
! Sides 1..4 are north, south, west, east (the driver's 0..3); the opposite of side d is
! ieor(d - 1, 1) + 1. nbr(d) is the image of the neighbour on side d.
module halo_caf
  use iso_c_binding
  implicit none
  private
  integer(c_int32_t), allocatable, target :: edge(:, :)[:]      ! (word, side)
  integer(c_int32_t), allocatable, target :: ghost(:, :, :)[:]  ! (word, side, set 0:1)
  integer :: images(4), nimages                                  ! the distinct neighbours
contains

  pure integer function opposite(d)
    integer, intent(in) :: d
    opposite = ieor(d - 1, 1) + 1
  end function

  ! The coarrays for maxw words a side (collective); their local parts to the driver.
  subroutine caf_halo_init(maxw, nbr, edge_p, ghost_p) bind(C, name="caf_halo_init")
    integer(c_long), value :: maxw
    integer(c_int), intent(in) :: nbr(4)
    type(c_ptr), intent(out) :: edge_p, ghost_p
    integer :: d
    allocate(edge(maxw, 4)[*], ghost(maxw, 4, 0:1)[*])
    nimages = 0
    do d = 1, 4   ! sync images takes each image once
      if (all(images(1:nimages) /= nbr(d) + 1)) then
        nimages = nimages + 1
        images(nimages) = nbr(d) + 1
      end if
    end do
    edge_p = c_loc(edge)
    ghost_p = c_loc(ghost)
  end subroutine

  ! Each edge written into the neighbour's ghost, then a global barrier (the study's first
  ! Co-Array version).
  subroutine caf_halo_put(w, nbr) bind(C, name="caf_halo_put")
    integer(c_long), value :: w
    integer(c_int), intent(in) :: nbr(4)
    integer :: d
    do d = 1, 4
      ghost(1:w, opposite(d), 0)[nbr(d) + 1] = edge(1:w, d)
    end do
    sync all
  end subroutine

  ! Each ghost read from the neighbour's edge ("each process reads remote memory to update
  ! the local halo"), then a global barrier.
  subroutine caf_halo_get(w, nbr) bind(C, name="caf_halo_get")
    integer(c_long), value :: w
    integer(c_int), intent(in) :: nbr(4)
    integer :: d
    do d = 1, 4
      ghost(1:w, d, 0) = edge(1:w, opposite(d))[nbr(d) + 1]
    end do
    sync all
  end subroutine

  ! Each edge written into ghost set `set` of the neighbour, then pairwise synchronisation
  ! with the neighbours only (the August version: no global barrier); the sets alternate, so
  ! a neighbour one update ahead writes the other one.
  subroutine caf_halo_sync(w, nbr, set) bind(C, name="caf_halo_sync")
    integer(c_long), value :: w
    integer(c_int), intent(in) :: nbr(4)
    integer(c_int), value :: set
    integer :: d
    do d = 1, 4
      ghost(1:w, opposite(d), set)[nbr(d) + 1] = edge(1:w, d)
    end do
    sync images (images(1:nimages))
  end subroutine

  ! Every image's local stores (the driver's edges and cleared ghosts) done and visible to
  ! the others before any update reads or writes them.
  subroutine caf_halo_barrier() bind(C, name="caf_halo_barrier")
    sync all
  end subroutine

  subroutine caf_halo_free() bind(C, name="caf_halo_free")
    sync all
    deallocate(edge, ghost)
  end subroutine
end module
