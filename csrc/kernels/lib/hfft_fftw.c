/* hfft_fftw.c - hfft.h on FFTW 3 (the default build: csrc/Makefile FFT=fftw). Plans are
 * measured (FFTW_MEASURE), within the caller's time limit. */
#include "hfft.h"

#include <fftw3.h>
#include <stdlib.h>

struct hfft_plan {
    fftw_plan plan;
};

static hfft_plan *wrap(fftw_plan plan)
{
    if (!plan)
        return NULL;
    hfft_plan *p = malloc(sizeof *p);
    if (!p) {
        fftw_destroy_plan(plan);
        return NULL;
    }
    p->plan = plan;
    return p;
}

static void limit(double limit_s)
{
    fftw_set_timelimit(limit_s > 0 ? limit_s : FFTW_NO_TIMELIMIT);
}

hfft_plan *hfft_plan_r2c(int n, int howmany, double *in, int idist, hfft_complex *out,
                         int odist, double limit_s)
{
    limit(limit_s);
    fftw_plan f = fftw_plan_many_dft_r2c(1, &n, howmany, in, NULL, 1, idist, out, NULL, 1,
                                         odist, FFTW_MEASURE);
    limit(0);
    return wrap(f);
}

hfft_plan *hfft_plan_c2r(int n, int howmany, hfft_complex *in, int idist, double *out,
                         int odist, double limit_s)
{
    limit(limit_s);
    fftw_plan f = fftw_plan_many_dft_c2r(1, &n, howmany, in, NULL, 1, idist, out, NULL, 1,
                                         odist, FFTW_MEASURE);
    limit(0);
    return wrap(f);
}

hfft_plan *hfft_plan_c2c(int n, int howmany, hfft_complex *io, int dist, int sign,
                         double limit_s)
{
    limit(limit_s);
    fftw_plan f = fftw_plan_many_dft(1, &n, howmany, io, NULL, 1, dist, io, NULL, 1, dist,
                                     sign, FFTW_MEASURE);
    limit(0);
    return wrap(f);
}

void hfft_r2c(const hfft_plan *p, double *in, hfft_complex *out)
{
    fftw_execute_dft_r2c(p->plan, in, out);
}

void hfft_c2r(const hfft_plan *p, hfft_complex *in, double *out)
{
    fftw_execute_dft_c2r(p->plan, in, out);
}

void hfft_c2c(const hfft_plan *p, hfft_complex *io)
{
    fftw_execute_dft(p->plan, io, io);
}

void hfft_destroy(hfft_plan *p)
{
    if (p) {
        fftw_destroy_plan(p->plan);
        free(p);
    }
}

void *hfft_malloc(size_t bytes)
{
    return fftw_malloc(bytes);
}

void hfft_free(void *p)
{
    fftw_free(p);
}

const char *hfft_library(void)
{
    return fftw_version;
}
