/* evh1_ppm.c - the Lagrangian step and the remap of one line (evh1_ppm.h).
 *
 * Zones 0 .. N-1 (N = n + 2 EV_G); array index i of an interface array is the interface
 * i + 1/2. How far each stage reaches: parabolas need zones j-2 .. j+2, so the Lagrangian
 * step's parabolas are valid on zones 2 .. N-3, its interfaces on 2 .. N-4, its updated zones
 * on 3 .. N-4; the remap's parabolas (on the moved zones) on 5 .. N-6, its fluxes on 5 .. N-7,
 * and the fixed zones it updates are EV_G .. N-7: the line's own zones.
 */
#include "evh1_ppm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEWTON 5        /* two-shock iterations (VH-1 also takes a fixed few) */
#define SMALLP 1e-30    /* pressure floor: E stays as it is, so energy is still conserved */

/* Every array of the line is a slice of one allocation. */
int ev_line_init(ev_line *l, int n, double gamma)
{
    enum { PER_Q = 5, OTHER = 11 };
    memset(l, 0, sizeof *l);
    l->cap = n + 2 * EV_G;
    l->gamma = gamma;
    size_t c = (size_t)l->cap;
    double *m = l->mem = calloc((PER_Q * EV_NQ + OTHER) * c, sizeof(double));
    if (!m)
        return -1;
    for (int q = 0; q < EV_NQ; q++) {
        l->q[q] = m, l->al[q] = m + c, l->da[q] = m + 2 * c, l->a6[q] = m + 3 * c;
        l->fq[q] = m + 4 * c;
        m += PER_Q * c;
    }
    double **rest[OTHER] = {&l->p, &l->dx, &l->dm, &l->pl, &l->dpl, &l->p6, &l->pstar,
                            &l->ustar, &l->fm, &l->w1, &l->w2};
    for (int i = 0; i < OTHER; i++, m += c)
        *rest[i] = m;
    return 0;
}

void ev_line_free(ev_line *l)
{
    free(l->mem);
    memset(l, 0, sizeof *l);
}

void ev_ghosts(ev_line *l, int n, ev_boundary b)
{
    double *const *f = l->q;
    for (int k = 0; k < EV_G; k++) {
        /* periodic: the zone n away (modulo n, so lines shorter than EV_G wrap too) */
        int lo = b == EV_PERIODIC ? EV_G + ((k - EV_G) % n + n) % n : EV_G;
        int hi = b == EV_PERIODIC ? EV_G + k % n : EV_G + n - 1;
        for (int q = 0; q < EV_NQ; q++) {
            f[q][k] = f[q][lo];
            f[q][EV_G + n + k] = f[q][hi];
        }
    }
}

static double sgn(double x) { return x < 0 ? -1.0 : 1.0; }

/* Limited slopes s[j] of a on zones lo-1 .. hi+1 (CW84 eqs. 1.7, 1.8, non-uniform zones). */
static void slopes(const double *a, const double *dx, double *s, int lo, int hi)
{
    for (int j = lo - 1; j <= hi + 1; j++) {
        double dm = dx[j - 1], d0 = dx[j], dp = dx[j + 1];
        double up = a[j + 1] - a[j], down = a[j] - a[j - 1];
        double d = d0 / (dm + d0 + dp) * ((2 * dm + d0) / (dp + d0) * up +
                                         (d0 + 2 * dp) / (dm + d0) * down);
        s[j] = up * down > 0 ? sgn(d) * fmin(fabs(d), 2 * fmin(fabs(up), fabs(down))) : 0;
    }
}

/* The parabolas of a on zones lo .. hi: left edge al, slope da = aR - aL, curvature a6
 * (CW84 eqs. 1.6, 1.10). Edges interpolated from zones j-1 .. j+2, then made monotone. */
static void parabola(const ev_line *l, const double *a, const double *dx, double *al,
                     double *da, double *a6, int lo, int hi)
{
    double *s = l->w1, *edge = l->w2;  /* edge[j]: a at interface j + 1/2 */
    slopes(a, dx, s, lo, hi);
    for (int j = lo - 1; j <= hi; j++) {
        double dm = dx[j - 1], d0 = dx[j], dp = dx[j + 1], d2 = dx[j + 2];
        double up = a[j + 1] - a[j];
        double c1 = (dm + d0) / (2 * d0 + dp), c2 = (d2 + dp) / (2 * dp + d0);
        edge[j] = a[j] + d0 / (d0 + dp) * up +
                  (2 * dp * d0 / (d0 + dp) * (c1 - c2) * up - d0 * c1 * s[j + 1] +
                   dp * c2 * s[j]) / (dm + d0 + dp + d2);
    }
    for (int j = lo; j <= hi; j++) {
        double aL = edge[j - 1], aR = edge[j], m = a[j];
        if ((aR - m) * (m - aL) <= 0) {
            aL = aR = m;
        } else {
            double d = aR - aL, c = d * (m - 0.5 * (aL + aR));
            if (c > d * d / 6)
                aL = 3 * m - 2 * aR;
            else if (-d * d / 6 > c)
                aR = 3 * m - 2 * aL;
        }
        al[j] = aL;
        da[j] = aR - aL;
        a6[j] = 6 * (m - 0.5 * (aL + aR));
    }
}

/* The parabola's average over the right-hand fraction y of zone j, and over the left. */
static double right_avg(const double *al, const double *da, const double *a6, int j, double y)
{
    return al[j] + da[j] - 0.5 * y * (da[j] - (1 - 2 * y / 3) * a6[j]);
}

static double left_avg(const double *al, const double *da, const double *a6, int j, double y)
{
    return al[j] + 0.5 * y * (da[j] + (1 - 2 * y / 3) * a6[j]);
}

/* Two-shock Riemann solver (CW84 eqs. 2.7-2.10) on states (p, u) with Lagrangian sound
 * speeds C = sqrt(gamma p rho): the interface's pressure and velocity. */
static void two_shock(double g, double pl, double ul, double cl, double pr, double ur,
                      double cr, double *ps, double *us)
{
    double gf = 0.5 * (g + 1) / g, floor = 1e-10 * fmin(pl, pr);
    double p = fmax((cr * pl + cl * pr - cl * cr * (ur - ul)) / (cl + cr), floor);
    double zl = cl, zr = cr, usl = ul, usr = ur;
    for (int it = 0; it < NEWTON; it++) {
        double wl = cl * sqrt(1 + gf * (p / pl - 1)), wr = cr * sqrt(1 + gf * (p / pr - 1));
        zl = 2 * wl * wl * wl / (wl * wl + cl * cl);
        zr = 2 * wr * wr * wr / (wr * wr + cr * cr);
        usl = ul - (p - pl) / wl;
        usr = ur + (p - pr) / wr;
        p = fmax(p - zl * zr * (usr - usl) / (zl + zr), floor);
    }
    *ps = p;
    *us = (zl * usl + zr * usr) / (zl + zr);
}

/* The Lagrangian step: interface states averaged over the domain of dependence of each
 * side's sound wave, the Riemann problems, then velocity, energy and the moved zones. */
static void lagrange(ev_line *l, int N, double dt)
{
    double g = l->gamma, *rho = l->q[EV_RHO], *u = l->q[EV_U], *E = l->q[EV_E];
    parabola(l, l->p, l->dx, l->pl, l->dpl, l->p6, 2, N - 3);
    parabola(l, u, l->dx, l->al[EV_U], l->da[EV_U], l->a6[EV_U], 2, N - 3);
    const double *ua = l->al[EV_U], *ud = l->da[EV_U], *u6 = l->a6[EV_U];
    for (int i = 2; i <= N - 4; i++) {
        double yl = sqrt(g * l->p[i] / rho[i]) * dt / l->dx[i];
        double yr = sqrt(g * l->p[i + 1] / rho[i + 1]) * dt / l->dx[i + 1];
        double pL = right_avg(l->pl, l->dpl, l->p6, i, yl), uL = right_avg(ua, ud, u6, i, yl);
        double pR = left_avg(l->pl, l->dpl, l->p6, i + 1, yr);
        double uR = left_avg(ua, ud, u6, i + 1, yr);
        two_shock(g, pL, uL, sqrt(g * pL * rho[i]), pR, uR, sqrt(g * pR * rho[i + 1]),
                  &l->pstar[i], &l->ustar[i]);
    }
    for (int i = 3; i <= N - 4; i++) {
        double k = dt / l->dm[i];
        u[i] -= k * (l->pstar[i] - l->pstar[i - 1]);
        E[i] -= k * (l->pstar[i] * l->ustar[i] - l->pstar[i - 1] * l->ustar[i - 1]);
        l->dx[i] += dt * (l->ustar[i] - l->ustar[i - 1]);
        rho[i] = l->dm[i] / l->dx[i];
    }
}

/* The remap: through each fixed interface flows the part of the moved zone beside it that
 * lies across it (dt u*, less than a zone at CFL < 1): mass by rho's parabola, the
 * quantities as mass times their parabolas' average; each flux leaves one zone and enters
 * the next, so the totals are kept to round-off. */
static void remap(ev_line *l, int N, double h, double dt)
{
    for (int q = 0; q < EV_NQ; q++)
        parabola(l, l->q[q], l->dx, l->al[q], l->da[q], l->a6[q], 5, N - 6);
    for (int i = 5; i <= N - 7; i++) {
        double d = dt * l->ustar[i];
        int j = d >= 0 ? i : i + 1;
        double y = fabs(d) / l->dx[j];
        double (*avg)(const double *, const double *, const double *, int, double) =
            d >= 0 ? right_avg : left_avg;
        l->fm[i] = d * avg(l->al[EV_RHO], l->da[EV_RHO], l->a6[EV_RHO], j, y);
        for (int q = EV_U; q < EV_NQ; q++)
            l->fq[q][i] = l->fm[i] * avg(l->al[q], l->da[q], l->a6[q], j, y);
    }
    for (int i = EV_G; i <= N - 7; i++) {
        double m = l->dm[i] + l->fm[i - 1] - l->fm[i];
        for (int q = EV_U; q < EV_NQ; q++)
            l->q[q][i] = (l->dm[i] * l->q[q][i] + l->fq[q][i - 1] - l->fq[q][i]) / m;
        l->q[EV_RHO][i] = m / h;
    }
}

void ev_sweep(ev_line *l, int n, double h, double dt)
{
    int N = n + 2 * EV_G;
    double *rho = l->q[EV_RHO], *E = l->q[EV_E], g1 = l->gamma - 1;
    for (int i = 0; i < N; i++) {
        double u = l->q[EV_U][i], v = l->q[EV_V][i], w = l->q[EV_W][i];
        l->p[i] = fmax(g1 * rho[i] * (E[i] - 0.5 * (u * u + v * v + w * w)), SMALLP);
        l->dx[i] = h;
        l->dm[i] = rho[i] * h;
    }
    lagrange(l, N, dt);
    remap(l, N, h, dt);
}
