/* pctm_comp.h - the components of pctm (kernels/pctm.c): the spectral atmosphere (psst's model
 * on its P x Q grid of the atmosphere's ranks), the ocean (POP's barotropic solve on 2-D blocks)
 * and the land and sea-ice column kernels (column_physics on columns dealt cyclically).
 *
 * Each component advances a given number of its own steps per coupling interval; what it
 * gives and takes at the coupling is a field on its own decomposition:
 *   atmosphere: test case 2 (steady flow), its height h on the Gaussian grid each interval;
 *     gives the ocean a surface flux F = FLUX_SCALE (h / H0 - 1) in m/s on its latitude band
 *     (the atmosphere is not forced back: its test-case check stays exact);
 *   ocean: free surface eta; a step solves POP's barotropic system for the new eta,
 *     (c - L) eta' = c (eta + dt F), c = area / (g dt^2), L the 9-point operator's coupling
 *     part; its rows sum to zero, so the ocean's volume sum(c eta) grows by sum(c dt F)
 *     exactly up to the solver's tolerance (checked at the end);
 *   land, ice: the surface field the ocean gives on the Gaussian grid (its eta regridded) raises
 *     the lowest level's temperature of their columns; column_run per step.
 * A baroclinic ocean phase plugs in as one more call in pctm_ocn_step. */
#ifndef PCTM_COMP_H
#define PCTM_COMP_H

#include "column_physics.h"
#include "pctm_map.h"
#include "pop_comm.h"
#include "pop_grid.h"
#include "pop_solver.h"
#include "psst_grid.h"

typedef struct {
    int in, rank, n, P, Q, pass;  /* in: this rank runs it; rank, n in comm */
    MPI_Comm comm;
    sst_model s;
    pgrid g;
    hpc_phases ph;               /* psst's own phase timers (not reported) */
    double alpha, *h, *ht;       /* h: heights, the whole grid */
    int j0, nj;                  /* my rows of the grid fields */
    double *flux;                /* my rows: the flux to the ocean */
} pctm_atm;

/* comm: the atmosphere's ranks (MPI_COMM_NULL on the others). */
void pctm_atm_init(pctm_atm *a, MPI_Comm comm, int M, double dt, int P, int Q);
void pctm_atm_start(pctm_atm *a);             /* the test case's initial state */
void pctm_atm_steps(pctm_atm *a, int passes);  /* passes through psst's step */
void pctm_atm_flux(pctm_atm *a);              /* the state gathered, h, the flux */
/* Its rank 0: the largest normalised height error against test case 2 (exact: steady). */
double pctm_atm_error(pctm_atm *a);
void pctm_atm_free(pctm_atm *a);

typedef struct {
    int in, steps;               /* steps: solves done since pctm_ocn_start */
    const pop_grid *grid;
    pop_decomp d;
    pop_block b;
    pop_halo h;
    pop_gsum gs;
    pop_pcg pcg;
    hpc_phases ph;               /* POP's own phase timers (not reported) */
    double dt, tol;
    double *eta, *flux;          /* my block's interior, row-major */
    double vol0, added, bnorm;   /* my sum(c eta) at the start, my sum(c dt F), sum ||b|| */
    long iters;
} pctm_ocn;

/* The ocean's ranks are 0 .. n-1 of MPI_COMM_WORLD (POP's library speaks in its ranks). */
void pctm_ocn_init(pctm_ocn *o, const pop_grid *g, int n, int P, int Q, double tol);
void pctm_ocn_start(pctm_ocn *o);
void pctm_ocn_step(pctm_ocn *o);
/* Collective over the ocean's ranks: the volume budget's error and its bound. */
void pctm_ocn_budget(pctm_ocn *o, double *err, double *bound);
void pctm_ocn_free(pctm_ocn *o);

typedef struct {
    long ncols;                  /* mine */
    int nlev;
    column_state cs;
    double *t0, *field;          /* per column: lowest level's own temperature; the field */
} pctm_cols;

void pctm_cols_init(pctm_cols *c, long ncols, int nlev);
void pctm_cols_step(pctm_cols *c);
/* The kernel against its long-double reference on its own inputs (fails loudly). */
void pctm_cols_verify(pctm_cols *c, const char *name);
void pctm_cols_free(pctm_cols *c);

#endif
