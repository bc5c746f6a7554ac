/* sweep_solver.h - the KBA wavefront sweep of the sweep proxy (csrc/kernels/sweep.c):
 * one energy group, isotropic scattering, diamond differencing on a 3-D grid of
 * unit-free cells dx x dy x dz, vacuum boundaries, source iteration.
 *
 * (i, j) is split over a P x Q process grid (rank = q P + p); k is not split.
 * Each octant is swept block by block: blocks of --mk k-planes times blocks of
 * --mmi directions; for each block a rank receives its upstream i- and j-faces
 * (MPI_Recv), sweeps, and sends its downstream faces (MPI_Send). */
#ifndef SWEEP_SOLVER_H
#define SWEEP_SOLVER_H

#include "phases.h"
#include "sweep_quad.h"

#include <mpi.h>

/* Directions handled at once by the kernel (a vector); the faces are padded to a multiple. */
#define SWEEP_VLEN 4
#define SWEEP_PAD(mb) (((mb) + SWEEP_VLEN - 1) / SWEEP_VLEN * SWEEP_VLEN)

enum {
    SWEEP_PH_COMPUTE, SWEEP_PH_WAIT, SWEEP_PH_SEND, SWEEP_PH_COPY, SWEEP_PH_REDUCE, SWEEP_NPH
};

/* The problem, the same on every rank. */
typedef struct {
    int nx, ny, nz;          /* global cells */
    double dx, dy, dz;       /* cell widths */
    double sigt, sigs;       /* total and scattering cross sections (uniform material) */
    double q;                /* isotropic source density */
    int region;              /* where q is: 0 everywhere, 1 the central half of each axis
                              * [n/4, n - n/4), 2 Sweep3D's central third */
    int mk, mmi, fixup;      /* k-planes and directions per block; negative-flux fix-up */
} sweep_problem;

typedef struct {
    const sweep_problem *pb;
    const sweep_quad *quad;
    int P, Q, p, q;
    int i0, j0, it, jt, kt;              /* this rank's block of cells */
    int west, east, south, north;        /* neighbours' ranks, MPI_PROC_NULL at the boundary */
    MPI_Comm comm;
    hpc_phases *ph;
    size_t ncell;
    double *phi, *phi_old, *src, *qsrc;  /* [k][j][i] */
    double *face_i, *face_j, *face_k;    /* one block's faces, SWEEP_PAD(mb) directions innermost */
    double *buf_i, *buf_j;               /* the same faces as messages, mb directions */
    double *lanes;                       /* the kernel's scratch: SWEEP_VLEN a cell of a line */
    double leak[6];   /* leakage of the last sweep through -x, +x, -y, +y, -z, +z */
    long fixups;      /* faces set to zero by the fix-up in the last sweep */
} sweep_solver;

/* The extent of block p of n cells split over P: [*start, *start + *len). */
void sweep_split(int n, int P, int p, int *start, int *len);

/* Set up rank (p, q)'s part; comm has P Q ranks, or is MPI_COMM_NULL for a serial solve of the
 * whole problem (P = Q = 1). Returns -1 when out of memory. */
int sweep_init(sweep_solver *s, const sweep_problem *pb, const sweep_quad *quad, int P, int Q,
               int p, int q, MPI_Comm comm, hpc_phases *ph);
void sweep_free(sweep_solver *s);

/* Source iteration from phi = 0 until max |phi - phi_old| / |phi| <= tol over all cells (one
 * sweep of all octants per iteration). Returns the iterations; -(max_iters) when not
 * converged, -(the iteration) at once when phi is not finite anywhere. Phases: compute, wait
 * (in MPI_Recv), send (in MPI_Send), copy (faces packed for and unpacked from messages, zeroed
 * at the vacuum boundary), reduce (the convergence test's MPI_Allreduce). */
int sweep_solve(sweep_solver *s, double tol, int max_iters);

/* One block: sweep nk k-planes from k0 (direction dk) for the directions m0 .. m0+mb-1 of the
 * octant (di, dj, dk), updating the faces in place (incoming in, outgoing out) and phi. */
void sweep_block(sweep_solver *s, int di, int dj, int dk, int k0, int nk, int m0, int mb);

#endif
