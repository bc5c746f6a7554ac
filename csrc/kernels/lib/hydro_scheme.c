/* hydro_scheme.c - split MUSCL-Hancock + HLLC on one block (hydro_scheme.h).
 *
 * Every kernel is a loop over a contiguous row of cells (x fastest), so each vectorizes:
 * the x sweep runs along its row with shifted pointers, the y and z sweeps roll through
 * the rows of a plane (neighbours at stride ld0 or ld0 ld1), keeping the previous row's
 * predicted state and flux. The momentum components are permuted so that component 1 is
 * always the sweep's normal velocity.
 */
#include "hydro_scheme.h"
#include "sqrt_row.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Row buffers (HY_NV rows each): primitives of three rows (a ring), predicted minus/plus
 * states, fluxes of two rows, scratch. */
enum { R_W0, R_W1, R_W2, R_WM, R_WP, R_WP2, R_F, R_F2, R_C, R_SETS };

int hy_block_init(hy_block *b, const int n[3], const double h[3], double gamma)
{
    memset(b, 0, sizeof *b);
    for (int d = 0; d < 3; d++) {
        b->n[d] = n[d];
        b->ld[d] = n[d] + 2 * HY_G;
        b->h[d] = h[d];
    }
    b->s[0] = 1;
    b->s[1] = (size_t)b->ld[0];
    b->s[2] = (size_t)b->ld[0] * b->ld[1];
    b->ncell = b->s[2] * b->ld[2];
    b->gamma = gamma;
    b->rowlen = ((size_t)b->ld[0] + 7) & ~(size_t)7;  /* rows start on 64-byte boundaries */
    b->row = aligned_alloc(64, R_SETS * HY_NV * b->rowlen * sizeof(double));
    int bad = !b->row;
    for (int v = 0; v < HY_NV; v++) {
        size_t bytes = (b->ncell * sizeof(double) + 63) & ~(size_t)63;
        b->u[v] = aligned_alloc(64, bytes);
        bad |= !b->u[v];
    }
    if (bad) {
        hy_block_free(b);
        return -1;
    }
    /* A valid gas everywhere, so converting a never-written ghost is harmless. */
    for (size_t c = 0; c < b->ncell; c++) {
        b->u[HY_RHO][c] = 1;
        b->u[HY_MX][c] = b->u[HY_MY][c] = b->u[HY_MZ][c] = 0;
        b->u[HY_E][c] = 1;
    }
    memset(b->row, 0, R_SETS * HY_NV * b->rowlen * sizeof(double));
    return 0;
}

size_t hy_block_bytes(const int n[3])
{
    size_t ld[3], rowlen = ((size_t)n[0] + 2 * HY_G + 7) & ~(size_t)7;
    for (int d = 0; d < 3; d++)
        ld[d] = (size_t)n[d] + 2 * HY_G;
    size_t field = (ld[0] * ld[1] * ld[2] * sizeof(double) + 63) & ~(size_t)63;
    return HY_NV * field + R_SETS * HY_NV * rowlen * sizeof(double);
}

void hy_block_free(hy_block *b)
{
    for (int v = 0; v < HY_NV; v++) {
        free(b->u[v]);
    }
    free(b->row);
    memset(b, 0, sizeof *b);
}

/* src's fields at offset off, the momenta permuted so that the normal one of direction d
 * comes first (then the two transverse ones, cyclically). */
static void rotated(double *const src[HY_NV], int d, ptrdiff_t off, double *dst[HY_NV])
{
    dst[0] = src[HY_RHO] + off;
    dst[1] = src[HY_MX + d] + off;
    dst[2] = src[HY_MX + (d + 1) % 3] + off;
    dst[3] = src[HY_MX + (d + 2) % 3] + off;
    dst[4] = src[HY_E] + off;
}

/* Row buffer set k, from element off. */
static void rowset(const hy_block *b, int k, ptrdiff_t off, double *dst[HY_NV])
{
    for (int v = 0; v < HY_NV; v++)
        dst[v] = b->row + ((size_t)k * HY_NV + v) * b->rowlen + off;
}

/* Conserved to primitive over one row: 13 flops a cell. */
static void prim_row(int len, double g1, double *const u[HY_NV], double *const w[HY_NV])
{
    const double *restrict r = u[0], *restrict mx = u[1], *restrict my = u[2];
    const double *restrict mz = u[3], *restrict e = u[4];
    double *restrict wr = w[0], *restrict wu = w[1], *restrict wv = w[2];
    double *restrict ww = w[3], *restrict wp = w[4];
#pragma GCC ivdep
    for (int i = 0; i < len; i++) {
        double ir = 1.0 / r[i], vx = mx[i] * ir, vy = my[i] * ir, vz = mz[i] * ir;
        wr[i] = r[i];
        wu[i] = vx;
        wv[i] = vy;
        ww[i] = vz;
        wp[i] = g1 * (e[i] - 0.5 * r[i] * (vx * vx + vy * vy + vz * vz));
    }
}

/* Smaller and larger of two: plain compares, which vectorize (fmin and fmax keep C's NaN
 * rules and stay library calls); a NaN state is caught by the checks, not here. */
static inline double lesser(double a, double b) { return a < b ? a : b; }
static inline double greater(double a, double b) { return a > b ? a : b; }

/* Monotonized central limiter of the one-sided differences a, b (5 flops): zero at an
 * extremum, else the smallest of 2|a|, 2|b|, |a + b| / 2 with their sign. */
static inline double mc(double a, double b)
{
    double m = lesser(lesser(2 * fabs(a), 2 * fabs(b)), 0.5 * fabs(a + b));
    return a * b > 0 ? copysign(m, a) : 0.0;
}

/* MUSCL-Hancock predictor over one row: limited slopes of the primitives from the cells
 * before (l), at (c) and after (r), half a step of the primitive equations (hh = dt / 2h),
 * then the states at the cell's lower (wm) and upper (wp) faces. 72 flops a cell. */
static void predict_row(int len, double hh, double gamma, double *const l[HY_NV],
                        double *const c[HY_NV], double *const r[HY_NV], double *const wm[HY_NV],
                        double *const wp[HY_NV])
{
    const double *l0 = l[0], *l1 = l[1], *l2 = l[2], *l3 = l[3], *l4 = l[4];
    const double *c0 = c[0], *c1 = c[1], *c2 = c[2], *c3 = c[3], *c4 = c[4];
    const double *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3], *r4 = r[4];
    double *restrict m0 = wm[0], *restrict m1 = wm[1], *restrict m2 = wm[2];
    double *restrict m3 = wm[3], *restrict m4 = wm[4];
    double *restrict p0 = wp[0], *restrict p1 = wp[1], *restrict p2 = wp[2];
    double *restrict p3 = wp[3], *restrict p4 = wp[4];
#pragma GCC ivdep
    for (int i = 0; i < len; i++) {
        double d0 = mc(c0[i] - l0[i], r0[i] - c0[i]), d1 = mc(c1[i] - l1[i], r1[i] - c1[i]);
        double d2 = mc(c2[i] - l2[i], r2[i] - c2[i]), d3 = mc(c3[i] - l3[i], r3[i] - c3[i]);
        double d4 = mc(c4[i] - l4[i], r4[i] - c4[i]);
        double rho = c0[i], un = c1[i], p = c4[i];
        double b0 = rho - hh * (un * d0 + rho * d1);
        double b1 = un - hh * (un * d1 + d4 / rho);
        double b2 = c2[i] - hh * (un * d2);
        double b3 = c3[i] - hh * (un * d3);
        double b4 = p - hh * (gamma * p * d1 + un * d4);
        m0[i] = b0 - 0.5 * d0;
        p0[i] = b0 + 0.5 * d0;
        m1[i] = b1 - 0.5 * d1;
        p1[i] = b1 + 0.5 * d1;
        m2[i] = b2 - 0.5 * d2;
        p2[i] = b2 + 0.5 * d2;
        m3[i] = b3 - 0.5 * d3;
        p3[i] = b3 + 0.5 * d3;
        m4[i] = b4 - 0.5 * d4;
        p4[i] = b4 + 0.5 * d4;
    }
}

/* HLLC fluxes over one row of faces, left states wl, right states wr (Davis wave speeds);
 * c holds 2 rows of scratch for the sound speeds. Branch-free form: the side of the contact
 * S* picks the state K, and F = F(K) + S'_K (U*_K - U_K) with S'_L = min(S_L, 0), S'_R =
 * max(S_R, 0), which is HLLC's flux in each of its four cases. 66 flops a face. */
static void hllc_row(int len, double gamma, double *const wl[HY_NV], double *const wr[HY_NV],
                     double *const f[HY_NV], double *const c[2])
{
    const double *rl = wl[0], *ul = wl[1], *vl = wl[2], *zl = wl[3], *pl = wl[4];
    const double *rr = wr[0], *ur = wr[1], *vr = wr[2], *zr = wr[3], *pr = wr[4];
    double *restrict f0 = f[0], *restrict f1 = f[1], *restrict f2 = f[2];
    double *restrict f3 = f[3], *restrict f4 = f[4], *restrict cl = c[0], *restrict cr = c[1];
    double ig1 = 1.0 / (gamma - 1.0);
#pragma GCC ivdep
    for (int i = 0; i < len; i++) {
        cl[i] = gamma * pl[i] / rl[i];
        cr[i] = gamma * pr[i] / rr[i];
    }
    hpc_sqrt_row(len, cl);
    hpc_sqrt_row(len, cr);
#pragma GCC ivdep
    for (int i = 0; i < len; i++) {
        double sl = lesser(ul[i] - cl[i], ur[i] - cr[i]), sr = greater(ul[i] + cl[i], ur[i] + cr[i]);
        double ml = rl[i] * (sl - ul[i]), mr = rr[i] * (sr - ur[i]);
        double ss = (pr[i] - pl[i] + ul[i] * ml - ur[i] * mr) / (ml - mr);
        int left = ss >= 0;
        double r = left ? rl[i] : rr[i], u = left ? ul[i] : ur[i];
        double v = left ? vl[i] : vr[i], z = left ? zl[i] : zr[i], p = left ? pl[i] : pr[i];
        double s = left ? sl : sr, m = left ? ml : mr, sw = left ? lesser(sl, 0) : greater(sr, 0);
        double e = p * ig1 + 0.5 * r * (u * u + v * v + z * z);
        double k = m / (s - ss), ru = r * u;
        double es = k * (e / r + (ss - u) * (ss + p / m));
        f0[i] = ru + sw * (k - r);
        f1[i] = ru * u + p + sw * (k * ss - ru);
        f2[i] = ru * v + sw * (k * v - r * v);
        f3[i] = ru * z + sw * (k * z - r * z);
        f4[i] = u * (e + p) + sw * (es - e);
    }
}

/* u -= k (fhi - flo) over one row: 15 flops a cell. */
static void update_row(int len, double k, double *const u[HY_NV], double *const flo[HY_NV],
                       double *const fhi[HY_NV])
{
    for (int v = 0; v < HY_NV; v++) {
        double *restrict q = u[v];
        const double *restrict a = flo[v], *restrict c = fhi[v];
        for (int i = 0; i < len; i++)
            q[i] -= k * (c[i] - a[i]);
    }
}

/* The cells a sweep covers: direction d whole (the stencil's ghosts), the directions swept
 * later in this step with their ghosts (the later sweeps read them), the others interior. */
static void sweep_ranges(const hy_block *b, const int order[3], int pos, int lo[3], int hi[3])
{
    for (int e = 0; e < 3; e++) {
        lo[e] = HY_G;
        hi[e] = b->n[e] + HY_G;
    }
    for (int q = pos; q < 3; q++) {
        lo[order[q]] = 0;
        hi[order[q]] = b->ld[order[q]];
    }
}

/* The x sweep, one row at a time: primitives of the whole row, predicted states of cells
 * 1 .. n+2, fluxes of the faces between them (face c lies between cells c and c+1), updates
 * of cells 2 .. n+1. */
static void sweep_x(hy_block *b, double dt, const int lo[3], const int hi[3])
{
    int n = b->n[0];
    double *w[HY_NV], *wl[HY_NV], *wc[HY_NV], *wr[HY_NV], *wm[HY_NV], *wp[HY_NV], *wm2[HY_NV];
    double *f[HY_NV], *f2[HY_NV], *u[HY_NV], *c[HY_NV];
    rowset(b, R_W0, 0, w);
    rowset(b, R_W0, 0, wl);
    rowset(b, R_W0, 1, wc);
    rowset(b, R_W0, 2, wr);
    rowset(b, R_C, 0, c);
    rowset(b, R_WM, 1, wm);
    rowset(b, R_WP, 1, wp);
    rowset(b, R_WM, 2, wm2);
    rowset(b, R_F, 1, f);
    rowset(b, R_F, 2, f2);
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++) {
            rotated(b->u, 0, (ptrdiff_t)hy_idx(b, 0, j, k), u);
            prim_row(b->ld[0], b->gamma - 1, u, w);
            predict_row(n + 2, 0.5 * dt / b->h[0], b->gamma, wl, wc, wr, wm, wp);
            hllc_row(n + 1, b->gamma, wp, wm2, f, c);
            rotated(b->u, 0, (ptrdiff_t)hy_idx(b, HY_G, j, k), u);
            update_row(n, dt / b->h[0], u, f, f2);
        }
}

static void swap_rows(double *a[HY_NV], double *b[HY_NV])
{
    double *tmp[HY_NV];
    memcpy(tmp, a, sizeof tmp);
    memcpy(a, b, sizeof tmp);
    memcpy(b, tmp, sizeof tmp);
}

/* Offset of row m of direction d (1 or 2) in plane q of the other, from x = i. */
static ptrdiff_t row_at(const hy_block *b, int d, int i, int q, int m)
{
    return (ptrdiff_t)(d == 1 ? hy_idx(b, i, m, q) : hy_idx(b, i, q, m));
}

/* The y (d = 1) or z (d = 2) sweep: through each plane row by row (m), every kernel along
 * x. The primitives of rows m-1, m, m+1 sit in a ring of three row buffers (row m+1 is
 * converted just before it is needed, from the old state: updates lag two rows behind), so
 * a sweep reads and writes the state once; row m's plus state and the flux below it are
 * kept for the next row. */
static void sweep_yz(hy_block *b, int d, double dt, const int lo[3], const int hi[3])
{
    int t = 3 - d, len = hi[0] - lo[0];
    double hh = 0.5 * dt / b->h[d], kd = dt / b->h[d];
    double *ring[3][HY_NV], *wm[HY_NV], *wp[HY_NV], *wq[HY_NV];
    double *f[HY_NV], *fq[HY_NV], *u[HY_NV], *c[HY_NV];
    for (int k = 0; k < 3; k++)
        rowset(b, R_W0 + k, 0, ring[k]);
    rowset(b, R_C, 0, c);
    rowset(b, R_WM, 0, wm);
    rowset(b, R_WP, 0, wp);   /* row m's plus state */
    rowset(b, R_WP2, 0, wq);  /* row m-1's */
    rowset(b, R_F, 0, f);     /* flux below row m */
    rowset(b, R_F2, 0, fq);   /* flux below row m-1 */
    for (int q = lo[t]; q < hi[t]; q++)
        for (int m = 0; m <= b->n[d] + 2; m++) {
            if (m == 0) {  /* start the ring with row 0 */
                rotated(b->u, d, row_at(b, d, lo[0], q, 0), u);
                prim_row(len, b->gamma - 1, u, ring[0]);
            }
            rotated(b->u, d, row_at(b, d, lo[0], q, m + 1), u);
            prim_row(len, b->gamma - 1, u, ring[(m + 1) % 3]);
            if (m == 0)
                continue;
            predict_row(len, hh, b->gamma, ring[(m + 2) % 3], ring[m % 3], ring[(m + 1) % 3], wm,
                        wp);
            if (m >= 2)
                hllc_row(len, b->gamma, wq, wm, f, c);
            if (m >= 3) {
                rotated(b->u, d, row_at(b, d, lo[0], q, m - 1), u);
                update_row(len, kd, u, fq, f);
            }
            swap_rows(wq, wp);
            swap_rows(fq, f);
        }
}

void hy_step(hy_block *b, double dt, int parity)
{
    static const int orders[2][3] = {{0, 1, 2}, {2, 1, 0}};
    const int *order = orders[parity & 1];
    for (int pos = 0; pos < 3; pos++) {
        int lo[3], hi[3], d = order[pos];
        sweep_ranges(b, order, pos, lo, hi);
        /* the sweep updates interior cells of d only; its own ghosts feed the stencil */
        lo[d] = HY_G;
        hi[d] = b->n[d] + HY_G;
        if (d == 0)
            sweep_x(b, dt, lo, hi);
        else
            sweep_yz(b, d, dt, lo, hi);
    }
}

/* 22 flops a cell; row by row as the sweeps, the square roots in hpc_sqrt_row. */
double hy_max_rate(const hy_block *b)
{
    double g = b->gamma, ih0 = 1 / b->h[0], ih1 = 1 / b->h[1], ih2 = 1 / b->h[2], m = 0;
    double *a[HY_NV];  /* scratch: c^2 (then c), |u|, |v|, |w| */
    rowset(b, R_C, 0, a);
    double *restrict c = a[0], *restrict au = a[1], *restrict av = a[2], *restrict aw = a[3];
    for (int k = HY_G; k < b->n[2] + HY_G; k++)
        for (int j = HY_G; j < b->n[1] + HY_G; j++) {
            double *q[HY_NV];
            rotated(b->u, 0, (ptrdiff_t)hy_idx(b, HY_G, j, k), q);
            const double *r = q[0], *mx = q[1], *my = q[2], *mz = q[3], *e = q[4];
            for (int i = 0; i < b->n[0]; i++) {
                double ir = 1 / r[i], vx = mx[i] * ir, vy = my[i] * ir, vz = mz[i] * ir;
                double p = (g - 1) * (e[i] - 0.5 * r[i] * (vx * vx + vy * vy + vz * vz));
                c[i] = g * p * ir;
                au[i] = fabs(vx);
                av[i] = fabs(vy);
                aw[i] = fabs(vz);
            }
            hpc_sqrt_row(b->n[0], c);
            for (int i = 0; i < b->n[0]; i++) {
                double x = greater(greater((au[i] + c[i]) * ih0, (av[i] + c[i]) * ih1),
                                   (aw[i] + c[i]) * ih2);
                m = greater(x, m);  /* a NaN is passed over here: the state checks catch it */
            }
        }
    return m;
}

double hy_flops_per_cell(void)
{
    /* per sweep: primitives 13, predictor 72, HLLC 66, update 15; and the time step's 22 */
    return 3 * (13 + 72 + 66 + 15) + 22;
}
