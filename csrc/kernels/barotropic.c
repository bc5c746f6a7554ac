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
#include "lib/pop_comm.h"
#include "lib/pop_grid.h"
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
     .choices = "datatype|pack|put",
     .help = "halo updates: datatype, pack, put (MPI_Put, post-start-complete-wait)"},
    {.name = "sums", .type = HPC_CHOICES, .def = "allreduce,tree,onesided",
     .choices = "allreduce|tree|onesided",
     .help = "global sums: allreduce, tree (Send/Recv, --branches), onesided (puts to rank 0)"},
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

static const char *const HALO_NAMES[] = {"datatype", "pack", "put"};
static const char *const SUM_NAMES[] = {"allreduce", "tree", "onesided"};
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
             LAND_NAMES[c->land], c->P, c->Q, c->colmajor ? "col" : "row", HALO_NAMES[c->halo],
             SUM_NAMES[c->sum], br);
}

/* What rank 0 keeps per (grid, land) for the checks. */
typedef struct {
    pop_grid g;
    double *b, *xtrue, *direct, *first;  /* rank 0: global nx*ny arrays; direct/first may be NULL */
    pop_block gb;                         /* rank 0: the whole grid as one block */
    double *work, *work2;                 /* rank 0: fields of gb */
} reference;

static double max_abs(const double *x, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < n; k++)
        m = fmax(m, fabs(x[k]));
    return m;
}

static double max_rel_diff(const double *x, const double *ref, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < n; k++)
        m = fmax(m, fabs(x[k] - ref[k]));
    double s = max_abs(ref, n);
    return s > 0 ? m / s : m;
}

static void reference_init(reference *rf, int nx, int ny, int land, double dt, int direct_max)
{
    memset(rf, 0, sizeof *rf);
    if (pop_grid_init(&rf->g, nx, ny, land, dt))
        hpc_fail("barotropic: no memory for the %dx%d grid", nx, ny);
    if (hpc_rank != 0)
        return;
    size_t n = (size_t)nx * ny;
    char err[256];
    /* O(n) but some 100 flops a point: the grids of the tests and benchmarks, not the huge ones. */
    if (n <= ((size_t)1 << 22) && pop_check_symmetry(&rf->g, err, sizeof err))
        hpc_fail("barotropic: the %dx%d operator is wrong: %s", nx, ny, err);
    if (pop_block_init(&rf->gb, &rf->g, 0, 0, nx, ny))
        hpc_fail("barotropic: no memory for the global reference of %dx%d", nx, ny);
    rf->work = pop_field(&rf->gb);
    rf->work2 = pop_field(&rf->gb);
    rf->b = malloc(n * sizeof(double));
    rf->xtrue = malloc(n * sizeof(double));
    if (!rf->work || !rf->work2 || !rf->b || !rf->xtrue)
        hpc_fail("barotropic: no memory for the global reference of %dx%d", nx, ny);
    /* b = A x_true with the same operator code as the ranks (their b is the same bits). */
    pop_fill_xtrue(&rf->gb, &rf->g, rf->work);
    pop_apply_dot(&rf->gb, rf->work, rf->work2);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            size_t c = (size_t)(j + 1) * rf->gb.ld + i + 1;
            rf->b[(size_t)j * nx + i] = rf->work2[c];
            rf->xtrue[(size_t)j * nx + i] = rf->work[c];
        }
    if (rf->g.ocean <= direct_max) {
        rf->direct = malloc(n * sizeof(double));
        if (!rf->direct)
            hpc_fail("barotropic: no memory for the direct solve");
        /* The band matrix comes from pop_coef_at, not from the ranks' arrays:
         * an inconsistent operator shows up as a difference. */
        int rc = pop_direct_solve(&rf->g, rf->b, rf->direct, 2e10, err, sizeof err);
        if (rc < 0)
            hpc_fail("barotropic: %dx%d: %s", nx, ny, err);
        if (rc > 0) {
            hpc_warn("%dx%d: %s; not checked against a direct solve", nx, ny, err);
            free(rf->direct);
            rf->direct = NULL;
        }
    }
}

static void reference_free(reference *rf)
{
    if (hpc_rank == 0) {
        pop_block_free(&rf->gb);
        free(rf->work);
        free(rf->work2);
        free(rf->b);
        free(rf->xtrue);
        free(rf->direct);
        free(rf->first);
    }
    pop_grid_free(&rf->g);
}

/* Relative 2-norm residual ||b - A x|| / ||b|| of a global solution, on rank 0. */
static double true_residual(reference *rf, const double *x)
{
    int nx = rf->g.nx, ny = rf->g.ny, ld = rf->gb.ld;
    memset(rf->work, 0, rf->gb.n * sizeof(double));
    for (int j = 0; j < ny; j++)
        memcpy(rf->work + (size_t)(j + 1) * ld + 1, x + (size_t)j * nx, (size_t)nx * sizeof(double));
    pop_wrap_x(&rf->gb, rf->work);
    pop_apply_dot(&rf->gb, rf->work, rf->work2);
    double rr = 0, bb = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double b = rf->b[(size_t)j * nx + i], r = b - rf->work2[(size_t)(j + 1) * ld + i + 1];
            rr += r * r;
            bb += b * b;
        }
    return bb > 0 ? sqrt(rr / bb) : sqrt(rr);
}

/* Gather every rank's interior of x (row length ld) into the global array out on rank 0. */
static void gather_global(const pop_decomp *d, const double *x, int ld, double *out)
{
    int n = d->bx * d->by;
    double *mine = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    for (int j = 0; j < d->by; j++)
        memcpy(mine + (size_t)j * d->bx, x + (size_t)(j + 1) * ld + 1, (size_t)d->bx * sizeof(double));
    int *cnt = NULL, *dsp = NULL;
    double *all = NULL;
    if (d->rank == 0) {
        cnt = malloc((size_t)d->nranks * sizeof(int));
        dsp = malloc((size_t)d->nranks * sizeof(int));
        int off = 0;
        for (int r = 0; r < d->nranks; r++) {
            pop_decomp o;
            pop_decomp_init(&o, d->nx, d->ny, d->P, d->Q, d->colmajor, r, d->nranks);
            cnt[r] = o.bx * o.by;
            dsp[r] = off;
            off += cnt[r];
        }
        all = malloc((size_t)off * sizeof(double));
    }
    MPI_Gatherv(mine, n, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (d->rank == 0) {
        for (int r = 0; r < d->nranks; r++) {
            pop_decomp o;
            pop_decomp_init(&o, d->nx, d->ny, d->P, d->Q, d->colmajor, r, d->nranks);
            for (int j = 0; j < o.by; j++)
                memcpy(out + (size_t)(o.j0 + j) * d->nx + o.i0, all + dsp[r] + (size_t)j * o.bx,
                       (size_t)o.bx * sizeof(double));
        }
    }
    free(mine);
    free(cnt);
    free(dsp);
    free(all);
}

typedef struct {
    double vs_true, vs_direct, vs_first, residual;
} check_result;

/* Checks of the first solve of a configuration (collective: the gather). */
static check_result check_solution(reference *rf, const config *c, const pop_decomp *d,
                                   const double *x, const double *rhs, int ld, double bound,
                                   double tol)
{
    check_result cr = {0, NAN, 0, 0};
    size_t n = (size_t)c->nx * c->ny;
    double *xg = hpc_rank == 0 ? malloc(n * sizeof(double)) : NULL;
    double *bg = hpc_rank == 0 ? malloc(n * sizeof(double)) : NULL;
    if (hpc_rank == 0 && (!xg || !bg))
        hpc_fail("barotropic: no memory to gather the solution");
    gather_global(d, x, ld, xg);
    gather_global(d, rhs, ld, bg);
    if (hpc_rank != 0)
        return cr;
    char what[160];
    describe(c, what, sizeof what);
    /* The gathered right-hand side is the system rank 0 checks against (the same formula per
     * point, so the same bits up to the compiler's contractions). */
    hpc_check_finite(bg, n, "barotropic: %s: the ranks' right-hand side", what);
    double db = max_rel_diff(bg, rf->b, n);
    free(bg);
    hpc_check_bound(db, 1e-13, "barotropic: %s: the ranks' right-hand side differs from the "
                    "global one", what);
    if (hpc_inject == HPC_INJECT_CORRUPT)  /* damage one ocean point: the checks must fail */
        for (size_t k = 0; k < n; k++)
            if (rf->g.mask[k]) {
                xg[k] += 1.0;
                break;
            }
    /* max_rel_diff's fmax drops NaNs: a blown-up solution must fail here first. */
    hpc_check_finite(xg, n, "barotropic: %s: the gathered solution", what);
    cr.vs_true = max_rel_diff(xg, rf->xtrue, n);
    if (rf->direct)
        cr.vs_direct = max_rel_diff(xg, rf->direct, n);
    if (rf->first)
        cr.vs_first = max_rel_diff(xg, rf->first, n);
    cr.residual = true_residual(rf, xg);
    hpc_check_bound(cr.vs_true, bound, "barotropic: %s: the solution differs from x_true "
                    "(relative, max norm)", what);
    if (rf->direct)
        hpc_check_bound(cr.vs_direct, bound, "barotropic: %s: the solution differs from the "
                        "direct solve", what);
    hpc_check_bound(cr.vs_first, bound, "barotropic: %s: the solution differs from the first "
                    "configuration's", what);
    /* The recursive residual met tol; the true one may drift a little from it (100 tol). */
    hpc_check_bound(cr.residual, 100 * tol, "barotropic: %s: the true relative residual", what);
    if (!rf->first)
        rf->first = xg;  /* the first configuration of this grid: the others compare with it */
    else
        free(xg);
    return cr;
}

static void run_config(reference *rf, const config *c, const solve_params *sp)
{
    double tol = sp->tol, dt = sp->dt, bound = sp->bound;
    int check_every = sp->check_every, max_iters = sp->max_iters;
    pop_decomp d;
    pop_decomp_init(&d, c->nx, c->ny, c->P, c->Q, c->colmajor, hpc_rank, hpc_nranks);
    pop_block blk;
    hpc_phases ph;
    hpc_phases_init(&ph, PHASES, 4);
    pop_halo h;
    pop_gsum gs;
    pop_pcg s;
    if (pop_block_init(&blk, &rf->g, d.i0, d.j0, d.bx, d.by) || pop_halo_init(&h, &d, c->halo, &ph)
        || pop_gsum_init(&gs, c->sum, c->branch)
        || pop_pcg_init(&s, &blk, &h, &gs, &ph, check_every, max_iters))
        hpc_fail("barotropic: no memory for a %dx%d block", d.bx, d.by);
    /* b = A x_true from the exact x_true (halo included): the same bits as rank 0's global b. */
    double *xt = pop_field(&blk);
    if (!xt)
        hpc_fail("barotropic: no memory for a %dx%d block", d.bx, d.by);
    pop_fill_xtrue(&blk, &rf->g, xt);
    pop_apply_dot(&blk, xt, s.rhs);
    free(xt);
    double bb = 0;
    for (int j = 1; j <= d.by; j++)
        for (int i = 1; i <= d.bx; i++)
            bb += s.rhs[(size_t)j * blk.ld + i] * s.rhs[(size_t)j * blk.ld + i];
    MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&bb, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);  /* identical threshold everywhere */
    s.tol2_bb = tol * tol * bb;
    long ocean_mine = pop_ocean_in(&rf->g, d.i0, d.j0, d.bx, d.by);

    char what[160];
    describe(c, what, sizeof what);
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    double *iter_us = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    double *sdpd = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    double wall = 0;       /* this rank's solve time over the kept samples */
    long kept_iters = 0;   /* iterations over the kept samples */
    int iters = -1;
    check_result cr = {0, NAN, 0, 0};
    hpc_phases_reset(&ph);
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        memset(s.x, 0, blk.n * sizeof(double));  /* zero first guess */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        hpc_phases_start(&ph, POP_PH_COMPUTE);
        int it = pop_pcg_solve(&s);
        hpc_phases_stop(&ph);
        double t = hpc_now() - t0, tmax;
        if (it < 0 && hpc_rank == 0)
            hpc_fail("barotropic: %s: not converged to tol %g in %d iterations", what, tol,
                     max_iters);
        if (iters < 0) {
            iters = it;
            cr = check_solution(rf, c, &d, s.x, s.rhs, blk.ld, bound, tol);
        } else if (it != iters && hpc_rank == 0) {
            hpc_fail("barotropic: %s: a repeated solve took %d iterations, the first %d", what, it,
                     iters);
        }
        if (hpc_phases_sample(&ph, &sm, t, &wall, &tmax)) {
            iter_us[sm.n - 1] = tmax / it * 1e6;
            sdpd[sm.n - 1] = dt / tmax;
            kept_iters += it;
        }
    }

    double flops_mine = pop_pcg_flops((double)d.bx * d.by, iters, check_every) / iters;
    double flops_serial = pop_pcg_flops((double)c->nx * c->ny, iters, check_every) / iters;
    for (int k = 0; k < 2; k++) {
        hpc_stats st;
        hpc_stats_compute(k ? sdpd : iter_us, sm.n, &st);
        hpc_json r;
        hpc_result_begin(&r, k ? "sim_days_per_day" : "iteration_time", k ? "days/day" : "us",
                         "median", k ? "higher" : "lower");
        hpc_json_int(&r, "nx", c->nx);
        hpc_json_int(&r, "ny", c->ny);
        hpc_json_int(&r, "P", c->P);
        hpc_json_int(&r, "Q", c->Q);
        hpc_json_str(&r, "mapping", c->colmajor ? "col" : "row");
        hpc_json_str(&r, "halo", HALO_NAMES[c->halo]);
        hpc_json_str(&r, "sum", SUM_NAMES[c->sum]);
        hpc_json_int(&r, "branch", c->sum == POP_SUM_TREE ? c->branch : 0);
        hpc_json_str(&r, "land", LAND_NAMES[c->land]);
        hpc_json_str(&r, "scaling", c->weak ? "weak" : "strong");
        hpc_result_stats(&r, &st, sm.converged);
        hpc_json_int(&r, "iterations", iters);
        hpc_json_exact(&r, "dt_s", dt);
        if (k == 0) {
            /* Per iteration, over every kept sample (collective). */
            hpc_phases_json(&r, &ph, 1e6 / (double)kept_iters, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "wall_per_rank", wall / (double)kept_iters * 1e6, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "flops_per_rank", flops_mine, MPI_COMM_WORLD);
            hpc_json_exact(&r, "serial_flops", flops_serial);
            /* Counts, exact (hpc_json_per_rank writes 6 significant digits). */
            long long *oc = hpc_rank == 0 ? malloc((size_t)hpc_nranks * sizeof *oc) : NULL;
            long long mine = ocean_mine;
            MPI_Gather(&mine, 1, MPI_LONG_LONG, oc, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
            hpc_json_array(&r, "ocean_points_per_rank");
            for (int q = 0; oc && q < hpc_nranks; q++)
                hpc_json_int(&r, NULL, oc[q]);
            hpc_json_close(&r);
            free(oc);
            hpc_json_int(&r, "ocean_points", rf->g.ocean);
            if (!isnan(cr.vs_direct))  /* absent when the grid is too big for the direct solve */
                hpc_json_num(&r, "max_rel_diff_vs_direct", cr.vs_direct);
            hpc_json_num(&r, "max_rel_diff_vs_first_variant", cr.vs_first);
            hpc_json_num(&r, "max_rel_diff_vs_exact", cr.vs_true);
            hpc_json_num(&r, "relative_residual", cr.residual);
            hpc_json_exact(&r, "tol", tol);
            hpc_json_exact(&r, "bound", bound);
            hpc_json_int(&r, "check_every", check_every);
        }
        hpc_json_emit(&r);
    }
    free(iter_us);
    free(sdpd);
    hpc_sampler_free(&sm);
    pop_pcg_free(&s);
    pop_gsum_free(&gs);
    pop_halo_free(&h);
    pop_block_free(&blk);
}

/* Everything the options select: the configurations are its cross product. */
typedef struct {
    hpc_grid *pg, *gr;  /* process grids; global grids (weak: gr[k] goes with pg[k]) */
    int npg, ngr, weak;
    const long long *lands, *maps, *halos, *sums, *branches;
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
        pl->gr[k] = pl->weak ? (hpc_grid){wb->x * pl->pg[k].x, wb->y * pl->pg[k].y} : given[k];
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
    pl->nhalo = hpc_opt_list("halos", &pl->halos);
    pl->nsum = hpc_opt_list("sums", &pl->sums);
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
    reference rf;
    reference_init(&rf, pl->gr[k].x, pl->gr[k].y, (int)pl->lands[l], pl->sp.dt, pl->direct_max);
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
    reference_free(&rf);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "barotropic",
             "POP-like barotropic solver: PCG on a 9-point operator, halo and global-sum variants.",
             options, MPI_THREAD_SINGLE);
    plan pl;
    parse(&pl);

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    for (int k = 0; k < pl.ngr; k++)
        for (int l = 0; l < pl.nland; l++)
            sweep_grid(&pl, k, l);
    free(pl.pg);
    free(pl.gr);
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
