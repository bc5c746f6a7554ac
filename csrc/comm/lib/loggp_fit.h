/* loggp_fit.h - the arithmetic of the loggp benchmark (comm/loggp.c), apart
 * from its MPI code: derived samples and the slope that gives G. */
#ifndef HPC_LOGGP_FIT_H
#define HPC_LOGGP_FIT_H

/* out[i] = (t[i] - sub) / div * scale, clipped at 0 (a derived overhead below
 * 0 is noise, and durations are never negative in the records); returns how
 * many were clipped. out may be t. */
int loggp_derive(const double *t, int n, double sub, double div, double scale, double *out);

/* Least-squares slope of y over x (n >= 2, x not all equal). */
double loggp_slope(const double *x, const double *y, int n);

/* The sizes G is fitted over: indices into bytes[0..n) of those >= the largest
 * / 16 (the large messages), or, when they hold fewer than two different sizes,
 * the largest and the next smaller different size. Returns how many (0 if
 * bytes holds fewer than two different sizes). */
int loggp_fit_sizes(const int *bytes, int n, int *idx);

#endif
