/* bt_adi.c - NPB BT's time step: the approximate factorisation (ADI) of the implicit operator
 * into three block tridiagonal systems, one per direction, each solved along its grid lines by
 * the block Thomas algorithm (NPB's x_solve, y_solve, z_solve with binvcrhs, matmul_sub,
 * matvec_sub), then u = u + du (add). The lines run through lib/adi_pipe.h: across the ranks
 * a line passes its last point's C' and r' forward and its first point's solution back. */
#include "bt_adi.h"

#include "lu_blocks.h"

#include <stdlib.h>
#include <string.h>

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

/* The forward elimination of one line (adi_line_fn): in, the previous point's C' and r' (30
 * doubles; NULL at the global start); out, the last point's. Every point's C' is kept in
 * bt->cp (25 doubles a point) for the back substitution. */
static void forward_line(bt_ctx *bt, int d, size_t at, size_t s, int len, const double *in,
                         double *out)
{
    lu_ctx *g = bt->g;
    const double *u = g->u + at, *cin = in, *rin = in ? in + 25 : NULL;
    double *r = g->rsd + at, *cp = bt->cp + at * 5;
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
    memcpy(out, cin, 25 * sizeof(double));
    memcpy(out + 25, rin, 5 * sizeof(double));
}

/* The back substitution along the same line: in, the solution after its last point (NULL at
 * the global end, where it is zero); out, its first point's. */
static void backward_line(bt_ctx *bt, size_t at, size_t s, int len, const double *in,
                          double *out)
{
    lu_ctx *g = bt->g;
    double *r = g->rsd + at + (size_t)(len - 1) * s;
    const double *cp = bt->cp + (r - g->rsd) * 5, *next = in;
    for (int p = len - 1; p >= 0; p--, r -= s, cp -= 5 * s) {
        if (next)
            matvec_sub((double (*)[5])cp, next, r);
        next = r;
    }
    memcpy(out, next, 5 * sizeof(double));
}

/* The lines of a batch one after the other (adi_line_fn). */
static void forward(void *ctx, int d, int i, int j, int k, size_t s, int len, int nl, size_t ls,
                    const double *in, double *out)
{
    bt_ctx *bt = ctx;
    size_t at = (size_t)(lu_at(bt->g, bt->g->u, i, j, k) - bt->g->u);
    for (int l = 0; l < nl; l++)
        forward_line(bt, d, at + l * ls, s, len, in ? in + 30 * l : NULL, out + 30 * l);
}

static void backward(void *ctx, int d, int i, int j, int k, size_t s, int len, int nl, size_t ls,
                     const double *in, double *out)
{
    bt_ctx *bt = ctx;
    (void)d;
    size_t at = (size_t)(lu_at(bt->g, bt->g->u, i, j, k) - bt->g->u);
    for (int l = 0; l < nl; l++)
        backward_line(bt, at + l * ls, s, len, in ? in + 5 * l : NULL, out + 5 * l);
}

int bt_setup(bt_ctx *bt, lu_ctx *g)
{
    static const int PHASE[3] = {BT_PH_XSOLVE, BT_PH_YSOLVE, BT_PH_ZSOLVE};
    memset(bt, 0, sizeof *bt);
    bt->g = g;
    for (int d = 0; d < 3; d++)   /* BT's lhsb: I + 2 dt t1 (N + diffusion) of its direction */
        bt->w[d][d] = 2.0 * g->dt * g->dir[d].t1;
    bt->cp = calloc((size_t)(g->nz + 2) * g->sz * 5, sizeof(double));
    int pipe = adi_pipe_init(&bt->pipe, g, bt, 30, 5, forward, backward, PHASE);
    int prim = adi_prim_init(&bt->prim, g);
    return bt->cp && !pipe && !prim ? 0 : -1;
}

void bt_free(bt_ctx *bt)
{
    free(bt->cp);
    adi_pipe_free(&bt->pipe);
    adi_prim_free(&bt->prim);
}

void bt_step(bt_ctx *bt)
{
    lu_ctx *g = bt->g;
    adi_rhs(g, &bt->prim, 0, g->dt);
    for (int d = 0; d < 3; d++)
        adi_solve(&bt->pipe, d);
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
