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
#include "lib/adi_rhs.h"
#include "lib/npb_app.h"

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
static const npb_class CLASSES[] = {
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

/* u = initial values, the residual and its norm: untimed, as NPB's before its timer. */
static void initialise(void *ctx)
{
    lu_ctx *g = ctx;
    double rsdnm[5];
    lu_initial(g);
    lu_rhs(g);
    lu_l2norm(g, g->rsd, rsdnm);
}

/* NPB's timed part: itmax SSOR iterations, the correction's norm in the last one, the
 * residual's norm after it. */
static int itmax;
static void run(void *ctx, hpc_phases *ph)
{
    lu_ctx *g = ctx;
    double delta[5], rsdnm[5];
    g->ph = ph;
    for (int it = 1; it <= itmax; it++)
        lu_ssor_step(g, it == itmax ? delta : NULL);
    lu_l2norm(g, g->rsd, rsdnm);
    g->ph = NULL;
}

/* The residual norms (of the last residual), the error norms and the surface integral. */
static void results(void *ctx, double rsd[5], double err[5], double *frc)
{
    lu_ctx *g = ctx;
    lu_l2norm(g, g->rsd, rsd);
    if (hpc_inject == HPC_INJECT_CORRUPT && g->rank == 0)
        lu_at(g, g->u, g->ist, g->jst, 3)[0] += 1.0;  /* a wrong value: must not verify */
    lu_error(g, err);
    *frc = lu_surface_integral(g);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "npb-lu",
             "NAS Parallel Benchmarks LU: SSOR on the block triangular systems of an implicit "
             "Navier-Stokes discretisation, classes S, W, A, B, C, verified against NPB's "
             "residual and error norms and surface integral.", options, MPI_THREAD_SINGLE);
    npb_app a = {
        .bench = "npb-lu", .source = "NPB 3.4 LU/verify.f90 (xcrref, xceref, xciref)",
        .mops_formula = "itmax * (1984.77 n^3 - 10923.3 n^2 + 27770.9 n - 144010) / time / 1e6 "
                        "(NPB 3.4 LU/lu.f90)",
        .decomposition = "2-D (i, j) pipelined wavefront", .steps_name = "itmax",
        .phases = lu_phase_defs, .nphases = LU_NPHASES,
        .initialise = initialise, .run = run, .results = results};
    a.cl = npb_app_class(CLASSES, sizeof CLASSES / sizeof CLASSES[0], hpc_opt_str("class"));
    int p = hpc_nranks, n = a.cl.n;
    hpc_usage_check(p & (p - 1), "npb-lu: %d ranks: NPB LU runs on a power of two", p);
    lu_proc_grid(p, &a.xdim, &a.ydim);
    /* NPB's subdomain rule: at least 3 points a rank in i and j */
    hpc_usage_check(n / a.xdim < 3, "npb-lu: class %c (%d^3) is too small for %d ranks (a %d x "
                    "%d grid): at least 3 points a rank in each of i and j", a.cl.name, n, p,
                    a.xdim, a.ydim);
    /* lu.f90: nx0 = ny0 = nz0 = n, so (nx0 + ny0 + nz0) / 3 = n */
    a.ops = (double)a.cl.steps * (1984.77 * n * n * n - 10923.3 * n * n + 27770.9 * n - 144010.0);
    itmax = a.cl.steps;

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    lu_ctx g;
    adi_prim prim;
    if (lu_setup(&g, n, a.cl.dt, a.xdim, a.ydim, MPI_COMM_WORLD) || adi_prim_init(&prim, &g))
        hpc_fail("npb-lu: no memory for class %c (%d^3) on %d ranks", a.cl.name, n, p);
    g.prim = &prim;   /* the residual in BT's and SP's form (lib/adi_rhs.h) */
    lu_forcing(&g);
    initialise(&g);
    lu_ssor_step(&g, NULL);   /* NPB's untimed iteration */
    a.ctx = &g;
    npb_app_main(&a);
    adi_prim_free(&prim);
    lu_free(&g);

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
