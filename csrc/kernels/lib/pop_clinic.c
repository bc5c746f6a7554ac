/* pop_clinic.c - the baroclinic step of the POP-like ocean (pop_ocean.h has the scheme). */
#include "harness.h"
#include "pop_ocean.h"

#include <string.h>

static const double ALPHA = 2e-4, BETA = 7.6e-4, T0 = 10.0, S0 = 35.0;
/* Pacanowski-Philander: nu = NU0 / (1 + 5 Ri)^2 + NUB, kappa = nu / (1 + 5 Ri) + KB (m^2/s);
 * KCONV where the column is unstable (convective mixing). */
static const double NU0 = 1e-2, NUB = 1e-4, KB = 1e-5, KCONV = 0.1;
/* Horizontal mixing as fractions of a cell exchanged with a neighbour per step (stable below
 * 0.25): a grid-scale viscosity and diffusion, as POP's are tied to the grid spacing. */
static const double CVISC = 0.05, KDIFF = 0.02;

/* g (rho - rho0) / rho0 of the linear equation of state (minus the buoyancy). */
static inline double grho(double t, double s)
{
    return POP_GRAV * (-ALPHA * (t - T0) + BETA * (s - S0));
}

/* Mixing coefficients at the interfaces of the T-columns of the interior and the east and
 * north halo (the momentum columns at U-points average the four around them). */
static void mixing(pop_sea *o)
{
    const size_t n2 = o->n2, ld = (size_t)o->ld;
    for (int k = 0; k + 1 < o->nz; k++) {
        const double *t0 = pop_level(o, o->state, POP_T, k), *t1 = t0 + n2;
        const double *s0 = pop_level(o, o->state, POP_S, k), *s1 = s0 + n2;
        const double *u0 = pop_level(o, o->state, POP_U, k), *u1 = u0 + n2;
        const double *v0 = pop_level(o, o->state, POP_V, k), *v1 = v0 + n2;
        double *kt = o->kt + (size_t)k * n2, *kv = o->kv + (size_t)k * n2, w = 1.0 / o->dzw[k];
        for (int jj = 1; jj <= o->by + 1; jj++)
            for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx + 1; c++) {
                double du = 0.25 * ((u0[c] - u1[c]) + (u0[c - 1] - u1[c - 1]) + (u0[c - ld] - u1[c - ld])
                                    + (u0[c - ld - 1] - u1[c - ld - 1]));
                double dv = 0.25 * ((v0[c] - v1[c]) + (v0[c - 1] - v1[c - 1]) + (v0[c - ld] - v1[c - ld])
                                    + (v0[c - ld - 1] - v1[c - ld - 1]));
                double n2b = (grho(t1[c], s1[c]) - grho(t0[c], s0[c])) * w;  /* N^2, k down */
                double ri = n2b / ((du * du + dv * dv) * w * w + 1e-20);
                double f = 1.0 / (1.0 + 5.0 * (ri > 0 ? ri : 0.0)), nu = NU0 * f * f + NUB;
                int wet = o->mask[c], unstable = n2b < 0;
                kv[c] = wet ? (unstable ? KCONV : nu) : 0.0;
                kt[c] = wet ? (unstable ? KCONV : nu * f + KB) : 0.0;
            }
    }
}

/* Volume transports (m^3 per step) of level k through the east faces of the interior and the
 * west halo, and the north faces of the interior and the south halo; 0 where a side is land. */
static void transports(const pop_sea *o, int k, double *te, double *tn)
{
    const size_t ld = (size_t)o->ld;
    const unsigned char *m = o->mask;
    const double *u = pop_level(o, o->state, POP_U, k), *v = pop_level(o, o->state, POP_V, k);
    double w = o->dt * 0.5 * o->dz[k];
    for (int jj = 1; jj <= o->by; jj++)
        for (size_t c = jj * ld; c <= jj * ld + (size_t)o->bx; c++)
            te[c] = m[c] && m[c + 1] ? w * (u[c] + u[c - ld]) * o->dyt[jj] : 0.0;
    for (int jj = 0; jj <= o->by; jj++)
        for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx; c++)
            tn[c] = m[c] && m[c + ld] ? w * (v[c] + v[c - 1]) * o->dxu[jj] : 0.0;
}

/* Upward volume transport through the interfaces from continuity, from the bottom (0) up:
 * w[k] is the top of level k. The surface's (the depth-mean divergence, which moves eta) is
 * left out of the tracers' fluxes, so their integrals are kept. */
static void vertical_velocity(pop_sea *o)
{
    const size_t ld = (size_t)o->ld, n2 = o->n2;
    memset(o->w + (size_t)o->nz * n2, 0, n2 * sizeof(double));
    for (int k = o->nz - 1; k >= 0; k--) {
        double *wk = o->w + (size_t)k * n2, *wb = wk + n2, *te = o->te, *tn = o->tn;
        transports(o, k, te, tn);
        for (int jj = 1; jj <= o->by; jj++)
            for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx; c++)
                wk[c] = wb[c] - ((te[c] - te[c - 1]) + (tn[c] - tn[c - ld]));
    }
}

/* Tracer f's level k -> next on the interior: each face's flux (tracer volume per step, upwind
 * advection plus diffusion) computed once and given to both cells; fvt holds the flux up
 * through the level's top (the level above's bottom), fvb gets its bottom's. */
static void tracer_level(pop_sea *o, int f, int k)
{
    const size_t ld = (size_t)o->ld;
    const unsigned char *m = o->mask;
    const double *x = pop_level(o, o->state, f, k), *xb = k + 1 < o->nz ? x + o->n2 : x;
    const double *te = o->te, *tn = o->tn, *wb = o->w + (size_t)(k + 1) * o->n2;
    double *xn = pop_level(o, o->next, f, k), *fe = o->fe, *fn = o->fn, dz = o->dz[k];
    transports(o, k, o->te, o->tn);
    for (int jj = 1; jj <= o->by; jj++) {
        double d = KDIFF * dz * o->area[jj];
        for (size_t c = jj * ld; c <= jj * ld + (size_t)o->bx; c++)
            fe[c] = m[c] && m[c + 1]
                        ? (te[c] > 0 ? te[c] * x[c] : te[c] * x[c + 1]) + d * (x[c] - x[c + 1])
                        : 0.0;
    }
    for (int jj = 0; jj <= o->by; jj++) {
        double a = o->area[jj] < o->area[jj + 1] ? o->area[jj] : o->area[jj + 1];
        double d = KDIFF * dz * a;
        for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx; c++)
            fn[c] = m[c] && m[c + ld]
                        ? (tn[c] > 0 ? tn[c] * x[c] : tn[c] * x[c + ld]) + d * (x[c] - x[c + ld])
                        : 0.0;
    }
    for (int jj = 1; jj <= o->by; jj++) {
        double r = 1.0 / (o->area[jj] * dz);
        for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx; c++) {
            double fb = k + 1 < o->nz ? (wb[c] > 0 ? wb[c] * xb[c] : wb[c] * x[c]) : 0.0;
            xn[c] = x[c] - r * ((fe[c] - fe[c - 1]) + (fn[c] - fn[c - ld]) + (o->fvt[c] - fb));
            o->fvb[c] = fb;
        }
    }
    double *t = o->fvt;
    o->fvt = o->fvb;
    o->fvb = t;
}

static void explicit_tracers(pop_sea *o)
{
    vertical_velocity(o);
    for (int f = POP_T; f <= POP_S; f++) {
        memset(o->fvt, 0, o->n2 * sizeof(double));  /* nothing through the surface */
        for (int k = 0; k < o->nz; k++)
            tracer_level(o, f, k);
    }
}

/* Velocity level k -> next on the interior U-points; p holds level k's pressure / rho0. */
static void momentum_level(pop_sea *o, int k)
{
    const size_t ld = (size_t)o->ld;
    const double *u = pop_level(o, o->state, POP_U, k), *v = pop_level(o, o->state, POP_V, k);
    double *un = pop_level(o, o->next, POP_U, k), *vn = pop_level(o, o->next, POP_V, k);
    const double *p = o->p;
    for (int jj = 1; jj <= o->by; jj++) {
        double cf = o->cosf[jj], sf = o->sinf[jj], dt = o->dt;
        double gx = 0.5 * dt / o->dxu[jj], gy = 0.5 * dt / o->dyu[jj];
        for (size_t c = jj * ld + 1; c <= jj * ld + (size_t)o->bx; c++) {
            double px = (p[c + 1] + p[c + ld + 1]) - (p[c] + p[c + ld]);
            double py = (p[c + ld] + p[c + ld + 1]) - (p[c] + p[c + 1]);
            double lu = u[c + 1] + u[c - 1] + u[c + ld] + u[c - ld] - 4.0 * u[c];
            double lv = v[c + 1] + v[c - 1] + v[c + ld] + v[c - ld] - 4.0 * v[c];
            int wet = o->hu[c] > 0;
            un[c] = wet ? cf * u[c] + sf * v[c] - gx * px + CVISC * lu : 0.0;
            vn[c] = wet ? cf * v[c] - sf * u[c] - gy * py + CVISC * lv : 0.0;
        }
    }
}

/* Hydrostatic pressure / rho0 at the middle of level k, the block and its halo, from the
 * updated tracers (forward-backward: internal gravity waves stay stable for omega dt < 2). */
static void pressure_level(pop_sea *o, int k)
{
    const double *t = pop_level(o, o->next, POP_T, k), *s = pop_level(o, o->next, POP_S, k);
    double dz = o->dz[k];
    for (size_t c = 0; c < o->n2; c++) {
        double b = o->mask[c] ? grho(t[c], s[c]) * dz : 0.0;
        o->p[c] = o->pacc[c] + 0.5 * b;
        o->pacc[c] += b;
    }
}

static void explicit_momentum(pop_sea *o)
{
    memset(o->pacc, 0, o->n2 * sizeof(double));
    for (int k = 0; k < o->nz; k++) {
        pressure_level(o, k);
        momentum_level(o, k);
    }
}

/* Implicit vertical mixing of the columns of row jj of field x (level 0), coefficients kr:
 * dz_k (x'_k - x_k) = dt (K_k (x'_{k+1} - x'_k) / dzw_k - K_{k-1} (x'_k - x'_{k-1}) /
 * dzw_{k-1}), Thomas' algorithm over every column of the row at once. */
static void columns(pop_sea *o, double *x, int jj)
{
    const int nz = o->nz, bx = o->bx;
    const size_t ld = (size_t)o->ld, row = jj * ld, n2 = o->n2;
    double *cp = o->cp, *dp = o->dp;
    const double *kr = o->kr;
    for (int k = 0; k < nz; k++) {
        double *xk = x + k * n2 + row;
        double wa = k > 0 ? o->dt / o->dzw[k - 1] : 0, wc = k + 1 < nz ? o->dt / o->dzw[k] : 0;
        for (int i = 1; i <= bx; i++) {
            double a = k > 0 ? -wa * kr[(k - 1) * ld + i] : 0.0;
            double cc = k + 1 < nz ? -wc * kr[k * ld + i] : 0.0;
            double cprev = k > 0 ? cp[(k - 1) * ld + i] : 0.0, dprev = k > 0 ? dp[(k - 1) * ld + i] : 0.0;
            double den = 1.0 / (o->dz[k] - a - cc - a * cprev);
            cp[k * ld + i] = cc * den;
            dp[k * ld + i] = (o->dz[k] * xk[i] - a * dprev) * den;
        }
    }
    for (int i = 1; i <= bx; i++)
        x[(nz - 1) * n2 + row + i] = dp[(nz - 1) * ld + i];
    for (int k = nz - 2; k >= 0; k--)
        for (int i = 1; i <= bx; i++)
            x[k * n2 + row + i] = dp[k * ld + i] - cp[k * ld + i] * x[(k + 1) * n2 + row + i];
}

static void vertical_step(pop_sea *o)
{
    const size_t ld = (size_t)o->ld, n2 = o->n2;
    for (int jj = 1; jj <= o->by; jj++) {
        const size_t row = jj * ld;
        for (int k = 0; k + 1 < o->nz; k++)
            memcpy(o->kr + k * ld, o->kt + k * n2 + row, ld * sizeof(double));
        columns(o, pop_level(o, o->next, POP_T, 0), jj);
        columns(o, pop_level(o, o->next, POP_S, 0), jj);
        for (int k = 0; k + 1 < o->nz; k++) {
            const double *kv = o->kv + k * n2 + row;
            for (int i = 1; i <= o->bx; i++)
                o->kr[k * ld + i] = 0.25 * (kv[i] + kv[i + 1] + kv[i + ld] + kv[i + ld + 1]);
        }
        columns(o, pop_level(o, o->next, POP_U, 0), jj);
        columns(o, pop_level(o, o->next, POP_V, 0), jj);
    }
}

void pop_clinic_step(pop_sea *o, hpc_phases *ph, pop_halo3 *tracers)
{
    hpc_phase_to(ph, POP_PH_CLINIC);
    mixing(o);
    explicit_tracers(o);
    pop_halo3_update(tracers, pop_level(o, o->next, POP_T, 0));  /* T and S: 2 nz levels */
    hpc_phase_to(ph, POP_PH_CLINIC);
    explicit_momentum(o);
    hpc_phase_to(ph, POP_PH_VMIX);
    vertical_step(o);
    double *t = o->state;  /* the halo of next is stale: the next step's update refreshes it */
    o->state = o->next;
    o->next = t;
}
