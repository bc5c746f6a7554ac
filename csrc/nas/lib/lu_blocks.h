/* lu_blocks.h - the 5x5 blocks of NPB's implicit operators (LU's jacld/jacu, BT's lhs) and
 * their small dense algebra, inline: they are the inner loops of LU's sweeps and BT's solves. */
#ifndef LU_BLOCKS_H
#define LU_BLOCKS_H

#include "lu_grid.h"

#include <string.h>

#define C34 (C3 * C4)
#define C1345 (C1 * C3 * C4 * C5)

/* The blocks are built LU_LANES points at a time, side by side: the points' states in
 * q[variable][lane], the blocks in M[row][column][lane], so that the vectoriser runs the lanes
 * (one division for 8 points). */
#define LU_LANES 8
typedef double lu_lvec[5][LU_LANES];
typedef double lu_lmat[5][5][LU_LANES];

/* The block coupling a point to its neighbour with state q along direction d (c = d + 1 its
 * momentum component): sign * dt * t2 * (the inviscid flux Jacobian) - dt * t1 * (the viscous
 * flux Jacobian + diffusion), sign -1 for the lower neighbour, +1 for the upper one (jacld's
 * a, b, c; jacu's). d a constant here (lu_neighbour), so that the indices fold. */
static inline __attribute__((always_inline)) void
neighbour_d(const lu_ctx *g, const lu_lvec q, const int d, double sign, lu_lmat M)
{
    const lu_dir *dc = &g->dir[d];
    const int c = d + 1;
    double s = sign * g->dt * dc->t2, t = -g->dt * dc->t1, f[4] = {0.0, C34, C34, C34};
    f[c] = 4.0 / 3.0 * C34;
    for (int l = 0; l < LU_LANES; l++) {
        double r = 1.0 / q[0][l], e = q[4][l] * r, X[5][5] = {{0}};
        double v[4] = {0.0, q[1][l] * r, q[2][l] * r, q[3][l] * r}, vc = v[c];
        double q2 = v[1] * v[1] + v[2] * v[2] + v[3] * v[3], sum = 0.0;
        X[0][c] = s;
        for (int m = 1; m <= 3; m++) {
            X[m][0] = -s * v[m] * vc - t * f[m] * v[m] * r;
            X[m][m] = s * vc + t * f[m] * r;
            X[m][c] += s * v[m];
            X[c][m] -= s * C2 * v[m];
            X[4][m] = -s * C2 * v[m] * vc + t * (f[m] - C1345) * v[m] * r;
            sum += (f[m] - C1345) * v[m] * v[m] * r;
        }
        X[c][0] += s * 0.5 * C2 * q2;
        X[c][4] = s * C2;
        X[4][0] = s * (C2 * q2 - C1 * e) * vc + t * (-sum - C1345 * e * r);
        X[4][c] += s * (C1 * e - 0.5 * C2 * q2);
        X[4][4] = s * C1 * vc + t * C1345 * r;
        for (int m = 0; m < 5; m++)
            X[m][m] += t * dc->d[m];
        for (int a = 0; a < 5; a++)
            for (int b = 0; b < 5; b++)
                M[a][b][l] = X[a][b];
    }
}

static inline void lu_neighbour(const lu_ctx *g, const lu_lvec q, int d, double sign, lu_lmat M)
{
    if (d == 0)
        neighbour_d(g, q, 0, sign, M);
    else if (d == 1)
        neighbour_d(g, q, 1, sign, M);
    else
        neighbour_d(g, q, 2, sign, M);
}

/* A diagonal block: I + sum over the directions d of w[d] * (the viscous flux Jacobian along d
 * + diffusion); the Jacobians differ only in the 4/3 of their own component. LU weighs all
 * three directions by 2 dt t1 (jacld), BT one at a time (its x, y, z solves). */
static inline void lu_diagonal(const lu_ctx *g, const lu_lvec q, const double w[3], lu_lmat D)
{
    double all = w[0] + w[1] + w[2], diff[5] = {0}, f[4];
    for (int d = 0; d < 3; d++)
        for (int m = 0; m < 5; m++)
            diff[m] += w[d] * g->dir[d].d[m];
    for (int m = 1; m <= 3; m++)
        f[m] = C34 * (all + w[m - 1] / 3.0);
    for (int l = 0; l < LU_LANES; l++) {
        double r = 1.0 / q[0][l], e = q[4][l] * r, sum = 0.0, X[5][5] = {{0}};
        for (int m = 1; m <= 3; m++) {
            double v = q[m][l] * r;
            X[m][0] = -f[m] * v * r;
            X[m][m] = f[m] * r;
            X[4][m] = (f[m] - all * C1345) * v * r;
            sum += (f[m] - all * C1345) * v * v * r;
        }
        X[4][0] = -sum - all * C1345 * e * r;
        X[4][4] = all * C1345 * r;
        for (int m = 0; m < 5; m++)
            X[m][m] += 1.0 + diff[m];
        for (int a = 0; a < 5; a++)
            for (int b = 0; b < 5; b++)
                D[a][b][l] = X[a][b];
    }
}

/* The states of LU_LANES points into lanes: point l at a + l * ls (the first n; the rest
 * repeat the first, a padding whose blocks are built and dropped). */
static inline void lu_states(const double *a, size_t ls, int n, lu_lvec q)
{
    for (int l = 0; l < LU_LANES; l++)
        for (int m = 0; m < 5; m++)
            q[m][l] = a[(l < n ? (size_t)l : 0) * ls + (size_t)m];
}

#endif
