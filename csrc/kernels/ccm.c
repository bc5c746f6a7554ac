/* ccm.c - CCM/MP-2D's grid-point side (the ORNL study, section 2.2 and Fig. 7): the physics
 * load balance and the semi-Lagrangian tracer transport on a longitude-latitude grid
 * decomposed into P latitude bands x Q longitude blocks (csrc/kernels/lib/ccm_model.h).
 *
 * A time step (30 minutes):
 *   physics   every column's radiation-like heating; a column in daylight (cos of the solar
 *             zenith angle > 0; equinox, the sun moving west) also computes shortwave
 *             absorption between every pair of levels, so a block on the day side costs
 *             several times one on the night side. --balances swap: "each processor swaps
 *             half of its grid points with the processor in the same row holding grid points
 *             that are 180 degrees away, swapping them back when the physics computations are
 *             complete" (the odd local longitudes; Q even).
 *   tracer    shape-preserving semi-Lagrangian advection of one tracer per level by a
 *             steady wind (solid rotation, 40 m/s at the equator, and a 10 m/s meridional
 *             wave): departure points by two midpoint iterations, a halo of the longest
 *             trajectory plus the bicubic stencil, filled north/south then east/west, the
 *             value clipped to the four points around the departure point, then a global mass
 *             fixer (an allreduce of every level's mass).
 * Phases (the overhead breakdown's, Fig. 7): physics and advect (computation), swap and halo
 * (MPI), swap_copy and halo_copy (packing), fixer (the allreduce).
 *
 * Verification, outside the timed region, after the last sample: the tracer and temperature
 * of every point against a run of the same steps on one rank (rank 0, MPI_COMM_SELF, no swap),
 * to 1e-11 of each field's largest value (the fixer's sums differ in order only); each
 * level's tracer mass against its start to 1e-12 (a run that loses or gains mass fails).
 */
#include "harness.h"
#include "lib/ccm_model.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "nlon", .type = HPC_INT, .def = "128", .min = 8, .max = 1 << 16,
     .help = "longitudes"},
    {.name = "nlat", .type = HPC_INT, .def = "64", .min = 4, .max = 1 << 15,
     .help = "latitudes"},
    {.name = "levels", .type = HPC_INT, .def = "18", .min = 1, .max = CCM_MAXLEV,
     .help = "levels per column (CCM2: 18)"},
    {.name = "steps", .type = HPC_INT, .def = "4", .min = 1, .max = 100000,
     .help = "time steps per sample (and of the one-rank check)"},
    {.name = "npe", .type = HPC_GRIDS, .dims = 2, .what = "PxQ", .def = "",
     .help = "process grid, P latitude bands x Q longitude blocks (empty: Q the smallest even "
             "factor of the ranks at least their square root, else MPI_Dims_create's)"},
    {.name = "balances", .type = HPC_CHOICES, .def = "none,swap", .all = 1,
     .choices = "none|swap",
     .help = "physics load balance, a point each: none, or swap half the columns with the "
             "block 180 degrees away (needs Q even)"},
    {0}};

static const hpc_phase_def PHASES[CCM_NPH] = {
    [CCM_PH_PHYSICS] = {"physics", HPC_KIND_COMPUTE},
    [CCM_PH_SWAP_COPY] = {"swap_copy", HPC_KIND_COPY},
    [CCM_PH_SWAP] = {"swap", HPC_KIND_COMM},
    [CCM_PH_HALO_COPY] = {"halo_copy", HPC_KIND_COPY},
    [CCM_PH_HALO] = {"halo", HPC_KIND_COMM},
    [CCM_PH_ADVECT] = {"advect", HPC_KIND_COMPUTE},
    [CCM_PH_FIXER] = {"fixer", HPC_KIND_COMM}};
static const char *const BALANCES[2] = {"none", "swap"};
static const double FIELD_TOL = 1e-11, MASS_TOL = 1e-12;

typedef struct {
    hpc_sampler sm;
    double *step_us, *imbalance;  /* per kept sample */
    double wall;                  /* this rank's time over the kept samples */
    long kept_steps;
} samples;

/* Physics time's largest rank over the mean, less 1, in % (collective). */
static double physics_imbalance(double mine)
{
    double most, sum;
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum > 0 ? 100.0 * (most / (sum / hpc_nranks) - 1.0) : 0.0;
}

static void measure(ccm_state *s, hpc_phases *ph, int steps, samples *m)
{
    size_t bytes = (size_t)hpc_reps.max_reps * sizeof(double);
    hpc_sampler_init(&m->sm, &hpc_reps);
    m->step_us = malloc(bytes), m->imbalance = malloc(bytes);
    if (!m->step_us || !m->imbalance)
        hpc_fail("ccm: no memory for the samples");
    m->wall = 0, m->kept_steps = 0;
    hpc_phases_reset(ph);
    while (hpc_sampler_more_coll(&m->sm, MPI_COMM_WORLD)) {
        double tmax, phys0 = ph->total[CCM_PH_PHYSICS];
        ccm_init(s);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        for (int k = 0; k < steps; k++)
            ccm_step(s);
        hpc_phases_stop(ph);
        double el = hpc_now() - t0;
        double imb = physics_imbalance(ph->total[CCM_PH_PHYSICS] - phys0);
        if (hpc_phases_sample(ph, &m->sm, el, &m->wall, &tmax)) {
            m->step_us[m->sm.n - 1] = tmax / steps * 1e6;
            m->imbalance[m->sm.n - 1] = imb;
            m->kept_steps += steps;
        }
    }
}

/* This rank's interior, tracer then temperature, [k][j][i] both. */
static void pack_state(const ccm_state *s, double *out)
{
    const ccm_grid *g = s->g;
    size_t n = 0;
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < g->nlev; k++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < g->nx; i++)
                    out[n++] = f ? ccm_T(s, i, j, k) : ccm_q(s, i, j, k);
}

/* Every level's mass against its start, to MASS_TOL (collective). */
static void check_mass(const ccm_state *s, const char *what)
{
    double m[CCM_MAXLEV];
    ccm_mass(s, m);
    for (int k = 0; k < s->g->nlev; k++)
        hpc_check_bound(fabs(m[k] - s->mass0[k]) / s->mass0[k], MASS_TOL,
                        "ccm %s: level %d's tracer mass %.17g against %.17g at the start "
                        "(relative change)", what, k, m[k], s->mass0[k]);
}

/* Rank 0: the same steps on one rank; each field's largest difference against its largest
 * value, to FIELD_TOL. `all` holds every rank's pack_state in rank order. */
static void check_against_one_rank(const ccm_grid *g, const double *all, int steps,
                                   const char *balance)
{
    ccm_grid rg;
    ccm_state r;
    hpc_phases ph;
    hpc_phases_init(&ph, PHASES, CCM_NPH);
    if (ccm_grid_init(&rg, g->nlon, g->nlat, g->nlev, 1, 1, MPI_COMM_SELF))
        hpc_fail("ccm: the one-rank check's grid");
    ccm_state_init(&r, &rg, 0, &ph);
    ccm_init(&r);
    for (int k = 0; k < steps; k++)
        ccm_step(&r);
    hpc_phases_stop(&ph);
    check_mass(&r, "one-rank check");
    size_t block = (size_t)2 * g->nlev * g->nx * g->ny;
    for (int f = 0; f < 2; f++) {
        double big = 0.0, diff = 0.0;
        for (int rank = 0; rank < hpc_nranks; rank++)
            for (size_t n = 0; n < block / 2; n++) {
                int i = (int)(n % g->nx), j = (int)(n / g->nx % g->ny);
                int k = (int)(n / ((size_t)g->nx * g->ny));
                int gi = rank % g->Q * g->nx + i, gj = rank / g->Q * g->ny + j;
                double ref = f ? ccm_T(&r, gi, gj, k) : ccm_q(&r, gi, gj, k);
                double d = fabs(all[rank * block + f * block / 2 + n] - ref);
                big = fmax(big, fabs(ref));
                diff = isnan(d) || d > diff ? d : diff;
            }
        hpc_check_bound(diff / big, FIELD_TOL, "ccm %s on %dx%d: the %s against one rank's "
                        "(largest difference over the largest value)", balance, g->P, g->Q,
                        f ? "temperature" : "tracer");
    }
    ccm_state_free(&r);
}

/* The state after the last sample, checked (collective). */
static void verify(ccm_state *s, int steps, const char *balance)
{
    const ccm_grid *g = s->g;
    size_t block = (size_t)2 * g->nlev * g->nx * g->ny;
    double *mine = malloc(block * sizeof *mine), *all = NULL;
    if (hpc_rank == 0)
        all = malloc(block * hpc_nranks * sizeof *all);
    if (!mine || (hpc_rank == 0 && !all))
        hpc_fail("ccm: no memory for the check");
    if (hpc_inject == HPC_INJECT_CORRUPT && hpc_rank == hpc_nranks - 1) {
        /* two points of one latitude, one up and one down: the mass stays, the field is wrong */
        double *row = s->qh + (size_t)g->hy * (g->nx + 2 * g->hx) + g->hx;
        row[0] += 0.25, row[1] -= 0.25;
    }
    check_mass(s, balance);
    pack_state(s, mine);
    MPI_Gather(mine, (int)block, MPI_DOUBLE, all, (int)block, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (hpc_rank == 0)
        check_against_one_rank(g, all, steps, balance);
    free(mine), free(all);
}

static void params(hpc_json *j, const ccm_grid *g, const char *balance)
{
    hpc_json_int(j, "nlon", g->nlon);
    hpc_json_int(j, "nlat", g->nlat);
    hpc_json_int(j, "levels", g->nlev);
    hpc_json_int(j, "P", g->P);
    hpc_json_int(j, "Q", g->Q);
    hpc_json_str(j, "balance", balance);
}

/* step_time (with the phases) and physics_imbalance, from the same samples (collective). */
static void emit(const ccm_state *s, const char *balance, int steps, hpc_phases *ph,
                 samples *m)
{
    const ccm_grid *g = s->g;
    static const char *const METRIC[2] = {"step_time", "physics_imbalance"};
    static const char *const UNIT[2] = {"us", "%"};
    const double *data[2] = {m->step_us, m->imbalance};
    for (int k = 0; k < 2; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], m->sm.n, &st);
        hpc_json j;
        hpc_result_begin(&j, METRIC[k], UNIT[k], "median", "lower");
        params(&j, g, balance);
        hpc_result_stats(&j, &st, m->sm.converged);
        hpc_json_int(&j, "steps_per_sample", steps);
        hpc_json_int(&j, "halo_x", g->hx);
        hpc_json_int(&j, "halo_y", g->hy);
        if (k == 0) {
            hpc_phases_json(&j, ph, 1e6 / (double)m->kept_steps, MPI_COMM_WORLD);
            hpc_json_per_rank(&j, "wall_per_rank", m->wall / (double)m->kept_steps * 1e6,
                              MPI_COMM_WORLD);
        } else {  /* the work behind it: daylight columns a step, the last sample's */
            hpc_json_per_rank(&j, "day_columns_per_rank", (double)s->day_columns / steps,
                              MPI_COMM_WORLD);
        }
        hpc_json_emit(&j);
    }
}

static void run_point(const ccm_grid *g, int swap, int steps)
{
    hpc_phases ph;
    ccm_state s;
    samples m;
    hpc_phases_init(&ph, PHASES, CCM_NPH);
    ccm_state_init(&s, g, swap, &ph);
    measure(&s, &ph, steps, &m);
    verify(&s, steps, BALANCES[swap]);
    emit(&s, BALANCES[swap], steps, &ph, &m);
    free(m.step_us), free(m.imbalance);
    hpc_sampler_free(&m.sm);
    ccm_state_free(&s);
}

/* --npe, or Q the smallest even factor of n at least sqrt(n) (a swap partner for every block),
 * else MPI_Dims_create's. */
static void process_grid(int *P, int *Q)
{
    const hpc_grid *given;
    int n = hpc_opt_grids("npe", &given), d[2] = {0, 0};
    hpc_usage_check(n > 1, "option --npe: '%s': one process grid", hpc_opt_str("npe"));
    if (n) {
        *P = given[0].x, *Q = given[0].y;
        hpc_usage_check((long)*P * *Q != hpc_nranks, "option --npe: %dx%d is %ld ranks, not the "
                        "%d running", *P, *Q, (long)*P * *Q, hpc_nranks);
        return;
    }
    for (int q = 2; q <= hpc_nranks; q += 2)
        if (hpc_nranks % q == 0 && (long)q * q >= hpc_nranks) {
            *P = hpc_nranks / q, *Q = q;
            return;
        }
    MPI_Dims_create(hpc_nranks, 2, d);
    *P = d[0], *Q = d[1];
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "ccm",
             "CCM/MP-2D's grid-point side: physics load balance (180-degree swap) and "
             "semi-Lagrangian tracer transport.", options, MPI_THREAD_SINGLE);
    int P, Q, steps = (int)hpc_opt_int("steps");
    process_grid(&P, &Q);
    ccm_grid g;
    const char *bad = ccm_grid_init(&g, (int)hpc_opt_int("nlon"), (int)hpc_opt_int("nlat"),
                                    (int)hpc_opt_int("levels"), P, Q, MPI_COMM_WORLD);
    hpc_usage_check(bad != NULL, "ccm: %dx%d points on %dx%d ranks (halo %dx%d): %s",
                    g.nlon, g.nlat, P, Q, g.hx, g.hy, bad ? bad : "");
    hpc_usage_check(2.0 * g.nlon * g.nlat * g.nlev > INT_MAX, "ccm: %dx%dx%d: the one-rank "
                    "check gathers both fields of the whole grid, at most 2^31 values",
                    g.nlon, g.nlat, g.nlev);
    const long long *bal;
    int nb = hpc_opt_list("balances", &bal);
    for (int b = 0; b < nb; b++)
        hpc_usage_check(bal[b] == 1 && Q % 2, "ccm: --balances swap needs Q even, %dx%d given "
                        "(no block is 180 degrees from another)", P, Q);
    hpc_begin(1, NULL);
    hpc_inject_first_point();
    for (int b = 0; b < nb; b++)
        run_point(&g, (int)bal[b], steps);
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
