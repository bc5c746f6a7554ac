/* pop_comm.c - decomposition, halo update variants and global-sum variants of
 * the POP-like barotropic proxy (pop_comm.h says what each does). */
#include "pop_comm.h"
#include "pop_caf.h"
#include "pop_shmem.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* Directions E W N S NE NW SE SW: offsets and the opposite direction. */
static const int DX[8] = {1, -1, 0, 0, 1, -1, 1, -1};
static const int DY[8] = {0, 0, 1, -1, 1, 1, -1, -1};
static const int OPP[8] = {1, 0, 3, 2, 7, 6, 5, 4};

enum { TAG_UP = 100, TAG_DOWN = 101 };  /* tree sum; halo messages use tags 0..7 */

/* The globally addressable variants (OpenSHMEM, Co-Array Fortran): their field, halo update
 * and global sum, each in its own memory. */
typedef struct {
    double *(*field)(pop_halo *h, size_t n);
    void (*field_free)(pop_halo *h);
    void (*halo)(pop_halo *h);
    int (*sum_init)(pop_gsum *s);
    void (*sum_free)(pop_gsum *s);
    double (*sum)(pop_gsum *s, double v);
} pgas_ops;

static const pgas_ops SHMEM_OPS = {pop_shmem_field, pop_shmem_field_free, pop_shmem_halo,
                                   pop_shmem_sum_init, pop_shmem_sum_free, pop_shmem_sum};
static const pgas_ops CAF_OPS = {pop_caf_field, pop_caf_field_free, pop_caf_halo,
                                 pop_caf_sum_init, pop_caf_sum_free, pop_caf_gsum};

static const pgas_ops *halo_ops(int variant)
{
    return variant == POP_HALO_SHMEM ? &SHMEM_OPS : variant == POP_HALO_CAF ? &CAF_OPS : NULL;
}

static const pgas_ops *sum_ops(int variant)
{
    return variant == POP_SUM_SHMEM ? &SHMEM_OPS : variant == POP_SUM_CAF ? &CAF_OPS : NULL;
}

void pop_extent(int n, int P, int p, int *start, int *len)
{
    int a = (int)((long)n * p / P), b = (int)((long)n * (p + 1) / P);
    *start = a;
    *len = b - a;
}

int pop_rank_of(const pop_decomp *d, int p, int q)
{
    return d->colmajor ? p * d->Q + q : q * d->P + p;
}

void pop_decomp_init(pop_decomp *d, int nx, int ny, int P, int Q, int colmajor, int rank,
                     int nranks)
{
    memset(d, 0, sizeof *d);
    d->nx = nx;
    d->ny = ny;
    d->P = P;
    d->Q = Q;
    d->colmajor = colmajor;
    d->rank = rank;
    d->nranks = nranks;
    d->p = colmajor ? rank / Q : rank % P;
    d->q = colmajor ? rank % Q : rank / P;
    pop_extent(nx, P, d->p, &d->i0, &d->bx);
    pop_extent(ny, Q, d->q, &d->j0, &d->by);
    for (int k = 0; k < 8; k++) {
        int pn = ((d->p + DX[k]) % P + P) % P, qn = d->q + DY[k];
        d->nbr[k] = qn < 0 || qn >= Q ? MPI_PROC_NULL : pop_rank_of(d, pn, qn);
    }
}

int pop_opposite(int k) { return OPP[k]; }

void pop_region(int bx, int by, int ld, int k, int ghost, int *start, int *ni, int *nj)
{
    int i = DX[k] > 0 ? (ghost ? bx + 1 : bx) : DX[k] < 0 ? (ghost ? 0 : 1) : 1;
    int j = DY[k] > 0 ? (ghost ? by + 1 : by) : DY[k] < 0 ? (ghost ? 0 : 1) : 1;
    *ni = DX[k] ? 1 : bx;
    *nj = DY[k] ? 1 : by;
    *start = j * ld + i;
}

static MPI_Datatype region_type(int ni, int nj, int ld)
{
    MPI_Datatype t;
    if (nj == 1)
        MPI_Type_contiguous(ni, MPI_DOUBLE, &t);
    else
        MPI_Type_vector(nj, 1, ld, MPI_DOUBLE, &t);  /* a column */
    MPI_Type_commit(&t);
    return t;
}

int pop_halo_init(pop_halo *h, const pop_decomp *d, int variant, hpc_phases *ph)
{
    memset(h, 0, sizeof *h);
    h->variant = variant;
    h->d = *d;
    h->ph = ph;
    h->ld = d->bx + 2;
    size_t n = (size_t)(d->bx + 2) * (d->by + 2);
    h->win = MPI_WIN_NULL;
    h->grp = MPI_GROUP_NULL;
    /* The put variant's field is the window's memory. MPI_Win_allocate rather than
     * MPI_Win_create: it lets Open MPI use its shared-memory component (osc/sm) on a node, and
     * its RDMA component elsewhere. One rank alone has no remote neighbour and needs no window
     * (and Open MPI 4.1 with only the "self" transport cannot create one). */
    if (variant == POP_HALO_PUT && d->nranks > 1) {
        if (MPI_Win_allocate((MPI_Aint)(n * sizeof(double)), sizeof(double), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &h->x, &h->win) != MPI_SUCCESS)
            return -1;
    } else if (halo_ops(variant)) {
        if (!(h->x = halo_ops(variant)->field(h, n)))
            return -1;
    } else if (MPI_Alloc_mem((MPI_Aint)(n * sizeof(double)), MPI_INFO_NULL, &h->x)
               != MPI_SUCCESS) {
        return -1;
    }
    memset(h->x, 0, n * sizeof(double));
    for (int k = 0; k < 8; k++) {
        int ni, nj, s;
        pop_region(d->bx, d->by, h->ld, k, 0, &h->send0[k], &ni, &nj);
        pop_region(d->bx, d->by, h->ld, k, 1, &h->recv0[k], &ni, &nj);
        h->cnt[k] = ni * nj;
        h->send_t[k] = region_type(ni, nj, h->ld);
        h->recv_t[k] = region_type(ni, nj, h->ld);
        h->tgt_t[k] = MPI_DATATYPE_NULL;
        h->sbuf[k] = malloc((size_t)h->cnt[k] * sizeof(double));
        h->rbuf[k] = malloc((size_t)h->cnt[k] * sizeof(double));
        if (!h->sbuf[k] || !h->rbuf[k])
            return -1;
        if ((variant == POP_HALO_PUT || halo_ops(variant))
            && d->nbr[k] != MPI_PROC_NULL && d->nbr[k] != d->rank) {
            /* The neighbour's block: same extent along the shared side, its own row length. */
            int pn = ((d->p + DX[k]) % d->P + d->P) % d->P, qn = d->q + DY[k], a, nbx, nby;
            pop_extent(d->nx, d->P, pn, &a, &nbx);
            pop_extent(d->ny, d->Q, qn, &a, &nby);
            pop_region(nbx, nby, nbx + 2, OPP[k], 1, &s, &ni, &nj);
            h->tgt_disp[k] = s;
            h->tgt_ld[k] = nbx + 2;
            if (variant == POP_HALO_PUT)
                h->tgt_t[k] = region_type(ni, nj, nbx + 2);
        }
    }
    if (h->win != MPI_WIN_NULL) {
        int ranks[8];
        for (int k = 0; k < 8; k++) {
            int r = d->nbr[k], seen = r == MPI_PROC_NULL || r == d->rank;
            for (int m = 0; m < h->ngrp && !seen; m++)
                seen = ranks[m] == r;
            if (!seen)
                ranks[h->ngrp++] = r;
        }
        MPI_Group world;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, h->ngrp, ranks, &h->grp);
        MPI_Group_free(&world);
    }
    return 0;
}

void pop_halo_free(pop_halo *h)
{
    if (h->win != MPI_WIN_NULL)
        MPI_Win_free(&h->win);  /* frees h->x too */
    else if (halo_ops(h->variant))
        halo_ops(h->variant)->field_free(h);
    else
        MPI_Free_mem(h->x);
    if (h->grp != MPI_GROUP_NULL)
        MPI_Group_free(&h->grp);
    for (int k = 0; k < 8; k++) {
        MPI_Type_free(&h->send_t[k]);
        MPI_Type_free(&h->recv_t[k]);
        if (h->tgt_t[k] != MPI_DATATYPE_NULL)
            MPI_Type_free(&h->tgt_t[k]);
        free(h->sbuf[k]);
        free(h->rbuf[k]);
    }
    memset(h, 0, sizeof *h);
}

/* Copy between a strided region (start, along x if horizontal) and a buffer. */
static void gather_edge(const pop_halo *h, int k, int start, double *buf)
{
    const double *x = h->x + start;
    if (DY[k])  /* a row or a corner: contiguous */
        memcpy(buf, x, (size_t)h->cnt[k] * sizeof(double));
    else
        for (int m = 0; m < h->cnt[k]; m++)
            buf[m] = x[(size_t)m * h->ld];
}

static void scatter_edge(pop_halo *h, int k, int start, const double *buf)
{
    double *x = h->x + start;
    if (DY[k])
        memcpy(x, buf, (size_t)h->cnt[k] * sizeof(double));
    else
        for (int m = 0; m < h->cnt[k]; m++)
            x[(size_t)m * h->ld] = buf[m];
}

/* Ghosts whose neighbour is this rank (P == 1: east and west): local copy of
 * my own opposite edge. */
static void self_copies(pop_halo *h)
{
    for (int k = 0; k < 8; k++) {
        if (h->d.nbr[k] != h->d.rank)
            continue;
        double *g = h->x + h->recv0[k];
        const double *e = h->x + h->send0[OPP[k]];
        for (int m = 0; m < h->cnt[k]; m++) {
            size_t o = DY[k] ? (size_t)m : (size_t)m * h->ld;
            g[o] = e[o];
        }
    }
}

static int remote(const pop_halo *h, int k)
{
    return h->d.nbr[k] != MPI_PROC_NULL && h->d.nbr[k] != h->d.rank;
}

void pop_halo_update(pop_halo *h)
{
    MPI_Request req[16];
    int nreq = 0;
    switch (h->variant) {
    case POP_HALO_DATATYPE:
        hpc_phase_to(h->ph, POP_PH_HALO);
        for (int k = 0; k < 8; k++)
            if (remote(h, k))
                MPI_Irecv(h->x + h->recv0[k], 1, h->recv_t[k], h->d.nbr[k], OPP[k],
                          MPI_COMM_WORLD, &req[nreq++]);
        for (int k = 0; k < 8; k++)
            if (remote(h, k))
                MPI_Isend(h->x + h->send0[k], 1, h->send_t[k], h->d.nbr[k], k, MPI_COMM_WORLD,
                          &req[nreq++]);
        hpc_phase_to(h->ph, POP_PH_COPY);
        self_copies(h);
        hpc_phase_to(h->ph, POP_PH_HALO);
        hpc_wait_all(nreq, req);
        break;
    case POP_HALO_PACK:
        hpc_phase_to(h->ph, POP_PH_HALO);
        for (int k = 0; k < 8; k++)
            if (remote(h, k))
                MPI_Irecv(h->rbuf[k], h->cnt[k], MPI_DOUBLE, h->d.nbr[k], OPP[k], MPI_COMM_WORLD,
                          &req[nreq++]);
        hpc_phase_to(h->ph, POP_PH_COPY);
        for (int k = 0; k < 8; k++)
            if (remote(h, k))
                gather_edge(h, k, h->send0[k], h->sbuf[k]);
        self_copies(h);
        hpc_phase_to(h->ph, POP_PH_HALO);
        for (int k = 0; k < 8; k++)
            if (remote(h, k))
                MPI_Isend(h->sbuf[k], h->cnt[k], MPI_DOUBLE, h->d.nbr[k], k, MPI_COMM_WORLD,
                          &req[nreq++]);
        hpc_wait_all(nreq, req);
        hpc_phase_to(h->ph, POP_PH_COPY);
        for (int k = 0; k < 8; k++)
            if (remote(h, k))
                scatter_edge(h, k, h->recv0[k], h->rbuf[k]);
        break;
    case POP_HALO_PUT:
        hpc_phase_to(h->ph, POP_PH_COPY);
        self_copies(h);
        hpc_phase_to(h->ph, POP_PH_HALO);
        if (h->ngrp == 0)
            break;
        /* Exposure first (my ghosts are free: my last operator application is
         * done), then my access epoch to the neighbours' ghosts. */
        MPI_Win_post(h->grp, 0, h->win);
        MPI_Win_start(h->grp, 0, h->win);
        for (int k = 0; k < 8; k++)
            if (remote(h, k))
                MPI_Put(h->x + h->send0[k], 1, h->send_t[k], h->d.nbr[k], h->tgt_disp[k], 1,
                        h->tgt_t[k], h->win);
        MPI_Win_complete(h->win);
        MPI_Win_wait(h->win);
        break;
    case POP_HALO_SHMEM:
    case POP_HALO_CAF:
        hpc_phase_to(h->ph, POP_PH_COPY);
        self_copies(h);
        hpc_phase_to(h->ph, POP_PH_HALO);
        halo_ops(h->variant)->halo(h);
        break;
    }
}

int pop_gsum_init(pop_gsum *s, int variant, int branch)
{
    memset(s, 0, sizeof *s);
    s->variant = variant;
    s->branch = branch > 1 ? branch : 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->nranks);
    s->win = MPI_WIN_NULL;
    s->grp = MPI_GROUP_NULL;
    if (sum_ops(variant))
        return s->nranks == 1 ? 0 : sum_ops(variant)->sum_init(s);
    if (variant != POP_SUM_ONESIDED || s->nranks == 1)
        return 0;  /* one rank: the sum is its own value, no window */
    /* Only rank 0's memory is a target (nranks slots and the total); the others expose none. */
    MPI_Aint bytes = s->rank == 0 ? (MPI_Aint)((s->nranks + 1) * sizeof(double)) : 0;
    if (MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &s->slots,
                         &s->win) != MPI_SUCCESS)
        return -1;
    if (s->rank == 0)
        memset(s->slots, 0, (size_t)bytes);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (s->rank == 0) {
        int zero[1] = {0};
        MPI_Group_excl(world, 1, zero, &s->grp);
    } else {
        int zero[1] = {0};
        MPI_Group_incl(world, 1, zero, &s->grp);
    }
    MPI_Group_free(&world);
    return 0;
}

void pop_gsum_free(pop_gsum *s)
{
    if (sum_ops(s->variant) && s->nranks > 1)
        sum_ops(s->variant)->sum_free(s);
    if (s->win != MPI_WIN_NULL)
        MPI_Win_free(&s->win);
    if (s->grp != MPI_GROUP_NULL)
        MPI_Group_free(&s->grp);
    memset(s, 0, sizeof *s);
}

static double tree_sum(pop_gsum *s, double v)
{
    int r = s->rank, n = s->nranks, k = s->branch;
    double acc = v, t;
    /* Up: children in a fixed order, so the sum's rounding is fixed. */
    for (int c = k * r + 1; c <= k * r + k && c < n; c++) {
        MPI_Recv(&t, 1, MPI_DOUBLE, c, TAG_UP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        acc += t;
    }
    if (r > 0) {
        int parent = (r - 1) / k;
        MPI_Send(&acc, 1, MPI_DOUBLE, parent, TAG_UP, MPI_COMM_WORLD);
        MPI_Recv(&acc, 1, MPI_DOUBLE, parent, TAG_DOWN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* Down: the root's total, unchanged. */
    for (int c = k * r + 1; c <= k * r + k && c < n; c++)
        MPI_Send(&acc, 1, MPI_DOUBLE, c, TAG_DOWN, MPI_COMM_WORLD);
    return acc;
}

static double onesided_sum(pop_gsum *s, double v)
{
    int n = s->nranks;
    double t = 0.0;
    if (s->rank == 0) {
        s->slots[0] = v;
        MPI_Win_post(s->grp, 0, s->win);  /* the others put their partial sums */
        MPI_Win_wait(s->win);
        t = s->slots[0];
        for (int r = 1; r < n; r++)  /* rank order */
            t += s->slots[r];
        s->slots[n] = t;
        MPI_Win_post(s->grp, MPI_MODE_NOPUT, s->win);  /* the others read the total */
        MPI_Win_wait(s->win);
    } else {
        MPI_Win_start(s->grp, 0, s->win);
        MPI_Put(&v, 1, MPI_DOUBLE, 0, s->rank, 1, MPI_DOUBLE, s->win);
        MPI_Win_complete(s->win);
        MPI_Win_start(s->grp, 0, s->win);
        MPI_Get(&t, 1, MPI_DOUBLE, 0, n, 1, MPI_DOUBLE, s->win);
        MPI_Win_complete(s->win);
    }
    return t;
}

double pop_gsum_do(pop_gsum *s, double v)
{
    if (s->nranks == 1)
        return v;
    double t = v;
    switch (s->variant) {
    case POP_SUM_ALLREDUCE:
        MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case POP_SUM_TREE:
        t = tree_sum(s, v);
        break;
    case POP_SUM_ONESIDED:
        t = onesided_sum(s, v);
        break;
    case POP_SUM_SHMEM:
    case POP_SUM_CAF:
        t = sum_ops(s->variant)->sum(s, v);
        break;
    }
    return t;
}
