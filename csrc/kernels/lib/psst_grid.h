/* psst_grid.h - the P x Q process grid of psst.c (the decomposition, the transposes, the
 * distributed FFT and the global sum are described there) and its steps. */
#ifndef HPC_PSST_GRID_H
#define HPC_PSST_GRID_H

#include "harness.h"
#include "sst_model.h"

/* Phase timers of a step (phases.h): the serial model's compute phases plus buffer copies
 * (pack/unpack around the exchanges) and the two communication phases. */
enum { PSST_PH_PACK = SST_NPH, PSST_PH_TRANSPOSE, PSST_PH_GSUM, PSST_NPH };

typedef struct {
    int P, Q, p, q, transpose, sum;   /* transpose 0 alltoallv 1 pairwise 2 distributed FFT;
                                         sum 0 allreduce 1 ring */
    MPI_Comm row, col;                /* ranks sharing p (size Q), sharing q (size P) */
    int h0, h1, nrows;                /* my latitudes: hemisphere rows [h0, h1) and their
                                         mirrors (whole north/south pairs: sst_legendre.c) */
    int *nms, **msets;                /* per q: wavenumber count and list */
    int *ua, *ub;                     /* per q: FFT units [ua, ub) of the row's block */
    int nu;                           /* my units */
    double *g4, *g5;
    hfft_complex *c4, *c5;
    hfft_plan *inv, *fwd;
    double *sbuf, *rbuf, *red, *tmp;
    int *scnt, *sdsp, *rcnt, *rdsp;
    /* Distributed FFT: n = nlon/Q longitudes (block t = bitrev(q)) of every unit of the block. */
    int n, t, nud;
    hfft_complex *z4, *z5, *zp, *tw;  /* [unit][field][n]; partner's copy; exp(2 pi i q k/nlon) */
    double *x4, *x5;                  /* my longitudes, real */
    hfft_plan *dinv, *dfwd;
    hpc_phases *ph;                   /* the step's phase timers */
} pgrid;

/* The step's phase timers: sst_phase_defs and the three above. */
void psst_phases_init(hpc_phases *ph);

#define PSST_PH(g, id) hpc_phase_to((g)->ph, id)

/* psst_grid.c: the grid of ranks, its buffers and FFT plans (transpose 0 alltoallv,
 * 1 pairwise, 2 distributed FFT), the exchanges. */
void psst_setup(pgrid *g, sst_model *s, int P, int Q, int colmajor, int transpose);
/* The same on the ranks of comm (pctm's atmosphere on a subset of the ranks). */
void psst_setup_in(pgrid *g, sst_model *s, MPI_Comm comm, int P, int Q, int colmajor,
                   int transpose);
void psst_teardown(pgrid *g);
void psst_exchange(pgrid *g, int per);
void psst_global_sum(pgrid *g, double *x, int n);
void psst_bx_stage(pgrid *g, hfft_complex *z, size_t cnt, int d, int inverse);
void psst_layout(pgrid *g, int per, int synth);

/* psst_step.c: one pass through the step code (transposed FFT, or distributed), this rank's
 * flops per step, the whole state on every rank. */
void psst_pstep(sst_model *s, pgrid *g, int n);
void psst_dstep(sst_model *s, pgrid *g, int n);
double psst_rank_flops(const sst_model *s, const pgrid *g);
void psst_gather_state(sst_model *s, pgrid *g);

#endif
