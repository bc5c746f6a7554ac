/* cg_matrix.h - NPB CG's problem classes and its random sparse matrix (NAS report RNR-94-007,
 * "Kernel CG"; NPB 3.4 CG/cg.f, subroutines makea, sprnvc, vecset and sparse).
 *
 * The matrix is A = sum over i = 1..na of size_i * v_i v_i^T + (rcond - shift) I, each v_i a
 * random sparse vector of nonzer distinct positions plus element i set to 0.5, size_i =
 * rcond^((i-1)/na), rcond = 0.1. Every value comes from the NPB generator (npb_rand.h) in one
 * stream, so the elements depend on the order of the draws: every rank draws the whole stream
 * and keeps only the elements of its own rows (a block of rows; all columns). Duplicate
 * (row, column) entries are summed in the order they were generated, as sparse does. */
#ifndef CG_MATRIX_H
#define CG_MATRIX_H

#include <stdint.h>

#define CG_RCOND 0.1     /* NPB's rcond: the smallest eigenvalue of the unshifted sum */

/* One class: its sizes and the verification value of zeta (NPB 3.4 CG/cg.f). */
typedef struct {
    char name;
    int na, nonzer, niter;
    double shift, zeta;
} cg_class;

/* The class called name (S, W, A or B); NULL for any other name. */
const cg_class *cg_class_find(char name);

/* This rank's rows of A in compressed rows, with global column numbers (0-based). */
typedef struct {
    int na, row0, nrows;   /* rows [row0, row0 + nrows) */
    int64_t nnz;           /* stored elements */
    int64_t *rowstr;       /* nrows + 1 offsets into col and a */
    int *col;
    double *a;
} cg_matrix;

/* Generate rows [row0, row0 + nrows) of class c's matrix. 0, or -1 if memory ran out. */
int cg_makea(const cg_class *c, int row0, int nrows, cg_matrix *m);
void cg_matrix_free(cg_matrix *m);

#endif
