/* pctm_map.h - what pctm's coupler knows of the grids and decompositions: a grid of
 * longitude x sin(latitude) cells, the 1-D overlaps of two grids' cells, the owner and local
 * index of every cell of a decomposed field, and the redistribution of a field from one
 * decomposition to the cells another rank needs (MPI_Alltoallv over every rank).
 *
 * Why these shapes: both grids are tensor products (a Gaussian grid, the ocean's refined
 * latitude rows), so a cell-pair overlap is the product of a longitude overlap and a
 * sin(latitude) overlap, and its area on the unit sphere is that product exactly. Every rank
 * holds the owner and local index of every cell (two arrays of the global size): simple and
 * enough below a few million cells (the 0.1 degree ocean would want them distributed). */
#ifndef PCTM_MAP_H
#define PCTM_MAP_H

#include <mpi.h>
#include <stddef.h>

/* calloc of n items (at least one), failing loudly when out of memory. */
void *pctm_alloc(size_t n, size_t size);

typedef struct {
    int nx, ny;              /* columns (longitude), rows (sin latitude); cell = j nx + i */
    double *xlo, *xhi;       /* per column, radians (may start below 0: periodic) */
    double *ylo, *yhi;       /* per row, sin(latitude) */
    const unsigned char *mask;  /* nx ny, 1 = the cell takes part; NULL: all */
} pctm_grid;

/* The atmosphere's Gaussian grid: rows in the model's order (north first), cell edges in
 * sin(latitude) by cumulated Gaussian weights, columns centred on the longitudes. */
void pctm_grid_gauss(pctm_grid *g, int nlon, int nlat, const double *w);
/* The ocean's grid: columns [i, i+1) dlon, row edges from the T-rows' areas between the
 * walls at +-lat_max degrees (the areas are proportional to the sin(latitude) widths). */
void pctm_grid_rows(pctm_grid *g, int nx, int ny, const double *area, double lat_max,
                    const unsigned char *mask);
void pctm_grid_free(pctm_grid *g);

/* Per destination cell d of one dimension: the source cells s and the length they share,
 * entries ptr[d] .. ptr[d+1]-1. period > 0: the cells lie on a circle of that length. */
typedef struct {
    int n, *ptr, *src;
    double *len;
} pctm_ovl;

void pctm_ovl_build(pctm_ovl *o, const double *slo, const double *shi, int ns,
                    const double *dlo, const double *dhi, int nd, double period);
void pctm_ovl_free(pctm_ovl *o);

/* A decomposed field: owner (rank of the coupler's communicator) and local index of every
 * cell, -1 for a cell nobody holds; nlocal: my cells. */
typedef struct {
    long ncells;
    int *owner;
    long *local, nlocal;
} pctm_layout;

/* Rectangles, one per rank (i0, ni, j0, nj; ni = 0: none), local index row-major. */
void pctm_layout_rects(pctm_layout *l, int nx, int ny, const int (*rect)[4], int nranks,
                       int me);
/* Listed cells dealt cyclically to the ranks first .. first+n-1, local index in list order. */
void pctm_layout_cyclic(pctm_layout *l, long ncells, const long *cells, long ncell, int first,
                        int n, int me);
void pctm_layout_free(pctm_layout *l);

/* Moving the values of the cells need[0..nneed) from their owners to me (collective). */
typedef struct {
    MPI_Comm comm;
    int *scnt, *sdsp, *rcnt, *rdsp;
    long *sidx;     /* my local index of each value I send, in send order */
    long *rpos;     /* where each value I receive goes in need order */
    double *sbuf, *rbuf;
    long nsend, nrecv;
} pctm_redist;

void pctm_redist_init(pctm_redist *r, MPI_Comm comm, const pctm_layout *src, const long *need,
                      long nneed);
/* dst[k] = the value of cell need[k], from the owners' src arrays (collective). */
void pctm_redist_do(pctm_redist *r, const double *src, double *dst);
void pctm_redist_free(pctm_redist *r);

#endif
