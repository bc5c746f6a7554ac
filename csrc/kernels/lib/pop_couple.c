/* pop_couple.c - the barotropic phase's coupling to the 3-D ocean (pop_ocean.h): the
 * depth-mean flow, the free-surface right-hand side and the velocity correction. */
#include "pop_ocean.h"

void pop_tropic_means(pop_sea *o)
{
    const size_t ld = (size_t)o->ld;
    double *ub = o->bar, *vb = o->bar + o->n2;
    for (int jj = 1; jj <= o->by; jj++)
        for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx; c++)
            ub[c] = vb[c] = 0.0;
    for (int k = 0; k < o->nz; k++) {
        const double *u = pop_level(o, o->state, POP_U, k), *v = pop_level(o, o->state, POP_V, k);
        double w = o->dz[k] / o->htot;
        for (int jj = 1; jj <= o->by; jj++)
            for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx; c++) {
                ub[c] += w * u[c];
                vb[c] += w * v[c];
            }
    }
}

/* G^T M ubar at T(c) from its four corner U-points: T is the SW corner of U(c), the SE of
 * U(c-1), the NW of U(c-ld), the NE of U(c-ld-1); rows jj and jj-1 of the metrics. */
double pop_tropic_rhs(const pop_sea *o, double *b)
{
    const size_t ld = (size_t)o->ld;
    const double *ub = o->bar, *vb = o->bar + o->n2, *h = o->hu, *e = o->eta;
    double bb = 0.0, g = POP_GRAV, dt = o->dt;
    for (int jj = 1; jj <= o->by; jj++) {
        double dx = o->dxu[jj], dy = o->dyu[jj], dxs = o->dxu[jj - 1], dys = o->dyu[jj - 1];
        double fs = o->area[jj] / (g * dt * dt), w = 0.5 / (g * dt);
        for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx; c++) {
            double gtm = -h[c] * (ub[c] * dy + vb[c] * dx) + h[c - 1] * (ub[c - 1] * dy - vb[c - 1] * dx)
                         + h[c - ld] * (vb[c - ld] * dxs - ub[c - ld] * dys)
                         + h[c - ld - 1] * (ub[c - ld - 1] * dys + vb[c - ld - 1] * dxs);
            b[c] = o->mask[c] ? fs * e[c] + w * gtm : 0.0;
            bb += b[c] * b[c];
        }
    }
    return bb;
}

void pop_tropic_correct(pop_sea *o)
{
    const size_t ld = (size_t)o->ld;
    const double *e = o->eta;
    for (int k = 0; k < o->nz; k++) {
        double *u = pop_level(o, o->state, POP_U, k), *v = pop_level(o, o->state, POP_V, k);
        for (int jj = 1; jj <= o->by; jj++) {
            double gx = 0.5 * POP_GRAV * o->dt / o->dxu[jj], gy = 0.5 * POP_GRAV * o->dt / o->dyu[jj];
            for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx; c++) {
                int wet = o->hu[c] > 0;
                u[c] -= wet ? gx * ((e[c + 1] + e[c + ld + 1]) - (e[c] + e[c + ld])) : 0.0;
                v[c] -= wet ? gy * ((e[c + ld] + e[c + ld + 1]) - (e[c] + e[c + 1])) : 0.0;
            }
        }
    }
}
