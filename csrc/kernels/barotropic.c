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
    {.name = "grids", .type = HPC_STRING, .def = "96x64",
     .help = "global grids NXxNY, comma-separated (strong scaling; POP gx1 is 320x384)"},
    {.name = "weak-block", .type = HPC_STRING, .def = "",
     .help = "BXxBY: weak scaling, the global grid is (BX P) x (BY Q) per process grid "
             "(replaces --grids; empty: strong scaling)"},
    {.name = "land", .type = HPC_STRING, .def = "continents",
     .help = "land mask: none, continents (comma list)"},
    {.name = "pgrids", .type = HPC_STRING, .def = "all",
     .help = "process grids PxQ (P blocks in x, Q in y), comma-separated; all: every P x Q = ranks"},
    {.name = "mappings", .type = HPC_STRING, .def = "row,col",
     .help = "rank mappings: row (rank = q P + p), col (rank = p Q + q)"},
    {.name = "halos", .type = HPC_STRING, .def = "datatype,pack,put",
     .help = "halo updates: datatype, pack, put (MPI_Put, post-start-complete-wait)"},
    {.name = "sums", .type = HPC_STRING, .def = "allreduce,tree,onesided",
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

#define MAXLIST 64

/* Split a comma list; -1 if an element is empty or too long, or too many. */
static int split(const char *text, char items[][32], int max)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= 32 || n >= max)
            return -1;
        memcpy(items[n], p, len);
        items[n++][len] = '\0';
        if (p[len] == '\0')
            return n;
        p += len + 1;
    }
}

/* "AxB" with positive integers. */
static int parse_pair(const char *s, int *a, int *b)
{
    char tail;
    return sscanf(s, "%dx%d%c", a, b, &tail) == 2 && *a > 0 && *b > 0;
}

/* Index of word in names, or -1. */
static int lookup(const char *w, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (strcmp(w, names[k]) == 0)
            return k;
    return -1;
}

/* Parse a list of names into indices (usage error on a bad one). */
static int name_list(const char *opt, const char *const *names, int nn, int *out)
{
    char items[MAXLIST][32];
    int n = split(hpc_opt_str(opt), items, MAXLIST);
    hpc_usage_check(n < 0, "option --%s: '%s' is not a comma list", opt, hpc_opt_str(opt));
    for (int k = 0; k < n; k++) {
        /* out has room for nn: every name once */
        int v = lookup(items[k], names, nn);
        char allowed[128] = "";
        for (int m = 0; m < nn; m++)
            snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                     m ? ", " : "", names[m]);
        hpc_usage_check(v < 0, "option --%s: '%s' is not one of %s", opt, items[k], allowed);
        for (int m = 0; m < k; m++)
            hpc_usage_check(out[m] == v, "option --%s: '%s' is given twice", opt, items[k]);
        out[k] = v;
    }
    return n;
}

/* A value given twice in a list would measure (and record) the same point twice. */
static void no_repeats(const char *opt, const int (*pairs)[2], const long long *vals, int n)
{
    for (int k = 0; k < n; k++)
        for (int m = 0; m < k; m++) {
            int same = pairs ? pairs[k][0] == pairs[m][0] && pairs[k][1] == pairs[m][1]
                             : vals[k] == vals[m];
            hpc_usage_check(same, "option --%s: an element is given twice", opt);
        }
}

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

static void run_config(reference *rf, const config *c, double tol, int check_every,
                       int max_iters, double dt, double bound)
{
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

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "barotropic",
             "POP-like barotropic solver: PCG on a 9-point operator, halo and global-sum variants.",
             options, MPI_THREAD_SINGLE);
    double tol = hpc_opt_double("tol"), dt = hpc_opt_double("dt"), bound = hpc_opt_double("bound");
    int check_every = (int)hpc_opt_int("check-every"), max_iters = (int)hpc_opt_int("max-iters");
    int direct_max = (int)hpc_opt_int("direct-max");
    if (bound == 0) {
        /* The error of a solution whose residual is tol ||b|| is at most
         * cond(A) tol; the runs here show 1e-11 .. 1e-10 at tol 1e-10. */
        bound = fmin(1e4 * tol, 1.0);
    }
    char items[MAXLIST][32];

    /* Process grids. */
    int pg[MAXLIST][2], npg = 0;
    if (strcmp(hpc_opt_str("pgrids"), "all") == 0) {
        for (int P = 1; P <= hpc_nranks && npg < MAXLIST; P++)
            if (hpc_nranks % P == 0) {
                pg[npg][0] = P;
                pg[npg++][1] = hpc_nranks / P;
            }
    } else {
        npg = split(hpc_opt_str("pgrids"), items, MAXLIST);
        hpc_usage_check(npg < 0, "option --pgrids: '%s' is not a comma list of PxQ",
                        hpc_opt_str("pgrids"));
        for (int k = 0; k < npg; k++) {
            hpc_usage_check(!parse_pair(items[k], &pg[k][0], &pg[k][1]),
                            "option --pgrids: '%s' is not PxQ", items[k]);
            hpc_usage_check(pg[k][0] * pg[k][1] != hpc_nranks,
                            "option --pgrids: %dx%d does not fit %d ranks", pg[k][0], pg[k][1],
                            hpc_nranks);
        }
    }
    /* Global grids: strong (--grids) or weak (--weak-block). */
    int weak = hpc_opt_str("weak-block")[0] != '\0', bxw = 0, byw = 0;
    int gr[MAXLIST][2], ngr = 0;
    if (weak) {
        hpc_usage_check(!parse_pair(hpc_opt_str("weak-block"), &bxw, &byw),
                        "option --weak-block: '%s' is not BXxBY", hpc_opt_str("weak-block"));
        for (int k = 0; k < npg; k++) {
            gr[k][0] = bxw * pg[k][0];
            gr[k][1] = byw * pg[k][1];
        }
        ngr = npg;
    } else {
        ngr = split(hpc_opt_str("grids"), items, MAXLIST);
        hpc_usage_check(ngr < 0, "option --grids: '%s' is not a comma list of NXxNY",
                        hpc_opt_str("grids"));
        for (int k = 0; k < ngr; k++)
            hpc_usage_check(!parse_pair(items[k], &gr[k][0], &gr[k][1]),
                            "option --grids: '%s' is not NXxNY", items[k]);
    }
    for (int k = 0; k < ngr; k++) {
        int nx = gr[k][0], ny = gr[k][1];
        if (weak)
            hpc_usage_check(nx < 3 || ny < 2, "option --weak-block: %s on the %dx%d process grid "
                            "makes a %dx%d grid, too small (nx >= 3, ny >= 2)",
                            hpc_opt_str("weak-block"), pg[k][0], pg[k][1], nx, ny);
        hpc_usage_check(nx < 3 || ny < 2, "barotropic: a %dx%d grid is too small (nx >= 3, ny >= 2)",
                        nx, ny);
        hpc_usage_check((double)nx * ny > 2e8, "barotropic: a %dx%d grid is too big", nx, ny);
        for (int m = 0; m < npg; m++) {
            if (weak && m != k)
                continue;
            hpc_usage_check(pg[m][0] > nx || pg[m][1] > ny,
                            "barotropic: a %dx%d process grid leaves blocks smaller than one "
                            "point on the %dx%d grid", pg[m][0], pg[m][1], nx, ny);
        }
    }
    int lands[2], halos[3], sums[3];
    int nland = name_list("land", LAND_NAMES, 2, lands);
    char maps[MAXLIST][32];
    int nmaps = split(hpc_opt_str("mappings"), maps, MAXLIST);
    hpc_usage_check(nmaps < 0, "option --mappings: '%s' is not a comma list",
                    hpc_opt_str("mappings"));
    for (int k = 0; k < nmaps; k++) {
        hpc_usage_check(strcmp(maps[k], "row") && strcmp(maps[k], "col"),
                        "option --mappings: '%s' is not row or col", maps[k]);
        for (int m = 0; m < k; m++)
            hpc_usage_check(strcmp(maps[k], maps[m]) == 0, "option --mappings: '%s' is given twice",
                            maps[k]);
    }
    int nhalo = name_list("halos", HALO_NAMES, 3, halos);
    int nsum = name_list("sums", SUM_NAMES, 3, sums);
    const long long *branches;
    int nbranch = hpc_opt_list("branches", &branches);
    no_repeats("branches", NULL, branches, nbranch);
    no_repeats("pgrids", (const int (*)[2])pg, NULL, npg);
    if (!weak)
        no_repeats("grids", (const int (*)[2])gr, NULL, ngr);
    /* A grid with no ocean has nothing to solve. */
    for (int k = 0; k < ngr; k++)
        for (int l = 0; l < nland; l++) {
            pop_grid g;
            hpc_usage_check(pop_grid_init(&g, gr[k][0], gr[k][1], lands[l], dt) != 0,
                            "barotropic: no memory for the %dx%d grid", gr[k][0], gr[k][1]);
            long ocean = g.ocean;
            pop_grid_free(&g);
            hpc_usage_check(ocean == 0, "barotropic: the %dx%d grid with %s has no ocean points",
                            gr[k][0], gr[k][1], LAND_NAMES[lands[l]]);
        }

    hpc_begin(1, NULL);
    hpc_inject_first_point();

    for (int k = 0; k < ngr; k++)
        for (int l = 0; l < nland; l++) {
            reference rf;
            reference_init(&rf, gr[k][0], gr[k][1], lands[l], dt, direct_max);
            for (int m = 0; m < npg; m++) {
                if (weak && m != k)
                    continue;
                for (int mp = 0; mp < nmaps; mp++)
                    for (int hv = 0; hv < nhalo; hv++)
                        for (int sv = 0; sv < nsum; sv++)
                            for (int b = 0; b < (sums[sv] == POP_SUM_TREE ? nbranch : 1); b++) {
                                config c = {gr[k][0], gr[k][1], lands[l], pg[m][0], pg[m][1],
                                            strcmp(maps[mp], "col") == 0, halos[hv], sums[sv],
                                            sums[sv] == POP_SUM_TREE ? (int)branches[b] : 0, weak};
                                run_config(&rf, &c, tol, check_every, max_iters, dt, bound);
                            }
            }
            reference_free(&rf);
        }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
