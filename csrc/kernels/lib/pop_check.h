/* pop_check.h - the barotropic proxy's checks: a global reference per grid (rank 0) and
 * the checks of a configuration's first solve against it.
 */
#ifndef POP_CHECK_H
#define POP_CHECK_H

#include "pop_comm.h"
#include "pop_grid.h"

/* What rank 0 keeps per (grid, land) for the checks. */
typedef struct {
    pop_grid g;
    double *b, *xtrue, *direct, *first;  /* rank 0: global nx*ny arrays; direct/first may be NULL */
    pop_block gb;                         /* rank 0: the whole grid as one block */
    double *work, *work2;                 /* rank 0: fields of gb */
} pop_ref;

/* The grid; on rank 0 also b = A x_true, x_true and (up to direct_max ocean points) a
 * direct solve. Collective (every rank builds the grid). */
void pop_ref_init(pop_ref *rf, int nx, int ny, int land, double dt, int direct_max);
void pop_ref_free(pop_ref *rf);

/* Relative max-norm differences from x_true, the direct solve (NAN: none), the grid's
 * first configuration, and the true relative residual. */
typedef struct {
    double vs_true, vs_direct, vs_first, residual;
} pop_check_result;

/* Checks of the first solve of a configuration (collective: the gather); what names the
 * configuration in messages. The first configuration's solution is kept for the others. */
pop_check_result pop_check_solution(pop_ref *rf, const char *what, const pop_decomp *d,
                                    const double *x, const double *rhs, int ld, double bound,
                                    double tol);

#endif
