/* lu_blocks.h - the 5x5 blocks of NPB's implicit operators (LU's jacld/jacu, BT's lhs) and
 * their small dense algebra, inline: they are the inner loops of LU's sweeps and BT's solves. */
#ifndef LU_BLOCKS_H
#define LU_BLOCKS_H

#include "lu_grid.h"

#include <string.h>

#define C34 (C3 * C4)
#define C1345 (C1 * C3 * C4 * C5)

typedef double lu_mat5[5][5];

/* The block coupling a point to its neighbour with state q along direction d (c = d + 1 its
 * momentum component): sign * dt * t2 * (the inviscid flux Jacobian) - dt * t1 * (the viscous
 * flux Jacobian + diffusion), sign -1 for the lower neighbour, +1 for the upper one (jacld's
 * a, b, c; jacu's). */
static inline void lu_neighbour(const lu_ctx *g, const double *restrict q, int d, double sign,
                                double M[restrict 5][5])
{
    const lu_dir *dc = &g->dir[d];
    int c = d + 1;
    double s = sign * g->dt * dc->t2, t = -g->dt * dc->t1;
    double r = 1.0 / q[0], v[3] = {q[1] * r, q[2] * r, q[3] * r}, vc = v[c - 1], e = q[4] * r;
    double q2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2], sum = 0.0;
    memset(M, 0, sizeof(lu_mat5));
    M[0][c] = s;
    for (int m = 1; m <= 3; m++) {
        double f = (m == c ? 4.0 / 3.0 : 1.0) * C34, vm = v[m - 1];
        M[m][0] = -s * vm * vc - t * f * vm * r;
        M[m][m] = s * vc + t * f * r;
        M[m][c] += s * vm;
        M[c][m] -= s * C2 * vm;
        M[4][m] = -s * C2 * vm * vc + t * (f - C1345) * vm * r;
        sum += (f - C1345) * vm * vm * r;
    }
    M[c][0] += s * 0.5 * C2 * q2;
    M[c][4] = s * C2;
    M[4][0] = s * (C2 * q2 - C1 * e) * vc + t * (-sum - C1345 * e * r);
    M[4][c] += s * (C1 * e - 0.5 * C2 * q2);
    M[4][4] = s * C1 * vc + t * C1345 * r;
    for (int m = 0; m < 5; m++)
        M[m][m] += t * dc->d[m];
}

/* A diagonal block: I + sum over the directions d of w[d] * (the viscous flux Jacobian along d
 * + diffusion); the Jacobians differ only in the 4/3 of their own component. LU weighs all
 * three directions by 2 dt t1 (jacld), BT one at a time (its x, y, z solves). */
static inline void lu_diagonal(const lu_ctx *g, const double *restrict q, const double w[3],
                               double D[restrict 5][5])
{
    double all = w[0] + w[1] + w[2], diff[5] = {0};
    for (int d = 0; d < 3; d++)
        for (int m = 0; m < 5; m++)
            diff[m] += w[d] * g->dir[d].d[m];
    double r = 1.0 / q[0], e = q[4] * r, sum = 0.0;
    memset(D, 0, sizeof(lu_mat5));
    for (int m = 1; m <= 3; m++) {
        double f = C34 * (all + w[m - 1] / 3.0), v = q[m] * r;
        D[m][0] = -f * v * r;
        D[m][m] = f * r;
        D[4][m] = (f - all * C1345) * v * r;
        sum += (f - all * C1345) * v * v * r;
    }
    D[4][0] = -sum - all * C1345 * e * r;
    D[4][4] = all * C1345 * r;
    for (int m = 0; m < 5; m++)
        D[m][m] += 1.0 + diff[m];
}

/* x = T^-1 x by Gaussian elimination without pivoting (T is destroyed), NPB's order. */
static inline void lu_solve5(double T[restrict 5][5], double *restrict x)
{
#pragma GCC unroll 4
    for (int p = 0; p < 4; p++) {
        double r = 1.0 / T[p][p];
        for (int m = p + 1; m < 5; m++) {
            double f = r * T[m][p];
            for (int n = p + 1; n < 5; n++)
                T[m][n] -= f * T[p][n];
            x[m] -= x[p] * f;
        }
    }
#pragma GCC unroll 5
    for (int m = 4; m >= 0; m--) {
        for (int n = m + 1; n < 5; n++)
            x[m] -= T[m][n] * x[n];
        x[m] /= T[m][m];
    }
}

#endif
