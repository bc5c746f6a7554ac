/* dense_solve.c - ScaLAPACK's factorisation and solve, and HPL's residual check (dense_solve.h). */
#include "dense_solve.h"

#include <stdlib.h>
#include <string.h>

const dense_kind dense_kinds[2] = {
    {"complex", "pzgesv", 2, 4.0, pzgetrf_, pzgetrs_, pzlange_, pzgemv_},
    {"real", "pdgesv", 1, 1.0, pdgetrf_, pdgetrs_, pdlange_, pdgemv_},
};

static const double EPS = 0x1p-53;  /* relative machine precision, LAPACK's dlamch('E') */

double dense_flops(const dense_kind *k, int n)
{
    double nn = (double)n;
    return k->flop_scale * (2.0 / 3.0 * nn * nn * nn + 1.5 * nn * nn);
}

int dense_work_init(dense_work *w, const dense_layout *l)
{
    size_t v = dense_vector_doubles(l) * sizeof(double);
    /* p?lange('I') needs a local row count of work; p?getrf, local rows + NB pivots */
    w->b = malloc(v);
    w->x = malloc(v);
    w->r = malloc(v);
    w->norm_work = malloc((size_t)(l->mloc + l->nb) * sizeof(double));
    w->ipiv = malloc((size_t)(l->mloc + l->nb) * sizeof(int));
    return w->b && w->x && w->r && w->norm_work && w->ipiv ? 0 : -1;
}

void dense_work_free(dense_work *w)
{
    free(w->b);
    free(w->x);
    free(w->r);
    free(w->norm_work);
    free(w->ipiv);
}

int dense_factor(const dense_kind *k, const dense_layout *l, double *a, dense_work *w)
{
    int one = 1, info = 0;
    k->getrf(&l->n, &l->n, a, &one, &one, l->desca, w->ipiv, &info);
    return info;
}

int dense_solve(const dense_kind *k, const dense_layout *l, const double *a, dense_work *w)
{
    int one = 1, info = 0;
    k->getrs("N", &l->n, &one, a, &one, &one, l->desca, w->ipiv, w->x, &one, &one, l->descb,
             &info, 1);
    return info;
}

static double vector_norm(const dense_kind *k, const dense_layout *l, const double *v,
                          double *work)
{
    int one = 1;
    return k->lange("I", &l->n, &one, v, &one, &one, l->descb, work, 1);
}

double dense_residual(const dense_kind *k, const dense_layout *l, const double *a,
                      dense_work *w)
{
    int one = 1;
    const double alpha[2] = {1.0, 0.0}, beta[2] = {-1.0, 0.0};
    double anorm = k->lange("I", &l->n, &l->n, a, &one, &one, l->desca, w->norm_work, 1);
    double xnorm = vector_norm(k, l, w->x, w->norm_work);
    double bnorm = vector_norm(k, l, w->b, w->norm_work);
    memcpy(w->r, w->b, dense_vector_doubles(l) * sizeof(double));
    k->gemv("N", &l->n, &l->n, alpha, a, &one, &one, l->desca, w->x, &one, &one, l->descb, &one,
            beta, w->r, &one, &one, l->descb, &one);
    double rnorm = vector_norm(k, l, w->r, w->norm_work);
    return rnorm / (EPS * (anorm * xnorm + bnorm) * (double)l->n);
}
