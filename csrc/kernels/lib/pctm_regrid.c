/* pctm_regrid.c - conservative regridding of pctm's coupler (pctm_regrid.h). */
#include "pctm_regrid.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int on(const pctm_grid *g, int i, int j)
{
    return !g->mask || g->mask[(size_t)j * g->nx + i];
}

/* pos[s] = place of source index s among those the destinations [d0, d0+n) overlap, in
 * increasing s (-1: not needed); returns how many. */
static int mark(const pctm_ovl *o, int d0, int n, int ns, int *pos)
{
    for (int s = 0; s < ns; s++)
        pos[s] = -1;
    for (int d = d0; d < d0 + n; d++)
        for (int k = o->ptr[d]; k < o->ptr[d + 1]; k++)
            pos[o->src[k]] = 0;
    int cnt = 0;
    for (int s = 0; s < ns; s++)
        if (pos[s] == 0)
            pos[s] = cnt++;
    return cnt;
}

/* E_s of every source cell I hold: through the overlaps the other way round. */
static void exchange_areas(pctm_regrid *r, const pctm_layout *sl, int me)
{
    const pctm_grid *sg = r->sg, *dg = r->dg;
    pctm_ovl tx, ty;
    pctm_ovl_build(&tx, dg->xlo, dg->xhi, dg->nx, sg->xlo, sg->xhi, sg->nx, 2 * M_PI);
    pctm_ovl_build(&ty, dg->ylo, dg->yhi, dg->ny, sg->ylo, sg->yhi, sg->ny, 0);
    r->nsrc = sl->nlocal;
    r->exch = pctm_alloc((size_t)r->nsrc, sizeof(double));
    for (int j = 0; j < sg->ny; j++)
        for (int i = 0; i < sg->nx; i++) {
            long c = (long)j * sg->nx + i;
            if (sl->owner[c] != me || !on(sg, i, j))
                continue;
            double e = 0;
            for (int a = ty.ptr[j]; a < ty.ptr[j + 1]; a++)
                for (int b = tx.ptr[i]; b < tx.ptr[i + 1]; b++)
                    e += on(dg, tx.src[b], ty.src[a]) ? ty.len[a] * tx.len[b] : 0.0;
            r->exch[sl->local[c]] = e;
        }
    pctm_ovl_free(&tx);
    pctm_ovl_free(&ty);
}

/* N_d of my destination cells. */
static void normalisers(pctm_regrid *r, int area_norm)
{
    const pctm_grid *sg = r->sg, *dg = r->dg;
    const int *q = r->rect;
    r->norm = pctm_alloc((size_t)q[1] * q[3], sizeof(double));
    for (int j = q[2]; j < q[2] + q[3]; j++)
        for (int i = q[0]; i < q[0] + q[1]; i++) {
            double n = 0;
            if (area_norm)
                n = (dg->xhi[i] - dg->xlo[i]) * (dg->yhi[j] - dg->ylo[j]);
            else
                for (int a = r->oy.ptr[j]; a < r->oy.ptr[j + 1]; a++)
                    for (int b = r->ox.ptr[i]; b < r->ox.ptr[i + 1]; b++)
                        n += on(sg, r->ox.src[b], r->oy.src[a]) ? r->oy.len[a] * r->ox.len[b]
                                                                : 0.0;
            r->norm[(size_t)(j - q[2]) * q[1] + (i - q[0])] = on(dg, i, j) ? n : 0.0;
        }
}

void pctm_regrid_init(pctm_regrid *r, MPI_Comm comm, const pctm_grid *sg, const pctm_layout *sl,
                      const pctm_grid *dg, const int rect[4], int area_norm)
{
    int me;
    MPI_Comm_rank(comm, &me);
    memset(r, 0, sizeof *r);
    r->sg = sg;
    r->dg = dg;
    memcpy(r->rect, rect, sizeof r->rect);
    pctm_ovl_build(&r->ox, sg->xlo, sg->xhi, sg->nx, dg->xlo, dg->xhi, dg->nx, 2 * M_PI);
    pctm_ovl_build(&r->oy, sg->ylo, sg->yhi, sg->ny, dg->ylo, dg->yhi, dg->ny, 0);
    r->colpos = pctm_alloc((size_t)sg->nx, sizeof(int));
    r->rowpos = pctm_alloc((size_t)sg->ny, sizeof(int));
    int some = rect[1] > 0 && rect[3] > 0;  /* a rank outside the destination needs none */
    int ncol = mark(&r->ox, rect[0], some ? rect[1] : 0, sg->nx, r->colpos);
    int nrow = mark(&r->oy, rect[2], some ? rect[3] : 0, sg->ny, r->rowpos);
    r->ncol = ncol;
    r->nneed = (long)ncol * nrow;
    long *need = pctm_alloc((size_t)r->nneed, sizeof(long)), k = 0;
    for (int j = 0; j < sg->ny; j++)
        for (int i = 0; i < sg->nx && r->rowpos[j] >= 0; i++)
            if (r->colpos[i] >= 0)
                need[k++] = (long)j * sg->nx + i;
    r->need = pctm_alloc((size_t)r->nneed, sizeof(double));
    pctm_redist_init(&r->rd, comm, sl, need, r->nneed);
    free(need);
    normalisers(r, area_norm);
    exchange_areas(r, sl, me);
}

void pctm_regrid_fetch(pctm_regrid *r, const double *src)
{
    pctm_redist_do(&r->rd, src, r->need);
}

void pctm_regrid_apply(const pctm_regrid *r, double *dst)
{
    const pctm_grid *sg = r->sg;
    const int *q = r->rect;
    for (int j = q[2]; j < q[2] + q[3]; j++)
        for (int i = q[0]; i < q[0] + q[1]; i++) {
            size_t d = (size_t)(j - q[2]) * q[1] + (i - q[0]);
            double acc = 0;
            for (int a = r->oy.ptr[j]; a < r->oy.ptr[j + 1] && r->norm[d] > 0; a++) {
                int sj = r->oy.src[a];
                const double *row = r->need + (size_t)r->rowpos[sj] * r->ncol;
                for (int b = r->ox.ptr[i]; b < r->ox.ptr[i + 1]; b++)
                    if (on(sg, r->ox.src[b], sj))
                        acc += r->oy.len[a] * r->ox.len[b] * row[r->colpos[r->ox.src[b]]];
            }
            dst[d] = r->norm[d] > 0 ? acc / r->norm[d] : 0.0;
        }
}

void pctm_regrid_integrals(const pctm_regrid *r, const double *src, const double *dst,
                           double out[3])
{
    out[0] = out[1] = out[2] = 0;
    for (long s = 0; s < r->nsrc; s++) {
        out[0] += src[s] * r->exch[s];
        out[2] += fabs(src[s]) * r->exch[s];
    }
    for (long d = 0; d < (long)r->rect[1] * r->rect[3]; d++)
        out[1] += dst[d] * r->norm[d];
}

void pctm_regrid_free(pctm_regrid *r)
{
    pctm_ovl_free(&r->ox);
    pctm_ovl_free(&r->oy);
    pctm_redist_free(&r->rd);
    free(r->colpos); free(r->rowpos); free(r->need); free(r->norm); free(r->exch);
    memset(r, 0, sizeof *r);
}
