/* evh1_grid.c - pencils and transposes (evh1_grid.h). */
#include "evh1_grid.h"

#include <stdlib.h>
#include <string.h>

/* Which process coordinate splits an axis in a layout: 0 p (of P), 1 q (of Q), -1 none. */
static const int SPLIT[3][3] = {[EV_LX] = {-1, 0, 1}, [EV_LY] = {0, -1, 1}, [EV_LZ] = {0, 1, -1}};

static ev_box box_of(const ev_grid *g, ev_layout L, int p, int q)
{
    ev_box b;
    for (int a = 0; a < 3; a++) {
        int parts = SPLIT[L][a] < 0 ? 1 : SPLIT[L][a] ? g->Q : g->P;
        int k = SPLIT[L][a] < 0 ? 0 : SPLIT[L][a] ? q : p;
        b.lo[a] = (int)((long)g->n[a] * k / parts);
        b.n[a] = (int)((long)g->n[a] * (k + 1) / parts) - b.lo[a];
    }
    return b;
}

long ev_box_zones(const ev_box *b) { return (long)b->n[0] * b->n[1] * b->n[2]; }

static ev_box overlap(ev_box a, ev_box b)
{
    ev_box o;
    for (int d = 0; d < 3; d++) {
        o.lo[d] = a.lo[d] > b.lo[d] ? a.lo[d] : b.lo[d];
        int hi = a.lo[d] + a.n[d] < b.lo[d] + b.n[d] ? a.lo[d] + a.n[d] : b.lo[d] + b.n[d];
        o.n[d] = hi > o.lo[d] ? hi - o.lo[d] : 0;
    }
    return o;
}

/* The subarray type of box s (all fields) inside the local box b. */
static MPI_Datatype subarray(const ev_box *b, const ev_box *s)
{
    int sizes[4] = {EV_NF, b->n[2], b->n[1], b->n[0]}, sub[4] = {EV_NF, s->n[2], s->n[1], s->n[0]};
    int start[4] = {0, s->lo[2] - b->lo[2], s->lo[1] - b->lo[1], s->lo[0] - b->lo[0]};
    MPI_Datatype t;
    MPI_Type_create_subarray(4, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

static int xpose_init(ev_grid *g, ev_xpose *x, ev_layout from, ev_layout to, int row)
{
    x->from = from, x->to = to;
    x->comm = row ? g->row : g->col;
    x->N = row ? g->P : g->Q;
    x->m = row ? g->p : g->q;
    int N = x->N;
    x->sbox = malloc(2 * N * sizeof(ev_box));
    x->scnt = malloc(6 * N * sizeof(int));
    x->stype = malloc(2 * N * sizeof(MPI_Datatype));
    if (!x->sbox || !x->scnt || !x->stype)
        return -1;
    x->rbox = x->sbox + N;
    x->sdsp = x->scnt + N, x->rcnt = x->scnt + 2 * N, x->rdsp = x->scnt + 3 * N;
    x->one = x->scnt + 4 * N, x->zero = x->scnt + 5 * N;
    x->rtype = x->stype + N;
    for (int s = 0, sd = 0, rd = 0; s < N; s++) {
        int pp = row ? s : g->p, qq = row ? g->q : s;
        x->sbox[s] = overlap(g->box[from], box_of(g, to, pp, qq));
        x->rbox[s] = overlap(box_of(g, from, pp, qq), g->box[to]);
        x->scnt[s] = (int)(EV_NF * ev_box_zones(&x->sbox[s]));
        x->rcnt[s] = (int)(EV_NF * ev_box_zones(&x->rbox[s]));
        x->sdsp[s] = sd, x->rdsp[s] = rd;
        sd += x->scnt[s], rd += x->rcnt[s];
        x->one[s] = 1, x->zero[s] = 0;
        x->stype[s] = x->rtype[s] = MPI_DATATYPE_NULL;
        if (g->variant == EV_ALLTOALLW) {
            x->stype[s] = subarray(&g->box[from], &x->sbox[s]);
            x->rtype[s] = subarray(&g->box[to], &x->rbox[s]);
        }
    }
    return 0;
}

static void xpose_free(ev_xpose *x)
{
    for (int s = 0; x->stype && s < 2 * x->N; s++)
        if (x->stype[s] != MPI_DATATYPE_NULL)
            MPI_Type_free(&x->stype[s]);
    free(x->sbox), free(x->scnt), free(x->stype);
    memset(x, 0, sizeof *x);
}

int ev_grid_init(ev_grid *g, const int n[3], int P, int Q, ev_variant v, hpc_phases *ph)
{
    memset(g, 0, sizeof *g);
    memcpy(g->n, n, sizeof g->n);
    g->P = P, g->Q = Q, g->p = hpc_rank % P, g->q = hpc_rank / P;
    g->variant = v, g->ph = ph, g->layout = EV_LX;
    MPI_Comm_split(MPI_COMM_WORLD, g->q, g->p, &g->row);
    MPI_Comm_split(MPI_COMM_WORLD, g->p, g->q, &g->col);
    long most = 0;
    for (int L = 0; L < 3; L++) {
        g->box[L] = box_of(g, L, g->p, g->q);
        most = ev_box_zones(&g->box[L]) > most ? ev_box_zones(&g->box[L]) : most;
    }
    size_t bytes = (size_t)most * EV_NF * sizeof(double);
    g->s = malloc(bytes), g->t = malloc(bytes), g->sbuf = malloc(bytes), g->rbuf = malloc(bytes);
    if (!g->s || !g->t || !g->sbuf || !g->rbuf)
        return -1;
    static const int PAIR[4][3] = {{EV_LX, EV_LY, 1}, {EV_LY, EV_LX, 1}, {EV_LY, EV_LZ, 0},
                                   {EV_LZ, EV_LY, 0}};
    for (int k = 0; k < 4; k++)
        if (xpose_init(g, &g->xp[k], PAIR[k][0], PAIR[k][1], PAIR[k][2]))
            return -1;
    return 0;
}

void ev_grid_free(ev_grid *g)
{
    for (int k = 0; k < 4; k++)
        xpose_free(&g->xp[k]);
    MPI_Comm_free(&g->row);
    MPI_Comm_free(&g->col);
    free(g->s), free(g->t), free(g->sbuf), free(g->rbuf);
    memset(g, 0, sizeof *g);
}

/* Copy box s of every field between the local box b's array and a packed block:
 * pack = 1 array -> block, 0 block -> array. */
static void copy_box(double *arr, const ev_box *b, const ev_box *s, double *blk, int pack)
{
    long fz = ev_box_zones(b), len = s->n[0];
    for (int f = 0; f < EV_NF; f++)
        for (int k = s->lo[2]; k < s->lo[2] + s->n[2]; k++)
            for (int j = s->lo[1]; j < s->lo[1] + s->n[1]; j++, blk += len) {
                double *row = arr + f * fz + ev_at(b, s->lo[0], j, k);
                memcpy(pack ? blk : row, pack ? row : blk, (size_t)len * sizeof(double));
            }
}

static void exchange(ev_grid *g, ev_xpose *x)
{
    if (g->variant == EV_ALLTOALLV) {
        MPI_Alltoallv(g->sbuf, x->scnt, x->sdsp, MPI_DOUBLE, g->rbuf, x->rcnt, x->rdsp,
                      MPI_DOUBLE, x->comm);
        return;
    }
    memcpy(g->rbuf + x->rdsp[x->m], g->sbuf + x->sdsp[x->m], (size_t)x->scnt[x->m] * 8);
    for (int k = 1; k < x->N; k++) {
        int to = (x->m + k) % x->N, from = (x->m - k + x->N) % x->N;
        MPI_Sendrecv(g->sbuf + x->sdsp[to], x->scnt[to], MPI_DOUBLE, to, 11,
                     g->rbuf + x->rdsp[from], x->rcnt[from], MPI_DOUBLE, from, 11, x->comm,
                     MPI_STATUS_IGNORE);
    }
}

void ev_transpose(ev_grid *g, ev_layout to)
{
    int k = g->layout == EV_LX ? 0 : g->layout == EV_LZ ? 3 : to == EV_LX ? 1 : 2;
    ev_xpose *x = &g->xp[k];
    if (x->N > 1) { /* alone in the row or column, both layouts are the same box */
        if (g->variant == EV_ALLTOALLW) {
            hpc_phase_to(g->ph, EV_PH_TRANSPOSE);
            MPI_Alltoallw(g->s, x->one, x->zero, x->stype, g->t, x->one, x->zero, x->rtype,
                          x->comm);
        } else {
            hpc_phase_to(g->ph, EV_PH_PACK);
            for (int s = 0; s < x->N; s++)
                copy_box(g->s, &g->box[x->from], &x->sbox[s], g->sbuf + x->sdsp[s], 1);
            hpc_phase_to(g->ph, EV_PH_TRANSPOSE);
            exchange(g, x);
            hpc_phase_to(g->ph, EV_PH_PACK);
            for (int s = 0; s < x->N; s++)
                copy_box(g->t, &g->box[x->to], &x->rbox[s], g->rbuf + x->rdsp[s], 0);
        }
        double *tmp = g->s;
        g->s = g->t, g->t = tmp;
    }
    g->layout = to;
}
