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
 *  2. Legendre synthesis per m (sst_legendre.c): over the northern hemisphere only, the
 *     symmetric and antisymmetric parts of the fields, four matrix products
 *     (nh x nm/2) x (nm/2 x 8L or 4L); north = S + A, south = S - A.
 *  3. inverse FFT (c2r, hfft.h) of 4L fields per latitude.
 *  4. grid: A = U eta r, B = V eta r, C = U Phi' r, D = V Phi' r with
 *     r = 1/(a(1-mu^2)), and E.
 *  5. forward FFT (r2c) of 5L fields per latitude.
 *  6. Legendre analysis per m: the north/south sums and differences of the
 *     Fourier coefficients times the weights w/nlon, four products
 *     (nm/2 x nh) x (nh x 8L or 6L) with the same tables; the mu-derivatives are
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
 *   Legendre  sum_m 2 nh nm (8L + 4L) + 2 nh nm (8L + 6L) + 8 L nlat + 40 L (nlat / 2)
 *             (nm = M - m + 1, nh = (nlat + 1) / 2 hemisphere rows: the work done after the
 *             equatorial symmetry, half the naive 2 nlat nm (12L + 14L); 8 L nlat forms
 *             north and south from S and A, 40 L per north/south pair the analysis'
 *             weighted sums and differences, 10 L the equator's (odd nlat);
 *             sst_legendre_flops_m)
 *   grid      11 L nlat nlon
 *   spectral  L ncoef (8 + 16 + s) with s = 20 explicit, 28 semi-implicit,
 *             4 for test case 1 (only Phi' advances; the winds are fixed),
 *             plus 4 ncoef (semi-implicit: the per-coefficient factors) and
 *             30 L ncoef with the Robert-Asselin filter on (not on the start passes);
 *             ncoef = (M+1)(M+2)/2.
 */
#include "sst_model.h"
#include "check.h"
#include "timer.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenBLAS would otherwise start a thread per core in every rank. */
extern void openblas_set_num_threads(int) __attribute__((weak));

static void *xalloc(size_t bytes)
{
    void *p = hfft_malloc(bytes ? bytes : 1);
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

void sst_count_flops(sst_model *s)
{
    /* FFTW's fftw_flops counts a SIMD codelet's vector operations once, not per element, so
     * the FFTs are counted by benchFFT's convention instead: 2.5 N log2 N per real transform. */
    double ntrans = 9.0 * s->L * s->nlat;
    s->fft_flops = ntrans * 2.5 * s->nlon * log2((double)s->nlon);
    double L = s->L, nlat = s->nlat;
    /* The work actually done after the equatorial symmetry (sst_legendre.c), not the naive
     * full-sphere sums: an MFlop/s rate of the naive count would credit work never done. */
    s->legendre_flops = 0;
    for (int m = 0; m <= s->M; m++)
        s->legendre_flops += sst_legendre_flops_m(s, m, 0, s->nh);
    s->grid_flops = 11 * L * nlat * s->nlon;
    int si = s->scheme == SST_SEMI_IMPLICIT && !s->advect_only;
    double upd = s->advect_only ? 4 : si ? 28 : 20;
    double per = 8 + 16 + upd + (s->robert > 0 ? 30 : 0);
    s->spectral_flops = per * L * (double)s->ncoef + (si ? 4.0 * (double)s->ncoef : 0.0);
    s->flops_step = s->fft_flops + s->legendre_flops + s->grid_flops + s->spectral_flops;
}

const char *const sst_start_names[2] = {"euler", "classic"};

/* Grid constants, the Legendre tables and the per-coefficient factors (start-up, timed). */
static void init_tables(sst_model *s)
{
    int M = s->M, nlat = s->nlat, nlon = s->nlon;
    s->mu = xalloc(nlat * sizeof(double));
    s->w = xalloc(nlat * sizeof(double));
    s->rinv = xalloc(nlat * sizeof(double));
    s->r2 = xalloc(nlat * sizeof(double));
    double t0 = hpc_now();
    sst_gauss(nlat, s->mu, s->w);
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
    size_t np = (size_t)s->nh * s->ncoef;  /* northern rows only: the symmetry */
    s->P = xalloc(np * sizeof(double));
    s->H = xalloc(np * sizeof(double));
    sst_legendre_tables(s);
    s->startup_tables = hpc_now() - t0;
    s->nn1 = xalloc(s->ncoef * sizeof(double));
    s->ainv = xalloc(s->ncoef * sizeof(double));
    for (int m = 0; m <= M; m++)
        for (int n = m; n <= M; n++) {
            long k = s->off[m] + n - m;
            s->nn1[k] = n * (n + 1.0) / (s->a * s->a);
            s->ainv[k] = n ? s->a / (n * (n + 1.0)) : 0.0;
        }
}

/* The state (three time levels) and the transforms' work arrays. */
static void init_work(sst_model *s)
{
    int L = s->L, nlat = s->nlat, nlon = s->nlon;
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
    s->FS = xalloc((size_t)s->nh * 8 * L * sizeof(double));
    s->FN = xalloc((size_t)s->nh * 8 * L * sizeof(double));
    s->ES = xalloc((size_t)s->nh * 10 * L * sizeof(double));
    s->ED = xalloc((size_t)s->nh * 10 * L * sizeof(double));
    s->FA = xalloc((size_t)nlat * 10 * L * sizeof(double));
}

/* The whole grid's transform arrays (the serial step's, sst_synthesis and sst_analysis). */
static void init_grid(sst_model *s)
{
    int L = s->L, nlat = s->nlat, nlon = s->nlon;
    s->g4 = xalloc((size_t)nlat * 4 * L * nlon * sizeof(double));
    s->g5 = xalloc((size_t)nlat * 5 * L * nlon * sizeof(double));
    s->c4 = xalloc((size_t)nlat * 4 * L * s->nc * sizeof(hfft_complex));
    s->c5 = xalloc((size_t)nlat * 5 * L * s->nc * sizeof(hfft_complex));
}

/* Plans for one latitude's fields, run once per latitude, measured (FFTW; hpceval's own FFT
 * measures nothing) within a time limit:
 * FFTW_MEASURE over the whole grid took 0.3 s at T85 (most of a 5-day run's start-up beside
 * MPI_Init), FFTW_ESTIMATE's plans ran about 1.7x slower; measuring one latitude's batch for
 * at most 0.005 s per plan (0.011 s in all) gives plans as fast as with 0.02 s or 0.1 s
 * (the fft phase at T42, T85 and T170). */
static void init_plans(sst_model *s)
{
    int L = s->L, n = s->nlon;
    double t0 = hpc_now();
    s->inv = hfft_plan_c2r(n, 4 * L, s->c4, s->nc, s->g4, n, 0.005);
    s->fwd = hfft_plan_r2c(n, 5 * L, s->g5, n, s->c5, s->nc, 0.005);
    if (!s->inv || !s->fwd)
        hpc_fail("sst: %s could not plan the transforms", hfft_library());
    s->startup_plans = hpc_now() - t0;
}

void sst_init(sst_model *s, int M, int nlon, int nlat, int L, int scheme, double dt,
              double robert, int start)
{
    sst_init_spectral(s, M, nlon, nlat, L, scheme, dt, robert, start);
    init_grid(s);
    init_plans(s);
}

void sst_init_spectral(sst_model *s, int M, int nlon, int nlat, int L, int scheme, double dt,
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
    s->nh = (nlat + 1) / 2;
    s->off = malloc((size_t)(M + 2) * sizeof *s->off);
    if (!s->off)
        hpc_fail("sst: out of memory");
    s->off[0] = 0;
    for (int m = 0; m <= M; m++)
        s->off[m + 1] = s->off[m] + (M - m + 1);
    s->ncoef = s->off[M + 1];
    init_tables(s);
    init_work(s);
    sst_count_flops(s);
}

double complex *sst_save_state(const sst_model *s)
{
    size_t ns = (size_t)s->ncoef * s->L;
    double complex *saved = malloc(3 * ns * sizeof *saved);
    if (saved) {
        memcpy(saved, s->z[s->cur], ns * sizeof *saved);
        memcpy(saved + ns, s->d[s->cur], ns * sizeof *saved);
        memcpy(saved + 2 * ns, s->p[s->cur], ns * sizeof *saved);
    }
    return saved;
}

void sst_restore_state(sst_model *s, const double complex *saved)
{
    size_t ns = (size_t)s->ncoef * s->L;
    s->old = 0;   /* as the test cases' initial states (sst_cases.c) */
    s->cur = 1;
    s->nxt = 2;
    memcpy(s->z[s->cur], saved, ns * sizeof *saved);
    memcpy(s->d[s->cur], saved + ns, ns * sizeof *saved);
    memcpy(s->p[s->cur], saved + 2 * ns, ns * sizeof *saved);
}

void sst_free(sst_model *s)
{
    hfft_destroy(s->inv);
    hfft_destroy(s->fwd);
    void *ptrs[] = {s->mu, s->w, s->rinv, s->r2, s->coslon, s->sinlon, s->P, s->H,
                    s->nn1, s->ainv, s->fcor, s->SP, s->SH, s->AP, s->AH, s->FS,
                    s->FN, s->ES, s->ED, s->FA, s->g4, s->g5, s->c4, s->c5};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
        hfft_free(ptrs[i]);
    for (int t = 0; t < 3; t++) {
        hfft_free(s->z[t]);
        hfft_free(s->d[t]);
        hfft_free(s->p[t]);
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
            double complex pa = sst_projP(s, k, SST_A, l), pbb = sst_projP(s, k, SST_B, l),
                           pcc = sst_projP(s, k, SST_C, l), pe = sst_projP(s, k, SST_E, l),
                           ha = sst_projH(s, k, SST_A, l), hb = sst_projH(s, k, SST_B, l),
                           hd = sst_projH(s, k, SST_D, l);
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
