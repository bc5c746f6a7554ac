/* barotropic.c - a POP-like barotropic solver proxy: preconditioned conjugate
 * gradient on the 9-point free-surface operator of an ocean grid with land,
 * block-decomposed on a P x Q process grid; the latency-bound part of an
 * ocean model (one halo update and two global sums per iteration).
 *
 * The operator (lib/pop_grid.h: POP's A0, AN, AE, ANE from the quarter
 * weights of each U-point, plus area / (g dt^2) on the diagonal), the halo
 * and global-sum variants (lib/pop_comm.h: derived datatypes, packing, MPI_Put
 * with PSCW; MPI_Allreduce, a k-ary Send/Recv tree, one-sided writes to a
 * master) and the PCG (lib/pop_solver.h) are in lib/pop_*.
 *
 * A configuration: global grid nx x ny, land (none or continents), process
 * grid P x Q (every aspect ratio, --pgrids all), row- or column-major rank
 * mapping, halo variant, global-sum variant (and the tree's branching
 * factor); strong scaling (--grids) or weak scaling (--weak-block: the
 * global grid grows with P x Q).
 *
 * A sample: one complete solve from a zero first guess after a barrier; the
 * slowest rank's time. The right-hand side is b = A x_true for a smooth known
 * x_true. Checks, outside the timing, after the first solve of every
 * configuration (gathered on rank 0): the solution against x_true, against
 * the first configuration of the same grid and, when the grid has at most
 * --direct-max ocean points, against a banded Cholesky solve (LAPACK dpbsv)
 * of the gathered system (the gathered right-hand side must be rank 0's); the
 * true relative residual. The operator's symmetry
 * is checked once per grid. Later samples must take the same iterations.
 *
 * Metrics per configuration: time per iteration (us), and simulated days per
 * day = dt / solve time (one solve is one barotropic step of dt seconds).
 * Per-rank phase times (compute, halo, copy, global_sum), wall time and flops
 * per iteration go into the iteration_time record.
 */
#include "harness.h"
#include "lib/pop_check.h"
#include "lib/pop_comm.h"
#include "lib/pop_grid.h"
#include "lib/pop_variants.h"
#include "lib/pop_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "grids", .type = HPC_GRIDS, .def = "96x64", .what = "NXxNY",
     .help = "global grids NXxNY (strong scaling; POP gx1 is 320x384)"},
    {.name = "weak-block", .type = HPC_GRIDS, .def = "", .what = "BXxBY",
     .help = "BXxBY: weak scaling, the global grid is (BX P) x (BY Q) per process grid "
             "(replaces --grids; empty: strong scaling)"},
    {.name = "land", .type = HPC_CHOICES, .def = "continents", .choices = "none|continents",
     .help = "land masks"},
    {.name = "pgrids", .type = HPC_GRIDS, .def = "all", .what = "PxQ", .all = 1,
     .help = "process grids PxQ (P blocks in x, Q in y); all: every P x Q = ranks"},
    {.name = "mappings", .type = HPC_CHOICES, .def = "row,col", .choices = "row|col",
     .what = "row or col", .help = "rank mappings: row (rank = q P + p), col (rank = p Q + q)"},
    {.name = "halos", .type = HPC_CHOICES, .def = "datatype,pack,put",
     .choices = "datatype|pack|put|shmem|caf", .all = 1,
     .help = "halo updates: datatype, pack, put (MPI_Put, post-start-complete-wait), shmem "
             "(OpenSHMEM puts, pairwise flags), caf (Co-Array Fortran puts, sync images); "
             "shmem and caf only where the build has them, 'all' skips them elsewhere"},
    {.name = "sums", .type = HPC_CHOICES, .def = "allreduce,tree,onesided",
     .choices = "allreduce|tree|onesided|shmem|caf", .all = 1,
     .help = "global sums: allreduce, tree (Send/Recv, --branches), onesided (puts to rank 0), "
             "shmem (OpenSHMEM puts to rank 0, flags), caf (image 1 reads the partial sums; "
             "Co-Array Fortran); shmem and caf only where the build has them"},
    {.name = "branches", .type = HPC_SIZES, .def = "2,4", .min = 2, .max = 4096,
     .help = "branching factors of the tree sum"},
    {.name = "tol", .type = HPC_DOUBLE, .def = "1e-10", .min = 1e-15, .max = 1e-2,
     .help = "convergence: ||r|| <= tol ||b||"},
    {.name = "check-every", .type = HPC_INT, .def = "10", .min = 1, .max = 100000,
     .help = "iterations between convergence checks (each one more global sum)"},
    {.name = "max-iters", .type = HPC_INT, .def = "20000", .min = 1, .max = 100000000,
     .help = "iterations at most (not converged: error)"},
    {.name = "dt", .type = HPC_DOUBLE, .def = "1920", .min = 1, .max = 86400,
     .help = "model time step of one solve in s (free-surface term and days/day; 1920 s = 45 "
             "steps/day, POP at 1 degree)"},
    {.name = "direct-max", .type = HPC_INT, .def = "20000", .min = 0, .max = 10000000,
     .help = "check against a direct banded Cholesky solve up to this many ocean points"},
    {.name = "bound", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 1,
     .help = "largest relative difference (max norm) allowed from x_true, the direct solve and "
             "the first configuration (0: 1e4 tol, the error a condition number of 1e4 allows)"},
    {0}};

static const hpc_phase_def PHASES[] = {{"compute", HPC_KIND_COMPUTE},
                                       {"halo", HPC_KIND_COMM},
                                       {"copy", HPC_KIND_COPY},
                                       {"global_sum", HPC_KIND_COMM}};

static const char *const LAND_NAMES[] = {"none", "continents"};

/* The solver's settings, the same for every configuration. */
typedef struct {
    double tol, dt, bound;
    int check_every, max_iters;
} solve_params;

typedef struct {
    int nx, ny, land;
    int P, Q, colmajor, halo, sum, branch, weak;
} config;

static void describe(const config *c, char *buf, size_t len)
{
    char br[16] = "";
    if (c->sum == POP_SUM_TREE)
        snprintf(br, sizeof br, "(%d)", c->branch);
    snprintf(buf, len, "%dx%d %s, %dx%d %s, halo %s, sum %s%s", c->nx, c->ny,
             LAND_NAMES[c->land], c->P, c->Q, c->colmajor ? "col" : "row",
             POP_HALO_NAMES[c->halo], POP_SUM_NAMES[c->sum], br);
}

/* One configuration's solver on this rank's block. */
typedef struct {
    pop_decomp d;
    pop_block blk;
    hpc_phases ph;
    pop_halo h;
    pop_gsum gs;
    pop_pcg s;
    long ocean_mine;  /* ocean points of this rank's block */
} solver;

static void solver_init(solver *sv, const pop_ref *rf, const config *c, const solve_params *sp)
{
    pop_decomp *d = &sv->d;
    pop_decomp_init(d, c->nx, c->ny, c->P, c->Q, c->colmajor, hpc_rank, hpc_nranks);
    hpc_phases_init(&sv->ph, PHASES, 4);
    if (pop_block_init(&sv->blk, &rf->g, d->i0, d->j0, d->bx, d->by)
        || pop_halo_init(&sv->h, d, c->halo, &sv->ph) || pop_gsum_init(&sv->gs, c->sum, c->branch)
        || pop_pcg_init(&sv->s, &sv->blk, &sv->h, &sv->gs, &sv->ph, sp->check_every,
                        sp->max_iters))
        hpc_fail("barotropic: no memory for a %dx%d block", d->bx, d->by);
    /* b = A x_true from the exact x_true (halo included): the same bits as rank 0's global b. */
    double *xt = pop_field(&sv->blk), *rhs = sv->s.rhs;
    if (!xt)
        hpc_fail("barotropic: no memory for a %dx%d block", d->bx, d->by);
    pop_fill_xtrue(&sv->blk, &rf->g, xt);
    pop_apply_dot(&sv->blk, xt, rhs);
    free(xt);
    double bb = 0;
    for (int j = 1; j <= d->by; j++)
        for (int i = 1; i <= d->bx; i++)
            bb += rhs[(size_t)j * sv->blk.ld + i] * rhs[(size_t)j * sv->blk.ld + i];
    MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&bb, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);  /* identical threshold everywhere */
    sv->s.tol2_bb = sp->tol * sp->tol * bb;
    sv->ocean_mine = pop_ocean_in(&rf->g, d->i0, d->j0, d->bx, d->by);
}

static void solver_free(solver *sv)
{
    pop_pcg_free(&sv->s);
    pop_gsum_free(&sv->gs);
    pop_halo_free(&sv->h);
    pop_block_free(&sv->blk);
}

/* What the samples of one configuration gave. */
typedef struct {
    hpc_sampler sm;
    double *iter_us, *sdpd;  /* per kept sample: us per iteration, simulated days per day */
    double wall;             /* this rank's solve time over the kept samples */
    long kept_iters;         /* iterations over the kept samples */
    int iters;               /* of every solve */
    pop_check_result cr;     /* of the first solve */
} samples;

/* Solve until the sampler stops; the first solve is checked, the others must take as many
 * iterations. */
static void sample_solves(solver *sv, pop_ref *rf, const solve_params *sp, const char *what,
                          samples *ms)
{
    hpc_sampler_init(&ms->sm, &hpc_reps);
    ms->iter_us = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    ms->sdpd = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    if (!ms->iter_us || !ms->sdpd)
        abort();
    ms->wall = 0;
    ms->kept_iters = 0;
    ms->iters = -1;
    hpc_phases_reset(&sv->ph);
    while (hpc_sampler_more_coll(&ms->sm, MPI_COMM_WORLD)) {
        memset(sv->s.x, 0, sv->blk.n * sizeof(double));  /* zero first guess */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        hpc_phases_start(&sv->ph, POP_PH_COMPUTE);
        int it = pop_pcg_solve(&sv->s);
        hpc_phases_stop(&sv->ph);
        double t = hpc_now() - t0, tmax;
        if (it < 0 && hpc_rank == 0)
            hpc_fail("barotropic: %s: not converged to tol %g in %d iterations", what, sp->tol,
                     sp->max_iters);
        if (ms->iters < 0) {
            ms->iters = it;
            ms->cr = pop_check_solution(rf, what, &sv->d, sv->s.x, sv->s.rhs, sv->blk.ld,
                                        sp->bound, sp->tol);
        } else if (it != ms->iters && hpc_rank == 0) {
            hpc_fail("barotropic: %s: a repeated solve took %d iterations, the first %d", what,
                     it, ms->iters);
        }
        if (hpc_phases_sample(&sv->ph, &ms->sm, t, &ms->wall, &tmax)) {
            ms->iter_us[ms->sm.n - 1] = tmax / it * 1e6;
            ms->sdpd[ms->sm.n - 1] = sp->dt / tmax;
            ms->kept_iters += it;
        }
    }
}

/* The iteration_time record's extra keys: per-rank phases, wall time, flops and ocean
 * points (collective), and the checks. */
static void iteration_extra(hpc_json *r, solver *sv, const pop_ref *rf, const config *c,
                            const solve_params *sp, const samples *ms)
{
    int iters = ms->iters, check_every = sp->check_every;
    /* Per iteration, over every kept sample (collective). */
    hpc_phases_json(r, &sv->ph, 1e6 / (double)ms->kept_iters, MPI_COMM_WORLD);
    hpc_json_per_rank(r, "wall_per_rank", ms->wall / (double)ms->kept_iters * 1e6,
                      MPI_COMM_WORLD);
    hpc_json_per_rank(r, "flops_per_rank",
                      pop_pcg_flops((double)sv->d.bx * sv->d.by, iters, check_every) / iters,
                      MPI_COMM_WORLD);
    hpc_json_exact(r, "serial_flops",
                   pop_pcg_flops((double)c->nx * c->ny, iters, check_every) / iters);
    /* Counts, exact (hpc_json_per_rank writes 6 significant digits). */
    long long *oc = hpc_rank == 0 ? malloc((size_t)hpc_nranks * sizeof *oc) : NULL;
    long long mine = sv->ocean_mine;
    MPI_Gather(&mine, 1, MPI_LONG_LONG, oc, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    hpc_json_array(r, "ocean_points_per_rank");
    for (int q = 0; oc && q < hpc_nranks; q++)
        hpc_json_int(r, NULL, oc[q]);
    hpc_json_close(r);
    free(oc);
    hpc_json_int(r, "ocean_points", rf->g.ocean);
    if (!isnan(ms->cr.vs_direct))  /* absent when the grid is too big for the direct solve */
        hpc_json_num(r, "max_rel_diff_vs_direct", ms->cr.vs_direct);
    hpc_json_num(r, "max_rel_diff_vs_first_variant", ms->cr.vs_first);
    hpc_json_num(r, "max_rel_diff_vs_exact", ms->cr.vs_true);
    hpc_json_num(r, "relative_residual", ms->cr.residual);
    hpc_json_exact(r, "tol", sp->tol);
    hpc_json_exact(r, "bound", sp->bound);
    hpc_json_int(r, "check_every", check_every);
}

/* The two records of a configuration: iteration_time and sim_days_per_day. */
static void emit(solver *sv, const pop_ref *rf, const config *c, const solve_params *sp,
                 const samples *ms)
{
    for (int k = 0; k < 2; k++) {
        hpc_stats st;
        hpc_stats_compute(k ? ms->sdpd : ms->iter_us, ms->sm.n, &st);
        hpc_json r;
        hpc_result_begin(&r, k ? "sim_days_per_day" : "iteration_time", k ? "days/day" : "us",
                         "median", k ? "higher" : "lower");
        hpc_json_int(&r, "nx", c->nx);
        hpc_json_int(&r, "ny", c->ny);
        hpc_json_int(&r, "P", c->P);
        hpc_json_int(&r, "Q", c->Q);
        hpc_json_str(&r, "mapping", c->colmajor ? "col" : "row");
        hpc_json_str(&r, "halo", POP_HALO_NAMES[c->halo]);
        hpc_json_str(&r, "sum", POP_SUM_NAMES[c->sum]);
        hpc_json_int(&r, "branch", c->sum == POP_SUM_TREE ? c->branch : 0);
        hpc_json_str(&r, "land", LAND_NAMES[c->land]);
        hpc_json_str(&r, "scaling", c->weak ? "weak" : "strong");
        hpc_result_stats(&r, &st, ms->sm.converged);
        hpc_json_int(&r, "iterations", ms->iters);
        hpc_json_exact(&r, "dt_s", sp->dt);
        if (k == 0)
            iteration_extra(&r, sv, rf, c, sp, ms);
        hpc_json_emit(&r);
    }
}

static void run_config(pop_ref *rf, const config *c, const solve_params *sp)
{
    char what[160];
    describe(c, what, sizeof what);
    solver sv;
    solver_init(&sv, rf, c, sp);
    samples ms;
    sample_solves(&sv, rf, sp, what, &ms);
    emit(&sv, rf, c, sp, &ms);
    free(ms.iter_us);
    free(ms.sdpd);
    hpc_sampler_free(&ms.sm);
    solver_free(&sv);
}

/* Everything the options select: the configurations are its cross product. */
typedef struct {
    hpc_grid *pg, *gr;  /* process grids; global grids (weak: gr[k] goes with pg[k]) */
    int npg, ngr, weak;
    const long long *lands, *maps, *halos, *sums, *branches;
    int shmem, caf;            /* a shmem (caf) variant is measured: OpenSHMEM (CAF) starts */
    int nland, nmaps, nhalo, nsum, nbranch;
    solve_params sp;
    int direct_max;
} plan;

/* Global grids: --grids (strong scaling) or --weak-block times each process grid. */
static void global_grids(plan *pl)
{
    const hpc_grid *given, *wb;
    int nwb = hpc_opt_grids("weak-block", &wb);
    hpc_usage_check(nwb > 1, "option --weak-block: '%s' is not BXxBY", hpc_opt_str("weak-block"));
    pl->weak = nwb == 1;
    pl->ngr = pl->weak ? pl->npg : hpc_opt_grids("grids", &given);
    pl->gr = malloc(sizeof *pl->gr * (size_t)(pl->ngr > 0 ? pl->ngr : 1));
    if (!pl->gr)
        abort();
    for (int k = 0; k < pl->ngr; k++) {
        pl->gr[k] = pl->weak ? (hpc_grid){wb->x * pl->pg[k].x, wb->y * pl->pg[k].y, 0} : given[k];
        int nx = pl->gr[k].x, ny = pl->gr[k].y;
        hpc_usage_check(pl->weak && (nx < 3 || ny < 2), "option --weak-block: %s on the %dx%d "
                        "process grid makes a %dx%d grid, too small (nx >= 3, ny >= 2)",
                        hpc_opt_str("weak-block"), pl->pg[k].x, pl->pg[k].y, nx, ny);
        hpc_usage_check(nx < 3 || ny < 2, "barotropic: a %dx%d grid is too small (nx >= 3, "
                        "ny >= 2)", nx, ny);
        hpc_usage_check((double)nx * ny > 2e8, "barotropic: a %dx%d grid is too big", nx, ny);
        for (int m = 0; m < pl->npg; m++)
            hpc_usage_check((!pl->weak || m == k) && (pl->pg[m].x > nx || pl->pg[m].y > ny),
                            "barotropic: a %dx%d process grid leaves blocks smaller than one "
                            "point on the %dx%d grid", pl->pg[m].x, pl->pg[m].y, nx, ny);
    }
}

static void parse(plan *pl)
{
    solve_params *sp = &pl->sp;
    sp->tol = hpc_opt_double("tol");
    sp->dt = hpc_opt_double("dt");
    sp->bound = hpc_opt_double("bound");
    sp->check_every = (int)hpc_opt_int("check-every");
    sp->max_iters = (int)hpc_opt_int("max-iters");
    pl->direct_max = (int)hpc_opt_int("direct-max");
    if (sp->bound == 0) {
        /* The error of a solution whose residual is tol ||b|| is at most
         * cond(A) tol; the runs here show 1e-11 .. 1e-10 at tol 1e-10. */
        sp->bound = fmin(1e4 * sp->tol, 1.0);
    }
    pl->pg = hpc_opt_pgrids("pgrids", &pl->npg);
    global_grids(pl);
    pl->nland = hpc_opt_list("land", &pl->lands);
    pl->nmaps = hpc_opt_list("mappings", &pl->maps);
    pl->nhalo = pop_pgas_choices("halos", POP_HALO_SHMEM, POP_HALO_CAF, &pl->halos);
    pl->nsum = pop_pgas_choices("sums", POP_SUM_SHMEM, POP_SUM_CAF, &pl->sums);
    pl->shmem = pop_uses(pl->halos, pl->nhalo, POP_HALO_SHMEM)
                || pop_uses(pl->sums, pl->nsum, POP_SUM_SHMEM);
    pl->caf = pop_uses(pl->halos, pl->nhalo, POP_HALO_CAF)
              || pop_uses(pl->sums, pl->nsum, POP_SUM_CAF);
    pl->nbranch = hpc_opt_list("branches", &pl->branches);
    for (int k = 0; k < pl->nbranch; k++)
        for (int m = 0; m < k; m++)  /* the same point would be measured twice */
            hpc_usage_check(pl->branches[k] == pl->branches[m],
                            "option --branches: an element is given twice");
    /* A grid with no ocean has nothing to solve. */
    for (int k = 0; k < pl->ngr; k++)
        for (int l = 0; l < pl->nland; l++) {
            pop_grid g;
            int nx = pl->gr[k].x, ny = pl->gr[k].y, land = (int)pl->lands[l];
            hpc_usage_check(pop_grid_init(&g, nx, ny, land, sp->dt) != 0,
                            "barotropic: no memory for the %dx%d grid", nx, ny);
            long ocean = g.ocean;
            pop_grid_free(&g);
            hpc_usage_check(ocean == 0, "barotropic: the %dx%d grid with %s has no ocean points",
                            nx, ny, LAND_NAMES[land]);
        }
}

/* Every configuration on global grid k with land l. */
static void sweep_grid(const plan *pl, int k, int l)
{
    pop_ref rf;
    pop_ref_init(&rf, pl->gr[k].x, pl->gr[k].y, (int)pl->lands[l], pl->sp.dt, pl->direct_max);
    for (int m = 0; m < pl->npg; m++) {
        if (pl->weak && m != k)
            continue;
        for (int mp = 0; mp < pl->nmaps; mp++)
            for (int hv = 0; hv < pl->nhalo; hv++)
                for (int sv = 0; sv < pl->nsum; sv++) {
                    int tree = pl->sums[sv] == POP_SUM_TREE;
                    for (int b = 0; b < (tree ? pl->nbranch : 1); b++) {
                        config c = {pl->gr[k].x, pl->gr[k].y, (int)pl->lands[l], pl->pg[m].x,
                                    pl->pg[m].y, (int)pl->maps[mp], (int)pl->halos[hv],
                                    (int)pl->sums[sv], tree ? (int)pl->branches[b] : 0,
                                    pl->weak};
                        run_config(&rf, &c, &pl->sp);
                    }
                }
    }
    pop_ref_free(&rf);
}

int main(int argc, char **argv)
{
    pop_pgas_prepare(argc, argv);
    hpc_init(&argc, &argv, "barotropic",
             "POP-like barotropic solver: PCG on a 9-point operator, halo and global-sum variants.",
             options, MPI_THREAD_SINGLE);
    plan pl;
    parse(&pl);
    void (*finish)(void) = pop_pgas_start(pl.shmem, pl.caf, "barotropic");

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    for (int k = 0; k < pl.ngr; k++)
        for (int l = 0; l < pl.nland; l++)
            sweep_grid(&pl, k, l);
    free(pl.pg);
    free(pl.gr);
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish_by(finish);
    return 0;
}
