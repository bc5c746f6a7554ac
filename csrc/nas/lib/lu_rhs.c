/* lu_rhs.c - NPB LU's spatial operator R(u) (its rhs and erhs): for each direction, central
 * differences of the inviscid fluxes, the viscous fluxes at the half points, second differences
 * (diffusion) and the fourth-difference artificial dissipation, one-sided at the two points
 * next to the boundary. Per direction, one pass computes the inviscid fluxes, one the viscous
 * ones (each in a scratch field), and one adds the three terms at every point, over the local
 * interior box plane by plane (x fastest). */
#include "lu_grid.h"

#include "adi_rhs.h"


typedef struct {
    int lo[3], hi[3];   /* inclusive local ranges of i, j, k */
} box;

/* The fourth-difference weights at offsets -2..2 for global point gp of n0 (NPB's rhs: the
 * one-sided forms at 2, 3, n0-2 and n0-1). */
static const double *dissipation(int gp, int n0)
{
    static const double W[5][5] = {{1, -4, 6, -4, 1}, {0, 0, 5, -4, 1}, {0, -4, 6, -4, 1},
                                   {1, -4, 6, -4, 0}, {1, -4, 5, 0, 0}};
    if (gp == 2)
        return W[1];
    if (gp == 3)
        return W[2];
    if (gp == n0 - 2)
        return W[3];
    if (gp == n0 - 1)
        return W[4];
    return W[0];
}

/* The inviscid flux along momentum component c (1 x, 2 y, 3 z) of state u. */
static inline void inviscid(const double *u, int c, double *f)
{
    double vc = u[c] / u[0];
    double q = 0.5 * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) / u[0];
    f[0] = u[c];
    for (int m = 1; m <= 3; m++)
        f[m] = u[m] * vc;
    f[c] += C2 * (u[4] - q);
    f[4] = (C1 * u[4] - C2 * q) * vc;
}

/* The viscous flux between states um (behind) and u along component c. */
static inline void viscous(const double *um, const double *u, int c, double t3, double *f)
{
    double r = 1.0 / u[0], rm = 1.0 / um[0];
    double v[4], vm[4];
    for (int m = 1; m <= 4; m++) {
        v[m - 1] = r * u[m];
        vm[m - 1] = rm * um[m];
    }
    for (int m = 1; m <= 3; m++)
        f[m] = (m == c ? 4.0 / 3.0 : 1.0) * t3 * (v[m - 1] - vm[m - 1]);
    f[4] = 0.5 * (1.0 - C1 * C5) * t3
               * ((v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
                  - (vm[0] * vm[0] + vm[1] * vm[1] + vm[2] * vm[2]))
           + (1.0 / 6.0) * t3 * (v[c - 1] * v[c - 1] - vm[c - 1] * vm[c - 1])
           + C1 * C5 * t3 * (v[3] - vm[3]);
}

/* b widened in direction d by lo points before and hi after. */
static box widen(box b, int d, int lo, int hi)
{
    b.lo[d] -= lo;
    b.hi[d] += hi;
    return b;
}

static void fluxes(lu_ctx *g, double *flux, double *a, box b, int d)
{
    for (int k = b.lo[2]; k <= b.hi[2]; k++)
        for (int j = b.lo[1]; j <= b.hi[1]; j++)
            for (int i = b.lo[0]; i <= b.hi[0]; i++)
                inviscid(lu_at(g, a, i, j, k), d + 1, lu_at(g, flux, i, j, k));
}

static void half_fluxes(lu_ctx *g, double *flux, double *a, box b, int d, size_t s)
{
    for (int k = b.lo[2]; k <= b.hi[2]; k++)
        for (int j = b.lo[1]; j <= b.hi[1]; j++)
            for (int i = b.lo[0]; i <= b.hi[0]; i++) {
                const double *p = lu_at(g, a, i, j, k);
                viscous(p - s, p, d + 1, g->dir[d].t3, lu_at(g, flux, i, j, k));
            }
}

/* The point's three terms of direction d, in NPB's order: the inviscid fluxes' central
 * difference (F), the viscous fluxes' difference and the second differences (G, a), the
 * fourth-difference dissipation (a). */
static inline void terms(const lu_ctx *g, double *o, const double *f, const double *v,
                         const double *p, int d, size_t s, int gp)
{
    const lu_dir *c = &g->dir[d];
    double e = g->dssp;
    int n0 = d == 0 ? g->nx0 : d == 1 ? g->ny0 : g->nz0;
    for (int m = 0; m < 5; m++)
        o[m] = o[m] - c->t2 * (f[m + s] - f[m - s]);
    o[0] = o[0] + c->d[0] * c->t1 * (p[-s] - 2.0 * p[0] + p[s]);
    for (int m = 1; m < 5; m++)
        o[m] = o[m] + c->t3 * C3 * C4 * (v[m + s] - v[m])
               + c->d[m] * c->t1 * (p[m - s] - 2.0 * p[m] + p[m + s]);
    if (gp > 3 && gp < n0 - 2) {   /* the interior stencil, constants */
        for (int m = 0; m < 5; m++)
            o[m] = o[m] - e * (p[m - 2 * s] - 4.0 * p[m - s] + 6.0 * p[m] - 4.0 * p[m + s]
                               + p[m + 2 * s]);
        return;
    }
    const double *w = dissipation(gp, n0);
    for (int m = 0; m < 5; m++)
        o[m] = o[m] - e * (w[0] * p[m - 2 * s] + w[1] * p[m - s] + w[2] * p[m]
                           + w[3] * p[m + s] + w[4] * p[m + 2 * s]);
}

static void update(lu_ctx *g, double *out, double *a, box b, int d, size_t s)
{
    int off[3] = {g->ipt, g->jpt, 0};
    for (int k = b.lo[2]; k <= b.hi[2]; k++)
        for (int j = b.lo[1]; j <= b.hi[1]; j++)
            for (int i = b.lo[0]; i <= b.hi[0]; i++) {
                int at[3] = {i, j, k};
                terms(g, lu_at(g, out, i, j, k), lu_at(g, g->flux, i, j, k),
                      lu_at(g, g->visc, i, j, k), lu_at(g, a, i, j, k), d, s, off[d] + at[d]);
            }
}

void lu_operator(lu_ctx *g, double *out, double *a)
{
    box in = {{g->ist, g->jst, 2}, {g->iend, g->jend, g->nz - 1}};
    size_t stride[3] = {g->sx, g->sy, g->sz};
    for (int d = 0; d < 3; d++) {
        fluxes(g, g->flux, a, widen(in, d, 1, 1), d);
        half_fluxes(g, g->visc, a, widen(in, d, 0, 1), d, stride[d]);
        update(g, out, a, in, d, stride[d]);
    }
}

void lu_rhs(lu_ctx *g)
{
    lu_phase(g, LU_PH_RHS);
    size_t n = (size_t)(g->nz + 2) * g->sz;
    for (size_t x = 0; x < n; x++)   /* the boundary too: LU's sweeps read it there */
        g->rsd[x] = -g->frct[x];
    if (g->prim) {
        adi_rhs(g, g->prim, 0, 1.0);
        return;
    }
    lu_halo(g, g->u);
    lu_phase(g, LU_PH_RHS);
    lu_operator(g, g->rsd, g->u);
}
