/* ccm_model.h - the CCM/MP-2D-like proxy of ccm.c: a longitude-latitude grid on a P x Q
 * process grid (P latitude bands, Q longitude blocks), column physics with a day/night
 * imbalance and its 180-degree swap, and a shape-preserving semi-Lagrangian tracer step with
 * its departure-point halo and a mass fixer. */
#ifndef HPC_CCM_MODEL_H
#define HPC_CCM_MODEL_H

#include "harness.h"

#define CCM_MAXLEV 64

enum { CCM_PH_PHYSICS, CCM_PH_SWAP_COPY, CCM_PH_SWAP, CCM_PH_HALO_COPY, CCM_PH_HALO,
       CCM_PH_ADVECT, CCM_PH_FIXER, CCM_NPH };

typedef struct {
    int nlon, nlat, nlev;
    int P, Q, p, q;                /* grid and this rank's place: band p, block q */
    int nx, ny, i0, j0;            /* local block: longitudes i0.., latitudes j0.. */
    int hx, hy;                    /* halo widths: the longest trajectory plus the stencil */
    int north, south, east, west;  /* neighbours (MPI_PROC_NULL beyond a pole) */
    int partner;                   /* the block 180 degrees away in the same band (swap) */
    MPI_Comm comm;
    double dlon, dlat, dt, u0, v0; /* radians; seconds; m/s */
} ccm_grid;

typedef struct {
    const ccm_grid *g;
    int swap;                      /* physics load balance: swap half the columns */
    int step;                      /* steps since ccm_init (the sun's position) */
    long day_columns;              /* columns in daylight this rank computed since ccm_init */
    double *T;                     /* [j][i][k] temperature, interior only */
    double *qh, *qn;               /* [k][y][x] tracer with halo; the next step's (interior) */
    double *mass0;                 /* [k] the tracer's global mass at the start */
    double *sbuf, *rbuf;           /* swap and halo buffers */
    double *dx, *dy;               /* [j][i] departure point, local halo coordinates */
    hpc_phases *ph;
} ccm_state;

/* The grid of nlon x nlat x nlev on P x Q ranks of comm; returns 0, or an error text. */
const char *ccm_grid_init(ccm_grid *g, int nlon, int nlat, int nlev, int P, int Q,
                          MPI_Comm comm);
void ccm_state_init(ccm_state *s, const ccm_grid *g, int swap, hpc_phases *ph);
void ccm_state_free(ccm_state *s);
/* The initial state (every sample starts from it). */
void ccm_init(ccm_state *s);
/* One time step: physics (swapped or not), then the tracer's semi-Lagrangian step. */
void ccm_step(ccm_state *s);

/* Physics of this rank's columns (ccm_model.c). */
void ccm_physics(ccm_state *s);
/* The tracer's semi-Lagrangian step with its halo and mass fixer (ccm_sl.c). */
void ccm_advect(ccm_state *s);
/* The tracer's global mass of each level into mass[nlev] (collective). */
void ccm_mass(const ccm_state *s, double *mass);
/* Interior tracer value and temperature of local point (i, j), level k. */
double ccm_q(const ccm_state *s, int i, int j, int k);
double ccm_T(const ccm_state *s, int i, int j, int k);

#endif
