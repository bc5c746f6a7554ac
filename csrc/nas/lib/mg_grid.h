/* mg_grid.h - NPB MG's grid hierarchy, ghost layers and charge placement (docs/nas_mg.md).
 *
 * Level k (1..lt) is a periodic n_k^3 grid, n_k = n / 2^(lt-k), so level 1 is 2^3. Each
 * array holds the points of its level with one ghost layer on every side, x fastest:
 * index i + (n+2) * (j + (n+2) * k), interior 1..n in x and y, 1..nz in z.
 *
 * Decomposition: 1-D in z over P ranks (a power of two). A level with at least two planes
 * per rank (n_k >= 2P) is distributed, nz = n_k / P planes from z0 = rank * nz; a coarser
 * level is replicated: every rank holds all of it and smooths it redundantly (tiny: at most
 * (2P)^3 / 8 points). The restriction onto the first replicated level writes each rank's
 * planes and an allgather completes them; the interpolation back reads the replicated grid
 * at the rank's offset. With one rank every level is whole and local. */
#ifndef MG_GRID_H
#define MG_GRID_H

#include "harness.h"

#include <stddef.h>

#define MG_MAXLEVEL 12      /* n up to 4096 */
#define MG_NMAX 1024        /* largest n of the line buffers (class B needs 256) */

/* Phase ids of the per-rank timers (mg_phase_defs). */
enum { MG_PH_RESID, MG_PH_SMOOTH, MG_PH_RESTRICT, MG_PH_INTERP, MG_PH_NORM, MG_PH_HALO,
       MG_PH_GATHER, MG_PH_REDUCE, MG_NPHASES };
extern const hpc_phase_def mg_phase_defs[MG_NPHASES];

typedef struct {
    int n, nz, z0, rep;     /* points per side, local planes, first global plane, replicated */
    size_t sy, sz, size;    /* strides of y and z, doubles in one array */
    double *u, *r;          /* correction and residual of this level */
} mg_level;

typedef struct {
    int lt, nranks, rank;   /* finest level, ranks in comm and this rank */
    MPI_Comm comm;
    mg_level lev[MG_MAXLEVEL + 1];  /* 1..lt */
    double *v;              /* right-hand side on the finest level */
    double a[4], c[4];      /* resid's and psinv's coefficients */
    hpc_phases *ph;         /* per-rank timers; may be NULL */
    int ahead;              /* level lt-1 holds the restriction of the finest r already */
} mg_ctx;

/* Levels for an n^3 grid (n a power of two, n >= 2 * nranks); 0, or -1 without memory. */
int mg_setup(mg_ctx *g, int n, MPI_Comm comm);
void mg_free(mg_ctx *g);

/* Switch the phase timer (no-op without timers). */
void mg_phase(const mg_ctx *g, int id);

/* Fill the ghost layers of array x of level k: periodic in x and y locally, in z from the
 * neighbouring ranks (or locally when the level is replicated or there is one rank). */
void mg_fill_ghosts(mg_ctx *g, int k, double *x);

/* The parts of it: periodic x and y ghosts of local plane p (1..nz), which needs no other
 * rank (the operators call it on each plane they finish, while it is in cache), and the two
 * z ghost planes once all planes are done. */
void mg_fill_plane_xy(const mg_level *L, double *x, int p);
void mg_fill_z(mg_ctx *g, int k, double *x);

/* Complete a replicated level whose rank-owned planes (as if distributed) were written:
 * allgather of the planes, then the ghost layers. */
void mg_gather_level(mg_ctx *g, int k, double *x);

/* x = 0 including the ghosts. */
void mg_zero(double *x, size_t n);

/* NPB's zran3 on the finest level: v = 0 except +1 at the 10 largest and -1 at the 10
 * smallest of NPB's random numbers drawn over the global grid (seed 314159265, x fastest),
 * the same points whatever the number of ranks. Collective. */
void mg_zran3(mg_ctx *g);

#endif
