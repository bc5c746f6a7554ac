/* hydro_exact.c - Toro's exact Riemann solver (hydro_exact.h). */
#include "hydro_exact.h"

#include <math.h>

/* Toro's f_K(p) (the velocity change across the K wave) and its derivative. */
static double pressure_fn(double p, hy_state1 k, double c, double g, double *deriv)
{
    if (p > k.p) { /* shock */
        double a = 2 / ((g + 1) * k.rho), bk = (g - 1) / (g + 1) * k.p;
        double q = sqrt(a / (bk + p));
        *deriv = q * (1 - (p - k.p) / (2 * (bk + p)));
        return (p - k.p) * q;
    }
    double pr = p / k.p; /* rarefaction */
    *deriv = 1 / (k.rho * c) * pow(pr, -(g + 1) / (2 * g));
    return 2 * c / (g - 1) * (pow(pr, (g - 1) / (2 * g)) - 1);
}

int hy_riemann_solve(hy_riemann *rs, hy_state1 l, hy_state1 r, double g)
{
    rs->l = l;
    rs->r = r;
    rs->gamma = g;
    rs->cl = sqrt(g * l.p / l.rho);
    rs->cr = sqrt(g * r.p / r.rho);
    double du = r.u - l.u, z = (g - 1) / (2 * g);
    if (2 * (rs->cl + rs->cr) / (g - 1) <= du)
        return -1; /* the rarefactions would leave a vacuum */
    /* The two-rarefaction guess: exact when both waves are rarefactions. */
    double p = pow((rs->cl + rs->cr - 0.5 * (g - 1) * du) /
                       (rs->cl / pow(l.p, z) + rs->cr / pow(r.p, z)), 1 / z);
    for (int it = 1; it <= 100; it++) {
        double dl, dr;
        double f = pressure_fn(p, l, rs->cl, g, &dl) + pressure_fn(p, r, rs->cr, g, &dr) + du;
        double pn = fmax(p - f / (dl + dr), 1e-14 * p);
        double change = 2 * fabs(pn - p) / (pn + p);
        p = pn;
        if (change < 1e-15) {
            double d;
            rs->pstar = p;
            rs->ustar = 0.5 * (l.u + r.u) +
                        0.5 * (pressure_fn(p, r, rs->cr, g, &d) - pressure_fn(p, l, rs->cl, g, &d));
            rs->iterations = it;
            return 0;
        }
    }
    return -1;
}

/* The left wave's side of the contact, written for the left state; the right side is its
 * mirror image (x -> -x, u -> -u), so one function samples both. */
static hy_state1 sample_left(hy_state1 k, double c, double pstar, double ustar, double g, double s)
{
    double pr = pstar / k.p, g6 = (g - 1) / (g + 1);
    hy_state1 star = {0, ustar, pstar};
    if (pstar > k.p) { /* shock */
        double speed = k.u - c * sqrt((g + 1) / (2 * g) * pr + (g - 1) / (2 * g));
        if (s <= speed)
            return k;
        star.rho = k.rho * (pr + g6) / (g6 * pr + 1);
        return star;
    }
    if (s <= k.u - c) /* ahead of the rarefaction's head */
        return k;
    double cstar = c * pow(pr, (g - 1) / (2 * g));
    if (s > ustar - cstar) { /* behind its tail */
        star.rho = k.rho * pow(pr, 1 / g);
        return star;
    }
    double cf = 2 / (g + 1) * (c + (g - 1) / 2 * (k.u - s)); /* inside the fan */
    hy_state1 fan = {k.rho * pow(cf / c, 2 / (g - 1)), 2 / (g + 1) * (c + (g - 1) / 2 * k.u + s),
                     k.p * pow(cf / c, 2 * g / (g - 1))};
    return fan;
}

hy_state1 hy_riemann_sample(const hy_riemann *rs, double s)
{
    if (s <= rs->ustar)
        return sample_left(rs->l, rs->cl, rs->pstar, rs->ustar, rs->gamma, s);
    hy_state1 m = {rs->r.rho, -rs->r.u, rs->r.p};
    hy_state1 w = sample_left(m, rs->cr, rs->pstar, -rs->ustar, rs->gamma, -s);
    w.u = -w.u;
    return w;
}
