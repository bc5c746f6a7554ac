/* lu_grid.h - NPB LU's grid, its 2-D decomposition and its fields (docs/nas_lu.md).
 *
 * The global grid is nx0 x ny0 x nz0 points (1-based, as in the NPB report); the boundary
 * points hold the exact solution, the interior is solved for. The ranks form an xdim x ydim
 * grid over (i, j) (NPB's proc_grid: ydim = 2^floor(log2(P)/2), xdim = P / ydim), every rank
 * holding all nz0 planes of its nx x ny columns: the SSOR sweeps run as a pipelined wavefront
 * over the k planes. NPB's names for the neighbours are kept: north/south along i, west/east
 * along j (MPI_PROC_NULL at the global boundary).
 *
 * A field holds 5 doubles per point (the 5 conserved variables, fastest), then i, j, k, with
 * two ghost layers in i and j (local i = -1 .. nx+2) and one unused plane at each end in k
 * (k = 0 .. nz+1), so that the local indices are NPB's. */
#ifndef LU_GRID_H
#define LU_GRID_H

#include "harness.h"

#include <stddef.h>

#define C1 1.4   /* NPB's c1..c5 (lu_data, bt_data) */
#define C2 0.4
#define C3 0.1
#define C4 1.0
#define C5 1.4

/* Phase ids of the per-rank timers: those of the shared code, then a kernel's own (LU's here,
 * BT's in bt_adi.h), each kernel naming all of them in its defs (lu_phase_defs). */
enum { LU_PH_RHS, LU_PH_NORM, LU_PH_HALO, LU_PH_PIPE, LU_PH_REDUCE, LU_PH_OWN };
enum { LU_PH_LOWER = LU_PH_OWN, LU_PH_UPPER, LU_PH_UPDATE, LU_NPHASES };
extern const hpc_phase_def lu_phase_defs[LU_NPHASES];

/* The coefficients of one direction of the operator (NPB's setcoeff: tx1..3, dx1..5). */
typedef struct {
    double t1, t2, t3;      /* 1/h^2, 1/(2h), 1/h */
    double d[5];            /* second-difference (diffusion) coefficients */
} lu_dir;

typedef struct {
    int nx0, ny0, nz0;          /* global points */
    int nx, ny, nz;             /* local points (nz = nz0) */
    int ipt, jpt;               /* global i = ipt + local i, global j = jpt + local j */
    int ist, iend, jst, jend;   /* local interior range (the global boundary excluded) */
    int xdim, ydim, rank;       /* process grid, this rank */
    int north, south, west, east;
    MPI_Comm comm;
    size_t sx, sy, sz;          /* strides of i, j, k in doubles */
    double *u, *rsd, *frct;     /* solution, residual / correction, forcing */
    double *flux, *visc;        /* the operator's inviscid and viscous fluxes of a direction */
    double *hbuf;               /* halo pack buffers */
    size_t hcount;              /* doubles in one halo pack buffer */
    double dt, omega;
    double wdiag[3];            /* LU's weights of the directions in its diagonal block */
    lu_dir dir[3];              /* x, y, z */
    double dssp;                /* fourth-difference dissipation */
    hpc_phases *ph;             /* per-rank timers; may be NULL */
    struct adi_prim *prim;      /* set: lu_rhs takes BT's and SP's form (lib/adi_rhs.h) */
} lu_ctx;

/* The 5-vector at local (i, j, k) of field a. */
static inline double *lu_at(const lu_ctx *g, double *a, int i, int j, int k)
{
    return a + (size_t)(i + 1) * 5 + (size_t)(j + 1) * g->sy + (size_t)k * g->sz;
}

/* Subdomain and fields for an n^3 problem on an xdim x ydim process grid; 0, or -1 without
 * memory. The caller checked that every rank gets at least 3 points in i and j (NPB's
 * subdomain rule). */
int lu_setup(lu_ctx *g, int n, double dt, int xdim, int ydim, MPI_Comm comm);
void lu_free(lu_ctx *g);
/* NPB's proc_grid for P ranks (a power of two): xdim x ydim. */
void lu_proc_grid(int p, int *xdim, int *ydim);

void lu_phase(const lu_ctx *g, int id);

/* NPB's exact solution at global (i, j, k). */
void lu_exact(const lu_ctx *g, int i, int j, int k, double out[5]);
/* u = the exact solution on the global boundary, NPB's transfinite interpolation of it
 * inside (setbv, setiv). */
void lu_initial(lu_ctx *g);
/* frct = the operator applied to the exact solution (NPB's erhs). Collective. */
void lu_forcing(lu_ctx *g);

/* Fill the two ghost layers in i and j of field a from the neighbours (NPB's exchange_3). */
void lu_halo(lu_ctx *g, double *a);

/* out(interior) += R(a): NPB's flux differences, viscous terms and fourth-difference
 * dissipation in x, y and z (rhs, erhs). The ghosts of a must be filled. */
void lu_operator(lu_ctx *g, double *out, double *a);
/* rsd = R(u) - frct (NPB's rhs; in the form of lib/adi_rhs.h when g->prim is set, as npb-lu
 * sets it: half the time). Collective. */
void lu_rhs(lu_ctx *g);

/* One SSOR iteration (NPB's ssor loop body): the lower and upper block triangular sweeps as
 * pipelined wavefronts, the update of u, the norm of the correction into delta (unless NULL),
 * the new residual. Collective. */
void lu_ssor_step(lu_ctx *g, double *delta);

/* RMS norms over the interior, every rank the same (collective): of field a (l2norm), of
 * u - exact (error); the surface integral of NPB's pintgr. */
void lu_l2norm(lu_ctx *g, double *a, double nrm[5]);
void lu_error(lu_ctx *g, double nrm[5]);
double lu_surface_integral(lu_ctx *g);

#endif
