/* adi_rhs.h - the right-hand side of NPB's BT and SP (their compute_rhs): the same operator
 * R(u) as LU's (lib/lu_rhs.c), computed the way BT and SP do, once a step from each point's
 * primitive quantities (1/rho, the three velocities, the kinetic energy over rho, qs and, for
 * SP, the speed of sound), which the line solves then reuse. u is copied once a step into one
 * array per variable (NPB's layout) so that every loop runs along i at unit stride, vectorised;
 * LU's form, whose fluxes divide by rho per flux and direction on the interleaved fields, took
 * twice NPB's time (docs/nas_sp.md). */
#ifndef ADI_RHS_H
#define ADI_RHS_H

#include "lu_grid.h"

/* One array per variable and per primitive, indexed by the point (a field offset / 5). */
typedef struct adi_prim {
    double *u[5];               /* u by variable */
    double *rho_i, *vel[3], *square, *qs, *speed;
    double *o[5];               /* one row of the result, by variable */
    double *wx[5];              /* the fourth-difference weights along i, by local i */
    double *mem;
} adi_prim;

/* 0, or -1 without memory. */
int adi_prim_init(adi_prim *p, const lu_ctx *g);
void adi_prim_free(adi_prim *p);

/* The point index of local (i, j, k). */
static inline size_t adi_pt(const lu_ctx *g, int i, int j, int k)
{
    return (size_t)(lu_at(g, g->u, i, j, k) - g->u) / 5;
}

/* rsd = scale (R(u) - frct) at the interior (BT, SP: scale dt; LU: 1, through lu_rhs), the
 * primitives of u computed first (with the speed of sound when with_speed). Fills u's ghosts
 * from the neighbours. Collective. */
void adi_rhs(lu_ctx *g, adi_prim *p, int with_speed, double scale);

#endif
