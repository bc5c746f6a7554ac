/* column_physics.c - the column-physics kernel (see column.c for the method
 * and the operation count). */
/* Fortran has no errno: without it sqrt vectorizes (exp still calls libm). */
#pragma GCC optimize("no-math-errno")

#include "column_physics.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Physical-looking constants; only their being fixed matters. */
#define RG 0.10197      /* 1 / g */
#define C1 0.35
#define C2 1e-4
#define RT0 (1.0 / 250.0)
#define SB (5.67e-8 * 3.9e9)
#define C4 0.8
#define RD 287.04
#define KAP 1.7
#define EPS 1e-3
#define CC 0.25
#define CPG (1004.6 / 9.80616)

/* Inputs of global column c: smooth, deterministic, different per column. */
static double in_T(long c, int k) { return 215.0 + 3.5 * k + 12.0 * sin(0.37 * (double)c + 0.5 * k); }
static double in_q(long c, int k) { return 1e-3 * (1.0 + 0.5 * cos(0.11 * (double)c + 0.3 * k)); }
static double in_pint(long c, int k, int nlev)
{
    double ps = 1e5 * (1.0 + 0.02 * sin(0.05 * (double)c));
    double s = (double)k / nlev;
    return 100.0 + (ps - 100.0) * s * sqrt(s);
}

static double *alloc0(size_t n)
{
    double *p;
    if (posix_memalign((void **)&p, 64, n * sizeof *p))
        hpc_fail("cannot allocate %zu doubles", n);
    memset(p, 0, n * sizeof *p);
    return p;
}

void column_alloc(column_state *s, long ncols, int nlev, int nlon)
{
    s->ncols = ncols;
    s->nlev = nlev;
    s->nlon = nlon;
    s->nchunks = (int)((ncols + nlon - 1) / nlon);
    size_t n = (size_t)s->nchunks * (size_t)nlev * (size_t)nlon;
    size_t ni = (size_t)s->nchunks * (size_t)(nlev + 1) * (size_t)nlon;
    s->T = alloc0(n);
    s->q = alloc0(n);
    s->pint = alloc0(ni);
    s->u = alloc0(n);
    s->B = alloc0(n);
    s->dp = alloc0(n);
    s->rho = alloc0(n);
    s->ucum = alloc0(n);
    s->flux = alloc0(n);
    s->heat = alloc0(n);
    for (int ch = 0; ch < s->nchunks; ch++)
        for (int i = 0; i < nlon; i++) {
            long c = (long)ch * nlon + i;
            if (c >= ncols)
                c = ncols - 1;  /* padding */
            for (int k = 0; k < nlev; k++) {
                size_t x = ((size_t)ch * nlev + k) * nlon + i;
                s->T[x] = in_T(c, k);
                s->q[x] = in_q(c, k);
            }
            for (int k = 0; k <= nlev; k++)
                s->pint[((size_t)ch * (nlev + 1) + k) * nlon + i] = in_pint(c, k, nlev);
        }
}

void column_free(column_state *s)
{
    free(s->T); free(s->q); free(s->pint); free(s->u); free(s->B);
    free(s->dp); free(s->rho); free(s->ucum); free(s->flux); free(s->heat);
}

/* One chunk of n columns; arrays point at the chunk's [level][n] blocks. */
static void chunk(int L, int n, const double *restrict T, const double *restrict q,
                  const double *restrict pint, double *restrict u, double *restrict B,
                  double *restrict dp, double *restrict rho, double *restrict ucum,
                  double *restrict flux, double *restrict heat)
{
    for (int k = 0; k < L; k++) {
        const double *p0 = pint + (size_t)k * n, *p1 = p0 + n;
        double *uk = u + (size_t)k * n, *ck = ucum + (size_t)k * n;
        const double *cprev = k ? ucum + (size_t)(k - 1) * n : NULL;
        for (int i = 0; i < n; i++) {
            size_t x = (size_t)k * n + i;
            double d = p1[i] - p0[i];
            double w = q[x] * d * RG;
            double uu = sqrt(w * C1 + C2);
            double t = T[x] * RT0;
            double t2 = t * t;
            B[x] = SB * t2 * t2;
            double tr = exp(-C4 * uu * t);
            rho[x] = (0.5 * (p0[i] + p1[i])) / (RD * T[x]);
            dp[x] = d;
            uk[i] = uu;
            ck[i] = (cprev ? cprev[i] : 0.0) + uu * tr;
            flux[x] = 0.0;
        }
    }
    for (int k1 = 0; k1 < L; k1++)
        for (int k2 = k1 + 1; k2 < L; k2++) {
            double *f1 = flux + (size_t)k1 * n, *f2 = flux + (size_t)k2 * n;
            const double *c1 = ucum + (size_t)k1 * n, *c2 = ucum + (size_t)k2 * n;
            const double *b1 = B + (size_t)k1 * n, *b2 = B + (size_t)k2 * n;
            for (int i = 0; i < n; i++) {
                double du = c2[i] - c1[i];
                double a = 1.0 - exp(-KAP * du);
                double sq = sqrt(du + EPS);
                double ab = a * sq / (1.0 + CC * du);
                double x = ab * (b2[i] - b1[i]);
                f1[i] += x;
                f2[i] -= x;
            }
        }
    for (size_t x = 0; x < (size_t)L * n; x++)
        heat[x] = flux[x] * CPG / (dp[x] * rho[x]);
}

void column_run(column_state *s)
{
    int L = s->nlev, n = s->nlon;
    for (int ch = 0; ch < s->nchunks; ch++) {
        size_t o = (size_t)ch * L * n, oi = (size_t)ch * (L + 1) * n;
        chunk(L, n, s->T + o, s->q + o, s->pint + oi, s->u + o, s->B + o, s->dp + o,
              s->rho + o, s->ucum + o, s->flux + o, s->heat + o);
    }
}

double column_heating(const column_state *s, long c, int k)
{
    long ch = c / s->nlon, i = c % s->nlon;
    return s->heat[((size_t)ch * s->nlev + k) * s->nlon + i];
}

void column_corrupt(column_state *s, long c, int k)
{
    long ch = c / s->nlon, i = c % s->nlon;
    s->heat[((size_t)ch * s->nlev + k) * s->nlon + i] *= 1.001;
}

/* Column by column in long double; pairs visited with k2 outer, so the
 * fluxes accumulate in another order than in the kernel. */
void column_reference(long ncols, int L, double *ref)
{
    long double *u = malloc((size_t)L * sizeof *u), *B = malloc((size_t)L * sizeof *B),
                *dp = malloc((size_t)L * sizeof *dp), *rho = malloc((size_t)L * sizeof *rho),
                *uc = malloc((size_t)L * sizeof *uc), *f = malloc((size_t)L * sizeof *f);
    if (!u || !B || !dp || !rho || !uc || !f)
        hpc_fail("cannot allocate the reference's work arrays");
    for (long c = 0; c < ncols; c++) {
        long double cum = 0.0L;
        for (int k = 0; k < L; k++) {
            long double p0 = in_pint(c, k, L), p1 = in_pint(c, k + 1, L);
            long double T = in_T(c, k), q = in_q(c, k);
            dp[k] = p1 - p0;
            u[k] = sqrtl(q * dp[k] * (long double)RG * (long double)C1 + (long double)C2);
            long double t = T * (long double)RT0;
            B[k] = (long double)(SB) * t * t * t * t;
            cum += u[k] * expl(-(long double)C4 * u[k] * t);
            uc[k] = cum;
            rho[k] = (p0 + p1) / 2.0L / ((long double)RD * T);
            f[k] = 0.0L;
        }
        for (int k2 = L - 1; k2 > 0; k2--)
            for (int k1 = 0; k1 < k2; k1++) {
                long double du = uc[k2] - uc[k1];
                long double x = (1.0L - expl(-(long double)KAP * du)) * sqrtl(du + (long double)EPS)
                                / (1.0L + (long double)CC * du) * (B[k2] - B[k1]);
                f[k1] += x;
                f[k2] -= x;
            }
        for (int k = 0; k < L; k++)
            ref[c * L + k] = (double)(f[k] * (long double)CPG / (dp[k] * rho[k]));
    }
    free(u); free(B); free(dp); free(rho); free(uc); free(f);
}

/* The counts of column.c's header, per column of L levels. */
static double pairs(int L) { return (double)L * (L - 1) / 2.0; }
double column_flops_per_column(int L) { return 22.0 * L + 14.0 * pairs(L); }
double column_sqrt_per_column(int L) { return L + pairs(L); }
double column_exp_per_column(int L) { return L + pairs(L); }
double column_div_per_column(int L) { return 2.0 * L + pairs(L); }
