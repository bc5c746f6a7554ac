/* hydro.c - a SAGE-like compressible hydrodynamics proxy: the cell rate (cell updates per
 * second) of a finite-volume Euler solver on a block of cells per rank, as the EV7 study
 * judged machines with SAGE (cells/s vs cells per rank; weak scaling at 13,500 cells/rank).
 *
 * The scheme (lib/hydro_scheme.h): 3-D Euler equations of an ideal gas (--gamma), dimensionally
 * split MUSCL-Hancock with MC-limited primitive slopes and the HLLC Riemann solver, second order
 * by alternating the sweep order; time step dt = CFL / max over cells and directions of
 * (|u_d| + c) / h_d, the global minimum by MPI_Allreduce; one halo exchange of 2 ghost layers a
 * step on a P x Q x R process grid (lib/hydro_comm.h). The domain is the unit cube; periodic
 * everywhere, except Sod's x (outflow).
 *
 * A point: a block per rank (--cells, weak scaling) or a global grid (--grid, strong scaling)
 * on the process grid --npe (default MPI_Dims_create's). A sample: --steps steps from the
 * initial state (set up untimed) after a barrier; the slowest rank's time.
 *
 * Checks, outside the timing, before the samples of every point (lib/hydro_problem.h):
 *   periodic  --steps steps of the smooth periodic state: the totals of mass, momentum and
 *             energy change by at most 1e-12 of the sum of their magnitudes;
 *   sod       Sod's tube to t = 0.2: the L1 error of density against Toro's exact solution
 *             (lib/hydro_exact.h) below a bound that shrinks with nx (l1_bound below).
 * The state must be finite after the check run and after the last sample. --inject corrupt
 * adds 0.1 to every density before the checks: they must fail.
 *
 * Metrics: time per step (us), cell updates per second in all and per rank; per-rank phases
 * (compute; halo and dt: MPI; pack: the halo's copies), wall time and flops per step in the
 * step_time record (flops as lib/hydro_scheme.h counts them, per interior cell update).
 */
#include "harness.h"
#include "lib/hydro_comm.h"
#include "lib/hydro_exact.h"
#include "lib/hydro_problem.h"
#include "lib/hydro_scheme.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "cells", .type = HPC_GRIDS, .dims = 3, .what = "NXxNYxNZ", .def = "30x30x15",
     .help = "cells per rank, comma-separated (weak scaling; SAGE's 13,500 is 30x30x15)"},
    {.name = "grid", .type = HPC_GRIDS, .dims = 3, .what = "NXxNYxNZ", .def = "",
     .help = "global grids, comma-separated (strong scaling; replaces --cells)"},
    {.name = "npe", .type = HPC_GRIDS, .dims = 3, .what = "PxQxR", .def = "",
     .help = "process grid (product = ranks; empty: MPI_Dims_create's)"},
    {.name = "problem", .type = HPC_CHOICE, .def = "periodic", .choices = "periodic|sod",
     .help = "periodic: smooth state, conservation check; sod: shock tube along x, exact check"},
    {.name = "steps", .type = HPC_INT, .def = "10", .min = 1, .max = 1000000,
     .help = "time steps per sample (and of the periodic check run)"},
    {.name = "gamma", .type = HPC_DOUBLE, .def = "1.4", .min = 1, .max = 10,
     .help = "ratio of specific heats, > 1"},
    {.name = "cfl", .type = HPC_DOUBLE, .def = "0.8", .min = 0, .max = 1,
     .help = "Courant number, in (0, 1]"},
    {.name = "l1-bound", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 10,
     .help = "largest L1 density error of sod (0: the default bound for the grid's nx)"},
    {0}};

static const hpc_phase_def PHASES[HY_NPH] = {[HY_PH_COMPUTE] = {"compute", HPC_KIND_COMPUTE},
                                             [HY_PH_HALO] = {"halo", HPC_KIND_COMM},
                                             [HY_PH_DT] = {"dt", HPC_KIND_COMM},
                                             [HY_PH_PACK] = {"pack", HPC_KIND_COPY}};
static const char *const PROBLEMS[] = {[HY_SOD] = "sod", [HY_PERIODIC] = "periodic"};

#define MAXPTS 64
static const double SOD_T = 0.2;          /* Sod's end time: the waves stay inside [0, 1] */
static const double CONS_BOUND = 1e-12;   /* relative change of a conserved total */
static const double MAX_BLOCK = 2e7;      /* cells per rank with ghosts: 0.8 GB of state */

typedef struct {
    int ng[3], nb[3], P[3], weak;
    hy_problem pb;
    double gamma, cfl, l1_bound;
    int steps;
} config;

typedef struct {
    const config *cf;
    hy_block b;
    hy_comm c;
    hpc_phases ph;
    int origin[3];
} run;

typedef struct {
    double change[3];  /* periodic: relative change of mass, momentum (largest), energy */
    double l1;         /* sod */
    int steps;         /* of the check run */
} verdict;

/* A grid list option (the harness parses NXxNYxNZ); at most MAXPTS, each at most 2^24. */
static int grid_list(const char *opt, int (*g)[3])
{
    const hpc_grid *given;
    int n = hpc_opt_grids(opt, &given);
    hpc_usage_check(n > MAXPTS, "option --%s: %d grids, at most %d", opt, n, MAXPTS);
    for (int k = 0; k < n; k++) {
        hpc_usage_check(given[k].x > (1 << 24) || given[k].y > (1 << 24) || given[k].z > (1 << 24),
                        "option --%s: %dx%dx%d: at most 2^24 cells along an axis", opt,
                        given[k].x, given[k].y, given[k].z);
        g[k][0] = given[k].x, g[k][1] = given[k].y, g[k][2] = given[k].z;
    }
    return n;
}

/* The default bound of Sod's L1 density error at nx cells: 1.5x the error measured at 100
 * cells (4.81e-3), shrinking as nx^-0.9. The measured error falls as nx^-0.98 from 100 to
 * 400 cells and nx^-0.84 from 400 to 800 (a shock and a contact make the scheme first order
 * in L1), so the bound is 1.4-1.6x the error from 50 to 800 cells (docs/apps_hydro.md). */
static double l1_bound(int nx)
{
    return 1.5 * 4.81e-3 * pow(100.0 / nx, 0.9);
}

/* Up to nsteps steps from time *t, stopping at t_end when t_end > 0 (the last step shortened
 * to land on it); the number taken. Phases: compute, dt (the reduction), pack/halo. */
static int advance(run *r, int nsteps, double t_end, double *t)
{
    int s = 0;
    for (; s < nsteps && !(t_end > 0 && *t >= t_end); s++) {
        hpc_phase_to(&r->ph, HY_PH_COMPUTE);
        double rate = hy_max_rate(&r->b);
        double dt = rate > 0 ? r->cf->cfl / rate : INFINITY;
        hpc_phase_to(&r->ph, HY_PH_DT);
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        if (!(dt > 0 && dt < INFINITY))
            hpc_fail("hydro: step %d: the time step is %g (a state without a finite signal "
                     "speed)", s, dt);
        if (t_end > 0 && *t + dt > t_end)
            dt = t_end - *t;
        hy_exchange(&r->c, &r->b, &r->ph);
        hpc_phase_to(&r->ph, HY_PH_COMPUTE);
        hy_step(&r->b, dt, s);
        *t += dt;
    }
    hpc_phases_stop(&r->ph);
    return s;
}

static void start(run *r)
{
    hy_init(&r->b, r->cf->pb, r->origin, r->cf->ng);
}

/* Collective: every rank's state finite, else rank 0 fails naming the first bad rank. */
static void check_finite(const run *r, const char *when)
{
    int who = hy_first_nonfinite(&r->b) >= 0 ? hpc_rank : hpc_nranks, low;
    MPI_Allreduce(&who, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (hpc_rank == 0 && low < hpc_nranks)
        hpc_fail("hydro: %s: rank %d has a non-finite state", when, low);
}

/* Global totals of the conserved fields and of their magnitudes. */
static void totals(const run *r, double tot[HY_NV], double mag[HY_NV])
{
    double both[2 * HY_NV];
    hy_totals(&r->b, both, both + HY_NV);
    MPI_Allreduce(MPI_IN_PLACE, both, 2 * HY_NV, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    memcpy(tot, both, sizeof(double) * HY_NV);
    memcpy(mag, both + HY_NV, sizeof(double) * HY_NV);
}

/* The check run of a point (collective; the failure is rank 0's). */
static verdict verify(run *r)
{
    const config *cf = r->cf;
    verdict v = {{0, 0, 0}, 0, 0};
    double t = 0, tot0[HY_NV], mag0[HY_NV], tot1[HY_NV], mag1[HY_NV];
    start(r);
    totals(r, tot0, mag0);
    v.steps = advance(r, cf->pb == HY_SOD ? 1000000 : cf->steps, cf->pb == HY_SOD ? SOD_T : 0, &t);
    if (hpc_inject == HPC_INJECT_CORRUPT)
        hy_corrupt(&r->b);
    check_finite(r, "after the check run");
    if (cf->pb == HY_PERIODIC) {
        totals(r, tot1, mag1);
        for (int q = 0; q < HY_NV; q++) {
            double ch = fabs(tot1[q] - tot0[q]) / mag0[q];
            int k = q == HY_RHO ? 0 : q == HY_E ? 2 : 1;
            v.change[k] = fmax(v.change[k], ch);
            if (hpc_rank == 0)
                hpc_check_bound(ch, CONS_BOUND, "hydro: periodic, %d steps: the total of "
                                "conserved field %d changed (relative to its magnitude)", v.steps, q);
        }
        return v;
    }
    hy_riemann rs;
    if (hy_riemann_solve(&rs, HY_SOD_LEFT, HY_SOD_RIGHT, cf->gamma))
        hpc_fail("hydro: the exact Riemann solver failed on Sod's data");
    double sum = hy_sod_l1_sum(&r->b, &rs, r->origin, cf->ng, t);
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    v.l1 = sum / ((double)cf->ng[0] * cf->ng[1] * cf->ng[2]);
    if (hpc_rank == 0)
        hpc_check_bound(v.l1, cf->l1_bound, "hydro: sod, %d cells in x, t = %g: the L1 error "
                        "of density against the exact solution", cf->ng[0], t);
    return v;
}

typedef struct {
    hpc_sampler sm;
    double *step_us, *rate;  /* per kept sample */
    double wall;             /* this rank's time over the kept samples */
    long kept_steps;
} samples;

/* The timed samples of a point. */
static void measure(run *r, samples *m)
{
    const config *cf = r->cf;
    double cells = (double)cf->ng[0] * cf->ng[1] * cf->ng[2];
    hpc_sampler_init(&m->sm, &hpc_reps);
    m->step_us = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    m->rate = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    if (!m->step_us || !m->rate)
        hpc_fail("hydro: no memory for the samples");
    m->wall = 0;
    m->kept_steps = 0;
    hpc_phases_reset(&r->ph);
    while (hpc_sampler_more_coll(&m->sm, MPI_COMM_WORLD)) {
        start(r);
        double t = 0, tmax;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        advance(r, cf->steps, 0, &t);
        double el = hpc_now() - t0;
        if (hpc_phases_sample(&r->ph, &m->sm, el, &m->wall, &tmax)) {
            m->step_us[m->sm.n - 1] = tmax / cf->steps * 1e6;
            m->rate[m->sm.n - 1] = cells * cf->steps / tmax;
            m->kept_steps += cf->steps;
        }
    }
    check_finite(r, "after the last sample");
}

static void params(hpc_json *j, const config *cf)
{
    static const char *const AX[3][2] = {{"nx", "bx"}, {"ny", "by"}, {"nz", "bz"}};
    static const char *const PX[3] = {"P", "Q", "R"};
    for (int d = 0; d < 3; d++)
        hpc_json_int(j, AX[d][0], cf->ng[d]);
    for (int d = 0; d < 3; d++)
        hpc_json_int(j, AX[d][1], cf->nb[d]);
    for (int d = 0; d < 3; d++)
        hpc_json_int(j, PX[d], cf->P[d]);
    hpc_json_str(j, "problem", PROBLEMS[cf->pb]);
    hpc_json_str(j, "scaling", cf->weak ? "weak" : "strong");
}

/* The check's figures, in the step_time record. */
static void verdict_json(hpc_json *j, const config *cf, const verdict *v)
{
    hpc_json_int(j, "check_steps", v->steps);
    if (cf->pb == HY_PERIODIC) {
        hpc_json_num(j, "mass_rel_change", v->change[0]);
        hpc_json_num(j, "momentum_rel_change", v->change[1]);
        hpc_json_num(j, "energy_rel_change", v->change[2]);
        hpc_json_exact(j, "conservation_bound", CONS_BOUND);
    } else {
        hpc_json_exact(j, "l1_density", v->l1);  /* exact: decompositions compare it */
        hpc_json_exact(j, "l1_bound", cf->l1_bound);
        hpc_json_exact(j, "t_end", SOD_T);
    }
}

/* step_time, cell_rate, cell_rate_per_rank: the same samples (collective). */
static void emit(run *r, samples *m, const verdict *v)
{
    const config *cf = r->cf;
    double cells = (double)cf->ng[0] * cf->ng[1] * cf->ng[2], fpc = hy_flops_per_cell();
    double *per_rank = malloc((size_t)(m->sm.n > 0 ? m->sm.n : 1) * sizeof(double));
    for (int k = 0; k < m->sm.n; k++)
        per_rank[k] = m->rate[k] / hpc_nranks;
    static const char *const METRIC[3] = {"step_time", "cell_rate", "cell_rate_per_rank"};
    static const char *const UNIT[3] = {"us", "cells/s", "cells/s"};
    const double *data[3] = {m->step_us, m->rate, per_rank};
    for (int k = 0; k < 3; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], m->sm.n, &st);
        hpc_json j;
        hpc_result_begin(&j, METRIC[k], UNIT[k], "median", k ? "higher" : "lower");
        params(&j, cf);
        hpc_result_stats(&j, &st, m->sm.converged);
        hpc_json_int(&j, "steps_per_sample", cf->steps);
        hpc_json_exact(&j, "cells", cells);
        hpc_json_int(&j, "bytes_per_rank", (long long)hy_block_bytes(cf->nb));
        hpc_json_exact(&j, "gamma", cf->gamma);
        hpc_json_exact(&j, "cfl", cf->cfl);
        if (k == 0) {
            /* per step, over every kept sample (collective) */
            hpc_phases_json(&j, &r->ph, 1e6 / (double)m->kept_steps, MPI_COMM_WORLD);
            hpc_json_per_rank(&j, "wall_per_rank", m->wall / (double)m->kept_steps * 1e6,
                              MPI_COMM_WORLD);
            hpc_json_per_rank(&j, "flops_per_rank",
                              fpc * cf->nb[0] * cf->nb[1] * cf->nb[2], MPI_COMM_WORLD);
            hpc_json_exact(&j, "serial_flops", fpc * cells);
            hpc_json_exact(&j, "flops_per_cell_update", fpc);
            verdict_json(&j, cf, v);
        }
        hpc_json_emit(&j);
    }
    free(per_rank);
}

static void run_point(const config *cf)
{
    run r = {.cf = cf};
    double h[3];
    for (int d = 0; d < 3; d++)
        h[d] = 1.0 / cf->ng[d];
    int periodic[3] = {cf->pb != HY_SOD, 1, 1};
    if (hy_block_init(&r.b, cf->nb, h, cf->gamma) || hy_comm_init(&r.c, cf->P, periodic,
                                                                  hpc_rank, &r.b))
        hpc_fail("hydro: no memory for a %dx%dx%d block", cf->nb[0], cf->nb[1], cf->nb[2]);
    for (int d = 0; d < 3; d++)
        r.origin[d] = r.c.coord[d] * cf->nb[d];
    hpc_phases_init(&r.ph, PHASES, HY_NPH);
    verdict v = verify(&r);
    samples m;
    measure(&r, &m);
    emit(&r, &m, &v);
    free(m.step_us);
    free(m.rate);
    hpc_sampler_free(&m.sm);
    hy_comm_free(&r.c);
    hy_block_free(&r.b);
}

/* The process grid: --npe, or MPI_Dims_create's for the rank count. */
static void process_grid(int P[3])
{
    int g[MAXPTS][3];
    int n = grid_list("npe", g);
    hpc_usage_check(n > 1, "option --npe: '%s': one process grid", hpc_opt_str("npe"));
    if (n == 0) {
        P[0] = P[1] = P[2] = 0;
        MPI_Dims_create(hpc_nranks, 3, P);
        return;
    }
    P[0] = g[0][0], P[1] = g[0][1], P[2] = g[0][2];
    long long ranks = (long long)P[0] * P[1] * P[2];
    hpc_usage_check(ranks != hpc_nranks, "option --npe: %dx%dx%d is %lld ranks, not the %d "
                    "running", P[0], P[1], P[2], ranks, hpc_nranks);
}

/* The options to the points of the sweep (a bad one: usage error, exit 2); the count. */
static int parse(config *pts)
{
    double gamma = hpc_opt_double("gamma"), cfl = hpc_opt_double("cfl");
    hpc_usage_check(!(gamma > 1), "option --gamma: %g is not above 1", gamma);
    hpc_usage_check(!(cfl > 0), "option --cfl: %g is not in (0, 1]", cfl);
    int P[3], g[MAXPTS][3], weak = hpc_opt_str("grid")[0] == '\0';
    process_grid(P);
    int n = grid_list(weak ? "cells" : "grid", g);
    hpc_usage_check(n == 0, "option --cells: no grid given");
    for (int k = 0; k < n; k++) {
        config *c = &pts[k];
        *c = (config){.weak = weak, .gamma = gamma, .cfl = cfl,
                      .steps = (int)hpc_opt_int("steps"),
                      .pb = strcmp(hpc_opt_str("problem"), "sod") ? HY_PERIODIC : HY_SOD};
        for (int d = 0; d < 3; d++) {
            hpc_usage_check(!weak && g[k][d] % P[d] != 0, "option --grid: %dx%dx%d does not "
                            "divide into the %dx%dx%d process grid", g[k][0], g[k][1], g[k][2],
                            P[0], P[1], P[2]);
            c->P[d] = P[d];
            c->nb[d] = weak ? g[k][d] : g[k][d] / P[d];
            c->ng[d] = weak ? g[k][d] * P[d] : g[k][d];
        }
        hpc_usage_check(c->nb[0] < HY_G || c->nb[1] < HY_G || c->nb[2] < HY_G,
                        "hydro: a block of %dx%dx%d cells per rank: every side needs at least "
                        "%d (the ghost layers)", c->nb[0], c->nb[1], c->nb[2], HY_G);
        double with_ghosts = 1;
        for (int d = 0; d < 3; d++)
            with_ghosts *= c->nb[d] + 2.0 * HY_G;
        hpc_usage_check(with_ghosts > MAX_BLOCK, "hydro: a block of %dx%dx%d cells per rank is "
                        "too big (%g cells with ghosts, at most %g)", c->nb[0], c->nb[1],
                        c->nb[2], with_ghosts, MAX_BLOCK);
        double b = hpc_opt_double("l1-bound");
        c->l1_bound = b > 0 ? b : l1_bound(c->ng[0]);
    }
    return n;
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "hydro",
             "SAGE-like compressible hydrodynamics: MUSCL-Hancock + HLLC cell rate.", options,
             MPI_THREAD_SINGLE);
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
