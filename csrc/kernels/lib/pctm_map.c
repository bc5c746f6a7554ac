/* pctm_map.c - grids, overlaps, layouts and the redistribution of pctm's coupler
 * (pctm_map.h). */
#include "pctm_map.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void *pctm_alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        hpc_fail("pctm: out of memory (%zu items)", n);
    return p;
}

static void grid_alloc(pctm_grid *g, int nx, int ny)
{
    g->nx = nx;
    g->ny = ny;
    g->xlo = pctm_alloc((size_t)nx, sizeof(double));
    g->xhi = pctm_alloc((size_t)nx, sizeof(double));
    g->ylo = pctm_alloc((size_t)ny, sizeof(double));
    g->yhi = pctm_alloc((size_t)ny, sizeof(double));
    g->mask = NULL;
}

void pctm_grid_gauss(pctm_grid *g, int nlon, int nlat, const double *w)
{
    grid_alloc(g, nlon, nlat);
    double d = 2 * M_PI / nlon, top = 1.0;
    for (int i = 0; i < nlon; i++) {
        g->xlo[i] = (i - 0.5) * d;
        g->xhi[i] = (i + 0.5) * d;
    }
    for (int j = 0; j < nlat; j++) {  /* north first: the Gaussian latitudes descend */
        g->yhi[j] = top;
        top -= w[j];
        g->ylo[j] = j == nlat - 1 ? -1.0 : top;
    }
}

void pctm_grid_rows(pctm_grid *g, int nx, int ny, const double *area, double lat_max,
                    const unsigned char *mask)
{
    grid_alloc(g, nx, ny);
    g->mask = mask;
    double d = 2 * M_PI / nx, total = 0, cum = 0, s = sin(lat_max * M_PI / 180.0);
    for (int i = 0; i < nx; i++) {
        g->xlo[i] = i * d;
        g->xhi[i] = (i + 1) * d;
    }
    for (int j = 0; j < ny; j++)
        total += area[j];
    for (int j = 0; j < ny; j++) {
        g->ylo[j] = -s + 2 * s * cum / total;
        cum += area[j];
        g->yhi[j] = j == ny - 1 ? s : -s + 2 * s * cum / total;
    }
}

void pctm_grid_free(pctm_grid *g)
{
    free(g->xlo); free(g->xhi); free(g->ylo); free(g->yhi);
    memset(g, 0, sizeof *g);
}

static double shared(double a0, double a1, double b0, double b1)
{
    double lo = fmax(a0, b0), hi = fmin(a1, b1);
    return hi > lo ? hi - lo : 0.0;
}

/* All pairs: the grids are at most a few thousand cells per dimension, built once. */
void pctm_ovl_build(pctm_ovl *o, const double *slo, const double *shi, int ns,
                    const double *dlo, const double *dhi, int nd, double period)
{
    int cap = 4 * (ns + nd) + 16, n = 0;
    o->n = nd;
    o->ptr = pctm_alloc((size_t)nd + 1, sizeof(int));
    o->src = pctm_alloc((size_t)cap, sizeof(int));
    o->len = pctm_alloc((size_t)cap, sizeof(double));
    for (int d = 0; d < nd; d++) {
        o->ptr[d] = n;
        for (int s = 0; s < ns; s++) {
            double l = shared(slo[s], shi[s], dlo[d], dhi[d]);
            if (period > 0)
                l += shared(slo[s] + period, shi[s] + period, dlo[d], dhi[d])
                     + shared(slo[s] - period, shi[s] - period, dlo[d], dhi[d]);
            if (l <= 0)
                continue;
            if (n == cap)
                hpc_fail("pctm: more overlaps than %d (grids not monotone?)", cap);
            o->src[n] = s;
            o->len[n++] = l;
        }
    }
    o->ptr[nd] = n;
}

void pctm_ovl_free(pctm_ovl *o)
{
    free(o->ptr); free(o->src); free(o->len);
    memset(o, 0, sizeof *o);
}

static void layout_alloc(pctm_layout *l, long ncells)
{
    l->ncells = ncells;
    l->owner = pctm_alloc((size_t)ncells, sizeof(int));
    l->local = pctm_alloc((size_t)ncells, sizeof(long));
    for (long c = 0; c < ncells; c++)
        l->owner[c] = -1, l->local[c] = -1;
    l->nlocal = 0;
}

void pctm_layout_rects(pctm_layout *l, int nx, int ny, const int (*rect)[4], int nranks,
                       int me)
{
    layout_alloc(l, (long)nx * ny);
    for (int r = 0; r < nranks; r++) {
        const int *q = rect[r];
        for (int j = q[2]; j < q[2] + q[3]; j++)
            for (int i = q[0]; i < q[0] + q[1]; i++) {
                long c = (long)j * nx + i;
                l->owner[c] = r;
                l->local[c] = (long)(j - q[2]) * q[1] + (i - q[0]);
            }
        if (r == me)
            l->nlocal = (long)q[1] * q[3];
    }
}

void pctm_layout_cyclic(pctm_layout *l, long ncells, const long *cells, long ncell, int first,
                        int n, int me)
{
    layout_alloc(l, ncells);
    for (long k = 0; k < ncell; k++) {
        l->owner[cells[k]] = first + (int)(k % n);
        l->local[cells[k]] = k / n;
        l->nlocal += first + (int)(k % n) == me;
    }
}

void pctm_layout_free(pctm_layout *l)
{
    free(l->owner);
    free(l->local);
    memset(l, 0, sizeof *l);
}

static void displs(const int *cnt, int *dsp, int n)
{
    dsp[0] = 0;
    for (int r = 1; r < n; r++)
        dsp[r] = dsp[r - 1] + cnt[r - 1];
}

void pctm_redist_init(pctm_redist *r, MPI_Comm comm, const pctm_layout *src, const long *need,
                      long nneed)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    memset(r, 0, sizeof *r);
    r->comm = comm;
    r->scnt = pctm_alloc((size_t)n, sizeof(int)); r->sdsp = pctm_alloc((size_t)n, sizeof(int));
    r->rcnt = pctm_alloc((size_t)n, sizeof(int)); r->rdsp = pctm_alloc((size_t)n, sizeof(int));
    int *fill = pctm_alloc((size_t)n, sizeof(int));
    for (long k = 0; k < nneed; k++) {
        if (src->owner[need[k]] < 0)
            hpc_fail("pctm: cell %ld is needed but nobody holds it", need[k]);
        r->rcnt[src->owner[need[k]]]++;
    }
    displs(r->rcnt, r->rdsp, n);
    r->nrecv = nneed;
    r->rpos = pctm_alloc((size_t)nneed, sizeof(long));
    long *asked = pctm_alloc((size_t)nneed, sizeof(long));
    for (long k = 0; k < nneed; k++) {  /* grouped by owner, in need order */
        int o = src->owner[need[k]];
        long pos = r->rdsp[o] + fill[o]++;
        r->rpos[pos] = k;
        asked[pos] = need[k];
    }
    MPI_Alltoall(r->rcnt, 1, MPI_INT, r->scnt, 1, MPI_INT, comm);
    displs(r->scnt, r->sdsp, n);
    r->nsend = n ? r->sdsp[n - 1] + r->scnt[n - 1] : 0;
    long *cells = pctm_alloc((size_t)r->nsend, sizeof(long));
    MPI_Alltoallv(asked, r->rcnt, r->rdsp, MPI_LONG, cells, r->scnt, r->sdsp, MPI_LONG, comm);
    r->sidx = pctm_alloc((size_t)r->nsend, sizeof(long));
    for (long k = 0; k < r->nsend; k++) {
        if (src->owner[cells[k]] != me)
            hpc_fail("pctm: rank %d was asked for cell %ld it does not hold", me, cells[k]);
        r->sidx[k] = src->local[cells[k]];
    }
    r->sbuf = pctm_alloc((size_t)r->nsend, sizeof(double));
    r->rbuf = pctm_alloc((size_t)r->nrecv, sizeof(double));
    free(cells); free(asked); free(fill);
}

void pctm_redist_do(pctm_redist *r, const double *src, double *dst)
{
    for (long k = 0; k < r->nsend; k++)
        r->sbuf[k] = src[r->sidx[k]];
    MPI_Alltoallv(r->sbuf, r->scnt, r->sdsp, MPI_DOUBLE, r->rbuf, r->rcnt, r->rdsp, MPI_DOUBLE,
                  r->comm);
    for (long k = 0; k < r->nrecv; k++)
        dst[r->rpos[k]] = r->rbuf[k];
}

void pctm_redist_free(pctm_redist *r)
{
    free(r->scnt); free(r->sdsp); free(r->rcnt); free(r->rdsp);
    free(r->sidx); free(r->rpos); free(r->sbuf); free(r->rbuf);
    memset(r, 0, sizeof *r);
}
