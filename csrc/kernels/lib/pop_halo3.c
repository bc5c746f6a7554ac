/* pop_halo3.c - halo updates of a stack of levels (pop_halo3.h). */
#include "pop_halo3.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

int pop_halo3_init(pop_halo3 *h, const pop_decomp *d, int nl, int variant, hpc_phases *ph,
                   int ph_comm, int ph_copy)
{
    memset(h, 0, sizeof *h);
    h->variant = variant;
    h->nl = nl;
    h->ld = d->bx + 2;
    h->rank = d->rank;
    h->n2 = (size_t)(d->bx + 2) * (d->by + 2);
    h->ph = ph;
    h->ph_comm = ph_comm;
    h->ph_copy = ph_copy;
    for (int k = 0; k < 8; k++) {
        h->nbr[k] = d->nbr[k];
        pop_region(d->bx, d->by, h->ld, k, 0, &h->send0[k], &h->ni[k], &h->nj[k]);
        pop_region(d->bx, d->by, h->ld, k, 1, &h->recv0[k], &h->ni[k], &h->nj[k]);
        h->cnt[k] = h->ni[k] * h->nj[k];
        h->sbuf[k] = malloc((size_t)h->cnt[k] * nl * sizeof(double));
        h->rbuf[k] = malloc((size_t)h->cnt[k] * nl * sizeof(double));
        if (!h->sbuf[k] || !h->rbuf[k])
            return -1;
    }
    return 0;
}

void pop_halo3_free(pop_halo3 *h)
{
    for (int k = 0; k < 8; k++) {
        free(h->sbuf[k]);
        free(h->rbuf[k]);
    }
    memset(h, 0, sizeof *h);
}

/* Region (start, k's extent) of level x to buf (out = 1) or back (out = 0). */
static void copy_region(const pop_halo3 *h, int k, double *x, int start, double *buf, int out)
{
    for (int j = 0; j < h->nj[k]; j++) {
        double *row = x + start + (size_t)j * h->ld;
        double *b = buf + (size_t)j * h->ni[k];
        if (out)
            memcpy(b, row, (size_t)h->ni[k] * sizeof(double));
        else
            memcpy(row, b, (size_t)h->ni[k] * sizeof(double));
    }
}

static int remote(const pop_halo3 *h, int k)
{
    return h->nbr[k] != MPI_PROC_NULL && h->nbr[k] != h->rank;
}

/* Levels l0 .. l0+nl-1 in one round: one message per remote direction. */
static void exchange(pop_halo3 *h, double *x, int l0, int nl)
{
    MPI_Request req[16];
    int nreq = 0;
    hpc_phase_to(h->ph, h->ph_comm);
    for (int k = 0; k < 8; k++)
        if (remote(h, k))
            MPI_Irecv(h->rbuf[k], h->cnt[k] * nl, MPI_DOUBLE, h->nbr[k], pop_opposite(k),
                      MPI_COMM_WORLD, &req[nreq++]);
    hpc_phase_to(h->ph, h->ph_copy);
    for (int l = l0; l < l0 + nl; l++) {
        double *xl = x + (size_t)l * h->n2;
        for (int k = 0; k < 8; k++) {
            if (remote(h, k))
                copy_region(h, k, xl, h->send0[k], h->sbuf[k] + (size_t)(l - l0) * h->cnt[k], 1);
            else if (h->nbr[k] == h->rank)  /* my own opposite edge (periodic, P == 1) */
                copy_region(h, k, xl, h->send0[pop_opposite(k)], h->rbuf[k], 1),
                    copy_region(h, k, xl, h->recv0[k], h->rbuf[k], 0);
        }
    }
    hpc_phase_to(h->ph, h->ph_comm);
    for (int k = 0; k < 8; k++)
        if (remote(h, k))
            MPI_Isend(h->sbuf[k], h->cnt[k] * nl, MPI_DOUBLE, h->nbr[k], k, MPI_COMM_WORLD,
                      &req[nreq++]);
    hpc_wait_all(nreq, req);
    hpc_phase_to(h->ph, h->ph_copy);
    for (int l = l0; l < l0 + nl; l++)
        for (int k = 0; k < 8; k++)
            if (remote(h, k))
                copy_region(h, k, x + (size_t)l * h->n2, h->recv0[k],
                            h->rbuf[k] + (size_t)(l - l0) * h->cnt[k], 0);
}

void pop_halo3_update(pop_halo3 *h, double *x)
{
    if (h->variant == POP_H3_AGGREGATE) {
        exchange(h, x, 0, h->nl);
        return;
    }
    for (int l = 0; l < h->nl; l++)
        exchange(h, x, l, 1);
}
