/* mg_zran3.c - NPB MG's charge placement (zran3 in mg.f, NAS RNR-94-007 section 2.2). */
#include "mg_grid.h"
#include "npb_rand.h"

#include <stdlib.h>
#include <string.h>

#define MG_CHARGES 10
#define MG_SEED 314159265.0

/* The extremes kept so far: val[0] is the one a new candidate must beat. */
typedef struct {
    double val[MG_CHARGES], pos[MG_CHARGES];  /* pos: global linear index, exact in a double */
} extremes;

/* Insert (x, p) if it beats val[0]; sign +1 keeps the largest, -1 the smallest. */
static void keep(extremes *e, double x, double p, int sign)
{
    if (!(sign * x > sign * e->val[0]))
        return;
    int i = 0;
    while (i + 1 < MG_CHARGES && sign * x > sign * e->val[i + 1]) {
        e->val[i] = e->val[i + 1];
        e->pos[i] = e->pos[i + 1];
        i++;
    }
    e->val[i] = x;
    e->pos[i] = p;
}

/* NPB's draw in its order: point (x, y, z) of the global n^3 grid gets the (x + n(y + nz))+1-th
 * number of the stream from the seed; a rank jumps to its first plane, each line starts
 * a^n after the last, each plane a^(n^2). */
static void draw(const mg_level *L, double *v)
{
    double a1 = npb_pow46(NPB_A, L->n), a2 = npb_pow46(NPB_A, (long long)L->n * L->n);
    double x0 = MG_SEED;
    npb_randlc(&x0, npb_pow46(NPB_A, (long long)L->n * L->n * L->z0));
    for (int k = 1; k <= L->nz; k++) {
        double x1 = x0;
        for (int j = 1; j <= L->n; j++) {
            double xx = x1;
            npb_vranlc(L->n, &xx, NPB_A, v + 1 + L->sy * (size_t)j + L->sz * (size_t)k);
            npb_randlc(&x1, a1);
        }
        npb_randlc(&x0, a2);
    }
}

/* Global position of local interior point (i, j, k), and back (-1: not on this rank). */
static double global_pos(const mg_level *L, int i, int j, int k)
{
    return (double)(i - 1) + (double)L->n * ((double)(j - 1) + (double)L->n * (L->z0 + k - 1));
}

static long long local_index(const mg_level *L, double pos)
{
    if (pos < 0)
        return -1;
    long long p = (long long)pos, n = L->n;
    long long i = p % n, j = (p / n) % n, k = p / (n * n) - L->z0;
    if (k < 0 || k >= L->nz)
        return -1;
    return (i + 1) + (long long)L->sy * (j + 1) + (long long)L->sz * (k + 1);
}

/* Every rank's extremes to every rank, merged: the global ten of each sign. */
static void merge(mg_ctx *g, extremes e[2])
{
    int P = g->nranks;
    extremes *all = malloc(sizeof(extremes) * 2 * (size_t)P);
    if (!all)
        hpc_fail("npb-mg: no memory to merge the charges of %d ranks", P);
    MPI_Allgather(e, (int)(sizeof(extremes) * 2 / sizeof(double)), MPI_DOUBLE, all,
                  (int)(sizeof(extremes) * 2 / sizeof(double)), MPI_DOUBLE, g->comm);
    for (int s = 0; s < 2; s++) {
        extremes m = all[s];
        for (int r = 1; r < P; r++)
            for (int c = 0; c < MG_CHARGES; c++)
                keep(&m, all[2 * r + s].val[c], all[2 * r + s].pos[c], s ? -1 : 1);
        e[s] = m;
    }
    free(all);
}

void mg_zran3(mg_ctx *g)
{
    const mg_level *L = &g->lev[g->lt];
    double *v = g->v;
    mg_zero(v, L->size);
    draw(L, v);
    /* the draws lie in (0, 1): 0 and 1 are beaten by any of them */
    extremes e[2];
    for (int c = 0; c < MG_CHARGES; c++) {
        e[0].val[c] = 0, e[0].pos[c] = -1;
        e[1].val[c] = 1, e[1].pos[c] = -1;
    }
    for (int k = 1; k <= L->nz; k++)
        for (int j = 1; j <= L->n; j++)
            for (int i = 1; i <= L->n; i++) {
                double x = v[i + L->sy * (size_t)j + L->sz * (size_t)k];
                keep(&e[0], x, global_pos(L, i, j, k), 1);
                keep(&e[1], x, global_pos(L, i, j, k), -1);
            }
    merge(g, e);
    mg_zero(v, L->size);
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < MG_CHARGES; c++) {
            long long at = local_index(L, e[s].pos[c]);
            if (at >= 0)
                v[at] = s ? -1.0 : 1.0;
        }
    mg_fill_ghosts(g, g->lt, v);
}
