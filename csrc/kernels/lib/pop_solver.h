/* pop_solver.h - preconditioned conjugate gradient of the POP-like barotropic
 * proxy (kernels/barotropic.c), with POP's structure: a diagonal
 * preconditioner, one halo update per operator application and one global
 * sum per inner product (two per iteration, plus r.r every check_every
 * iterations for the convergence test ||r|| <= tol ||b||).
 *
 *   x = 0; r = b - A x; z = M^-1 r; rho = <r, z>; p = z
 *   for k = 1, 2, ...
 *       halo(p); q = A p; alpha = rho / <p, q>
 *       x += alpha p; r -= alpha q; z = M^-1 r
 *       every check_every: stop if <r, r> <= tol^2 <b, b>
 *       rho' = <r, z>; p = z + (rho' / rho) p; rho = rho'
 *
 * Loops run over every point of the block (land too, where the coefficients
 * and M^-1 are 0, as POP does), fused where POP's data flow allows. Flops per
 * block point (pop_pcg_flops): start 23 (operator 17 + its dot 2, r 1, z 1,
 * <r,z> 2); per iteration 26 (operator and <p,q> 19, x and r 4, z 1,
 * <r,z> 2) + 2 for p except in the last + 2 per convergence check.
 */
#ifndef POP_SOLVER_H
#define POP_SOLVER_H

#include "pop_comm.h"
#include "pop_grid.h"

typedef struct {
    const pop_block *b;
    pop_halo *halo;   /* halo->x is the search direction p */
    pop_gsum *sum;
    hpc_phases *ph;
    double *x, *r, *z, *q, *rhs;
    double tol2_bb;   /* tol^2 <b, b> */
    int check_every, max_iters;
} pop_pcg;

/* Allocates x, r, z, q, rhs (zeroed). Returns 0 or -1. */
int pop_pcg_init(pop_pcg *s, const pop_block *b, pop_halo *h, pop_gsum *g, hpc_phases *ph,
                 int check_every, int max_iters);
void pop_pcg_free(pop_pcg *s);
/* One solve from x = 0, collective. The phases must be running; the solve
 * switches between compute, halo, copy and global_sum. Returns the iterations,
 * or -1 when not converged in max_iters. */
int pop_pcg_solve(pop_pcg *s);
/* Flops of one solve of `iters` iterations over `points` block points. */
double pop_pcg_flops(double points, int iters, int check_every);

#endif
