/* pctm_model.h - pctm's coupled model on one layout: the components (pctm_comp.h) on their
 * ranks, the coupler's regriddings and redistributions (pctm_regrid.h, pctm_map.h), and one
 * coupling interval.
 *
 * Layouts: ranks [0, nocn) run the ocean, ranks [a0, a0 + natm) the atmosphere and the land and
 * ice kernels. Sequential: both ranges are every rank, and a rank runs the components one after
 * another. Concurrent: a0 = nocn, the ranges are disjoint and run at the same time.
 *
 * An interval (the same arithmetic in both layouts: the coupling is lagged, every component
 * uses what the others gave at the end of the previous interval, as the concurrent couplers
 * do): atmosphere steps, its flux; ocean steps; land steps; ice steps; then the coupler on
 * every rank: the flux regridded onto the ocean's blocks, the ocean's free surface regridded
 * onto the atmosphere's latitude bands (0 over land), and that field redistributed to the
 * land's and the ice's columns. Each regridding's two integrals are kept per interval for the
 * check after the integration (outside the timing). */
#ifndef PCTM_MODEL_H
#define PCTM_MODEL_H

#include "pctm_comp.h"
#include "pctm_regrid.h"

/* The phases of a rank's time (phases.h): its components, the coupler's local sums, the
 * coupler's messages and waits (in the concurrent layout, the wait for the other group). */
enum { PCTM_PH_ATM, PCTM_PH_OCN, PCTM_PH_LAND, PCTM_PH_ICE, PCTM_PH_REGRID, PCTM_PH_COUPLER,
       PCTM_NPH };
extern const hpc_phase_def pctm_phase_defs[PCTM_NPH];

typedef struct {
    int M, nx, ny, land, nlev;
    int atm_steps, ocn_steps, land_steps, ice_steps;
    double hours, tol;
} pctm_config;

typedef struct {
    int nocn, a0, natm, atmP, atmQ, ocnP, ocnQ;
} pctm_split;

typedef struct {
    pctm_config cf;
    pctm_split sp;
    MPI_Comm comm, acomm;        /* the coupler's (every rank); the atmosphere's */
    pop_grid og;                 /* the ocean's grid, on every rank */
    pctm_grid ga, go;
    pctm_atm atm;
    pctm_ocn ocn;
    pctm_cols land, ice;
    pctm_layout la, lo;
    pctm_regrid a2o, o2a;
    pctm_redist rland, rice;
    double *sfc;                 /* my band: the ocean's field on the Gaussian grid */
    int interval;
    double *integ;               /* per interval: 3 per regridding (pctm_regrid_integrals) */
    int max_intervals;
    hpc_phases ph;
} pctm_model;

void pctm_model_init(pctm_model *m, const pctm_config *cf, const pctm_split *sp,
                     int max_intervals);
void pctm_model_start(pctm_model *m);   /* initial states; interval 0 */
void pctm_model_interval(pctm_model *m);  /* one coupling interval (phases running) */
/* After the intervals (collective): the coupler's worst relative imbalance, the atmosphere's
 * error, the ocean's budget error / bound; fails loudly when any is out of bounds. */
void pctm_model_check(pctm_model *m, double out[4]);
void pctm_model_free(pctm_model *m);

/* The atmosphere's P x Q and the ocean's blocks for natm and nocn ranks; 0 if they cannot. */
int pctm_atm_grid(int M, int n, int *P, int *Q);
int pctm_ocn_grid(int nx, int ny, int n, int *P, int *Q);
/* The atmosphere's time step for the interval, and the largest it may take. */
double pctm_atm_dt(const pctm_config *cf);
double pctm_atm_dt_max(int M);

#endif
