/* adi_pipe.c - the pipelined line solves of NPB's BT and SP on LU's 2-D grid. */
#include "adi_pipe.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_FORWARD = 31, TAG_BACK = 32 };

int adi_pipe_init(adi_pipe *a, lu_ctx *g, void *ctx, int fwd_n, int back_n,
                  adi_line_fn *forward, adi_line_fn *backward, const int phase[3])
{
    *a = (adi_pipe){.g = g, .ctx = ctx, .fwd_n = fwd_n, .back_n = back_n, .forward = forward,
                    .backward = backward};
    memcpy(a->phase, phase, sizeof a->phase);
    int longest = g->nx > g->ny ? g->nx : g->ny, most = fwd_n > back_n ? fwd_n : back_n;
    longest = longest > ADI_LANES ? longest : ADI_LANES;
    a->buf = malloc((size_t)most * (size_t)longest * sizeof(double));
    return a->buf ? 0 : -1;
}

int adi_batch(const lu_ctx *g, int d, int i, int j, int k)
{
    int ni = (g->iend - g->ist) / ADI_LANES + 1, nj = (g->jend - g->jst) / ADI_LANES + 1;
    if (d == 0)
        return (k - 2) * nj + (j - g->jst) / ADI_LANES;
    if (d == 1)
        return (k - 2) * ni + (i - g->ist) / ADI_LANES;
    return (j - g->jst) * ni + (i - g->ist) / ADI_LANES;
}

size_t adi_batch_points(const lu_ctx *g)
{
    size_t ni = (size_t)(g->iend - g->ist) / ADI_LANES + 1, li = (size_t)(g->iend - g->ist + 1);
    size_t nj = (size_t)(g->jend - g->jst) / ADI_LANES + 1, lj = (size_t)(g->jend - g->jst + 1);
    size_t nk = (size_t)g->nz - 2, n[3] = {nk * nj * li, nk * ni * lj, lj * ni * nk}, most = 0;
    for (int d = 0; d < 3; d++)
        most = n[d] > most ? n[d] : most;
    return most;
}

void adi_lanes_move(double *a, size_t s, size_t ls, int len, int nl,
                    double (*x)[5][ADI_LANES], int in)
{
    for (int p = 0; p < len; p++)
        for (int l = 0; l < ADI_LANES; l++) {
            double *y = a + p * s + adi_lane(l, nl) * ls;
            for (int m = 0; m < 5; m++)
                if (in)
                    x[p][m][l] = y[m];
                else if (l < nl)
                    y[m] = x[p][m][l];
        }
}

void adi_pipe_free(adi_pipe *a)
{
    free(a->buf);
}

/* The lines of direction d (0 i, 1 j) in a plane: their count; line t starts at (i0, j0). */
static int lines(const lu_ctx *g, int d, int t, int *i0, int *j0)
{
    *i0 = d == 0 ? g->ist : g->ist + t;
    *j0 = d == 0 ? g->jst + t : g->jst;
    return d == 0 ? g->jend - g->jst + 1 : g->iend - g->ist + 1;
}

/* One pass over the planes: each plane's messages from `from` (if any), the line function on
 * every line of the plane, the messages on to `to` (if any). */
static void pass(adi_pipe *a, int d, adi_line_fn *fn, int n_msg, int from, int to, int tag)
{
    lu_ctx *g = a->g;
    size_t s = d == 0 ? g->sx : g->sy;
    int len = d == 0 ? g->iend - g->ist + 1 : g->jend - g->jst + 1, i0, j0;
    int n = lines(g, d, 0, &i0, &j0), in = from != MPI_PROC_NULL;
    for (int k = 2; k <= g->nz - 1; k++) {
        lu_phase(g, LU_PH_PIPE);
        if (in)
            MPI_Recv(a->buf, n_msg * n, MPI_DOUBLE, from, tag, g->comm, MPI_STATUS_IGNORE);
        lu_phase(g, a->phase[d]);
        for (int t = 0; t < n; t += ADI_LANES) {   /* the lines' messages in, then out */
            double *msg = a->buf + (size_t)n_msg * t;
            int nl = n - t < ADI_LANES ? n - t : ADI_LANES;
            lines(g, d, t, &i0, &j0);
            fn(a->ctx, d, i0, j0, k, s, len, nl, d == 0 ? g->sy : g->sx, in ? msg : NULL, msg);
        }
        lu_phase(g, LU_PH_PIPE);
        if (to != MPI_PROC_NULL)
            MPI_Send(a->buf, n_msg * n, MPI_DOUBLE, to, tag, g->comm);
    }
}

void adi_solve(adi_pipe *a, int d)
{
    lu_ctx *g = a->g;
    if (d < 2) {
        int before = d == 0 ? g->north : g->west, after = d == 0 ? g->south : g->east;
        pass(a, d, a->forward, a->fwd_n, before, after, TAG_FORWARD);
        pass(a, d, a->backward, a->back_n, after, before, TAG_BACK);
        return;
    }
    lu_phase(g, a->phase[2]);
    for (int j = g->jst; j <= g->jend; j++)
        for (int i = g->ist; i <= g->iend; i += ADI_LANES) {
            int nl = g->iend - i + 1 < ADI_LANES ? g->iend - i + 1 : ADI_LANES;
            a->forward(a->ctx, 2, i, j, 2, g->sz, g->nz - 2, nl, g->sx, NULL, a->buf);
            a->backward(a->ctx, 2, i, j, 2, g->sz, g->nz - 2, nl, g->sx, NULL, a->buf);
        }
}
