/* lu_norms.c - NPB LU's verification quantities: RMS norms over the interior (l2norm, error)
 * and the surface integral (pintgr), each rank summing its own points, one allreduce. */
#include "lu_grid.h"

#include <math.h>

/* NPB's pintgr bounds (setcoeff: ii1, ii2, ji1, ji2, ki1, ki2; ji2 is ny0 - 2 in NPB). */
#define II1 2
#define JI1 2
#define KI1 3

/* sqrt(sum / interior points) of each of the 5 global sums of local[]. */
static void rms(lu_ctx *g, double local[5], double nrm[5])
{
    lu_phase(g, LU_PH_REDUCE);
    MPI_Allreduce(local, nrm, 5, MPI_DOUBLE, MPI_SUM, g->comm);
    double pts = (double)(g->nx0 - 2) * (g->ny0 - 2) * (g->nz0 - 2);
    for (int m = 0; m < 5; m++)
        nrm[m] = sqrt(nrm[m] / pts);
}

void lu_l2norm(lu_ctx *g, double *a, double nrm[5])
{
    lu_phase(g, LU_PH_NORM);
    double s[5] = {0};
    for (int k = 2; k <= g->nz - 1; k++)
        for (int j = g->jst; j <= g->jend; j++)
            for (int i = g->ist; i <= g->iend; i++) {
                const double *v = lu_at(g, a, i, j, k);
                for (int m = 0; m < 5; m++)
                    s[m] += v[m] * v[m];
            }
    rms(g, s, nrm);
}

void lu_error(lu_ctx *g, double nrm[5])
{
    double s[5] = {0}, ex[5];
    for (int k = 2; k <= g->nz - 1; k++)
        for (int j = g->jst; j <= g->jend; j++)
            for (int i = g->ist; i <= g->iend; i++) {
                const double *v = lu_at(g, g->u, i, j, k);
                lu_exact(g, g->ipt + i, g->jpt + j, k, ex);
                for (int m = 0; m < 5; m++)
                    s[m] += (ex[m] - v[m]) * (ex[m] - v[m]);
            }
    rms(g, s, nrm);
}

/* How many of the trapezoid rule's cells [p, p+1], lo <= p < hi, touch point p: 0, 1 or 2. */
static int cells(int p, int lo, int hi)
{
    return (p >= lo && p < hi) + (p > lo && p <= hi);
}

/* NPB's pressure-like quantity c2 * (e - |m|^2 / (2 rho)) at a point. */
static double phi(const double *u)
{
    return C2 * (u[4] - 0.5 * (u[1] * u[1] + u[2] * u[2] + u[3] * u[3]) / u[0]);
}

/* The integral over three pairs of faces of the box [II1, nx0-1] x [JI1, ny0-2] x [KI1, nz0-1]
 * by the trapezoid rule (each cell the mean of its 4 corners): frc1 over the k faces, frc2 the
 * j faces, frc3 the i faces; frc = (frc1 + frc2 + frc3) / 4 in NPB's scaling. */
double lu_surface_integral(lu_ctx *g)
{
    int i2 = g->nx0 - 1, j2 = g->ny0 - 2, k2 = g->nz0 - 1;
    double h[3] = {1.0 / (g->nx0 - 1), 1.0 / (g->ny0 - 1), 1.0 / (g->nz0 - 1)};
    double f[3] = {0, 0, 0}, sum[3];
    for (int k = 1; k <= g->nz; k++)
        for (int j = 1; j <= g->ny; j++)
            for (int i = 1; i <= g->nx; i++) {
                int gi = g->ipt + i, gj = g->jpt + j;
                int wi = cells(gi, II1, i2), wj = cells(gj, JI1, j2), wk = cells(k, KI1, k2);
                double w[3] = {(k == KI1 || k == k2) * wi * wj, (gj == JI1 || gj == j2) * wi * wk,
                               (gi == II1 || gi == i2) * wj * wk};
                if (w[0] == 0 && w[1] == 0 && w[2] == 0)
                    continue;
                double p = phi(lu_at(g, g->u, i, j, k));
                for (int d = 0; d < 3; d++)
                    f[d] += w[d] * p;
            }
    lu_phase(g, LU_PH_REDUCE);
    MPI_Allreduce(f, sum, 3, MPI_DOUBLE, MPI_SUM, g->comm);
    return 0.25 * (h[0] * h[1] * sum[0] + h[0] * h[2] * sum[1] + h[1] * h[2] * sum[2]);
}
