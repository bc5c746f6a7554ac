/* npb_lu.c - NAS Parallel Benchmarks LU (NAS reports RNR-94-007, NAS-95-020; NPB 3.4 LU):
 * SSOR iterations on the block lower and upper triangular systems of an implicit
 * finite-difference discretisation of the 3-D compressible Navier-Stokes equations, with a
 * forcing term that makes a known quartic the exact steady solution (lib/lu_grid.h).
 * After itmax iterations three things are checked against NPB's published values for the
 * class: the RMS norms of the residual (5), of the error against the exact solution (5), and
 * the surface integral, each to a relative error of 1e-8 (NPB's verify).
 *
 * Timing as NPB does it: set up and the forcing term, one untimed SSOR iteration (the warm-up
 * of code and pages), re-initialise u, the initial residual and its norm (untimed), then time
 * the itmax iterations. Each sample of the harness is one such timed run after a fresh
 * re-initialisation. Mop/s is NPB's count (lu.f: 1984.77 n^3 - 10923.3 n^2 + 27770.9 n -
 * 144010 operations per iteration for an n^3 grid) over the slowest rank's time.
 *
 * Parallelisation (docs/nas_lu.md): NPB's 2-D decomposition of (i, j) over a power-of-two
 * number of ranks, all k planes on every rank, the triangular sweeps pipelined plane by plane.
 *
 * --inject corrupt changes one solution value after the timed run: verification fails.
 * A failed verification or a non-finite value: error record, exit 1. */
#include "harness.h"
#include "lib/lu_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "class", .type = HPC_CHOICE, .def = "S", .choices = "S|W|A|B|C",
     .help = "NPB problem class: S 12^3 x 50 it, W 33^3 x 300, A 64^3 x 250, B 102^3 x 250, "
             "C 162^3 x 250"},
    /* NPB's own untimed iteration is the warm-up; harness warm-up samples are extra */
    {.name = "warmup", .type = HPC_INT, .def = "0", .min = 0, .max = 1000000,
     .help = "whole timed runs discarded before measuring (NPB's warm-up iteration is always "
             "done)"},
    {0}};

/* NPB 3.4 LU: the class table of sys/setparams.c (problem_size, dt_default, itmax) and the
 * reference values of LU/verify.f90 (xcrref, xceref, xciref). */
typedef struct {
    char name;
    int n, itmax;
    double dt;
    double rsd[5], err[5], frc;
} lu_class;

static const lu_class CLASSES[] = {
    {'S', 12, 50, 0.5,
     {1.6196343210976702e-02, 2.1976745164821318e-03, 1.5179927653399185e-03,
      1.5029584435994323e-03, 3.4264073155896461e-02},
     {6.4223319957960924e-04, 8.4144342047347926e-05, 5.8588269616485186e-05,
      5.8474222595157350e-05, 1.3103347914111294e-03},
     7.8418928865937083e+00},
    {'W', 33, 300, 1.5e-3,
     {0.1236511638192e+02, 0.1317228477799e+01, 0.2550120713095e+01, 0.2326187750252e+01,
      0.2826799444189e+02},
     {0.4867877144216e+00, 0.5064652880982e-01, 0.9281818101960e-01, 0.8570126542733e-01,
      0.1084277417792e+01},
     0.1161399311023e+02},
    {'A', 64, 250, 2.0,
     {7.7902107606689367e+02, 6.3402765259692870e+01, 1.9499249727292479e+02,
      1.7845301160418537e+02, 1.8384760349464247e+03},
     {2.9964085685471943e+01, 2.8194576365003349e+00, 7.3473412698774742e+00,
      6.7139225687777051e+00, 7.0715315688392578e+01},
     2.6030925604886277e+01},
    {'B', 102, 250, 2.0,
     {3.5532672969982736e+03, 2.6214750795310692e+02, 8.8333721850952190e+02,
      7.7812774739425265e+02, 7.3087969592545314e+03},
     {1.1401176380212709e+02, 8.1098963655421574e+00, 2.8480597317698308e+01,
      2.5905394567832939e+01, 2.6054907504857413e+02},
     4.7887162703308227e+01},
    {'C', 162, 250, 2.0,
     {1.03766980323537846e+04, 8.92212458801008552e+02, 2.56238814582660871e+03,
      2.19194343857831427e+03, 1.78078057261061185e+04},
     {2.15986399716949279e+02, 1.55789559239863600e+01, 5.41318863077207766e+01,
      4.82262643154045421e+01, 4.55902910043250358e+02},
     6.66404553572181300e+01},
};
static const double EPSILON = 1e-8;   /* verify.f90: "epsilon = 1.0d-08" */
static const char *const SOURCE = "NPB 3.4 LU/verify.f90 (xcrref, xceref, xciref)";

typedef struct {
    lu_class cl;
    int xdim, ydim;
} config;

static void parse(config *c)
{
    const char *name = hpc_opt_str("class");
    for (size_t i = 0; i < sizeof CLASSES / sizeof CLASSES[0]; i++)
        if (name[0] == CLASSES[i].name)
            c->cl = CLASSES[i];
    int p = hpc_nranks;
    hpc_usage_check(p & (p - 1), "npb-lu: %d ranks: NPB LU runs on a power of two", p);
    lu_proc_grid(p, &c->xdim, &c->ydim);
    /* NPB's subdomain rule: at least 3 points a rank in i and j */
    hpc_usage_check(c->cl.n / c->xdim < 3, "npb-lu: class %c (%d^3) is too small for %d ranks "
                    "(a %d x %d grid): at least 3 points a rank in each of i and j", c->cl.name,
                    c->cl.n, p, c->xdim, c->ydim);
}

/* u = initial values, the residual and its norm: untimed, as NPB's before its timer. */
static void initialise(lu_ctx *g, double rsdnm[5])
{
    hpc_phases *ph = g->ph;
    g->ph = NULL;
    lu_initial(g);
    lu_rhs(g);
    lu_l2norm(g, g->rsd, rsdnm);
    g->ph = ph;
}

/* NPB's timed part: itmax SSOR iterations, the correction's norm in the last one, the
 * residual's norm after it. */
static void benchmark(lu_ctx *g, int itmax, double rsdnm[5])
{
    double delta[5];
    for (int it = 1; it <= itmax; it++)
        lu_ssor_step(g, it == itmax ? delta : NULL);
    lu_l2norm(g, g->rsd, rsdnm);
}

typedef struct {
    double rsd[5], err[5], frc, worst;   /* the verified values, the largest relative error */
    double *time, *mops;                 /* per kept sample */
    int n, converged;
    double wall;                         /* this rank's time over the kept samples */
    hpc_phases ph;
} measured;

static double rel(double x, double ref)
{
    return fabs((x - ref) / ref);
}

/* Every value within EPSILON of NPB's (relative), else exit 1; the largest relative error. */
static double verify(const config *c, const measured *m)
{
    static const char *const what[2] = {"residual", "error"};
    const double *got[2] = {m->rsd, m->err}, *ref[2] = {c->cl.rsd, c->cl.err};
    double worst = rel(m->frc, c->cl.frc);
    for (int q = 0; q < 2; q++)
        for (int v = 0; v < 5; v++) {
            double e = rel(got[q][v], ref[q][v]);
            worst = e > worst ? e : worst;
            if (hpc_rank == 0)
                hpc_check_bound(e, EPSILON, "npb-lu: class %c: the %s norm %d, %.16e, differs "
                                "from NPB's %.16e (%s) by a relative error", c->cl.name, what[q],
                                v + 1, got[q][v], ref[q][v], SOURCE);
        }
    if (hpc_rank == 0)
        hpc_check_bound(rel(m->frc, c->cl.frc), EPSILON, "npb-lu: class %c: the surface "
                        "integral %.16e differs from NPB's %.16e (%s) by a relative error",
                        c->cl.name, m->frc, c->cl.frc, SOURCE);
    return worst;
}

/* The error norms and the surface integral of the solution (untimed). */
static void solution_checks(lu_ctx *g, measured *m)
{
    if (hpc_inject == HPC_INJECT_CORRUPT && g->rank == 0)
        lu_at(g, g->u, g->ist, g->jst, 3)[0] += 1.0;  /* a wrong value: must not verify */
    lu_error(g, m->err);
    m->frc = lu_surface_integral(g);
}

static double npb_ops(const lu_class *cl)
{
    double n = cl->n;   /* lu.f: nx0 = ny0 = nz0 = n, so (nx0 + ny0 + nz0) / 3 = n */
    return (double)cl->itmax * (1984.77 * n * n * n - 10923.3 * n * n + 27770.9 * n - 144010.0);
}

static void measure(const config *c, lu_ctx *g, measured *m)
{
    memset(m, 0, sizeof *m);
    hpc_phases_init(&m->ph, lu_phase_defs, LU_NPHASES);
    m->time = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    m->mops = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    if (!m->time || !m->mops)
        hpc_fail("npb-lu: no memory for %d samples", hpc_reps.max_reps);
    double first[5];
    initialise(g, first);
    lu_ssor_step(g, NULL);   /* NPB's untimed iteration (g->ph is NULL: untimed) */
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    int runs = 0;
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        double rsd[5];
        initialise(g, rsd);
        MPI_Barrier(MPI_COMM_WORLD);
        g->ph = &m->ph;
        double t0 = hpc_now();
        benchmark(g, c->cl.itmax, rsd);
        hpc_phases_stop(&m->ph);
        double t = hpc_now() - t0, tmax;
        g->ph = NULL;
        /* the same ranks repeat the same arithmetic: the same bits */
        if (runs++ && memcmp(rsd, m->rsd, sizeof rsd) && hpc_rank == 0)
            hpc_fail("npb-lu: a repeated run's residual norm %.17g differs from the first's "
                     "%.17g", rsd[0], m->rsd[0]);
        memcpy(m->rsd, rsd, sizeof rsd);
        solution_checks(g, m);
        m->worst = verify(c, m);
        if (hpc_phases_sample(&m->ph, &sm, t, &m->wall, &tmax)) {
            m->time[sm.n - 1] = tmax;
            m->mops[sm.n - 1] = npb_ops(&c->cl) / tmax / 1e6;
        }
    }
    m->n = sm.n;
    m->converged = sm.converged;
    hpc_sampler_free(&sm);
}

static void params(hpc_json *r, const config *c)
{
    char cls[2] = {c->cl.name, '\0'};
    hpc_json_str(r, "class", cls);
    hpc_json_int(r, "n", c->cl.n);
    hpc_json_int(r, "itmax", c->cl.itmax);
    hpc_json_int(r, "ranks", hpc_nranks);
}

static void five(hpc_json *r, const char *key, const double *v)
{
    hpc_json_array(r, key);
    for (int m = 0; m < 5; m++)
        hpc_json_exact(r, NULL, v[m]);
    hpc_json_close(r);
}

/* The verification values and how the run was laid out, in every record. */
static void common_json(hpc_json *r, const config *c, const measured *m)
{
    five(r, "rsdnm", m->rsd);
    five(r, "errnm", m->err);
    hpc_json_exact(r, "frc", m->frc);
    five(r, "rsdnm_ref", c->cl.rsd);
    five(r, "errnm_ref", c->cl.err);
    hpc_json_exact(r, "frc_ref", c->cl.frc);
    hpc_json_num(r, "rel_err", m->worst);
    hpc_json_exact(r, "epsilon", EPSILON);
    hpc_json_bool(r, "verified", 1);  /* a run that does not verify emits no result */
    hpc_json_str(r, "verify_source", SOURCE);
    hpc_json_exact(r, "dt", c->cl.dt);
    hpc_json_str(r, "mops_formula", "itmax * (1984.77 n^3 - 10923.3 n^2 + 27770.9 n - 144010) "
                 "/ time / 1e6 (NPB 3.4 LU/lu.f90)");
    hpc_json_str(r, "decomposition", "2-D (i, j) pipelined wavefront");
    hpc_json_int(r, "xdim", c->xdim);
    hpc_json_int(r, "ydim", c->ydim);
}

static void emit(const config *c, measured *m)
{
    static const char *const metric[] = {"mops", "run_time"};   /* as npb-cg's, npb-mg's */
    static const char *const unit[] = {"Mop/s", "s"};
    static const char *const better[] = {"higher", "lower"};
    double *data[] = {m->mops, m->time};
    for (int k = 0; k < 2; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], m->n, &st);
        hpc_json r;
        hpc_result_begin(&r, metric[k], unit[k], "median", better[k]);
        params(&r, c);
        hpc_result_stats(&r, &st, m->converged);
        common_json(&r, c, m);
        if (k == 1) {  /* seconds per timed run, each rank's own (collective) */
            hpc_phases_json(&r, &m->ph, 1.0 / m->n, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "wall_per_rank", m->wall / m->n, MPI_COMM_WORLD);
        }
        hpc_json_emit(&r);
    }
    free(m->time);
    free(m->mops);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "npb-lu",
             "NAS Parallel Benchmarks LU: SSOR on the block triangular systems of an implicit "
             "Navier-Stokes discretisation, classes S, W, A, B, C, verified against NPB's "
             "residual and error norms and surface integral.", options, MPI_THREAD_SINGLE);
    config c;
    parse(&c);

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    lu_ctx g;
    if (lu_setup(&g, c.cl.n, c.cl.dt, MPI_COMM_WORLD))
        hpc_fail("npb-lu: no memory for class %c (%d^3) on %d ranks", c.cl.name, c.cl.n,
                 hpc_nranks);
    lu_forcing(&g);
    measured m;
    measure(&c, &g, &m);
    emit(&c, &m);
    lu_free(&g);

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
