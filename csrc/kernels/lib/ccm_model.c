/* ccm_model.c - the grid, the state and the column physics of ccm.c (its header says what the
 * proxy is). The physics of a column depends on that column alone, so where it is computed
 * (here, or on the partner 180 degrees away) changes no bit of its answer. */
#pragma GCC optimize("no-math-errno")

#include "ccm_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double RADIUS = 6.371e6, DAY = 86400.0;
static const double DT = 1800.0, U0 = 40.0, V0 = 10.0;  /* CCM T42's half hour; jet-like winds */

static int rank_of(const ccm_grid *g, int p, int q) { return p * g->Q + (q + g->Q) % g->Q; }

const char *ccm_grid_init(ccm_grid *g, int nlon, int nlat, int nlev, int P, int Q,
                          MPI_Comm comm)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    *g = (ccm_grid){.nlon = nlon, .nlat = nlat, .nlev = nlev, .P = P, .Q = Q, .comm = comm,
                    .dt = DT, .u0 = U0, .v0 = V0};
    g->dlon = 2 * M_PI / nlon, g->dlat = M_PI / nlat;
    g->hx = (int)ceil(U0 * DT / RADIUS / g->dlon) + 2;
    g->hy = (int)ceil(V0 * DT / RADIUS / g->dlat) + 2;
    if (P * Q != size)
        return "the process grid is not the ranks running";
    if (nlev > CCM_MAXLEV)
        return "more levels than CCM_MAXLEV";
    if (nlon % Q || nlat % P)
        return "Q must divide the longitudes and P the latitudes";
    g->p = me / Q, g->q = me % Q;
    g->nx = nlon / Q, g->ny = nlat / P, g->i0 = g->q * g->nx, g->j0 = g->p * g->ny;
    if (g->nx < g->hx || g->ny < g->hy)
        return "a block is narrower than the departure points' halo";
    g->north = g->p + 1 < P ? rank_of(g, g->p + 1, g->q) : MPI_PROC_NULL;
    g->south = g->p > 0 ? rank_of(g, g->p - 1, g->q) : MPI_PROC_NULL;
    g->east = rank_of(g, g->p, g->q + 1), g->west = rank_of(g, g->p, g->q - 1);
    g->partner = Q % 2 == 0 ? rank_of(g, g->p, g->q + Q / 2) : -1;
    return NULL;
}

static double *alloc(size_t n)
{
    double *p = calloc(n ? n : 1, sizeof *p);
    if (!p)
        hpc_fail("ccm: cannot allocate %zu doubles", n);
    return p;
}

void ccm_state_init(ccm_state *s, const ccm_grid *g, int swap, hpc_phases *ph)
{
    size_t cols = (size_t)g->nx * g->ny, halo = (size_t)(g->nx + 2 * g->hx) * (g->ny + 2 * g->hy);
    size_t edge = (size_t)(g->ny + 2 * g->hy) * g->hx + (size_t)g->nx * g->hy;
    size_t buf = cols * (2 * (size_t)g->nlev + 1);
    if (edge * g->nlev > buf)
        buf = edge * g->nlev;
    *s = (ccm_state){.g = g, .swap = swap, .ph = ph};
    s->T = alloc(cols * g->nlev);
    s->qh = alloc(halo * g->nlev), s->qn = alloc(halo * g->nlev);
    s->mass0 = alloc((size_t)g->nlev);
    s->sbuf = alloc(2 * buf), s->rbuf = alloc(2 * buf);
    s->dx = alloc(cols), s->dy = alloc(cols);
}

void ccm_state_free(ccm_state *s)
{
    double *all[] = {s->T, s->qh, s->qn, s->mass0, s->sbuf, s->rbuf, s->dx, s->dy};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        free(all[k]);
}

static double lat(const ccm_grid *g, int j) { return -M_PI / 2 + (j + 0.5) * g->dlat; }

static size_t qidx(const ccm_grid *g, int k, int y, int x)
{
    return ((size_t)k * (g->ny + 2 * g->hy) + y) * (g->nx + 2 * g->hx) + x;
}

double ccm_q(const ccm_state *s, int i, int j, int k)
{
    return s->qh[qidx(s->g, k, j + s->g->hy, i + s->g->hx)];
}

double ccm_T(const ccm_state *s, int i, int j, int k)
{
    return s->T[((size_t)j * s->g->nx + i) * s->g->nlev + k];
}

/* A cosine bell on a background of 1 per level, each level's centre further east. */
void ccm_init(ccm_state *s)
{
    const ccm_grid *g = s->g;
    s->step = 0, s->day_columns = 0;
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            double phi = lat(g, g->j0 + j), lam = (g->i0 + i) * g->dlon;
            for (int k = 0; k < g->nlev; k++) {
                double c = 0.3 * k, r = acos(fmin(1.0, cos(phi) * cos(lam - c)));
                s->qh[qidx(g, k, j + g->hy, i + g->hx)] =
                    1.0 + (r < 1.0 ? 0.5 * (1 + cos(M_PI * r)) : 0.0);
                s->T[((size_t)j * g->nx + i) * g->nlev + k] =
                    215.0 + 3.5 * k + 25.0 * cos(phi) * cos(phi);
            }
        }
    ccm_mass(s, s->mass0);
}

/* One column: longwave cooling everywhere; by day (mu > 0) shortwave absorption between
 * every pair of levels (the costly part: the day/night imbalance); relaxation towards a
 * fixed profile keeps repeated steps bounded. */
static void column(const double *T, const double *q, double mu, int L, double dt, double *out)
{
    double tau[CCM_MAXLEV], h[CCM_MAXLEV];
    for (int k = 0; k < L; k++) {
        double x = T[k] * (1.0 / 250.0);
        tau[k] = sqrt(0.35e-3 * q[k] * (k + 1) + 1e-4);
        h[k] = -2e-5 * x * x * x * x * exp(-0.8 * tau[k]);
    }
    if (mu > 0)
        for (int k = 0; k < L; k++) {
            double a = 0.0;
            for (int m = 0; m < L; m++) {
                double du = fabs(tau[k] - tau[m]);
                a += (1.0 - exp(-1.7 * du)) * sqrt(du + 1e-3) / (1.0 + 0.25 * du);
            }
            h[k] += 4e-5 * mu * a / L;
        }
    for (int k = 0; k < L; k++)
        out[k] = T[k] + dt * (h[k] - (T[k] - 215.0 - 3.5 * k) * 1e-6);
}

/* Equinox; at the start, noon over longitude 90 degrees: longitudes 0-180 in daylight (the
 * blocks there all day, those opposite all night), the sun moving west. */
static double cos_zenith(const ccm_state *s, int i, int j)
{
    const ccm_grid *g = s->g;
    double hour = (g->i0 + i) * g->dlon - M_PI / 2 + 2 * M_PI * s->step * g->dt / DAY;
    return cos(lat(g, g->j0 + j)) * cos(hour);
}

/* Column (i, j)'s inputs: T, the tracer as moisture, mu. */
static void inputs(const ccm_state *s, int i, int j, double *in)
{
    int L = s->g->nlev;
    memcpy(in, s->T + ((size_t)j * s->g->nx + i) * L, (size_t)L * sizeof *in);
    for (int k = 0; k < L; k++)
        in[L + k] = ccm_q(s, i, j, k);
    in[2 * L] = cos_zenith(s, i, j);
}

static void run_column(ccm_state *s, const double *in, double *out)
{
    s->day_columns += in[2 * s->g->nlev] > 0;
    column(in, in + s->g->nlev, in[2 * s->g->nlev], s->g->nlev, s->g->dt, out);
}

/* Columns whose local longitude is odd go to the partner: half of a block's, spread along it. */
static int swapped(const ccm_state *s, int i) { return s->swap && s->g->partner >= 0 && (i & 1); }

static void exchange(ccm_state *s, double *send, double *recv, int n)
{
    hpc_phase_to(s->ph, CCM_PH_SWAP);
    MPI_Sendrecv(send, n, MPI_DOUBLE, s->g->partner, 41, recv, n, MPI_DOUBLE, s->g->partner, 41,
                 s->g->comm, MPI_STATUS_IGNORE);
}

void ccm_physics(ccm_state *s)
{
    const ccm_grid *g = s->g;
    int L = g->nlev, W = 2 * L + 1, n = 0;
    double in[2 * CCM_MAXLEV + 1];
    hpc_phase_to(s->ph, CCM_PH_SWAP_COPY);
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++)
            if (swapped(s, i))
                inputs(s, i, j, s->sbuf + (size_t)n++ * W);
    if (n)
        exchange(s, s->sbuf, s->rbuf, n * W);
    hpc_phase_to(s->ph, CCM_PH_PHYSICS);
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++)
            if (!swapped(s, i)) {
                inputs(s, i, j, in);
                run_column(s, in, s->T + ((size_t)j * g->nx + i) * L);
            }
    for (int c = 0; c < n; c++)         /* the partner's columns, its answers in place */
        run_column(s, s->rbuf + (size_t)c * W, s->sbuf + (size_t)c * L);
    if (!n)
        return;
    exchange(s, s->sbuf, s->rbuf, n * L);
    hpc_phase_to(s->ph, CCM_PH_SWAP_COPY);
    for (int j = 0, c = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++)
            if (swapped(s, i))
                memcpy(s->T + ((size_t)j * g->nx + i) * L, s->rbuf + (size_t)c++ * L,
                       (size_t)L * sizeof(double));
}

void ccm_step(ccm_state *s)
{
    ccm_physics(s);
    ccm_advect(s);
    s->step++;
}
