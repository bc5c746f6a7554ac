/* pctm_comp.c - pctm's components on their own decompositions (pctm_comp.h). */
#include "pctm_comp.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double FLUX_SCALE = 1e-7;  /* m/s of surface flux per unit relative height */
static const double FIELD_K = 10.0;     /* K of the lowest level per m of the ocean's field */
static const double GRAV = 9.80616;     /* POP's grav (pop_grid.c) */
static const int COLUMN_CHUNK = 16;     /* columns per chunk of the column kernel */
static const double COLUMN_TOL = 1e-10; /* column.c's bound against the reference */

void pctm_atm_init(pctm_atm *a, MPI_Comm comm, int M, double dt, int P, int Q)
{
    memset(a, 0, sizeof *a);
    a->in = comm != MPI_COMM_NULL;
    if (!a->in)
        return;
    a->comm = comm;
    MPI_Comm_rank(comm, &a->rank);
    MPI_Comm_size(comm, &a->n);
    a->P = P;
    a->Q = Q;
    a->alpha = 0.3;  /* tilted: the flux varies in longitude too */
    int nlon = 0, nlat = 0;
    sst_check_args(M, &nlon, &nlat, 1);
    sst_init(&a->s, M, nlon, nlat, 1, SST_SEMI_IMPLICIT, dt, 0.0, SST_START_CLASSIC);
    psst_phases_init(&a->ph);
    psst_setup_in(&a->g, &a->s, comm, P, Q, 0, 0);
    a->g.ph = &a->ph;
    a->h = pctm_alloc((size_t)nlat * nlon, sizeof(double));
    a->ht = pctm_alloc((size_t)nlat * nlon, sizeof(double));
    a->j0 = (int)((long)nlat * a->rank / a->n);
    a->nj = (int)((long)nlat * (a->rank + 1) / a->n) - a->j0;
    a->flux = pctm_alloc((size_t)a->nj * nlon, sizeof(double));
}

void pctm_atm_start(pctm_atm *a)
{
    if (!a->in)
        return;
    sst_set_tc2(&a->s, a->alpha);
    a->pass = 0;
}

void pctm_atm_steps(pctm_atm *a, int passes)
{
    for (int k = 0; k < passes; k++)
        psst_pstep(&a->s, &a->g, a->pass++);
    hpc_phases_stop(&a->ph);
}

void pctm_atm_flux(pctm_atm *a)
{
    sst_model *s = &a->s;
    psst_gather_state(s, &a->g);
    sst_height(s, a->h, 0);
    double h0 = s->phibar / s->g;
    const double *h = a->h + (size_t)a->j0 * s->nlon;
    for (size_t x = 0; x < (size_t)a->nj * s->nlon; x++)
        a->flux[x] = FLUX_SCALE * (h[x] / h0 - 1.0);
}

double pctm_atm_error(pctm_atm *a)
{
    double e[3];
    sst_tc2_height(&a->s, a->alpha, a->ht);
    sst_errors(&a->s, a->h, a->ht, e);
    return fmax(fmax(e[0], e[1]), e[2]) + (isnan(e[0] + e[1] + e[2]) ? NAN : 0.0);
}

void pctm_atm_free(pctm_atm *a)
{
    if (a->in) {
        psst_teardown(&a->g);
        sst_free(&a->s);
        free(a->h); free(a->ht); free(a->flux);
    }
    memset(a, 0, sizeof *a);
}

static const hpc_phase_def POP_PHASES[] = {{"compute", HPC_KIND_COMPUTE},
                                           {"halo", HPC_KIND_COMM},
                                           {"copy", HPC_KIND_COPY},
                                           {"global_sum", HPC_KIND_COMM}};

/* The global sum is POP's Send/Recv tree over ranks 0 .. n-1 (set below): its allreduce
 * variant would sum over every rank of MPI_COMM_WORLD, the atmosphere's too. */
void pctm_ocn_init(pctm_ocn *o, const pop_grid *g, int n, int P, int Q, double tol)
{
    memset(o, 0, sizeof *o);
    o->in = hpc_rank < n;
    o->grid = g;
    o->dt = g->dt;
    o->tol = tol;
    if (!o->in)
        return;
    pop_decomp *d = &o->d;
    pop_decomp_init(d, g->nx, g->ny, P, Q, 0, hpc_rank, n);
    hpc_phases_init(&o->ph, POP_PHASES, 4);
    if (pop_block_init(&o->b, g, d->i0, d->j0, d->bx, d->by)
        || pop_halo_init(&o->h, d, POP_HALO_PACK, &o->ph)
        || pop_gsum_init(&o->gs, POP_SUM_TREE, 2)
        || pop_pcg_init(&o->pcg, &o->b, &o->h, &o->gs, &o->ph, 10, 100000))
        hpc_fail("pctm: cannot set up the ocean's %dx%d block", d->bx, d->by);
    o->gs.rank = hpc_rank;
    o->gs.nranks = n;
    o->eta = pctm_alloc((size_t)d->bx * d->by, sizeof(double));
    o->flux = pctm_alloc((size_t)d->bx * d->by, sizeof(double));
}

/* c = area / (g dt^2) of my block's row j on ocean, else 0. */
static double coef(const pctm_ocn *o, int i, int j)
{
    const pop_grid *g = o->grid;
    int gi = o->d.i0 + i, gj = o->d.j0 + j;
    return g->mask[(size_t)gj * g->nx + gi] ? g->area[gj] / (GRAV * o->dt * o->dt) : 0.0;
}

static double volume(const pctm_ocn *o)
{
    double v = 0;
    for (int j = 0; j < o->d.by; j++)
        for (int i = 0; i < o->d.bx; i++)
            v += coef(o, i, j) * o->eta[(size_t)j * o->d.bx + i];
    return v;
}

void pctm_ocn_start(pctm_ocn *o)
{
    if (!o->in)
        return;
    memset(o->eta, 0, (size_t)o->d.bx * o->d.by * sizeof(double));
    memset(o->flux, 0, (size_t)o->d.bx * o->d.by * sizeof(double));
    o->vol0 = volume(o);
    o->added = o->bnorm = 0;
    o->iters = o->steps = 0;
}

/* One barotropic step: the right-hand side, the solve, the new free surface. (The baroclinic
 * phase, when the ocean has one, is one more call here.) */
void pctm_ocn_step(pctm_ocn *o)
{
    int bx = o->d.bx, by = o->d.by, ld = o->b.ld;
    double bb = 0;
    for (int j = 0; j < by; j++)
        for (int i = 0; i < bx; i++) {
            size_t x = (size_t)j * bx + i;
            double c = coef(o, i, j), b = c * (o->eta[x] + o->dt * o->flux[x]);
            o->pcg.rhs[(size_t)(j + 1) * ld + i + 1] = b;
            o->added += c * o->dt * o->flux[x];
            bb += b * b;
        }
    bb = pop_gsum_do(&o->gs, bb);
    o->pcg.tol2_bb = o->tol * o->tol * bb;
    int it = 0;
    if (bb > 0) {  /* b = 0 (no flux yet): x = 0 exactly, and no residual could get below 0 */
        it = pop_pcg_solve(&o->pcg);
        hpc_phases_stop(&o->ph);
    } else {
        memset(o->pcg.x, 0, o->b.n * sizeof(double));
    }
    if (it < 0)
        hpc_fail("pctm: the ocean's solve did not converge (step %d)", o->steps);
    o->iters += it;
    o->steps++;
    o->bnorm += sqrt(bb);
    for (int j = 0; j < by; j++)
        memcpy(o->eta + (size_t)j * bx, o->pcg.x + (size_t)(j + 1) * ld + 1,
               (size_t)bx * sizeof(double));
}

/* |sum(c eta) - sum(c eta0) - sum(c dt F)| against the solver's tolerance: sum r <= sqrt(N)
 * ||r|| <= sqrt(N) tol ||b|| per solve (x10: the recursive residual), plus round-off. */
void pctm_ocn_budget(pctm_ocn *o, double *err, double *bound)
{
    double v = volume(o);
    double e = pop_gsum_do(&o->gs, v - o->vol0 - o->added);
    double scale = pop_gsum_do(&o->gs, fabs(v) + fabs(o->vol0) + fabs(o->added));
    *err = fabs(e);
    *bound = 10.0 * (sqrt((double)o->grid->ocean) * o->tol * o->bnorm + 1e-13 * scale);
}

void pctm_ocn_free(pctm_ocn *o)
{
    if (o->in) {
        pop_pcg_free(&o->pcg);
        pop_gsum_free(&o->gs);
        pop_halo_free(&o->h);
        pop_block_free(&o->b);
        free(o->eta); free(o->flux);
    }
    memset(o, 0, sizeof *o);
}

static size_t bottom(const pctm_cols *c, long col)
{
    long ch = col / COLUMN_CHUNK, i = col % COLUMN_CHUNK;
    return ((size_t)ch * c->nlev + (c->nlev - 1)) * COLUMN_CHUNK + i;
}

void pctm_cols_init(pctm_cols *c, long ncols, int nlev)
{
    memset(c, 0, sizeof *c);
    c->ncols = ncols;
    c->nlev = nlev;
    c->field = pctm_alloc((size_t)ncols, sizeof(double));
    c->t0 = pctm_alloc((size_t)ncols, sizeof(double));
    if (ncols == 0)
        return;
    column_alloc(&c->cs, ncols, nlev, COLUMN_CHUNK);
    for (long k = 0; k < ncols; k++)
        c->t0[k] = c->cs.T[bottom(c, k)];
}

void pctm_cols_step(pctm_cols *c)
{
    if (c->ncols == 0)
        return;
    for (long k = 0; k < c->ncols; k++)
        c->cs.T[bottom(c, k)] = c->t0[k] + FIELD_K * c->field[k];
    column_run(&c->cs);
}

void pctm_cols_verify(pctm_cols *c, const char *name)
{
    if (c->ncols == 0)
        return;
    int L = c->nlev;
    double *ref = pctm_alloc((size_t)c->ncols * L, sizeof(double));
    for (long k = 0; k < c->ncols; k++)
        c->cs.T[bottom(c, k)] = c->t0[k];
    column_run(&c->cs);
    column_reference(c->ncols, L, ref);
    for (long k = 0; k < c->ncols; k++) {
        double big = 0, diff = 0;
        for (int l = 0; l < L; l++) {
            double r = ref[k * L + l], d = fabs(column_heating(&c->cs, k, l) - r);
            big = fmax(big, fabs(r));
            diff = isnan(d) || isnan(diff) ? NAN : fmax(diff, d);
        }
        hpc_check_bound(big > 0 ? diff / big : diff, COLUMN_TOL, "pctm: the %s column kernel "
                        "against its reference, column %ld: difference relative to its "
                        "largest rate", name, k);
    }
    free(ref);
}

void pctm_cols_free(pctm_cols *c)
{
    if (c->ncols)
        column_free(&c->cs);
    free(c->field);
    free(c->t0);
    memset(c, 0, sizeof *c);
}
