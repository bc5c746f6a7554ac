/* pop_step.c - POP's whole time step: the baroclinic phase (3-D explicit tracer and momentum
 * updates over the levels, halo updates of the 3-D state, implicit vertical mixing per
 * column: lib/pop_ocean.h) and the barotropic phase (the free-surface PCG of
 * kernels/barotropic.c, lib/pop_solver.h, with its halo and global-sum variants), on the
 * same P x Q blocks of an nx x ny x nz ocean with land (the model on a block:
 * lib/pop_model.h). The X1 study's headline: simulated years per day, and the split of the
 * step between the two phases.
 *
 * A sample: --steps time steps from the initial state (reset outside the timing) after a
 * barrier; the slowest rank's time. Checks after the first sample of every configuration,
 * outside the timing: the state is finite; the volume integrals of both tracers are kept to
 * round-off (relative 1e-12; the tracers see only face fluxes and column mixing with zero
 * boundary fluxes); and, up to --ref-max grid points, the state equals (within --bound,
 * relative max norm per field) the one rank 0 computes alone on one block (P = Q = 1): the
 * same code and steps, only the decomposition and the solver's sums' order differ.
 *
 * Records per configuration: step_time (ms per step, with the per-rank phases),
 * sim_years_per_day, barotropic_share (% of the step, rank mean), barotropic_time and
 * baroclinic_time (s per simulated day, rank mean: the X1 study's Fig. 9.7 unit).
 */
#include "harness.h"
#include "lib/pop_comm.h"
#include "lib/pop_grid.h"
#include "lib/pop_halo3.h"
#include "lib/pop_model.h"
#include "lib/pop_ocean.h"
#include "lib/pop_solver.h"
#include "lib/pop_variants.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "grids", .type = HPC_GRIDS, .dims = 3, .what = "NXxNYxNZ", .def = "64x48x10",
     .help = "global grids NXxNYxNZ (POP x1: 320x384x40; 0.1 degree: 3600x2400x40)"},
    {.name = "land", .type = HPC_CHOICES, .def = "continents", .choices = "none|continents",
     .help = "land masks"},
    {.name = "pgrids", .type = HPC_GRIDS, .def = "all", .what = "PxQ", .all = 1,
     .help = "process grids PxQ (P blocks in x, Q in y); all: every P x Q = ranks"},
    {.name = "mappings", .type = HPC_CHOICES, .def = "row", .choices = "row|col",
     .what = "row or col", .help = "rank mappings: row (rank = q P + p), col (rank = p Q + q)"},
    {.name = "clinic-halos", .type = HPC_CHOICES, .def = "aggregate,levels",
     .choices = "levels|aggregate",
     .help = "3-D halo updates: levels (one exchange per level, stock POP), aggregate (every "
             "level in one message per neighbour, the Earth Simulator version)"},
    {.name = "halos", .type = HPC_CHOICES, .def = "pack",
     .choices = "datatype|pack|put|shmem|caf", .all = 1,
     .help = "the barotropic solver's halo updates (as barotropic's; shmem, caf: only where the "
             "build has OpenSHMEM, Co-Array Fortran; 'all' skips them elsewhere)"},
    {.name = "sums", .type = HPC_CHOICES, .def = "allreduce",
     .choices = "allreduce|tree|onesided|shmem|caf", .all = 1,
     .help = "the barotropic solver's global sums (as barotropic's; shmem, caf: only where the "
             "build has OpenSHMEM, Co-Array Fortran)"},
    {.name = "branch", .type = HPC_INT, .def = "4", .min = 2, .max = 4096,
     .help = "branching factor of the tree sum"},
    {.name = "steps", .type = HPC_INT, .def = "10", .min = 1, .max = 10000,
     .help = "time steps per sample from the initial state (and of the checked run)"},
    {.name = "dt", .type = HPC_DOUBLE, .def = "1920", .min = 1, .max = 3600,
     .help = "time step in s (1920 s = 45 steps/day, POP at 1 degree)"},
    {.name = "tol", .type = HPC_DOUBLE, .def = "1e-10", .min = 1e-15, .max = 1e-2,
     .help = "barotropic convergence: ||r|| <= tol ||b||"},
    {.name = "check-every", .type = HPC_INT, .def = "10", .min = 1, .max = 100000,
     .help = "solver iterations between convergence checks"},
    {.name = "max-iters", .type = HPC_INT, .def = "20000", .min = 1, .max = 100000000,
     .help = "solver iterations at most per step (not converged: error)"},
    {.name = "ref-max", .type = HPC_SIZE, .def = "8000000", .min = 0, .max = 1e12,
     .help = "check against rank 0's one-block run up to this many grid points (NX NY NZ)"},
    {.name = "bound", .type = HPC_DOUBLE, .def = "1e-6", .min = 0, .max = 1,
     .help = "largest relative difference (max norm per field) from the one-block run"},
    {0}};

static const double CONSERVATION_BOUND = 1e-12;

static const char *const CLINIC_NAMES[] = {"levels", "aggregate"};
static const char *const LAND_NAMES[] = {"none", "continents"};
static const char *const FIELD_NAMES[] = {"u", "v", "T", "S"};

/* The checks' and samples' settings, the same for every configuration. */
typedef struct {
    int steps;
    double bound;
    long long ref_max;
} params;

typedef pop_model_cfg config;  /* one configuration (and the solver's settings) */

static void describe(const config *c, char *buf, size_t len)
{
    snprintf(buf, len, "%dx%dx%d %s, %dx%d %s, clinic halo %s, halo %s, sum %s", c->nx, c->ny,
             c->nz, LAND_NAMES[c->land], c->P, c->Q, c->colmajor ? "col" : "row",
             CLINIC_NAMES[c->clinic], POP_HALO_NAMES[c->halo], POP_SUM_NAMES[c->sum]);
}

/* Volume integrals of T and S over the whole grid (collective). */
static void contents(const pop_model *m, double out[2])
{
    out[0] = pop_sea_content(&m->o, POP_T);
    out[1] = pop_sea_content(&m->o, POP_S);
    MPI_Allreduce(MPI_IN_PLACE, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static double max_rel_diff(const double *x, const double *ref, size_t n)
{
    double m = 0, s = 0;
    for (size_t k = 0; k < n; k++) {
        m = fmax(m, fabs(x[k] - ref[k]));
        s = fmax(s, fabs(ref[k]));
    }
    return s > 0 ? m / s : m;
}

/* What the checks of a configuration's first sample gave. */
typedef struct {
    double change[2], vs_ref;  /* tracers' relative change; from the reference (NAN: none) */
    double iters;              /* solver iterations per step */
} check_result;

/* Whether the grid is small enough for rank 0's one-block run (--ref-max). */
static int has_reference(const config *c, const params *pp)
{
    return (double)c->nx * c->ny * c->nz <= (double)pp->ref_max;
}

/* The checks of the first sample (collective); ref: rank 0's one-block state (rank 0, when
 * has_reference). */
static check_result check_first(pop_model *m, const config *c, const params *pp, const double c0[2],
                                const double *ref, const char *what)
{
    check_result cr = {{0, 0}, NAN, (double)m->iters / pp->steps};
    pop_sea *o = &m->o;
    if (hpc_inject == HPC_INJECT_CORRUPT)  /* damage one ocean point per rank: checks must fail */
        for (size_t p = o->ld + 1; p < o->n2; p++)
            if (o->mask[p]) {
                pop_level(o, o->state, POP_T, 0)[p] += 1.0;
                break;
            }
    hpc_check_finite(o->state, (size_t)POP_NFIELDS * o->nz * o->n2, "pop-step: %s: the state",
                     what);
    double c1[2];
    contents(m, c1);
    for (int f = 0; f < 2; f++) {
        cr.change[f] = fabs(c1[f] - c0[f]) / fabs(c0[f]);
        hpc_check_bound(cr.change[f], CONSERVATION_BOUND, "pop-step: %s: the volume integral of "
                        "%s changed in %d steps (relative)", what, FIELD_NAMES[POP_T + f],
                        pp->steps);
    }
    if (!has_reference(c, pp))
        return cr;
    size_t n3 = (size_t)c->nx * c->ny * c->nz;
    double *st = hpc_rank == 0 ? malloc(POP_NFIELDS * n3 * sizeof(double)) : NULL;
    if (hpc_rank == 0 && !st)
        hpc_fail("pop-step: no memory to gather the state");
    pop_model_gather(m, st);
    if (hpc_rank == 0) {
        cr.vs_ref = 0;
        for (int f = 0; f < POP_NFIELDS; f++) {
            double r = max_rel_diff(st + f * n3, ref + f * n3, n3);
            hpc_check_bound(r, pp->bound, "pop-step: %s: %s differs from the one-block run's "
                            "(relative, max norm)", what, FIELD_NAMES[f]);
            cr.vs_ref = fmax(cr.vs_ref, r);
        }
    }
    MPI_Bcast(&cr.vs_ref, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(st);
    return cr;
}

/* Rank 0's one-block run of --steps steps (the others wait): the global state, or NULL on
 * the other ranks and beyond --ref-max. */
static double *reference(const pop_grid *g, const config *c, const params *pp)
{
    if (!has_reference(c, pp))
        return NULL;
    double *ref = NULL;
    if (hpc_rank == 0) {
        pop_model m;
        if (pop_model_init(&m, g, c, 1))
            hpc_fail("pop-step: no memory for the one-block reference");
        pop_model_reset(&m, g);
        pop_model_steps(&m, pp->steps);
        ref = malloc((size_t)POP_NFIELDS * c->nx * c->ny * c->nz * sizeof(double));
        if (!ref)
            hpc_fail("pop-step: no memory for the one-block reference");
        pop_model_gather(&m, ref);
        pop_model_free(&m);
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    return ref;
}

/* Per kept sample: ms per step, years per day, the barotropic share (%), each phase's s per
 * simulated day. */
enum { M_STEP, M_YPD, M_SHARE, M_TROPIC, M_CLINIC, NMETRICS };

typedef struct {
    hpc_sampler sm;
    double *v[NMETRICS];
    double wall;
    check_result cr;
} samples;

/* This rank's seconds in the barotropic (phases 0-3) and baroclinic (4-7) phases so far. */
static void phase_split(const hpc_phases *ph, double t[2])
{
    t[0] = t[1] = 0;
    for (int k = 0; k < POP_MODEL_NPHASES; k++)
        t[k >= POP_PH_CLINIC] += ph->total[k];
}

static void sample_steps(pop_model *m, const pop_grid *g, const config *c, const params *pp,
                         const double *ref, const char *what, samples *ms)
{
    hpc_sampler_init(&ms->sm, &hpc_reps);
    for (int k = 0; k < NMETRICS; k++)
        if (!(ms->v[k] = malloc((size_t)hpc_reps.max_reps * sizeof(double))))
            abort();
    ms->wall = 0;
    hpc_phases_reset(&m->ph);
    int first = 1;
    while (hpc_sampler_more_coll(&ms->sm, MPI_COMM_WORLD)) {
        double c0[2], before[2], after[2], tmax;
        pop_model_reset(m, g);
        if (first)
            contents(m, c0);
        phase_split(&m->ph, before);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        pop_model_steps(m, pp->steps);
        double t = hpc_now() - t0;
        phase_split(&m->ph, after);
        if (first)
            ms->cr = check_first(m, c, pp, c0, ref, what);
        first = 0;
        double split[2] = {after[0] - before[0], after[1] - before[1]};
        MPI_Allreduce(MPI_IN_PLACE, split, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (hpc_phases_sample(&m->ph, &ms->sm, t, &ms->wall, &tmax)) {
            int s = ms->sm.n - 1;
            double per_day = 86400.0 / c->dt / pp->steps / hpc_nranks;  /* rank mean, per day */
            ms->v[M_STEP][s] = tmax / pp->steps * 1e3;
            ms->v[M_YPD][s] = c->dt * pp->steps / tmax / 365.0;
            ms->v[M_SHARE][s] = 100.0 * split[0] / (split[0] + split[1]);
            ms->v[M_TROPIC][s] = split[0] * per_day;
            ms->v[M_CLINIC][s] = split[1] * per_day;
        }
    }
}

static const struct {
    const char *metric, *unit, *better;
} METRICS[NMETRICS] = {{"step_time", "ms", "lower"},
                       {"sim_years_per_day", "years/day", "higher"},
                       {"barotropic_share", "%", "lower"},
                       {"barotropic_time", "s/day", "lower"},
                       {"baroclinic_time", "s/day", "lower"}};

/* step_time's extra keys (collective): per-rank phases and wall time, the checks. */
static void step_extra(hpc_json *r, pop_model *m, const pop_grid *g, const config *c,
                       const params *pp,
                       const samples *ms)
{
    double steps = (double)ms->sm.n * pp->steps;
    hpc_phases_json(r, &m->ph, 1e3 / steps, MPI_COMM_WORLD);
    hpc_json_per_rank(r, "wall_per_rank", ms->wall / steps * 1e3, MPI_COMM_WORLD);
    hpc_json_num(r, "solver_iterations_per_step", ms->cr.iters);
    hpc_json_num(r, "T_rel_change", ms->cr.change[0]);
    hpc_json_num(r, "S_rel_change", ms->cr.change[1]);
    hpc_json_exact(r, "conservation_bound", CONSERVATION_BOUND);
    if (!isnan(ms->cr.vs_ref))  /* absent beyond --ref-max */
        hpc_json_num(r, "max_rel_diff_vs_one_rank", ms->cr.vs_ref);
    hpc_json_exact(r, "bound", pp->bound);
    hpc_json_exact(r, "tol", c->tol);
    hpc_json_int(r, "ocean_columns", g->ocean);
}

static void emit(pop_model *m, const pop_grid *g, const config *c, const params *pp,
                 const samples *ms)
{
    for (int k = 0; k < NMETRICS; k++) {
        hpc_stats st;
        hpc_stats_compute(ms->v[k], ms->sm.n, &st);
        hpc_json r;
        hpc_result_begin(&r, METRICS[k].metric, METRICS[k].unit, "median", METRICS[k].better);
        hpc_json_int(&r, "nx", c->nx);
        hpc_json_int(&r, "ny", c->ny);
        hpc_json_int(&r, "nz", c->nz);
        hpc_json_int(&r, "P", c->P);
        hpc_json_int(&r, "Q", c->Q);
        hpc_json_str(&r, "mapping", c->colmajor ? "col" : "row");
        hpc_json_str(&r, "clinic_halo", CLINIC_NAMES[c->clinic]);
        hpc_json_str(&r, "halo", POP_HALO_NAMES[c->halo]);
        hpc_json_str(&r, "sum", POP_SUM_NAMES[c->sum]);
        hpc_json_int(&r, "branch", c->sum == POP_SUM_TREE ? c->branch : 0);
        hpc_json_str(&r, "land", LAND_NAMES[c->land]);
        hpc_json_int(&r, "steps", pp->steps);
        hpc_json_exact(&r, "dt_s", c->dt);
        hpc_result_stats(&r, &st, ms->sm.converged);
        if (k == M_STEP)
            step_extra(&r, m, g, c, pp, ms);
        hpc_json_emit(&r);
    }
}

static void run_config(const pop_grid *g, const config *c, const params *pp, const double *ref)
{
    char what[200];
    describe(c, what, sizeof what);
    pop_model m;
    if (pop_model_init(&m, g, c, 0))
        hpc_fail("pop-step: no memory for a %dx%dx%d block", m.d.bx, m.d.by, c->nz);
    samples ms;
    sample_steps(&m, g, c, pp, ref, what, &ms);
    emit(&m, g, c, pp, &ms);
    for (int k = 0; k < NMETRICS; k++)
        free(ms.v[k]);
    hpc_sampler_free(&ms.sm);
    pop_model_free(&m);
}

/* Everything the options select: the configurations are its cross product. */
typedef struct {
    const hpc_grid *gr;
    hpc_grid *pg;
    int ngr, npg;
    const long long *lands, *maps, *clinics, *halos, *sums;
    int nland, nmap, nclinic, nhalo, nsum;
    int shmem, caf;    /* a shmem (caf) variant is measured: OpenSHMEM (CAF) starts */
    params pp;
    config base;  /* the solver's settings */
} plan;

static void check_grid(const plan *pl, int k)
{
    int nx = pl->gr[k].x, ny = pl->gr[k].y, nz = pl->gr[k].z;
    hpc_usage_check(nx < 3 || ny < 2 || nz < 1, "pop-step: a %dx%dx%d grid is too small (nx >= "
                    "3, ny >= 2, nz >= 1)", nx, ny, nz);
    hpc_usage_check(nz > 1000 || (double)nx * ny > 2e8 || (double)nx * ny * nz > 4e10,
                    "pop-step: a %dx%dx%d grid is too big", nx, ny, nz);
    for (int m = 0; m < pl->npg; m++)
        hpc_usage_check(pl->pg[m].x > nx || pl->pg[m].y > ny, "pop-step: a %dx%d process grid "
                        "leaves blocks smaller than one point on the %dx%dx%d grid", pl->pg[m].x,
                        pl->pg[m].y, nx, ny, nz);
    for (int l = 0; l < pl->nland; l++) {
        pop_grid g;
        hpc_usage_check(pop_grid_init(&g, nx, ny, (int)pl->lands[l], pl->base.dt) != 0,
                        "pop-step: no memory for the %dx%d grid", nx, ny);
        long ocean = g.ocean;
        pop_grid_free(&g);
        hpc_usage_check(ocean == 0, "pop-step: the %dx%d grid with %s has no ocean points", nx,
                        ny, LAND_NAMES[pl->lands[l]]);
    }
}

static void parse(plan *pl)
{
    params *pp = &pl->pp;
    pp->steps = (int)hpc_opt_int("steps");
    pl->base.check_every = (int)hpc_opt_int("check-every");
    pl->base.max_iters = (int)hpc_opt_int("max-iters");
    pl->base.branch = (int)hpc_opt_int("branch");
    pl->base.dt = hpc_opt_double("dt");
    pl->base.tol = hpc_opt_double("tol");
    pp->bound = hpc_opt_double("bound");
    pp->ref_max = hpc_opt_int("ref-max");
    pl->pg = hpc_opt_pgrids("pgrids", &pl->npg);
    pl->ngr = hpc_opt_grids("grids", &pl->gr);
    hpc_usage_check(pl->ngr == 0, "option --grids: give at least one NXxNYxNZ");
    pl->nland = hpc_opt_list("land", &pl->lands);
    pl->nmap = hpc_opt_list("mappings", &pl->maps);
    pl->nclinic = hpc_opt_list("clinic-halos", &pl->clinics);
    pl->nhalo = pop_pgas_choices("halos", POP_HALO_SHMEM, POP_HALO_CAF, &pl->halos);
    pl->nsum = pop_pgas_choices("sums", POP_SUM_SHMEM, POP_SUM_CAF, &pl->sums);
    pl->shmem = pop_uses(pl->halos, pl->nhalo, POP_HALO_SHMEM)
                || pop_uses(pl->sums, pl->nsum, POP_SUM_SHMEM);
    pl->caf = pop_uses(pl->halos, pl->nhalo, POP_HALO_CAF)
              || pop_uses(pl->sums, pl->nsum, POP_SUM_CAF);
    for (int k = 0; k < pl->ngr; k++)
        check_grid(pl, k);
}

/* Every configuration on grid k with land l; one reference for them all. */
static void sweep_grid(const plan *pl, int k, int l)
{
    config c = pl->base;
    c.nx = pl->gr[k].x;
    c.ny = pl->gr[k].y;
    c.nz = pl->gr[k].z;
    c.land = (int)pl->lands[l];
    pop_grid g;
    if (pop_grid_init(&g, c.nx, c.ny, c.land, pl->base.dt))
        hpc_fail("pop-step: no memory for the %dx%d grid", c.nx, c.ny);
    double *ref = reference(&g, &c, &pl->pp);
    for (int m = 0; m < pl->npg; m++)
        for (int mp = 0; mp < pl->nmap; mp++)
            for (int ch = 0; ch < pl->nclinic; ch++)
                for (int hv = 0; hv < pl->nhalo; hv++)
                    for (int sv = 0; sv < pl->nsum; sv++) {
                        c.P = pl->pg[m].x;
                        c.Q = pl->pg[m].y;
                        c.colmajor = (int)pl->maps[mp];
                        c.clinic = (int)pl->clinics[ch];
                        c.halo = (int)pl->halos[hv];
                        c.sum = (int)pl->sums[sv];
                        run_config(&g, &c, &pl->pp, ref);
                    }
    free(ref);
    pop_grid_free(&g);
}

int main(int argc, char **argv)
{
    pop_pgas_prepare(argc, argv);
    hpc_init(&argc, &argv, "pop-step",
             "POP-like whole time step: baroclinic 3-D tracers, momentum, vertical mixing and "
             "barotropic PCG; simulated years per day and the phase split.",
             options, MPI_THREAD_SINGLE);
    plan pl;
    parse(&pl);
    void (*finish)(void) = pop_pgas_start(pl.shmem, pl.caf, "pop-step");
    hpc_begin(1, NULL);
    hpc_inject_first_point();
    for (int k = 0; k < pl.ngr; k++)
        for (int l = 0; l < pl.nland; l++)
            sweep_grid(&pl, k, l);
    free(pl.pg);
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish_by(finish);
    return 0;
}
