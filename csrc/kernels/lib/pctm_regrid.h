/* pctm_regrid.h - first-order conservative regridding between two tensor-product grids
 * (pctm_map.h), done where the destination lives: a rank receives the source cells its
 * rectangle overlaps (pctm_redist) and sums them weighted by the overlap areas, in a fixed
 * order, so the result does not depend on how the source is decomposed.
 *
 * Weights: w(s, d) = |overlap in longitude| x |overlap in sin(latitude)| x mask(s) x mask(d)
 * (area on the unit sphere). Destination value: F_d = sum_s w(s, d) F_s / N_d with N_d the
 * area covered by sources (a flux into the ocean: the mean over the cell) or the destination
 * cell's whole area (a field onto the Gaussian grid: 0 where no ocean, e.g. land). Either way
 *     sum_d F_d N_d = sum_s F_s E_s,   E_s = sum_d w(s, d),
 * which is the conservation the coupler checks (pctm_regrid_integrals: both sides, each on
 * the ranks that hold them). */
#ifndef PCTM_REGRID_H
#define PCTM_REGRID_H

#include "pctm_map.h"

typedef struct {
    const pctm_grid *sg, *dg;
    pctm_ovl ox, oy;            /* destination columns / rows <- source columns / rows */
    int rect[4];                /* my destination cells: i0, ni, j0, nj (ni = 0: none) */
    int ncol, *colpos, *rowpos; /* source column / row -> its place in the received block */
    long nneed;
    double *need;               /* the received source values [row][col] */
    pctm_redist rd;
    double *norm;               /* N_d per my destination cell (0: it takes nothing) */
    double *exch;               /* E_s per my source cell (the source layout's local order) */
    long nsrc;
} pctm_regrid;

/* Collective over comm. area_norm: N_d is the destination cell's area (else the covered). */
void pctm_regrid_init(pctm_regrid *r, MPI_Comm comm, const pctm_grid *sg, const pctm_layout *sl,
                      const pctm_grid *dg, const int rect[4], int area_norm);
/* Collective: the redistribution (fetch) then the local sums (dst: my rectangle, row-major). */
void pctm_regrid_fetch(pctm_regrid *r, const double *src);
void pctm_regrid_apply(const pctm_regrid *r, double *dst);
/* My parts of sum_s F_s E_s, sum_d F_d N_d and sum_s |F_s| E_s. */
void pctm_regrid_integrals(const pctm_regrid *r, const double *src, const double *dst,
                           double out[3]);
void pctm_regrid_free(pctm_regrid *r);

#endif
