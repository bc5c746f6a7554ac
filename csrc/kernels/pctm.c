/* pctm.c - coupled climate components sharing the processors, as PCTM (p690 talk): the
 * spectral atmosphere (psst's shallow water model on a P x Q grid of its ranks), the ocean
 * (POP's barotropic solve on 2-D blocks), land and sea-ice column kernels (columns dealt
 * cyclically), and a coupler that regrids conservatively between the atmosphere's Gaussian
 * grid and the ocean's grid and redistributes fields between the decompositions
 * (lib/pctm_model.h describes an interval, lib/pctm_regrid.h the regridding).
 *
 * Layouts (both measured, --layouts):
 *   sequential  every component on every rank, one after another;
 *   concurrent  the ocean on ranks [0, k), the atmosphere, land and ice on [k, n), at the same
 *               time; k (--ocean-ranks, 0: balanced) minimises the larger group's time,
 *               estimated from each component's work (time x ranks) in the sequential layout
 *               (measured there, or in one untimed calibration integration).
 * Parameters: the coupling interval (--hours) and each component's steps per interval.
 *
 * A sample: one integration of --days (whole coupling intervals) from the initial states,
 * after a barrier; the slowest rank's time. Checks after every integration, outside the
 * timing: each regridding's global integral on the source and the destination grids, per
 * interval, equal to round-off (1e-12 of the integral of |F|); the atmosphere's height
 * against test case 2 (steady); the ocean's volume budget against the solver's tolerance; the
 * column kernels against their long-double reference once at set-up, finite after. Any
 * failure: an error record, exit 1.
 *
 * Metrics per layout: simulated years per day (the headline), seconds per integration with
 * each rank's time per component and in the coupler (phases: atmosphere, ocean, land, ice,
 * regrid, coupler) in seconds per simulated day.
 */
#include "harness.h"
#include "lib/pctm_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "truncation", .type = HPC_INT, .def = "21", .min = 5, .max = 170,
     .help = "the atmosphere's triangular truncation M"},
    {.name = "ocean", .type = HPC_GRIDS, .def = "96x64", .what = "NXxNY",
     .help = "the ocean's grid NXxNY (one)"},
    {.name = "land", .type = HPC_CHOICE, .def = "continents", .choices = "none|continents",
     .help = "the ocean's land mask"},
    {.name = "hours", .type = HPC_DOUBLE, .def = "6", .min = 0.25, .max = 240,
     .help = "coupling interval (simulated hours)"},
    {.name = "atm-steps", .type = HPC_INT, .def = "6", .min = 1, .max = 10000,
     .help = "atmosphere steps per coupling interval"},
    {.name = "ocn-steps", .type = HPC_INT, .def = "2", .min = 1, .max = 10000,
     .help = "ocean (barotropic) steps per coupling interval"},
    {.name = "land-steps", .type = HPC_INT, .def = "6", .min = 0, .max = 10000,
     .help = "land column steps per coupling interval"},
    {.name = "ice-steps", .type = HPC_INT, .def = "6", .min = 0, .max = 10000,
     .help = "sea-ice column steps per coupling interval"},
    {.name = "levels", .type = HPC_INT, .def = "18", .min = 2, .max = 200,
     .help = "levels of the land and ice columns"},
    {.name = "days", .type = HPC_DOUBLE, .def = "1", .min = 0.01, .max = 365,
     .help = "simulated days per integration (whole coupling intervals)"},
    {.name = "layouts", .type = HPC_CHOICES, .def = "sequential,concurrent",
     .choices = "sequential|concurrent", .all = 1, .help = "layouts: sequential, concurrent"},
    {.name = "ocean-ranks", .type = HPC_INT, .def = "0", .min = 0, .max = 1 << 20,
     .help = "concurrent layout: the ocean's ranks (0: balanced)"},
    {.name = "tol", .type = HPC_DOUBLE, .def = "1e-10", .min = 1e-14, .max = 1e-4,
     .help = "the ocean solver's relative residual"},
    {0}};

typedef struct {
    pctm_config cf;
    double days;
    int intervals, layouts[2], nlayouts, ocean_ranks;
} opts;

static const char *const LAYOUTS[2] = {"sequential", "concurrent"};

static void parse_config(pctm_config *cf)
{
    cf->M = (int)hpc_opt_int("truncation");
    const hpc_grid *g;
    int ng = hpc_opt_grids("ocean", &g);
    hpc_usage_check(ng != 1, "option --ocean: one grid NXxNY, not %d", ng);
    cf->nx = g[0].x;
    cf->ny = g[0].y;
    hpc_usage_check(cf->nx < 8 || cf->ny < 8 || cf->nx > 8192 || cf->ny > 8192,
                    "option --ocean: %dx%d is outside 8x8 .. 8192x8192", cf->nx, cf->ny);
    cf->land = strcmp(hpc_opt_str("land"), "none") == 0 ? POP_LAND_NONE : POP_LAND_CONTINENTS;
    cf->hours = hpc_opt_double("hours");
    cf->atm_steps = (int)hpc_opt_int("atm-steps");
    cf->ocn_steps = (int)hpc_opt_int("ocn-steps");
    cf->land_steps = (int)hpc_opt_int("land-steps");
    cf->ice_steps = (int)hpc_opt_int("ice-steps");
    cf->nlev = (int)hpc_opt_int("levels");
    cf->tol = hpc_opt_double("tol");
    int nlon = 0, nlat = 0;
    const char *bad = sst_check_args(cf->M, &nlon, &nlat, 1);
    hpc_usage_check(bad != NULL, "pctm: %s", bad ? bad : "");
    double dt = pctm_atm_dt(cf), dtmax = pctm_atm_dt_max(cf->M);
    hpc_usage_check(dt > dtmax * (1 + 1e-12), "pctm: %d atmosphere steps per %g h are steps of "
                    "%g s, beyond T%d's stable %g s (more --atm-steps)", cf->atm_steps,
                    cf->hours, dt, cf->M, dtmax);
}

/* Every layout asked for must fit the ranks: one line and exit 2 before anything runs. */
static void parse(opts *o)
{
    parse_config(&o->cf);
    o->days = hpc_opt_double("days");
    double n = o->days * 24.0 / o->cf.hours;
    o->intervals = (int)llround(n);
    hpc_usage_check(o->intervals < 1 || fabs(n - o->intervals) > 1e-9 * n,
                    "pctm: --days %g is not a whole number of %g h coupling intervals", o->days,
                    o->cf.hours);
    const long long *idx;
    o->nlayouts = hpc_opt_list("layouts", &idx);
    for (int k = 0; k < o->nlayouts; k++)
        o->layouts[k] = (int)idx[k];
    o->ocean_ranks = (int)hpc_opt_int("ocean-ranks");
    int P, Q, n_ = hpc_nranks;
    const pctm_config *cf = &o->cf;
    hpc_usage_check(!pctm_atm_grid(cf->M, n_, &P, &Q) || !pctm_ocn_grid(cf->nx, cf->ny, n_, &P, &Q),
                    "pctm: %d ranks do not divide T%d's atmosphere or the %dx%d ocean", n_,
                    cf->M, cf->nx, cf->ny);
    for (int k = 0; k < o->nlayouts; k++)
        hpc_usage_check(o->layouts[k] == 1 && n_ < 2, "pctm: the concurrent layout needs at "
                        "least 2 ranks (have %d)", n_);
    int k0 = o->ocean_ranks;
    hpc_usage_check(k0 && (k0 >= n_ || !pctm_atm_grid(cf->M, n_ - k0, &P, &Q)
                           || !pctm_ocn_grid(cf->nx, cf->ny, k0, &P, &Q)),
                    "pctm: --ocean-ranks %d does not split %d ranks into an ocean and an "
                    "atmosphere that fit", k0, n_);
}

static pctm_split split_of(const pctm_config *cf, int nocn, int concurrent)
{
    pctm_split s = {.nocn = nocn, .a0 = concurrent ? nocn : 0,
                    .natm = concurrent ? hpc_nranks - nocn : hpc_nranks};
    pctm_atm_grid(cf->M, s.natm, &s.atmP, &s.atmQ);
    pctm_ocn_grid(cf->nx, cf->ny, s.nocn, &s.ocnP, &s.ocnQ);
    return s;
}

/* One layout's measurement. */
typedef struct {
    hpc_sampler sm;
    double wall, checks[4], busy[PCTM_NPH];  /* busy: the slowest rank's seconds per day */
    double iters_per_step;
    long land_columns, ice_columns;
} point;

/* The integrations until the sampler has enough, each checked. */
static void measure(pctm_model *m, const opts *o, point *pt)
{
    hpc_sampler_init(&pt->sm, &hpc_reps);
    pt->wall = 0;
    hpc_phases_reset(&m->ph);
    while (hpc_sampler_more_coll(&pt->sm, MPI_COMM_WORLD)) {
        pctm_model_start(m);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now(), tmax;
        hpc_phases_start(&m->ph, PCTM_PH_ATM);
        for (int k = 0; k < o->intervals; k++)
            pctm_model_interval(m);
        hpc_phases_stop(&m->ph);
        hpc_phases_sample(&m->ph, &pt->sm, hpc_now() - t0, &pt->wall, &tmax);
        pctm_model_check(m, pt->checks);
    }
    double scale = 1.0 / ((double)pt->sm.n * o->days);
    for (int k = 0; k < PCTM_NPH; k++)
        pt->busy[k] = m->ph.total[k] * scale;
    MPI_Allreduce(MPI_IN_PLACE, pt->busy, PCTM_NPH, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double it[2] = {(double)m->ocn.iters, (double)m->ocn.steps};
    MPI_Bcast(it, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    pt->iters_per_step = it[1] > 0 ? it[0] / it[1] : 0;
    long cols[2] = {m->land.ncols, m->ice.ncols};
    MPI_Allreduce(MPI_IN_PLACE, cols, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    pt->land_columns = cols[0];
    pt->ice_columns = cols[1];
}

/* The balanced split: the ocean's ranks k minimising the larger group's estimated time, the
 * work of each component (seconds x ranks) taken from the sequential layout. */
static int balanced(const opts *o, const double busy[PCTM_NPH])
{
    int n = hpc_nranks, best = 0, P, Q;
    double wo = busy[PCTM_PH_OCN] * n, bestt = INFINITY;
    double wa = (busy[PCTM_PH_ATM] + busy[PCTM_PH_LAND] + busy[PCTM_PH_ICE]) * n;
    for (int k = 1; k < n; k++) {
        if (!pctm_atm_grid(o->cf.M, n - k, &P, &Q) || !pctm_ocn_grid(o->cf.nx, o->cf.ny, k, &P, &Q))
            continue;
        double t = fmax(wo / k, wa / (n - k));
        if (t < bestt)
            bestt = t, best = k;
    }
    if (!best)
        hpc_usage_error("pctm: no split of %d ranks fits T%d's atmosphere and the %dx%d ocean",
                        n, o->cf.M, o->cf.nx, o->cf.ny);
    return best;
}

static void emit_params(hpc_json *r, const opts *o, const pctm_model *m, int layout)
{
    const pctm_config *cf = &o->cf;
    const pctm_split *s = &m->sp;
    hpc_json_str(r, "layout", LAYOUTS[layout]);
    hpc_json_int(r, "ranks", hpc_nranks);
    hpc_json_int(r, "truncation", cf->M);
    hpc_json_int(r, "nx", cf->nx);
    hpc_json_int(r, "ny", cf->ny);
    hpc_json_str(r, "land", cf->land ? "continents" : "none");
    hpc_json_exact(r, "hours", cf->hours);
    hpc_json_int(r, "atm_steps", cf->atm_steps);
    hpc_json_int(r, "ocn_steps", cf->ocn_steps);
    hpc_json_int(r, "land_steps", cf->land_steps);
    hpc_json_int(r, "ice_steps", cf->ice_steps);
    hpc_json_int(r, "levels", cf->nlev);
    hpc_json_exact(r, "days", o->days);
    hpc_json_int(r, "ocean_ranks", s->nocn);
    hpc_json_int(r, "atm_ranks", s->natm);
}

static void emit_extra(hpc_json *r, const pctm_model *m, const point *pt, int k)
{
    static const char *busy_key[PCTM_NPH] = {"atmosphere_s_per_day", "ocean_s_per_day",
                                             "land_s_per_day", "ice_s_per_day",
                                             "regrid_s_per_day", "coupler_s_per_day"};
    char grid[64];
    snprintf(grid, sizeof grid, "%dx%d", m->sp.atmP, m->sp.atmQ);
    hpc_json_str(r, "atm_grid", grid);
    snprintf(grid, sizeof grid, "%dx%d", m->sp.ocnP, m->sp.ocnQ);
    hpc_json_str(r, "ocean_blocks", grid);
    hpc_json_int(r, "intervals", m->interval);
    hpc_json_num(r, "coupler_max_rel_diff", pt->checks[0]);
    hpc_json_num(r, "atm_height_error", pt->checks[1]);
    hpc_json_num(r, "ocean_budget_error", pt->checks[2]);
    hpc_json_num(r, "ocean_budget_bound", pt->checks[3]);
    hpc_json_num(r, "ocean_iters_per_step", pt->iters_per_step);
    hpc_json_int(r, "land_columns", pt->land_columns);
    hpc_json_int(r, "ice_columns", pt->ice_columns);
    for (int c = 0; c < PCTM_NPH; c++)
        hpc_json_num(r, busy_key[c], pt->busy[c]);
    if (k == 0) {  /* each rank's seconds per simulated day (collective) */
        double scale = 1.0 / ((double)pt->sm.n * m->interval * m->cf.hours / 24.0);
        hpc_phases_json(r, &m->ph, scale, MPI_COMM_WORLD);
        hpc_json_per_rank(r, "wall_per_rank", pt->wall * scale, MPI_COMM_WORLD);
    }
}

/* run_time and sim_years_per_day of one layout. */
static void emit(const opts *o, const pctm_model *m, point *pt, int layout)
{
    double *x = malloc((size_t)pt->sm.n * sizeof *x);
    if (!x)
        hpc_fail("pctm: out of memory");
    static const char *metric[2] = {"run_time", "sim_years_per_day"};
    static const char *unit[2] = {"s", "years/day"};
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            memcpy(x, pt->sm.samples, (size_t)pt->sm.n * sizeof *x);
        else
            hpc_rates(pt->sm.samples, pt->sm.n, o->days / 365.0, 1.0 / 86400.0, x);
        hpc_stats st;
        hpc_stats_compute(x, pt->sm.n, &st);
        hpc_json r;
        hpc_result_begin(&r, metric[k], unit[k], "median", k ? "higher" : "lower");
        emit_params(&r, o, m, layout);
        hpc_result_stats(&r, &st, pt->sm.converged);
        emit_extra(&r, m, pt, k);
        hpc_json_emit(&r);
    }
    free(x);
}

/* One layout: set up, measure, emit (sequential: keep its component times for the split). */
static void run_layout(const opts *o, int layout, double busy[PCTM_NPH], int emit_it)
{
    int nocn = hpc_nranks;
    if (layout == 1)
        nocn = o->ocean_ranks ? o->ocean_ranks : balanced(o, busy);
    pctm_split sp = split_of(&o->cf, nocn, layout);
    pctm_model m;
    pctm_model_init(&m, &o->cf, &sp, o->intervals);
    point pt;
    measure(&m, o, &pt);
    if (emit_it)
        emit(o, &m, &pt, layout);
    if (layout == 0)
        memcpy(busy, pt.busy, sizeof pt.busy);
    hpc_sampler_free(&pt.sm);
    pctm_model_free(&m);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "pctm", "Coupled climate components (PCTM): sequential and "
             "concurrent layouts.", options, MPI_THREAD_SINGLE);
    opts o;
    parse(&o);
    hpc_begin(1, NULL);
    hpc_inject_first_point();
    double busy[PCTM_NPH] = {0};
    int seq = 0;
    for (int k = 0; k < o.nlayouts; k++)
        seq |= o.layouts[k] == 0;
    if (!seq && !o.ocean_ranks) {  /* calibration for the balanced split: untimed, no record */
        hpc_rep keep = hpc_reps;
        hpc_reps.warmup = 0;
        hpc_reps.min_reps = hpc_reps.max_reps = 1;
        run_layout(&o, 0, busy, 0);
        hpc_reps = keep;
    }
    for (int k = 0; k < o.nlayouts; k++)
        run_layout(&o, o.layouts[k], busy, 1);
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
