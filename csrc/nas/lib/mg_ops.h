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

/* s = P r, trilinear restriction onto the coarse block C (C->nz = F->nz / 2, same z origin
 * halved): coarse point j sits at fine point 2j. */
void mg_rprj3(const mg_level *F, const double *r, const mg_level *C, double *s);

/* u = u + Q z, trilinear interpolation from the coarse block C onto the fine block F,
 * ghost layers of u included (so u needs no exchange when z's ghosts are right). */
void mg_interp(const mg_level *C, const double *z, const mg_level *F, double *u);

/* This rank's sum of squares and largest magnitude over the interior. */
void mg_norm_local(const mg_level *L, const double *r, double *sum, double *max);

/* NPB's norm2u3 on the finest level: sqrt(sum r^2 / n^3) and max |r|, over all ranks. */
void mg_norm2u3(mg_ctx *g, const double *r, double *rnm2, double *rnmu);

/* Level-wise steps with their phases and ghost exchange. */
void mg_resid_level(mg_ctx *g, int k, const double *v);   /* r_k = v - A u_k */
void mg_smooth_level(mg_ctx *g, int k);                    /* u_k += C r_k */
/* Both, fused plane by plane (the same arithmetic): r_k = v - A u_k, then u_k += C r_k. */
void mg_resid_smooth_level(mg_ctx *g, int k, const double *v);

/* One V-cycle (NPB's mg3P): restrict the residual down to level 1, smooth there, then
 * interpolate, take the residual and smooth on the way up to the finest level. */
void mg_vcycle(mg_ctx *g);

#endif
