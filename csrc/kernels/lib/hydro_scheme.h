/* hydro_scheme.h - the 3-D compressible Euler equations (ideal gas) on one block of cells:
 * dimensionally split MUSCL-Hancock (primitive-variable slopes, MC limiter) with the HLLC
 * Riemann solver, second order by alternating the sweep order (x,y,z then z,y,x).
 *
 * A block holds bx x by x bz cells with HY_G = 2 ghost layers on every side, the conserved
 * fields (density, momentum x/y/z, total energy) as separate arrays (SoA), x fastest. One
 * halo exchange per step fills the ghosts (edges and corners too, lib/hydro_comm.h); each
 * sweep then also updates the ghost layers of the directions still to be swept, so the
 * later sweeps need no exchange of their own (the price: some redundant ghost-cell work).
 * The primitives live only in row buffers (a sweep converts each row as it reaches it), so
 * a sweep reads and writes the state once.
 */
#ifndef HYDRO_SCHEME_H
#define HYDRO_SCHEME_H

#include <stddef.h>

#define HY_G 2   /* ghost layers: the MUSCL stencil of a cell update reaches 2 cells */
#define HY_NV 5  /* rho, mx, my, mz, E (conserved); rho, u, v, w, p (primitive) */

enum { HY_RHO, HY_MX, HY_MY, HY_MZ, HY_E };

typedef struct {
    int n[3];         /* interior cells per direction */
    int ld[3];        /* n + 2 HY_G */
    size_t s[3];      /* neighbour strides: 1, ld0, ld0 ld1 */
    size_t ncell;     /* ld0 ld1 ld2, ghosts included */
    double h[3];      /* cell widths */
    double gamma;
    double *u[HY_NV]; /* conserved fields */
    double *row;      /* row buffers of the sweeps: primitives, predicted states, fluxes */
    size_t rowlen;
} hy_block;

/* n: interior cells, h: cell widths. 0, or -1 without memory. */
int hy_block_init(hy_block *b, const int n[3], const double h[3], double gamma);
/* The bytes hy_block_init allocates for an n[0] x n[1] x n[2] block (fields with ghosts and
 * the row scratch): the working set a cell rate is measured at. */
size_t hy_block_bytes(const int n[3]);
void hy_block_free(hy_block *b);

static inline size_t hy_idx(const hy_block *b, int i, int j, int k)
{
    return ((size_t)k * b->ld[1] + j) * b->ld[0] + i;
}

/* Largest (|u_d| + c) / h_d over the interior cells and directions: dt = CFL / this. */
double hy_max_rate(const hy_block *b);

/* One step of dt (the ghosts filled); parity selects the sweep order. */
void hy_step(hy_block *b, double dt, int parity);

/* Flops of one cell update, as the kernels count them (the redundant ghost work excluded):
 * every +, -, *, /, sqrt is one; min, max, fabs, copysign and comparisons are none. */
double hy_flops_per_cell(void);

#endif
