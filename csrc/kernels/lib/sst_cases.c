/* sst_cases.c - Williamson et al. (1992) test cases 1, 2 and 6 for the spectral model
 * (sst_model.c): initial states, analytic heights, error norms and the bounds a correct run
 * stays below. */
#include "sst_model.h"

#include <math.h>
#include <stdlib.h>

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
                SST_G5(s, j, SST_A, l)[i] = u[g] * c * r;
                SST_G5(s, j, SST_B, l)[i] = v[g] * c * r;
                SST_G5(s, j, SST_E, l)[i] = gh[g] - s->phibar;
                SST_G5(s, j, SST_C, l)[i] = 0.0;
                SST_G5(s, j, SST_D, l)[i] = 0.0;
            }
    }
    sst_analysis(s);
    s->old = 0;
    s->cur = 1;
    s->nxt = 2;
    for (int m = 0; m <= s->M; m++)
        for (long k = s->off[m]; k < s->off[m + 1]; k++)
            for (int l = 0; l < s->L; l++) {
                size_t x = (size_t)k * s->L + l;
                double complex im = I * m;
                s->z[s->cur][x] = im * sst_projP(s, k, SST_B, l) + sst_projH(s, k, SST_A, l);
                s->d[s->cur][x] = im * sst_projP(s, k, SST_A, l) - sst_projH(s, k, SST_B, l);
                s->p[s->cur][x] = sst_projP(s, k, SST_E, l);
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
    sst_synthesis(s);
    for (int j = 0; j < s->nlat; j++) {
        const double *pg = SST_G4(s, j, 1, l);
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
