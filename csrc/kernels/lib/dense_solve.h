/* dense_solve.h - one ScaLAPACK dense solve (LU with partial pivoting, then the triangular
 * solves) and HPL's check of its answer, for a real (pdgesv, HPL) or complex (pzgesv,
 * AORSA3D) system laid out by dense_matrix.h.
 *
 * The check (HPL's, outside the timing): with A and b regenerated,
 *     r = ||A x - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n)
 * where eps = 2^-53 (LAPACK's dlamch('E'), HPL's), must be finite and below 16.
 */
#ifndef DENSE_SOLVE_H
#define DENSE_SOLVE_H

#include "dense_matrix.h"
#include "scalapack.h"

typedef struct {
    const char *name;     /* "complex", "real": the --kinds word */
    const char *routine;  /* ScaLAPACK's driver the factor + solve amount to: "pzgesv" */
    int elem;             /* doubles per element */
    double flop_scale;    /* real flops per counted operation: a complex multiply-add is 4x */
    dense_getrf_fn *getrf;
    dense_getrs_fn *getrs;
    dense_lange_fn *lange;
    dense_gemv_fn *gemv;
} dense_kind;

/* Indexed by the --kinds word's position: complex, real. */
extern const dense_kind dense_kinds[2];

#define DENSE_RESIDUAL_BOUND 16.0

/* The standard operation count of one solve of order n: HPL's 2/3 n^3 + 3/2 n^2 for a real
 * system, 4x that (8/3 n^3 + 6 n^2) for a complex one. */
double dense_flops(const dense_kind *k, int n);

/* What one solve needs besides A (allocated by dense_work_init). */
typedef struct {
    double *b, *x, *r, *norm_work;  /* right-hand side, solution, residual, p?lange's */
    int *ipiv;
} dense_work;

int dense_work_init(dense_work *w, const dense_layout *l);
void dense_work_free(dense_work *w);

/* Factor A in place (p?getrf); 0 or ScaLAPACK's info. */
int dense_factor(const dense_kind *k, const dense_layout *l, double *a, dense_work *w);
/* x = A^-1 b from the factors (p?getrs, x starts as a copy of b); 0 or info. */
int dense_solve(const dense_kind *k, const dense_layout *l, const double *a, dense_work *w);
/* HPL's scaled residual of x, with a the original matrix (collective over the grid). */
double dense_residual(const dense_kind *k, const dense_layout *l, const double *a,
                      dense_work *w);

#endif
