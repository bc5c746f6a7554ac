/* sst_legendre.c - the Legendre transforms of the spectral model (sst_model.c), using the
 * equatorial symmetry of the associated Legendre functions.
 *
 * P_n^m(-mu) = (-1)^(n-m) P_n^m(mu) and H_n^m = (1-mu^2) dP_n^m/dmu has the opposite parity, so
 * with the Gaussian latitudes paired north/south (j and nlat-1-j, mu and -mu) every sum splits
 * into a symmetric and an antisymmetric part over one hemisphere:
 *   synthesis  S = sum_{n-m even} P x + sum_{n-m odd} H y,
 *              A = sum_{n-m odd} P x + sum_{n-m even} H y,
 *              north = S + A, south = S - A;
 *   analysis   with FS = F_north + F_south, FD = F_north - F_south:
 *              P-projections: n-m even from FS, odd from FD; H-projections: even from FD, odd
 *              from FS.
 * Half the multiply-adds of the full-sphere sums, half the table (hemisphere rows only). With
 * an odd nlat the equator is its own mirror: it enters once, in both parts (there the
 * antisymmetric functions vanish).
 *
 * Rows of a hemisphere range [h0, h1): the northern rows h0..h1-1, then their southern mirrors
 * nlat-1-h in the same order (the equator only once): the serial model takes [0, nh), the
 * parallel one a block of it, so a rank holds whole north/south pairs and keeps the saving.
 *
 * Tables per m at nh * off[m]: [h][n-m even] (nh x ne), then [h][n-m odd] (nh x no),
 * ne = (nm + 1) / 2, no = nm / 2. The coefficients stay in n order ([coef][columns]), so a
 * parity's rows are every other row: dgemm's leading dimension is twice the row length.
 * The levels are the dgemm's columns (8L for P, 4L and 6L for H): all levels in one product.
 */
#include "sst_model.h"
#include "check.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Gauss-Legendre nodes (descending, north first) and weights, Newton's method. */
void sst_gauss(int n, double *x, double *w)
{
    for (int i = 0; i < n; i++) {
        double z = cos(M_PI * (i + 0.75) / (n + 0.5)), pp = 0.0;
        for (int it = 0; it < 100; it++) {
            double p0 = 1.0, p1 = 0.0;
            for (int k = 1; k <= n; k++) {
                double p2 = p1;
                p1 = p0;
                p0 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p2) / k;
            }
            pp = n * (z * p0 - p1) / (z * z - 1.0);
            double dz = p0 / pp;
            z -= dz;
            if (fabs(dz) < 1e-16)
                break;
        }
        x[i] = z;
        w[i] = 2.0 / ((1.0 - z * z) * pp * pp);
    }
}

static double eps(int n, int m) { return sqrt((double)(n * n - m * m) / (4.0 * n * n - 1.0)); }

/* Table entry of (m, n) at hemisphere row h (the parity blocks of the header). */
static size_t tab(const sst_model *s, int m, int n, int h)
{
    int nm = s->M - m + 1, ne = (nm + 1) / 2, no = nm / 2, k = n - m;
    size_t base = (size_t)s->nh * s->off[m];
    return k % 2 == 0 ? base + (size_t)h * ne + k / 2
                      : base + (size_t)s->nh * ne + (size_t)h * no + k / 2;
}

/* Normalised P_n^m(mu) for n = m..M+1 and H_n^m for n = m..M, all m, northern rows (one
 * table each: the analysis weights its input instead, sst_analyse_m). */
void sst_legendre_tables(sst_model *s)
{
    int M = s->M;
    double *pm = malloc((size_t)(M + 3) * sizeof *pm);
    if (!pm)
        hpc_fail("sst: out of memory");
    for (int h = 0; h < s->nh; h++) {
        double mu = s->mu[h], c = sqrt(1.0 - mu * mu), pmm = sqrt(0.5);
        for (int m = 0; m <= M; m++) {
            if (m > 0)
                pmm *= sqrt((2.0 * m + 1.0) / (2.0 * m)) * c;
            pm[0] = pmm;  /* pm[k] = P_{m+k}^m */
            pm[1] = sqrt(2.0 * m + 3.0) * mu * pmm;
            for (int n = m + 2; n <= M + 1; n++)
                pm[n - m] = (mu * pm[n - m - 1] - eps(n - 1, m) * pm[n - m - 2]) / eps(n, m);
            for (int n = m; n <= M; n++) {
                double hh = -n * eps(n + 1, m) * pm[n - m + 1];
                if (n > m)
                    hh += (n + 1) * eps(n, m) * pm[n - m - 1];
                size_t x = tab(s, m, n, h);
                s->P[x] = pm[n - m];
                s->H[x] = hh;
            }
        }
    }
    free(pm);
}

/* 1 when [h0, h1) holds the equator of an odd nlat (a row without a mirror). */
static int has_equator(const sst_model *s, int h1) { return s->nlat % 2 && h1 == s->nh; }

int sst_rows(const sst_model *s, int h0, int h1) { return 2 * (h1 - h0) - has_equator(s, h1); }

int sst_row_lat(const sst_model *s, int h0, int h1, int r)
{
    int nr = h1 - h0;
    return r < nr ? h0 + r : s->nlat - 1 - (h0 + r - nr);
}

/* C (rows x cols, ldc) = or += A (rows x k, row-major) B (k rows of cols, ldb). OpenBLAS's
 * dgemm, not hand-written loops: register-blocked AVX2 loops (4 rows x 8 columns, fused
 * multiply-adds) took 1.5x its time at T170 and the same at T85 (step_time phases, one core). */
static void gemm(int rows, int cols, int k, const double *A, const double *B, int ldb,
                 double beta, double *C, int ldc)
{
    if (k == 0) {  /* the last m has no odd-parity row: BLAS wants lda >= 1 */
        if (beta == 0.0)
            for (int i = 0; i < rows; i++)
                memset(C + (size_t)i * ldc, 0, (size_t)cols * sizeof *C);
        return;
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, cols, k, 1.0, A, k, B, ldb,
                beta, C, ldc);
}

/* C (k x cols, ldc) = A^T B, A rows x k (row-major), B rows x cols (ldb). */
static void gemm_t(int k, int cols, int rows, const double *A, const double *B, int ldb,
                   double *C, int ldc)
{
    if (k == 0)
        return;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, cols, rows, 1.0, A, k, B, ldb, 0.0,
                C, ldc);
}

void sst_synth_m(sst_model *s, int m, int h0, int h1)
{
    int L = s->L, nm = s->M - m + 1, ne = (nm + 1) / 2, no = nm / 2, nr = h1 - h0;
    size_t base = (size_t)s->nh * s->off[m];
    const double *Pe = s->P + base + (size_t)h0 * ne, *He = s->H + base + (size_t)h0 * ne;
    const double *Po = s->P + base + (size_t)s->nh * ne + (size_t)h0 * no;
    const double *Ho = s->H + base + (size_t)s->nh * ne + (size_t)h0 * no;
    const double *sp = s->SP + (size_t)s->off[m] * 8 * L, *sh = s->SH + (size_t)s->off[m] * 4 * L;
    /* [zeta, Phi', U, V] columns; the H parts of U and V are added into the last 4L. */
    gemm(nr, 8 * L, ne, Pe, sp, 16 * L, 0.0, s->FS, 8 * L);
    gemm(nr, 4 * L, no, Ho, sh + 4 * L, 8 * L, 1.0, s->FS + 4 * L, 8 * L);
    gemm(nr, 8 * L, no, Po, sp + 8 * L, 16 * L, 0.0, s->FN, 8 * L);
    gemm(nr, 4 * L, ne, He, sh, 8 * L, 1.0, s->FN + 4 * L, 8 * L);
    s->syn_h0 = h0;
    s->syn_h1 = h1;
}

void sst_fourier_row(const sst_model *s, int r, int l, double complex out[4])
{
    int L = s->L, nr = s->syn_h1 - s->syn_h0, south = r >= nr;
    size_t i = (size_t)(south ? r - nr : r) * 8 * L + 2 * l;
    const double *fs = s->FS + i, *fn = s->FN + i;
    for (int f = 0; f < 4; f++) {
        const double *a = fs + 2 * f * L, *b = fn + 2 * f * L;
        out[f] = south ? (a[0] - b[0]) + I * (a[1] - b[1]) : (a[0] + b[0]) + I * (a[1] + b[1]);
    }
}

void sst_analyse_m(sst_model *s, int m, int h0, int h1)
{
    int L = s->L, nm = s->M - m + 1, ne = (nm + 1) / 2, no = nm / 2, nr = h1 - h0;
    int pairs = nr - has_equator(s, h1);
    size_t w = (size_t)10 * L;
    /* The quadrature weights w/nlon go on these sums, not into a second (weighted) table:
     * half the table memory streamed per step, for 2 multiplies per element here. */
    for (int i = 0; i < nr; i++) {
        const double *a = s->FA + i * w;
        double *fs = s->ES + i * w, *fd = s->ED + i * w, wq = s->w[h0 + i] / s->nlon;
        if (i < pairs) {
            const double *b = s->FA + (size_t)(nr + i) * w;
            for (size_t c = 0; c < w; c++) {
                fs[c] = (a[c] + b[c]) * wq;
                fd[c] = (a[c] - b[c]) * wq;
            }
        } else {
            for (size_t c = 0; c < w; c++)
                fs[c] = fd[c] = a[c] * wq;
        }
    }
    size_t base = (size_t)s->nh * s->off[m];
    const double *Pe = s->P + base + (size_t)h0 * ne, *He = s->H + base + (size_t)h0 * ne;
    const double *Po = s->P + base + (size_t)s->nh * ne + (size_t)h0 * no;
    const double *Ho = s->H + base + (size_t)s->nh * ne + (size_t)h0 * no;
    double *ap = s->AP + (size_t)s->off[m] * 8 * L, *ah = s->AH + (size_t)s->off[m] * 6 * L;
    /* FA columns: C, E, A, B (P-projections, the first 8L), A, B, D (H, from 4L on). */
    gemm_t(ne, 8 * L, nr, Pe, s->ES, 10 * L, ap, 16 * L);
    gemm_t(no, 8 * L, nr, Po, s->ED, 10 * L, ap + 8 * L, 16 * L);
    gemm_t(ne, 6 * L, nr, He, s->ED + 4 * L, 10 * L, ah, 12 * L);
    gemm_t(no, 6 * L, nr, Ho, s->ES + 4 * L, 10 * L, ah + 6 * L, 12 * L);
}

/* The flops of sst_synth_m, the sst_fourier_row calls of its rows and sst_analyse_m for m
 * over [h0, h1), as they are done (after the symmetry; a product 2 m n k): the products over
 * the hemisphere rows, 8 adds per row and level forming north = S + A, south = S - A, and per
 * level 40 per pair forming the weighted FS and FD (10 values: add, subtract, 2 multiplies),
 * 10 for the equator's (one multiply). */
double sst_legendre_flops_m(const sst_model *s, int m, int h0, int h1)
{
    double L = s->L, nm = s->M - m + 1, nr = h1 - h0;
    double eq = has_equator(s, h1), pairs = nr - eq;
    return 2 * nr * nm * (12 * L + 14 * L) + 8 * L * sst_rows(s, h0, h1) + 40 * L * pairs
           + 10 * L * eq;
}
