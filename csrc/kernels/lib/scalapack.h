/* scalapack.h - the BLACS, ScaLAPACK and PBLAS routines the dense benchmark calls.
 *
 * Debian's libscalapack-openmpi / libscalapack-mpich ship no C header, so the prototypes are
 * declared here, as ScaLAPACK's own C examples do. A complex array is passed as interleaved
 * doubles (re, im), the layout of Fortran's COMPLEX*16, so the real and complex routines share
 * one signature. The Fortran routines (p?getrf, p?getrs, p?lange) take a hidden length per
 * character argument (gfortran's convention), passed as 1: LAPACK-style code may forward a
 * character argument in a tail call that reads it. PBLAS (p?gemv) is C and takes none.
 */
#ifndef DENSE_SCALAPACK_H
#define DENSE_SCALAPACK_H

#include <stddef.h>

/* BLACS: process grids over MPI_COMM_WORLD. */
void Cblacs_pinfo(int *me, int *nprocs);
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int keep_mpi);

/* Local rows or columns of a block-cyclic dimension; array descriptors. */
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc,
            const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);

/* LU with partial pivoting, and the solve with its factors (d: real, z: complex). */
typedef void dense_getrf_fn(const int *m, const int *n, double *a, const int *ia, const int *ja,
                            const int *desca, int *ipiv, int *info);
typedef void dense_getrs_fn(const char *trans, const int *n, const int *nrhs, const double *a,
                            const int *ia, const int *ja, const int *desca, const int *ipiv,
                            double *b, const int *ib, const int *jb, const int *descb, int *info,
                            size_t trans_len);
/* A norm of a distributed matrix ('I': the largest row sum of absolute values). */
typedef double dense_lange_fn(const char *norm, const int *m, const int *n, const double *a,
                              const int *ia, const int *ja, const int *desca, double *work,
                              size_t norm_len);
/* y = alpha op(A) x + beta y. */
typedef void dense_gemv_fn(const char *trans, const int *m, const int *n, const double *alpha,
                           const double *a, const int *ia, const int *ja, const int *desca,
                           const double *x, const int *ix, const int *jx, const int *descx,
                           const int *incx, const double *beta, double *y, const int *iy,
                           const int *jy, const int *descy, const int *incy);

dense_getrf_fn pdgetrf_, pzgetrf_;
dense_getrs_fn pdgetrs_, pzgetrs_;
dense_lange_fn pdlange_, pzlange_;
dense_gemv_fn pdgemv_, pzgemv_;

#endif
