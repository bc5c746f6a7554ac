/* sst_model.h - serial spectral transform shallow water model on the sphere
 * (vorticity-divergence form, Gaussian grid, triangular truncation), the
 * kernel of sst.c and psst.c. The method and the operation count are described in
 * sst_model.c, the Legendre transforms in sst_legendre.c, the test cases in sst_cases.c. */
#ifndef HPC_SST_MODEL_H
#define HPC_SST_MODEL_H

#include "phases.h"

#include <complex.h>
#include "hfft.h"

enum { SST_EXPLICIT, SST_SEMI_IMPLICIT };
/* How the leapfrog starts from one time level (sst_model.c: "Start"). */
enum { SST_START_EULER, SST_START_CLASSIC };
extern const char *const sst_start_names[2];  /* "euler", "classic" */

/* The serial step's phases (sst_run times them when s->phases is set). */
enum { SST_PH_LEGENDRE, SST_PH_FFT, SST_PH_GRID, SST_PH_SPECTRAL, SST_NPH };
extern const hpc_phase_def sst_phase_defs[SST_NPH];

typedef struct {
    int M, nlon, nlat, L, scheme;
    int nh;              /* hemisphere rows (nlat + 1) / 2: row h pairs with nlat-1-h */
    int nc;              /* complex Fourier coefficients per transform: nlon/2 + 1 */
    long ncoef;          /* spectral coefficients per level: (M+1)(M+2)/2 */
    long *off;           /* off[m]: first coefficient of wavenumber m (n = m..M follow) */
    int start;           /* SST_START_EULER or SST_START_CLASSIC */
    double a, omega, g, phibar, dt, robert;
    double *mu, *w;      /* Gaussian latitudes (sin) and weights, nlat */
    double *rinv, *r2;   /* 1/(a(1-mu^2)) and 1/(2(1-mu^2)) per latitude */
    double *coslon, *sinlon;  /* per longitude */
    double *P, *H;       /* per m at nh*off[m], northern rows only, by parity of n-m
                            (sst_legendre.c): P_n^m and (1-mu^2) dP/dmu */
    double *nn1;         /* n(n+1)/a^2 per coefficient */
    double *ainv;        /* a/(n(n+1)) per coefficient (0 for n = 0) */
    double *fcor;        /* Coriolis parameter [lat][lon] */
    /* Spectral state (three time levels) [coef][level] complex. */
    double complex *z[3], *d[3], *p[3];
    int old, cur, nxt;
    int first_step;      /* a start pass: no Robert-Asselin filter */
    int centred_start;   /* the classic start's second pass: old stays the initial state */
    int advect_only;     /* test case 1: winds fixed, only Phi advances */
    /* Transform work arrays. */
    double *SP, *SH;     /* synthesis inputs [coef][8L], [coef][4L] */
    double *AP, *AH;     /* analysis outputs [coef][8L], [coef][6L] */
    double *FS, *FN;     /* per-m synthesis, symmetric and antisymmetric parts [h][8L] */
    int syn_h0, syn_h1;  /* the hemisphere rows of the last sst_synth_m */
    double *FA;          /* per-m analysis input [row][10L] (rows as sst_rows) */
    double *ES, *ED;     /* its north + south and north - south [h][10L] */
    double *g4, *g5;     /* grid fields [lat][4][L][lon], [lat][5][L][lon] */
    hfft_complex *c4, *c5;
    hfft_plan *inv, *fwd;
    double startup_tables, startup_plans;  /* sst_init's seconds: Legendre tables, FFT plans */
    double flops_step;   /* exact flops of one leapfrog step (see sst_model.c) */
    double fft_flops, legendre_flops, grid_flops, spectral_flops;
    hpc_phases *phases;  /* NULL: untimed (set by the caller) */
    hpc_phases *timing;  /* phases while sst_run runs, else NULL */
} sst_model;

/* Checks the arguments; returns NULL and a message in err when they are bad
 * (aliasing grid, levels <= 0, ...). nlon/nlat 0: the smallest alias-free
 * grid with an FFT-friendly nlon (T42: 128 x 64). */
const char *sst_check_args(int M, int *nlon, int *nlat, int L);
/* The operation count of a step (sst_model.c's header), into flops_step. */
void sst_count_flops(sst_model *s);
void sst_init(sst_model *s, int M, int nlon, int nlat, int L, int scheme, double dt,
              double robert, int start);
void sst_free(sst_model *s);
/* sst_init without the whole grid's transform arrays and FFT plans (g4, g5, c4, c5: the serial
 * step's, the test cases' initial analysis, the height diagnostics): a psst rank other than
 * rank 0 uses its own block's (psst_grid.h); 0.45 GB a rank at T170 L18. */
void sst_init_spectral(sst_model *s, int M, int nlon, int nlat, int L, int scheme, double dt,
                       double robert, int start);
/* The state at cur (zeta, delta, Phi' of every level), to start again from it: psst's samples
 * restart from it rather than analyse the test case's whole grid on every rank every time.
 * NULL when out of memory. */
double complex *sst_save_state(const sst_model *s);
void sst_restore_state(sst_model *s, const double complex *saved);

/* The g5 field slots: C, E, A, B, D (the P analysis uses the first four, H the last three). */
enum { SST_C, SST_E, SST_A, SST_B, SST_D };

/* The pieces of one pass through the step code, per wavenumber m and a range of hemisphere
 * rows [h0, h1), i.e. the latitudes h0..h1-1 and their southern mirrors (sst_rows of them,
 * in the order of sst_row_lat; sst_run calls them for [0, nh), the parallel model on its
 * share); n counts the passes, sst_passes(s, nsteps) of them advance nsteps time steps:
 *   sst_begin_step(n); per m: sst_prep_m, sst_synth_m -> FS, FN,
 *   sst_fourier_row (zeta, Phi', U, V of a row and level); inverse FFTs;
 *   sst_grid_row per latitude and level; forward FFTs into FA rows;
 *   per m: sst_analyse_m -> AP, AH (partial sums over the latitudes given),
 *   sst_update_m(m, sst_tau(n)); sst_end_step. */
int sst_rows(const sst_model *s, int h0, int h1);
int sst_row_lat(const sst_model *s, int h0, int h1, int r);
int sst_passes(const sst_model *s, int nsteps);
/* The flops of those passes (the start passes have no Robert-Asselin filter). */
double sst_run_flops(const sst_model *s, int nsteps);
void sst_begin_step(sst_model *s, int n);
double sst_tau(const sst_model *s, int n);
void sst_prep_m(sst_model *s, int m);
void sst_synth_m(sst_model *s, int m, int h0, int h1);
void sst_fourier_row(const sst_model *s, int r, int l, double complex out[4]);
void sst_grid_row(const sst_model *s, int j, const double *const in[4], double *const out[5]);
/* sst_grid_row on the longitudes [i0, i1) only (in/out hold i1 - i0 points). */
void sst_grid_part(const sst_model *s, int j, int i0, int i1, const double *const in[4],
                   double *const out[5]);
void sst_analyse_m(sst_model *s, int m, int h0, int h1);
/* The flops of the Legendre pieces of m over [h0, h1), as done (sst_legendre.c). */
double sst_legendre_flops_m(const sst_model *s, int m, int h0, int h1);
void sst_update_m(sst_model *s, int m, double tau);
void sst_end_step(sst_model *s);

/* Library internals shared by its files. */
void sst_gauss(int n, double *x, double *w);
void sst_legendre_tables(sst_model *s);
void sst_synthesis(sst_model *s);  /* spectral state cur -> grid zeta, Phi', U, V in g4 */
void sst_analysis(sst_model *s);   /* grid fields in g5 -> projections in AP, AH */
#define SST_G5(s, j, f, l) ((s)->g5 + (((size_t)(j) * 5 + (f)) * (s)->L + (l)) * (s)->nlon)
#define SST_G4(s, j, f, l) ((s)->g4 + (((size_t)(j) * 4 + (f)) * (s)->L + (l)) * (s)->nlon)
/* Complex projections of slot f for coefficient k, level l. */
static inline double complex sst_projP(const sst_model *s, long k, int f, int l)
{
    const double *a = s->AP + (size_t)k * 8 * s->L + (size_t)f * 2 * s->L + 2 * l;
    return a[0] + I * a[1];
}
static inline double complex sst_projH(const sst_model *s, long k, int f, int l)
{
    const double *a = s->AH + (size_t)k * 6 * s->L + (size_t)(f - SST_A) * 2 * s->L + 2 * l;
    return a[0] + I * a[1];
}

/* Williamson et al. (1992) test cases: initial state on every level. */
void sst_set_tc1(sst_model *s, double alpha);
void sst_set_tc2(sst_model *s, double alpha);
void sst_set_tc6(sst_model *s);
/* nsteps time steps: the start (sst_model.c), then leapfrog steps. */
void sst_run(sst_model *s, int nsteps);
/* Height (m) of the current state on the grid, [lat][lon] for level l. */
void sst_height(sst_model *s, double *h, int l);
/* Analytic heights: test case 2 (steady), test case 6 (the wave moved by
 * its nondivergent phase speed: an approximation, not a solution). */
void sst_tc1_height(const sst_model *s, double alpha, double t, double *h);
void sst_tc2_height(const sst_model *s, double alpha, double *h);
void sst_tc6_height(const sst_model *s, double t, double *h);
/* The largest normalised l1, l2, linf height error a correct run of test case 1, 2 or 6 at
 * truncation M over days stays below (sst_model.c says where the numbers come from). */
double sst_error_bound(int test, int M, double days);
/* Williamson's normalised l1, l2, linf errors of h against ht. */
void sst_errors(const sst_model *s, const double *h, const double *ht, double err[3]);

#endif
