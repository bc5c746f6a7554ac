/* evh1_ppm.c - the Lagrangian step and the remap of one line (evh1_ppm.h).
 *
 * Zones 0 .. N-1 (N = n + 2 EV_G); array index i of an interface array is the interface
 * i + 1/2. How far each stage reaches: parabolas need zones j-2 .. j+2, so the Lagrangian
 * step's parabolas are valid on zones 2 .. N-3, its interfaces on 2 .. N-4, its updated zones
 * on 3 .. N-4; the remap's parabolas (on the moved zones) on 5 .. N-6, its fluxes on 5 .. N-7,
 * and the fixed zones it updates are EV_G .. N-7: the line's own zones.
 */
#include "evh1_ppm.h"
#include "sqrt_row.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEWTON 5        /* two-shock iterations: a fixed count, the same work at every interface */
/* fmax and fmin are calls into libm here (they must handle NaN); the scheme needs neither. */
static inline double maxd(double a, double b) { return a > b ? a : b; }
static inline double mind(double a, double b) { return a < b ? a : b; }

#define SMALLP 1e-30    /* pressure floor: E stays as it is, so energy is still conserved */

/* Every array of the line is a slice of one allocation. */
int ev_line_init(ev_line *l, int n, double gamma)
{
    enum { PER_Q = 5, OTHER = 16 };
    memset(l, 0, sizeof *l);
    l->cap = n + 2 * EV_G;
    l->gamma = gamma;
    size_t c = (size_t)l->cap;
    double *m = l->mem = calloc((PER_Q * EV_NQ + OTHER + RS_N) * c, sizeof(double));
    if (!m)
        return -1;
    for (int q = 0; q < EV_NQ; q++) {
        l->q[q] = m, l->al[q] = m + c, l->da[q] = m + 2 * c, l->a6[q] = m + 3 * c;
        l->fq[q] = m + 4 * c;
        m += PER_Q * c;
    }
    double **rest[OTHER] = {&l->p, &l->dx, &l->dm, &l->pl, &l->dpl, &l->p6, &l->pstar,
                            &l->ustar, &l->fm, &l->w1, &l->w2, &l->cu, &l->cd, &l->eu,
                            &l->e1, &l->e0};
    for (int i = 0; i < OTHER; i++, m += c)
        *rest[i] = m;
    for (int i = 0; i < RS_N; i++, m += c)
        l->rs[i] = m;
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

/* The interpolation coefficients of zones lo .. hi, which depend on the zone widths only
 * (CW84 eqs. 1.6, 1.7 for non-uniform zones), once for all the quantities of a grid:
 * slope_j = cu[j] (a[j+1] - a[j]) + cd[j] (a[j] - a[j-1]) on zones lo-1 .. hi+1, and
 * a(j + 1/2) = a[j] + eu[j] (a[j+1] - a[j]) + e1[j] slope[j+1] + e0[j] slope[j] on lo-1 .. hi. */
static void coefficients(ev_line *l, const double *dx, int lo, int hi)
{
    for (int j = lo - 1; j <= hi + 1; j++) {
        double dm = dx[j - 1], d0 = dx[j], dp = dx[j + 1], f = d0 / (dm + d0 + dp);
        l->cu[j] = f * (2 * dm + d0) / (dp + d0);
        l->cd[j] = f * (d0 + 2 * dp) / (dm + d0);
    }
    for (int j = lo - 1; j <= hi; j++) {
        double dm = dx[j - 1], d0 = dx[j], dp = dx[j + 1], d2 = dx[j + 2];
        double c1 = (dm + d0) / (2 * d0 + dp), c2 = (d2 + dp) / (2 * dp + d0);
        double w = 1 / (dm + d0 + dp + d2);
        l->eu[j] = d0 / (d0 + dp) + 2 * dp * d0 / (d0 + dp) * (c1 - c2) * w;
        l->e1[j] = -d0 * c1 * w;
        l->e0[j] = dp * c2 * w;
    }
}

/* The parabolas of a on zones lo .. hi (coefficients() of the same range first): left edge
 * al, slope da = aR - aL, curvature a6; slopes limited (CW84 eq. 1.8), edges interpolated,
 * then made monotone (eq. 1.10). */
static void parabola(const ev_line *l, const double *a, double *al, double *da, double *a6,
                     int lo, int hi)
{
    double *s = l->w1, *edge = l->w2;  /* edge[j]: a at interface j + 1/2 */
    for (int j = lo - 1; j <= hi + 1; j++) {
        double up = a[j + 1] - a[j], down = a[j] - a[j - 1];
        double d = l->cu[j] * up + l->cd[j] * down;
        s[j] = up * down > 0 ? copysign(mind(fabs(d), 2 * mind(fabs(up), fabs(down))), d) : 0;
    }
    for (int j = lo - 1; j <= hi; j++)
        edge[j] = a[j] + l->eu[j] * (a[j + 1] - a[j]) + l->e1[j] * s[j + 1] + l->e0[j] * s[j];
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

/* The two-shock wave curves (CW84 eqs. 2.7-2.10) of both sides of the interfaces lo .. hi at
 * their current p*: Lagrangian shock speeds W_K = C_K sqrt(1 + (g+1)/2g (p* / p_K - 1)), the
 * velocities u*_K reached from each side and z_K = |dp/du*_K|. Then either a Newton step on
 * p* (where u*_L = u*_R), or (last) u* itself. Every loop is over interfaces, the square
 * roots in hpc_sqrt_row: the loops vectorize. */
static void wave_curves(ev_line *l, int lo, int hi, int last)
{
    double **r = l->rs, gf = 0.5 * (l->gamma + 1) / l->gamma, *ps = l->pstar;
    int n = hi - lo + 1;
    for (int i = lo; i <= hi; i++) {
        r[RS_TL][i] = 1 + gf * (ps[i] / r[RS_PL][i] - 1);
        r[RS_TR][i] = 1 + gf * (ps[i] / r[RS_PR][i] - 1);
    }
    hpc_sqrt_row(n, r[RS_TL] + lo);
    hpc_sqrt_row(n, r[RS_TR] + lo);
    for (int i = lo; i <= hi; i++) {
        double cl = r[RS_CL][i], cr = r[RS_CR][i];
        double wl = cl * r[RS_TL][i], wr = cr * r[RS_TR][i];
        double zl = 2 * wl * wl * wl / (wl * wl + cl * cl), zr = 2 * wr * wr * wr / (wr * wr + cr * cr);
        double usl = r[RS_UL][i] - (ps[i] - r[RS_PL][i]) / wl;
        double usr = r[RS_UR][i] + (ps[i] - r[RS_PR][i]) / wr;
        if (last)
            l->ustar[i] = (zl * usl + zr * usr) / (zl + zr);
        else
            ps[i] = maxd(ps[i] - zl * zr * (usr - usl) / (zl + zr), r[RS_FLOOR][i]);
    }
}

/* Two-shock Riemann solver on the interfaces lo .. hi (states in l->rs) -> pstar, ustar:
 * Newton on p* from the acoustic guess, a fixed NEWTON iterations. */
static void riemann(ev_line *l, int lo, int hi)
{
    double **r = l->rs;
    for (int i = lo; i <= hi; i++) {
        double pl = r[RS_PL][i], pr = r[RS_PR][i], cl = r[RS_CL][i], cr = r[RS_CR][i];
        r[RS_FLOOR][i] = 1e-10 * mind(pl, pr);
        l->pstar[i] = maxd((cr * pl + cl * pr - cl * cr * (r[RS_UR][i] - r[RS_UL][i])) / (cl + cr),
                           r[RS_FLOOR][i]);
    }
    for (int it = 0; it < NEWTON; it++)
        wave_curves(l, lo, hi, 0);
    wave_curves(l, lo, hi, 1);
}

/* The Lagrangian step: interface states averaged over the domain of dependence of each
 * side's sound wave, the Riemann problems, then velocity, energy and the moved zones. */
static void lagrange(ev_line *l, int N, double dt)
{
    double g = l->gamma, *rho = l->q[EV_RHO], *u = l->q[EV_U], *E = l->q[EV_E];
    double **r = l->rs, *c = r[RS_C];
    coefficients(l, l->dx, 2, N - 3);
    parabola(l, l->p, l->pl, l->dpl, l->p6, 2, N - 3);
    parabola(l, u, l->al[EV_U], l->da[EV_U], l->a6[EV_U], 2, N - 3);
    const double *ua = l->al[EV_U], *ud = l->da[EV_U], *u6 = l->a6[EV_U];
    for (int i = 2; i <= N - 3; i++)
        c[i] = g * l->p[i] / rho[i];
    hpc_sqrt_row(N - 4, c + 2);
    for (int i = 2; i <= N - 4; i++) {
        double yl = c[i] * dt / l->dx[i], yr = c[i + 1] * dt / l->dx[i + 1];
        r[RS_PL][i] = right_avg(l->pl, l->dpl, l->p6, i, yl);
        r[RS_UL][i] = right_avg(ua, ud, u6, i, yl);
        r[RS_PR][i] = left_avg(l->pl, l->dpl, l->p6, i + 1, yr);
        r[RS_UR][i] = left_avg(ua, ud, u6, i + 1, yr);
        r[RS_CL][i] = g * r[RS_PL][i] * rho[i];
        r[RS_CR][i] = g * r[RS_PR][i] * rho[i + 1];
    }
    hpc_sqrt_row(N - 5, r[RS_CL] + 2);
    hpc_sqrt_row(N - 5, r[RS_CR] + 2);
    riemann(l, 2, N - 4);
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
    coefficients(l, l->dx, 5, N - 6);
    for (int q = 0; q < EV_NQ; q++)
        parabola(l, l->q[q], l->al[q], l->da[q], l->a6[q], 5, N - 6);
    for (int i = 5; i <= N - 7; i++) {
        /* moving right (d >= 0): the right part of zone i, else the left part of zone i+1 */
        double d = dt * l->ustar[i], s = d >= 0 ? 1 : -1;
        int j = d >= 0 ? i : i + 1;
        double y = fabs(d) / l->dx[j], half = 0.5 * y, m = 1 - 2 * y / 3;
        for (int q = 0; q < EV_NQ; q++) {
            const double *al = l->al[q], *da = l->da[q];
            double edge = d >= 0 ? al[j] + da[j] : al[j];
            double avg = edge - s * half * (da[j] - s * m * l->a6[q][j]);
            if (q == EV_RHO)
                l->fm[i] = d * avg;
            else
                l->fq[q][i] = l->fm[i] * avg;
        }
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
        l->p[i] = maxd(g1 * rho[i] * (E[i] - 0.5 * (u * u + v * v + w * w)), SMALLP);
        l->dx[i] = h;
        l->dm[i] = rho[i] * h;
    }
    lagrange(l, N, dt);
    remap(l, N, h, dt);
}
