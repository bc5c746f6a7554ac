/* dense_lookahead.h - hpceval's own LU with partial pivoting of a real system on a 1 x Q grid
 * (ScaLAPACK's block-cyclic layout: every rank holds whole columns of its column blocks), with
 * HPL's two advantages over ScaLAPACK's pdgetrf: the panel factored by a blocked, recursive LU
 * (LAPACK's dgetrf, OpenBLAS's) instead of the unblocked pdgetf2, and a look-ahead of depth
 * one (the owner of the next panel updates and factors it first, and its broadcast travels
 * while every rank updates the rest of the matrix).
 *
 * It leaves exactly what pdgetrf leaves: L (unit lower) and U in place, the row interchanges
 * applied to whole rows, and ipiv(i) the global row (1-based) that row i was swapped with, so
 * that ScaLAPACK's pdgetrs solves with it and HPL's check is unchanged. */
#ifndef DENSE_LOOKAHEAD_H
#define DENSE_LOOKAHEAD_H

#include "dense_matrix.h"

#include <mpi.h>

/* Factor A (layout l, l->P == 1; comm's ranks are the grid's columns in order); 0, or the
 * first zero pivot's global column (1-based), as p?getrf's info. Collective. */
int dense_lookahead_getrf(const dense_layout *l, double *a, int *ipiv, MPI_Comm comm);

#endif
