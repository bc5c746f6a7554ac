/* adi_pipe.h - the line solves of an ADI time step (NPB's BT and SP) on LU's 2-D grid: the
 * lines along k are whole on every rank; a line along i (j) crosses the ranks of a grid column
 * (row), so its forward elimination runs rank after rank, each passing a few numbers per line
 * of a k plane on to the next rank once the plane is done, and its back substitution returns
 * a few numbers the other way. The planes are pipelined: the ranks of a line work on different
 * planes at once, as in LU's wavefront (docs/nas_bt.md). */
#ifndef ADI_PIPE_H
#define ADI_PIPE_H

#include "lu_grid.h"

/* Lines are solved ADI_LANES at a time, side by side, so that a kernel can run its
 * recurrences along the lines with the lines innermost (vectorised: one division for 8
 * lines), as NPB sweeps whole planes. */
#define ADI_LANES 8

/* How a kernel solves nl (1..ADI_LANES) lines of direction d side by side: the first from
 * local (i, j, k), the next ls doubles further in the fields, each len points with stride s
 * doubles. forward: in is what the previous rank passed (NULL at the global start), out what
 * to pass to the next; backward: in from the next rank (NULL at the global end), out for the
 * previous one; both a line's messages one after the other (in and out may be the same). */
typedef void adi_line_fn(void *ctx, int d, int i, int j, int k, size_t s, int len, int nl,
                         size_t ls, const double *in, double *out);

typedef struct {
    lu_ctx *g;
    void *ctx;                  /* the kernel's, passed to its line functions */
    int fwd_n, back_n;          /* doubles a line passes forward and back */
    int phase[3];               /* the phase of the solve along i, j, k */
    adi_line_fn *forward, *backward;
    double *buf;                /* one plane's messages */
} adi_pipe;

/* Lane l of a batch of nl lines: itself, or (padding) the first line, whose copy is solved
 * and dropped. */
static inline size_t adi_lane(int l, int nl)
{
    return (size_t)(l < nl ? l : 0);
}

/* What a kernel keeps of a batch from its forward elimination to its back substitution is
 * stored by batch: the batch of the lines of direction d from local (i, j, k) is number
 * adi_batch(g, d, i, j, k) (in adi_solve's order), and adi_batch_points(g) bounds a
 * direction's batches times their lines' length. */
int adi_batch(const lu_ctx *g, int d, int i, int j, int k);
size_t adi_batch_points(const lu_ctx *g);

/* The 5-vectors of a batch's points between the field (from a, point stride s, line stride
 * ls) and the lanes x[point][variable][lane]: in (to the lanes, padding included) or out. */
void adi_lanes_move(double *a, size_t s, size_t ls, int len, int nl,
                    double (*x)[5][ADI_LANES], int in);

/* 0, or -1 without memory. */
int adi_pipe_init(adi_pipe *a, lu_ctx *g, void *ctx, int fwd_n, int back_n,
                  adi_line_fn *forward, adi_line_fn *backward, const int phase[3]);
void adi_pipe_free(adi_pipe *a);

/* Solve every interior line of direction d (0 i, 1 j, 2 k). Collective over the ranks of the
 * direction's grid column or row. */
void adi_solve(adi_pipe *a, int d);

#endif
