/* sst_model.c - spectral transform shallow water model (PSTSWM-like, serial).
 *
 * Equations (Williamson et al. 1992; Hack and Jakob 1992), with U = u cos(lat),
 * V = v cos(lat), mu = sin(lat), eta = zeta + f, Phi = Phibar + Phi':
 *   d zeta/dt = -div(eta V)
 *   d delta/dt = curl(eta V) - lap(Phi + E),   E = (U^2 + V^2) / (2 (1 - mu^2))
 *   d Phi'/dt  = -div(Phi' V) - Phibar delta
 * Fields are sums of P_n^m(mu) e^{i m lon}, 0 <= m <= n <= M (triangular
 * truncation), P normalised to int_{-1}^{1} P^2 dmu = 1, on a Gaussian grid
 * (nlat Gauss-Legendre latitudes, nlon equally spaced longitudes), alias-free
 * for quadratic terms when nlon >= 3M+1 and 2 nlat >= 3M+1.
 *
 * One step (L levels transformed together, the level index inside the
 * coefficient index as PSTSWM keeps the vertical index second):
 *  1. spectral: zt = a zeta/(n(n+1)), dt = a delta/(n(n+1)); the synthesis
 *     inputs [zeta, Phi', -i m dt, -i m zt] (with P) and [zt, -dt] (with H):
 *     U = sum P (-i m dt) + H zt, V = sum P (-i m zt) - H dt.
 *  2. Legendre synthesis per m: two dgemm (nlat x nm) x (nm x 8L), (nm x 4L);
 *     U and V summed from their P and H parts.
 *  3. inverse FFT (FFTW c2r) of 4L fields per latitude.
 *  4. grid: A = U eta r, B = V eta r, C = U Phi' r, D = V Phi' r with
 *     r = 1/(a(1-mu^2)), and E.
 *  5. forward FFT (r2c) of 5L fields per latitude.
 *  6. Legendre analysis per m: two dgemm (nm x nlat) x (nlat x 8L), (nlat x 6L)
 *     with weights w/nlon folded into PW, HW; the mu-derivatives are
 *     integrated by parts, so with H = (1-mu^2) dP/dmu:
 *       N_zeta = -i m P[A] + H[B],  N_delta = i m P[B] + H[A] + n(n+1)/a^2 P[E],
 *       N_Phi = -i m P[C] + H[D].
 *  7. time step (leapfrog): explicit, or semi-implicit with the gravity-wave
 *     terms (Phibar delta, lap Phi') averaged over t-dt and t+dt; optional
 *     Robert-Asselin filter.
 *
 * Start (the leapfrog needs two time levels, the test cases give one):
 *   classic  (default) as NCAR's STSWM (Hack and Jakob 1992, step.f) and PSTSWM: a forward
 *            step of dt/2, then a centred step of dt from the initial state with the
 *            tendencies at dt/2; one pass through the step code more than steps.
 *   euler    one forward step of dt. Its O(dt^2) start error is carried by the leapfrog to
 *            the end: test case 1 errors differ from the classic start's by about 2%.
 * Neither start pass applies the Robert-Asselin filter.
 *
 * Operation count per step (each +, -, *, / of this code counts one, a dgemm
 * 2 m n k; exact except the FFTs, counted by the usual convention):
 *   FFT       2.5 nlon log2(nlon) per real transform (benchFFT's convention; FFTW's
 *             own count is not per element with SIMD codelets), 9 L nlat transforms
 *             (c2r of 4 L nlat fields, r2c of 5 L nlat)
 *   Legendre  sum_m 2 nlat nm (8L + 4L) + 2 nlat nm (8L + 6L) + 4 L nlat (M+1)
 *             (nm = M - m + 1; the last term adds the P and H parts of U, V)
 *   grid      11 L nlat nlon
 *   spectral  L ncoef (8 + 16 + s) with s = 20 explicit, 28 semi-implicit,
 *             4 for test case 1 (only Phi' advances; the winds are fixed),
 *             plus 4 ncoef (semi-implicit: the per-coefficient factors) and
 *             30 L ncoef with the Robert-Asselin filter on (not on the start passes);
 *             ncoef = (M+1)(M+2)/2.
 */
#include "sst_model.h"
#include "check.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenBLAS would otherwise start a thread per core in every rank. */
extern void openblas_set_num_threads(int) __attribute__((weak));

static void *xalloc(size_t bytes)
{
    void *p = fftw_malloc(bytes ? bytes : 1);
    if (!p)
        hpc_fail("sst: cannot allocate %zu bytes", bytes);
    memset(p, 0, bytes);
    return p;
}

static int fft_friendly(int n)
{
    for (int f = 2; f <= 5; f++)
        while (n % f == 0)
            n /= f;
    return n == 1;
}

const char *sst_check_args(int M, int *nlon, int *nlat, int L)
{
    static char msg[200];
    if (M < 1) {
        snprintf(msg, sizeof msg, "truncation T%d: must be at least 1", M);
        return msg;
    }
    if (L <= 0) {
        snprintf(msg, sizeof msg, "levels %d: must be at least 1", L);
        return msg;
    }
    if (*nlon == 0) {
        int n = 3 * M + 1;
        while (!fft_friendly(n) || n % 2)
            n++;
        *nlon = n;
    }
    if (*nlat == 0)
        *nlat = (*nlon + 1) / 2;
    if (*nlon < 3 * M + 1) {
        snprintf(msg, sizeof msg, "nlon %d aliases at T%d: need nlon >= 3M+1 = %d", *nlon, M,
                 3 * M + 1);
        return msg;
    }
    if (2 * *nlat < 3 * M + 1) {
        snprintf(msg, sizeof msg, "nlat %d aliases at T%d: need nlat >= (3M+1)/2 = %.1f", *nlat,
                 M, (3 * M + 1) / 2.0);
        return msg;
    }
    return NULL;
}

/* Gauss-Legendre nodes (descending, north first) and weights, Newton's method. */
static void gauss(int n, double *x, double *w)
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

/* Normalised P_n^m(mu) for n = m..M+1 and H_n^m for n = m..M, all m. */
static void legendre(sst_model *s)
{
    int M = s->M;
    double *pm = malloc((size_t)(M + 3) * sizeof *pm);
    for (int j = 0; j < s->nlat; j++) {
        double mu = s->mu[j], c = sqrt(1.0 - mu * mu), pmm = sqrt(0.5);
        for (int m = 0; m <= M; m++) {
            if (m > 0)
                pmm *= sqrt((2.0 * m + 1.0) / (2.0 * m)) * c;
            pm[0] = pmm;  /* pm[k] = P_{m+k}^m */
            pm[1] = sqrt(2.0 * m + 3.0) * mu * pmm;
            for (int n = m + 2; n <= M + 1; n++)
                pm[n - m] = (mu * pm[n - m - 1] - eps(n - 1, m) * pm[n - m - 2]) / eps(n, m);
            int nm = M - m + 1;
            for (int n = m; n <= M; n++) {
                double h = -n * eps(n + 1, m) * pm[n - m + 1];
                if (n > m)
                    h += (n + 1) * eps(n, m) * pm[n - m - 1];
                size_t x = (size_t)s->nlat * s->off[m] + (size_t)j * nm + (n - m);
                s->P[x] = pm[n - m];
                s->H[x] = h;
                s->PW[x] = pm[n - m] * s->w[j] / s->nlon;
                s->HW[x] = h * s->w[j] / s->nlon;
            }
        }
    }
    free(pm);
}

void sst_count_flops(sst_model *s)
{
    /* FFTW's fftw_flops counts a SIMD codelet's vector operations once, not per element, so
     * the FFTs are counted by benchFFT's convention instead: 2.5 N log2 N per real transform. */
    double ntrans = 9.0 * s->L * s->nlat;
    s->fft_flops = ntrans * 2.5 * s->nlon * log2((double)s->nlon);
    double L = s->L, nlat = s->nlat;
    s->legendre_flops = 0;
    for (int m = 0; m <= s->M; m++) {
        double nm = s->M - m + 1;
        s->legendre_flops += 2 * nlat * nm * (8 * L + 4 * L) + 2 * nlat * nm * (8 * L + 6 * L)
                             + 4 * L * nlat;
    }
    s->grid_flops = 11 * L * nlat * s->nlon;
    int si = s->scheme == SST_SEMI_IMPLICIT && !s->advect_only;
    double upd = s->advect_only ? 4 : si ? 28 : 20;
    double per = 8 + 16 + upd + (s->robert > 0 ? 30 : 0);
    s->spectral_flops = per * L * (double)s->ncoef + (si ? 4.0 * (double)s->ncoef : 0.0);
    s->flops_step = s->fft_flops + s->legendre_flops + s->grid_flops + s->spectral_flops;
}

const char *const sst_start_names[2] = {"euler", "classic"};

void sst_init(sst_model *s, int M, int nlon, int nlat, int L, int scheme, double dt,
              double robert, int start)
{
    memset(s, 0, sizeof *s);
    if (openblas_set_num_threads)
        openblas_set_num_threads(1);
    s->M = M;
    s->nlon = nlon;
    s->nlat = nlat;
    s->L = L;
    s->scheme = scheme;
    s->dt = dt;
    s->robert = robert;
    s->start = start;
    s->a = 6.37122e6;
    s->omega = 7.292e-5;
    s->g = 9.80616;
    s->nc = nlon / 2 + 1;
    s->off = malloc((size_t)(M + 2) * sizeof *s->off);
    s->off[0] = 0;
    for (int m = 0; m <= M; m++)
        s->off[m + 1] = s->off[m] + (M - m + 1);
    s->ncoef = s->off[M + 1];

    s->mu = xalloc(nlat * sizeof(double));
    s->w = xalloc(nlat * sizeof(double));
    s->rinv = xalloc(nlat * sizeof(double));
    s->r2 = xalloc(nlat * sizeof(double));
    gauss(nlat, s->mu, s->w);
    for (int j = 0; j < nlat; j++) {
        double c2 = 1.0 - s->mu[j] * s->mu[j];
        s->rinv[j] = 1.0 / (s->a * c2);
        s->r2[j] = 1.0 / (2.0 * c2);
    }
    s->coslon = xalloc(nlon * sizeof(double));
    s->sinlon = xalloc(nlon * sizeof(double));
    for (int i = 0; i < nlon; i++) {
        s->coslon[i] = cos(2 * M_PI * i / nlon);
        s->sinlon[i] = sin(2 * M_PI * i / nlon);
    }
    size_t np = (size_t)nlat * s->ncoef;
    s->P = xalloc(np * sizeof(double));
    s->H = xalloc(np * sizeof(double));
    s->PW = xalloc(np * sizeof(double));
    s->HW = xalloc(np * sizeof(double));
    legendre(s);
    s->nn1 = xalloc(s->ncoef * sizeof(double));
    s->ainv = xalloc(s->ncoef * sizeof(double));
    for (int m = 0; m <= M; m++)
        for (int n = m; n <= M; n++) {
            long k = s->off[m] + n - m;
            s->nn1[k] = n * (n + 1.0) / (s->a * s->a);
            s->ainv[k] = n ? s->a / (n * (n + 1.0)) : 0.0;
        }
    s->fcor = xalloc((size_t)nlat * nlon * sizeof(double));
    size_t ns = (size_t)s->ncoef * L;
    for (int t = 0; t < 3; t++) {
        s->z[t] = xalloc(ns * sizeof(double complex));
        s->d[t] = xalloc(ns * sizeof(double complex));
        s->p[t] = xalloc(ns * sizeof(double complex));
    }
    s->SP = xalloc(ns * 8 * sizeof(double));
    s->SH = xalloc(ns * 4 * sizeof(double));
    s->AP = xalloc(ns * 8 * sizeof(double));
    s->AH = xalloc(ns * 6 * sizeof(double));
    s->FP = xalloc((size_t)nlat * 8 * L * sizeof(double));
    s->FH = xalloc((size_t)nlat * 4 * L * sizeof(double));
    s->FA = xalloc((size_t)nlat * 10 * L * sizeof(double));
    s->g4 = xalloc((size_t)nlat * 4 * L * nlon * sizeof(double));
    s->g5 = xalloc((size_t)nlat * 5 * L * nlon * sizeof(double));
    s->c4 = xalloc((size_t)nlat * 4 * L * s->nc * sizeof(fftw_complex));
    s->c5 = xalloc((size_t)nlat * 5 * L * s->nc * sizeof(fftw_complex));
    int n = nlon;
    s->inv = fftw_plan_many_dft_c2r(1, &n, nlat * 4 * L, s->c4, NULL, 1, s->nc, s->g4, NULL, 1,
                                    nlon, FFTW_MEASURE);
    s->fwd = fftw_plan_many_dft_r2c(1, &n, nlat * 5 * L, s->g5, NULL, 1, nlon, s->c5, NULL, 1,
                                    s->nc, FFTW_MEASURE);
    if (!s->inv || !s->fwd)
        hpc_fail("sst: FFTW could not plan the transforms");
    sst_count_flops(s);
}

void sst_free(sst_model *s)
{
    fftw_destroy_plan(s->inv);
    fftw_destroy_plan(s->fwd);
    void *ptrs[] = {s->mu, s->w, s->rinv, s->r2, s->coslon, s->sinlon, s->P, s->H, s->PW,
                    s->HW, s->nn1, s->ainv, s->fcor, s->SP, s->SH, s->AP, s->AH, s->FP,
                    s->FH, s->FA, s->g4, s->g5, s->c4, s->c5};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
        fftw_free(ptrs[i]);
    for (int t = 0; t < 3; t++) {
        fftw_free(s->z[t]);
        fftw_free(s->d[t]);
        fftw_free(s->p[t]);
    }
    free(s->off);
}

/* ---- the pieces of a step, per wavenumber m (the parallel model calls them on its share) */

void sst_prep_m(sst_model *s, int m)
{
    int L = s->L;
    const double complex *z = s->z[s->cur], *d = s->d[s->cur], *p = s->p[s->cur];
    for (long k = s->off[m]; k < s->off[m + 1]; k++)
        for (int l = 0; l < L; l++) {
            size_t x = (size_t)k * L + l;
            double complex zt = s->ainv[k] * z[x], dt = s->ainv[k] * d[x];
            double *sp = s->SP + (size_t)k * 8 * L, *sh = s->SH + (size_t)k * 4 * L;
            sp[2 * l] = creal(z[x]);
            sp[2 * l + 1] = cimag(z[x]);
            sp[2 * L + 2 * l] = creal(p[x]);
            sp[2 * L + 2 * l + 1] = cimag(p[x]);
            sp[4 * L + 2 * l] = m * cimag(dt);   /* -i m dt */
            sp[4 * L + 2 * l + 1] = -m * creal(dt);
            sp[6 * L + 2 * l] = m * cimag(zt);   /* -i m zt */
            sp[6 * L + 2 * l + 1] = -m * creal(zt);
            sh[2 * l] = creal(zt);
            sh[2 * l + 1] = cimag(zt);
            sh[2 * L + 2 * l] = -creal(dt);
            sh[2 * L + 2 * l + 1] = -cimag(dt);
        }
}

void sst_synth_m(sst_model *s, int m, int j0, int j1)
{
    int L = s->L, nm = s->M - m + 1;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, j1 - j0, 8 * L, nm, 1.0,
                s->P + (size_t)s->nlat * s->off[m] + (size_t)j0 * nm, nm,
                s->SP + (size_t)s->off[m] * 8 * L, 8 * L, 0.0, s->FP, 8 * L);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, j1 - j0, 4 * L, nm, 1.0,
                s->H + (size_t)s->nlat * s->off[m] + (size_t)j0 * nm, nm,
                s->SH + (size_t)s->off[m] * 4 * L, 4 * L, 0.0, s->FH, 4 * L);
}

void sst_fourier_row(const sst_model *s, int jj, int l, double complex out[4])
{
    int L = s->L;
    const double *fp = s->FP + (size_t)jj * 8 * L, *fh = s->FH + (size_t)jj * 4 * L;
    out[0] = fp[2 * l] + I * fp[2 * l + 1];
    out[1] = fp[2 * L + 2 * l] + I * fp[2 * L + 2 * l + 1];
    out[2] = (fp[4 * L + 2 * l] + fh[2 * l]) + I * (fp[4 * L + 2 * l + 1] + fh[2 * l + 1]);
    out[3] = (fp[6 * L + 2 * l] + fh[2 * L + 2 * l])
             + I * (fp[6 * L + 2 * l + 1] + fh[2 * L + 2 * l + 1]);
}

void sst_grid_row(const sst_model *s, int j, const double *const in[4], double *const out[5])
{
    sst_grid_part(s, j, 0, s->nlon, in, out);
}

void sst_grid_part(const sst_model *s, int j, int i0, int i1, const double *const in[4],
                   double *const out[5])
{
    double r = s->rinv[j], r2 = s->r2[j];
    const double *f = s->fcor + (size_t)j * s->nlon + i0;
    const double *zg = in[0], *pg = in[1], *ug = in[2], *vg = in[3];
    double *C = out[SST_C], *E = out[SST_E], *A = out[SST_A], *B = out[SST_B], *D = out[SST_D];
    for (int i = 0; i < i1 - i0; i++) {
        double eta = zg[i] + f[i], ur = ug[i] * r, vr = vg[i] * r;
        A[i] = ur * eta;
        B[i] = vr * eta;
        C[i] = ur * pg[i];
        D[i] = vr * pg[i];
        E[i] = (ug[i] * ug[i] + vg[i] * vg[i]) * r2;
    }
}

void sst_analyse_m(sst_model *s, int m, int j0, int j1)
{
    int L = s->L, nm = s->M - m + 1;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nm, 8 * L, j1 - j0, 1.0,
                s->PW + (size_t)s->nlat * s->off[m] + (size_t)j0 * nm, nm, s->FA, 10 * L, 0.0,
                s->AP + (size_t)s->off[m] * 8 * L, 8 * L);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, nm, 6 * L, j1 - j0, 1.0,
                s->HW + (size_t)s->nlat * s->off[m] + (size_t)j0 * nm, nm, s->FA + 4 * L, 10 * L,
                0.0, s->AH + (size_t)s->off[m] * 6 * L, 6 * L);
}

/* Complex projections of slot f for coefficient k, level l. */
static inline double complex projP(const sst_model *s, long k, int f, int l)
{
    const double *a = s->AP + (size_t)k * 8 * s->L + (size_t)f * 2 * s->L + 2 * l;
    return a[0] + I * a[1];
}
static inline double complex projH(const sst_model *s, long k, int f, int l)
{
    const double *a = s->AH + (size_t)k * 6 * s->L + (size_t)(f - SST_A) * 2 * s->L + 2 * l;
    return a[0] + I * a[1];
}

/* Tendencies of the coefficients of m from AP, AH, then the leapfrog update
 * from (old, cur) to nxt with 2dt = tau, and the Robert-Asselin filter of cur. */
void sst_update_m(sst_model *s, int m, double tau)
{
    int L = s->L;
    double complex *zn = s->z[s->nxt], *dn = s->d[s->nxt], *pn = s->p[s->nxt];
    const double complex *zo = s->z[s->old], *dox = s->d[s->old], *po = s->p[s->old];
    const double complex *dc = s->d[s->cur], *pc = s->p[s->cur];
    double pb = s->phibar, h = 0.5 * tau, hpb = h * pb;
    for (long k = s->off[m]; k < s->off[m + 1]; k++) {
        double Ln = s->nn1[k];
        /* semi-implicit: Phi+ = A - (tau/2) Phibar delta+ with
         * A = Phi- + tau N_Phi - (tau/2) Phibar delta-, and
         * delta+ (1 + (tau/2)^2 Ln Phibar) = delta- + tau N_delta + (tau/2) Ln (Phi- + A) */
        double hLn = h * Ln, inv = 1.0 / (1.0 + hLn * hpb);
        for (int l = 0; l < L; l++) {
            size_t x = (size_t)k * L + l;
            /* Real arithmetic: -i m (x + iy) = m y - i m x (no complex-by-complex multiply). */
            double complex pa = projP(s, k, SST_A, l), pbb = projP(s, k, SST_B, l),
                           pcc = projP(s, k, SST_C, l), pe = projP(s, k, SST_E, l),
                           ha = projH(s, k, SST_A, l), hb = projH(s, k, SST_B, l),
                           hd = projH(s, k, SST_D, l);
            double complex nz = (m * cimag(pa) + creal(hb)) + I * (-m * creal(pa) + cimag(hb));
            double complex nd = (-m * cimag(pbb) + creal(ha) + Ln * creal(pe))
                                + I * (m * creal(pbb) + cimag(ha) + Ln * cimag(pe));
            double complex np = (m * cimag(pcc) + creal(hd)) + I * (-m * creal(pcc) + cimag(hd));
            if (s->advect_only) {
                /* Test case 1: the winds stay as they are, Phi is advected. */
                zn[x] = s->z[s->cur][x];
                dn[x] = dc[x];
                pn[x] = po[x] + tau * np;
                continue;
            }
            zn[x] = zo[x] + tau * nz;
            if (s->scheme == SST_EXPLICIT) {
                dn[x] = dox[x] + tau * (nd + Ln * pc[x]);
                pn[x] = po[x] + tau * (np - pb * dc[x]);
            } else {
                double complex A = po[x] + tau * np - hpb * dox[x];
                dn[x] = (dox[x] + tau * nd + hLn * (po[x] + A)) * inv;
                pn[x] = A - hpb * dn[x];
            }
        }
    }
    if (s->robert > 0 && !s->first_step) {
        double complex *zc = s->z[s->cur], *dcc = s->d[s->cur], *pcc = s->p[s->cur];
        for (size_t x = (size_t)s->off[m] * L; x < (size_t)s->off[m + 1] * L; x++) {
            zc[x] += s->robert * (zn[x] - 2.0 * zc[x] + zo[x]);
            dcc[x] += s->robert * (dn[x] - 2.0 * dcc[x] + dox[x]);
            pcc[x] += s->robert * (pn[x] - 2.0 * pcc[x] + po[x]);
        }
    }
}

/* Passes of the start: 1 (euler) or 2 (classic). */
static int start_passes(const sst_model *s) { return s->start == SST_START_CLASSIC ? 2 : 1; }

int sst_passes(const sst_model *s, int nsteps) { return nsteps + start_passes(s) - 1; }

double sst_run_flops(const sst_model *s, int nsteps)
{
    double filter = s->robert > 0 ? 30.0 * s->L * (double)s->ncoef : 0.0;
    return sst_passes(s, nsteps) * s->flops_step - start_passes(s) * filter;
}

void sst_begin_step(sst_model *s, int n)
{
    s->first_step = n < start_passes(s);
    s->centred_start = s->start == SST_START_CLASSIC && n == 1;
    if (n == 0) {
        /* A forward step is a leapfrog step from old = cur. */
        size_t bytes = (size_t)s->ncoef * s->L * sizeof(double complex);
        memcpy(s->z[s->old], s->z[s->cur], bytes);
        memcpy(s->d[s->old], s->d[s->cur], bytes);
        memcpy(s->p[s->old], s->p[s->cur], bytes);
    }
}

/* The leapfrog's 2 dt; the forward start step dt (euler) or dt/2 then the centred dt
 * (classic). */
double sst_tau(const sst_model *s, int n)
{
    if (n >= start_passes(s))
        return 2.0 * s->dt;
    return s->start == SST_START_CLASSIC && n == 0 ? 0.5 * s->dt : s->dt;
}

void sst_end_step(sst_model *s)
{
    if (s->centred_start) {
        /* old keeps the initial state (time 0), cur becomes time dt; the dt/2 state goes. */
        int h = s->cur;
        s->cur = s->nxt;
        s->nxt = h;
        return;
    }
    int o = s->old;
    s->old = s->cur;
    s->cur = s->nxt;
    s->nxt = o;
}

/* ---- the serial step */

const hpc_phase_def sst_phase_defs[SST_NPH] = {
    {"legendre", HPC_KIND_COMPUTE}, {"fft", HPC_KIND_COMPUTE}, {"grid", HPC_KIND_COMPUTE},
    {"spectral", HPC_KIND_COMPUTE}};

/* Switch phase when the caller times phases (one clock read); only inside sst_run, as
 * synthesis() also serves the untimed diagnostics. */
#define PHASE(s, id)                      \
    do {                                  \
        if ((s)->timing)                  \
            hpc_phase_to((s)->timing, id); \
    } while (0)

#define G5(s, j, f, l) ((s)->g5 + (((size_t)(j) * 5 + (f)) * (s)->L + (l)) * (s)->nlon)
#define G4(s, j, f, l) ((s)->g4 + (((size_t)(j) * 4 + (f)) * (s)->L + (l)) * (s)->nlon)

/* Spectral state cur -> grid zeta, Phi', U, V in g4. */
static void synthesis(sst_model *s)
{
    int L = s->L, nlat = s->nlat, nc = s->nc;
    for (int m = 0; m <= s->M; m++) {
        sst_prep_m(s, m);
        sst_synth_m(s, m, 0, nlat);
        for (int j = 0; j < nlat; j++)
            for (int l = 0; l < L; l++) {
                double complex v[4];
                sst_fourier_row(s, j, l, v);
                for (int f = 0; f < 4; f++)
                    s->c4[((size_t)(j * 4 + f) * L + l) * nc + m] = v[f];
            }
    }
    /* Wavenumbers above M are zero; c2r overwrites its input, so reset them,
     * and the imaginary part of m = 0 (a real field's mean). */
    for (size_t t = 0; t < (size_t)nlat * 4 * L; t++) {
        fftw_complex *c = s->c4 + t * nc;
        c[0] = creal(c[0]);
        for (int k = s->M + 1; k < nc; k++)
            c[k] = 0.0;
    }
    PHASE(s, SST_PH_FFT);
    fftw_execute(s->inv);
}

/* Grid fields in g5 -> per-coefficient P and H projections in AP, AH. */
static void analysis(sst_model *s)
{
    int L = s->L, nlat = s->nlat, nc = s->nc;
    PHASE(s, SST_PH_FFT);
    fftw_execute(s->fwd);
    PHASE(s, SST_PH_LEGENDRE);
    for (int m = 0; m <= s->M; m++) {
        for (int j = 0; j < nlat; j++) {
            double *fa = s->FA + (size_t)j * 10 * L;
            const fftw_complex *c = s->c5 + (size_t)j * 5 * L * nc + m;
            for (int t = 0; t < 5 * L; t++) {
                fa[2 * t] = creal(c[(size_t)t * nc]);
                fa[2 * t + 1] = cimag(c[(size_t)t * nc]);
            }
        }
        sst_analyse_m(s, m, 0, nlat);
    }
}

void sst_run(sst_model *s, int nsteps)
{
    s->timing = s->phases;
    for (int n = 0; n < sst_passes(s, nsteps); n++) {
        PHASE(s, SST_PH_SPECTRAL);
        sst_begin_step(s, n);
        PHASE(s, SST_PH_LEGENDRE);
        synthesis(s);
        PHASE(s, SST_PH_GRID);
        for (int j = 0; j < s->nlat; j++)
            for (int l = 0; l < s->L; l++) {
                const double *in[4] = {G4(s, j, 0, l), G4(s, j, 1, l), G4(s, j, 2, l),
                                       G4(s, j, 3, l)};
                double *out[5] = {G5(s, j, 0, l), G5(s, j, 1, l), G5(s, j, 2, l), G5(s, j, 3, l),
                                  G5(s, j, 4, l)};
                sst_grid_row(s, j, in, out);
            }
        analysis(s);
        PHASE(s, SST_PH_SPECTRAL);
        for (int m = 0; m <= s->M; m++)
            sst_update_m(s, m, sst_tau(s, n));
        sst_end_step(s);
    }
    if (s->timing)
        hpc_phases_stop(s->timing);
    s->timing = NULL;
}

/* Grid u, v (m/s) and gh (m^2/s^2), [lat][lon], the same on every level ->
 * spectral state at cur: zeta = curl, delta = div of the wind, by the same
 * analysis as the tendencies (exact for these low-degree fields). */
static void set_state(sst_model *s, const double *u, const double *v, const double *gh)
{
    int nlon = s->nlon;
    for (int j = 0; j < s->nlat; j++) {
        double c = sqrt(1.0 - s->mu[j] * s->mu[j]), r = s->rinv[j];
        for (int l = 0; l < s->L; l++)
            for (int i = 0; i < nlon; i++) {
                size_t g = (size_t)j * nlon + i;
                G5(s, j, SST_A, l)[i] = u[g] * c * r;
                G5(s, j, SST_B, l)[i] = v[g] * c * r;
                G5(s, j, SST_E, l)[i] = gh[g] - s->phibar;
                G5(s, j, SST_C, l)[i] = 0.0;
                G5(s, j, SST_D, l)[i] = 0.0;
            }
    }
    analysis(s);
    s->old = 0;
    s->cur = 1;
    s->nxt = 2;
    for (int m = 0; m <= s->M; m++)
        for (long k = s->off[m]; k < s->off[m + 1]; k++)
            for (int l = 0; l < s->L; l++) {
                size_t x = (size_t)k * s->L + l;
                double complex im = I * m;
                s->z[s->cur][x] = im * projP(s, k, SST_B, l) + projH(s, k, SST_A, l);
                s->d[s->cur][x] = im * projP(s, k, SST_A, l) - projH(s, k, SST_B, l);
                s->p[s->cur][x] = projP(s, k, SST_E, l);
                if (k == 0) {  /* n = 0: no mean vorticity or divergence */
                    s->z[s->cur][x] = 0;
                    s->d[s->cur][x] = 0;
                }
            }
}

#define TC_LOOP                                                                  \
    for (int j = 0; j < s->nlat; j++)                                            \
        for (int i = 0; i < s->nlon; i++)

void sst_tc2_height(const sst_model *s, double alpha, double *h)
{
    double u0 = 2 * M_PI * s->a / (12 * 86400.0), gh0 = 2.94e4;
    TC_LOOP {
        double sl = s->mu[j], cl = sqrt(1 - sl * sl);
        double t = -s->coslon[i] * cl * sin(alpha) + sl * cos(alpha);
        h[(size_t)j * s->nlon + i] = (gh0 - (s->a * s->omega * u0 + u0 * u0 / 2) * t * t) / s->g;
    }
}

/* Test case 1: a cosine bell (h0 = 1000 m, radius a/3, centred at 3pi/2, 0)
 * carried once around the sphere in 12 days by solid-body rotation about the
 * axis k = (-sin alpha, 0, cos alpha); the exact solution at time t is the
 * initial bell rotated by u0 t / a about k. */
void sst_tc1_height(const sst_model *s, double alpha, double t, double *h)
{
    double u0 = 2 * M_PI * s->a / (12 * 86400.0), phi = -u0 * t / s->a;
    double k[3] = {-sin(alpha), 0.0, cos(alpha)}, c = cos(phi), sn = sin(phi);
    double xc[3] = {cos(1.5 * M_PI), sin(1.5 * M_PI), 0.0};
    TC_LOOP {
        double cl = sqrt(1 - s->mu[j] * s->mu[j]);
        double x[3] = {cl * s->coslon[i], cl * s->sinlon[i], s->mu[j]};
        double kx = k[0] * x[0] + k[1] * x[1] + k[2] * x[2];
        double cr[3] = {k[1] * x[2] - k[2] * x[1], k[2] * x[0] - k[0] * x[2],
                        k[0] * x[1] - k[1] * x[0]};
        double d = 0;
        for (int e = 0; e < 3; e++)  /* Rodrigues: x rotated by phi about k, dotted with xc */
            d += (x[e] * c + cr[e] * sn + k[e] * kx * (1 - c)) * xc[e];
        double r = s->a * acos(fmax(-1.0, fmin(1.0, d))), R = s->a / 3;
        h[(size_t)j * s->nlon + i] = r < R ? 500.0 * (1 + cos(M_PI * r / R)) : 0.0;
    }
}

/* Solid-body rotation about an axis tilted by alpha, u0 = 2 pi a / 12 days: the wind of test
 * cases 1 and 2. */
static void solid_body_wind(const sst_model *s, double alpha, double *u, double *v)
{
    double u0 = 2 * M_PI * s->a / (12 * 86400.0);
    TC_LOOP {
        double sl = s->mu[j], cl = sqrt(1 - sl * sl);
        size_t g = (size_t)j * s->nlon + i;
        u[g] = u0 * (cl * cos(alpha) + s->coslon[i] * sl * sin(alpha));
        v[g] = -u0 * s->sinlon[i] * sin(alpha);
    }
}

void sst_set_tc1(sst_model *s, double alpha)
{
    size_t n = (size_t)s->nlat * s->nlon;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v), *gh = malloc(n * sizeof *gh);
    s->phibar = 0.0;
    s->advect_only = 1;
    sst_count_flops(s);
    sst_tc1_height(s, alpha, 0.0, gh);
    solid_body_wind(s, alpha, u, v);
    TC_LOOP {
        size_t g = (size_t)j * s->nlon + i;
        gh[g] *= s->g;
        s->fcor[g] = 0.0;
    }
    set_state(s, u, v, gh);
    free(u); free(v); free(gh);
}

void sst_set_tc2(sst_model *s, double alpha)
{
    s->advect_only = 0;
    sst_count_flops(s);
    size_t n = (size_t)s->nlat * s->nlon;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v), *gh = malloc(n * sizeof *gh);
    s->phibar = 2.94e4;
    sst_tc2_height(s, alpha, gh);
    solid_body_wind(s, alpha, u, v);
    TC_LOOP {
        double sl = s->mu[j], cl = sqrt(1 - sl * sl);
        size_t g = (size_t)j * s->nlon + i;
        gh[g] *= s->g;
        s->fcor[g] = 2 * s->omega * (-s->coslon[i] * cl * sin(alpha) + sl * cos(alpha));
    }
    set_state(s, u, v, gh);
    free(u); free(v); free(gh);
}

/* Rossby-Haurwitz wave, R = 4 (Williamson et al. 1992, test case 6). */
static const double RH_W = 7.848e-6, RH_K = 7.848e-6, RH_H0 = 8000.0;
static const int RH_R = 4;

static double rh_gh(const sst_model *s, double sl, double lon)
{
    double R = RH_R, w = RH_W, K = RH_K, W = s->omega, a = s->a;
    double c = sqrt(1 - sl * sl), c2 = c * c, cR = pow(c, R), c2R = cR * cR;
    double A = w / 2 * (2 * W + w) * c2
               + 0.25 * K * K * c2R * ((R + 1) * c2 + (2 * R * R - R - 2) - 2 * R * R / c2);
    double B = 2 * (W + w) * K / ((R + 1) * (R + 2)) * cR * ((R * R + 2 * R + 2) - (R + 1) * (R + 1) * c2);
    double C = 0.25 * K * K * c2R * ((R + 1) * c2 - (R + 2));
    return s->g * RH_H0 + a * a * (A + B * cos(R * lon) + C * cos(2 * R * lon));
}

void sst_tc6_height(const sst_model *s, double t, double *h)
{
    double R = RH_R;
    double nu = (R * (3 + R) * RH_W - 2 * s->omega) / ((1 + R) * (2 + R));
    TC_LOOP {
        double lon = 2 * M_PI * i / s->nlon - nu * t;
        h[(size_t)j * s->nlon + i] = rh_gh(s, s->mu[j], lon) / s->g;
    }
}

void sst_set_tc6(sst_model *s)
{
    s->advect_only = 0;
    sst_count_flops(s);
    size_t n = (size_t)s->nlat * s->nlon;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v), *gh = malloc(n * sizeof *gh);
    double R = RH_R, a = s->a;
    s->phibar = s->g * RH_H0;
    TC_LOOP {
        double sl = s->mu[j], c = sqrt(1 - sl * sl), lon = 2 * M_PI * i / s->nlon;
        size_t g = (size_t)j * s->nlon + i;
        u[g] = a * RH_W * c + a * RH_K * pow(c, R - 1) * (R * sl * sl - c * c) * cos(R * lon);
        v[g] = -a * RH_K * R * pow(c, R - 1) * sl * sin(R * lon);
        gh[g] = rh_gh(s, sl, lon);
        s->fcor[g] = 2 * s->omega * sl;
    }
    set_state(s, u, v, gh);
    free(u); free(v); free(gh);
}

void sst_height(sst_model *s, double *h, int l)
{
    synthesis(s);
    for (int j = 0; j < s->nlat; j++) {
        const double *pg = G4(s, j, 1, l);
        for (int i = 0; i < s->nlon; i++)
            h[(size_t)j * s->nlon + i] = (s->phibar + pg[i]) / s->g;
    }
}

/* Error bounds (normalised l1, l2, linf height errors; the figures and their sources are in
 * docs/proxies.md). Test case 2 is steady: round-off only. Test case 1 at T42 after its 12
 * days: this model with the classic start at STSWM's step (2400 s) has l1 0.23, l2 0.14,
 * linf 0.11 (within 2% of the reference code), at its own default step (600 s) l1 0.033:
 * the bound is 2-5x the reference levels. Below T42 the bell is resolved worse, its error
 * growing like M^-2 (its kink; 4.7x from T42 to T21), and so does the bound. Test case 6
 * after its 14 days, against the wave moved at its nondivergent phase speed (not an exact
 * solution): l1 0.025, l2 0.031, linf 0.063 at every truncation from T5 to T85; the bound is
 * 2.4-6x that. Both errors grow with time (the bell's dispersion, the wave's drift), so the
 * bounds grow in proportion to the days beyond the test cases' own lengths. A run that blows
 * up (1e28 or NaN) is far above them. */
static const double BOUND_TC2 = 1e-11, BOUND_TC1_T42 = 0.5, BOUND_TC6 = 0.15;

double sst_error_bound(int test, int M, double days)
{
    if (test == 2)
        return BOUND_TC2;
    if (test == 1)
        return BOUND_TC1_T42 * fmax(1.0, (42.0 / M) * (42.0 / M)) * fmax(1.0, days / 12.0);
    return BOUND_TC6 * fmax(1.0, days / 14.0);
}

void sst_errors(const sst_model *s, const double *h, const double *ht, double err[3])
{
    double i1 = 0, i1t = 0, i2 = 0, i2t = 0, mx = 0, mxt = 0;
    for (int j = 0; j < s->nlat; j++)
        for (int i = 0; i < s->nlon; i++) {
            size_t g = (size_t)j * s->nlon + i;
            double e = fabs(h[g] - ht[g]);
            i1 += s->w[j] * e;
            i1t += s->w[j] * fabs(ht[g]);
            i2 += s->w[j] * e * e;
            i2t += s->w[j] * ht[g] * ht[g];
            if (e > mx || e != e)
                mx = e != e ? INFINITY : e;
            if (fabs(ht[g]) > mxt)
                mxt = fabs(ht[g]);
        }
    err[0] = i1 / i1t;
    err[1] = sqrt(i2 / i2t);
    err[2] = mx / mxt;
}
