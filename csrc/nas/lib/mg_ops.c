/* mg_ops.c - NPB MG's stencil operators (mg_ops.h). Each follows mg.f's evaluation order
 * (partial sums along a line first), so the rounding is close to NPB's; the verification
 * tolerance (1e-8 relative) does not need it bit for bit.
 *
 * The loops work on row pointers (x + sy j + sz k) with restrict, one pass per x-line: gcc
 * inlines and vectorises each line loop (indexing through L in the loop body kept it
 * scalar), and the line sums stay in L1. */
#include "mg_ops.h"

#include <math.h>

/* Row (j, k) of x: element i of the row is x[i]. */
#define ROW(L, x, j, k) ((x) + (L)->sy * (size_t)(j) + (L)->sz * (size_t)(k))

/* Along the row at c: s1 = the four face neighbours across y and z, s2 = the four edge
 * neighbours in the y-z plane, for every x including the ghosts (NPB's u1/u2, r1/r2). */
static inline void line_sums(int m, ptrdiff_t sy, ptrdiff_t sz, const double *restrict c,
                             double *restrict s1, double *restrict s2)
{
    const double *restrict ym = c - sy, *restrict yp = c + sy, *restrict zm = c - sz;
    const double *restrict zp = c + sz;
    for (int i = 0; i < m; i++) {
        s1[i] = ym[i] + yp[i] + zm[i] + zp[i];
        s2[i] = ym[i - sz] + yp[i - sz] + ym[i + sz] + yp[i + sz];
    }
}

/* One row of r = v - A u from u's centre row and its line sums; r may be v (in place). */
static inline void resid_row(int n, const double *restrict u, const double *restrict u1,
                             const double *restrict u2, const double *v, double *r,
                             const double *a)
{
    double a0 = a[0], a2 = a[2], a3 = a[3];
    if (r == v) {  /* coarse levels: one array, so each may be restrict on its own */
        double *restrict rr = r;
        for (int i = 1; i <= n; i++)
            rr[i] = rr[i] - a0 * u[i] - a2 * (u2[i] + u1[i - 1] + u1[i + 1]) -
                    a3 * (u2[i - 1] + u2[i + 1]);
        return;
    }
    const double *restrict vv = v;
    double *restrict rr = r;
    for (int i = 1; i <= n; i++)
        rr[i] = vv[i] - a0 * u[i] - a2 * (u2[i] + u1[i - 1] + u1[i + 1]) -
                a3 * (u2[i - 1] + u2[i + 1]);
}

void mg_resid(const mg_level *L, const double *u, const double *v, double *r, const double *a,
              int k0, int k1)
{
    double u1[MG_NMAX + 2], u2[MG_NMAX + 2];
    ptrdiff_t sy = (ptrdiff_t)L->sy, sz = (ptrdiff_t)L->sz;
    for (int k = k0; k <= k1; k++) {
        for (int j = 1; j <= L->n; j++) {
            const double *uc = ROW(L, u, j, k);
            line_sums(L->n + 2, sy, sz, uc, u1, u2);
            resid_row(L->n, uc, u1, u2, ROW(L, v, j, k), ROW(L, r, j, k), a);
        }
        mg_fill_plane_xy(L, r, k);
    }
}

void mg_psinv(const mg_level *L, const double *r, double *u, const double *c, int k0, int k1)
{
    double r1[MG_NMAX + 2], r2[MG_NMAX + 2];
    ptrdiff_t sy = (ptrdiff_t)L->sy, sz = (ptrdiff_t)L->sz;
    double c0 = c[0], c1 = c[1], c2 = c[2];
    for (int k = k0; k <= k1; k++) {
        for (int j = 1; j <= L->n; j++) {
            const double *restrict rc = ROW(L, r, j, k);
            double *restrict uc = ROW(L, u, j, k);
            line_sums(L->n + 2, sy, sz, rc, r1, r2);
            for (int i = 1; i <= L->n; i++)
                uc[i] = uc[i] + c0 * rc[i] + c1 * (rc[i - 1] + rc[i + 1] + r1[i]) +
                        c2 * (r2[i] + r1[i - 1] + r1[i + 1]);
        }
        mg_fill_plane_xy(L, u, k);
    }
}

/* One coarse row of the restriction from the fine row at f (fine j, k even). */
static inline void rprj3_row(int cn, ptrdiff_t sy, ptrdiff_t sz, const double *restrict f,
                             double *restrict s, double *restrict x1, double *restrict y1)
{
    /* the odd fine columns around the coarse points, shared by two neighbours */
    for (int ci = 0; ci <= cn; ci++) {
        int i = 2 * ci + 1;
        x1[ci] = f[i - sy] + f[i + sy] + f[i - sz] + f[i + sz];
        y1[ci] = f[i - sy - sz] + f[i - sy + sz] + f[i + sy - sz] + f[i + sy + sz];
    }
    for (int ci = 1; ci <= cn; ci++) {
        int i = 2 * ci;
        double y2 = f[i - sy - sz] + f[i - sy + sz] + f[i + sy - sz] + f[i + sy + sz];
        double x2 = f[i - sy] + f[i + sy] + f[i - sz] + f[i + sz];
        s[ci] = 0.5 * f[i] + 0.25 * (f[i - 1] + f[i + 1] + x2) +
                0.125 * (x1[ci - 1] + x1[ci] + y2) + 0.0625 * (y1[ci - 1] + y1[ci]);
    }
}

void mg_rprj3(const mg_level *F, const double *r, const mg_level *C, double *s, int ck0,
              int ck1)
{
    double x1[MG_NMAX + 2], y1[MG_NMAX + 2];
    ptrdiff_t sy = (ptrdiff_t)F->sy, sz = (ptrdiff_t)F->sz;
    for (int ck = ck0; ck <= ck1; ck++) {
        for (int cj = 1; cj <= C->n; cj++)
            rprj3_row(C->n, sy, sz, ROW(F, r, 2 * cj, 2 * ck), ROW(C, s, cj, ck), x1, y1);
        mg_fill_plane_xy(C, s, ck);
    }
}

/* Fine row f += the coarse line a interpolated in x: f[2i] += w a[i], f[2i+1] +=
 * w/2 (a[i] + a[i+1]), i = 0..cn (w = 1 on the coarse row itself, a its line sums else). */
static inline void interp_row(int cn, double w, const double *restrict a, double *restrict f)
{
    for (int ci = 0; ci <= cn; ci++) {
        f[2 * ci] += w * a[ci];
        f[2 * ci + 1] += 0.5 * w * (a[ci] + a[ci + 1]);
    }
}

void mg_interp(const mg_level *C, const double *z, const mg_level *F, double *u, int ck0,
               int ck1)
{
    double z1[MG_NMAX + 2], z2[MG_NMAX + 2], z3[MG_NMAX + 2];
    ptrdiff_t sy = (ptrdiff_t)C->sy, sz = (ptrdiff_t)C->sz;
    for (int ck = ck0; ck <= ck1; ck++)
        for (int cj = 0; cj <= C->n; cj++) {
            const double *restrict c = ROW(C, z, cj, ck);
            for (int ci = 0; ci <= C->n + 1; ci++) {
                z1[ci] = c[ci + sy] + c[ci];
                z2[ci] = c[ci + sz] + c[ci];
                z3[ci] = c[ci + sy + sz] + c[ci + sz] + z1[ci];
            }
            int j = 2 * cj, k = 2 * ck;
            interp_row(C->n, 1.0, c, ROW(F, u, j, k));
            interp_row(C->n, 0.5, z1, ROW(F, u, j + 1, k));
            interp_row(C->n, 0.5, z2, ROW(F, u, j, k + 1));
            interp_row(C->n, 0.25, z3, ROW(F, u, j + 1, k + 1));
        }
}

/* Sums of squares and maxima kept in this many lanes: one chain of dependent additions
 * would bound the norm by the adder's latency; lanes let it vectorise. */
#define NORM_LANES 8

static inline void norm_add(double *s, double *m, double a)
{
    *s += a * a;
    /* a NaN must not hide behind the comparison: it poisons the sum anyway */
    *m = fabs(a) > *m ? fabs(a) : *m;
}

void mg_norm_local(const mg_level *L, const double *r, int k0, int k1, double *sum,
                   double *max)
{
    double s[NORM_LANES] = {0}, m[NORM_LANES] = {0};
    int n = L->n, nl = n - n % NORM_LANES;
    for (int k = k0; k <= k1; k++)
        for (int j = 1; j <= n; j++) {
            const double *x = ROW(L, r, j, k) + 1;
            for (int i = 0; i < nl; i += NORM_LANES)
                for (int l = 0; l < NORM_LANES; l++)
                    norm_add(&s[l], &m[l], x[i + l]);
            for (int i = nl; i < n; i++)
                norm_add(&s[0], &m[0], x[i]);
        }
    for (int l = 0; l < NORM_LANES; l++) {
        *sum += s[l];
        *max = m[l] > *max ? m[l] : *max;
    }
}
