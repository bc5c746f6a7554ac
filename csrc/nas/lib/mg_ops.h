/* mg_ops.h - NPB MG's operators on one rank's block of a level (NAS RNR-94-007 and NPB 3.4
 * MG/mg.f) and the V-cycle that strings them together. resid, psinv and rprj3 compute the
 * interior points of the planes they are given and fill those planes' x and y ghosts
 * (mg_fill_plane_xy, while the plane is in cache); the callers fill the z ghost planes
 * (mg_fill_z). interp reads the coarse ghosts and writes the fine ones, all of them. L gives
 * the block's shape; its arrays are not used (views of replicated levels pass a shifted
 * pointer instead). */
#ifndef MG_OPS_H
#define MG_OPS_H

#include "mg_grid.h"

/* r = v - A u on planes k0..k1, A the 27-point operator with coefficients a[0..3] by
 * distance (a[1] = 0, as NPB assumes). r may be v. */
void mg_resid(const mg_level *L, const double *u, const double *v, double *r, const double *a,
              int k0, int k1);

/* u = u + C r on planes k0..k1, NPB's smoother (c[3] = 0, as NPB assumes). */
void mg_psinv(const mg_level *L, const double *r, double *u, const double *c, int k0, int k1);

/* s = P r on coarse planes ck0..ck1, trilinear restriction onto the coarse block C
 * (C->nz = F->nz / 2, same z origin halved): coarse point j sits at fine point 2j, so coarse
 * plane ck reads fine planes 2ck-1..2ck+1. */
void mg_rprj3(const mg_level *F, const double *r, const mg_level *C, double *s, int ck0,
              int ck1);

/* u = u + Q z from coarse planes ck0..ck1 (0..C->nz in all), trilinear interpolation from
 * the coarse block C onto the fine block F, ghost layers of u included (so u needs no
 * exchange when z's ghosts are right): coarse plane ck writes fine planes 2ck and 2ck+1,
 * and only it does. */
void mg_interp(const mg_level *C, const double *z, const mg_level *F, double *u, int ck0,
               int ck1);

/* Add planes k0..k1 of r to this rank's sum of squares *sum and take the largest magnitude
 * into *max (start both at 0). */
void mg_norm_local(const mg_level *L, const double *r, int k0, int k1, double *sum,
                   double *max);

/* Level-wise steps with their phases and ghost exchange. */
void mg_smooth_level(mg_ctx *g, int k);                    /* u_k += C r_k */

/* r = v - A u on the finest level, with (want & MG_NORM) NPB's norm2u3 of it into rnm2 and
 * rnmu, and with (want & MG_AHEAD) the restriction onto the next coarser level too, the
 * first step of the next mg_vcycle (which then skips it); both plane by plane while r is in
 * cache. */
enum { MG_NORM = 1, MG_AHEAD = 2 };
void mg_resid_top(mg_ctx *g, int want, double *rnm2, double *rnmu);

/* NPB's norm2u3 on the finest level: sqrt(sum r^2 / n^3) and max |r|, over all ranks
 * (of r alone, after mg_resid_top without MG_NORM). */
void mg_norm2u3(mg_ctx *g, const double *r, double *rnm2, double *rnmu);

/* One V-cycle (NPB's mg3P): restrict the residual down to level 1, smooth there, then
 * interpolate, take the residual and smooth on the way up to the finest level (the three
 * fused plane by plane on each level, the same arithmetic as one after the other). */
void mg_vcycle(mg_ctx *g);

#endif
