/* npb_sp.c - NAS Parallel Benchmarks SP (NAS reports RNR-94-007, NAS-95-020; NPB 3.4 SP):
 * the same implicit finite-difference discretisation of the 3-D compressible Navier-Stokes
 * equations as LU and BT (lib/lu_grid.h), stepped in time by the diagonalised approximate
 * factorisation: three scalar pentadiagonal systems along each direction's lines
 * (lib/sp_adi.h). After niter steps the RMS norms of the residual (5) and of the error against
 * the exact solution (5) are checked against NPB's published values for the class, each to a
 * relative error of 1e-8 (NPB's verify).
 *
 * Timing as NPB does it: set up and the forcing term, one untimed time step (the warm-up of
 * code and pages), re-initialise u (untimed), then time the niter steps. Each sample of the
 * harness is one such timed run after a fresh re-initialisation. Mop/s is NPB's count (sp.f90:
 * 881.174 n^3 - 4683.91 n^2 + 11484.5 n - 19272.4 operations per step for an n^3 grid) over
 * the slowest rank's time.
 *
 * Parallelisation (docs/nas_sp.md): a square number of ranks (NPB's rule for SP) as a
 * sqrt(P) x sqrt(P) grid over (i, j), LU's decomposition, as npb-bt.
 *
 * --inject corrupt changes one solution value after the timed run: verification fails.
 * A failed verification or a non-finite value: error record, exit 1. */
#include "harness.h"
#include "lib/sp_adi.h"
#include "lib/npb_adi.h"

static hpc_option options[] = {
    {.name = "class", .type = HPC_CHOICE, .def = "S", .choices = "S|W|A|B|C",
     .help = "NPB problem class: S 12^3 x 100 steps, W 36^3 x 400, A 64^3 x 400, B 102^3 x 400, "
             "C 162^3 x 400"},
    /* NPB's own untimed step is the warm-up; harness warm-up samples are extra */
    {.name = "warmup", .type = HPC_INT, .def = "0", .min = 0, .max = 1000000,
     .help = "whole timed runs discarded before measuring (NPB's warm-up step is always done)"},
    {0}};

/* NPB 3.4 SP: the class table of sys/setparams.c (write_sp_info: problem_size, dt, niter) and
 * the reference values of SP/verify.f90 (xcrref, xceref). */
static const npb_class CLASSES[] = {
    {'S', 12, 100, 0.015,
     {2.7470315451339479e-02, 1.0360746705285417e-02, 1.6235745065095532e-02,
      1.5840557224455615e-02, 3.4849040609362460e-02},
     {2.7289258557377227e-05, 1.0364446640837285e-05, 1.6154798287166471e-05,
      1.5750704994480102e-05, 3.4177666183390531e-05}, 0.0},
    {'W', 36, 400, 0.0015,
     {0.1893253733584e-02, 0.1717075447775e-03, 0.2778153350936e-03, 0.2887475409984e-03,
      0.3143611161242e-02},
     {0.7542088599534e-04, 0.6512852253086e-05, 0.1049092285688e-04, 0.1128838671535e-04,
      0.1212845639773e-03}, 0.0},
    {'A', 64, 400, 0.0015,
     {2.4799822399300195e+00, 1.1276337964368832e+00, 1.5028977888770491e+00,
      1.4217816211695179e+00, 2.1292113035138280e+00},
     {1.0900140297820550e-04, 3.7343951769282091e-05, 5.0092785406541633e-05,
      4.7671093939528255e-05, 1.3621613399213001e-04}, 0.0},
    {'B', 102, 400, 0.001,
     {0.6903293579998e+02, 0.3095134488084e+02, 0.4103336647017e+02, 0.3864769009604e+02,
      0.5643482272596e+02},
     {0.9810006190188e-02, 0.1022827905670e-02, 0.1720597911692e-02, 0.1694479428231e-02,
      0.1847456263981e-01}, 0.0},
    {'C', 162, 400, 0.00067,
     {0.5881691581829e+03, 0.2454417603569e+03, 0.3293829191851e+03, 0.3081924971891e+03,
      0.4597223799176e+03},
     {0.2598120500183e+00, 0.2590888922315e-01, 0.5132886416320e-01, 0.4806073419454e-01,
      0.5483377491301e+00}, 0.0},
};

/* NPB's operation count of one step on an n^3 grid (sp.f90: t = (nx + ny + nz) / 3 = n). */
static double step_ops(double n)
{
    return 881.174 * n * n * n - 4683.91 * n * n + 11484.5 * n - 19272.4;
}

static int setup(void *kernel, lu_ctx *g)
{
    return sp_setup(kernel, g);
}

static void step(void *kernel)
{
    sp_step(kernel);
}

static void release(void *kernel)
{
    sp_free(kernel);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "npb-sp",
             "NAS Parallel Benchmarks SP: scalar pentadiagonal ADI time steps of an implicit "
             "Navier-Stokes discretisation, classes S, W, A, B, C, verified against NPB's "
             "residual and error norms.", options, MPI_THREAD_SINGLE);
    sp_ctx kernel;
    npb_adi r = {
        .app = {.bench = "npb-sp", .source = "NPB 3.4 SP/verify.f90 (xcrref, xceref)",
                .mops_formula = "niter * (881.174 n^3 - 4683.91 n^2 + 11484.5 n - 19272.4) / "
                                "time / 1e6 (NPB 3.4 SP/sp.f90)",
                .decomposition = "2-D (i, j), pipelined pentadiagonal solves across ranks",
                .phases = sp_phase_defs, .nphases = SP_NPHASES},
        .kernel_name = "SP", .kernel = &kernel, .setup = setup, .step = step,
        .release = release};
    npb_adi_main(&r, CLASSES, sizeof CLASSES / sizeof CLASSES[0], step_ops);

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
