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

static void emit(const char *metric, const char *unit, const char *better, double *x, int n,
                 int converged, const sst_model *s, const char *scheme, int test, double alpha,
                 int nsteps, double days, const double err[3], double bound,
                 const hpc_phases *ph, double wall)
{
    hpc_stats st;
    hpc_stats_compute(x, n, &st);
    hpc_json r;
    hpc_result_begin(&r, metric, unit, "median", better);
    hpc_json_int(&r, "truncation", s->M);
    hpc_json_int(&r, "levels", s->L);
    hpc_json_int(&r, "nlon", s->nlon);
    hpc_json_int(&r, "nlat", s->nlat);
    hpc_json_str(&r, "scheme", scheme);
    hpc_json_int(&r, "test", test);
    hpc_json_exact(&r, "alpha", alpha);
    hpc_json_str(&r, "start", sst_start_names[s->start]);
    hpc_json_int(&r, "copies", hpc_nranks);
    hpc_result_stats(&r, &st, converged);
    hpc_json_exact(&r, "flops_per_step", s->flops_step);
    hpc_json_exact(&r, "fft_flops_per_step", s->fft_flops);
    hpc_json_exact(&r, "legendre_flops_per_step", s->legendre_flops);
    hpc_json_exact(&r, "grid_flops_per_step", s->grid_flops);
    hpc_json_exact(&r, "spectral_flops_per_step", s->spectral_flops);
    hpc_json_int(&r, "steps", nsteps);
    hpc_json_int(&r, "passes", sst_passes(s, nsteps));  /* step_time's divisor */
    hpc_json_exact(&r, "dt_s", s->dt);
    hpc_json_exact(&r, "days", days);
    hpc_json_num(&r, "err_l1", err[0]);
    hpc_json_num(&r, "err_l2", err[1]);
    hpc_json_num(&r, "err_linf", err[2]);
    hpc_json_exact(&r, "err_bound", bound);
    if (ph) {  /* us per pass, mean over the kept samples, per rank (collective) */
        double scale = 1e6 / ((double)n * sst_passes(s, nsteps));
        hpc_phases_json(&r, ph, scale, MPI_COMM_WORLD);
        hpc_json_per_rank(&r, "wall_per_rank", wall * scale, MPI_COMM_WORLD);
    }
    hpc_json_emit(&r);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "sst", "Spectral transform shallow water model: MFlop/s, days/day.",
             options, MPI_THREAD_SINGLE);
    const long long *truncs, *levels;
    int ntr = hpc_opt_list("truncations", &truncs);
    int nlev = hpc_opt_list("levels", &levels);
    const char *scheme = hpc_opt_str("scheme");
    int test = (int)hpc_opt_int("test");
    double alpha = hpc_opt_double("alpha"), days = hpc_opt_double("days");
    double bound_opt = hpc_opt_double("bound"), robert = hpc_opt_double("robert");
    int start = strcmp(hpc_opt_str("start"), "euler") == 0 ? SST_START_EULER : SST_START_CLASSIC;
    int nlon_opt = (int)hpc_opt_int("nlon"), nlat_opt = (int)hpc_opt_int("nlat");

    hpc_usage_check(test != 1 && test != 2 && test != 6, "option --test: %d is not 1, 2 or 6",
                    test);
    hpc_usage_check(ntr > 1 && (nlon_opt || nlat_opt),
                    "options --nlon/--nlat: give one truncation only");
    for (int i = 0; i < ntr; i++)
        for (int k = 0; k < nlev; k++) {
            int nlon = nlon_opt, nlat = nlat_opt;
            const char *bad = sst_check_args((int)truncs[i], &nlon, &nlat, (int)levels[k]);
            hpc_usage_check(bad != NULL, "sst: %s", bad ? bad : "");
        }

    hpc_begin(1, NULL);
    hpc_inject_first_point();

    for (int i = 0; i < ntr; i++)
        for (int k = 0; k < nlev; k++) {
            int M = (int)truncs[i], L = (int)levels[k], nlon = nlon_opt, nlat = nlat_opt;
            sst_check_args(M, &nlon, &nlat, L);
            double dt;
            int nsteps = steps_for(M, days, strcmp(scheme, "explicit") == 0, test,
                                   hpc_opt_double("dt"), &dt);
            sst_model s;
            sst_init(&s, M, nlon, nlat, L,
                     strcmp(scheme, "explicit") == 0 ? SST_EXPLICIT : SST_SEMI_IMPLICIT, dt,
                     robert, start);
            double bound = bound_opt > 0 ? bound_opt : sst_error_bound(test, M, days);

            hpc_sampler sm;
            hpc_sampler_init(&sm, &hpc_reps);
            hpc_phases ph;
            hpc_phases_init(&ph, sst_phase_defs, SST_NPH);
            s.phases = &ph;
            double wall = 0;  /* this rank's own time over the kept samples */
            double err[3] = {0, 0, 0};
            double *errs[3] = {NULL, NULL, NULL};  /* per sample, for the error records */
            int nerr = 0;
            while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
                if (test == 1)
                    sst_set_tc1(&s, alpha);
                else if (test == 2)
                    sst_set_tc2(&s, alpha);
                else
                    sst_set_tc6(&s);
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = hpc_now();
                sst_run(&s, nsteps);
                double tmax;
                hpc_phases_sample(&ph, &sm, hpc_now() - t0, &wall, &tmax);

                if (hpc_inject == HPC_INJECT_CORRUPT && hpc_rank == 0)
                    s.p[s.cur][(size_t)L * s.ncoef / 2] += 10.0;
                check_run(&s, test, alpha, days, err, bound);
                for (int e = 0; e < 3; e++) {
                    errs[e] = realloc(errs[e], (size_t)(nerr + 1) * sizeof *errs[e]);
                    if (!errs[e])
                        hpc_fail("sst: out of memory");
                    errs[e][nerr] = err[e];
                }
                nerr++;
            }
            /* The count as set up for the test case, start passes included. */
            double flops = sst_run_flops(&s, nsteps);
            int n = sm.n;
            double *x = malloc((size_t)n * sizeof *x);
            hpc_rates(sm.samples, n, flops, 1e6, x);
            emit("mflops", "MFlop/s", "higher", x, n, sm.converged, &s, scheme, test, alpha,
                 nsteps, days, err, bound, NULL, 0);
            hpc_rates(sm.samples, n, days, 1.0 / 86400.0, x);  /* days / (t / 86400 s) */
            emit("sim_days_per_day", "days/day", "higher", x, n, sm.converged, &s, scheme, test,
                 alpha, nsteps, days, err, bound, NULL, 0);
            for (int r = 0; r < n; r++)
                x[r] = sm.samples[r] / sst_passes(&s, nsteps);
            emit("step_time", "s", "lower", x, n, sm.converged, &s, scheme, test, alpha, nsteps,
                 days, err, bound, &ph, wall);
            /* The errors as records of their own, so they are stored and exported. */
            static const char *norm[3] = {"l1", "l2", "linf"};
            for (int e = 0; e < 3; e++) {
                hpc_stats st;
                hpc_stats_compute(errs[e], nerr, &st);
                hpc_json r;
                hpc_result_begin(&r, "height_error", "1", "max", "lower");
                hpc_json_int(&r, "truncation", M);
                hpc_json_int(&r, "levels", L);
                hpc_json_int(&r, "nlon", nlon);
                hpc_json_int(&r, "nlat", nlat);
                hpc_json_str(&r, "scheme", scheme);
                hpc_json_int(&r, "test", test);
                hpc_json_exact(&r, "alpha", alpha);
                hpc_json_str(&r, "start", sst_start_names[start]);
                hpc_json_int(&r, "copies", hpc_nranks);
                hpc_json_str(&r, "norm", norm[e]);
                hpc_json_exact(&r, "days", days);
                hpc_result_stats(&r, &st, sm.converged);
                hpc_json_exact(&r, "err_bound", bound);
                hpc_json_emit(&r);
                free(errs[e]);
            }
            free(x);
            hpc_sampler_free(&sm);
            sst_free(&s);
        }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
