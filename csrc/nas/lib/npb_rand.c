#include "npb_rand.h"

#define R23 (1.0 / 8388608.0)   /* 2^-23 */
#define T23 8388608.0           /* 2^23 */
#define R46 (R23 * R23)
#define T46 (T23 * T23)

/* a * x mod 2^46 with a = a1 2^23 + a2, x = x1 2^23 + x2: the cross terms are reduced
 * mod 2^23 before they are shifted, so no intermediate exceeds 2^52 (exact in a double). */
static inline double mulmod46(double a, double x)
{
    double a1 = (double)(long long)(R23 * a), a2 = a - T23 * a1;
    double x1 = (double)(long long)(R23 * x), x2 = x - T23 * x1;
    double t1 = a1 * x2 + a2 * x1;
    double t2 = (double)(long long)(R23 * t1);
    double z = t1 - T23 * t2;
    double t3 = T23 * z + a2 * x2;
    double t4 = (double)(long long)(R46 * t3);
    return t3 - T46 * t4;
}

double npb_randlc(double *x, double a)
{
    *x = mulmod46(a, *x);
    return R46 * *x;
}

void npb_vranlc(int n, double *x, double a, double *y)
{
    for (int i = 0; i < n; i++) {
        *x = mulmod46(a, *x);
        y[i] = R46 * *x;
    }
}

double npb_pow46(double a, long long n)
{
    double result = 1.0, base = a;
    while (n > 0) {
        if (n & 1)
            result = mulmod46(base, result);
        base = mulmod46(base, base);
        n >>= 1;
    }
    return result;
}
