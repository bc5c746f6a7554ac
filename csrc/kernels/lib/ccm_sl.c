/* ccm_sl.c - the tracer's shape-preserving semi-Lagrangian step of ccm.c: each grid point's
 * trajectory back over one step (two midpoint iterations) to its departure point, the
 * tracer there by bicubic Lagrange interpolation clipped to the range of the four points
 * around it (shape preserving), from a halo wide enough that every departure point and its
 * stencil are local (the CCM/MP-2D way: "fills halo regions of sufficient thickness"), then a
 * global mass fixer. Across a pole nothing is transported: the halo there repeats the last
 * latitude, and departure latitudes stop at the grid's. */
#pragma GCC optimize("no-math-errno")

#include "ccm_model.h"

#include <math.h>
#include <string.h>

static const double RADIUS = 6.371e6;

static size_t at(const ccm_grid *g, int k, int y, int x)
{
    return ((size_t)k * (g->ny + 2 * g->hy) + y) * (g->nx + 2 * g->hx) + x;
}

/* Rows y0.. (h of them) by columns x0.. (w) of every level, into (dir 0) or out of buf. */
static size_t copy_box(const ccm_state *s, double *q, double *buf, int y0, int h, int x0, int w,
                       int out)
{
    const ccm_grid *g = s->g;
    size_t n = 0;
    for (int k = 0; k < g->nlev; k++)
        for (int y = y0; y < y0 + h; y++, n += (size_t)w)
            if (out)
                memcpy(buf + n, q + at(g, k, y, x0), (size_t)w * sizeof *buf);
            else
                memcpy(q + at(g, k, y, x0), buf + n, (size_t)w * sizeof *buf);
    return n;
}

/* Send box (sy, sx) to `to`, receive box (ry, rx) of the same shape from `from`. */
static void shift(ccm_state *s, int to, int from, int sy, int ry, int h, int sx, int rx, int w)
{
    hpc_phase_to(s->ph, CCM_PH_HALO_COPY);
    int n = (int)copy_box(s, s->qh, s->sbuf, sy, h, sx, w, 1);
    hpc_phase_to(s->ph, CCM_PH_HALO);
    MPI_Sendrecv(s->sbuf, n, MPI_DOUBLE, to, 42, s->rbuf, n, MPI_DOUBLE, from, 42, s->g->comm,
                 MPI_STATUS_IGNORE);
    hpc_phase_to(s->ph, CCM_PH_HALO_COPY);
    if (from != MPI_PROC_NULL)
        copy_box(s, s->qh, s->rbuf, ry, h, rx, w, 0);
}

/* Beyond a pole: the last latitude again. */
static void pole_rows(ccm_state *s)
{
    const ccm_grid *g = s->g;
    size_t w = (size_t)g->nx * sizeof(double);
    for (int k = 0; k < g->nlev; k++)
        for (int r = 0; r < g->hy; r++) {
            if (g->south == MPI_PROC_NULL)
                memcpy(s->qh + at(g, k, r, g->hx), s->qh + at(g, k, g->hy, g->hx), w);
            if (g->north == MPI_PROC_NULL)
                memcpy(s->qh + at(g, k, g->hy + g->ny + r, g->hx),
                       s->qh + at(g, k, g->hy + g->ny - 1, g->hx), w);
        }
}

/* North and south first (interior columns), then east and west over the whole height, so
 * the corners come along. */
static void fill_halo(ccm_state *s)
{
    const ccm_grid *g = s->g;
    int hx = g->hx, hy = g->hy, nx = g->nx, ny = g->ny;
    shift(s, g->north, g->south, ny, 0, hy, hx, hx, nx);
    shift(s, g->south, g->north, hy, hy + ny, hy, hx, hx, nx);
    pole_rows(s);
    shift(s, g->east, g->west, 0, 0, ny + 2 * hy, nx, 0, hx);
    shift(s, g->west, g->east, 0, 0, ny + 2 * hy, hx, hx + nx, hx);
}

/* Each point's departure point in the halo's coordinates (x, y). */
static void departures(ccm_state *s)
{
    const ccm_grid *g = s->g;
    double U = g->u0 / RADIUS, lo = -M_PI / 2 + 0.5 * g->dlat, hi = M_PI / 2 - 0.5 * g->dlat;
    for (int j = 0; j < g->ny; j++) {
        double phi = lo + (g->j0 + j) * g->dlat;
        for (int i = 0; i < g->nx; i++) {
            double lam_m = (g->i0 + i) * g->dlon - 0.5 * g->dt * U, phi_d = phi;
            for (int it = 0; it < 2; it++) {
                double phi_m = 0.5 * (phi + phi_d);
                phi_d = phi - g->dt * g->v0 / RADIUS * cos(phi_m) * sin(lam_m);
            }
            phi_d = fmin(hi, fmax(lo, phi_d));
            s->dx[(size_t)j * g->nx + i] = i + g->hx - g->dt * U / g->dlon;
            s->dy[(size_t)j * g->nx + i] = j + g->hy + (phi_d - phi) / g->dlat;
        }
    }
}

static void weights(double t, double w[4])
{
    w[0] = -t * (t - 1) * (t - 2) / 6, w[1] = (t + 1) * (t - 1) * (t - 2) / 2;
    w[2] = -(t + 1) * t * (t - 2) / 2, w[3] = (t + 1) * t * (t - 1) / 6;
}

/* Level k's tracer at (x, y): bicubic, clipped to the four points around it. */
static double interpolate(const ccm_state *s, int k, double x, double y)
{
    int ix = (int)floor(x), iy = (int)floor(y);
    double wx[4], wy[4], v = 0.0;
    weights(x - ix, wx), weights(y - iy, wy);
    for (int b = 0; b < 4; b++) {
        const double *row = s->qh + at(s->g, k, iy - 1 + b, ix - 1);
        v += wy[b] * (wx[0] * row[0] + wx[1] * row[1] + wx[2] * row[2] + wx[3] * row[3]);
    }
    const double *r0 = s->qh + at(s->g, k, iy, ix), *r1 = s->qh + at(s->g, k, iy + 1, ix);
    double lo = fmin(fmin(r0[0], r0[1]), fmin(r1[0], r1[1]));
    double hi = fmax(fmax(r0[0], r0[1]), fmax(r1[0], r1[1]));
    return fmin(hi, fmax(lo, v));
}

/* Level by level sums of cos(latitude) x tracer over this rank's points. */
static void local_mass(const ccm_state *s, const double *q, double *m)
{
    const ccm_grid *g = s->g;
    for (int k = 0; k < g->nlev; k++) {
        m[k] = 0.0;
        for (int j = 0; j < g->ny; j++) {
            double row = 0.0;
            for (int i = 0; i < g->nx; i++)
                row += q[at(g, k, j + g->hy, i + g->hx)];
            m[k] += cos(-M_PI / 2 + (g->j0 + j + 0.5) * g->dlat) * row;
        }
    }
}

void ccm_mass(const ccm_state *s, double *mass)
{
    local_mass(s, s->qh, mass);
    MPI_Allreduce(MPI_IN_PLACE, mass, s->g->nlev, MPI_DOUBLE, MPI_SUM, s->g->comm);
}

void ccm_advect(ccm_state *s)
{
    const ccm_grid *g = s->g;
    double m[CCM_MAXLEV];
    fill_halo(s);
    hpc_phase_to(s->ph, CCM_PH_ADVECT);
    departures(s);
    for (int k = 0; k < g->nlev; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                size_t c = (size_t)j * g->nx + i;
                s->qn[at(g, k, j + g->hy, i + g->hx)] = interpolate(s, k, s->dx[c], s->dy[c]);
            }
    local_mass(s, s->qn, m);
    hpc_phase_to(s->ph, CCM_PH_FIXER);
    MPI_Allreduce(MPI_IN_PLACE, m, g->nlev, MPI_DOUBLE, MPI_SUM, g->comm);
    hpc_phase_to(s->ph, CCM_PH_ADVECT);
    for (int k = 0; k < g->nlev; k++) {
        double a = s->mass0[k] / m[k];
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++)
                s->qn[at(g, k, j + g->hy, i + g->hx)] *= a;
    }
    double *t = s->qh;
    s->qh = s->qn, s->qn = t;
}
