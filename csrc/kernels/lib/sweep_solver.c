/* sweep_solver.c - decomposition, KBA pipeline and source iteration of the sweep proxy
 * (sweep_solver.h; the inner loops are in sweep_kernel.c).
 *
 * Octants go corner by corner, both k-directions from the same (i, j) corner in a row: an
 * octant's sweep of the process grid then starts where the ranks that finished the previous one
 * first are waiting (as Sweep3D orders its octants). MPI_Send and MPI_Recv are blocking; every
 * rank receives from upstream before it sends downstream, and messages between two ranks keep
 * their order, so one tag per direction suffices and the pipeline cannot deadlock.
 */
#include "sweep_solver.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_I = 1, TAG_J = 2 };

/* (di, dj, dk) of the eight octants in sweep order. */
static const int OCTANTS[8][3] = {{1, 1, 1},   {1, 1, -1},   {-1, -1, 1}, {-1, -1, -1},
                                  {-1, 1, 1},  {-1, 1, -1},  {1, -1, 1},  {1, -1, -1}};

void sweep_split(int n, int P, int p, int *start, int *len)
{
    int base = n / P, rem = n % P;
    *len = base + (p < rem);
    *start = p * base + (p < rem ? p : rem);
}

/* Inside the source box of one axis: region 1 the central half [n/4, n - n/4) (never empty),
 * region 2 Sweep3D's central third [(n+1)/3, n - (n+1)/3) (everything when n < 3). */
static int inside(int g, int n, int region)
{
    int lo = region == 1 ? n / 4 : n >= 3 ? (n + 1) / 3 : 0;
    return g >= lo && g < n - lo;
}

static void fill_source(sweep_solver *s)
{
    const sweep_problem *pb = s->pb;
    int r = pb->region;
    size_t c = 0;
    for (int k = 0; k < s->kt; k++)
        for (int j = 0; j < s->jt; j++)
            for (int i = 0; i < s->it; i++, c++) {
                int in = !r || (inside(s->i0 + i, pb->nx, r) && inside(s->j0 + j, pb->ny, r)
                                && inside(k, pb->nz, r));
                s->qsrc[c] = in ? pb->q : 0.0;
            }
}

int sweep_init(sweep_solver *s, const sweep_problem *pb, const sweep_quad *quad, int P, int Q,
               int p, int q, MPI_Comm comm, hpc_phases *ph)
{
    memset(s, 0, sizeof *s);
    s->pb = pb;
    s->quad = quad;
    s->P = P;
    s->Q = Q;
    s->p = p;
    s->q = q;
    s->comm = comm;
    s->ph = ph;
    sweep_split(pb->nx, P, p, &s->i0, &s->it);
    sweep_split(pb->ny, Q, q, &s->j0, &s->jt);
    s->kt = pb->nz;
    s->west = p > 0 ? q * P + p - 1 : MPI_PROC_NULL;
    s->east = p < P - 1 ? q * P + p + 1 : MPI_PROC_NULL;
    s->south = q > 0 ? (q - 1) * P + p : MPI_PROC_NULL;
    s->north = q < Q - 1 ? (q + 1) * P + p : MPI_PROC_NULL;
    s->ncell = (size_t)s->it * s->jt * s->kt;
    size_t mb = (size_t)pb->mmi, mk = (size_t)pb->mk;
    s->phi = malloc(s->ncell * sizeof(double));
    s->phi_old = malloc(s->ncell * sizeof(double));
    s->src = malloc(s->ncell * sizeof(double));
    s->qsrc = malloc(s->ncell * sizeof(double));
    size_t mbp = SWEEP_PAD(pb->mmi);
    /* calloc: the padding lanes must start finite (they are never received). */
    s->face_i = calloc(mk * s->jt * mbp, sizeof(double));
    s->face_j = calloc(mk * s->it * mbp, sizeof(double));
    s->face_k = calloc((size_t)s->it * s->jt * mbp, sizeof(double));
    s->buf_i = malloc(mk * s->jt * mb * sizeof(double));
    s->buf_j = malloc(mk * s->it * mb * sizeof(double));
    s->lanes = malloc((size_t)s->it * SWEEP_VLEN * sizeof(double));
    if (!s->phi || !s->phi_old || !s->src || !s->qsrc || !s->face_i || !s->face_j || !s->face_k
        || !s->buf_i || !s->buf_j || !s->lanes)
        return -1;
    memset(s->phi, 0, s->ncell * sizeof(double));
    fill_source(s);
    return 0;
}

void sweep_free(sweep_solver *s)
{
    free(s->phi);
    free(s->phi_old);
    free(s->src);
    free(s->qsrc);
    free(s->face_i);
    free(s->face_j);
    free(s->face_k);
    free(s->buf_i);
    free(s->buf_j);
    free(s->lanes);
}

/* The upstream face of nlines x mb directions into face (SWEEP_PAD(mb) a line); zeros at the
 * vacuum boundary. Phases: wait in MPI_Recv, copy for the unpacking or the zeros. */
static void recv_face(sweep_solver *s, double *face, double *buf, size_t nlines, int mb,
                      int from, int tag)
{
    size_t mbp = SWEEP_PAD(mb);
    if (from != MPI_PROC_NULL) {
        hpc_phase_to(s->ph, SWEEP_PH_WAIT);
        MPI_Recv(buf, (int)(nlines * mb), MPI_DOUBLE, from, tag, s->comm, MPI_STATUS_IGNORE);
    }
    hpc_phase_to(s->ph, SWEEP_PH_COPY);
    if (from == MPI_PROC_NULL)
        memset(face, 0, nlines * mbp * sizeof(double));
    else
        for (size_t l = 0; l < nlines; l++)
            memcpy(face + l * mbp, buf + l * mb, (size_t)mb * sizeof(double));
}

/* The outgoing face as a message (mb directions a line). */
static void pack_face(const double *face, double *buf, size_t nlines, int mb)
{
    size_t mbp = SWEEP_PAD(mb);
    for (size_t l = 0; l < nlines; l++)
        memcpy(buf + l * mb, face + l * mbp, (size_t)mb * sizeof(double));
}

static void send_face(const double *buf, size_t n, int to, int tag, MPI_Comm comm)
{
    if (to != MPI_PROC_NULL)
        MPI_Send(buf, (int)n, MPI_DOUBLE, to, tag, comm);
}

/* Outflow through a face of nlines lines (stride doubles apart) of mb directions:
 * sum w cos psi area. */
static double outflow(const double *face, size_t nlines, size_t stride, int mb, const double *w,
                      const double *cos_, double area)
{
    double sum = 0;
    for (size_t l = 0; l < nlines; l++)
        for (int m = 0; m < mb; m++)
            sum += w[m] * cos_[m] * face[l * stride + m];
    return sum * area;
}

static void sweep_octant(sweep_solver *s, int di, int dj, int dk)
{
    const sweep_problem *pb = s->pb;
    const sweep_quad *qd = s->quad;
    int up_i = di > 0 ? s->west : s->east, dn_i = di > 0 ? s->east : s->west;
    int up_j = dj > 0 ? s->south : s->north, dn_j = dj > 0 ? s->north : s->south;
    int nb = (s->kt + pb->mk - 1) / pb->mk;
    size_t it = (size_t)s->it, jt = (size_t)s->jt;
    for (int m0 = 0; m0 < qd->nm; m0 += pb->mmi) {
        int mb = pb->mmi < qd->nm - m0 ? pb->mmi : qd->nm - m0;
        memset(s->face_k, 0, it * jt * SWEEP_PAD(mb) * sizeof(double));  /* vacuum */
        for (int b = 0; b < nb; b++) {
            int k0 = (dk > 0 ? b : nb - 1 - b) * pb->mk;
            int nk = pb->mk < s->kt - k0 ? pb->mk : s->kt - k0;
            recv_face(s, s->face_i, s->buf_i, nk * jt, mb, up_i, TAG_I);
            recv_face(s, s->face_j, s->buf_j, nk * it, mb, up_j, TAG_J);
            hpc_phase_to(s->ph, SWEEP_PH_COMPUTE);
            sweep_block(s, di, dj, dk, k0, nk, m0, mb);
            if (dn_i == MPI_PROC_NULL)
                s->leak[di > 0] += outflow(s->face_i, nk * jt, SWEEP_PAD(mb), mb, qd->w + m0,
                                           qd->mu + m0, pb->dy * pb->dz);
            if (dn_j == MPI_PROC_NULL)
                s->leak[2 + (dj > 0)] += outflow(s->face_j, nk * it, SWEEP_PAD(mb), mb,
                                                 qd->w + m0, qd->eta + m0, pb->dx * pb->dz);
            hpc_phase_to(s->ph, SWEEP_PH_COPY);
            if (dn_i != MPI_PROC_NULL)
                pack_face(s->face_i, s->buf_i, nk * jt, mb);
            if (dn_j != MPI_PROC_NULL)
                pack_face(s->face_j, s->buf_j, nk * it, mb);
            hpc_phase_to(s->ph, SWEEP_PH_SEND);
            send_face(s->buf_i, nk * jt * mb, dn_i, TAG_I, s->comm);
            send_face(s->buf_j, nk * it * mb, dn_j, TAG_J, s->comm);
        }
        hpc_phase_to(s->ph, SWEEP_PH_COMPUTE);
        s->leak[4 + (dk > 0)] += outflow(s->face_k, it * jt, SWEEP_PAD(mb), mb, qd->w + m0,
                                         qd->xi + m0, pb->dx * pb->dy);
    }
}

/* The largest relative change of phi (DBL_MAX where phi is 0 and changed); +inf for a
 * non-finite phi, which stops the iteration at once. */
static double max_change(const double *phi, const double *old, size_t n)
{
    double err = 0;
    for (size_t c = 0; c < n; c++) {
        if (!isfinite(phi[c]))
            return INFINITY;
        double d = fabs(phi[c] - old[c]);
        double r = d == 0 ? 0 : phi[c] == 0 ? DBL_MAX : d / fabs(phi[c]);
        err = r > err ? r : err;
    }
    return err;
}

int sweep_solve(sweep_solver *s, double tol, int max_iters)
{
    const sweep_problem *pb = s->pb;
    memset(s->phi, 0, s->ncell * sizeof(double));
    hpc_phases_start(s->ph, SWEEP_PH_COMPUTE);
    for (int iter = 1; iter <= max_iters; iter++) {
        hpc_phase_to(s->ph, SWEEP_PH_COMPUTE);
        double *t = s->phi_old;
        s->phi_old = s->phi;
        s->phi = t;
        for (size_t c = 0; c < s->ncell; c++) {
            s->src[c] = pb->sigs * s->phi_old[c] + s->qsrc[c];
            s->phi[c] = 0.0;
        }
        memset(s->leak, 0, sizeof s->leak);
        s->fixups = 0;
        for (int o = 0; o < 8; o++)
            sweep_octant(s, OCTANTS[o][0], OCTANTS[o][1], OCTANTS[o][2]);
        hpc_phase_to(s->ph, SWEEP_PH_COMPUTE);
        double err = max_change(s->phi, s->phi_old, s->ncell);
        hpc_phase_to(s->ph, SWEEP_PH_REDUCE);
        if (s->comm != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, s->comm);
        if (err <= tol || isinf(err)) {
            hpc_phases_stop(s->ph);
            return isinf(err) ? -iter : iter;
        }
    }
    hpc_phases_stop(s->ph);
    return -max_iters;
}
