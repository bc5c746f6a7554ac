/* lu_ssor.c - NPB LU's SSOR iteration: the 5x5 blocks of the implicit operator (jacld, jacu),
 * the block lower and upper triangular solves (blts, buts) and their pipelined wavefront over
 * the k planes (exchange_1): a rank solves plane k once its north and west neighbours have
 * sent their last row and column of it, then passes its own on to the south and east (the
 * upper sweep runs the other way). */
#include "lu_blocks.h"

#include <string.h>

enum { TAG_LOWER_I = 21, TAG_LOWER_J, TAG_UPPER_I, TAG_UPPER_J };

enum { L = LU_LANES };

/* Factor the lanes' blocks in place (Gaussian elimination without pivoting, NPB's order):
 * below the diagonal the multipliers, above it the eliminated rows, on it the pivots'
 * reciprocals. */
static void factor(lu_lmat T)
{
    for (int p = 0; p < 5; p++) {
        for (int l = 0; l < L; l++)
            T[p][p][l] = 1.0 / T[p][p][l];
        for (int m = p + 1; m < 5; m++) {
            for (int l = 0; l < L; l++)
                T[m][p][l] *= T[p][p][l];
            for (int n = p + 1; n < 5; n++)
                for (int l = 0; l < L; l++)
                    T[m][n][l] -= T[m][p][l] * T[p][n][l];
        }
    }
}

/* x = T^-1 x with lane l of a factored block. */
static inline void solve(const lu_lmat T, int l, double *x)
{
    for (int p = 0; p < 4; p++)
        for (int m = p + 1; m < 5; m++)
            x[m] -= x[p] * T[m][p][l];
    for (int m = 4; m >= 0; m--) {
        for (int n = m + 1; n < 5; n++)
            x[m] -= T[m][n][l] * x[n];
        x[m] *= T[m][m][l];
    }
}

/* t += w * (M x), every lane. */
static inline void add_product(lu_lvec t, double w, const lu_lmat M, const lu_lvec x)
{
    for (int m = 0; m < 5; m++) {
        double s[L] = {0};
        for (int n = 0; n < 5; n++)
            for (int l = 0; l < L; l++)
                s[l] += M[m][n][l] * x[n][l];
        for (int l = 0; l < L; l++)
            t[m][l] += w * s[l];
    }
}

/* The blocks of n (<= L) points of row (j, k) from local i0, all but the one along i side by
 * side (jacld, jacu: dir -1 and +1): D factored, and t = w * (the k neighbour's and the j
 * neighbour's products) plus the points' own residuals when lower. M: the block along i. */
static void row_lanes(lu_ctx *g, int i0, int n, int j, int k, int dir, lu_lmat M, lu_lmat D,
                      lu_lvec t)
{
    lu_lmat Z, Y;
    lu_lvec q, vz, vy;
    int lower = dir < 0;
    lu_states(lu_at(g, g->u, i0, j, k), 5, n, q);
    lu_diagonal(g, q, g->wdiag, D);
    factor(D);
    lu_states(lu_at(g, g->u, i0, j, k + dir), 5, n, q);
    lu_neighbour(g, q, 2, dir, Z);
    lu_states(lu_at(g, g->u, i0, j + dir, k), 5, n, q);
    lu_neighbour(g, q, 1, dir, Y);
    lu_states(lu_at(g, g->u, i0 + dir, j, k), 5, n, q);
    lu_neighbour(g, q, 0, dir, M);
    lu_states(lu_at(g, g->rsd, i0, j, k + dir), 5, n, vz);
    lu_states(lu_at(g, g->rsd, i0, j + dir, k), 5, n, vy);
    if (lower)
        lu_states(lu_at(g, g->rsd, i0, j, k), 5, n, t);
    else
        memset(t, 0, sizeof(lu_lvec));
    double w = lower ? -g->omega : g->omega;
    add_product(t, w, Z, vz);
    add_product(t, w, Y, vy);
}

/* Lower sweep of row j of plane k (jacld + blts): the blocks L points at a time, then the
 * recurrence along i point by point. */
static void lower_row(lu_ctx *g, int j, int k)
{
    lu_lmat C, D;
    lu_lvec t;
    for (int i0 = g->ist; i0 <= g->iend; i0 += L) {
        int n = g->iend - i0 + 1 < L ? g->iend - i0 + 1 : L;
        row_lanes(g, i0, n, j, k, -1, C, D, t);
        for (int l = 0; l < n; l++) {
            double *v = lu_at(g, g->rsd, i0 + l, j, k), x[5];
            const double *vx = v - 5;
            for (int m = 0; m < 5; m++) {
                double s = 0.0;
                for (int c = 0; c < 5; c++)
                    s += C[m][c][l] * vx[c];
                x[m] = t[m][l] - g->omega * s;
            }
            solve(D, l, x);
            memcpy(v, x, sizeof x);
        }
    }
}

/* Upper sweep of row j of plane k (jacu + buts), i downwards. */
static void upper_row(lu_ctx *g, int j, int k)
{
    lu_lmat A, D;
    lu_lvec t;
    for (int hi = g->iend; hi >= g->ist; hi -= L) {
        int n = hi - g->ist + 1 < L ? hi - g->ist + 1 : L, i0 = hi - n + 1;
        row_lanes(g, i0, n, j, k, 1, A, D, t);
        for (int l = n - 1; l >= 0; l--) {
            double *v = lu_at(g, g->rsd, i0 + l, j, k), x[5];
            const double *vx = v + 5;
            for (int m = 0; m < 5; m++) {
                double s = 0.0;
                for (int c = 0; c < 5; c++)
                    s += A[m][c][l] * vx[c];
                x[m] = t[m][l] + g->omega * s;
            }
            solve(D, l, x);
            for (int m = 0; m < 5; m++)
                v[m] -= x[m];
        }
    }
}

/* Copy the residual's row i = at (j over the interior) or column j = at of plane k to or
 * from buf; the number of doubles. */
static int edge(lu_ctx *g, int k, int row, int at, double *buf, int out)
{
    int lo = row ? g->jst : g->ist, hi = row ? g->jend : g->iend, n = 0;
    for (int t = lo; t <= hi; t++, n += 5) {
        double *p = row ? lu_at(g, g->rsd, at, t, k) : lu_at(g, g->rsd, t, at, k);
        if (out)
            memcpy(buf + n, p, 5 * sizeof(double));
        else
            memcpy(p, buf + n, 5 * sizeof(double));
    }
    return n;
}

static void pipe_recv(lu_ctx *g, int k, int from, int row, int at, int tag)
{
    if (from == MPI_PROC_NULL)
        return;
    int n = edge(g, k, row, at, g->hbuf, 1);   /* the count; the copy is overwritten */
    MPI_Recv(g->hbuf, n, MPI_DOUBLE, from, tag, g->comm, MPI_STATUS_IGNORE);
    edge(g, k, row, at, g->hbuf, 0);
}

static void pipe_send(lu_ctx *g, int k, int to, int row, int at, int tag)
{
    if (to == MPI_PROC_NULL)
        return;
    int n = edge(g, k, row, at, g->hbuf, 1);
    MPI_Send(g->hbuf, n, MPI_DOUBLE, to, tag, g->comm);
}

static void lower_sweep(lu_ctx *g)
{
    for (int k = 2; k <= g->nz - 1; k++) {
        lu_phase(g, LU_PH_PIPE);
        pipe_recv(g, k, g->north, 1, 0, TAG_LOWER_I);
        pipe_recv(g, k, g->west, 0, 0, TAG_LOWER_J);
        lu_phase(g, LU_PH_LOWER);
        for (int j = g->jst; j <= g->jend; j++)
            lower_row(g, j, k);
        lu_phase(g, LU_PH_PIPE);
        pipe_send(g, k, g->south, 1, g->nx, TAG_LOWER_I);
        pipe_send(g, k, g->east, 0, g->ny, TAG_LOWER_J);
    }
}

static void upper_sweep(lu_ctx *g)
{
    for (int k = g->nz - 1; k >= 2; k--) {
        lu_phase(g, LU_PH_PIPE);
        pipe_recv(g, k, g->south, 1, g->nx + 1, TAG_UPPER_I);
        pipe_recv(g, k, g->east, 0, g->ny + 1, TAG_UPPER_J);
        lu_phase(g, LU_PH_UPPER);
        for (int j = g->jend; j >= g->jst; j--)
            upper_row(g, j, k);
        lu_phase(g, LU_PH_PIPE);
        pipe_send(g, k, g->north, 1, 1, TAG_UPPER_I);
        pipe_send(g, k, g->west, 0, 1, TAG_UPPER_J);
    }
}

/* Over the interior points: y = a * y (x NULL) or y = y + a * x. */
static void interior_axpy(lu_ctx *g, double *y, double a, double *x)
{
    for (int k = 2; k <= g->nz - 1; k++)
        for (int j = g->jst; j <= g->jend; j++)
            for (int i = g->ist; i <= g->iend; i++) {
                double *p = lu_at(g, y, i, j, k);
                const double *q = x ? lu_at(g, x, i, j, k) : p;
                for (int m = 0; m < 5; m++)
                    p[m] = x ? p[m] + a * q[m] : a * p[m];
            }
}

void lu_ssor_step(lu_ctx *g, double *delta)
{
    lu_phase(g, LU_PH_UPDATE);
    interior_axpy(g, g->rsd, g->dt, NULL);   /* rsd = dt * rsd */
    lower_sweep(g);
    upper_sweep(g);
    lu_phase(g, LU_PH_UPDATE);
    interior_axpy(g, g->u, 1.0 / (g->omega * (2.0 - g->omega)), g->rsd);
    if (delta)
        lu_l2norm(g, g->rsd, delta);
    lu_rhs(g);
}
