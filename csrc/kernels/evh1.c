/* evh1.c - an EVH1-like proxy (the IBM p690 talk's Enhanced Virginia Hydrodynamics #1):
 * 3-D gas dynamics by directional operator splitting, a 1-D Lagrangian PPM sweep along x, y
 * and z, each followed by a remap to the fixed grid (lib/evh1_ppm.h, as VH-1's ppmlr), the
 * domain in pencils with a transpose of the decomposition between sweeps (lib/evh1_grid.h),
 * the step the p690 talk singles out: EVH1 remaps with MPI_Alltoallv.
 *
 * A point: a global grid (--grid, strong scaling) or zones per rank (--zones, weak scaling:
 * the global grid is NX f0 x NY f1 x NZ f2, f the rank count's most even three factors,
 * weak_factors(): every axis grows, so the pencils fit any rank count) on the P x Q process
 * grid --npe (default
 * MPI_Dims_create's), with one transpose variant (--transposes: alltoallv, pairwise,
 * alltoallw; lib/evh1_grid.h). A sample: --steps steps from the initial state (set up
 * untimed) after a barrier; the slowest rank's time. The domain is the unit cube.
 *
 * Checks, outside the timing, before the samples of every point:
 *   blast  --steps steps (at most 100) of a pressure sphere (10 inside radius 0.2, 0.1 outside, density 1)
 *          at the centre of the periodic box: total mass and energy change by at most
 *          CONS_BOUND of their magnitude, and the state is mirror-symmetric about the
 *          centre along every axis (velocity across the mirror reversed) to SYM_BOUND of
 *          each field's largest magnitude;
 *   sod    Sod's tube along --axis (outflow at its ends, periodic across) to t = 0.2: the L1
 *          error of density against the exact solution (lib/hydro_exact.h) below l1_bound().
 * The state must be finite after the check run and after the last sample. --inject corrupt
 * adds 0.1 to every density after the check run: both checks must fail.
 *
 * Metrics: time per step (us), zone updates per second in all and per rank, and the share of
 * the time in the transposes (pack + exchange, % of the wall time, mean over ranks); per-rank
 * phases (compute; pack: copies; transpose and dt: MPI) in the step_time record.
 */
#include "harness.h"
#include "lib/evh1_check.h"
#include "lib/evh1_step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "zones", .type = HPC_GRIDS, .dims = 3, .what = "NXxNYxNZ", .def = "32x32x32",
     .help = "zones per rank, comma-separated (weak scaling: NX f0 x NY f1 x NZ f2, f the rank "
             "count's most even three factors)"},
    {.name = "grid", .type = HPC_GRIDS, .dims = 3, .what = "NXxNYxNZ", .def = "",
     .help = "global grids, comma-separated (strong scaling; replaces --zones)"},
    {.name = "npe", .type = HPC_GRIDS, .dims = 2, .what = "PxQ", .def = "",
     .help = "process grid (P x Q = ranks; empty: MPI_Dims_create's)"},
    {.name = "transposes", .type = HPC_CHOICES, .def = "alltoallv,pairwise,alltoallw", .all = 1,
     .choices = "alltoallv|pairwise|alltoallw",
     .help = "transpose variants, a point each: packed MPI_Alltoallv, packed pairwise "
             "MPI_Sendrecv, MPI_Alltoallw of subarray datatypes (no packing)"},
    {.name = "problem", .type = HPC_CHOICE, .def = "blast", .choices = "blast|sod",
     .help = "blast: symmetry and conservation checked; sod: shock tube, exact check"},
    {.name = "axis", .type = HPC_CHOICE, .def = "x", .choices = "x|y|z",
     .help = "the axis of sod's tube"},
    {.name = "steps", .type = HPC_INT, .def = "10", .min = 1, .max = 1000000,
     .help = "time steps per sample (and of the blast's check run, at most 100)"},
    {.name = "gamma", .type = HPC_DOUBLE, .def = "1.4", .min = 1, .max = 10,
     .help = "ratio of specific heats, > 1"},
    {.name = "cfl", .type = HPC_DOUBLE, .def = "0.8", .min = 0, .max = 1,
     .help = "Courant number, in (0, 1)"},
    {.name = "l1-bound", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 10,
     .help = "largest L1 density error of sod (0: the default bound for the tube's zones)"},
    {0}};

static const hpc_phase_def PHASES[EV_NPH] = {[EV_PH_COMPUTE] = {"compute", HPC_KIND_COMPUTE},
                                             [EV_PH_PACK] = {"pack", HPC_KIND_COPY},
                                             [EV_PH_TRANSPOSE] = {"transpose", HPC_KIND_COMM},
                                             [EV_PH_DT] = {"dt", HPC_KIND_COMM}};
static const char *const VARIANTS[EV_NVARIANTS] = {"alltoallv", "pairwise", "alltoallw"};
static const char *const AXES[3] = {"x", "y", "z"};

#define MAXPTS 64
static const double MAX_BOX = 1 << 24;  /* zones in a rank's largest box: 0.7 GB a buffer */

typedef struct {
    int ng[3], P, Q, weak, steps;
    ev_problem pb;
    ev_variant variant;
    double gamma, cfl, l1_bound;
} config;

typedef struct {
    hpc_sampler sm;
    double *step_us, *rate, *share;  /* per kept sample */
    double wall;                     /* this rank's time over the kept samples */
    long kept_steps;
} samples;

/* The default bound of Sod's L1 density error with n zones along the tube (see
 * docs/apps_evh1.md for the measurements it is set from). */
static double l1_bound(int n) { return EV_L1_AT_100 * pow(100.0 / n, EV_L1_ORDER); }

/* The timed samples of a point. */
static void measure(const config *cf, ev_solver *sv, hpc_phases *ph, samples *m)
{
    double zones = (double)cf->ng[0] * cf->ng[1] * cf->ng[2];
    size_t bytes = (size_t)hpc_reps.max_reps * sizeof(double);
    hpc_sampler_init(&m->sm, &hpc_reps);
    m->step_us = malloc(bytes), m->rate = malloc(bytes), m->share = malloc(bytes);
    if (!m->step_us || !m->rate || !m->share)
        hpc_fail("evh1: no memory for the samples");
    m->wall = 0, m->kept_steps = 0;
    hpc_phases_reset(ph);
    while (hpc_sampler_more_coll(&m->sm, MPI_COMM_WORLD)) {
        double t = 0, tmax;
        ev_init(sv, cf->pb);
        double tr0 = ph->total[EV_PH_PACK] + ph->total[EV_PH_TRANSPOSE];
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        ev_advance(sv, cf->steps, 0, &t);
        double el = hpc_now() - t0;
        double share = (ph->total[EV_PH_PACK] + ph->total[EV_PH_TRANSPOSE] - tr0) / el;
        MPI_Allreduce(MPI_IN_PLACE, &share, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (hpc_phases_sample(ph, &m->sm, el, &m->wall, &tmax)) {
            int k = m->sm.n - 1;
            m->step_us[k] = tmax / cf->steps * 1e6;
            m->rate[k] = zones * cf->steps / tmax;
            m->share[k] = 100 * share / hpc_nranks;
            m->kept_steps += cf->steps;
        }
    }
    ev_check_finite(sv, "after the last sample");
}

static void params(hpc_json *j, const config *cf)
{
    static const char *const N[3] = {"nx", "ny", "nz"};
    for (int d = 0; d < 3; d++)
        hpc_json_int(j, N[d], cf->ng[d]);
    hpc_json_int(j, "P", cf->P);
    hpc_json_int(j, "Q", cf->Q);
    hpc_json_str(j, "problem", cf->pb == EV_SOD_X ? "sod" : "blast");
    hpc_json_str(j, "axis", cf->pb == EV_BLAST ? "" : AXES[cf->pb - EV_SOD_X]);
    hpc_json_str(j, "transpose", VARIANTS[cf->variant]);
    hpc_json_str(j, "scaling", cf->weak ? "weak" : "strong");
}

/* The check's figures, in the step_time record. */
static void verdict_json(hpc_json *j, const config *cf, const ev_verdict *v)
{
    hpc_json_int(j, "check_steps", v->steps);
    if (cf->pb == EV_BLAST) {
        hpc_json_num(j, "mass_rel_change", v->change[0]);
        hpc_json_num(j, "energy_rel_change", v->change[1]);
        hpc_json_exact(j, "conservation_bound", EV_CONS_BOUND);
        hpc_json_num(j, "asymmetry", v->asym);
        hpc_json_exact(j, "symmetry_bound", EV_SYM_BOUND);
    } else {
        hpc_json_exact(j, "l1_density", v->l1);  /* exact: decompositions compare it */
        hpc_json_exact(j, "l1_bound", cf->l1_bound);
        hpc_json_exact(j, "t_end", EV_SOD_T);
    }
}

/* step_time, zone_rate, zone_rate_per_rank, transpose_share: the same samples (collective). */
static void emit(const config *cf, hpc_phases *ph, samples *m, const ev_verdict *v)
{
    double zones = (double)cf->ng[0] * cf->ng[1] * cf->ng[2];
    double *per_rank = malloc((size_t)(m->sm.n > 0 ? m->sm.n : 1) * sizeof(double));
    for (int k = 0; k < m->sm.n; k++)
        per_rank[k] = m->rate[k] / hpc_nranks;
    static const char *const METRIC[4] = {"step_time", "zone_rate", "zone_rate_per_rank",
                                          "transpose_share"};
    static const char *const UNIT[4] = {"us", "zones/s", "zones/s", "%"};
    const double *data[4] = {m->step_us, m->rate, per_rank, m->share};
    for (int k = 0; k < 4; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], m->sm.n, &st);
        hpc_json j;
        hpc_result_begin(&j, METRIC[k], UNIT[k], "median",
                         k == 1 || k == 2 ? "higher" : "lower");
        params(&j, cf);
        hpc_result_stats(&j, &st, m->sm.converged);
        hpc_json_int(&j, "steps_per_sample", cf->steps);
        hpc_json_exact(&j, "zones", zones);
        hpc_json_exact(&j, "zones_per_rank", zones / hpc_nranks);
        hpc_json_exact(&j, "gamma", cf->gamma);
        hpc_json_exact(&j, "cfl", cf->cfl);
        if (k == 0) {
            /* per step, over every kept sample (collective) */
            hpc_phases_json(&j, ph, 1e6 / (double)m->kept_steps, MPI_COMM_WORLD);
            hpc_json_per_rank(&j, "wall_per_rank", m->wall / (double)m->kept_steps * 1e6,
                              MPI_COMM_WORLD);
            verdict_json(&j, cf, v);
        }
        hpc_json_emit(&j);
    }
    free(per_rank);
}

static void run_point(const config *cf)
{
    hpc_phases ph;
    ev_grid g;
    ev_solver sv;
    ev_boundary bc[3] = {EV_PERIODIC, EV_PERIODIC, EV_PERIODIC};
    if (cf->pb != EV_BLAST)
        bc[cf->pb - EV_SOD_X] = EV_OUTFLOW;
    hpc_phases_init(&ph, PHASES, EV_NPH);
    if (ev_grid_init(&g, cf->ng, cf->P, cf->Q, cf->variant, &ph) ||
        ev_solver_init(&sv, &g, bc, cf->gamma, cf->cfl))
        hpc_fail("evh1: no memory for a %dx%dx%d grid on %dx%d ranks", cf->ng[0], cf->ng[1],
                 cf->ng[2], cf->P, cf->Q);
    ev_verdict v = ev_verify(&sv, cf->pb, cf->steps, cf->l1_bound);
    samples m;
    measure(cf, &sv, &ph, &m);
    emit(cf, &ph, &m, &v);
    free(m.step_us), free(m.rate), free(m.share);
    hpc_sampler_free(&m.sm);
    ev_solver_free(&sv);
    ev_grid_free(&g);
}

/* f0 >= f1 >= f2, f0 f1 f2 = n: each prime factor of n, largest first, multiplies the smallest
 * factor so far (hpceval/catalog/bench_evh1.py weak_factors() is the same). */
static void weak_factors(int n, int f[3])
{
    int primes[32], np = 0;
    for (int d = 2; n > 1 && np < 32; d++)
        for (; n % d == 0 && np < 32; n /= d)
            primes[np++] = d;
    f[0] = f[1] = f[2] = 1;
    for (int k = np - 1; k >= 0; k--) {
        int s = f[1] < f[0] ? (f[2] < f[1] ? 2 : 1) : (f[2] < f[0] ? 2 : 0);
        f[s] *= primes[k];
    }
    for (int a = 0; a < 2; a++)  /* descending */
        for (int b = a + 1; b < 3; b++)
            if (f[b] > f[a]) {
                int t = f[a];
                f[a] = f[b], f[b] = t;
            }
}

/* The process grid: --npe, or MPI_Dims_create's for the rank count. */
static void process_grid(int *P, int *Q)
{
    const hpc_grid *given;
    int n = hpc_opt_grids("npe", &given), d[2] = {0, 0};
    hpc_usage_check(n > 1, "option --npe: '%s': one process grid", hpc_opt_str("npe"));
    if (n == 0)
        MPI_Dims_create(hpc_nranks, 2, d);
    *P = n ? given[0].x : d[0], *Q = n ? given[0].y : d[1];
    hpc_usage_check((long)*P * *Q != hpc_nranks, "option --npe: %dx%d is %ld ranks, not the %d "
                    "running", *P, *Q, (long)*P * *Q, hpc_nranks);
}

/* One point's grid: every pencil of every layout non-empty and not too big. */
static void check_grid(const config *c)
{
    const int *n = c->ng;
    hpc_usage_check(n[0] > (1 << 24) || n[1] > (1 << 24) || n[2] > (1 << 24),
                    "evh1: %dx%dx%d: at most 2^24 zones along an axis", n[0], n[1], n[2]);
    hpc_usage_check(c->P > n[0] || c->P > n[1] || c->Q > n[1] || c->Q > n[2],
                    "evh1: a %dx%dx%d grid on %dx%d ranks leaves a rank without zones (P at "
                    "most nx and ny, Q at most ny and nz)", n[0], n[1], n[2], c->P, c->Q);
    double biggest = (double)n[0] * ceil((double)n[1] / c->P) * ceil((double)n[2] / c->Q);
    biggest = fmax(biggest, ceil((double)n[0] / c->P) * n[1] * ceil((double)n[2] / c->Q));
    biggest = fmax(biggest, ceil((double)n[0] / c->P) * ceil((double)n[1] / c->Q) * n[2]);
    hpc_usage_check(biggest > MAX_BOX, "evh1: %dx%dx%d on %dx%d ranks: %g zones on a rank, at "
                    "most %g", n[0], n[1], n[2], c->P, c->Q, biggest, MAX_BOX);
}

/* The options to the points of the sweep, grids x variants (a bad one: usage error, exit 2). */
static int parse(config *pts)
{
    double gamma = hpc_opt_double("gamma"), cfl = hpc_opt_double("cfl");
    hpc_usage_check(!(gamma > 1), "option --gamma: %g is not above 1", gamma);
    hpc_usage_check(!(cfl > 0 && cfl < 1), "option --cfl: %g is not in (0, 1)", cfl);
    int P, Q, weak = hpc_opt_str("grid")[0] == '\0', f[3] = {1, 1, 1};
    process_grid(&P, &Q);
    if (weak)
        weak_factors(hpc_nranks, f);
    const hpc_grid *g;
    const long long *var;
    int ng = hpc_opt_grids(weak ? "zones" : "grid", &g), nv = hpc_opt_list("transposes", &var);
    hpc_usage_check(ng == 0, "option --zones: no grid given");
    hpc_usage_check(ng * nv > MAXPTS, "evh1: %d grids x %d variants: at most %d points", ng, nv,
                    MAXPTS);
    ev_problem pb = EV_BLAST;
    if (strcmp(hpc_opt_str("problem"), "sod") == 0)
        pb = (ev_problem)(EV_SOD_X + (hpc_opt_str("axis")[0] - 'x'));
    int n = 0;
    for (int k = 0; k < ng; k++)
        for (int v = 0; v < nv; v++, n++) {
            config *c = &pts[n];
            *c = (config){.P = P, .Q = Q, .weak = weak, .steps = (int)hpc_opt_int("steps"),
                          .pb = pb, .variant = (ev_variant)var[v], .gamma = gamma, .cfl = cfl};
            int z[3] = {g[k].x, g[k].y, g[k].z};
            for (int a = 0; a < 3; a++)
                c->ng[a] = z[a] * f[a];
            check_grid(c);
            double b = hpc_opt_double("l1-bound");
            c->l1_bound = b > 0 ? b : pb == EV_BLAST ? 0 : l1_bound(c->ng[pb - EV_SOD_X]);
        }
    return n;
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "evh1",
             "EVH1-like hydrodynamics: Lagrangian PPM sweeps, remaps, pencil transposes.",
             options, MPI_THREAD_SINGLE);
    config pts[MAXPTS];
    int n = parse(pts);

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    for (int k = 0; k < n; k++)
        run_point(&pts[k]);

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
