/* pop_ocean.h - the 3-D ocean of the POP-like whole time step (kernels/pop_step.c): the
 * baroclinic phase and its coupling to the barotropic solver (pop_solver.h).
 *
 * State on one rank's block (pop_grid.h's B-grid: tracers at T-points, velocities at the
 * U-points, the north-east corners), nz levels of thickness dz (thin at the surface, thick
 * at depth), each level stored as a 2-D field of the block with its halo, fields one after
 * the other: u, v, T, S (4 nz levels), so one halo update (pop_halo3.h) covers the state.
 * A level of the same column is n2 = (bx+2)(by+2) doubles further on.
 *
 * One baroclinic step (explicit, forward in time, as POP's tendencies in flux form):
 *  - vertical mixing coefficients per T-column from the Richardson number
 *    (Pacanowski-Philander, POP's vmix_rich): N^2 from a linear equation of state, shear from
 *    the velocities at the column's four corners; convective mixing where unstable
 *  - tracers: upwind advection by the face velocities and by the vertical velocity from
 *    continuity (integrated up from the bottom; the surface's left out), plus Laplacian
 *    diffusion, each face's flux computed once and given to both cells: a tracer's volume
 *    integral is conserved to round-off; land faces carry nothing
 *  - a halo update of the new tracers, then momentum: Coriolis (an exact rotation by f dt,
 *    neutral), the hydrostatic pressure gradient of the *new* density (forward-backward, as
 *    internal gravity waves need to stay stable), a Laplacian viscosity (no-slip)
 *  - implicit vertical mixing of tracers and momentum: a tridiagonal solve per column, all
 *    columns of a row at once (POP's vectorised column physics); zero flux at the surface and
 *    the bottom, so the column integral of a tracer is kept
 * Barotropic phase (POP's implicit free surface): the depth-mean velocity's flux divergence
 * and the old surface height make the right-hand side b = area eta / (g dt^2) + G^T M ubar /
 * (g dt) of the operator of pop_grid.h (A = G^T M G + area / (g dt^2), G the B-grid gradient,
 * M = HU DXU DYU), the PCG solves for the new eta (warm start from the old), and every level's
 * velocity takes - g dt G eta: area (eta' - eta) / dt = -div(H ubar') holds discretely.
 *
 * Every value depends only on neighbours' values, so a rank's state is the same on any
 * decomposition up to the barotropic solve's rounding (its global sums' order): the check
 * compares with a one-rank run within a bound.
 */
#ifndef POP_OCEAN_H
#define POP_OCEAN_H

#include "pop_comm.h"
#include "pop_grid.h"
#include "pop_halo3.h"

#include <stddef.h>

#define POP_GRAV 9.80616  /* m/s^2, the same as the operator's (pop_grid.c) */
enum { POP_U, POP_V, POP_T, POP_S, POP_NFIELDS };
/* Phase ids of the baroclinic phase, after the barotropic ones of pop_comm.h. */
enum { POP_PH_CLINIC = POP_PH_SUM + 1, POP_PH_CLINIC_HALO, POP_PH_CLINIC_COPY, POP_PH_VMIX };

typedef struct {
    int nz, bx, by, ld;
    size_t n2;                       /* points of one level of the block, halo included */
    double dt;
    double *dz, *dzw;                /* level thickness (nz); between levels k, k+1 (nz-1) */
    double htot;                     /* sum of dz */
    /* Per block row jj = 0 .. by+1 (global row j0 + jj - 1; clamped outside the grid). */
    double *dxu, *dyu, *area, *dyt, *cosf, *sinf;
    double *hu;                      /* n2: U-point depth, 0 on land and outside */
    unsigned char *mask;             /* n2: T-point is ocean */
    double *state, *next;            /* 4 nz n2 each: u, v, T, S */
    double *kt, *kv;                 /* (nz-1) n2: tracer diffusivity, viscosity at T-columns */
    double *p, *pacc, *fe, *fn;      /* n2 work: pressure, its running sum, face fluxes */
    double *te, *tn, *fvt, *fvb;     /* n2 work: face transports, vertical fluxes */
    double *w;                       /* (nz+1) n2: upward transport at the top of each level */
    double *bar, *eta;               /* 2 n2: depth-mean u, v; n2: surface height */
    double *cp, *dp, *kr;            /* nz ld: a row's tridiagonal solves, its coefficients */
} pop_sea;

/* Block [i0, i0+bx) x [j0, j0+by) of grid g with nz levels. Returns 0, or -1 out of memory. */
int pop_sea_init(pop_sea *o, const pop_grid *g, int i0, int j0, int bx, int by, int nz,
                   double dt);
void pop_sea_free(pop_sea *o);
/* The initial state on the interior and the halo (exact: no exchange), eta = 0. */
void pop_sea_start(pop_sea *o, const pop_grid *g, int i0, int j0);
/* Level k of field f of a state array. */
static inline double *pop_level(const pop_sea *o, double *x, int f, int k)
{
    return x + ((size_t)f * o->nz + (size_t)k) * o->n2;
}

/* The baroclinic step: state (halo current) -> next -> state. Mixing coefficients, the
 * tracers' explicit update, their halo update (tracers: 2 nz levels), the momentum's
 * (phase POP_PH_CLINIC), the implicit columns (POP_PH_VMIX). */
void pop_clinic_step(pop_sea *o, hpc_phases *ph, pop_halo3 *tracers);

/* Depth means of u and v into bar (interior). */
void pop_tropic_means(pop_sea *o);
/* b for the solver (interior, block layout) from bar (halo current) and eta; returns the
 * local sum of b^2. */
double pop_tropic_rhs(const pop_sea *o, double *b);
/* Every level's velocity takes - g dt grad(eta) (eta's halo current). */
void pop_tropic_correct(pop_sea *o);

/* Local volume integral of tracer f (POP_T or POP_S) over the interior. */
double pop_sea_content(const pop_sea *o, int f);

#endif
