/* psst_step.c - one pass of psst's step code on the process grid (psst.c describes the
 * variants): Legendre synthesis of a rank's wavenumbers at its latitudes, transpose or
 * distributed FFT, grid-point products, partial Legendre analysis, global sum, update. */
#include "psst_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fill_transposed(sst_model *s, pgrid *g, int mi);
static void finish_step(sst_model *s, pgrid *g, int n, void (*fill)(sst_model *, pgrid *, int));

void psst_pstep(sst_model *s, pgrid *g, int n)
{
    int L = s->L, nc = s->nc, me = g->q, nmy = g->nms[me];
    PSST_PH(g, SST_PH_SPECTRAL);
    sst_begin_step(s, n);
    /* Synthesis of my wavenumbers at my latitudes, into the send buffer. */
    psst_layout(g, 8, 1);
    for (int mi = 0; mi < nmy; mi++) {
        int m = g->msets[me][mi];
        PSST_PH(g, SST_PH_LEGENDRE);
        sst_prep_m(s, m);
        sst_synth_m(s, m, g->h0, g->h1);
        PSST_PH(g, PSST_PH_PACK);  /* the Fourier rows are formed straight into the send buffer */
        for (int q = 0; q < g->Q; q++)
            for (int u = g->ua[q]; u < g->ub[q]; u++) {
                double complex v[4];
                sst_fourier_row(s, u / L, u % L, v);
                double *b = g->sbuf + g->sdsp[q] + ((size_t)(u - g->ua[q]) * nmy + mi) * 8;
                for (int f = 0; f < 4; f++) {
                    b[2 * f] = creal(v[f]);
                    b[2 * f + 1] = cimag(v[f]);
                }
            }
    }
    PSST_PH(g, PSST_PH_TRANSPOSE);
    psst_exchange(g, 8);
    PSST_PH(g, PSST_PH_PACK);
    memset(g->c4, 0, (size_t)g->nu * 4 * nc * sizeof(hfft_complex));
    for (int q = 0; q < g->Q; q++)
        for (int ul = 0; ul < g->nu; ul++)
            for (int mi = 0; mi < g->nms[q]; mi++) {
                int m = g->msets[q][mi];
                const double *b = g->rbuf + g->rdsp[q] + ((size_t)ul * g->nms[q] + mi) * 8;
                for (int f = 0; f < 4; f++)
                    g->c4[(size_t)(ul * 4 + f) * nc + m] = m ? b[2 * f] + I * b[2 * f + 1] : b[2 * f];
            }
    PSST_PH(g, SST_PH_FFT);
    if (g->nu > 0)
        hfft_c2r(g->inv, g->c4, g->g4);
    PSST_PH(g, SST_PH_GRID);
    for (int ul = 0; ul < g->nu; ul++) {
        int u = g->ua[me] + ul, j = sst_row_lat(s, g->h0, g->h1, u / L);
        const double *in[4];
        double *out[5];
        for (int f = 0; f < 4; f++)
            in[f] = g->g4 + (size_t)(ul * 4 + f) * s->nlon;
        for (int f = 0; f < 5; f++)
            out[f] = g->g5 + (size_t)(ul * 5 + f) * s->nlon;
        sst_grid_row(s, j, in, out);
    }
    PSST_PH(g, SST_PH_FFT);
    if (g->nu > 0)
        hfft_r2c(g->fwd, g->g5, g->c5);
    /* Back: my units x each owner's wavenumbers. */
    PSST_PH(g, PSST_PH_PACK);
    psst_layout(g, 10, 0);
    for (int q = 0; q < g->Q; q++)
        for (int ul = 0; ul < g->nu; ul++)
            for (int mi = 0; mi < g->nms[q]; mi++) {
                int m = g->msets[q][mi];
                double *b = g->sbuf + g->sdsp[q] + ((size_t)ul * g->nms[q] + mi) * 10;
                for (int f = 0; f < 5; f++) {
                    hfft_complex c = g->c5[(size_t)(ul * 5 + f) * nc + m];
                    b[2 * f] = creal(c);
                    b[2 * f + 1] = cimag(c);
                }
            }
    PSST_PH(g, PSST_PH_TRANSPOSE);
    psst_exchange(g, 10);
    finish_step(s, g, n, fill_transposed);
}

/* FA rows of wavenumber index mi from the transpose's receive buffer. */
static void fill_transposed(sst_model *s, pgrid *g, int mi)
{
    int L = s->L, nmy = g->nms[g->q];
    for (int q = 0; q < g->Q; q++)
        for (int u = g->ua[q]; u < g->ub[q]; u++) {
            const double *b = g->rbuf + g->rdsp[q] + ((size_t)(u - g->ua[q]) * nmy + mi) * 10;
            double *fa = s->FA + (size_t)(u / L) * 10 * L;
            int l = u % L;
            for (int f = 0; f < 5; f++) {
                fa[(size_t)f * 2 * L + 2 * l] = b[2 * f];
                fa[(size_t)f * 2 * L + 2 * l + 1] = b[2 * f + 1];
            }
        }
}

/* Partial Legendre analysis over my latitudes, the sum over the column, the update. */
static void finish_step(sst_model *s, pgrid *g, int n, void (*fill)(sst_model *, pgrid *, int))
{
    int L = s->L, me = g->q, nmy = g->nms[me];
    size_t packed = 0;
    for (int mi = 0; mi < nmy; mi++) {
        int m = g->msets[me][mi];
        PSST_PH(g, PSST_PH_PACK);
        fill(s, g, mi);
        PSST_PH(g, SST_PH_LEGENDRE);
        sst_analyse_m(s, m, g->h0, g->h1);
        PSST_PH(g, PSST_PH_PACK);
        size_t np = (size_t)(s->off[m + 1] - s->off[m]) * 8 * L;
        size_t nh = (size_t)(s->off[m + 1] - s->off[m]) * 6 * L;
        memcpy(g->red + packed, s->AP + (size_t)s->off[m] * 8 * L, np * 8);
        memcpy(g->red + packed + np, s->AH + (size_t)s->off[m] * 6 * L, nh * 8);
        packed += np + nh;
    }
    PSST_PH(g, PSST_PH_GSUM);
    psst_global_sum(g, g->red, (int)packed);
    packed = 0;
    for (int mi = 0; mi < nmy; mi++) {
        int m = g->msets[me][mi];
        size_t np = (size_t)(s->off[m + 1] - s->off[m]) * 8 * L;
        size_t nh = (size_t)(s->off[m + 1] - s->off[m]) * 6 * L;
        PSST_PH(g, PSST_PH_PACK);
        memcpy(s->AP + (size_t)s->off[m] * 8 * L, g->red + packed, np * 8);
        memcpy(s->AH + (size_t)s->off[m] * 6 * L, g->red + packed + np, nh * 8);
        packed += np + nh;
        PSST_PH(g, SST_PH_SPECTRAL);
        sst_update_m(s, m, sst_tau(s, n));
    }
    sst_end_step(s);
}

/* FA rows of my wavenumber index mi from the distributed forward FFT (k = q + Q k2). */
static void fill_distributed(sst_model *s, pgrid *g, int mi)
{
    int L = s->L, k2 = (g->msets[g->q][mi] - g->q) / g->Q;
    for (int u = 0; u < g->nud; u++) {
        double *fa = s->FA + (size_t)(u / L) * 10 * L;
        int l = u % L;
        for (int f = 0; f < 5; f++) {
            hfft_complex c = g->z5[((size_t)u * 5 + f) * g->n + k2];
            fa[(size_t)f * 2 * L + 2 * l] = creal(c);
            fa[(size_t)f * 2 * L + 2 * l + 1] = cimag(c);
        }
    }
}

/* A step with the distributed FFT: the row's ranks hold every unit of the block, the
 * wavenumbers m = q (mod Q) and the longitudes [n t, n t + n). Inverse: local length-n DFTs of
 * the one-sided spectrum (Z_0 = c_0, Z_m = 2 c_m: x = Re sum Z_k e^{2 pi i k x/nlon}), twiddles,
 * log2(Q) exchange stages; forward: the adjoint in reverse order. */
void psst_dstep(sst_model *s, pgrid *g, int n)
{
    int L = s->L, me = g->q, nmy = g->nms[me], nn = g->n;
    size_t c4 = (size_t)g->nud * 4 * nn, c5 = (size_t)g->nud * 5 * nn;
    PSST_PH(g, SST_PH_SPECTRAL);
    sst_begin_step(s, n);
    PSST_PH(g, PSST_PH_PACK);
    memset(g->z4, 0, c4 * sizeof(hfft_complex));
    for (int mi = 0; mi < nmy; mi++) {
        int m = g->msets[me][mi], k2 = (m - me) / g->Q;
        PSST_PH(g, SST_PH_LEGENDRE);
        sst_prep_m(s, m);
        sst_synth_m(s, m, g->h0, g->h1);
        PSST_PH(g, PSST_PH_PACK);
        for (int u = 0; u < g->nud; u++) {
            double complex v[4];
            sst_fourier_row(s, u / L, u % L, v);
            for (int f = 0; f < 4; f++)
                g->z4[((size_t)u * 4 + f) * nn + k2] = m ? 2 * v[f] : creal(v[f]);
        }
    }
    PSST_PH(g, SST_PH_FFT);
    hfft_c2c(g->dinv, g->z4);
    for (size_t v = 0; v < c4; v += nn)
        for (int k = 0; k < nn; k++)
            g->z4[v + k] *= g->tw[k];
    for (int d = g->Q / 2; d >= 1; d /= 2)
        psst_bx_stage(g, g->z4, c4, d, 1);
    for (size_t x = 0; x < c4; x++)
        g->x4[x] = creal(g->z4[x]);
    PSST_PH(g, SST_PH_GRID);
    for (int u = 0; u < g->nud; u++) {
        const double *in[4];
        double *out[5];
        for (int f = 0; f < 4; f++)
            in[f] = g->x4 + ((size_t)u * 4 + f) * nn;
        for (int f = 0; f < 5; f++)
            out[f] = g->x5 + ((size_t)u * 5 + f) * nn;
        sst_grid_part(s, sst_row_lat(s, g->h0, g->h1, u / L), nn * g->t, nn * g->t + nn, in,
                      out);
    }
    PSST_PH(g, SST_PH_FFT);
    for (size_t x = 0; x < c5; x++)
        g->z5[x] = g->x5[x];
    for (int d = 1; d < g->Q; d *= 2)
        psst_bx_stage(g, g->z5, c5, d, 0);
    for (size_t v = 0; v < c5; v += nn)
        for (int k = 0; k < nn; k++)
            g->z5[v + k] *= conj(g->tw[k]);
    hfft_c2c(g->dfwd, g->z5);
    finish_step(s, g, n, fill_distributed);
}

/* This rank's flops per step, by the serial model's conventions (sst_count_flops): the
 * Legendre sums of its wavenumbers at its latitudes as done (whole north/south pairs, the
 * symmetric sums over its hemisphere rows: sst_legendre_flops_m), its FFTs and grid-point products, and the
 * spectral update of its wavenumbers, which every rank of a column repeats (the replicated
 * coefficients: duplicated work, P - 1 extra copies in all). The distributed FFT counts what
 * it does instead of a real FFT: complex length-n DFTs (5 n log2 n) of every unit's 9 fields,
 * the twiddles (6 n) and log2 Q butterfly stages (8 flops per complex element). */
double psst_rank_flops(const sst_model *s, const pgrid *g)
{
    double per_coef = s->spectral_flops / (double)s->ncoef;
    double f = 0;
    for (int mi = 0; mi < g->nms[g->q]; mi++) {
        int m = g->msets[g->q][mi];
        f += sst_legendre_flops_m(s, m, g->h0, g->h1) + per_coef * (s->M - m + 1);
    }
    if (g->transpose == 2) {
        double n = g->n, stages = log2((double)g->Q);
        f += 9.0 * g->nud * (5 * n * log2(n) + 6 * n + 8 * n * stages) + 11.0 * g->nud * n;
    } else {
        double n = s->nlon;
        f += 9.0 * g->nu * 2.5 * n * log2(n) + 11.0 * g->nu * n;
    }
    return f;
}


/* Every rank gets the whole state at cur (each row holds all wavenumbers once). */
void psst_gather_state(sst_model *s, pgrid *g)
{
    size_t ns = (size_t)s->ncoef * s->L;
    double complex *f[3] = {s->z[s->cur], s->d[s->cur], s->p[s->cur]};
    char *mine = calloc((size_t)s->M + 1, 1);
    for (int mi = 0; mi < g->nms[g->q]; mi++)
        mine[g->msets[g->q][mi]] = 1;
    for (int t = 0; t < 3; t++) {
        for (int m = 0; m <= s->M; m++)
            if (!mine[m])
                memset(f[t] + (size_t)s->off[m] * s->L, 0,
                       (size_t)(s->off[m + 1] - s->off[m]) * s->L * sizeof(double complex));
        MPI_Allreduce(MPI_IN_PLACE, (double *)f[t], (int)(2 * ns), MPI_DOUBLE, MPI_SUM, g->row);
    }
    free(mine);
}
