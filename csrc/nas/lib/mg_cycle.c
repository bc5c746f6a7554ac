/* mg_cycle.c - NPB MG's V-cycle (mg3P in mg.f) over the levels of mg_grid.h, with the
 * per-rank phases and the switch from distributed to replicated coarse levels.
 *
 * The operators that follow one another on a level are fused plane by plane (interp, resid
 * and psinv on the way up; resid and the next cycle's first rprj3 on the finest level): each
 * plane is finished while the planes it needs are still in cache, so a level is swept
 * through memory once, not three times. The arithmetic is that of mg.f's sequence; only the
 * order of the planes interleaves. The phase timers switch per plane. */
#include "mg_ops.h"

#include <math.h>

/* The coarse side of level k: level k-1, or, when k-1 is the first replicated level below
 * a distributed k, a view of the rank's own planes of the whole coarse grid (its arrays at
 * an offset). */
typedef struct {
    mg_level lev;
    double *r, *u;
    int cross;
} coarse;

static void coarse_side(const mg_ctx *g, int k, coarse *c)
{
    const mg_level *F = &g->lev[k], *C = &g->lev[k - 1];
    c->lev = *C;
    c->r = C->r;
    c->u = C->u;
    c->cross = C->rep && !F->rep && g->nranks > 1;
    if (c->cross) {
        size_t off = (size_t)(F->z0 / 2) * C->sz;
        c->lev.nz = F->nz / 2;
        c->r += off;
        c->u += off;
    }
}

static void restrict_planes(mg_ctx *g, int k, const coarse *c, int ck0, int ck1)
{
    mg_phase(g, MG_PH_RESTRICT);
    mg_rprj3(&g->lev[k], g->lev[k].r, &c->lev, c->r, ck0, ck1);
}

/* The coarse level's z ghosts, or its other ranks' planes when it is replicated. */
static void restrict_done(mg_ctx *g, int k, const coarse *c)
{
    if (c->cross)
        mg_gather_level(g, k - 1, g->lev[k - 1].r);
    else
        mg_fill_z(g, k - 1, g->lev[k - 1].r);
}

static void restrict_level(mg_ctx *g, int k)
{
    coarse c;
    coarse_side(g, k, &c);
    restrict_planes(g, k, &c, 1, c.lev.nz);
    restrict_done(g, k, &c);
}

void mg_smooth_level(mg_ctx *g, int k)
{
    mg_level *L = &g->lev[k];
    mg_phase(g, MG_PH_SMOOTH);
    mg_psinv(L, L->r, L->u, g->c, 1, L->nz);
    mg_fill_z(g, k, L->u);
}

/* Coarse plane ck interpolated onto the two fine planes it alone writes (zeroed first when
 * the level starts from u = 0). */
static void interp_plane(mg_ctx *g, int k, const coarse *c, int ck, int zero)
{
    mg_level *F = &g->lev[k];
    mg_phase(g, MG_PH_INTERP);
    if (zero)
        mg_zero(F->u + (size_t)(2 * ck) * F->sz, 2 * F->sz);
    mg_interp(&c->lev, c->u, F, F->u, ck, ck);
}

/* Level k on the way up: u = u + Q u_coarse (from u = 0 if zero), r = v - A u, u = u + C r.
 * Fine plane p's residual needs u on planes p-1..p+1 interpolated; the smoother of plane
 * p-1 follows it, its three r planes just made. That new u is read by no later residual
 * plane. Planes 1 and nz wait for r's z ghosts (the other end's or the neighbours'). */
static void up_level(mg_ctx *g, int k, const double *v, int zero)
{
    mg_level *L = &g->lev[k];
    coarse c;
    coarse_side(g, k, &c);
    int next = 0;  /* the next coarse plane to interpolate */
    for (int p = 1; p <= L->nz; p++) {
        for (; next <= c.lev.nz && 2 * next <= p + 1; next++)
            interp_plane(g, k, &c, next, zero);
        mg_phase(g, MG_PH_RESID);
        mg_resid(L, L->u, v, L->r, g->a, p, p);
        if (p >= 3) {
            mg_phase(g, MG_PH_SMOOTH);
            mg_psinv(L, L->r, L->u, g->c, p - 1, p - 1);
        }
    }
    mg_phase(g, MG_PH_RESID);
    mg_fill_z(g, k, L->r);
    mg_phase(g, MG_PH_SMOOTH);
    if (L->nz >= 2)
        mg_psinv(L, L->r, L->u, g->c, L->nz, L->nz);
    mg_psinv(L, L->r, L->u, g->c, 1, 1);
    mg_fill_z(g, k, L->u);
}

void mg_vcycle(mg_ctx *g)
{
    /* the finest level's restriction may have been done with its residual */
    for (int k = g->ahead ? g->lt - 1 : g->lt; k >= 2; k--)
        restrict_level(g, k);
    g->ahead = 0;
    mg_level *B = &g->lev[1];
    mg_phase(g, MG_PH_SMOOTH);
    mg_zero(B->u, B->size);
    mg_smooth_level(g, 1);
    for (int k = 2; k < g->lt; k++)
        up_level(g, k, g->lev[k].r, 1);   /* coarse levels: r = r - A u in place */
    up_level(g, g->lt, g->v, 0);
}

/* The global norm from this rank's sum of squares s and largest magnitude m. */
static void norm_reduce(mg_ctx *g, double s, double m, double *rnm2, double *rnmu)
{
    mg_phase(g, MG_PH_REDUCE);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, g->comm);
    MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, g->comm);
    double n = (double)g->lev[g->lt].n;
    *rnm2 = sqrt(s / (n * n * n));
    *rnmu = m;
}

void mg_resid_top(mg_ctx *g, int want, double *rnm2, double *rnmu)
{
    int k = g->lt, ahead = (want & MG_AHEAD) && k >= 2;
    mg_level *L = &g->lev[k];
    coarse c;
    if (ahead)
        coarse_side(g, k, &c);
    double s = 0, m = 0;
    for (int p = 1; p <= L->nz; p++) {
        mg_phase(g, MG_PH_RESID);
        mg_resid(L, L->u, g->v, L->r, g->a, p, p);
        if (want & MG_NORM) {
            mg_phase(g, MG_PH_NORM);
            mg_norm_local(L, L->r, p, p, &s, &m);
        }
        if (ahead && p % 2 == 1 && p >= 3)  /* coarse plane (p-1)/2 has its fine planes */
            restrict_planes(g, k, &c, (p - 1) / 2, (p - 1) / 2);
    }
    mg_phase(g, MG_PH_RESID);
    mg_fill_z(g, k, L->r);
    if (ahead) {
        restrict_planes(g, k, &c, c.lev.nz, c.lev.nz);
        restrict_done(g, k, &c);
    }
    g->ahead = ahead;
    if (want & MG_NORM)
        norm_reduce(g, s, m, rnm2, rnmu);
}

void mg_norm2u3(mg_ctx *g, const double *r, double *rnm2, double *rnmu)
{
    const mg_level *L = &g->lev[g->lt];
    double s = 0, m = 0;
    mg_phase(g, MG_PH_NORM);
    mg_norm_local(L, r, 1, L->nz, &s, &m);
    norm_reduce(g, s, m, rnm2, rnmu);
}
