/* lu_grid.c - NPB LU's decomposition, coefficients, exact solution, initial values and the
 * ghost exchange of the operator (docs/nas_lu.md). */
#include "lu_grid.h"

#include <stdlib.h>
#include <string.h>

const hpc_phase_def lu_phase_defs[LU_NPHASES] = {
    {"rhs", HPC_KIND_COMPUTE},   {"norm", HPC_KIND_COMPUTE},  {"halo", HPC_KIND_COMM},
    {"pipeline", HPC_KIND_COMM}, {"reduce", HPC_KIND_COMM},   {"lower", HPC_KIND_COMPUTE},
    {"upper", HPC_KIND_COMPUTE}, {"update", HPC_KIND_COMPUTE}};

/* NPB's setcoeff: the 13 coefficients of each variable's exact solution, a quartic in each
 * of xi, eta, zeta (ce(m, 1..13)). */
static const double CE[5][13] = {
    {2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3},
    {1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5},
    {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4},
    {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3},
    {5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2}};

void lu_phase(const lu_ctx *g, int id)
{
    if (g->ph)
        hpc_phase_to(g->ph, id);
}

void lu_proc_grid(int p, int *xdim, int *ydim)
{
    int y = 1;
    while (4 * y * y <= p)   /* the largest power of two with y^2 <= p */
        y *= 2;
    *ydim = y;
    *xdim = p / y;
}

/* Points of part `part` of n split into `parts` (the first n % parts get one more), and the
 * global index before its first point (NPB's subdomain). */
static void split(int n, int parts, int part, int *len, int *before)
{
    int base = n / parts, extra = n % parts;
    *len = base + (part < extra);
    *before = part * base + (part < extra ? part : extra);
}

static void coefficients(lu_ctx *g)
{
    int n0[3] = {g->nx0, g->ny0, g->nz0};
    /* setcoeff: dx = dy = 0.75, dz = 1, dssp = max of them / 4 */
    static const double DIFF[3] = {0.75, 0.75, 1.0};
    for (int d = 0; d < 3; d++) {
        double h = 1.0 / (n0[d] - 1);
        g->dir[d].t1 = 1.0 / (h * h);
        g->dir[d].t2 = 1.0 / (2.0 * h);
        g->dir[d].t3 = 1.0 / h;
        for (int m = 0; m < 5; m++)
            g->dir[d].d[m] = DIFF[d];
        g->wdiag[d] = 2.0 * g->dt * g->dir[d].t1;
    }
    g->dssp = 1.0 / 4.0;
    g->omega = 1.2;   /* NPB's omega_default */
}

static double *field(const lu_ctx *g)
{
    return calloc((size_t)(g->nz + 2) * g->sz, sizeof(double));
}

int lu_setup(lu_ctx *g, int n, double dt, int xdim, int ydim, MPI_Comm comm)
{
    memset(g, 0, sizeof *g);
    g->comm = comm;
    MPI_Comm_rank(comm, &g->rank);
    g->nx0 = g->ny0 = g->nz0 = n;
    g->dt = dt;
    g->xdim = xdim;
    g->ydim = ydim;
    int row = g->rank % g->xdim, col = g->rank / g->xdim;
    split(n, g->xdim, row, &g->nx, &g->ipt);
    split(n, g->ydim, col, &g->ny, &g->jpt);
    g->nz = n;
    g->north = row > 0 ? g->rank - 1 : MPI_PROC_NULL;
    g->south = row < g->xdim - 1 ? g->rank + 1 : MPI_PROC_NULL;
    g->west = col > 0 ? g->rank - g->xdim : MPI_PROC_NULL;
    g->east = col < g->ydim - 1 ? g->rank + g->xdim : MPI_PROC_NULL;
    g->ist = g->north == MPI_PROC_NULL ? 2 : 1;
    g->iend = g->south == MPI_PROC_NULL ? g->nx - 1 : g->nx;
    g->jst = g->west == MPI_PROC_NULL ? 2 : 1;
    g->jend = g->east == MPI_PROC_NULL ? g->ny - 1 : g->ny;
    g->sx = 5;
    g->sy = 5 * (size_t)(g->nx + 4);
    g->sz = g->sy * (size_t)(g->ny + 4);
    coefficients(g);
    g->hcount = 2 * 5 * (size_t)(g->nx > g->ny ? g->nx : g->ny) * (size_t)g->nz;
    g->u = field(g);
    g->rsd = field(g);
    g->frct = field(g);
    g->flux = field(g);
    g->visc = field(g);
    g->hbuf = malloc(4 * g->hcount * sizeof(double));
    return g->u && g->rsd && g->frct && g->flux && g->visc && g->hbuf ? 0 : -1;
}

void lu_free(lu_ctx *g)
{
    free(g->u);
    free(g->rsd);
    free(g->frct);
    free(g->flux);
    free(g->visc);
    free(g->hbuf);
}

void lu_exact(const lu_ctx *g, int i, int j, int k, double out[5])
{
    double xi = (double)(i - 1) / (g->nx0 - 1);
    double eta = (double)(j - 1) / (g->ny0 - 1);
    double zeta = (double)(k - 1) / (g->nz0 - 1);
    for (int m = 0; m < 5; m++) {
        const double *c = CE[m];
        out[m] = c[0] + c[1] * xi + c[2] * eta + c[3] * zeta + c[4] * xi * xi
                 + c[5] * eta * eta + c[6] * zeta * zeta + c[7] * xi * xi * xi
                 + c[8] * eta * eta * eta + c[9] * zeta * zeta * zeta
                 + c[10] * xi * xi * xi * xi + c[11] * eta * eta * eta * eta
                 + c[12] * zeta * zeta * zeta * zeta;
    }
}

/* The transfinite interpolation of the six faces' exact values at an interior point. */
static void interpolate(const lu_ctx *g, int gi, int gj, int k, double *u)
{
    double xi = (double)(gi - 1) / (g->nx0 - 1), eta = (double)(gj - 1) / (g->ny0 - 1);
    double zeta = (double)(k - 1) / (g->nz0 - 1);
    double f[6][5];
    lu_exact(g, 1, gj, k, f[0]);
    lu_exact(g, g->nx0, gj, k, f[1]);
    lu_exact(g, gi, 1, k, f[2]);
    lu_exact(g, gi, g->ny0, k, f[3]);
    lu_exact(g, gi, gj, 1, f[4]);
    lu_exact(g, gi, gj, g->nz0, f[5]);
    for (int m = 0; m < 5; m++) {
        double px = (1.0 - xi) * f[0][m] + xi * f[1][m];
        double py = (1.0 - eta) * f[2][m] + eta * f[3][m];
        double pz = (1.0 - zeta) * f[4][m] + zeta * f[5][m];
        u[m] = px + py + pz - px * py - py * pz - pz * px + px * py * pz;
    }
}

void lu_initial(lu_ctx *g)
{
    for (int k = 1; k <= g->nz; k++)
        for (int j = 1; j <= g->ny; j++)
            for (int i = 1; i <= g->nx; i++) {
                int gi = g->ipt + i, gj = g->jpt + j;
                double *u = lu_at(g, g->u, i, j, k);
                if (gi == 1 || gi == g->nx0 || gj == 1 || gj == g->ny0 || k == 1 || k == g->nz)
                    lu_exact(g, gi, gj, k, u);
                else
                    interpolate(g, gi, gj, k, u);
            }
}

void lu_forcing(lu_ctx *g)
{
    /* the exact solution everywhere (in rsd, free until the first residual) */
    for (int k = 1; k <= g->nz; k++)
        for (int j = 1; j <= g->ny; j++)
            for (int i = 1; i <= g->nx; i++)
                lu_exact(g, g->ipt + i, g->jpt + j, k, lu_at(g, g->rsd, i, j, k));
    memset(g->frct, 0, (size_t)(g->nz + 2) * g->sz * sizeof(double));
    lu_halo(g, g->rsd);
    lu_operator(g, g->frct, g->rsd);
}

/* Copy two layers (i = a, a+1 or j = a, a+1) of every plane between field x and buf. */
static void pack(lu_ctx *g, double *x, double *buf, int along_i, int a, int out)
{
    size_t n = 0;
    int len = along_i ? g->ny : g->nx;
    for (int k = 1; k <= g->nz; k++)
        for (int l = 0; l < 2; l++)
            for (int t = 1; t <= len; t++) {
                double *p = along_i ? lu_at(g, x, a + l, t, k) : lu_at(g, x, t, a + l, k);
                if (out)
                    memcpy(buf + n, p, 5 * sizeof(double));
                else
                    memcpy(p, buf + n, 5 * sizeof(double));
                n += 5;
            }
}

/* Exchange two layers with the neighbours lo (before index 1) and hi (after n). */
static void swap_layers(lu_ctx *g, double *x, int along_i, int lo, int hi)
{
    int n = along_i ? g->nx : g->ny, len = along_i ? g->ny : g->nx;
    int count = 2 * 5 * len * g->nz;
    double *s_lo = g->hbuf, *s_hi = s_lo + g->hcount, *r_lo = s_hi + g->hcount,
           *r_hi = r_lo + g->hcount;
    if (lo != MPI_PROC_NULL)
        pack(g, x, s_lo, along_i, 1, 1);
    if (hi != MPI_PROC_NULL)
        pack(g, x, s_hi, along_i, n - 1, 1);
    MPI_Sendrecv(s_lo, count, MPI_DOUBLE, lo, 11, r_hi, count, MPI_DOUBLE, hi, 11, g->comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(s_hi, count, MPI_DOUBLE, hi, 12, r_lo, count, MPI_DOUBLE, lo, 12, g->comm,
                 MPI_STATUS_IGNORE);
    if (lo != MPI_PROC_NULL)
        pack(g, x, r_lo, along_i, -1, 0);
    if (hi != MPI_PROC_NULL)
        pack(g, x, r_hi, along_i, n + 1, 0);
}

void lu_halo(lu_ctx *g, double *a)
{
    lu_phase(g, LU_PH_HALO);
    swap_layers(g, a, 1, g->north, g->south);
    swap_layers(g, a, 0, g->west, g->east);
}
