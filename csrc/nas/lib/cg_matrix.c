#include "cg_matrix.h"

#include "npb_rand.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The verification values are NPB 3.4's, CG/cg.f, main program: the class is recognised by
 * (na, nonzer, niter, shift) and zeta_verify_value is set from these constants (the same in
 * NPB 2.x and 3.x; RNR-94-007 specified class A's only, the later classes came with NPB 2). */
static const cg_class CLASSES[] = {
    {'S', 1400, 7, 15, 10.0, 8.5971775078648},
    {'W', 7000, 8, 15, 12.0, 10.362595087124},
    {'A', 14000, 11, 15, 20.0, 17.130235054029},
    {'B', 75000, 13, 75, 60.0, 22.712745482631},
};

const cg_class *cg_class_find(char name)
{
    for (size_t k = 0; k < sizeof CLASSES / sizeof CLASSES[0]; k++)
        if (CLASSES[k].name == name)
            return &CLASSES[k];
    return NULL;
}

/* The na random sparse vectors, nonzer + 1 slots each (vecset may add one element). */
typedef struct {
    int stride, *len, *idx;
    double *val;
} vectors;

/* sprnvc then vecset for vector i (0-based): nonzer distinct positions, each drawn after its
 * value (two draws a try; a position past na or already drawn wastes both), then element i
 * set to 0.5, in place if it was drawn, else appended. mark is all zero on entry and exit. */
static int random_vector(const cg_class *c, int nn1, double *tran, char *mark, int i, int *idx,
                         double *val)
{
    int n = 0;
    while (n < c->nonzer) {
        double vecelt = npb_randlc(tran, NPB_A);
        int k = (int)(nn1 * npb_randlc(tran, NPB_A));
        if (k >= c->na || mark[k])
            continue;
        mark[k] = 1;
        idx[n] = k;
        val[n++] = vecelt;
    }
    for (int j = 0; j < n; j++)
        mark[idx[j]] = 0;
    int set = 0;
    for (int j = 0; j < n; j++)
        if (idx[j] == i) {
            val[j] = 0.5;
            set = 1;
        }
    if (!set) {
        idx[n] = i;
        val[n++] = 0.5;
    }
    return n;
}

/* The whole stream, every rank: NPB's main draws once before makea (the "zeta = randlc(tran,
 * amult)" after tran = 314159265), then makea's vectors follow in order. */
static int draw_vectors(const cg_class *c, vectors *v)
{
    size_t na = (size_t)c->na;
    v->stride = c->nonzer + 1;
    v->len = malloc(na * sizeof *v->len);
    v->idx = malloc(na * (size_t)v->stride * sizeof *v->idx);
    v->val = malloc(na * (size_t)v->stride * sizeof *v->val);
    char *mark = calloc(na, 1);
    if (!v->len || !v->idx || !v->val || !mark) {
        free(mark);
        return -1;
    }
    int nn1 = 1;  /* the smallest power of two not below na */
    while (nn1 < c->na)
        nn1 *= 2;
    double tran = 314159265.0;
    npb_randlc(&tran, NPB_A);
    for (int i = 0; i < c->na; i++) {
        size_t off = (size_t)i * (size_t)v->stride;
        v->len[i] = random_vector(c, nn1, &tran, mark, i, v->idx + off, v->val + off);
    }
    free(mark);
    return 0;
}

static void free_vectors(vectors *v)
{
    free(v->len);
    free(v->idx);
    free(v->val);
}

/* The element triples of this rank's rows, bucketed by row in generation order: for vector i,
 * for each of its columns, for each of its rows, v[row] * (size_i * v[col]); then the diagonal
 * rcond - shift. rowstr[r] is where row r's bucket starts. */
static void fill_buckets(const cg_class *c, const vectors *v, cg_matrix *m, int64_t *next)
{
    double ratio = pow(CG_RCOND, 1.0 / c->na), size = 1.0;
    for (int r = 0; r < m->nrows; r++)
        next[r] = m->rowstr[r];
    for (int i = 0; i < c->na; i++) {
        const int *idx = v->idx + (size_t)i * (size_t)v->stride;
        const double *val = v->val + (size_t)i * (size_t)v->stride;
        for (int jc = 0; jc < v->len[i]; jc++) {
            double scale = size * val[jc];
            for (int jr = 0; jr < v->len[i]; jr++) {
                int row = idx[jr] - m->row0;
                if (row < 0 || row >= m->nrows)
                    continue;
                int64_t k = next[row]++;
                m->col[k] = idx[jc];
                m->a[k] = val[jr] * scale;
            }
        }
        size *= ratio;
    }
    for (int r = 0; r < m->nrows; r++) {
        int64_t k = next[r]++;
        m->col[k] = m->row0 + r;
        m->a[k] = CG_RCOND - c->shift;
    }
}

/* Bucket sizes: each vector puts len elements into each of its rows; one diagonal per row. */
static int64_t count_rows(const vectors *v, int na, cg_matrix *m)
{
    memset(m->rowstr, 0, ((size_t)m->nrows + 1) * sizeof *m->rowstr);
    for (int i = 0; i < na; i++) {
        const int *idx = v->idx + (size_t)i * (size_t)v->stride;
        for (int jr = 0; jr < v->len[i]; jr++) {
            int row = idx[jr] - m->row0;
            if (row >= 0 && row < m->nrows)
                m->rowstr[row + 1] += v->len[i];
        }
    }
    for (int r = 0; r < m->nrows; r++)
        m->rowstr[r + 1] += m->rowstr[r] + 1;
    return m->rowstr[m->nrows];
}

/* sparse's second half: each row's duplicates summed in bucket order into a dense row, the
 * columns listed in the order they first became nonzero, written back compacted (in place:
 * a row is written no further right than it was read). An exact zero sum is dropped. */
static int compact_rows(cg_matrix *m)
{
    double *x = calloc((size_t)m->na, sizeof *x);
    char *mark = calloc((size_t)m->na, 1);
    int *nzloc = malloc((size_t)m->na * sizeof *nzloc);
    if (!x || !mark || !nzloc) {
        free(x), free(mark), free(nzloc);
        return -1;
    }
    int64_t nza = 0, start = 0;
    for (int r = 0; r < m->nrows; r++) {
        int nzrow = 0;
        for (int64_t k = start; k < m->rowstr[r + 1]; k++) {
            int i = m->col[k];
            x[i] += m->a[k];
            if (!mark[i] && x[i] != 0.0) {
                mark[i] = 1;
                nzloc[nzrow++] = i;
            }
        }
        for (int k = 0; k < nzrow; k++) {
            int i = nzloc[k];
            double xi = x[i];
            mark[i] = 0;
            x[i] = 0.0;
            if (xi != 0.0) {
                m->a[nza] = xi;
                m->col[nza++] = i;
            }
        }
        start = m->rowstr[r + 1];
        m->rowstr[r + 1] = nza;
    }
    m->nnz = nza;
    free(x), free(mark), free(nzloc);
    return 0;
}

int cg_makea(const cg_class *c, int row0, int nrows, cg_matrix *m)
{
    memset(m, 0, sizeof *m);
    m->na = c->na;
    m->row0 = row0;
    m->nrows = nrows;
    vectors v = {0};
    m->rowstr = malloc(((size_t)nrows + 1) * sizeof *m->rowstr);
    int bad = !m->rowstr || draw_vectors(c, &v) != 0;
    int64_t raw = bad ? 0 : count_rows(&v, c->na, m);
    int64_t *next = bad ? NULL : malloc(((size_t)nrows + 1) * sizeof *next);
    if (!bad) {
        m->col = malloc((size_t)raw * sizeof *m->col + 1);
        m->a = malloc((size_t)raw * sizeof *m->a + 1);
        bad = !next || !m->col || !m->a;
    }
    if (!bad) {
        fill_buckets(c, &v, m, next);
        bad = compact_rows(m) != 0;
    }
    free(next);
    free_vectors(&v);
    if (bad)
        cg_matrix_free(m);
    return bad ? -1 : 0;
}

void cg_matrix_free(cg_matrix *m)
{
    free(m->rowstr);
    free(m->col);
    free(m->a);
    memset(m, 0, sizeof *m);
}
