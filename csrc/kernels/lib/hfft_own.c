/* hfft_own.c - hfft.h on hpceval's own FFT (csrc/Makefile FFT=own): the build variant against
 * which FFTW's advantage is measured, as PSTSWM was run with and without ESSL.
 *
 * A complex transform of length m is a self-sorting Stockham transform (decimation in
 * frequency): stage by stage, with n the length still to split and s the stride (n s = m),
 * a radix-r pass reads a_j = x[q + s (p + j n/r)] and writes
 *     y[q + s (r p + k)] = w^(p k) sum_j a_j wr^(j k),   w = e^(sign 2 pi i / n), wr = w^(n/r),
 * for p < n/r, q < s, k < r: natural order out, no bit reversal, the inner loop over q at unit
 * stride. Radices 4, 2, 3 and 5 have their butterflies written out; any other prime factor
 * takes a plain r-point DFT. Twiddles are tabulated once per plan.
 * A real transform of even length n is a complex one of length n/2 on the even and odd
 * samples as real and imaginary parts, split (r2c) or joined (c2r) with e^(-+2 pi i k/n). */
#include "hfft.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXSTAGES 64

enum { R2C, C2R, C2C };

struct hfft_plan {
    int kind, n, m, howmany, idist, odist, sign;  /* m: the complex length (n/2 for real) */
    int nstages, radix[MAXSTAGES];
    hfft_complex *tw;          /* per stage, [p][k-1] for p < n/r, 0 < k < r */
    hfft_complex *split;       /* real transforms: e^(sign 2 pi i k/n), k <= m */
    hfft_complex *a, *b;       /* the two Stockham buffers, m each */
};

static inline hfft_complex cmul(hfft_complex x, hfft_complex y)
{
    /* written out: C's complex product checks for infinities through a library call */
    double xr = creal(x), xi = cimag(x), yr = creal(y), yi = cimag(y);
    return CMPLX(xr * yr - xi * yi, xr * yi + xi * yr);
}

/* i x (sign +1) or -i x (sign -1) */
static inline hfft_complex rot(hfft_complex x, int sign)
{
    return sign > 0 ? CMPLX(-cimag(x), creal(x)) : CMPLX(cimag(x), -creal(x));
}

static hfft_complex root(int sign, long k, long n)
{
    double t = sign * 2.0 * M_PI * (double)k / (double)n;
    return CMPLX(cos(t), sin(t));
}

/* The r-point DFT of a[0..r) into c[0..r): the butterflies of 2, 3, 4 and 5 written out
 * (inlined into each radix's pass, where r is a constant and the choice folds away). */
static inline __attribute__((always_inline)) void butterfly(int r, int sign,
                                                             const hfft_complex *a,
                                                             hfft_complex *c)
{
    if (r == 2) {
        c[0] = a[0] + a[1];
        c[1] = a[0] - a[1];
    } else if (r == 4) {
        hfft_complex s02 = a[0] + a[2], d02 = a[0] - a[2], s13 = a[1] + a[3],
                     d13 = rot(a[1] - a[3], sign);
        c[0] = s02 + s13;
        c[1] = d02 + d13;
        c[2] = s02 - s13;
        c[3] = d02 - d13;
    } else if (r == 3) {
        hfft_complex t = a[1] + a[2], d = rot(a[1] - a[2], sign) * (sqrt(3.0) / 2);
        hfft_complex h = a[0] - 0.5 * t;
        c[0] = a[0] + t;
        c[1] = h + d;
        c[2] = h - d;
    } else if (r == 5) {
        const double c1 = cos(2 * M_PI / 5), c2 = cos(4 * M_PI / 5);
        const double s1 = sin(2 * M_PI / 5), s2 = sin(4 * M_PI / 5);
        hfft_complex t1 = a[1] + a[4], t2 = a[2] + a[3];
        hfft_complex d1 = rot(a[1] - a[4], sign), d2 = rot(a[2] - a[3], sign);
        hfft_complex h1 = a[0] + c1 * t1 + c2 * t2, h2 = a[0] + c2 * t1 + c1 * t2;
        hfft_complex e1 = s1 * d1 + s2 * d2, e2 = s2 * d1 - s1 * d2;
        c[0] = a[0] + t1 + t2;
        c[1] = h1 + e1;
        c[4] = h1 - e1;
        c[2] = h2 + e2;
        c[3] = h2 - e2;
    } else {
        for (int k = 0; k < r; k++) {
            hfft_complex v = 0;
            for (int j = 0; j < r; j++)
                v += cmul(a[j], root(sign, (long)j * k % r, r));
            c[k] = v;
        }
    }
}

/* One radix-R Stockham pass over x into y: n the length still to split, s its stride. */
#define PASS(R)                                                                   \
    for (int p = 0; p < m; p++) {                                                 \
        const hfft_complex *w = tw + (size_t)p * ((R) - 1);                       \
        const hfft_complex *in = x + (size_t)s * p;                               \
        hfft_complex *out = y + (size_t)s * (R) * p;                              \
        for (int q = 0; q < s; q++) {                                             \
            for (int j = 0; j < (R); j++)                                         \
                a[j] = in[q + (size_t)s * j * m];                                 \
            butterfly((R), sign, a, c);                                           \
            out[q] = c[0];                                                        \
            for (int k = 1; k < (R); k++)                                         \
                out[q + (size_t)s * k] = cmul(c[k], w[k - 1]);                    \
        }                                                                         \
    }

static void pass(int r, int n, int s, int sign, const hfft_complex *tw, const hfft_complex *x,
                 hfft_complex *y)
{
    int m = n / r;
    hfft_complex a[MAXSTAGES], c[MAXSTAGES];
    switch (r) {
    case 2: PASS(2); break;
    case 3: PASS(3); break;
    case 4: PASS(4); break;
    case 5: PASS(5); break;
    default: PASS(r);
    }
}

/* The complex transform of x (length p->m) with y as the second buffer; returns where the
 * result is (x or y). */
static hfft_complex *stockham(const hfft_plan *p, hfft_complex *x, hfft_complex *y)
{
    const hfft_complex *tw = p->tw;
    int n = p->m, s = 1;
    for (int st = 0; st < p->nstages; st++) {
        int r = p->radix[st];
        pass(r, n, s, p->sign, tw, x, y);
        tw += (size_t)(n / r) * (r - 1);
        hfft_complex *t = x;
        x = y;
        y = t;
        n /= r;
        s *= r;
    }
    return x;
}

/* Radices 4 first (fewest passes), then 2, 3, 5 and any other prime; the twiddles of each. */
static int factor(hfft_plan *p)
{
    int n = p->m, total = 0;
    p->nstages = 0;
    for (int r = 4; n > 1; r = (r == 4 ? 2 : r == 2 ? 3 : r + 2)) {
        while (n % r == 0) {
            if (p->nstages == MAXSTAGES || r >= MAXSTAGES)
                return -1;
            p->radix[p->nstages++] = r;
            n /= r;
        }
    }
    n = p->m;
    for (int st = 0; st < p->nstages; st++) {
        total += (n / p->radix[st]) * (p->radix[st] - 1);
        n /= p->radix[st];
    }
    p->tw = hfft_malloc(((size_t)total + 1) * sizeof(hfft_complex));
    if (!p->tw)
        return -1;
    hfft_complex *t = p->tw;
    n = p->m;
    for (int st = 0; st < p->nstages; st++) {
        int r = p->radix[st];
        for (int q = 0; q < n / r; q++)
            for (int k = 1; k < r; k++)
                *t++ = root(p->sign, (long)q * k, n);
        n /= r;
    }
    return 0;
}

static hfft_plan *plan(int kind, int n, int howmany, int idist, int odist, int sign)
{
    if (n < 1 || howmany < 1 || (kind != C2C && n % 2))
        return NULL;
    hfft_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    *p = (hfft_plan){.kind = kind, .n = n, .m = kind == C2C ? n : n / 2, .howmany = howmany,
                     .idist = idist, .odist = odist, .sign = sign};
    p->a = hfft_malloc((size_t)p->m * sizeof(hfft_complex));
    p->b = hfft_malloc((size_t)p->m * sizeof(hfft_complex));
    if (kind != C2C && (p->split = hfft_malloc(((size_t)p->m + 1) * sizeof(hfft_complex))))
        for (int k = 0; k <= p->m; k++)
            p->split[k] = root(kind == R2C ? -1 : 1, k, n);
    if (!p->a || !p->b || (kind != C2C && !p->split) || factor(p)) {
        hfft_destroy(p);
        return NULL;
    }
    return p;
}

hfft_plan *hfft_plan_r2c(int n, int howmany, double *in, int idist, hfft_complex *out,
                         int odist, double limit_s)
{
    (void)in, (void)out, (void)limit_s;   /* nothing to measure */
    return plan(R2C, n, howmany, idist, odist, HFFT_FORWARD);
}

hfft_plan *hfft_plan_c2r(int n, int howmany, hfft_complex *in, int idist, double *out,
                         int odist, double limit_s)
{
    (void)in, (void)out, (void)limit_s;
    return plan(C2R, n, howmany, idist, odist, HFFT_BACKWARD);
}

hfft_plan *hfft_plan_c2c(int n, int howmany, hfft_complex *io, int dist, int sign,
                         double limit_s)
{
    (void)io, (void)limit_s;
    return plan(C2C, n, howmany, dist, dist, sign == HFFT_FORWARD ? -1 : 1);
}

/* X[k] = E[k] + e^(-2 pi i k/n) O[k], E and O the transforms of the even and odd samples, from
 * Z = FFT(even + i odd): E[k] = (Z[k] + conj Z[m-k]) / 2, O[k] = (Z[k] - conj Z[m-k]) / 2i. */
void hfft_r2c(const hfft_plan *p, double *in, hfft_complex *out)
{
    int m = p->m;
    for (int t = 0; t < p->howmany; t++) {
        memcpy(p->a, in + (size_t)t * p->idist, (size_t)p->n * sizeof(double));
        const hfft_complex *z = stockham(p, p->a, p->b);
        hfft_complex *x = out + (size_t)t * p->odist;
        for (int k = 0; k <= m; k++) {
            hfft_complex zk = z[k % m], zc = conj(z[(m - k) % m]);
            hfft_complex e = 0.5 * (zk + zc), o = rot(0.5 * (zk - zc), -1);
            x[k] = e + cmul(p->split[k], o);
        }
    }
}

/* The inverse of the split: Z[k] = (X[k] + conj X[m-k]) + i e^(2 pi i k/n) (X[k] - conj X[m-k])
 * transformed backward holds the even samples in its real parts, the odd in its imaginary.
 * The imaginary parts of X[0] and X[m] are ignored, as FFTW does. */
void hfft_c2r(const hfft_plan *p, hfft_complex *in, double *out)
{
    int m = p->m;
    for (int t = 0; t < p->howmany; t++) {
        const hfft_complex *x = in + (size_t)t * p->idist;
        for (int k = 0; k < m; k++) {
            hfft_complex xk = k ? x[k] : creal(x[0]), xc = conj(k ? x[m - k] : creal(x[m]));
            p->a[k] = (xk + xc) + rot(cmul(p->split[k], xk - xc), 1);
        }
        const hfft_complex *z = stockham(p, p->a, p->b);
        memcpy(out + (size_t)t * p->odist, z, (size_t)p->n * sizeof(double));
    }
}

void hfft_c2c(const hfft_plan *p, hfft_complex *io)
{
    for (int t = 0; t < p->howmany; t++) {
        hfft_complex *x = io + (size_t)t * p->idist;
        memcpy(p->a, x, (size_t)p->m * sizeof(hfft_complex));
        const hfft_complex *z = stockham(p, p->a, p->b);
        memcpy(x, z, (size_t)p->m * sizeof(hfft_complex));
    }
}

void hfft_destroy(hfft_plan *p)
{
    if (p) {
        hfft_free(p->tw);
        hfft_free(p->split);
        hfft_free(p->a);
        hfft_free(p->b);
        free(p);
    }
}

void *hfft_malloc(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 64, bytes ? bytes : 1) ? NULL : p;
}

void hfft_free(void *p)
{
    free(p);
}

const char *hfft_library(void)
{
    return "hpceval-own stockham 2/3/4/5";
}
