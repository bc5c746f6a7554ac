/* npb_bt.c - NAS Parallel Benchmarks BT (NAS reports RNR-94-007, NAS-95-020; NPB 3.4 BT):
 * the same implicit finite-difference discretisation of the 3-D compressible Navier-Stokes
 * equations as LU (its operator, forcing, exact solution and initial values: lib/lu_grid.h),
 * stepped in time by an approximate factorisation into three 5x5 block tridiagonal systems,
 * one per direction (lib/bt_adi.h). After niter steps the RMS norms of the residual (5) and
 * of the error against the exact solution (5) are checked against NPB's published values for
 * the class, each to a relative error of 1e-8 (NPB's verify).
 *
 * Timing as NPB does it: set up and the forcing term, one untimed time step (the warm-up of
 * code and pages), re-initialise u (untimed), then time the niter steps. Each sample of the
 * harness is one such timed run after a fresh re-initialisation. Mop/s is NPB's count (bt.f90:
 * 3478.8 n^3 - 17655.7 n^2 + 28023.7 n operations per step for an n^3 grid) over the slowest
 * rank's time.
 *
 * Parallelisation (docs/nas_bt.md): a square number of ranks (NPB's rule for BT) as a
 * sqrt(P) x sqrt(P) grid over (i, j), LU's decomposition, not NPB's multi-partition.
 *
 * --inject corrupt changes one solution value after the timed run: verification fails.
 * A failed verification or a non-finite value: error record, exit 1. */
#include "harness.h"
#include "lib/bt_adi.h"
#include "lib/npb_adi.h"

static hpc_option options[] = {
    {.name = "class", .type = HPC_CHOICE, .def = "S", .choices = "S|W|A|B|C",
     .help = "NPB problem class: S 12^3 x 60 steps, W 24^3 x 200, A 64^3 x 200, B 102^3 x 200, "
             "C 162^3 x 200"},
    /* NPB's own untimed step is the warm-up; harness warm-up samples are extra */
    {.name = "warmup", .type = HPC_INT, .def = "0", .min = 0, .max = 1000000,
     .help = "whole timed runs discarded before measuring (NPB's warm-up step is always done)"},
    {0}};

/* NPB 3.4 BT: the class table of sys/setparams.c (problem_size, dt, niter) and the reference
 * values of BT/verify.f90 (xcrref, xceref; those of the runs without I/O). */
static const npb_class CLASSES[] = {
    {'S', 12, 60, 0.010,
     {1.7034283709541311e-01, 1.2975252070034097e-02, 3.2527926989486055e-02,
      2.6436421275166801e-02, 1.9211784131744430e-01},
     {4.9976913345811579e-04, 4.5195666782961927e-05, 7.3973765172921357e-05,
      7.3821238632439731e-05, 8.9269630987491446e-04}, 0.0},
    {'W', 24, 200, 0.0008,
     {0.1125590409344e+03, 0.1180007595731e+02, 0.2710329767846e+02, 0.2469174937669e+02,
      0.2638427874317e+03},
     {0.4419655736008e+01, 0.4638531260002e+00, 0.1011551749967e+01, 0.9235878729944e+00,
      0.1018045837718e+02}, 0.0},
    {'A', 64, 200, 0.0008,
     {1.0806346714637264e+02, 1.1319730901220813e+01, 2.5974354511582465e+01,
      2.3665622544678910e+01, 2.5278963211748344e+02},
     {4.2348416040525025e+00, 4.4390282496995698e-01, 9.6692480136345650e-01,
      8.8302063039765474e-01, 9.7379901770829278e+00}, 0.0},
    {'B', 102, 200, 0.0003,
     {1.4233597229287254e+03, 9.9330522590150238e+01, 3.5646025644535285e+02,
      3.2485447959084092e+02, 3.2707541254659363e+03},
     {5.2969847140936856e+01, 4.4632896115670668e+00, 1.3122573342210174e+01,
      1.2006925323559144e+01, 1.2459576151035986e+02}, 0.0},
    {'C', 162, 200, 0.0001,
     {0.62398116551764615e+04, 0.50793239190423964e+03, 0.15423530093013596e+04,
      0.13302387929291190e+04, 0.11604087428436455e+05},
     {0.16462008369091265e+03, 0.11497107903824313e+02, 0.41207446207461508e+02,
      0.37087651059694167e+02, 0.36211053051841265e+03}, 0.0},
};

/* NPB's operation count of one step on an n^3 grid (bt.f90: navg = (nx + ny + nz) / 3 = n). */
static double step_ops(double n)
{
    return 3478.8 * n * n * n - 17655.7 * n * n + 28023.7 * n;
}

static int setup(void *kernel, lu_ctx *g)
{
    return bt_setup(kernel, g);
}

static void step(void *kernel)
{
    bt_step(kernel);
}

static void release(void *kernel)
{
    bt_free(kernel);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "npb-bt",
             "NAS Parallel Benchmarks BT: block tridiagonal ADI time steps of an implicit "
             "Navier-Stokes discretisation, classes S, W, A, B, C, verified against NPB's "
             "residual and error norms.", options, MPI_THREAD_SINGLE);
    bt_ctx kernel;
    npb_adi r = {
        .app = {.bench = "npb-bt", .source = "NPB 3.4 BT/verify.f90 (xcrref, xceref)",
                .mops_formula = "niter * (3478.8 n^3 - 17655.7 n^2 + 28023.7 n) / time / "
                                "1e6 (NPB 3.4 BT/bt.f90)",
                .decomposition = "2-D (i, j), pipelined block Thomas across ranks",
                .phases = bt_phase_defs, .nphases = BT_NPHASES},
        .kernel_name = "BT", .kernel = &kernel, .setup = setup, .step = step,
        .release = release};
    npb_adi_main(&r, CLASSES, sizeof CLASSES / sizeof CLASSES[0], step_ops);

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
