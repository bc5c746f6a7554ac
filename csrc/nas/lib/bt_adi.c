/* bt_adi.c - NPB BT's time step: the approximate factorisation (ADI) of the implicit operator
 * into three block tridiagonal systems, one per direction, each solved along its grid lines by
 * the block Thomas algorithm (NPB's x_solve, y_solve, z_solve with binvcrhs, matmul_sub,
 * matvec_sub), then u = u + du (add).
 *
 * Decomposition (docs/nas_bt.md): LU's 2-D grid over (i, j) (lib/lu_grid.h). Lines along k are
 * whole on every rank. A line along i (j) crosses the ranks of a grid column (row): the forward
 * elimination runs rank after rank, each passing the last point's eliminated block C' and
 * right-hand side r' of every line of a k plane to the next rank, and the back substitution
 * returns the first point's solution the other way; the planes are pipelined, so the ranks of
 * a line overlap on different planes as LU's wavefront does. */
#include "bt_adi.h"

#include "lu_blocks.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_FORWARD = 31, TAG_BACK = 32 };

const hpc_phase_def bt_phase_defs[BT_NPHASES] = {
    {"rhs", HPC_KIND_COMPUTE},   {"norm", HPC_KIND_COMPUTE},   {"halo", HPC_KIND_COMM},
    {"pipeline", HPC_KIND_COMM}, {"reduce", HPC_KIND_COMM},    {"xsolve", HPC_KIND_COMPUTE},
    {"ysolve", HPC_KIND_COMPUTE}, {"zsolve", HPC_KIND_COMPUTE}, {"add", HPC_KIND_COMPUTE}};

/* x = x - M y */
static inline void matvec_sub(lu_mat5 M, const double *y, double *x)
{
    for (int m = 0; m < 5; m++)
        x[m] = x[m] - M[m][0] * y[0] - M[m][1] * y[1] - M[m][2] * y[2] - M[m][3] * y[3]
               - M[m][4] * y[4];
}

/* B = B - A C */
static inline void matmul_sub(lu_mat5 A, lu_mat5 C, lu_mat5 B)
{
    for (int m = 0; m < 5; m++)
        for (int n = 0; n < 5; n++)
            B[m][n] = B[m][n] - A[m][0] * C[0][n] - A[m][1] * C[1][n] - A[m][2] * C[2][n]
                      - A[m][3] * C[3][n] - A[m][4] * C[4][n];
}

/* C = B^-1 C and r = B^-1 r by Gaussian elimination without pivoting (B is destroyed). */
static inline void solve_cr(double B[restrict 5][5], double C[restrict 5][5], double *restrict r)
{
    for (int p = 0; p < 4; p++) {
        double inv = 1.0 / B[p][p];
        for (int m = p + 1; m < 5; m++) {
            double f = inv * B[m][p];
            for (int n = p + 1; n < 5; n++)
                B[m][n] -= f * B[p][n];
            for (int n = 0; n < 5; n++)
                C[m][n] -= f * C[p][n];
            r[m] -= f * r[p];
        }
    }
    for (int m = 4; m >= 0; m--) {
        double inv = 1.0 / B[m][m];
        for (int n = m + 1; n < 5; n++) {
            for (int c = 0; c < 5; c++)
                C[m][c] -= B[m][n] * C[n][c];
            r[m] -= B[m][n] * r[n];
        }
        for (int c = 0; c < 5; c++)
            C[m][c] *= inv;
        r[m] *= inv;
    }
}

/* One line of direction d: len points from local (i, j, k) on, stride s doubles in the fields.
 * The forward elimination, given the previous point's C' and r' (NULL at the global start);
 * every point's C' is kept in bt->cp (25 doubles a point) for the back substitution. */
static void forward(bt_ctx *bt, int d, int i, int j, int k, size_t s, int len, const double *cin,
                    const double *rin)
{
    lu_ctx *g = bt->g;
    const double *u = lu_at(g, g->u, i, j, k);
    double *r = lu_at(g, g->rsd, i, j, k), *cp = bt->cp + (lu_at(g, g->rsd, i, j, k) - g->rsd) * 5;
    lu_mat5 A, B;
    for (int p = 0; p < len; p++, u += s, r += s, cp += 5 * s) {
        double (*C)[5] = (double (*)[5])cp;
        lu_diagonal(g, u, bt->w[d], B);
        lu_neighbour(g, u + s, d, 1.0, C);
        if (cin) {
            lu_neighbour(g, u - s, d, -1.0, A);
            matvec_sub(A, rin, r);
            matmul_sub(A, (double (*)[5])cin, B);
        }
        solve_cr(B, C, r);
        cin = cp;
        rin = r;
    }
}

/* The back substitution along the same line, given the solution after its last point (NULL at
 * the global end, where it is zero). */
static void backward(bt_ctx *bt, int i, int j, int k, size_t s, int len, const double *next)
{
    lu_ctx *g = bt->g;
    double *r = lu_at(g, g->rsd, i, j, k) + (size_t)(len - 1) * s;
    const double *cp = bt->cp + (r - g->rsd) * 5;
    for (int p = len - 1; p >= 0; p--, r -= s, cp -= 5 * s) {
        if (next)
            matvec_sub((double (*)[5])cp, next, r);
        next = r;
    }
}

/* The lines of direction d (0 i, 1 j) in plane k: their count; line t starts at (i0, j0). */
static int lines(const lu_ctx *g, int d, int t, int *i0, int *j0)
{
    *i0 = d == 0 ? g->ist : g->ist + t;
    *j0 = d == 0 ? g->jst + t : g->jst;
    return d == 0 ? g->jend - g->jst + 1 : g->iend - g->ist + 1;
}

/* The forward elimination of the lines of direction d (0 or 1), plane by plane: each plane's
 * C' and r' of the lines' last points go on to the rank after, once it is done. */
static void forward_planes(bt_ctx *bt, int d, int before, int after)
{
    lu_ctx *g = bt->g;
    size_t s = d == 0 ? g->sx : g->sy;
    int len = d == 0 ? g->iend - g->ist + 1 : g->jend - g->jst + 1, i0, j0;
    int n = lines(g, d, 0, &i0, &j0), in = before != MPI_PROC_NULL;
    for (int k = 2; k <= g->nz - 1; k++) {
        lu_phase(g, LU_PH_PIPE);
        if (in)
            MPI_Recv(bt->buf, 30 * n, MPI_DOUBLE, before, TAG_FORWARD, g->comm,
                     MPI_STATUS_IGNORE);
        lu_phase(g, d == 0 ? BT_PH_XSOLVE : BT_PH_YSOLVE);
        for (int t = 0; t < n; t++) {
            double *msg = bt->buf + 30 * t;
            lines(g, d, t, &i0, &j0);
            forward(bt, d, i0, j0, k, s, len, in ? msg : NULL, in ? msg + 25 : NULL);
            double *last = lu_at(g, g->rsd, i0, j0, k) + (size_t)(len - 1) * s;
            memcpy(msg, bt->cp + (last - g->rsd) * 5, 25 * sizeof(double));
            memcpy(msg + 25, last, 5 * sizeof(double));
        }
        lu_phase(g, LU_PH_PIPE);
        if (after != MPI_PROC_NULL)
            MPI_Send(bt->buf, 30 * n, MPI_DOUBLE, after, TAG_FORWARD, g->comm);
    }
}

/* The back substitution of the same lines: the first points' solutions go back. */
static void backward_planes(bt_ctx *bt, int d, int before, int after)
{
    lu_ctx *g = bt->g;
    size_t s = d == 0 ? g->sx : g->sy;
    int len = d == 0 ? g->iend - g->ist + 1 : g->jend - g->jst + 1, i0, j0;
    int n = lines(g, d, 0, &i0, &j0), in = after != MPI_PROC_NULL;
    for (int k = 2; k <= g->nz - 1; k++) {
        lu_phase(g, LU_PH_PIPE);
        if (in)
            MPI_Recv(bt->buf, 5 * n, MPI_DOUBLE, after, TAG_BACK, g->comm, MPI_STATUS_IGNORE);
        lu_phase(g, d == 0 ? BT_PH_XSOLVE : BT_PH_YSOLVE);
        for (int t = 0; t < n; t++) {
            lines(g, d, t, &i0, &j0);
            backward(bt, i0, j0, k, s, len, in ? bt->buf + 5 * t : NULL);
            memcpy(bt->buf + 5 * t, lu_at(g, g->rsd, i0, j0, k), 5 * sizeof(double));
        }
        lu_phase(g, LU_PH_PIPE);
        if (before != MPI_PROC_NULL)
            MPI_Send(bt->buf, 5 * n, MPI_DOUBLE, before, TAG_BACK, g->comm);
    }
}

/* The lines along k: whole on every rank. */
static void solve_local(bt_ctx *bt)
{
    lu_ctx *g = bt->g;
    lu_phase(g, BT_PH_ZSOLVE);
    for (int j = g->jst; j <= g->jend; j++)
        for (int i = g->ist; i <= g->iend; i++) {
            forward(bt, 2, i, j, 2, g->sz, g->nz - 2, NULL, NULL);
            backward(bt, i, j, 2, g->sz, g->nz - 2, NULL);
        }
}

int bt_setup(bt_ctx *bt, lu_ctx *g)
{
    memset(bt, 0, sizeof *bt);
    bt->g = g;
    for (int d = 0; d < 3; d++)   /* BT's lhsb: I + 2 dt t1 (N + diffusion) of its direction */
        bt->w[d][d] = 2.0 * g->dt * g->dir[d].t1;
    bt->cp = calloc((size_t)(g->nz + 2) * g->sz * 5, sizeof(double));
    int longest = g->nx > g->ny ? g->nx : g->ny;
    bt->buf = malloc(30 * (size_t)longest * sizeof(double));
    return bt->cp && bt->buf ? 0 : -1;
}

void bt_free(bt_ctx *bt)
{
    free(bt->cp);
    free(bt->buf);
}

void bt_step(bt_ctx *bt)
{
    lu_ctx *g = bt->g;
    lu_rhs(g);
    lu_phase(g, LU_PH_RHS);
    for (int k = 2; k <= g->nz - 1; k++)   /* BT's rhs is dt times LU's */
        for (int j = g->jst; j <= g->jend; j++)
            for (int i = g->ist; i <= g->iend; i++) {
                double *r = lu_at(g, g->rsd, i, j, k);
                for (int m = 0; m < 5; m++)
                    r[m] *= g->dt;
            }
    forward_planes(bt, 0, g->north, g->south);
    backward_planes(bt, 0, g->north, g->south);
    forward_planes(bt, 1, g->west, g->east);
    backward_planes(bt, 1, g->west, g->east);
    solve_local(bt);
    lu_phase(g, BT_PH_ADD);
    for (int k = 2; k <= g->nz - 1; k++)
        for (int j = g->jst; j <= g->jend; j++)
            for (int i = g->ist; i <= g->iend; i++) {
                double *u = lu_at(g, g->u, i, j, k);
                const double *r = lu_at(g, g->rsd, i, j, k);
                for (int m = 0; m < 5; m++)
                    u[m] = u[m] + r[m];
            }
}
