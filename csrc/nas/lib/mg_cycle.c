/* mg_cycle.c - NPB MG's V-cycle (mg3P in mg.f) over the levels of mg_grid.h, with the
 * per-rank phases and the switch from distributed to replicated coarse levels. */
#include "mg_ops.h"

#include <math.h>

void mg_resid_level(mg_ctx *g, int k, const double *v)
{
    mg_level *L = &g->lev[k];
    mg_phase(g, MG_PH_RESID);
    mg_resid(L, L->u, v, L->r, g->a, 1, L->nz);
    mg_fill_z(g, k, L->r);
}

void mg_smooth_level(mg_ctx *g, int k)
{
    mg_level *L = &g->lev[k];
    mg_phase(g, MG_PH_SMOOTH);
    mg_psinv(L, L->r, L->u, g->c, 1, L->nz);
    mg_fill_z(g, k, L->u);
}

/* r = v - A u, then u = u + C r on level k, plane by plane: the smoother of plane p-1 runs
 * right after the residual of plane p, while the three r planes it reads and its own u plane
 * are still in cache (one sweep through memory instead of two). Plane p-1's new u is not
 * read by any later residual plane; plane 1 waits for r's z ghosts (the residual of the last
 * plane, or the neighbour's), and plane nz for the lower ghost of u to stay the old one. */
void mg_resid_smooth_level(mg_ctx *g, int k, const double *v)
{
    mg_level *L = &g->lev[k];
    for (int p = 1; p <= L->nz; p++) {
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

/* Is level k-1 the first replicated one below a distributed level k? Then the coarse side
 * is addressed through a view: the rank's own planes of the whole coarse grid. */
static int crosses(const mg_ctx *g, int k, mg_level *view, size_t *offset)
{
    const mg_level *F = &g->lev[k], *C = &g->lev[k - 1];
    if (!C->rep || F->rep || g->nranks == 1)
        return 0;
    *view = *C;
    view->nz = F->nz / 2;
    *offset = (size_t)(F->z0 / 2) * C->sz;
    return 1;
}

static void restrict_level(mg_ctx *g, int k)
{
    mg_level *F = &g->lev[k], *C = &g->lev[k - 1], view;
    size_t off;
    mg_phase(g, MG_PH_RESTRICT);
    if (crosses(g, k, &view, &off)) {
        mg_rprj3(F, F->r, &view, C->r + off);
        mg_gather_level(g, k - 1, C->r);
    } else {
        mg_rprj3(F, F->r, C, C->r);
        mg_fill_z(g, k - 1, C->r);
    }
}

static void interp_level(mg_ctx *g, int k)
{
    mg_level *F = &g->lev[k], *C = &g->lev[k - 1], view;
    size_t off;
    mg_phase(g, MG_PH_INTERP);
    if (crosses(g, k, &view, &off))
        mg_interp(&view, C->u + off, F, F->u);
    else
        mg_interp(C, C->u, F, F->u);
}

void mg_vcycle(mg_ctx *g)
{
    for (int k = g->lt; k >= 2; k--)
        restrict_level(g, k);
    mg_level *B = &g->lev[1];
    mg_phase(g, MG_PH_SMOOTH);
    mg_zero(B->u, B->size);
    mg_smooth_level(g, 1);
    for (int k = 2; k < g->lt; k++) {
        mg_level *L = &g->lev[k];
        mg_phase(g, MG_PH_INTERP);
        mg_zero(L->u, L->size);
        interp_level(g, k);
        mg_resid_smooth_level(g, k, L->r);   /* coarse levels: r = r - A u in place */
    }
    interp_level(g, g->lt);
    mg_resid_smooth_level(g, g->lt, g->v);
}

void mg_norm2u3(mg_ctx *g, const double *r, double *rnm2, double *rnmu)
{
    const mg_level *L = &g->lev[g->lt];
    double s, m;
    mg_phase(g, MG_PH_NORM);
    mg_norm_local(L, r, &s, &m);
    mg_phase(g, MG_PH_REDUCE);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, g->comm);
    MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, g->comm);
    double n = (double)L->n;
    *rnm2 = sqrt(s / (n * n * n));
    *rnmu = m;
}
