/* sst.c - spectral transform shallow water model on the sphere (serial,
 * PSTSWM-like): MFlop/s and simulated days per day vs truncation and levels.
 *
 * Method: for each truncation T (--truncations) and number of levels L
 * (--levels) the model of csrc/kernels/lib/sst_model.c (Gaussian grid,
 * FFTW in longitude, a dgemm Legendre transform over the L levels, vorticity
 * -divergence form, semi-implicit or explicit leapfrog) integrates a
 * Williamson et al. (1992) test case for --days days, the same problem on
 * every level. A sample is one whole integration (the initial analysis is
 * outside the timing). With several ranks every rank integrates the same
 * problem at the same time (the node's memory system shared, as "all cores
 * at once"); a sample is then the slowest rank's time, started together.
 *
 * Metrics: MFlop/s per process = the flops of the integration / time (the
 * exact count of sst_model.c's header, for every pass through the step code:
 * the classic start makes one pass more than steps), simulated days per
 * wall-clock day, and seconds per pass ("step_time").
 *
 * Verification, outside the timing, after every integration on every rank
 * and level: the spectral state must be finite, and the normalised l1, l2,
 * linf height errors (Williamson's) finite and within the test case's bound
 * (--bound, 0: sst_error_bound in lib/sst_model.c), else the run fails
 * (exit 1, error record, no rate for that point). Test case 2 (steady zonal
 * flow, rotated by --alpha) must stay at round-off level. Test case 1 (cosine
 * bell advected by fixed solid-body winds; only the geopotential advances) is
 * compared with the exactly rotated bell (the bell's kink limits a spectral
 * model's accuracy), test case 6 (Rossby-Haurwitz wave, R = 4; no analytic
 * solution) with the wave moved at its nondivergent phase speed; both bounds
 * are a few times the errors a correct model has at T42, so a run that blows
 * up (e.g. --dt 7200) fails. The leapfrog starts as --start says (classic:
 * STSWM's half step then centred step; euler: one forward step).
 */
#include "harness.h"
#include "lib/sst_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "truncations", .type = HPC_SIZES, .def = "42", .min = 1, .max = 1000,
     .help = "triangular truncations M (T42: 128 x 64 grid)"},
    {.name = "levels", .type = HPC_SIZES, .def = "1", .min = 0, .max = 4096,
     .help = "numbers of levels L transformed together"},
    {.name = "nlon", .type = HPC_INT, .def = "0", .min = 0, .max = 1 << 16,
     .help = "longitudes (0: smallest FFT-friendly >= 3M+1); one truncation only"},
    {.name = "nlat", .type = HPC_INT, .def = "0", .min = 0, .max = 1 << 15,
     .help = "Gaussian latitudes (0: nlon/2); one truncation only"},
    {.name = "scheme", .type = HPC_CHOICE, .def = "semi-implicit",
     .choices = "semi-implicit|explicit", .help = "time stepping"},
    {.name = "test", .type = HPC_INT, .def = "2", .min = 1, .max = 6,
     .help = "Williamson test case: 1 (cosine bell), 2 (steady zonal flow, checked), 6 "
             "(Rossby-Haurwitz)"},
    {.name = "alpha", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 1.5707963267948966,
     .help = "test cases 1, 2: angle of the flow to the equator (radians; pi/4 = 0.7853981633974483)"},
    {.name = "days", .type = HPC_DOUBLE, .def = "5", .min = 1e-3, .max = 1000,
     .help = "simulated days per integration"},
    {.name = "dt", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 86400,
     .help = "time step in s (0: automatic, see the source; T42 test case 2: 2400 s semi-implicit)"},
    {.name = "robert", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 0.5,
     .help = "Robert-Asselin filter coefficient (0: off)"},
    {.name = "start", .type = HPC_CHOICE, .def = "classic", .choices = "classic|euler",
     .help = "leapfrog start: classic (forward dt/2, then centred dt, as STSWM) or euler "
             "(one forward step of dt)"},
    {.name = "bound", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 100,
     .help = "largest normalised l1, l2, linf height error allowed (0: the test case's own: "
             "1e-11 for test case 2, see the source for 1 and 6)"},
    {0}};

/* Time step and number of steps covering days exactly. The default scales
 * with the grid spacing (1/M) from STSWM-like T42 values (test case 2:
 * 2400 s semi-implicit, 600 s explicit; test case 6, faster winds: half of
 * that; test case 1, leapfrog advection of a sharp bell: 600 s, as the
 * phase error of its short waves dominates at 2400 s), capped so that the
 * explicit Coriolis term stays stable (f dt < 1). */
static int steps_for(int M, double days, int explicit, int test, double dt_opt, double *dt)
{
    double t42 = test == 1 ? 600.0 : (explicit ? 600.0 : 2400.0) * (test == 6 ? 0.5 : 1.0);
    double cap = explicit ? 1800.0 : 3600.0;
    double want = dt_opt > 0 ? dt_opt : fmin(t42 * 42.0 / M, cap);
    int n = (int)ceil(days * 86400.0 / want - 1e-9);
    if (n < 1)
        n = 1;
    *dt = days * 86400.0 / n;
    return n;
}

/* Largest of each error over the levels. */
static void level_errors(sst_model *s, int test, double alpha, double t, double err[3])
{
    size_t n = (size_t)s->nlat * s->nlon;
    double *h = malloc(n * sizeof *h), *ht = malloc(n * sizeof *ht);
    if (!h || !ht)
        hpc_fail("sst: cannot allocate %zu grid points", n);
    if (test == 1)
        sst_tc1_height(s, alpha, t, ht);
    else if (test == 2)
        sst_tc2_height(s, alpha, ht);
    else
        sst_tc6_height(s, t, ht);
    err[0] = err[1] = err[2] = 0;
    for (int l = 0; l < s->L; l++) {
        double e[3];
        sst_height(s, h, l);
        sst_errors(s, h, ht, e);
        for (int i = 0; i < 3; i++)
            if (!isnan(err[i]) && !(e[i] <= err[i]))  /* a NaN stays: the check reports it */
                err[i] = e[i];
    }
    free(h);
    free(ht);
}

/* After an integration, on every rank: the state finite, then its errors (the largest over
 * the levels) finite and within bound, else the run fails before any rate is written. */
static void check_run(sst_model *s, int test, double alpha, double days, double err[3],
                      double bound)
{
    static const char *norm[3] = {"l1", "l2", "linf"};
    size_t ns = 2 * (size_t)s->ncoef * s->L;  /* doubles per complex field */
    const double complex *f[3] = {s->z[s->cur], s->d[s->cur], s->p[s->cur]};
    for (int k = 0; k < 3; k++)
        hpc_check_finite((const double *)f[k], ns, "sst: test case %d at T%d, dt %g s (%s "
                         "start): the spectral state after %g days (rank %d)", test, s->M, s->dt,
                         sst_start_names[s->start], days, hpc_rank);
    level_errors(s, test, alpha, days * 86400.0, err);
    for (int e = 0; e < 3; e++)
        hpc_check_bound(err[e], bound, "sst: test case %d at T%d (%dx%d, L=%d, %s, %s start, "
                        "alpha=%g, dt %g s) after %g days: normalised %s height error (rank %d)",
                        test, s->M, s->nlon, s->nlat, s->L,
                        s->scheme == SST_EXPLICIT ? "explicit" : "semi-implicit",
                        sst_start_names[s->start], alpha, s->dt, days, norm[e], hpc_rank);
}

/* The options, read once (parse). */
typedef struct {
    const long long *truncs, *levels;
    int ntr, nlev, test, start, nlon, nlat, explicit;
    const char *scheme;
    double alpha, days, bound, robert, dt;
} sst_opts;

/* One measured point: the model, its samples and its checked errors. */
typedef struct {
    sst_model s;
    hpc_sampler sm;
    hpc_phases ph;
    int nsteps, nerr;
    double bound, wall;  /* wall: this rank's own time over the kept samples */
    double err[3], *errs[3];  /* the last errors; per sample, for the error records */
} sst_point;

/* Start-up seconds of this process, kept out of the per-step figures and recorded beside
 * them: hpc_init (MPI_Init and the options) here, the tables and FFTW plans in sst_init. */
static double startup_mpi;

static void parse(sst_opts *o)
{
    o->ntr = hpc_opt_list("truncations", &o->truncs);
    o->nlev = hpc_opt_list("levels", &o->levels);
    o->scheme = hpc_opt_str("scheme");
    o->explicit = strcmp(o->scheme, "explicit") == 0;
    o->test = (int)hpc_opt_int("test");
    o->alpha = hpc_opt_double("alpha");
    o->days = hpc_opt_double("days");
    o->bound = hpc_opt_double("bound");
    o->robert = hpc_opt_double("robert");
    o->dt = hpc_opt_double("dt");
    o->start = strcmp(hpc_opt_str("start"), "euler") == 0 ? SST_START_EULER : SST_START_CLASSIC;
    o->nlon = (int)hpc_opt_int("nlon");
    o->nlat = (int)hpc_opt_int("nlat");
    hpc_usage_check(o->test != 1 && o->test != 2 && o->test != 6,
                    "option --test: %d is not 1, 2 or 6", o->test);
    hpc_usage_check(o->ntr > 1 && (o->nlon || o->nlat),
                    "options --nlon/--nlat: give one truncation only");
    for (int i = 0; i < o->ntr; i++)
        for (int k = 0; k < o->nlev; k++) {
            int nlon = o->nlon, nlat = o->nlat;
            const char *bad = sst_check_args((int)o->truncs[i], &nlon, &nlat, (int)o->levels[k]);
            hpc_usage_check(bad != NULL, "sst: %s", bad ? bad : "");
        }
}

static void set_test(sst_model *s, const sst_opts *o)
{
    if (o->test == 1)
        sst_set_tc1(s, o->alpha);
    else if (o->test == 2)
        sst_set_tc2(s, o->alpha);
    else
        sst_set_tc6(s);
}

/* Integrations of truncation M on L levels until the sampler has enough, each checked. */
static void measure(const sst_opts *o, int M, int L, sst_point *pt)
{
    memset(pt, 0, sizeof *pt);
    int nlon = o->nlon, nlat = o->nlat;
    sst_check_args(M, &nlon, &nlat, L);
    double dt;
    pt->nsteps = steps_for(M, o->days, o->explicit, o->test, o->dt, &dt);
    sst_model *s = &pt->s;
    sst_init(s, M, nlon, nlat, L, o->explicit ? SST_EXPLICIT : SST_SEMI_IMPLICIT, dt, o->robert,
             o->start);
    pt->bound = o->bound > 0 ? o->bound : sst_error_bound(o->test, M, o->days);
    hpc_sampler_init(&pt->sm, &hpc_reps);
    hpc_phases_init(&pt->ph, sst_phase_defs, SST_NPH);
    s->phases = &pt->ph;
    while (hpc_sampler_more_coll(&pt->sm, MPI_COMM_WORLD)) {
        set_test(s, o);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        sst_run(s, pt->nsteps);
        double tmax;
        hpc_phases_sample(&pt->ph, &pt->sm, hpc_now() - t0, &pt->wall, &tmax);

        if (hpc_inject == HPC_INJECT_CORRUPT && hpc_rank == 0)
            s->p[s->cur][(size_t)L * s->ncoef / 2] += 10.0;
        check_run(s, o->test, o->alpha, o->days, pt->err, pt->bound);
        for (int e = 0; e < 3; e++) {
            pt->errs[e] = realloc(pt->errs[e], (size_t)(pt->nerr + 1) * sizeof *pt->errs[e]);
            if (!pt->errs[e])
                hpc_fail("sst: out of memory");
            pt->errs[e][pt->nerr] = pt->err[e];
        }
        pt->nerr++;
    }
}

/* The parameters every record of a point carries. */
static void point_params(hpc_json *r, const sst_opts *o, const sst_model *s)
{
    hpc_json_int(r, "truncation", s->M);
    hpc_json_int(r, "levels", s->L);
    hpc_json_int(r, "nlon", s->nlon);
    hpc_json_int(r, "nlat", s->nlat);
    hpc_json_str(r, "scheme", o->scheme);
    hpc_json_int(r, "test", o->test);
    hpc_json_exact(r, "alpha", o->alpha);
    hpc_json_str(r, "start", sst_start_names[s->start]);
    hpc_json_int(r, "copies", hpc_nranks);
}

static void emit(const char *metric, const char *unit, const char *better, double *x,
                 const sst_opts *o, const sst_point *pt, int phases)
{
    const sst_model *s = &pt->s;
    hpc_stats st;
    hpc_stats_compute(x, pt->sm.n, &st);
    hpc_json r;
    hpc_result_begin(&r, metric, unit, "median", better);
    point_params(&r, o, s);
    hpc_result_stats(&r, &st, pt->sm.converged);
    hpc_json_exact(&r, "flops_per_step", s->flops_step);
    hpc_json_exact(&r, "fft_flops_per_step", s->fft_flops);
    hpc_json_exact(&r, "legendre_flops_per_step", s->legendre_flops);
    hpc_json_exact(&r, "grid_flops_per_step", s->grid_flops);
    hpc_json_exact(&r, "spectral_flops_per_step", s->spectral_flops);
    hpc_json_int(&r, "steps", pt->nsteps);
    hpc_json_int(&r, "passes", sst_passes(s, pt->nsteps));  /* step_time's divisor */
    hpc_json_exact(&r, "dt_s", s->dt);
    hpc_json_exact(&r, "days", o->days);
    hpc_json_num(&r, "err_l1", pt->err[0]);
    hpc_json_num(&r, "err_l2", pt->err[1]);
    hpc_json_num(&r, "err_linf", pt->err[2]);
    hpc_json_exact(&r, "err_bound", pt->bound);
    if (phases) {  /* us per pass, mean over the kept samples, per rank (collective) */
        double scale = 1e6 / ((double)pt->sm.n * sst_passes(s, pt->nsteps));
        hpc_phases_json(&r, &pt->ph, scale, MPI_COMM_WORLD);
        hpc_json_per_rank(&r, "wall_per_rank", pt->wall * scale, MPI_COMM_WORLD);
    }
    /* Outside every timed figure: rank 0's hpc_init (MPI_Init), tables, FFTW plans. */
    hpc_json_num(&r, "startup_mpi_init_s", startup_mpi);
    hpc_json_num(&r, "startup_tables_s", s->startup_tables);
    hpc_json_num(&r, "startup_fft_plans_s", s->startup_plans);
    hpc_json_emit(&r);
}

/* The errors as records of their own, so they are stored and exported. */
static void emit_errors(const sst_opts *o, sst_point *pt)
{
    static const char *norm[3] = {"l1", "l2", "linf"};
    for (int e = 0; e < 3; e++) {
        hpc_stats st;
        hpc_stats_compute(pt->errs[e], pt->nerr, &st);
        hpc_json r;
        hpc_result_begin(&r, "height_error", "1", "max", "lower");
        point_params(&r, o, &pt->s);
        hpc_json_str(&r, "norm", norm[e]);
        hpc_json_exact(&r, "days", o->days);
        hpc_result_stats(&r, &st, pt->sm.converged);
        hpc_json_exact(&r, "err_bound", pt->bound);
        hpc_json_emit(&r);
        free(pt->errs[e]);
    }
}

static void emit_point(const sst_opts *o, sst_point *pt)
{
    const sst_model *s = &pt->s;
    int n = pt->sm.n;
    double *x = malloc((size_t)n * sizeof *x);
    if (!x)
        hpc_fail("sst: out of memory");
    /* The count as set up for the test case, start passes included. */
    hpc_rates(pt->sm.samples, n, sst_run_flops(s, pt->nsteps), 1e6, x);
    emit("mflops", "MFlop/s", "higher", x, o, pt, 0);
    hpc_rates(pt->sm.samples, n, o->days, 1.0 / 86400.0, x);  /* days / (t / 86400 s) */
    emit("sim_days_per_day", "days/day", "higher", x, o, pt, 0);
    for (int r = 0; r < n; r++)
        x[r] = pt->sm.samples[r] / sst_passes(s, pt->nsteps);
    emit("step_time", "s", "lower", x, o, pt, 1);
    emit_errors(o, pt);
    free(x);
    hpc_sampler_free(&pt->sm);
    sst_free(&pt->s);
}

int main(int argc, char **argv)
{
    double t0 = hpc_now();
    hpc_init(&argc, &argv, "sst", "Spectral transform shallow water model: MFlop/s, days/day.",
             options, MPI_THREAD_SINGLE);
    startup_mpi = hpc_now() - t0;
    sst_opts o;
    parse(&o);
    hpc_begin(1, NULL);
    hpc_inject_first_point();
    for (int i = 0; i < o.ntr; i++)
        for (int k = 0; k < o.nlev; k++) {
            sst_point pt;
            measure(&o, (int)o.truncs[i], (int)o.levels[k], &pt);
            emit_point(&o, &pt);
        }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
