/* pop_model.h - the whole POP-like model on one rank's block (kernels/pop_step.c): the 3-D
 * ocean of pop_ocean.h, its halo updates (pop_halo3.h) and the barotropic solver of
 * pop_solver.h with its halo and global-sum variants, stepped together:
 *   halo update of the state (u, v, T, S: 4 nz levels, --clinic-halos variant)
 *   baroclinic step (pop_clinic_step: tracers, their halo update, momentum, columns)
 *   barotropic phase: depth means and their halo, b, the PCG (warm start from the last eta),
 *   eta's halo, the velocity correction
 * Phases: the barotropic ones (compute, halo, copy, global_sum: pop_comm.h's ids) and the
 * baroclinic ones (clinic, clinic_halo, clinic_copy, vmix: pop_ocean.h's ids).
 */
#ifndef POP_MODEL_H
#define POP_MODEL_H

#include "pop_comm.h"
#include "pop_grid.h"
#include "pop_halo3.h"
#include "pop_ocean.h"
#include "pop_solver.h"

enum { POP_MODEL_NPHASES = POP_PH_VMIX + 1 };
extern const hpc_phase_def POP_MODEL_PHASES[POP_MODEL_NPHASES];

/* One configuration: grid, land, decomposition, variants, the solver's settings. */
typedef struct {
    int nx, ny, nz, land, P, Q, colmajor, clinic, halo, sum, branch, check_every, max_iters;
    double dt, tol;
} pop_model_cfg;

typedef struct {
    pop_decomp d;
    pop_block blk;
    pop_halo h;
    pop_gsum gs;
    pop_pcg s;
    pop_sea o;
    pop_halo3 h3, htr, hbar, heta;
    hpc_phases ph;
    double tol;
    long iters;  /* solver iterations since the reset */
} pop_model;

/* This rank's block of configuration c (collective: the put halo's window); alone: rank 0's
 * one-block run (P = Q = 1, no communication: no window, sums of one rank). Returns 0, or -1
 * out of memory. */
int pop_model_init(pop_model *m, const pop_grid *g, const pop_model_cfg *c, int alone);
void pop_model_free(pop_model *m);
/* The initial state, eta = 0, the iteration count 0. */
void pop_model_reset(pop_model *m, const pop_grid *g);
/* steps whole time steps (collective unless alone); the phases run inside. A solve that does
 * not converge is fatal (hpc_fail). */
void pop_model_steps(pop_model *m, int steps);
/* Every rank's interior of the 4 nz levels into rank 0's global [f][k][ny][nx] (collective
 * over the ranks of the decomposition; alone: rank 0 copies its own). */
void pop_model_gather(const pop_model *m, double *out);

#endif
