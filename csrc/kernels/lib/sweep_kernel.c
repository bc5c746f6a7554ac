/* sweep_kernel.c - the inner loops of the sweep proxy: diamond differencing of one block of
 * k-planes and directions (sweep_solver.h).
 *
 * Per cell and direction (cosines mu, eta, xi > 0 after the octant's reflection, incoming face
 * fluxes a, b, c, cell source S, cx = 2 mu/dx, cy = 2 eta/dy, cz = 2 xi/dz):
 *   psi = (S + cx a + cy b + cz c) / (sigma_t + cx + cy + cz)        cell average
 *   a' = 2 psi - a,  b' = 2 psi - b,  c' = 2 psi - c                  outgoing faces
 *   phi += w psi
 * which is the cell's exact balance: mu/dx (a' - a) + eta/dy (b' - b) + xi/dz (c' - c)
 * + sigma_t psi = S. As computed (row_body), with S' = S + cy b + cz c:
 *   psi = (S' + cx a) rden,  a' = (2 rden cx - 1) a + 2 rden S',  b', c' as above,
 * 15 flops per cell-angle (an fma counts two; rden = 1 / (...) and the other per-direction
 * constants are computed once per block). The direction loop is innermost and runs as
 * SWEEP_VLEN-wide vectors (a block's directions padded to a multiple, the padding lanes doing
 * harmless work with zero weight): its iterations are independent, while i, j and k each
 * carry a recurrence through the faces. Each cell's lanes are added into phi after the line, so
 * that the horizontal sum is out of the recurrence's loop. Measured on the 2.6 GHz Xeon here
 * (user CPU time, 40^3, S6, --mmi 3): 2.4 ns per cell-angle scalar with the plain formulas,
 * 1.09 ns so with the sum per cell, 0.92 ns with the sum after the line.
 *
 * Fix-up (--fixup 1): a negative outgoing face is set to zero and psi is solved again from the
 * same balance with that face's term -mu/dx a instead of cx (psi - a), until no face is
 * negative (at most three rounds). The balance, and so the particle count, still holds. The
 * vector kernel tests the sign bits of a vector's outgoing faces and fixes only the lanes that
 * need it, one by one: 1.6 ns per cell-angle where nothing needs fixing (the scalar loop with
 * the test was 2.9 ns).
 */
#include "sweep_solver.h"

#include <math.h>
#include <stddef.h>

/* The Makefile's -std=c11 turns off the contraction of a * b + c into one fma; the vector
 * kernel's i-recurrence is one fma long with it, two operations without. */
#if defined(__clang__)
#pragma clang fp contract(fast)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=fast")
#endif

/* SWEEP_VLEN directions at once; the faces hold SWEEP_PAD(mb) of them per cell, the padding
 * lanes with zero cosines and weights (finite values that add nothing to phi). */
typedef double vec __attribute__((vector_size(SWEEP_VLEN * sizeof(double))));
#define NVEC (SWEEP_PAD(SWEEP_MAX_ANGLES) / SWEEP_VLEN)
typedef long long lanes_t;  /* a comparison's lanes: 0 or -1 */
typedef lanes_t lanes __attribute__((vector_size(SWEEP_VLEN * sizeof(lanes_t))));

typedef struct {
    double cx[SWEEP_PAD(SWEEP_MAX_ANGLES)], cy[SWEEP_PAD(SWEEP_MAX_ANGLES)];
    double cz[SWEEP_PAD(SWEEP_MAX_ANGLES)], rden[SWEEP_PAD(SWEEP_MAX_ANGLES)];
    double w[SWEEP_PAD(SWEEP_MAX_ANGLES)];
    double a[SWEEP_PAD(SWEEP_MAX_ANGLES)], r2[SWEEP_PAD(SWEEP_MAX_ANGLES)];  /* 2 rden cx - 1,
                                                                                 2 rden */
    double sigt;
    int mb, mbp;     /* directions, padded */
    double *lanes;   /* a line's phi contributions, SWEEP_VLEN a cell */
} coefs;

static inline vec vload(const double *p)
{
    vec v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
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

/* The fix-up of the lanes (real directions only) of one vector whose outgoing faces went
 * negative: xin, jin, kin the incoming faces; the outgoing ones and psi are replaced. */
static __attribute__((noinline)) long fix_lanes(const coefs *c, int o, double s, vec xin,
                                                vec jin, vec kin, vec *xo, vec *jo, vec *ko,
                                                vec *psi)
{
    long n = 0;
    for (int l = 0; l < SWEEP_VLEN && o + l < c->mb; l++) {
        if (!((*xo)[l] < 0 || (*jo)[l] < 0 || (*ko)[l] < 0))
            continue;
        double in[3] = {xin[l], jin[l], kin[l]}, cf[3] = {c->cx[o + l], c->cy[o + l], c->cz[o + l]};
        double out[3], p;
        n += fixup_cell(s, c->sigt, cf, in, out, &p);
        (*xo)[l] = out[0];
        (*jo)[l] = out[1];
        (*ko)[l] = out[2];
        (*psi)[l] = p;
    }
    return n;
}

/* Whether a real lane (real: all ones there) of the outgoing faces is negative: the sign bits,
 * without comparisons (-0 counts; fix_lanes then finds nothing to fix). */
static inline int any_negative(vec xo, vec jo, vec ko, lanes real)
{
    lanes bits = ((lanes)xo | (lanes)jo | (lanes)ko) & real;
    lanes_t any = 0;
    for (int l = 0; l < SWEEP_VLEN; l++)
        any |= bits[l];
    return any < 0;
}

/* One i-line: fi the i-face of this line's directions, fj and fk the j- and k-faces of the
 * line's cells ([i][mbp]); nv vectors of directions and fix (the fix-up) constants where
 * inlined (row_dd), so the i-face and the coefficients live in registers. The i-recurrence is
 * the critical path: written as a' = (2 rden cx - 1) a + 2 rden (S + cy b + cz c), one fma per
 * cell instead of a chain through psi (the same value up to rounding; every decomposition runs
 * this same code). Returns the faces fixed. */
static inline __attribute__((always_inline)) long
row_body(int it, int di, const double *restrict src, double *restrict phi, double *restrict fi,
         double *restrict fj, double *restrict fk, const coefs *restrict c, const int nv,
         const int fix)
{
    vec x[NVEC], cx[NVEC], cy[NVEC], cz[NVEC], rd[NVEC], w[NVEC], a[NVEC], r2[NVEC];
    lanes real[NVEC];
    for (int v = 0; v < nv; v++) {
        int o = v * SWEEP_VLEN;
        x[v] = vload(fi + o);
        cx[v] = vload(c->cx + o);
        cy[v] = vload(c->cy + o);
        cz[v] = vload(c->cz + o);
        rd[v] = vload(c->rden + o);
        w[v] = vload(c->w + o);
        a[v] = vload(c->a + o);
        r2[v] = vload(c->r2 + o);
        real[v] = w[v] > (vec){0};
    }
    const size_t stride = (size_t)nv * SWEEP_VLEN;
    long nfix = 0;
    int i = di > 0 ? 0 : it - 1;
    for (int n = 0; n < it; n++, i += di) {
        vec acc = {0}, s = acc + src[i];
        double *pj = fj + i * stride, *pk = fk + i * stride;
        for (int v = 0; v < nv; v++) {
            vec bj = vload(pj + v * SWEEP_VLEN), bk = vload(pk + v * SWEEP_VLEN);
            vec sp = s + cy[v] * bj + cz[v] * bk;
            vec psi = (sp + cx[v] * x[v]) * rd[v];
            vec p2 = psi + psi;
            vec xo = a[v] * x[v] + r2[v] * sp, jo = p2 - bj, ko = p2 - bk;
            if (fix && any_negative(xo, jo, ko, real[v]))
                nfix += fix_lanes(c, v * SWEEP_VLEN, src[i], x[v], bj, bk, &xo, &jo, &ko, &psi);
            x[v] = xo;
            __builtin_memcpy(pj + v * SWEEP_VLEN, &jo, sizeof jo);
            __builtin_memcpy(pk + v * SWEEP_VLEN, &ko, sizeof ko);
            acc += w[v] * psi;
        }
        __builtin_memcpy(c->lanes + (size_t)i * SWEEP_VLEN, &acc, sizeof acc);
    }
    /* Each cell's lanes into phi after the line, out of the recurrence's loop, in a fixed
     * order (the same bits everywhere). */
    for (int k = 0; k < it; k++) {
        const double *l = c->lanes + (size_t)k * SWEEP_VLEN;
        double sum = l[0];
        for (int m = 1; m < SWEEP_VLEN; m++)
            sum += l[m];
        phi[k] += sum;
    }
    for (int v = 0; v < nv; v++)
        __builtin_memcpy(fi + v * SWEEP_VLEN, &x[v], sizeof x[v]);
    return nfix;
}

/* row_body with nv and fix as constants; returns the faces fixed. */
static long row_dd(int it, int di, const double *src, double *phi, double *fi, double *fj,
                   double *fk, const coefs *c, int fix)
{
    int nv = c->mbp / SWEEP_VLEN;
    if (fix)
        return nv == 1   ? row_body(it, di, src, phi, fi, fj, fk, c, 1, 1)
               : nv == 2 ? row_body(it, di, src, phi, fi, fj, fk, c, 2, 1)
                         : row_body(it, di, src, phi, fi, fj, fk, c, NVEC, 1);
    return nv == 1   ? row_body(it, di, src, phi, fi, fj, fk, c, 1, 0)
           : nv == 2 ? row_body(it, di, src, phi, fi, fj, fk, c, 2, 0)
                     : row_body(it, di, src, phi, fi, fj, fk, c, NVEC, 0);
}

void sweep_block(sweep_solver *s, int di, int dj, int dk, int k0, int nk, int m0, int mb)
{
    const sweep_problem *pb = s->pb;
    const sweep_quad *qd = s->quad;
    coefs c = {.sigt = pb->sigt, .mb = mb, .mbp = SWEEP_PAD(mb), .lanes = s->lanes};
    for (int m = 0; m < c.mbp; m++) {
        int in = m < mb;  /* padding: no streaming, no weight */
        c.cx[m] = in ? 2 * qd->mu[m0 + m] / pb->dx : 0.0;
        c.cy[m] = in ? 2 * qd->eta[m0 + m] / pb->dy : 0.0;
        c.cz[m] = in ? 2 * qd->xi[m0 + m] / pb->dz : 0.0;
        c.rden[m] = 1.0 / (pb->sigt + c.cx[m] + c.cy[m] + c.cz[m]);
        c.r2[m] = 2 * c.rden[m];
        c.a[m] = c.r2[m] * c.cx[m] - 1;
        c.w[m] = in ? qd->w[m0 + m] : 0.0;
    }
    const int it = s->it, jt = s->jt;
    for (int n = 0; n < nk; n++) {
        int kk = dk > 0 ? n : nk - 1 - n, k = k0 + kk;
        double *fj = s->face_j + (size_t)kk * it * c.mbp;
        for (int jn = 0, j = dj > 0 ? 0 : jt - 1; jn < jt; jn++, j += dj) {
            size_t row = ((size_t)k * jt + j) * it;
            double *fi = s->face_i + ((size_t)kk * jt + j) * c.mbp;
            double *fk = s->face_k + (size_t)j * it * c.mbp;
            s->fixups += row_dd(it, di, s->src + row, s->phi + row, fi, fj, fk, &c, pb->fixup);
        }
    }
}
