/* hfft.h - the longitude FFTs of the spectral models (sst, psst), behind one interface so that
 * the library underneath is a build variant (the p690 talk's "PSTSWM with/without ESSL"):
 * FFTW (hfft_fftw.c, the default) or hpceval's own mixed-radix FFT (hfft_own.c), chosen by
 * csrc/Makefile's FFT=fftw|own. Both follow FFTW's conventions: unnormalised transforms,
 * forward sign -1, n/2+1 coefficients of a real transform of even length n, a c2r transform
 * may overwrite its input, batches of `howmany` transforms `dist` elements apart. */
#ifndef HPC_HFFT_H
#define HPC_HFFT_H

#include <complex.h>
#include <stddef.h>

typedef double complex hfft_complex;
typedef struct hfft_plan hfft_plan;

enum { HFFT_FORWARD = -1, HFFT_BACKWARD = 1 };

/* Plans for `howmany` transforms of length n on these arrays (the execute calls may pass others
 * of the same alignment, hfft_malloc's). `limit_s`: the most seconds a library that measures
 * its plans may spend on each (<= 0: no limit). NULL when no plan can be made. */
hfft_plan *hfft_plan_r2c(int n, int howmany, double *in, int idist, hfft_complex *out,
                         int odist, double limit_s);
hfft_plan *hfft_plan_c2r(int n, int howmany, hfft_complex *in, int idist, double *out,
                         int odist, double limit_s);
hfft_plan *hfft_plan_c2c(int n, int howmany, hfft_complex *io, int dist, int sign,
                         double limit_s);   /* in place */

void hfft_r2c(const hfft_plan *p, double *in, hfft_complex *out);
void hfft_c2r(const hfft_plan *p, hfft_complex *in, double *out);
void hfft_c2c(const hfft_plan *p, hfft_complex *io);
void hfft_destroy(hfft_plan *p);

void *hfft_malloc(size_t bytes);   /* aligned for the library's vector code */
void hfft_free(void *p);

/* The library as it names itself ("fftw-3.3.10-sse2-avx", "hpceval-own stockham 2/3/4/5"). */
const char *hfft_library(void);

#endif
