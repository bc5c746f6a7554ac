/* sst_step.c - the serial model's step (sst_run): the pieces of sst_model.c and the
 * transforms of sst_legendre.c over the whole grid, phase by phase. */
#include "sst_model.h"

#include <string.h>

/* ---- the serial step */

const hpc_phase_def sst_phase_defs[SST_NPH] = {
    {"legendre", HPC_KIND_COMPUTE}, {"fft", HPC_KIND_COMPUTE}, {"grid", HPC_KIND_COMPUTE},
    {"spectral", HPC_KIND_COMPUTE}};

/* Switch phase when the caller times phases (one clock read); only inside sst_run, as
 * synthesis() also serves the untimed diagnostics. */
#define PHASE(s, id)                      \
    do {                                  \
        if ((s)->timing)                  \
            hpc_phase_to((s)->timing, id); \
    } while (0)

/* Spectral state cur -> grid zeta, Phi', U, V in g4. */
void sst_synthesis(sst_model *s)
{
    int L = s->L, nlat = s->nlat, nc = s->nc;
    for (int m = 0; m <= s->M; m++) {
        sst_prep_m(s, m);
        sst_synth_m(s, m, 0, s->nh);
        for (int r = 0; r < nlat; r++)
            for (int l = 0; l < L; l++) {
                int j = sst_row_lat(s, 0, s->nh, r);
                double complex v[4];
                sst_fourier_row(s, r, l, v);
                for (int f = 0; f < 4; f++)
                    s->c4[((size_t)(j * 4 + f) * L + l) * nc + m] = v[f];
            }
    }
    /* Wavenumbers above M are zero; c2r overwrites its input, so reset them,
     * and the imaginary part of m = 0 (a real field's mean). */
    for (size_t t = 0; t < (size_t)nlat * 4 * L; t++) {
        hfft_complex *c = s->c4 + t * nc;
        c[0] = creal(c[0]);
        for (int k = s->M + 1; k < nc; k++)
            c[k] = 0.0;
    }
    PHASE(s, SST_PH_FFT);
    for (int j = 0; j < nlat; j++)  /* offsets keep the planned arrays' alignment */
        hfft_c2r(s->inv, s->c4 + (size_t)j * 4 * L * nc,
                 s->g4 + (size_t)j * 4 * L * s->nlon);
}

/* Grid fields in g5 -> per-coefficient P and H projections in AP, AH. */
void sst_analysis(sst_model *s)
{
    int L = s->L, nlat = s->nlat, nc = s->nc;
    PHASE(s, SST_PH_FFT);
    for (int j = 0; j < nlat; j++)
        hfft_r2c(s->fwd, s->g5 + (size_t)j * 5 * L * s->nlon,
                 s->c5 + (size_t)j * 5 * L * nc);
    PHASE(s, SST_PH_LEGENDRE);
    for (int m = 0; m <= s->M; m++) {
        for (int r = 0; r < nlat; r++) {
            double *fa = s->FA + (size_t)r * 10 * L;
            const hfft_complex *c = s->c5 + (size_t)sst_row_lat(s, 0, s->nh, r) * 5 * L * nc + m;
            for (int t = 0; t < 5 * L; t++) {
                fa[2 * t] = creal(c[(size_t)t * nc]);
                fa[2 * t + 1] = cimag(c[(size_t)t * nc]);
            }
        }
        sst_analyse_m(s, m, 0, s->nh);
    }
}

void sst_run(sst_model *s, int nsteps)
{
    s->timing = s->phases;
    for (int n = 0; n < sst_passes(s, nsteps); n++) {
        PHASE(s, SST_PH_SPECTRAL);
        sst_begin_step(s, n);
        PHASE(s, SST_PH_LEGENDRE);
        sst_synthesis(s);
        PHASE(s, SST_PH_GRID);
        for (int j = 0; j < s->nlat; j++)
            for (int l = 0; l < s->L; l++) {
                const double *in[4] = {SST_G4(s, j, 0, l), SST_G4(s, j, 1, l), SST_G4(s, j, 2, l),
                                       SST_G4(s, j, 3, l)};
                double *out[5] = {SST_G5(s, j, 0, l), SST_G5(s, j, 1, l), SST_G5(s, j, 2, l), SST_G5(s, j, 3, l),
                                  SST_G5(s, j, 4, l)};
                sst_grid_row(s, j, in, out);
            }
        sst_analysis(s);
        PHASE(s, SST_PH_SPECTRAL);
        for (int m = 0; m <= s->M; m++)
            sst_update_m(s, m, sst_tau(s, n));
        sst_end_step(s);
    }
    if (s->timing)
        hpc_phases_stop(s->timing);
    s->timing = NULL;
}

