/* loggp_fit.c - derived samples and G's slope for comm/loggp.c. */
#include "loggp_fit.h"

int loggp_derive(const double *t, int n, double sub, double div, double scale, double *out)
{
    int clipped = 0;
    for (int i = 0; i < n; i++) {
        double v = (t[i] - sub) / div * scale;
        clipped += v < 0.0;
        out[i] = v < 0.0 ? 0.0 : v;
    }
    return clipped;
}

double loggp_slope(const double *x, const double *y, int n)
{
    double mx = 0.0, my = 0.0;
    for (int i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxy = 0.0, sxx = 0.0;
    for (int i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxx > 0.0 ? sxy / sxx : 0.0;
}

int loggp_fit_sizes(const int *bytes, int n, int *idx)
{
    int big = -1, next = -1;
    for (int j = 0; j < n; j++)
        big = bytes[j] > big ? bytes[j] : big;
    for (int j = 0; j < n; j++)
        next = bytes[j] < big && bytes[j] > next ? bytes[j] : next;
    if (next < 0)
        return 0;
    int m = 0, other = 0;
    for (int j = 0; j < n; j++)
        if ((double)bytes[j] * 16.0 >= big) {
            idx[m++] = j;
            other = other || bytes[j] != big;
        }
    if (other)
        return m;
    /* one size among the large ones: add the next smaller one, for a slope */
    for (int j = 0; j < n; j++)
        if (bytes[j] == next)
            idx[m++] = j;
    return m;
}
