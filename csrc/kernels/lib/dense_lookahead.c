/* dense_lookahead.c - LU with partial pivoting on a 1 x Q grid, recursive panels and a
 * look-ahead of depth one (dense_lookahead.h). */
#include "dense_lookahead.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK (OpenBLAS's): the panel's LU, and row interchanges. */
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dlaswp_(const int *n, double *a, const int *lda, const int *k1, const int *k2,
             const int *ipiv, const int *incx);

typedef struct {
    const dense_layout *l;
    double *a;
    int *ipiv;
    MPI_Comm comm;
    int blocks;             /* column blocks of A */
    double *buf[2];         /* panels J and J + 1 as broadcast: m w values, w pivots, info */
    MPI_Request req[2];
} lu_state;

/* Panel J: its first global row and column c0, rows below it m, width w. */
static void panel(const lu_state *s, int J, int *c0, int *m, int *w)
{
    *c0 = J * s->l->nb;
    *m = s->l->n - *c0;
    *w = *m < s->l->nb ? *m : s->l->nb;
}

/* This rank's first local column of the column blocks from J on (nloc when none). */
static int local_from(const dense_layout *l, int J)
{
    int owned = J + ((l->mycol - J % l->Q) % l->Q + l->Q) % l->Q;
    int lc = owned / l->Q * l->nb;
    return lc < l->nloc ? lc : l->nloc;
}

/* The owner of panel J: factors its columns (already updated) and packs them for the
 * broadcast. */
static void factor_panel(lu_state *s, int J)
{
    const dense_layout *l = s->l;
    int c0, m, w, info = 0, piv[l->nb];
    panel(s, J, &c0, &m, &w);
    double *p = s->a + (size_t)local_from(l, J) * (size_t)l->lld + (size_t)c0;
    double *b = s->buf[J % 2];
    dgetrf_(&m, &w, p, &l->lld, piv, &info);
    for (int j = 0; j < w; j++)
        memcpy(b + (size_t)j * (size_t)m, p + (size_t)j * (size_t)l->lld,
               (size_t)m * sizeof(double));
    for (int i = 0; i < w; i++)
        b[(size_t)m * (size_t)w + (size_t)i] = piv[i];
    b[(size_t)m * (size_t)w + (size_t)w] = info > 0 ? c0 + info : 0;
}

/* Every rank: the broadcast of panel J from its owner, posted (the owner's after factoring). */
static void post(lu_state *s, int J)
{
    int c0, m, w;
    panel(s, J, &c0, &m, &w);
    MPI_Ibcast(s->buf[J % 2], m * w + w + 1, MPI_DOUBLE, J % s->l->Q, s->comm, &s->req[J % 2]);
}

/* Panel J's interchanges into ipiv, and applied to this rank's columns (the owner's panel
 * columns were interchanged by dgetrf); 0 or the panel's zero pivot. */
static int interchange(lu_state *s, int J)
{
    const dense_layout *l = s->l;
    int c0, m, w, one = 1;
    panel(s, J, &c0, &m, &w);
    const double *b = s->buf[J % 2] + (size_t)m * (size_t)w;
    for (int i = 0; i < w; i++)
        s->ipiv[c0 + i] = c0 + (int)b[i];
    int k1 = c0 + 1, k2 = c0 + w, lc = J % l->Q == l->mycol ? local_from(l, J) : l->nloc;
    int before = lc, after = l->nloc - (lc + w);
    if (before > 0)
        dlaswp_(&before, s->a, &l->lld, &k1, &k2, s->ipiv, &one);
    if (lc < l->nloc && after > 0)
        dlaswp_(&after, s->a + (size_t)(lc + w) * (size_t)l->lld, &l->lld, &k1, &k2, s->ipiv,
                &one);
    return (int)b[w];
}

/* Local columns [from, to) updated with panel J: U12 = L11^-1 A12, A22 -= L21 U12. */
static void update(lu_state *s, int J, int from, int to)
{
    const dense_layout *l = s->l;
    int c0, m, w, nt = to - from;
    panel(s, J, &c0, &m, &w);
    if (nt <= 0)
        return;
    const double *L = s->buf[J % 2];
    double *a12 = s->a + (size_t)from * (size_t)l->lld + (size_t)c0;
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, w, nt, 1.0, L,
                m, a12, l->lld);
    if (m > w)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m - w, nt, w, -1.0, L + w, m,
                    a12, l->lld, 1.0, a12 + w, l->lld);
}

/* The rest of the update of panel J, a block of columns at a time, letting panel J + 1's
 * broadcast progress between them (MPI progresses a non-blocking collective only in calls). */
static void update_rest(lu_state *s, int J, int from)
{
    int step = 2 * s->l->nb, done;
    for (int c = from; c < s->l->nloc; c += step) {
        update(s, J, c, c + step < s->l->nloc ? c + step : s->l->nloc);
        if (J + 1 < s->blocks)
            MPI_Test(&s->req[(J + 1) % 2], &done, MPI_STATUS_IGNORE);
    }
}

int dense_lookahead_getrf(const dense_layout *l, double *a, int *ipiv, MPI_Comm comm)
{
    lu_state s = {.l = l, .a = a, .ipiv = ipiv, .comm = comm,
                  .blocks = (l->n + l->nb - 1) / l->nb};
    size_t most = (size_t)l->n * (size_t)l->nb + (size_t)l->nb + 1;
    s.buf[0] = malloc(most * sizeof(double));
    s.buf[1] = malloc(most * sizeof(double));
    if (!s.buf[0] || !s.buf[1])
        abort();
    int info = 0;
    if (l->mycol == 0)
        factor_panel(&s, 0);
    post(&s, 0);
    for (int J = 0; J < s.blocks; J++) {
        MPI_Wait(&s.req[J % 2], MPI_STATUS_IGNORE);
        int zero = interchange(&s, J), next = local_from(l, J + 1);
        info = info ? info : zero;
        if (J + 1 < s.blocks) {
            if ((J + 1) % l->Q == l->mycol) {   /* look-ahead: the next panel first */
                int c0, m, w;
                panel(&s, J + 1, &c0, &m, &w);
                update(&s, J, next, next + w);
                factor_panel(&s, J + 1);
                next += w;
            }
            post(&s, J + 1);
        }
        update_rest(&s, J, next);
    }
    free(s.buf[0]);
    free(s.buf[1]);
    return info;
}
