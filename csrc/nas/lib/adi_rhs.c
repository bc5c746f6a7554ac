/* adi_rhs.c - NPB BT's and SP's compute_rhs on LU's grid: u by variable and the primitives
 * once a point, then, row by row along i, the three directions' terms (flux differences,
 * viscous terms, second differences, fourth-difference dissipation) added to -frct, times dt. */
#include "adi_rhs.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

enum { NVAR = 5, NPRIM = 7 };

/* The fourth-difference weights at offsets -2..2 for global point gp of n0 (one-sided at 2,
 * 3, n0-2 and n0-1). */
static const double *weights(int gp, int n0)
{
    static const double W[5][5] = {{1, -4, 6, -4, 1}, {0, 0, 5, -4, 1}, {0, -4, 6, -4, 1},
                                   {1, -4, 6, -4, 0}, {1, -4, 5, 0, 0}};
    return W[gp == 2 ? 1 : gp == 3 ? 2 : gp == n0 - 2 ? 3 : gp == n0 - 1 ? 4 : 0];
}

int adi_prim_init(adi_prim *p, const lu_ctx *g)
{
    size_t n = (size_t)(g->nz + 2) * g->sz / 5, row = (size_t)g->nx + 4;
    double *mem = calloc((NVAR + NPRIM) * n + 2 * NVAR * row, sizeof(double));
    if (!mem)
        return -1;
    *p = (adi_prim){.mem = mem};
    for (int m = 0; m < NVAR; m++) {
        p->u[m] = mem + (size_t)m * n;
        p->o[m] = mem + (NVAR + NPRIM) * n + (size_t)m * row;
        p->wx[m] = p->o[m] + NVAR * row;
    }
    double *a = mem + NVAR * n;
    p->rho_i = a;
    for (int m = 0; m < 3; m++)
        p->vel[m] = a + (size_t)(m + 1) * n;
    p->square = a + 4 * n;
    p->qs = a + 5 * n;
    p->speed = a + 6 * n;
    for (int i = g->ist; i <= g->iend; i++)
        for (int m = 0; m < 5; m++)
            p->wx[m][i] = weights(g->ipt + i, g->nx0)[m];
    return 0;
}

void adi_prim_free(adi_prim *p)
{
    free(p->mem);
}

/* u by variable on the points of row (j, k) from local i lo to hi. */
static void copy_row(const lu_ctx *g, adi_prim *p, int lo, int hi, int j, int k)
{
    size_t x0 = adi_pt(g, lo, j, k), n = (size_t)(hi - lo + 1);
    const double *q = g->u + 5 * x0;
    for (size_t x = x0; x < x0 + n; x++, q += 5)
        for (int m = 0; m < NVAR; m++)
            p->u[m][x] = q[m];
}

/* The primitives on the points of row (j, k) from local i lo to hi. */
static void prim_row(const lu_ctx *g, adi_prim *p, int lo, int hi, int j, int k, int with_speed)
{
    size_t x0 = adi_pt(g, lo, j, k), n = (size_t)(hi - lo + 1);
    const double *restrict u0 = p->u[0], *restrict u1 = p->u[1], *restrict u2 = p->u[2];
    const double *restrict u3 = p->u[3], *restrict u4 = p->u[4];
    double *restrict ri = p->rho_i, *restrict sq = p->square, *restrict qs = p->qs;
    double *restrict v1 = p->vel[0], *restrict v2 = p->vel[1], *restrict v3 = p->vel[2];
    double *restrict c = p->speed;
    for (size_t x = x0; x < x0 + n; x++) {
        double r = 1.0 / u0[x], q = 0.5 * (u1[x] * u1[x] + u2[x] * u2[x] + u3[x] * u3[x]) * r;
        ri[x] = r;
        sq[x] = q;
        v1[x] = u1[x] * r;
        v2[x] = u2[x] * r;
        v3[x] = u3[x] * r;
        qs[x] = q * r;
    }
    if (with_speed)
        for (size_t x = x0; x < x0 + n; x++)
            c[x] = sqrt(C1 * C2 * ri[x] * (u4[x] - sq[x]));
}

/* u by variable where the stencils reach it (the interior and two layers around it), the
 * primitives where they do (one layer): crosses, without the corners, whose ghosts are not
 * exchanged. */
static void all_primitives(const lu_ctx *g, adi_prim *p, int with_speed)
{
    for (int k = 1; k <= g->nz; k++)
        for (int j = g->jst - 2; j <= g->jend + 2; j++) {
            int in = j >= g->jst && j <= g->jend && k > 1 && k < g->nz;
            int near = j >= g->jst - 1 && j <= g->jend + 1;
            copy_row(g, p, g->ist - 2 * in, g->iend + 2 * in, j, k);
            if (near)
                prim_row(g, p, g->ist - in, g->iend + in, j, k, with_speed);
        }
}

/* The second difference of a at x, neighbours s apart. */
#define SECOND(a, x, s) ((a)[(x) + (s)] - 2.0 * (a)[x] + (a)[(x) - (s)])

/* Direction d's flux, viscous and diffusion terms on the n points of a row from point x0,
 * neighbours s points apart (NPB's formulas, velocity component c = d + 1), added to p->o. */
static inline void fluxes(const lu_ctx *g, const adi_prim *p, int d, size_t x0, ptrdiff_t s,
                          int n)
{
    const lu_dir *dc = &g->dir[d];
    const int c = d + 1;
    const double *restrict u0 = p->u[0], *restrict uc = p->u[c], *restrict u4 = p->u[4];
    const double *restrict vel = p->vel[d], *restrict sq = p->square, *restrict ri = p->rho_i;
    const double *restrict qs = p->qs;
    double t2 = dc->t2, dt1 = dc->d[0] * dc->t1, xx2 = C3 * C4 * dc->t3 * dc->t3;
    double *restrict o0 = p->o[0], *restrict o4 = p->o[4];
    for (int i = 0; i < n; i++) {
        ptrdiff_t x = (ptrdiff_t)x0 + i;
        o0[i] += dt1 * SECOND(u0, x, s) - t2 * (uc[x + s] - uc[x - s]);
    }
    for (int i = 0; i < n; i++) {
        ptrdiff_t x = (ptrdiff_t)x0 + i;
        double vp = vel[x + s], vm = vel[x - s];
        o4[i] += dt1 * SECOND(u4, x, s) + xx2 * (1.0 - C1 * C5) * SECOND(qs, x, s)
                 + xx2 / 6.0 * (vp * vp - 2.0 * vel[x] * vel[x] + vm * vm)
                 + xx2 * C1 * C5 * (u4[x + s] * ri[x + s] - 2.0 * u4[x] * ri[x]
                                    + u4[x - s] * ri[x - s])
                 - t2 * ((C1 * u4[x + s] - C2 * sq[x + s]) * vp
                         - (C1 * u4[x - s] - C2 * sq[x - s]) * vm);
    }
    for (int m = 1; m <= 3; m++) {
        const double *restrict um = p->u[m], *restrict wm = p->vel[m - 1];
        double *restrict om = p->o[m], f = xx2 * (m == c ? 4.0 / 3.0 : 1.0);
        for (int i = 0; i < n; i++) {
            ptrdiff_t x = (ptrdiff_t)x0 + i;
            om[i] += dt1 * SECOND(um, x, s) + f * SECOND(wm, x, s)
                     - t2 * (um[x + s] * vel[x + s] - um[x - s] * vel[x - s]);
        }
    }
    double *restrict oc = p->o[c];
    for (int i = 0; i < n; i++) {
        ptrdiff_t x = (ptrdiff_t)x0 + i;
        oc[i] -= t2 * C2 * (u4[x + s] - sq[x + s] - u4[x - s] + sq[x - s]);
    }
}

/* The fourth-difference dissipation along d on a row (weights w[0..4][i], at step ws in i:
 * 0 where the row's points share them), added to p->o. */
static inline void dissipation(const lu_ctx *g, const adi_prim *p, size_t x0, ptrdiff_t s, int n,
                               const double *const w[5], int ws)
{
    double e = g->dssp;
    for (int m = 0; m < NVAR; m++) {
        const double *restrict a = p->u[m];
        double *restrict om = p->o[m];
        for (int i = 0; i < n; i++) {
            ptrdiff_t x = (ptrdiff_t)x0 + i;
            int iw = i * ws;
            om[i] -= e * (w[0][iw] * a[x - 2 * s] + w[1][iw] * a[x - s] + w[2][iw] * a[x]
                          + w[3][iw] * a[x + s] + w[4][iw] * a[x + 2 * s]);
        }
    }
}

/* rsd = dt (o - frct) on the row of points from local (ist, j, k). */
static void store_row(lu_ctx *g, const adi_prim *p, int j, int k, int n, double dt)
{
    double *r = lu_at(g, g->rsd, g->ist, j, k);
    const double *f = lu_at(g, g->frct, g->ist, j, k);
    for (int i = 0; i < n; i++)
        for (int m = 0; m < NVAR; m++)
            r[5 * i + m] = dt * (p->o[m][i] - f[5 * i + m]);
}

/* One row of points along i at (j, k). */
static void row(lu_ctx *g, adi_prim *p, int j, int k, double scale)
{
    int n = g->iend - g->ist + 1;
    size_t x0 = adi_pt(g, g->ist, j, k), sy = g->sy / 5, sz = g->sz / 5;
    for (int m = 0; m < NVAR; m++)
        for (int i = 0; i < n; i++)
            p->o[m][i] = 0.0;
    fluxes(g, p, 0, x0, 1, n);
    fluxes(g, p, 1, x0, sy, n);
    fluxes(g, p, 2, x0, sz, n);
    const double *wx[5], *wj = weights(g->jpt + j, g->ny0), *wk = weights(k, g->nz0);
    const double *wy[5], *wz[5];
    for (int m = 0; m < 5; m++) {
        wx[m] = p->wx[m] + g->ist;
        wy[m] = wj + m;
        wz[m] = wk + m;
    }
    dissipation(g, p, x0, 1, n, wx, 1);
    dissipation(g, p, x0, sy, n, wy, 0);
    dissipation(g, p, x0, sz, n, wz, 0);
    store_row(g, p, j, k, n, scale);
}

void adi_rhs(lu_ctx *g, adi_prim *p, int with_speed, double scale)
{
    lu_halo(g, g->u);
    lu_phase(g, LU_PH_RHS);
    all_primitives(g, p, with_speed);
    for (int k = 2; k <= g->nz - 1; k++)
        for (int j = g->jst; j <= g->jend; j++)
            row(g, p, j, k, scale);
}
