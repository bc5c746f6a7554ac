/* sweep_kernel.c - the inner loops of the sweep proxy: diamond differencing of one block of
 * k-planes and directions (sweep_solver.h).
 *
 * Per cell and direction (cosines mu, eta, xi > 0 after the octant's reflection, incoming face
 * fluxes a, b, c, cell source S, cx = 2 mu/dx, cy = 2 eta/dy, cz = 2 xi/dz):
 *   psi = (S + cx a + cy b + cz c) / (sigma_t + cx + cy + cz)        cell average
 *   a' = 2 psi - a,  b' = 2 psi - b,  c' = 2 psi - c                  outgoing faces
 *   phi += w psi
 * which is the cell's exact balance: mu/dx (a' - a) + eta/dy (b' - b) + xi/dz (c' - c)
 * + sigma_t psi = S. 13 flops (+, -, * one each; the division is a multiplication by a
 * reciprocal computed per block). The direction loop is innermost: its iterations are
 * independent, while i, j and k each carry a recurrence through the faces.
 *
 * Fix-up (--fixup 1): a negative outgoing face is set to zero and psi is solved again from the
 * same balance with that face's term -mu/dx a instead of cx (psi - a), until no face is
 * negative (at most three rounds). The balance, and so the particle count, still holds.
 */
#include "sweep_solver.h"

#include <stddef.h>

typedef struct {
    double cx[SWEEP_MAX_ANGLES], cy[SWEEP_MAX_ANGLES], cz[SWEEP_MAX_ANGLES];
    double rden[SWEEP_MAX_ANGLES], w[SWEEP_MAX_ANGLES];
    double sigt;
    int mb;
} coefs;

/* One i-line: fi the i-face of this line's directions, fj and fk the j- and k-faces of the
 * line's cells ([i][m]). */
static void row_dd(int it, int di, const double *restrict src, double *restrict phi,
                   double *restrict fi, double *restrict fj, double *restrict fk,
                   const coefs *restrict c)
{
    const int mb = c->mb;
    int i = di > 0 ? 0 : it - 1;
    for (int n = 0; n < it; n++, i += di) {
        double s = src[i], acc = 0;
        double *restrict pj = fj + (size_t)i * mb, *restrict pk = fk + (size_t)i * mb;
        for (int m = 0; m < mb; m++) {
            double psi = (s + c->cx[m] * fi[m] + c->cy[m] * pj[m] + c->cz[m] * pk[m]) * c->rden[m];
            double p2 = psi + psi;
            fi[m] = p2 - fi[m];
            pj[m] = p2 - pj[m];
            pk[m] = p2 - pk[m];
            acc += c->w[m] * psi;
        }
        phi[i] += acc;
    }
}

/* Solve one cell and direction again with the negative faces fixed to zero; returns the number
 * of faces fixed. in: incoming faces; out: outgoing (replaced). */
static int fixup_cell(double s, double sigt, const double cf[3], const double in[3],
                      double out[3], double *psi)
{
    int fixed[3] = {0, 0, 0}, n = 0, more = 1;
    while (more) {
        double num = s, den = sigt;
        for (int f = 0; f < 3; f++) {
            num += (fixed[f] ? 0.5 : 1.0) * cf[f] * in[f];
            den += fixed[f] ? 0.0 : cf[f];
        }
        *psi = num / den;
        more = 0;
        for (int f = 0; f < 3; f++) {
            out[f] = fixed[f] ? 0.0 : 2 * *psi - in[f];
            if (out[f] < 0) {
                fixed[f] = more = 1;
                out[f] = 0.0;
                n++;
            }
        }
    }
    return n;
}

/* row_dd with the fix-up; returns the faces fixed. */
static long row_fixup(int it, int di, const double *src, double *phi, double *fi, double *fj,
                      double *fk, const coefs *c)
{
    const int mb = c->mb;
    long nfix = 0;
    int i = di > 0 ? 0 : it - 1;
    for (int n = 0; n < it; n++, i += di) {
        double s = src[i], acc = 0;
        double *pj = fj + (size_t)i * mb, *pk = fk + (size_t)i * mb;
        for (int m = 0; m < mb; m++) {
            double in[3] = {fi[m], pj[m], pk[m]}, cf[3] = {c->cx[m], c->cy[m], c->cz[m]};
            double psi = (s + cf[0] * in[0] + cf[1] * in[1] + cf[2] * in[2]) * c->rden[m];
            double out[3] = {2 * psi - in[0], 2 * psi - in[1], 2 * psi - in[2]};
            if (out[0] < 0 || out[1] < 0 || out[2] < 0)
                nfix += fixup_cell(s, c->sigt, cf, in, out, &psi);
            fi[m] = out[0];
            pj[m] = out[1];
            pk[m] = out[2];
            acc += c->w[m] * psi;
        }
        phi[i] += acc;
    }
    return nfix;
}

void sweep_block(sweep_solver *s, int di, int dj, int dk, int k0, int nk, int m0, int mb)
{
    const sweep_problem *pb = s->pb;
    const sweep_quad *qd = s->quad;
    coefs c = {.sigt = pb->sigt, .mb = mb};
    for (int m = 0; m < mb; m++) {
        c.cx[m] = 2 * qd->mu[m0 + m] / pb->dx;
        c.cy[m] = 2 * qd->eta[m0 + m] / pb->dy;
        c.cz[m] = 2 * qd->xi[m0 + m] / pb->dz;
        c.rden[m] = 1.0 / (pb->sigt + c.cx[m] + c.cy[m] + c.cz[m]);
        c.w[m] = qd->w[m0 + m];
    }
    const int it = s->it, jt = s->jt;
    for (int n = 0; n < nk; n++) {
        int kk = dk > 0 ? n : nk - 1 - n, k = k0 + kk;
        double *fj = s->face_j + (size_t)kk * it * mb;
        for (int jn = 0, j = dj > 0 ? 0 : jt - 1; jn < jt; jn++, j += dj) {
            size_t row = ((size_t)k * jt + j) * it;
            double *fi = s->face_i + ((size_t)kk * jt + j) * mb;
            double *fk = s->face_k + (size_t)j * it * mb;
            if (pb->fixup)
                s->fixups += row_fixup(it, di, s->src + row, s->phi + row, fi, fj, fk, &c);
            else
                row_dd(it, di, s->src + row, s->phi + row, fi, fj, fk, &c);
        }
    }
}
