/* dense_matrix.h - the dense benchmark's system, block-cyclic on a P x Q BLACS grid.
 *
 * The matrix is a stand-in for an all-orders spectral discretisation (AORSA3D's): every mode
 * couples to every other (a full matrix of pseudo-random couplings u(i, j), uniform in
 * [-1/2, 1/2), both parts for a complex system), and the diagonal carries the mode's own
 * operator, n (real). Each row's off-diagonal entries sum in modulus to at most
 * (n - 1) sqrt(2) / 2 < n, so the matrix is strictly diagonally dominant by rows: nonsingular,
 * with infinity-norm condition number below (1 + 1/sqrt 2) / (1 - 1/sqrt 2), about 6, at every n.
 * The right-hand side b(i) is drawn the same way from another stream.
 *
 * u(i, j) is a hash of the global position (splitmix64 of seed + i n + j), not a sequential
 * stream: every rank writes its own blocks from their global indices, no rank holds or sends
 * the whole matrix, and the system is the same for every grid, block size and rank count.
 * Regenerating the matrix after a solve restores the original for the residual check.
 */
#ifndef DENSE_MATRIX_H
#define DENSE_MATRIX_H

#include <stddef.h>

typedef struct {
    int n, nb;            /* order, square block size */
    int ctxt, P, Q, myrow, mycol;
    int mloc, nloc, lld;  /* this rank's rows and columns of A, leading dimension */
    int vloc;             /* this rank's elements of a vector (n x 1, on process column 0) */
    int elem;             /* doubles per element: 1 real, 2 complex */
    int desca[9], descb[9];
} dense_layout;

/* The layout of an n x n system on the grid ctxt (Cblacs_gridinit'ed); 0, or ScaLAPACK's
 * descinit info. */
int dense_layout_init(dense_layout *l, int n, int nb, int ctxt, int elem);

/* Elements (doubles) of this rank's part of A and of a vector. */
size_t dense_matrix_doubles(const dense_layout *l);
size_t dense_vector_doubles(const dense_layout *l);

/* Write this rank's blocks of A (column-major, leading dimension lld) and of b. */
void dense_fill_matrix(const dense_layout *l, double *a);
void dense_fill_rhs(const dense_layout *l, double *b);

#endif
