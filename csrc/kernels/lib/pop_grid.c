/* pop_grid.c - global grid, 9-point operator, blocks and the direct solve of
 * the POP-like barotropic proxy (pop_grid.h has the formulas). */
#include "pop_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double R_EARTH = 6.371e6;  /* m */
static const double GRAV = 9.80616;     /* m/s^2, POP's grav */
static const double LAT_MAX = 78.0;     /* degrees: walls at +-78 (no pole) */

/* Continents: ellipses (centre, semi-axes) in normalised coordinates,
 * x in [0,1) periodic, y in [0,1] south to north. */
static const struct {
    double cx, cy, ax, ay;
} CONTINENTS[] = {
    {0.22, 0.58, 0.07, 0.30},  /* the Americas */
    {0.60, 0.66, 0.14, 0.20},  /* Eurasia */
    {0.55, 0.38, 0.06, 0.15},  /* Africa */
    {0.84, 0.30, 0.06, 0.07},  /* Australia */
    {0.50, 0.00, 0.42, 0.08},  /* Antarctica along the southern wall */
    {0.38, 0.88, 0.03, 0.04},  /* an island */
};

static int wrap(int i, int n) { return ((i % n) + n) % n; }

static int land_at(double x, double y)
{
    for (size_t k = 0; k < sizeof CONTINENTS / sizeof CONTINENTS[0]; k++) {
        double dx = fabs(x - CONTINENTS[k].cx);
        dx = fmin(dx, 1.0 - dx);  /* periodic in x */
        double ex = dx / CONTINENTS[k].ax, ey = (y - CONTINENTS[k].cy) / CONTINENTS[k].ay;
        if (ex * ex + ey * ey < 1.0)
            return 1;
    }
    return 0;
}

int pop_grid_init(pop_grid *g, int nx, int ny, int land, double dt)
{
    memset(g, 0, sizeof *g);
    g->nx = nx;
    g->ny = ny;
    g->land = land;
    g->dt = dt;
    size_t n = (size_t)nx * ny;
    g->dxu = calloc((size_t)ny, sizeof(double));
    g->dyu = calloc((size_t)ny, sizeof(double));
    g->area = calloc((size_t)ny, sizeof(double));
    g->hu = calloc(n, sizeof(double));
    g->mask = calloc(n, 1);
    double *edge = calloc((size_t)ny + 1, sizeof(double)), *wt = calloc((size_t)ny, sizeof(double));
    if (!g->dxu || !g->dyu || !g->area || !g->hu || !g->mask || !edge || !wt) {
        free(edge);
        free(wt);
        pop_grid_free(g);
        return -1;
    }
    /* Latitude edges: rows refined near the equator (weight 0.45 there, 1 at
     * mid-latitudes), normalised to span -LAT_MAX .. LAT_MAX. */
    double deg = M_PI / 180.0, sum = 0;
    for (int j = 0; j < ny; j++) {
        double lat = -LAT_MAX + 2 * LAT_MAX * (j + 0.5) / ny;
        wt[j] = 1.0 - 0.55 * exp(-(lat / 12.0) * (lat / 12.0));
        sum += wt[j];
    }
    edge[0] = -LAT_MAX * deg;
    for (int j = 0; j < ny; j++)
        edge[j + 1] = edge[j] + 2 * LAT_MAX * deg * wt[j] / sum;
    edge[ny] = LAT_MAX * deg;
    double dlon = 2 * M_PI / nx;
    for (int j = 0; j < ny; j++) {
        g->area[j] = R_EARTH * R_EARTH * dlon * (sin(edge[j + 1]) - sin(edge[j]));
        if (j < ny - 1) {
            /* U-row j lies on edge j+1, between T-rows j and j+1. */
            double tc0 = 0.5 * (edge[j] + edge[j + 1]), tc1 = 0.5 * (edge[j + 1] + edge[j + 2]);
            g->dxu[j] = R_EARTH * cos(edge[j + 1]) * dlon;
            g->dyu[j] = R_EARTH * (tc1 - tc0);
        } else {
            g->dxu[j] = g->dyu[j] = 1.0;  /* the northern wall: HU = 0 there */
        }
    }
    free(edge);
    free(wt);
    g->ocean = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            int ocean = land == POP_LAND_NONE || !land_at((i + 0.5) / nx, (j + 0.5) / ny);
            g->mask[(size_t)j * nx + i] = (unsigned char)ocean;
            g->ocean += ocean;
        }
    for (int j = 0; j < ny - 1; j++)
        for (int i = 0; i < nx; i++) {
            int ip = wrap(i + 1, nx);
            const unsigned char *m0 = g->mask + (size_t)j * nx, *m1 = m0 + nx;
            if (!(m0[i] && m0[ip] && m1[i] && m1[ip]))
                continue;  /* a U-point is ocean only if its 4 T-points are */
            double x = (i + 1.0) / nx, y = (j + 1.0) / ny;
            g->hu[(size_t)j * nx + i] = 4000.0 + 1000.0 * sin(2 * M_PI * x) * cos(3 * M_PI * y);
        }
    return 0;
}

void pop_grid_free(pop_grid *g)
{
    free(g->dxu);
    free(g->dyu);
    free(g->area);
    free(g->hu);
    free(g->mask);
    memset(g, 0, sizeof *g);
}

int pop_ocean(const pop_grid *g, int i, int j)
{
    if (j < 0 || j >= g->ny)
        return 0;
    return g->mask[(size_t)j * g->nx + wrap(i, g->nx)];
}

/* Quarter weights of U(i, j): w[0] = w1 = 0.25 HU DYU/DXU, w[1] = w2 = 0.25 HU DXU/DYU. */
static void uweights(const pop_grid *g, int i, int j, double w[2])
{
    w[0] = w[1] = 0.0;
    if (j < 0 || j >= g->ny - 1)
        return;
    double h = g->hu[(size_t)j * g->nx + wrap(i, g->nx)];
    if (h == 0.0)
        return;
    w[0] = 0.25 * h * g->dyu[j] / g->dxu[j];
    w[1] = 0.25 * h * g->dxu[j] / g->dyu[j];
}

void pop_coefs(const pop_grid *g, int i, int j, double c[4])
{
    c[0] = c[1] = c[2] = c[3] = 0.0;
    if (j < 0 || j >= g->ny)
        return;
    double u[2], uw[2], us[2], usw[2];  /* U(i,j), U(i-1,j), U(i,j-1), U(i-1,j-1) */
    uweights(g, i, j, u);
    uweights(g, i - 1, j, uw);
    uweights(g, i, j - 1, us);
    uweights(g, i - 1, j - 1, usw);
    c[1] = (u[0] - u[1]) + (uw[0] - uw[1]);   /* AN */
    c[2] = (u[1] - u[0]) + (us[1] - us[0]);   /* AE */
    c[3] = -(u[0] + u[1]);                    /* ANE */
    if (pop_ocean(g, i, j))
        c[0] = (u[0] + u[1]) + (uw[0] + uw[1]) + (us[0] + us[1]) + (usw[0] + usw[1])
               + g->area[j] / (GRAV * g->dt * g->dt);
}

double pop_coef_at(const pop_grid *g, int i, int j, int di, int dj)
{
    double c[4];
    /* Which T-point's table holds the coupling, and which entry (see pop_grid.h). */
    int ti = i, tj = j, k;
    if (di == 0 && dj == 0)
        k = 0;
    else if (di == 0)
        k = 1, tj = dj > 0 ? j : j - 1;
    else if (dj == 0)
        k = 2, ti = di > 0 ? i : i - 1;
    else
        k = 3, ti = di > 0 ? i : i - 1, tj = dj > 0 ? j : j - 1;
    pop_coefs(g, ti, tj, c);
    return c[k];
}

double pop_xtrue(const pop_grid *g, int i, int j)
{
    if (!pop_ocean(g, i, j))
        return 0.0;
    double x = (wrap(i, g->nx) + 0.5) / g->nx, y = (j + 0.5) / g->ny;
    return cos(2 * M_PI * x) * sin(M_PI * y) + 0.5 * sin(4 * M_PI * x + 1.0) * cos(2 * M_PI * y)
           + 0.25;
}

long pop_ocean_in(const pop_grid *g, int i0, int j0, int bx, int by)
{
    long n = 0;
    for (int j = j0; j < j0 + by; j++)
        for (int i = i0; i < i0 + bx; i++)
            n += pop_ocean(g, i, j);
    return n;
}

int pop_check_symmetry(const pop_grid *g, char *err, size_t errlen)
{
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            int ocean = pop_ocean(g, i, j);
            for (int dj = -1; dj <= 1; dj++)
                for (int di = -1; di <= 1; di++) {
                    double a = pop_coef_at(g, i, j, di, dj);
                    if (di == 0 && dj == 0) {
                        if (ocean ? !(a > 0) : a != 0) {
                            snprintf(err, errlen, "diagonal A0(%d,%d) = %g on %s", i, j, a,
                                     ocean ? "ocean" : "land");
                            return -1;
                        }
                        continue;
                    }
                    if (!ocean || !pop_ocean(g, i + di, j + dj)) {
                        if (a != 0) {
                            snprintf(err, errlen, "T(%d,%d) is coupled to land/wall T(%d,%d): %g",
                                     i, j, i + di, j + dj, a);
                            return -1;
                        }
                        continue;
                    }
                    double b = pop_coef_at(g, wrap(i + di, g->nx), j + dj, -di, -dj);
                    if (a != b) {
                        snprintf(err, errlen, "A(%d,%d -> %+d,%+d) = %.17g but the transpose is "
                                 "%.17g", i, j, di, dj, a, b);
                        return -1;
                    }
                }
        }
    return 0;
}

int pop_block_init(pop_block *b, const pop_grid *g, int i0, int j0, int bx, int by)
{
    memset(b, 0, sizeof *b);
    b->i0 = i0;
    b->j0 = j0;
    b->bx = bx;
    b->by = by;
    b->ld = bx + 2;
    b->n = (size_t)(bx + 2) * (by + 2);
    b->a0 = pop_field(b);
    b->an = pop_field(b);
    b->ae = pop_field(b);
    b->ane = pop_field(b);
    b->minv = pop_field(b);
    if (!b->a0 || !b->an || !b->ae || !b->ane || !b->minv) {
        pop_block_free(b);
        return -1;
    }
    for (int jj = 0; jj < by + 2; jj++)
        for (int ii = 0; ii < bx + 2; ii++) {
            size_t c = (size_t)jj * b->ld + ii;
            double cf[4];
            pop_coefs(g, i0 + ii - 1, j0 + jj - 1, cf);
            b->a0[c] = cf[0];
            b->an[c] = cf[1];
            b->ae[c] = cf[2];
            b->ane[c] = cf[3];
            b->minv[c] = cf[0] > 0 ? 1.0 / cf[0] : 0.0;  /* land: no unknown, no update */
        }
    return 0;
}

void pop_block_free(pop_block *b)
{
    free(b->a0);
    free(b->an);
    free(b->ae);
    free(b->ane);
    free(b->minv);
    memset(b, 0, sizeof *b);
}

double *pop_field(const pop_block *b)
{
    return calloc(b->n, sizeof(double));
}

void pop_fill_xtrue(const pop_block *b, const pop_grid *g, double *x)
{
    for (int jj = 0; jj < b->by + 2; jj++)
        for (int ii = 0; ii < b->bx + 2; ii++)
            x[(size_t)jj * b->ld + ii] = pop_xtrue(g, b->i0 + ii - 1, b->j0 + jj - 1);
}

double pop_apply_dot(const pop_block *b, const double *restrict p, double *restrict q)
{
    const double *restrict a0 = b->a0, *restrict an = b->an, *restrict ae = b->ae,
                           *restrict ane = b->ane;
    const size_t ld = (size_t)b->ld;
    double dot = 0.0;
    for (int j = 1; j <= b->by; j++) {
        size_t r = (size_t)j * ld;
        for (size_t c = r + 1; c <= r + (size_t)b->bx; c++) {
            double v = a0[c] * p[c] + an[c] * p[c + ld] + an[c - ld] * p[c - ld]
                       + ae[c] * p[c + 1] + ae[c - 1] * p[c - 1] + ane[c] * p[c + ld + 1]
                       + ane[c - ld] * p[c - ld + 1] + ane[c - 1] * p[c + ld - 1]
                       + ane[c - ld - 1] * p[c - ld - 1];
            q[c] = v;
            dot += p[c] * v;
        }
    }
    return dot;
}

void pop_wrap_x(const pop_block *b, double *x)
{
    for (int jj = 0; jj < b->by + 2; jj++) {
        double *row = x + (size_t)jj * b->ld;
        row[0] = row[b->bx];
        row[b->bx + 1] = row[1];
    }
}

/* LAPACK (OpenBLAS): banded Cholesky solve. The trailing length is gfortran's
 * hidden length of the character argument (harmless where there is none). */
extern void dpbsv_(const char *uplo, const int *n, const int *kd, const int *nrhs, double *ab,
                   const int *ldab, double *b, const int *ldb, int *info, size_t uplo_len);

/* Position of column i when the periodic x is folded (0, nx-1, 1, nx-2, ...
 * interleaved): neighbours, the wrap-around included, end up at most 2 apart. */
static int fold(int i, int nx)
{
    return i < (nx + 1) / 2 ? 2 * i : 2 * (nx - 1 - i) + 1;
}

/* Number the ocean points in the order x fastest (xfast) or y fastest and
 * return the half-bandwidth of the operator in that numbering. */
static int number(const pop_grid *g, int xfast, int *idx)
{
    int nx = g->nx, ny = g->ny;
    size_t n = (size_t)nx * ny;
    int *at = malloc(n * sizeof *at);  /* position -> point */
    if (!at)
        return -1;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            size_t pos = xfast ? (size_t)j * nx + fold(i, nx) : (size_t)fold(i, nx) * ny + j;
            at[pos] = j * nx + i;
        }
    int k = 0;
    for (size_t pos = 0; pos < n; pos++)
        idx[at[pos]] = g->mask[at[pos]] ? k++ : -1;
    free(at);
    int kd = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            int me = idx[j * nx + i];
            if (me < 0)
                continue;
            for (int dj = -1; dj <= 1; dj++)
                for (int di = -1; di <= 1; di++) {
                    int jn = j + dj, in = wrap(i + di, nx);
                    if (jn < 0 || jn >= ny || idx[jn * nx + in] < 0)
                        continue;
                    int d = abs(idx[jn * nx + in] - me);
                    kd = d > kd ? d : kd;
                }
        }
    return kd;
}

int pop_direct_solve(const pop_grid *g, const double *b, double *x, double max_flops,
                     char *err, size_t errlen)
{
    int nx = g->nx, ny = g->ny, n = (int)g->ocean;
    size_t npts = (size_t)nx * ny;
    int *idx = malloc(npts * sizeof *idx);
    if (!idx) {
        snprintf(err, errlen, "no memory for the direct solve");
        return -1;
    }
    /* The numbering with the narrower band. */
    int kdx = number(g, 1, idx), kdy = number(g, 0, idx);
    int xfast = kdx <= kdy, kd = xfast ? number(g, 1, idx) : kdy;
    if (kd < 0 || (double)n * kd * kd > max_flops) {
        free(idx);
        snprintf(err, errlen, "the direct solve (%d unknowns, half-bandwidth %d) is too big", n,
                 kd);
        return 1;
    }
    int ldab = kd + 1, nrhs = 1, info = 0;
    double *ab = calloc((size_t)ldab * (n > 0 ? n : 1), sizeof *ab);
    double *rhs = malloc((size_t)(n > 0 ? n : 1) * sizeof *rhs);
    if (!ab || !rhs) {
        free(idx);
        free(ab);
        free(rhs);
        snprintf(err, errlen, "no memory for the direct solve (half-bandwidth %d)", kd);
        return -1;
    }
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            int r = idx[j * nx + i];
            if (r < 0)
                continue;
            rhs[r] = b[(size_t)j * nx + i];
            for (int dj = -1; dj <= 1; dj++)
                for (int di = -1; di <= 1; di++) {
                    int jn = j + dj, in = wrap(i + di, nx);
                    if (jn < 0 || jn >= ny || idx[jn * nx + in] < 0)
                        continue;
                    int c = idx[jn * nx + in];
                    if (r <= c)  /* upper triangle, LAPACK band storage */
                        ab[(size_t)(kd + r - c) + (size_t)c * ldab] += pop_coef_at(g, i, j, di, dj);
                }
        }
    dpbsv_("U", &n, &kd, &nrhs, ab, &ldab, rhs, &n, &info, 1);
    if (info != 0) {
        free(idx);
        free(ab);
        free(rhs);
        snprintf(err, errlen, "dpbsv failed (info %d): the operator is not positive definite",
                 info);
        return -1;
    }
    for (size_t p = 0; p < npts; p++)
        x[p] = idx[p] >= 0 ? rhs[idx[p]] : 0.0;
    free(idx);
    free(ab);
    free(rhs);
    return 0;
}
