/* pctm_model.c - pctm's coupled model on one layout (pctm_model.h). */
#include "pctm_model.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const hpc_phase_def pctm_phase_defs[PCTM_NPH] = {
    {"atmosphere", HPC_KIND_COMPUTE}, {"ocean", HPC_KIND_COMPUTE}, {"land", HPC_KIND_COMPUTE},
    {"ice", HPC_KIND_COMPUTE}, {"regrid", HPC_KIND_COPY}, {"coupler", HPC_KIND_COMM}};

static const double LAT_WALL = 78.0;   /* the ocean grid's walls (pop_grid.h) */
static const double ICE_LAT = 60.0;    /* poleward of it: the ice's columns */
static const double CPL_TOL = 1e-12;   /* the coupler's integrals: round-off */
enum { NINTEG = 6 };                   /* per interval: 3 per regridding */

double pctm_atm_dt_max(int M) { return fmin(2400.0 * 42.0 / M, 3600.0); }  /* as psst's */
double pctm_atm_dt(const pctm_config *cf) { return cf->hours * 3600.0 / cf->atm_steps; }

int pctm_atm_grid(int M, int n, int *P, int *Q)
{
    int nlon = 0, nlat = 0;
    if (n < 1 || sst_check_args(M, &nlon, &nlat, 1))
        return 0;
    for (int p = 1; p <= n; p++) {  /* the fewest latitude blocks: no global sum at P = 1 */
        int q = n / p, units = 2 * ((nlat + 1) / 2 / p) - nlat % 2;
        if (n % p == 0 && p <= (nlat + 1) / 2 && q <= M + 1 && q <= units) {
            *P = p;
            *Q = q;
            return 1;
        }
    }
    return 0;
}

int pctm_ocn_grid(int nx, int ny, int n, int *P, int *Q)
{
    double best = INFINITY;
    for (int p = 1; p <= n; p++) {  /* blocks closest to square, at least 2 x 2 points */
        int q = n / p;
        if (n % p || nx / p < 2 || ny / q < 2)
            continue;
        double d = fabs(log((double)nx / p) - log((double)ny / q));
        if (d < best) {
            best = d;
            *P = p;
            *Q = q;
        }
    }
    return best < INFINITY;
}

/* Every rank's rectangle of the atmosphere's bands and of the ocean's blocks. */
static void rects(const pctm_model *m, int (*ra)[4], int (*ro)[4], int n)
{
    for (int r = 0; r < n; r++) {
        int a = r - m->sp.a0, N = m->sp.natm;
        memset(ra[r], 0, sizeof ra[r]);
        memset(ro[r], 0, sizeof ro[r]);
        if (a >= 0 && a < N) {
            int j0 = (int)((long)m->ga.ny * a / N), j1 = (int)((long)m->ga.ny * (a + 1) / N);
            ra[r][1] = m->ga.nx, ra[r][2] = j0, ra[r][3] = j1 - j0;
        }
        if (r < m->sp.nocn) {
            pop_decomp d;
            pop_decomp_init(&d, m->cf.nx, m->cf.ny, m->sp.ocnP, m->sp.ocnQ, 0, r, m->sp.nocn);
            ro[r][0] = d.i0, ro[r][1] = d.bx, ro[r][2] = d.j0, ro[r][3] = d.by;
        }
    }
}

/* The Gaussian grid's cell with its centre on the ocean grid's ocean. */
static int wet(const pctm_model *m, int i, int j)
{
    double mu = 0.5 * (m->ga.ylo[j] + m->ga.yhi[j]);
    int c = (int)(i * (double)m->go.nx / m->ga.nx) % m->go.nx;
    for (int r = 0; r < m->go.ny; r++)
        if (mu >= m->go.ylo[r] && mu < m->go.yhi[r])
            return m->og.mask[(size_t)r * m->go.nx + c];
    return 0;
}

/* The land's (ice = 0) or the ice's columns: dealt to the atmosphere's ranks, their
 * redistribution from its bands, the kernel checked once against its reference. */
static void columns(pctm_model *m, int ice, pctm_cols *c, pctm_redist *rd)
{
    const pctm_grid *g = &m->ga;
    long ncell = 0, *cells = pctm_alloc((size_t)g->nx * g->ny, sizeof(long));
    for (int j = 0; j < g->ny; j++) {
        int polar = fabs(0.5 * (g->ylo[j] + g->yhi[j])) >= sin(ICE_LAT * M_PI / 180.0);
        for (int i = 0; i < g->nx; i++)
            if (ice ? polar : !polar && !wet(m, i, j))
                cells[ncell++] = (long)j * g->nx + i;
    }
    pctm_layout l;
    pctm_layout_cyclic(&l, (long)g->nx * g->ny, cells, ncell, m->sp.a0, m->sp.natm, hpc_rank);
    long mine = 0;
    for (long k = 0; k < ncell; k++)
        if (l.owner[cells[k]] == hpc_rank)
            cells[mine++] = cells[k];
    pctm_redist_init(rd, m->comm, &m->la, cells, mine);
    pctm_cols_init(c, mine, m->cf.nlev);
    pctm_cols_verify(c, ice ? "ice" : "land");
    pctm_layout_free(&l);
    free(cells);
}

static void grids(pctm_model *m)
{
    const pctm_config *cf = &m->cf;
    if (pop_grid_init(&m->og, cf->nx, cf->ny, cf->land, cf->hours * 3600.0 / cf->ocn_steps))
        hpc_fail("pctm: cannot build the %dx%d ocean grid", cf->nx, cf->ny);
    int nlon = 0, nlat = 0;
    sst_check_args(cf->M, &nlon, &nlat, 1);
    double *mu = pctm_alloc((size_t)nlat, sizeof(double)), *w = pctm_alloc((size_t)nlat, sizeof(double));
    sst_gauss(nlat, mu, w);  /* the atmosphere's latitudes, on every rank */
    pctm_grid_gauss(&m->ga, nlon, nlat, w);
    pctm_grid_rows(&m->go, cf->nx, cf->ny, m->og.area, LAT_WALL, m->og.mask);
    free(mu);
    free(w);
}

void pctm_model_init(pctm_model *m, const pctm_config *cf, const pctm_split *sp,
                     int max_intervals)
{
    memset(m, 0, sizeof *m);
    m->cf = *cf;
    m->sp = *sp;
    m->max_intervals = max_intervals;
    MPI_Comm_dup(MPI_COMM_WORLD, &m->comm);
    int inatm = hpc_rank >= sp->a0 && hpc_rank < sp->a0 + sp->natm;
    MPI_Comm_split(MPI_COMM_WORLD, inatm ? 0 : MPI_UNDEFINED, hpc_rank, &m->acomm);
    grids(m);
    pctm_atm_init(&m->atm, m->acomm, cf->M, pctm_atm_dt(cf), sp->atmP, sp->atmQ);
    pctm_ocn_init(&m->ocn, &m->og, sp->nocn, sp->ocnP, sp->ocnQ, cf->tol);
    int (*ra)[4] = pctm_alloc((size_t)hpc_nranks, sizeof *ra), (*ro)[4] = pctm_alloc((size_t)hpc_nranks,
                                                                               sizeof *ro);
    rects(m, ra, ro, hpc_nranks);
    pctm_layout_rects(&m->la, m->ga.nx, m->ga.ny, (const int(*)[4])ra, hpc_nranks, hpc_rank);
    pctm_layout_rects(&m->lo, m->go.nx, m->go.ny, (const int(*)[4])ro, hpc_nranks, hpc_rank);
    pctm_regrid_init(&m->a2o, m->comm, &m->ga, &m->la, &m->go, ro[hpc_rank], 0);
    pctm_regrid_init(&m->o2a, m->comm, &m->go, &m->lo, &m->ga, ra[hpc_rank], 1);
    m->sfc = pctm_alloc((size_t)ra[hpc_rank][1] * ra[hpc_rank][3], sizeof(double));
    columns(m, 0, &m->land, &m->rland);
    columns(m, 1, &m->ice, &m->rice);
    m->integ = pctm_alloc((size_t)max_intervals * NINTEG, sizeof(double));
    hpc_phases_init(&m->ph, pctm_phase_defs, PCTM_NPH);
    free(ra);
    free(ro);
}

void pctm_model_start(pctm_model *m)
{
    pctm_atm_start(&m->atm);
    pctm_ocn_start(&m->ocn);
    memset(m->land.field, 0, (size_t)m->land.ncols * sizeof(double));
    memset(m->ice.field, 0, (size_t)m->ice.ncols * sizeof(double));
    m->interval = 0;
}

static int atm_passes(const pctm_model *m, int k)
{
    int a = m->cf.atm_steps;
    return sst_passes(&m->atm.s, (k + 1) * a) - (k ? sst_passes(&m->atm.s, k * a) : 0);
}

/* The coupler: regriddings both ways, then the field to the land's and the ice's columns. */
static void couple(pctm_model *m, double *integ)
{
    hpc_phases *ph = &m->ph;
    hpc_phase_to(ph, PCTM_PH_COUPLER);
    pctm_regrid_fetch(&m->a2o, m->atm.flux);
    hpc_phase_to(ph, PCTM_PH_REGRID);
    pctm_regrid_apply(&m->a2o, m->ocn.flux);
    if (hpc_inject == HPC_INJECT_CORRUPT && m->interval == 0 && m->ocn.in)
        for (long d = 0; d < (long)m->a2o.rect[1] * m->a2o.rect[3]; d++)
            if (m->a2o.norm[d] > 0 && hpc_rank == 0) {
                m->ocn.flux[d] += 1.0;  /* a damaged flux: the integrals must disagree */
                break;
            }
    pctm_regrid_integrals(&m->a2o, m->atm.flux, m->ocn.flux, integ);
    hpc_phase_to(ph, PCTM_PH_COUPLER);
    pctm_regrid_fetch(&m->o2a, m->ocn.eta);
    hpc_phase_to(ph, PCTM_PH_REGRID);
    pctm_regrid_apply(&m->o2a, m->sfc);
    pctm_regrid_integrals(&m->o2a, m->ocn.eta, m->sfc, integ + 3);
    hpc_phase_to(ph, PCTM_PH_COUPLER);
    pctm_redist_do(&m->rland, m->sfc, m->land.field);
    pctm_redist_do(&m->rice, m->sfc, m->ice.field);
}

void pctm_model_interval(pctm_model *m)
{
    hpc_phases *ph = &m->ph;
    hpc_phase_to(ph, PCTM_PH_ATM);
    if (m->atm.in) {
        pctm_atm_steps(&m->atm, atm_passes(m, m->interval));
        pctm_atm_flux(&m->atm);
    }
    hpc_phase_to(ph, PCTM_PH_OCN);
    for (int k = 0; k < m->cf.ocn_steps && m->ocn.in; k++)
        pctm_ocn_step(&m->ocn);
    hpc_phase_to(ph, PCTM_PH_LAND);
    for (int k = 0; k < m->cf.land_steps; k++)
        pctm_cols_step(&m->land);
    hpc_phase_to(ph, PCTM_PH_ICE);
    for (int k = 0; k < m->cf.ice_steps; k++)
        pctm_cols_step(&m->ice);
    if (m->interval >= m->max_intervals)
        hpc_fail("pctm: interval %d beyond the %d planned", m->interval, m->max_intervals);
    couple(m, m->integ + (size_t)m->interval * NINTEG);
    m->interval++;
}

/* The worst |sum_s F_s E_s - sum_d F_d N_d| / sum_s |F_s| E_s over the intervals. */
static double coupler_check(pctm_model *m)
{
    int n = m->interval * NINTEG;
    MPI_Allreduce(MPI_IN_PLACE, m->integ, n, MPI_DOUBLE, MPI_SUM, m->comm);
    double worst = 0;
    static const char *what[2] = {"atmosphere-to-ocean flux", "ocean-to-atmosphere field"};
    for (int k = 0; k < m->interval; k++)
        for (int e = 0; e < 2; e++) {
            const double *x = m->integ + (size_t)k * NINTEG + 3 * e;
            double rel = fabs(x[0] - x[1]) / (x[2] > 0 ? x[2] : 1.0);
            if (hpc_rank == 0)
                hpc_check_bound(rel, CPL_TOL, "pctm: the coupler's %s, interval %d: global "
                                "integral %.17g on the source grid, %.17g on the destination: "
                                "difference relative to the integral of |F|", what[e], k, x[0],
                                x[1]);
            worst = fmax(worst, rel);
        }
    return worst;
}

void pctm_model_check(pctm_model *m, double out[4])
{
    out[0] = coupler_check(m);
    out[1] = out[2] = out[3] = 0;
    if (m->atm.in && m->atm.rank == 0) {
        out[1] = pctm_atm_error(&m->atm);
        double days = m->interval * m->cf.hours / 24.0;
        hpc_check_bound(out[1], sst_error_bound(2, m->cf.M, days), "pctm: the atmosphere's "
                        "normalised height error against test case 2 after %g days", days);
    }
    if (m->ocn.in) {
        pctm_ocn_budget(&m->ocn, &out[2], &out[3]);
        hpc_check_bound(out[2], out[3], "pctm: the ocean's volume budget after %d steps "
                        "(sum of c eta against its start plus the fluxes' sum)", m->ocn.steps);
    }
    MPI_Bcast(&out[1], 1, MPI_DOUBLE, m->sp.a0, m->comm);
    MPI_Bcast(&out[2], 2, MPI_DOUBLE, 0, m->comm);
    const pctm_cols *c[2] = {&m->land, &m->ice};
    for (int k = 0; k < 2; k++)
        if (c[k]->ncols)
            hpc_check_finite(c[k]->cs.heat, (size_t)c[k]->cs.nchunks * c[k]->nlev * c[k]->cs.nlon,
                             "pctm: the %s columns' heating", k ? "ice" : "land");
}

void pctm_model_free(pctm_model *m)
{
    pctm_atm_free(&m->atm);
    pctm_ocn_free(&m->ocn);
    pctm_cols_free(&m->land);
    pctm_cols_free(&m->ice);
    pctm_regrid_free(&m->a2o);
    pctm_regrid_free(&m->o2a);
    pctm_redist_free(&m->rland);
    pctm_redist_free(&m->rice);
    pctm_layout_free(&m->la);
    pctm_layout_free(&m->lo);
    pctm_grid_free(&m->ga);
    pctm_grid_free(&m->go);
    pop_grid_free(&m->og);
    if (m->acomm != MPI_COMM_NULL)
        MPI_Comm_free(&m->acomm);
    MPI_Comm_free(&m->comm);
    free(m->sfc);
    free(m->integ);
}
