/* sweep_quad.h - level-symmetric LQn quadrature sets (S2, S4, S6, S8) for the
 * sweep proxy: the directions of one octant (all cosines positive; an octant
 * flips their signs) and their weights, normalised so that the weights of all
 * eight octants sum to 1 (each octant's to 1/8). */
#ifndef SWEEP_QUAD_H
#define SWEEP_QUAD_H

#define SWEEP_MAX_ANGLES 10  /* directions per octant of S8 */

typedef struct {
    int sn;  /* order N */
    int nm;  /* directions per octant: N (N + 2) / 8 */
    double mu[SWEEP_MAX_ANGLES], eta[SWEEP_MAX_ANGLES], xi[SWEEP_MAX_ANGLES];
    double w[SWEEP_MAX_ANGLES];
} sweep_quad;

/* The set of order sn; -1 if there is none (sn not 2, 4, 6 or 8). Checks the
 * set's moments (sum w = 1/8, w mu^2 = 1/24, w mu^4 = 1/40 per octant) and
 * returns -2 if they are off (a wrong table). */
int sweep_quad_init(sweep_quad *q, int sn);

#endif
