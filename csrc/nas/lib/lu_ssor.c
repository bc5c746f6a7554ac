/* lu_ssor.c - NPB LU's SSOR iteration: the 5x5 blocks of the implicit operator (jacld, jacu),
 * the block lower and upper triangular solves (blts, buts) and their pipelined wavefront over
 * the k planes (exchange_1): a rank solves plane k once its north and west neighbours have
 * sent their last row and column of it, then passes its own on to the south and east (the
 * upper sweep runs the other way). */
#include "lu_blocks.h"

#include <string.h>

enum { TAG_LOWER_I = 21, TAG_LOWER_J, TAG_UPPER_I, TAG_UPPER_J };

/* y -= w * (M1 x1 + M2 x2), the products interleaved as NPB's. */
static void sub2(double *y, double w, lu_mat5 M1, const double *x1, lu_mat5 M2,
                 const double *x2)
{
    for (int m = 0; m < 5; m++) {
        double s = 0.0;
        for (int n = 0; n < 5; n++)
            s += M1[m][n] * x1[n] + M2[m][n] * x2[n];
        y[m] -= w * s;
    }
}

/* Lower sweep of row j of plane k (jacld + blts). */
static void lower_row(lu_ctx *g, int j, int k)
{
    lu_mat5 A, B, C, D;
    for (int i = g->ist; i <= g->iend; i++) {
        double *v = lu_at(g, g->rsd, i, j, k);
        lu_diagonal(g, lu_at(g, g->u, i, j, k), g->wdiag, D);
        lu_neighbour(g, lu_at(g, g->u, i, j, k - 1), 2, -1.0, A);
        lu_neighbour(g, lu_at(g, g->u, i, j - 1, k), 1, -1.0, B);
        lu_neighbour(g, lu_at(g, g->u, i - 1, j, k), 0, -1.0, C);
        const double *vz = lu_at(g, g->rsd, i, j, k - 1);
        for (int m = 0; m < 5; m++) {
            double s = 0.0;
            for (int n = 0; n < 5; n++)
                s += A[m][n] * vz[n];
            v[m] -= g->omega * s;
        }
        sub2(v, g->omega, B, lu_at(g, g->rsd, i, j - 1, k), C, lu_at(g, g->rsd, i - 1, j, k));
        lu_solve5(D, v);
    }
}

/* Upper sweep of row j of plane k (jacu + buts). */
static void upper_row(lu_ctx *g, int j, int k)
{
    lu_mat5 A, B, C, D;
    for (int i = g->iend; i >= g->ist; i--) {
        double *v = lu_at(g, g->rsd, i, j, k), t[5] = {0};
        lu_diagonal(g, lu_at(g, g->u, i, j, k), g->wdiag, D);
        lu_neighbour(g, lu_at(g, g->u, i + 1, j, k), 0, 1.0, A);
        lu_neighbour(g, lu_at(g, g->u, i, j + 1, k), 1, 1.0, B);
        lu_neighbour(g, lu_at(g, g->u, i, j, k + 1), 2, 1.0, C);
        const double *vz = lu_at(g, g->rsd, i, j, k + 1);
        for (int m = 0; m < 5; m++) {
            double s = 0.0;
            for (int n = 0; n < 5; n++)
                s += C[m][n] * vz[n];
            t[m] = g->omega * s;
        }
        sub2(t, -g->omega, B, lu_at(g, g->rsd, i, j + 1, k), A, lu_at(g, g->rsd, i + 1, j, k));
        lu_solve5(D, t);
        for (int m = 0; m < 5; m++)
            v[m] -= t[m];
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
