/* hydro_comm.c - process grid and halo exchange of the hydro proxy (hydro_comm.h). */
#include "hydro_comm.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int hy_comm_init(hy_comm *c, const int P[3], const int periodic[3], int rank, const hy_block *b)
{
    memset(c, 0, sizeof *c);
    int rest = rank;
    for (int d = 0; d < 3; d++) {
        c->P[d] = P[d];
        c->coord[d] = rest % P[d];
        rest /= P[d];
    }
    for (int d = 0; d < 3; d++)
        for (int side = 0; side < 2; side++) {
            int q[3] = {c->coord[0], c->coord[1], c->coord[2]};
            q[d] += side ? 1 : -1;
            if (q[d] < 0 || q[d] >= P[d]) {
                if (!periodic[d]) {
                    c->nb[d][side] = -1;
                    continue;
                }
                q[d] = (q[d] + P[d]) % P[d];
            }
            c->nb[d][side] = (q[2] * P[1] + q[1]) * P[0] + q[0];
        }
    /* The largest slab: HY_G layers across the two largest whole extents. */
    size_t big = 0;
    for (int d = 0; d < 3; d++) {
        size_t s = (size_t)HY_G * HY_NV * b->ld[(d + 1) % 3] * b->ld[(d + 2) % 3];
        big = s > big ? s : big;
    }
    c->cap = big;
    for (int k = 0; k < 4; k++)
        if (!(c->buf[k] = malloc(big * sizeof(double)))) {
            hy_comm_free(c);
            return -1;
        }
    return 0;
}

void hy_comm_free(hy_comm *c)
{
    for (int k = 0; k < 4; k++)
        free(c->buf[k]);
    memset(c, 0, sizeof *c);
}

/* The box of direction d's exchange: the earlier directions whole, the later interior, d
 * the HY_G layers from layer. */
static void slab_box(const hy_block *b, int d, int layer, int lo[3], int hi[3])
{
    for (int e = 0; e < 3; e++) {
        lo[e] = e < d ? 0 : HY_G;
        hi[e] = e < d ? b->ld[e] : b->n[e] + HY_G;
    }
    lo[d] = layer;
    hi[d] = layer + HY_G;
}

/* Copy a box of every field into buf (out = 1) or from it; returns the doubles moved. */
static size_t box_copy(hy_block *b, const int lo[3], const int hi[3], double *buf, int out)
{
    size_t len = (size_t)(hi[0] - lo[0]), at = 0;
    for (int v = 0; v < HY_NV; v++)
        for (int k = lo[2]; k < hi[2]; k++)
            for (int j = lo[1]; j < hi[1]; j++, at += len) {
                double *q = b->u[v] + hy_idx(b, lo[0], j, k);
                memcpy(out ? buf + at : q, out ? q : buf + at, len * sizeof(double));
            }
    return at;
}

/* Outflow: every ghost layer of the side copies the edge cell's layer (through tmp). */
static void outflow(hy_block *b, int d, int side, double *tmp)
{
    int lo[3], hi[3];
    int edge = side ? b->n[d] + HY_G - 1 : HY_G, ghost0 = side ? b->n[d] + HY_G : 0;
    slab_box(b, d, edge, lo, hi);
    hi[d] = edge + 1;
    box_copy(b, lo, hi, tmp, 1);
    for (int g = ghost0; g < ghost0 + HY_G; g++) {
        lo[d] = g;
        hi[d] = g + 1;
        box_copy(b, lo, hi, tmp, 0);
    }
}

/* One direction: the HY_G edge layers of each side go to that side's neighbour, whose
 * ghosts on the opposite side they fill. Tag 2d + side: the side the message leaves from,
 * so two neighbours that are one rank (P = 2, periodic) keep their messages apart. */
static void exchange_dir(hy_comm *c, hy_block *b, int d, hpc_phases *ph)
{
    int lo[3], hi[3], self = 0;
    size_t cnt[2] = {0, 0};
    for (int side = 0; side < 2; side++)
        if (c->nb[d][side] >= 0) {
            slab_box(b, d, side ? b->n[d] : HY_G, lo, hi);
            cnt[side] = box_copy(b, lo, hi, c->buf[side], 1);
        }
    hpc_phase_to(ph, HY_PH_HALO);
    MPI_Request rq[4];
    int nrq = 0;
    for (int side = 0; side < 2; side++) {
        int nb = c->nb[d][side];
        if (nb < 0)
            continue;
        if (c->P[d] == 1) {
            self = 1;  /* alone in a periodic direction: the copy below does it */
            continue;
        }
        MPI_Irecv(c->buf[2 + side], (int)cnt[side], MPI_DOUBLE, nb, 2 * d + 1 - side,
                  MPI_COMM_WORLD, &rq[nrq++]);
        MPI_Isend(c->buf[side], (int)cnt[side], MPI_DOUBLE, nb, 2 * d + side, MPI_COMM_WORLD,
                  &rq[nrq++]);
    }
    MPI_Status st[4];  /* not MPI_STATUSES_IGNORE: GCC 12 warns about MPICH's definition of it */
    MPI_Waitall(nrq, rq, st);
    hpc_phase_to(ph, HY_PH_PACK);
    for (int side = 0; side < 2; side++) {
        if (c->nb[d][side] < 0) {
            outflow(b, d, side, c->buf[2 + side]);
            continue;
        }
        /* the layers from below fill the low ghosts; alone, they are my own high edge */
        slab_box(b, d, side ? b->n[d] + HY_G : 0, lo, hi);
        box_copy(b, lo, hi, self ? c->buf[1 - side] : c->buf[2 + side], 0);
    }
}

void hy_exchange(hy_comm *c, hy_block *b, hpc_phases *ph)
{
    hpc_phase_to(ph, HY_PH_PACK);
    for (int d = 0; d < 3; d++)
        exchange_dir(c, b, d, ph);
}
