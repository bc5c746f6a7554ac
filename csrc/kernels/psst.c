/* psst.c - the shallow water model of sst.c on a P x Q process grid.
 *
 * Decomposition (as PSTSWM's transpose variants): rank (p, q) owns the
 * latitudes of block p (contiguous, P blocks) and the zonal wavenumbers of set
 * q (M+1 wavenumbers dealt to Q sets in a folded order 0..Q-1, Q-1..0, ... for
 * balance). A step:
 *   Legendre synthesis of its wavenumbers at its latitudes (no communication);
 *   transpose inside the row of ranks sharing p: each rank then holds every
 *   wavenumber of a share of the (latitude, level) pairs of the block, does the
 *   inverse FFTs, the grid-point products and the forward FFTs of its pairs,
 *   and a transpose back returns wavenumbers to their owners;
 *   Legendre analysis over its latitudes: partial sums, summed over the
 *   column of ranks sharing q (the P latitude blocks); every rank of a column
 *   then advances the same spectral coefficients (replicated).
 * Variants (all parameters): the transpose by MPI_Alltoallv or by a
 * hand-written pairwise exchange (Q-1 MPI_Sendrecv steps, partner q+k / q-k);
 * the global sum by MPI_Allreduce or by a hand-written ring (the partial sums
 * travel 0 -> 1 -> ... -> P-1 adding in that fixed order, and the total travels
 * on around the ring); every aspect ratio P x Q = nranks; rank r at (r / Q,
 * r % Q) (row-major) or (r % P, r / P) (column-major).
 * FFT variant "distributed" (PSTSWM's distributed FFT, Q a power of two dividing
 * nlon): no transpose; every rank of a row keeps all (latitude, level) pairs
 * of the block, owns the wavenumbers m = q (mod Q) and the longitudes
 * [n t, n t + n), n = nlon/Q, t = bitrev(q). The inverse FFT is a complex DFT
 * of the one-sided spectrum (real part taken): local length-n DFTs of the
 * cyclic samples k = q + Q k2, twiddles, then log2(Q) binary-exchange stages
 * (MPI_Sendrecv of the whole local block with rank q ^ d, d = Q/2 .. 1); the
 * forward FFT is its adjoint (stages d = 1 .. Q/2, twiddles, local DFTs),
 * which leaves c_m for m = q (mod Q) where the Legendre analysis needs it.
 *
 * Verification, outside the timing, once per configuration: the final
 * spectral state is compared with the serial model's (sst_run, same library)
 * on rank 0: the largest difference relative to the largest coefficient must
 * be below 1e-12 (round-off: the latitude sums are split into blocks, so the
 * results are not bitwise equal in general; the record says how many
 * coefficients differ at all). After every integration the state must be finite and its
 * height errors finite and within the test case's bound (--bound, 0: sst_error_bound), as in
 * sst.c. The leapfrog starts as --start says (sst_model.c).
 *
 * Metrics: seconds per integration (slowest rank), MFlop/s in all (the serial
 * operation count / time), simulated days per day. The run_time record carries
 * each rank's phase timers (phases.h: legendre, fft, grid, spectral, pack,
 * transpose, global_sum) in us per pass through the step code (the classic
 * start makes one pass more than steps), mean over the kept samples.
 */
#include "harness.h"
#include "lib/psst_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "truncation", .type = HPC_INT, .def = "21", .min = 1, .max = 1000,
     .help = "triangular truncation M"},
    {.name = "levels", .type = HPC_INT, .def = "1", .min = -1000000, .max = 4096,
     .help = "levels transformed together"},
    {.name = "grids", .type = HPC_GRIDS, .def = "all", .what = "PxQ", .all = 1,
     .help = "process grids PxQ, comma-separated (all: every P x Q = ranks)"},
    {.name = "mappings", .type = HPC_CHOICES, .def = "row,col", .choices = "row|col",
     .help = "rank mappings: row, col"},
    {.name = "transposes", .type = HPC_CHOICES, .def = "alltoallv,pairwise",
     .choices = "alltoallv|pairwise|distributed",
     .help = "FFT: transpose by alltoallv or pairwise, or distributed (binary exchange; Q a "
             "power of two dividing nlon)"},
    {.name = "sums", .type = HPC_CHOICES, .def = "allreduce,ring", .choices = "allreduce|ring",
     .help = "global sum of the Legendre analysis: allreduce, ring"},
    {.name = "test", .type = HPC_INT, .def = "2", .min = 2, .max = 6, .help = "test case 2 or 6"},
    {.name = "alpha", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 1.5707963267948966,
     .help = "test case 2 flow angle (radians)"},
    {.name = "days", .type = HPC_DOUBLE, .def = "1", .min = 1e-3, .max = 1000,
     .help = "simulated days per integration"},
    {.name = "start", .type = HPC_CHOICE, .def = "classic", .choices = "classic|euler",
     .help = "leapfrog start: classic (forward dt/2, then centred dt) or euler (forward dt)"},
    {.name = "bound", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 100,
     .help = "largest normalised height error allowed (0: the test case's own, as sst)"},
    {0}};

static const double SERIAL_TOL = 1e-12;

static void set_test(sst_model *s, int test, double alpha)
{
    if (test == 2)
        sst_set_tc2(s, alpha);
    else
        sst_set_tc6(s);
}

/* Rank 0, after an integration: the height errors (the largest over the levels) against the
 * test case's solution, each finite and within bound. */
static void check_errors(sst_model *s, int test, double alpha, double days, double *h,
                         double *ht, double err[3], double bound)
{
    static const char *norm[3] = {"l1", "l2", "linf"};
    if (test == 2)
        sst_tc2_height(s, alpha, ht);
    else
        sst_tc6_height(s, days * 86400.0, ht);
    for (int l = 0; l < s->L; l++) {
        double e[3];
        sst_height(s, h, l);
        sst_errors(s, h, ht, e);
        for (int k = 0; k < 3; k++)
            hpc_check_bound(e[k], bound, "psst: test case %d at T%d (%s start) after %g days, "
                            "level %d: normalised %s height error", test, s->M,
                            sst_start_names[s->start], days, l, norm[k]);
        for (int k = 0; k < 3; k++)
            err[k] = fmax(err[k], e[k]);  /* finite: checked above */
    }
}

/* The words of a HPC_CHOICES option, in the order given (names: its .choices in order). */
static int chosen(const char *name, const char *const names[], const char **out)
{
    const long long *idx;
    int n = hpc_opt_list(name, &idx);
    for (int i = 0; i < n; i++)
        out[i] = names[idx[i]];
    return n;
}

/* The options, all read in parse(). */
typedef struct {
    int M, L, test, start, nlon, nlat;
    double alpha, days, bound;
    hpc_grid *grids;
    int ngrids, nmaps, ntrs, nsums;
    const char *maps[2], *trs[3], *sums[2];
} psst_opts;

/* Every grid must fit the truncation (and the distributed FFT its longitudes). */
static void check_grids(const psst_opts *o)
{
    int nlat = o->nlat, nlon = o->nlon, M = o->M;
    for (int i = 0; i < o->ngrids; i++) {
        int P = o->grids[i].x, Q = o->grids[i].y;
        /* A block is whole north/south pairs of latitudes (sst_legendre.c's symmetry). */
        hpc_usage_check(P > (nlat + 1) / 2, "psst: P = %d exceeds the %d latitudes of T%d "
                        "(blocks of north/south pairs: at most %d)", P, nlat, M, (nlat + 1) / 2);
        hpc_usage_check(Q > M + 1, "psst: Q = %d exceeds the %d wavenumbers of T%d", Q, M + 1,
                        M);
        for (int k = 0; k < o->ntrs; k++)
            hpc_usage_check(strcmp(o->trs[k], "distributed") == 0 && ((Q & (Q - 1)) || nlon % Q),
                            "psst: the distributed FFT needs Q a power of two dividing nlon %d "
                            "(Q = %d)", nlon, Q);
        int minunits = (2 * ((nlat + 1) / 2 / P) - nlat % 2) * o->L;
        hpc_usage_check(Q > minunits,
                        "psst: Q = %d exceeds the %d latitude-level pairs of a block", Q,
                        minunits);
    }
}

static void parse(psst_opts *o)
{
    o->M = (int)hpc_opt_int("truncation");
    o->L = (int)hpc_opt_int("levels");
    o->test = (int)hpc_opt_int("test");
    o->alpha = hpc_opt_double("alpha");
    o->days = hpc_opt_double("days");
    o->start = strcmp(hpc_opt_str("start"), "euler") == 0 ? SST_START_EULER : SST_START_CLASSIC;
    o->bound = hpc_opt_double("bound");
    if (o->bound == 0)
        o->bound = sst_error_bound(o->test, o->M, o->days);
    o->nlon = o->nlat = 0;
    const char *bad = sst_check_args(o->M, &o->nlon, &o->nlat, o->L);
    hpc_usage_check(bad != NULL, "psst: %s", bad ? bad : "");
    hpc_usage_check(o->test != 2 && o->test != 6, "option --test: %d is not 2 or 6", o->test);
    static const char *const maps[] = {"row", "col"};
    static const char *const trs[] = {"alltoallv", "pairwise", "distributed"};
    static const char *const sums[] = {"allreduce", "ring"};
    o->grids = hpc_opt_pgrids("grids", &o->ngrids);
    o->nmaps = chosen("mappings", maps, o->maps);
    o->ntrs = chosen("transposes", trs, o->trs);
    o->nsums = chosen("sums", sums, o->sums);
    check_grids(o);
}

/* The shared state of a sweep: the model, its serial reference, the grids for the checks. */
typedef struct {
    sst_model s;
    hpc_phases ph;
    int nsteps;
    size_t ns;                 /* complex coefficients per field */
    double complex *refstate;  /* rank 0: the serial model's final z, d, p */
    double complex *start;     /* the test case's initial z, d, p (every sample starts there) */
    double *h, *ht;            /* rank 0: height grids for the error checks */
} psst_ctx;

/* One variant's measurement: its samples and checks. */
typedef struct {
    const char *map, *tr, *sum;
    hpc_sampler sm;
    double maxrel, ndiff, err[3], wall;
} psst_point;

/* The test case's initial state, set on rank 0 (an analysis of the whole grid) and sent to
 * the others with what else it sets (Coriolis, the mean geopotential); kept in c->start, where
 * every sample starts. */
static void start_state(psst_ctx *c, const psst_opts *o)
{
    sst_model *s = &c->s;
    if (hpc_rank == 0)
        set_test(s, o->test, o->alpha);
    MPI_Bcast(&s->phibar, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&s->advect_only, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(s->fcor, s->nlat * s->nlon, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (hpc_rank != 0) {
        sst_count_flops(s);
        s->old = 0;   /* as the test cases' initial states (sst_cases.c) */
        s->cur = 1;
        s->nxt = 2;
    }
    double complex *f[3] = {s->z[s->cur], s->d[s->cur], s->p[s->cur]};
    for (int k = 0; k < 3; k++)
        MPI_Bcast(f[k], (int)(2 * c->ns), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    c->start = sst_save_state(s);
    if (!c->start)
        hpc_fail("psst: out of memory");
}

static void ctx_init(psst_ctx *c, const psst_opts *o)
{
    psst_phases_init(&c->ph);
    double dt0 = fmin(2400.0 * (o->test == 6 ? 0.5 : 1.0) * 42.0 / o->M, 3600.0);
    c->nsteps = (int)ceil(o->days * 86400.0 / dt0 - 1e-9);
    double dt = o->days * 86400.0 / c->nsteps;
    /* only rank 0 transforms the whole grid: the initial state, the heights it checks */
    (hpc_rank == 0 ? sst_init : sst_init_spectral)(&c->s, o->M, o->nlon, o->nlat, o->L,
                                                   SST_SEMI_IMPLICIT, dt, 0.0, o->start);
    c->ns = (size_t)c->s.ncoef * o->L;
    start_state(c, o);
    c->refstate = NULL;
    if (hpc_rank == 0) {  /* the serial reference */
        sst_model ref;
        sst_init(&ref, o->M, o->nlon, o->nlat, o->L, SST_SEMI_IMPLICIT, dt, 0.0, o->start);
        set_test(&ref, o->test, o->alpha);
        sst_run(&ref, c->nsteps);
        c->refstate = sst_save_state(&ref);
        if (!c->refstate)
            hpc_fail("psst: out of memory");
        sst_free(&ref);
    }
    size_t npts = (size_t)o->nlat * o->nlon;
    c->h = malloc(npts * sizeof *c->h);
    c->ht = malloc(npts * sizeof *c->ht);
}

/* Rank 0, after the first integration: the state against the serial model's. */
static void compare_serial(const psst_ctx *c, const pgrid *g, psst_point *pt)
{
    const sst_model *s = &c->s;
    double big = 0, diff = 0;
    const double complex *st[3] = {s->z[s->cur], s->d[s->cur], s->p[s->cur]};
    for (int f = 0; f < 3; f++)
        for (size_t x = 0; x < c->ns; x++) {
            double complex r = c->refstate[f * c->ns + x];
            big = fmax(big, cabs(r));
            diff = fmax(diff, cabs(st[f][x] - r));
            pt->ndiff += st[f][x] != r;
        }
    pt->maxrel = big > 0 ? diff / big : diff;
    if (!(pt->maxrel <= SERIAL_TOL))
        hpc_fail("psst: %dx%d %s %s %s: the state differs from the serial model's by %.3g of "
                 "its largest coefficient (bound %g)", g->P, g->Q, pt->map, pt->tr, pt->sum,
                 pt->maxrel, SERIAL_TOL);
}

/* Integrations on grid g until the sampler has enough, each checked on rank 0. */
static void measure(psst_ctx *c, const psst_opts *o, pgrid *g, psst_point *pt)
{
    sst_model *s = &c->s;
    hpc_sampler_init(&pt->sm, &hpc_reps);
    pt->maxrel = pt->ndiff = pt->wall = 0;
    pt->err[0] = pt->err[1] = pt->err[2] = 0;
    int first = 1;
    hpc_phases_reset(&c->ph);
    while (hpc_sampler_more_coll(&pt->sm, MPI_COMM_WORLD)) {
        sst_restore_state(s, c->start);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        for (int n = 0; n < sst_passes(s, c->nsteps); n++)
            (g->transpose == 2 ? psst_dstep : psst_pstep)(s, g, n);
        hpc_phases_stop(&c->ph);
        double tmax;
        hpc_phases_sample(&c->ph, &pt->sm, hpc_now() - t0, &pt->wall, &tmax);

        psst_gather_state(s, g);
        if (hpc_inject == HPC_INJECT_CORRUPT && hpc_rank == 0)
            s->p[s->cur][c->ns / 2] += 10.0;
        /* fmax below drops NaNs: a blown-up state must fail here first. */
        const double complex *fs[3] = {s->z[s->cur], s->d[s->cur], s->p[s->cur]};
        for (int f = 0; f < 3 && hpc_rank == 0; f++)
            hpc_check_finite((const double *)fs[f], 2 * c->ns, "psst: %dx%d %s %s %s: the state "
                             "after %g days", g->P, g->Q, pt->map, pt->tr, pt->sum, o->days);
        if (hpc_rank == 0 && first)
            compare_serial(c, g, pt);
        first = 0;
        if (hpc_rank == 0)
            check_errors(s, o->test, o->alpha, o->days, c->h, c->ht, pt->err, o->bound);
    }
}

/* The run_time, mflops and sim_days_per_day records of a variant. */
static void emit(psst_ctx *c, const psst_opts *o, const pgrid *g, psst_point *pt)
{
    const sst_model *s = &c->s;
    int passes = sst_passes(s, c->nsteps);
    double *x = malloc((size_t)pt->sm.n * sizeof *x);
    if (!x)
        hpc_fail("psst: out of memory");
    static const char *metric[3] = {"run_time", "mflops", "sim_days_per_day"};
    static const char *unit[3] = {"s", "MFlop/s", "days/day"};
    for (int k = 0; k < 3; k++) {
        if (k == 0)
            memcpy(x, pt->sm.samples, (size_t)pt->sm.n * sizeof *x);
        else if (k == 1)
            hpc_rates(pt->sm.samples, pt->sm.n, sst_run_flops(s, c->nsteps), 1e6, x);
        else
            hpc_rates(pt->sm.samples, pt->sm.n, o->days, 1.0 / 86400.0, x);
        hpc_stats st;
        hpc_stats_compute(x, pt->sm.n, &st);
        hpc_json r;
        hpc_result_begin(&r, metric[k], unit[k], "median", k ? "higher" : "lower");
        hpc_json_int(&r, "truncation", o->M);
        hpc_json_int(&r, "levels", o->L);
        hpc_json_int(&r, "P", g->P);
        hpc_json_int(&r, "Q", g->Q);
        hpc_json_str(&r, "mapping", pt->map);
        hpc_json_str(&r, "transpose", pt->tr);
        hpc_json_str(&r, "sum", pt->sum);
        hpc_json_int(&r, "test", o->test);
        hpc_json_str(&r, "start", sst_start_names[o->start]);
        hpc_result_stats(&r, &st, pt->sm.converged);
        hpc_json_exact(&r, "flops_per_step", s->flops_step);
        hpc_json_int(&r, "steps", c->nsteps);
        hpc_json_int(&r, "passes", passes);
        hpc_json_num(&r, "max_rel_diff_vs_serial", pt->maxrel);
        hpc_json_int(&r, "coefficients_differing_from_serial", (long long)pt->ndiff);
        hpc_json_bool(&r, "bitwise_equal_to_serial", pt->ndiff == 0);
        if (k == 0) {  /* us per pass, mean over the kept samples (collective) */
            double scale = 1e6 / ((double)pt->sm.n * passes);
            hpc_phases_json(&r, &c->ph, scale, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "wall_per_rank", pt->wall * scale, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "flops_per_rank", psst_rank_flops(s, g), MPI_COMM_WORLD);
            hpc_json_exact(&r, "serial_flops", s->flops_step);
            hpc_json_exact(&r, "dt_s", s->dt);
        }
        hpc_json_num(&r, "err_l1", pt->err[0]);
        hpc_json_num(&r, "err_l2", pt->err[1]);
        hpc_json_num(&r, "err_linf", pt->err[2]);
        hpc_json_exact(&r, "err_bound", o->bound);
        hpc_json_emit(&r);
    }
    free(x);
    hpc_sampler_free(&pt->sm);
}

/* Every grid x mapping x transpose x sum: set up, measure, emit, tear down. */
static void sweep(psst_ctx *c, const psst_opts *o)
{
    for (int gi = 0; gi < o->ngrids; gi++)
        for (int mp = 0; mp < o->nmaps; mp++)
            for (int tr = 0; tr < o->ntrs; tr++)
                for (int su = 0; su < o->nsums; su++) {
                    psst_point pt = {.map = o->maps[mp], .tr = o->trs[tr], .sum = o->sums[su]};
                    int variant = strcmp(pt.tr, "pairwise") == 0       ? 1
                                  : strcmp(pt.tr, "distributed") == 0 ? 2
                                                                      : 0;
                    pgrid g;
                    psst_setup(&g, &c->s, o->grids[gi].x, o->grids[gi].y,
                               strcmp(pt.map, "col") == 0, variant);
                    g.sum = strcmp(pt.sum, "ring") == 0;
                    g.ph = &c->ph;
                    measure(c, o, &g, &pt);
                    emit(c, o, &g, &pt);
                    psst_teardown(&g);
                }
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "psst", "Shallow water model on a P x Q process grid: variants.",
             options, MPI_THREAD_SINGLE);
    psst_opts o;
    parse(&o);
    hpc_begin(1, NULL);
    hpc_inject_first_point();
    psst_ctx c;
    ctx_init(&c, &o);
    sweep(&c, &o);
    free(c.h);
    free(c.ht);
    free(c.refstate);
    free(c.start);
    sst_free(&c.s);
    free(o.grids);
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
