/* pop_grid.h - the global grid and the 9-point barotropic operator of the
 * POP-like solver proxy (kernels/barotropic.c).
 *
 * Grid: nx x ny T-points (cell centres), periodic in x (longitude), closed in
 * y (latitude walls). U-point (i, j) is the north-east corner of T-cell (i, j).
 * Longitudes are uniform (dlon = 2 pi / nx); latitudes run from -78 to +78
 * degrees with rows refined near the equator (about 0.45 of the mid-latitude
 * spacing, as POP's gx1 grid refines its meridional spacing there), so cell
 * widths DXU = R cos(lat) dlon and DYU vary with latitude. Depth HU varies
 * smoothly (3000..5000 m); a U-point is ocean only when its 4 T-points are
 * (POP: KMU = min of the 4 KMT). Land: none, or a few ellipses ("continents")
 * defined in normalised [0,1]^2 coordinates, so the mask scales with the grid.
 *
 * Operator (A x = b, the free-surface system of one barotropic step), built
 * from each U-point's quarter weights as POP builds its "elliptic"
 * coefficients A0, AN, AE, ANE:
 *     w1(U) = 0.25 HU DYU / DXU,   w2(U) = 0.25 HU DXU / DYU
 * The gradient of eta at U from its 4 T-points, squared and weighted by
 * HU DXU DYU, gives per U-point the PSD 4x4 matrix w1 vx vx^T + w2 vy vy^T
 * with vx = (-1, 1, -1, 1), vy = (-1, -1, 1, 1) over (SW, SE, NW, NE); summed:
 *     AN(i,j)  = (w1 - w2)(U(i,j)) + (w1 - w2)(U(i-1,j))    T(i,j) - T(i,j+1)
 *     AE(i,j)  = (w2 - w1)(U(i,j)) + (w2 - w1)(U(i,j-1))    T(i,j) - T(i+1,j)
 *     ANE(i,j) = -(w1 + w2)(U(i,j))           T(i,j) - T(i+1,j+1) and
 *                                             T(i,j+1) - T(i+1,j)
 *     A0(i,j)  = sum over the 4 corners of (w1 + w2) + area(T) / (g dt^2)
 * and (A x)(i,j) = A0 x + AN x(j+1) + AN(j-1) x(j-1) + AE x(i+1)
 *     + AE(i-1) x(i-1) + ANE x(i+1,j+1) + ANE(j-1) x(i+1,j-1)
 *     + ANE(i-1) x(i-1,j+1) + ANE(i-1,j-1) x(i-1,j-1)
 * (9 multiplies, 8 adds: 17 flops per point). Symmetric by construction, and
 * positive definite thanks to the free-surface term (the 9-point B-grid
 * Laplacian alone also annihilates the checkerboard). Land T-points have
 * A0 = 0 and no couplings: they are not unknowns (their x stays 0).
 */
#ifndef POP_GRID_H
#define POP_GRID_H

#include <stddef.h>

#define POP_LAND_NONE 0
#define POP_LAND_CONTINENTS 1

typedef struct {
    int nx, ny, land;
    double dt;        /* s: the free-surface term area / (g dt^2) */
    double *dxu, *dyu;  /* per U-row j (0..ny-1; row ny-1 is the wall) */
    double *area;     /* per T-row */
    double *hu;       /* nx*ny U-points, 0 on land and on the north wall */
    unsigned char *mask;  /* nx*ny T-points: 1 ocean */
    long ocean;       /* ocean T-points */
} pop_grid;

/* Returns 0, or -1 if out of memory. */
int pop_grid_init(pop_grid *g, int nx, int ny, int land, double dt);
void pop_grid_free(pop_grid *g);

/* T-point (i, j) is ocean; i wraps, rows outside 0..ny-1 are not. */
int pop_ocean(const pop_grid *g, int i, int j);
/* A0, AN, AE, ANE at T(i, j); i wraps, all 0 outside the rows. */
void pop_coefs(const pop_grid *g, int i, int j, double c[4]);
/* The operator's coefficient coupling T(i, j) to T(i+di, j+dj), |di|,|dj| <= 1. */
double pop_coef_at(const pop_grid *g, int i, int j, int di, int dj);
/* The known solution: smooth, deterministic, 0 on land; i wraps. */
double pop_xtrue(const pop_grid *g, int i, int j);
/* Ocean T-points in [i0, i0+bx) x [j0, j0+by). */
long pop_ocean_in(const pop_grid *g, int i0, int j0, int bx, int by);
/* Check the operator is symmetric and couples no land: returns 0, or -1 with
 * a message in err. */
int pop_check_symmetry(const pop_grid *g, char *err, size_t errlen);

/* One rank's block: interior [i0, i0+bx) x [j0, j0+by) with a halo of width 1,
 * stored row by row (x fastest), leading dimension ld = bx + 2; coefficients
 * cover the halo too (computed from the global grid, no exchange needed). */
typedef struct {
    int i0, j0, bx, by, ld;
    size_t n;   /* (bx+2) (by+2) */
    double *a0, *an, *ae, *ane, *minv;  /* minv: the diagonal preconditioner 1/A0 (0 on land) */
} pop_block;

int pop_block_init(pop_block *b, const pop_grid *g, int i0, int j0, int bx, int by);
void pop_block_free(pop_block *b);
/* A zeroed field of the block's shape (halo included), or NULL. */
double *pop_field(const pop_block *b);
/* x = x_true on the interior and the halo (exact values: the halo of a global
 * block wraps in x). */
void pop_fill_xtrue(const pop_block *b, const pop_grid *g, double *x);
/* q = A p on the interior (p's halo must be current); returns the local p.q. */
double pop_apply_dot(const pop_block *b, const double *p, double *q);
/* Halo of a block that spans the whole width (rank 0's global copy): columns
 * 0 and bx+1 from the other side (periodic); rows 0 and by+1 stay as they are. */
void pop_wrap_x(const pop_block *b, double *x);

/* Direct solve of the gathered system on one rank: banded Cholesky (LAPACK
 * dpbsv) over the ocean points, x and b global nx*ny arrays (x = 0 on land).
 * Returns 0, or -1 with a message (too big, not positive definite, no memory). */
int pop_direct_solve(const pop_grid *g, const double *b, double *x, double max_flops,
                     char *err, size_t errlen);

#endif
