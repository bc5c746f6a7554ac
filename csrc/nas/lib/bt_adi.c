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

enum { L = ADI_LANES };
_Static_assert(ADI_LANES == LU_LANES, "a batch of lines is a set of lanes of blocks");

/* A 5x5 block and a 5-vector of every lane of a batch, the lanes innermost (vectorised). */
typedef lu_lmat lmat;
typedef lu_lvec lvec;

/* x = x - M y */
static inline void matvec_sub(const lmat M, const lvec y, lvec x)
{
    for (int m = 0; m < 5; m++)
        for (int n = 0; n < 5; n++)
            for (int l = 0; l < L; l++)
                x[m][l] -= M[m][n][l] * y[n][l];
}

/* B = B - A C */
static inline void matmul_sub(const lmat A, const lmat C, lmat B)
{
    for (int m = 0; m < 5; m++)
        for (int n = 0; n < 5; n++)
            for (int k = 0; k < 5; k++)
                for (int l = 0; l < L; l++)
                    B[m][n][l] -= A[m][k][l] * C[k][n][l];
}

/* C = B^-1 C and r = B^-1 r by Gaussian elimination without pivoting (B is destroyed). */
static inline void solve_cr(lmat B, lmat C, lvec r)
{
    double f[L], inv[L];
    for (int p = 0; p < 4; p++) {
        for (int l = 0; l < L; l++)
            inv[l] = 1.0 / B[p][p][l];
        for (int m = p + 1; m < 5; m++) {
            for (int l = 0; l < L; l++)
                f[l] = inv[l] * B[m][p][l];
            for (int n = p + 1; n < 5; n++)
                for (int l = 0; l < L; l++)
                    B[m][n][l] -= f[l] * B[p][n][l];
            for (int n = 0; n < 5; n++)
                for (int l = 0; l < L; l++)
                    C[m][n][l] -= f[l] * C[p][n][l];
            for (int l = 0; l < L; l++)
                r[m][l] -= f[l] * r[p][l];
        }
    }
    for (int m = 4; m >= 0; m--) {
        for (int n = m + 1; n < 5; n++) {
            for (int c = 0; c < 5; c++)
                for (int l = 0; l < L; l++)
                    C[m][c][l] -= B[m][n][l] * C[n][c][l];
            for (int l = 0; l < L; l++)
                r[m][l] -= B[m][n][l] * r[n][l];
        }
        for (int l = 0; l < L; l++)
            f[l] = 1.0 / B[m][m][l];
        for (int c = 0; c < 5; c++)
            for (int l = 0; l < L; l++)
                C[m][c][l] *= f[l];
        for (int l = 0; l < L; l++)
            r[m][l] *= f[l];
    }
}

/* The blocks of point p of a batch's lines (u at its first line's point, s the points' and ls
 * the lines' stride): the diagonal B, the upper neighbour's C and, when lower, the lower A. */
static void blocks(const bt_ctx *bt, int d, const double *u, size_t s, size_t ls, int nl,
                   int lower, lmat A, lmat B, lmat C)
{
    lu_lvec q;
    lu_states(u, ls, nl, q);
    lu_diagonal(bt->g, q, bt->w[d], B);
    lu_states(u + s, ls, nl, q);
    lu_neighbour(bt->g, q, d, 1.0, C);
    if (lower) {
        lu_states(u - s, ls, nl, q);
        lu_neighbour(bt->g, q, d, -1.0, A);
    }
}

/* The eliminated upper blocks C' of a batch's points, kept from its forward elimination for
 * its back substitution. */
static lmat *batch_cp(const bt_ctx *bt, int d, int i, int j, int k, int len)
{
    return (lmat *)bt->cp + (size_t)adi_batch(bt->g, d, i, j, k) * (size_t)len;
}

/* The previous point's C' and r' of each lane from a message (30 doubles a line). */
static void unpack(const double *in, int nl, lmat C, lvec r)
{
    for (int l = 0; l < L; l++) {
        const double *m = in + 30 * adi_lane(l, nl);
        for (int x = 0; x < 25; x++)
            C[x / 5][x % 5][l] = m[x];
        for (int x = 0; x < 5; x++)
            r[x][l] = m[25 + x];
    }
}

/* The forward elimination of nl lines side by side (adi_line_fn): in, the previous point's
 * C' and r' of each (30 doubles; NULL at the global start); out, their last point's. */
static void forward(void *ctx, int d, int i, int j, int k, size_t s, int len, int nl, size_t ls,
                    const double *in, double *out)
{
    bt_ctx *bt = ctx;
    lu_ctx *g = bt->g;
    const double *u = lu_at(g, g->u, i, j, k);
    double *r = lu_at(g, g->rsd, i, j, k);
    lmat *cp = batch_cp(bt, d, i, j, k, len), A, B, Cin;
    lvec *rr = bt->rr, rin;
    adi_lanes_move(r, s, ls, len, nl, rr, 1);
    if (in)
        unpack(in, nl, Cin, rin);
    for (int p = 0; p < len; p++) {
        int lower = p > 0 || in;
        blocks(bt, d, u + p * s, s, ls, nl, lower, A, B, cp[p]);
        if (lower) {
            matvec_sub(A, p > 0 ? rr[p - 1] : rin, rr[p]);
            matmul_sub(A, p > 0 ? cp[p - 1] : Cin, B);
        }
        solve_cr(B, cp[p], rr[p]);
    }
    adi_lanes_move(r, s, ls, len, nl, rr, 0);
    for (int l = 0; l < nl; l++)
        for (int x = 0; x < 30; x++)
            out[30 * l + x] = x < 25 ? cp[len - 1][x / 5][x % 5][l] : rr[len - 1][x - 25][l];
}

/* The back substitution of nl lines side by side: in, the solution after each line's last
 * point (5 doubles; NULL at the global end, where it is zero); out, its first point's. */
static void backward(void *ctx, int d, int i, int j, int k, size_t s, int len, int nl, size_t ls,
                     const double *in, double *out)
{
    bt_ctx *bt = ctx;
    double *r = lu_at(bt->g, bt->g->rsd, i, j, k);
    const lmat *cp = batch_cp(bt, d, i, j, k, len);
    lvec *rr = bt->rr;
    adi_lanes_move(r, s, ls, len, nl, rr, 1);
    for (int l = 0; l < L; l++)
        for (int m = 0; m < 5; m++)
            rr[len][m][l] = in ? in[5 * adi_lane(l, nl) + m] : 0.0;
    for (int p = len - 1; p >= 0; p--)
        if (p < len - 1 || in)
            matvec_sub(cp[p], rr[p + 1], rr[p]);
    adi_lanes_move(r, s, ls, len, nl, rr, 0);
    for (int l = 0; l < nl; l++)
        for (int m = 0; m < 5; m++)
            out[5 * l + m] = rr[0][m][l];
}

int bt_setup(bt_ctx *bt, lu_ctx *g)
{
    static const int PHASE[3] = {BT_PH_XSOLVE, BT_PH_YSOLVE, BT_PH_ZSOLVE};
    memset(bt, 0, sizeof *bt);
    bt->g = g;
    for (int d = 0; d < 3; d++)   /* BT's lhsb: I + 2 dt t1 (N + diffusion) of its direction */
        bt->w[d][d] = 2.0 * g->dt * g->dir[d].t1;
    bt->cp = aligned_alloc(64, adi_batch_points(g) * sizeof(lmat));
    bt->rr = aligned_alloc(64, (size_t)(g->nz + 2) * sizeof(lvec));
    int pipe = adi_pipe_init(&bt->pipe, g, bt, 30, 5, forward, backward, PHASE);
    int prim = adi_prim_init(&bt->prim, g);
    return bt->cp && bt->rr && !pipe && !prim ? 0 : -1;
}

void bt_free(bt_ctx *bt)
{
    free(bt->cp);
    free(bt->rr);
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
