/* hydro_problem.h - the hydro proxy's initial states and the sums its checks need.
 *
 * The domain is the unit cube, nglob cells per direction; a block's first interior cell is
 * global cell origin. Problems:
 *   sod       Sod's shock tube along x: (rho, u, p) = (1, 0, 1) left of x = 1/2, (0.125, 0,
 *             0.1) right of it; at rest in y and z, so every x-row holds the 1-D solution.
 *   periodic  a smooth state with density, pressure and every velocity component varying in
 *             all three directions (non-zero mean momentum), for the conservation check.
 */
#ifndef HYDRO_PROBLEM_H
#define HYDRO_PROBLEM_H

#include "hydro_exact.h"
#include "hydro_scheme.h"

typedef enum { HY_SOD, HY_PERIODIC } hy_problem;

extern const hy_state1 HY_SOD_LEFT, HY_SOD_RIGHT;

/* The initial state of the interior cells (point values at cell centres). */
void hy_init(hy_block *b, hy_problem pb, const int origin[3], const int nglob[3]);

/* This block's sums over its interior cells of each conserved field (tot) and of its
 * magnitude (mag, the scale of a relative change), compensated (Kahan). */
void hy_totals(const hy_block *b, double tot[HY_NV], double mag[HY_NV]);

/* This block's sum of |rho - rho_exact(x, t)| over its interior cells (Sod). */
double hy_sod_l1_sum(const hy_block *b, const hy_riemann *rs, const int origin[3],
                     const int nglob[3], double t);

/* Index of the first interior cell with a non-finite field, or -1. */
long long hy_first_nonfinite(const hy_block *b);

/* --inject corrupt: add 0.1 to every interior density, which no check may let through. */
void hy_corrupt(hy_block *b);

#endif
