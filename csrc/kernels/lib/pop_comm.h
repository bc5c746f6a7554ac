/* pop_comm.h - decomposition, halo updates and global sums of the POP-like
 * barotropic proxy (kernels/barotropic.c).
 *
 * Decomposition: the nx x ny grid in P blocks along x and Q along y; block
 * (p, q) spans [nx p / P, nx (p+1) / P) x [ny q / Q, ny (q+1) / Q) (sizes may
 * differ by one). Rank mapping: row-major, rank = q P + p (neighbours in x are
 * consecutive ranks), or column-major, rank = p Q + q.
 *
 * Halo update (width 1, corners included: the 9-point stencil needs them):
 * one message per neighbour in 8 directions, in one round. Periodic in x,
 * closed in y (no neighbour beyond the first and last block rows). A
 * neighbour that is the rank itself (P == 1: east and west) is a local copy.
 *   datatype  Isend/Irecv straight from the array (MPI_Type_vector for the
 *             columns, contiguous rows, single corners), Waitall
 *   pack      copy each edge into a contiguous buffer ("copy" phase),
 *             Isend/Irecv, Waitall, unpack ("copy")
 *   put       MPI_Put of each edge into the neighbour's ghost cells (target
 *             datatype with the neighbour's own row length), synchronised
 *             with post-start-complete-wait (PSCW) among the neighbours only.
 *             Why PSCW rather than fences: a fence is collective over every
 *             rank of the window (a barrier per update), while PSCW couples
 *             only the ranks that exchange data, as the Co-Array Fortran
 *             versions on the X1 replaced global barriers by pairwise flags.
 *             A rank posts (its ghosts may be overwritten: its last operator
 *             application is done) before it starts its own puts. The field
 *             lives in MPI_Win_allocate memory (Open MPI's osc/sm on a node:
 *             with MPI_Win_create it fell back to osc/rdma, where a put of a
 *             strided column took ~1.6 ms here).
 * A neighbour on both sides (P == 2) gets two messages, told apart by tag
 * (the direction of travel).
 *
 * Global sum of one double (one per inner product, as in POP):
 *   allreduce MPI_Allreduce
 *   tree      reduce up a k-ary tree of the ranks (children r k + 1 .. r k + k)
 *             with Send/Recv, a parent adding its children in order, then the
 *             root's total is broadcast down the same tree: every rank gets
 *             identical bits
 *   onesided  every rank MPI_Puts its partial sum into slot [rank] of rank 0's
 *             window; rank 0 adds the slots in rank order; the others MPI_Get
 *             the total (the X1 Co-Array Fortran "write partial sums to the
 *             master" version). Two PSCW epochs per sum (rank 0 exposes, the
 *             others access): pairwise synchronisation with the master only.
 *             Every rank gets rank 0's bits.
 *
 * OpenSHMEM variants (lib/pop_shmem.c; built where OpenSHMEM links, HPC_HAVE_SHMEM: the X1
 * study's Co-Array Fortran versions of August 2004, with pairwise flags):
 *   shmem (halo)  the field in the symmetric heap; each rank tells its neighbours its ghosts
 *             are free (a flag each), waits for theirs, puts each edge into the neighbour's
 *             ghosts (shmem_double_put, or shmem_double_iput for a column), fences, and sets
 *             the neighbour's "filled" flag; then waits for its own
 *   shmem (sum)   every rank puts its partial sum into slot [rank] of rank 0's symmetric
 *             memory, fences and sets its flag; rank 0 adds the slots in rank order once
 *             every flag is set, puts the total to each rank and sets its flag
 * Co-Array Fortran variants (lib/pop_caf.c and lib/pop_coarrays.f90, OpenCoarrays; built where it
 * links, HPC_HAVE_CAF: the study's own language for them):
 *   caf (halo)    the field a coarray; `sync images` with the neighbours (their ghosts are
 *             free), each edge assigned into the neighbour's ghosts (a column as a strided
 *             section), `sync images` again (mine are filled)
 *   caf (sum)     every image leaves its partial sum in its own coarray; image 1, after
 *             `sync images (*)`, reads them in image order ("master reads partial sums from
 *             remote memory"), writes the total into each image's coarray, syncs again
 */
#ifndef POP_COMM_H
#define POP_COMM_H

#include "phases.h"

#include <mpi.h>

enum { POP_HALO_DATATYPE, POP_HALO_PACK, POP_HALO_PUT, POP_HALO_SHMEM, POP_HALO_CAF };
enum { POP_SUM_ALLREDUCE, POP_SUM_TREE, POP_SUM_ONESIDED, POP_SUM_SHMEM, POP_SUM_CAF };
/* Phase ids (barotropic.c defines them in this order). */
enum { POP_PH_COMPUTE, POP_PH_HALO, POP_PH_COPY, POP_PH_SUM };

typedef struct {
    int nx, ny, P, Q, colmajor;
    int rank, nranks;  /* in MPI_COMM_WORLD */
    int p, q;          /* my block */
    int i0, j0, bx, by;
    int nbr[8];        /* rank per direction (E W N S NE NW SE SW), MPI_PROC_NULL beyond y */
} pop_decomp;

void pop_decomp_init(pop_decomp *d, int nx, int ny, int P, int Q, int colmajor, int rank,
                     int nranks);
int pop_rank_of(const pop_decomp *d, int p, int q);
/* Block extent along a dimension of n points split in P parts. */
void pop_extent(int n, int P, int p, int *start, int *len);
/* My edge toward direction k (ghost = 0) or my ghost cells on side k (ghost = 1) in a block
 * bx x by with row length ld: first index and extent ni x nj (the 3-D halo uses them too). */
void pop_region(int bx, int by, int ld, int k, int ghost, int *start, int *ni, int *nj);
/* The direction opposite to k (E <-> W, N <-> S, NE <-> SW, NW <-> SE). */
int pop_opposite(int k);

typedef struct {
    int variant;
    pop_decomp d;
    int ld;
    double *x;               /* the exchanged field ((bx+2)(by+2), MPI_Alloc_mem) */
    int send0[8], recv0[8];  /* start of my edge toward d / of my ghost on side d */
    MPI_Datatype send_t[8], recv_t[8];   /* those regions in my array */
    MPI_Datatype tgt_t[8];   /* put: the ghost region in the neighbour's array */
    MPI_Aint tgt_disp[8];
    int cnt[8];              /* points per direction */
    double *sbuf[8], *rbuf[8];  /* pack */
    MPI_Win win;
    MPI_Group grp;           /* put: the distinct neighbour ranks other than me */
    int ngrp;
    int tgt_ld[8];           /* shmem: the neighbour's row length */
    long *flags;             /* shmem: 8 "ready" then 8 "filled" counters (symmetric) */
    long seq;                /* shmem: updates so far */
    hpc_phases *ph;
} pop_halo;

/* Collective (window creation). Returns 0, -1 out of memory. */
int pop_halo_init(pop_halo *h, const pop_decomp *d, int variant, hpc_phases *ph);
/* Fill h->x's ghost cells; switches the phase to halo / copy as it goes. */
void pop_halo_update(pop_halo *h);
void pop_halo_free(pop_halo *h);  /* collective */

typedef struct {
    int variant, branch, rank, nranks;
    double *slots;   /* onesided: rank 0: nranks + 1 doubles (the last is the total), window memory */
    MPI_Win win;
    MPI_Group grp;   /* onesided: rank 0: every other rank; others: rank 0 */
    long *flags;     /* shmem (symmetric): nranks "written" counters, then "total" */
    long seq;        /* shmem: sums so far */
} pop_gsum;

int pop_gsum_init(pop_gsum *s, int variant, int branch);  /* collective */
/* Collective: the sum of v over all ranks, the same bits on every rank. */
double pop_gsum_do(pop_gsum *s, double v);
void pop_gsum_free(pop_gsum *s);  /* collective */

#endif
