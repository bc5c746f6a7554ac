/* mg_grid.c - NPB MG's levels, ghost exchange and coarse-level gather (mg_grid.h). */
#include "mg_grid.h"

#include <stdlib.h>
#include <string.h>

const hpc_phase_def mg_phase_defs[MG_NPHASES] = {
    {"resid", HPC_KIND_COMPUTE},   {"smooth", HPC_KIND_COMPUTE}, {"restrict", HPC_KIND_COMPUTE},
    {"interp", HPC_KIND_COMPUTE},  {"norm", HPC_KIND_COMPUTE},   {"halo", HPC_KIND_COMM},
    {"gather", HPC_KIND_COMM},     {"reduce", HPC_KIND_COMM}};

void mg_phase(const mg_ctx *g, int id)
{
    if (g->ph)
        hpc_phase_to(g->ph, id);
}

void mg_zero(double *x, size_t n)
{
    memset(x, 0, n * sizeof *x);
}

int mg_setup(mg_ctx *g, int n, MPI_Comm comm)
{
    memset(g, 0, sizeof *g);
    g->comm = comm;
    MPI_Comm_size(comm, &g->nranks);
    MPI_Comm_rank(comm, &g->rank);
    while ((2 << g->lt) <= n)
        g->lt++;
    for (int k = g->lt; k >= 1; k--) {
        mg_level *L = &g->lev[k];
        L->n = n >> (g->lt - k);
        /* one rank: whole and local; else distributed while every rank has two planes */
        L->rep = g->nranks > 1 && L->n < 2 * g->nranks;
        L->nz = L->rep || g->nranks == 1 ? L->n : L->n / g->nranks;
        L->z0 = L->rep ? 0 : g->rank * L->nz;
        L->sy = (size_t)L->n + 2;
        L->sz = L->sy * L->sy;
        L->size = L->sz * ((size_t)L->nz + 2);
        L->u = calloc(L->size, sizeof(double));
        /* the finest residual array is the output of resid(u, v); coarser ones are in place */
        L->r = calloc(L->size, sizeof(double));
        if (!L->u || !L->r)
            return -1;
    }
    g->v = calloc(g->lev[g->lt].size, sizeof(double));
    return g->v ? 0 : -1;
}

void mg_free(mg_ctx *g)
{
    for (int k = 1; k <= g->lt; k++) {
        free(g->lev[k].u);
        free(g->lev[k].r);
    }
    free(g->v);
}

/* Periodic ghosts in x and y of plane k (y copies include the x ghosts, so the edges come
 * out right, as in NPB's comm3 axis order). */
void mg_fill_plane_xy(const mg_level *L, double *x, int k)
{
    int n = L->n;
    double *p = x + (size_t)k * L->sz;
    for (int j = 1; j <= n; j++) {
        double *row = p + (size_t)j * L->sy;
        row[0] = row[n];
        row[n + 1] = row[1];
    }
    memcpy(p, p + (size_t)n * L->sy, L->sy * sizeof(double));
    memcpy(p + (size_t)(n + 1) * L->sy, p + L->sy, L->sy * sizeof(double));
}

void mg_fill_z(mg_ctx *g, int k, double *x)
{
    const mg_level *L = &g->lev[k];
    double *lo = x, *first = x + L->sz, *last = x + (size_t)L->nz * L->sz;
    double *hi = x + (size_t)(L->nz + 1) * L->sz;
    if (L->rep || g->nranks == 1) {
        memcpy(lo, last, L->sz * sizeof(double));
        memcpy(hi, first, L->sz * sizeof(double));
        return;
    }
    mg_phase(g, MG_PH_HALO);
    int up = (g->rank + 1) % g->nranks, down = (g->rank + g->nranks - 1) % g->nranks;
    /* planes are contiguous: no packing; both directions at once (one latency, not two);
     * two tags, as with two ranks up == down */
    MPI_Request rq[4];
    MPI_Irecv(lo, (int)L->sz, MPI_DOUBLE, down, 1, g->comm, &rq[0]);
    MPI_Irecv(hi, (int)L->sz, MPI_DOUBLE, up, 2, g->comm, &rq[1]);
    MPI_Isend(last, (int)L->sz, MPI_DOUBLE, up, 1, g->comm, &rq[2]);
    MPI_Isend(first, (int)L->sz, MPI_DOUBLE, down, 2, g->comm, &rq[3]);
    hpc_wait_all(4, rq);
}

void mg_fill_ghosts(mg_ctx *g, int k, double *x)
{
    const mg_level *L = &g->lev[k];
    for (int p = 1; p <= L->nz; p++)
        mg_fill_plane_xy(L, x, p);
    mg_fill_z(g, k, x);
}

void mg_gather_level(mg_ctx *g, int k, double *x)
{
    const mg_level *L = &g->lev[k];
    mg_phase(g, MG_PH_GATHER);
    /* rank r wrote planes r*n/P+1.. of the whole level: contiguous, in rank order */
    int count = (int)((size_t)(L->n / g->nranks) * L->sz);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x + L->sz, count, MPI_DOUBLE, g->comm);
    mg_fill_ghosts(g, k, x);
}
