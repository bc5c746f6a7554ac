/* dense_matrix.c - the dense benchmark's matrix and right-hand side, generated in place on
 * every rank from global indices (dense_matrix.h says how the system is built). */
#include "dense_matrix.h"
#include "scalapack.h"

#include <stdint.h>

static const uint64_t MATRIX_SEED = 0x41524f5341334455ULL;  /* "AORSA3DU" */
static const uint64_t RHS_SEED = 0x48504c2d52485321ULL;     /* "HPL-RHS!" */

int dense_layout_init(dense_layout *l, int n, int nb, int ctxt, int elem)
{
    int zero = 0, one = 1, info = 0;
    l->n = n;
    l->nb = nb;
    l->ctxt = ctxt;
    l->elem = elem;
    Cblacs_gridinfo(ctxt, &l->P, &l->Q, &l->myrow, &l->mycol);
    l->mloc = numroc_(&n, &nb, &l->myrow, &zero, &l->P);
    l->nloc = numroc_(&n, &nb, &l->mycol, &zero, &l->Q);
    l->vloc = l->mycol == 0 ? l->mloc : 0;
    l->lld = l->mloc > 1 ? l->mloc : 1;
    descinit_(l->desca, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &l->lld, &info);
    if (info == 0)
        descinit_(l->descb, &n, &one, &nb, &nb, &zero, &zero, &ctxt, &l->lld, &info);
    return info;
}

size_t dense_matrix_doubles(const dense_layout *l)
{
    return (size_t)l->lld * (size_t)(l->nloc > 0 ? l->nloc : 1) * (size_t)l->elem;
}

size_t dense_vector_doubles(const dense_layout *l)
{
    return (size_t)l->lld * (size_t)l->elem;
}

/* splitmix64: a well-mixed 64-bit hash of a counter. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Uniform in [-1/2, 1/2) from position k of stream seed. */
static double uniform(uint64_t seed, uint64_t k)
{
    return (double)(mix(seed + k) >> 11) * 0x1p-53 - 0.5;
}

/* Global index of local index loc of a block-cyclic dimension (source process 0). */
static int global_index(int loc, int nb, int me, int nprocs)
{
    return (loc / nb * nprocs + me) * nb + loc % nb;
}

/* Element k of a stream: one double, or two (re, im) from positions 2k and 2k + 1. */
static void element(double *out, int elem, uint64_t seed, uint64_t k)
{
    for (int c = 0; c < elem; c++)
        out[c] = uniform(seed, (uint64_t)elem * k + (uint64_t)c);
}

void dense_fill_matrix(const dense_layout *l, double *a)
{
    uint64_t n = (uint64_t)l->n;
    for (int lj = 0; lj < l->nloc; lj++) {
        int j = global_index(lj, l->nb, l->mycol, l->Q);
        double *col = a + (size_t)lj * (size_t)l->lld * (size_t)l->elem;
        for (int li = 0; li < l->mloc; li++) {
            int i = global_index(li, l->nb, l->myrow, l->P);
            double *e = col + (size_t)li * (size_t)l->elem;
            element(e, l->elem, MATRIX_SEED, (uint64_t)i * n + (uint64_t)j);
            if (i == j)
                e[0] += (double)l->n;
        }
    }
}

void dense_fill_rhs(const dense_layout *l, double *b)
{
    for (int li = 0; li < l->vloc; li++)
        element(b + (size_t)li * (size_t)l->elem, l->elem, RHS_SEED,
                (uint64_t)global_index(li, l->nb, l->myrow, l->P));
}
