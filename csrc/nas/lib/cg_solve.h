/* cg_solve.h - NPB CG's inverse power iteration on a block of rows per rank.
 *
 * One outer iteration (NPB 3.4 CG/cg.f, main loop and conj_grad): 25 unpreconditioned CG steps
 * from z = 0 solve A z = x approximately, ||r|| = ||x - A z|| is formed explicitly, then
 * zeta = shift + 1 / (x . z) and x = z / ||z||.
 *
 * Decomposition: rank k owns rows [row0, row0 + nrows) of A and the same entries of every
 * vector. A matrix-vector product needs the whole vector: it is gathered with MPI_Allgatherv
 * (in place) before each product; dot products are local sums added by MPI_Allreduce. Per CG
 * step: one allgather (p) and two allreduces (p.q, r.r). */
#ifndef CG_SOLVE_H
#define CG_SOLVE_H

#include "cg_matrix.h"
#include "phases.h"

#include <mpi.h>

enum { CG_PH_MATVEC, CG_PH_VECTOR, CG_PH_ALLGATHER, CG_PH_ALLREDUCE, CG_NPHASES };
extern const hpc_phase_def cg_phase_defs[CG_NPHASES];

#define CG_STEPS 25   /* NPB's cgitmax: CG steps per outer iteration */

typedef struct {
    const cg_matrix *m;
    double shift;
    MPI_Comm comm;
    int *counts, *displs;  /* every rank's rows, for MPI_Allgatherv */
    double *p, *z;         /* whole vectors (na): the matrix-vector products read them */
    double *x, *q, *r;     /* this rank's rows */
    hpc_phases *ph;
} cg_solver;

/* Buffers for matrix m (collective). 0, or -1 if memory ran out (then call cg_solver_free). */
int cg_solver_init(cg_solver *s, const cg_matrix *m, double shift, MPI_Comm comm,
                   hpc_phases *ph);
void cg_solver_free(cg_solver *s);

/* x = (1, ..., 1): NPB's start, before the untimed iteration and before the timed ones. */
void cg_solver_reset(cg_solver *s);

/* One outer iteration (collective); returns zeta, *rnorm = ||x - A z|| of its CG solve. */
double cg_outer(cg_solver *s, double *rnorm);

/* NPB's operation count of niter outer iterations (CG/cg.f, the mflops expression). */
double cg_flops(const cg_class *c);

#endif
