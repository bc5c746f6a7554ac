/* psst.c - the shallow water model of sst.c on a P x Q process grid.
 *
 * Decomposition (as PSTSWM's transpose variants): rank (p, q) owns the
 * latitudes of block p (contiguous, P blocks) and the zonal wavenumbers of set
 * q (M+1 wavenumbers dealt to Q sets in a folded order 0..Q-1, Q-1..0, ... for
 * balance). A step:
 *   Legendre synthesis of its wavenumbers at its latitudes (no communication);
 *   transpose inside the row of ranks sharing p: each rank then holds every
 *   wavenumber of a share of the (latitude, level) pairs of the block, does the
 *   inverse FFTs, the grid-point products and the forward FFTs of its pairs,
 *   and a transpose back returns wavenumbers to their owners;
 *   Legendre analysis over its latitudes: partial sums, summed over the
 *   column of ranks sharing q (the P latitude blocks); every rank of a column
 *   then advances the same spectral coefficients (replicated).
 * Variants (all parameters): the transpose by MPI_Alltoallv or by a
 * hand-written pairwise exchange (Q-1 MPI_Sendrecv steps, partner q+k / q-k);
 * the global sum by MPI_Allreduce or by a hand-written ring (the partial sums
 * travel 0 -> 1 -> ... -> P-1 adding in that fixed order, and the total travels
 * on around the ring); every aspect ratio P x Q = nranks; rank r at (r / Q,
 * r % Q) (row-major) or (r % P, r / P) (column-major).
 * FFT variant "distributed" (PSTSWM's distributed FFT, Q a power of two dividing
 * nlon): no transpose; every rank of a row keeps all (latitude, level) pairs
 * of the block, owns the wavenumbers m = q (mod Q) and the longitudes
 * [n t, n t + n), n = nlon/Q, t = bitrev(q). The inverse FFT is a complex DFT
 * of the one-sided spectrum (real part taken): local length-n DFTs of the
 * cyclic samples k = q + Q k2, twiddles, then log2(Q) binary-exchange stages
 * (MPI_Sendrecv of the whole local block with rank q ^ d, d = Q/2 .. 1); the
 * forward FFT is its adjoint (stages d = 1 .. Q/2, twiddles, local DFTs),
 * which leaves c_m for m = q (mod Q) where the Legendre analysis needs it.
 *
 * Verification, outside the timing, once per configuration: the final
 * spectral state is compared with the serial model's (sst_run, same library)
 * on rank 0: the largest difference relative to the largest coefficient must
 * be below 1e-12 (round-off: the latitude sums are split into blocks, so the
 * results are not bitwise equal in general; the record says how many
 * coefficients differ at all). After every integration the state must be finite and its
 * height errors finite and within the test case's bound (--bound, 0: sst_error_bound), as in
 * sst.c. The leapfrog starts as --start says (sst_model.c).
 *
 * Metrics: seconds per integration (slowest rank), MFlop/s in all (the serial
 * operation count / time), simulated days per day. The run_time record carries
 * each rank's phase timers (phases.h: legendre, fft, grid, spectral, pack,
 * transpose, global_sum) in us per pass through the step code (the classic
 * start makes one pass more than steps), mean over the kept samples.
 */
#include "harness.h"
#include "lib/sst_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "truncation", .type = HPC_INT, .def = "21", .min = 1, .max = 1000,
     .help = "triangular truncation M"},
    {.name = "levels", .type = HPC_INT, .def = "1", .min = -1000000, .max = 4096,
     .help = "levels transformed together"},
    {.name = "grids", .type = HPC_STRING, .def = "all",
     .help = "process grids PxQ, comma-separated (all: every P x Q = ranks)"},
    {.name = "mappings", .type = HPC_STRING, .def = "row,col", .help = "rank mappings: row, col"},
    {.name = "transposes", .type = HPC_STRING, .def = "alltoallv,pairwise",
     .help = "FFT: transpose by alltoallv or pairwise, or distributed (binary exchange; Q a "
             "power of two dividing nlon)"},
    {.name = "sums", .type = HPC_STRING, .def = "allreduce,ring",
     .help = "global sum of the Legendre analysis: allreduce, ring"},
    {.name = "test", .type = HPC_INT, .def = "2", .min = 2, .max = 6, .help = "test case 2 or 6"},
    {.name = "alpha", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 1.5707963267948966,
     .help = "test case 2 flow angle (radians)"},
    {.name = "days", .type = HPC_DOUBLE, .def = "1", .min = 1e-3, .max = 1000,
     .help = "simulated days per integration"},
    {.name = "start", .type = HPC_CHOICE, .def = "classic", .choices = "classic|euler",
     .help = "leapfrog start: classic (forward dt/2, then centred dt) or euler (forward dt)"},
    {.name = "bound", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 100,
     .help = "largest normalised height error allowed (0: the test case's own, as sst)"},
    {0}};

static const double SERIAL_TOL = 1e-12;

/* Phase timers of a step (phases.h): the serial model's compute phases plus buffer copies
 * (pack/unpack around the exchanges) and the two communication phases. */
enum { PH_PACK = SST_NPH, PH_TRANSPOSE, PH_GSUM, NPH };
static hpc_phases ph;
#define PH(id) hpc_phase_to(&ph, id)

typedef struct {
    int P, Q, p, q, transpose, sum;   /* transpose 0 alltoallv 1 pairwise 2 distributed FFT;
                                         sum 0 allreduce 1 ring */
    MPI_Comm row, col;                /* ranks sharing p (size Q), sharing q (size P) */
    int h0, h1, nrows;                /* my latitudes: hemisphere rows [h0, h1) and their
                                         mirrors (whole north/south pairs: sst_legendre.c) */
    int *nms, **msets;                /* per q: wavenumber count and list */
    int *ua, *ub;                     /* per q: FFT units [ua, ub) of the row's block */
    int nu;                           /* my units */
    double *g4, *g5;
    fftw_complex *c4, *c5;
    fftw_plan inv, fwd;
    double *sbuf, *rbuf, *red, *tmp;
    int *scnt, *sdsp, *rcnt, *rdsp;
    /* Distributed FFT: n = nlon/Q longitudes (block t = bitrev(q)) of every unit of the block. */
    int n, t, nud;
    fftw_complex *z4, *z5, *zp, *tw;  /* [unit][field][n]; partner's copy; exp(2 pi i q k/nlon) */
    double *x4, *x5;                  /* my longitudes, real */
    fftw_plan dinv, dfwd;
} pgrid;

static int lat0(int nlat, int P, int p) { return (int)((long)nlat * p / P); }

static void exchange(pgrid *g, int per)  /* per: doubles per (unit, m) entry on both sides */
{
    (void)per;
    if (g->transpose == 0) {
        MPI_Alltoallv(g->sbuf, g->scnt, g->sdsp, MPI_DOUBLE, g->rbuf, g->rcnt, g->rdsp,
                      MPI_DOUBLE, g->row);
        return;
    }
    memcpy(g->rbuf + g->rdsp[g->q], g->sbuf + g->sdsp[g->q], (size_t)g->scnt[g->q] * 8);
    for (int k = 1; k < g->Q; k++) {
        int to = (g->q + k) % g->Q, from = (g->q - k + g->Q) % g->Q;
        MPI_Sendrecv(g->sbuf + g->sdsp[to], g->scnt[to], MPI_DOUBLE, to, 7, g->rbuf + g->rdsp[from],
                     g->rcnt[from], MPI_DOUBLE, from, 7, g->row, MPI_STATUS_IGNORE);
    }
}

static void global_sum(pgrid *g, double *x, int n)
{
    if (g->P == 1)
        return;
    if (g->sum == 0) {
        MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, g->col);
        return;
    }
    /* Ring: partial sums 0 -> 1 -> ... -> P-1 (fixed order), then the total on
     * around, P-1 -> 0 -> 1 -> ... -> P-2: every rank gets the same bits. */
    int p = g->p, P = g->P;
    if (p > 0) {
        MPI_Recv(g->tmp, n, MPI_DOUBLE, p - 1, 8, g->col, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            x[i] = g->tmp[i] + x[i];
    }
    if (p < P - 1) {
        MPI_Send(x, n, MPI_DOUBLE, p + 1, 8, g->col);
        MPI_Recv(x, n, MPI_DOUBLE, p == 0 ? P - 1 : p - 1, 9, g->col, MPI_STATUS_IGNORE);
        if (p < P - 2)
            MPI_Send(x, n, MPI_DOUBLE, p + 1, 9, g->col);
    } else {
        MPI_Send(x, n, MPI_DOUBLE, 0, 9, g->col);
    }
}

static void setup_distributed(pgrid *g, sst_model *s);

static void setup(pgrid *g, sst_model *s, int P, int Q, int colmajor, int transpose)
{
    memset(g, 0, sizeof *g);
    g->P = P;
    g->Q = Q;
    g->p = colmajor ? hpc_rank % P : hpc_rank / Q;
    g->q = colmajor ? hpc_rank / P : hpc_rank % Q;
    MPI_Comm_split(MPI_COMM_WORLD, g->p, g->q, &g->row);
    MPI_Comm_split(MPI_COMM_WORLD, g->q + 1000000, g->p, &g->col);
    g->h0 = lat0(s->nh, P, g->p);
    g->h1 = lat0(s->nh, P, g->p + 1);
    g->nrows = sst_rows(s, g->h0, g->h1);
    g->nms = calloc((size_t)Q, sizeof *g->nms);
    g->msets = calloc((size_t)Q, sizeof *g->msets);
    for (int q = 0; q < Q; q++)
        g->msets[q] = calloc((size_t)s->M + 1, sizeof(int));
    g->transpose = transpose;
    for (int m = 0; m <= s->M; m++) {
        int r = m % (2 * Q), q = r < Q ? r : 2 * Q - 1 - r;  /* folded: balances long and short m */
        if (transpose == 2)
            q = m % Q;  /* cyclic: the distributed FFT's input layout (k = q + Q k2) */
        g->msets[q][g->nms[q]++] = m;
    }
    if (transpose == 2)
        setup_distributed(g, s);
    int units = g->nrows * s->L;
    g->ua = calloc((size_t)Q, sizeof(int));
    g->ub = calloc((size_t)Q, sizeof(int));
    for (int q = 0; q < Q; q++) {
        g->ua[q] = (int)((long)units * q / Q);
        g->ub[q] = (int)((long)units * (q + 1) / Q);
    }
    g->nu = g->ub[g->q] - g->ua[g->q];
    int nu = g->nu > 0 ? g->nu : 1, nc = s->nc, n = s->nlon;
    g->g4 = fftw_malloc((size_t)nu * 4 * n * sizeof(double));
    g->g5 = fftw_malloc((size_t)nu * 5 * n * sizeof(double));
    g->c4 = fftw_malloc((size_t)nu * 4 * nc * sizeof(fftw_complex));
    g->c5 = fftw_malloc((size_t)nu * 5 * nc * sizeof(fftw_complex));
    g->inv = fftw_plan_many_dft_c2r(1, &n, nu * 4, g->c4, NULL, 1, nc, g->g4, NULL, 1, n,
                                    FFTW_MEASURE);
    g->fwd = fftw_plan_many_dft_r2c(1, &n, nu * 5, g->g5, NULL, 1, n, g->c5, NULL, 1, nc,
                                    FFTW_MEASURE);
    size_t big = (size_t)units * (s->M + 1) * 5 * 2 + 16;
    g->sbuf = malloc(big * sizeof(double));
    g->rbuf = malloc(big * sizeof(double));
    size_t nred = (size_t)s->ncoef * 14 * s->L + 16;
    g->red = malloc(nred * sizeof(double));
    g->tmp = malloc(nred * sizeof(double));
    g->scnt = calloc((size_t)Q, sizeof(int));
    g->sdsp = calloc((size_t)Q, sizeof(int));
    g->rcnt = calloc((size_t)Q, sizeof(int));
    g->rdsp = calloc((size_t)Q, sizeof(int));
    if (!g->g4 || !g->g5 || !g->c4 || !g->c5 || !g->inv || !g->fwd || !g->sbuf || !g->rbuf
        || !g->red || !g->tmp)
        hpc_fail("psst: cannot allocate the transpose buffers");
}

static void teardown(pgrid *g)
{
    if (g->transpose == 2) {
        fftw_destroy_plan(g->dinv);
        fftw_destroy_plan(g->dfwd);
        fftw_free(g->z4); fftw_free(g->z5); fftw_free(g->zp); fftw_free(g->tw);
        free(g->x4); free(g->x5);
    }
    fftw_destroy_plan(g->inv);
    fftw_destroy_plan(g->fwd);
    fftw_free(g->g4); fftw_free(g->g5); fftw_free(g->c4); fftw_free(g->c5);
    free(g->sbuf); free(g->rbuf); free(g->red); free(g->tmp);
    free(g->scnt); free(g->sdsp); free(g->rcnt); free(g->rdsp);
    for (int q = 0; q < g->Q; q++)
        free(g->msets[q]);
    free(g->msets); free(g->nms); free(g->ua); free(g->ub);
    MPI_Comm_free(&g->row);
    MPI_Comm_free(&g->col);
}

static void setup_distributed(pgrid *g, sst_model *s)
{
    int n = s->nlon / g->Q, lg = 0, t = 0;
    while ((1 << lg) < g->Q)
        lg++;
    for (int b = 0; b < lg; b++)  /* bit reversal of q: the DIF stages leave block bitrev(q) here */
        t |= ((g->q >> b) & 1) << (lg - 1 - b);
    g->n = n;
    g->t = t;
    g->nud = g->nrows * s->L;
    size_t nv = (size_t)g->nud * 5 * n;
    g->z4 = fftw_malloc(nv * sizeof(fftw_complex));
    g->z5 = fftw_malloc(nv * sizeof(fftw_complex));
    g->zp = fftw_malloc(nv * sizeof(fftw_complex));
    g->tw = fftw_malloc((size_t)n * sizeof(fftw_complex));
    g->x4 = malloc(nv * sizeof(double));
    g->x5 = malloc(nv * sizeof(double));
    if (!g->z4 || !g->z5 || !g->zp || !g->tw || !g->x4 || !g->x5)
        hpc_fail("psst: cannot allocate the distributed FFT buffers");
    for (int k = 0; k < n; k++)
        g->tw[k] = cexp(2 * M_PI * I * ((double)g->q * k / s->nlon));
    g->dinv = fftw_plan_many_dft(1, &n, g->nud * 4, g->z4, NULL, 1, n, g->z4, NULL, 1, n,
                                 FFTW_BACKWARD, FFTW_MEASURE);
    g->dfwd = fftw_plan_many_dft(1, &n, g->nud * 5, g->z5, NULL, 1, n, g->z5, NULL, 1, n,
                                 FFTW_FORWARD, FFTW_MEASURE);
    if (!g->dinv || !g->dfwd)
        hpc_fail("psst: cannot plan the local FFTs of the distributed FFT");
}

/* One binary-exchange stage across the row: every element of z (cnt complex) pairs with the
 * same element on rank q ^ d. Inverse (DIF, d = Q/2 .. 1): lower a + c, upper (a - c) w^j;
 * forward (its adjoint, d = 1 .. Q/2): lower L + conj(w^j) U, upper L - conj(w^j) U; w = e^{i pi/d},
 * j = the lower rank's position in its block of 2d ranks. */
static void bx_stage(pgrid *g, fftw_complex *z, size_t cnt, int d, int inverse)
{
    int q = g->q, upper = (q & d) != 0, j = (q & ~d) % (2 * d);
    PH(PH_TRANSPOSE);
    MPI_Sendrecv(z, (int)(2 * cnt), MPI_DOUBLE, q ^ d, 11, g->zp, (int)(2 * cnt), MPI_DOUBLE, q ^ d,
                 11, g->row, MPI_STATUS_IGNORE);
    PH(SST_PH_FFT);
    double complex w = cexp(I * M_PI * j / d), *zp = g->zp;
    if (inverse) {
        if (!upper)
            for (size_t x = 0; x < cnt; x++)
                z[x] = z[x] + zp[x];
        else
            for (size_t x = 0; x < cnt; x++)
                z[x] = (zp[x] - z[x]) * w;
    } else {
        w = conj(w);
        if (!upper)
            for (size_t x = 0; x < cnt; x++)
                z[x] = z[x] + w * zp[x];
        else
            for (size_t x = 0; x < cnt; x++)
                z[x] = zp[x] - w * z[x];
    }
}

/* Counts and displacements (doubles) for entries of `per` doubles: I send my
 * wavenumbers x q's units (to_units = 1) or my units x q's wavenumbers. */
static void layout(pgrid *g, int per, int synth)
{
    int me = g->q, s = 0, r = 0;
    for (int q = 0; q < g->Q; q++) {
        int units_q = g->ub[q] - g->ua[q];
        g->scnt[q] = synth ? units_q * g->nms[me] * per : g->nu * g->nms[q] * per;
        g->rcnt[q] = synth ? g->nu * g->nms[q] * per : units_q * g->nms[me] * per;
        g->sdsp[q] = s;
        g->rdsp[q] = r;
        s += g->scnt[q];
        r += g->rcnt[q];
    }
}

static void fill_transposed(sst_model *s, pgrid *g, int mi);
static void finish_step(sst_model *s, pgrid *g, int n, void (*fill)(sst_model *, pgrid *, int));

static void pstep(sst_model *s, pgrid *g, int n)
{
    int L = s->L, nc = s->nc, me = g->q, nmy = g->nms[me];
    PH(SST_PH_SPECTRAL);
    sst_begin_step(s, n);
    /* Synthesis of my wavenumbers at my latitudes, into the send buffer. */
    layout(g, 8, 1);
    for (int mi = 0; mi < nmy; mi++) {
        int m = g->msets[me][mi];
        PH(SST_PH_LEGENDRE);
        sst_prep_m(s, m);
        sst_synth_m(s, m, g->h0, g->h1);
        PH(PH_PACK);  /* the Fourier rows are formed straight into the send buffer */
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
    PH(PH_TRANSPOSE);
    exchange(g, 8);
    PH(PH_PACK);
    memset(g->c4, 0, (size_t)g->nu * 4 * nc * sizeof(fftw_complex));
    for (int q = 0; q < g->Q; q++)
        for (int ul = 0; ul < g->nu; ul++)
            for (int mi = 0; mi < g->nms[q]; mi++) {
                int m = g->msets[q][mi];
                const double *b = g->rbuf + g->rdsp[q] + ((size_t)ul * g->nms[q] + mi) * 8;
                for (int f = 0; f < 4; f++)
                    g->c4[(size_t)(ul * 4 + f) * nc + m] = m ? b[2 * f] + I * b[2 * f + 1] : b[2 * f];
            }
    PH(SST_PH_FFT);
    if (g->nu > 0)
        fftw_execute(g->inv);
    PH(SST_PH_GRID);
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
    PH(SST_PH_FFT);
    if (g->nu > 0)
        fftw_execute(g->fwd);
    /* Back: my units x each owner's wavenumbers. */
    PH(PH_PACK);
    layout(g, 10, 0);
    for (int q = 0; q < g->Q; q++)
        for (int ul = 0; ul < g->nu; ul++)
            for (int mi = 0; mi < g->nms[q]; mi++) {
                int m = g->msets[q][mi];
                double *b = g->sbuf + g->sdsp[q] + ((size_t)ul * g->nms[q] + mi) * 10;
                for (int f = 0; f < 5; f++) {
                    fftw_complex c = g->c5[(size_t)(ul * 5 + f) * nc + m];
                    b[2 * f] = creal(c);
                    b[2 * f + 1] = cimag(c);
                }
            }
    PH(PH_TRANSPOSE);
    exchange(g, 10);
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
        PH(PH_PACK);
        fill(s, g, mi);
        PH(SST_PH_LEGENDRE);
        sst_analyse_m(s, m, g->h0, g->h1);
        PH(PH_PACK);
        size_t np = (size_t)(s->off[m + 1] - s->off[m]) * 8 * L;
        size_t nh = (size_t)(s->off[m + 1] - s->off[m]) * 6 * L;
        memcpy(g->red + packed, s->AP + (size_t)s->off[m] * 8 * L, np * 8);
        memcpy(g->red + packed + np, s->AH + (size_t)s->off[m] * 6 * L, nh * 8);
        packed += np + nh;
    }
    PH(PH_GSUM);
    global_sum(g, g->red, (int)packed);
    packed = 0;
    for (int mi = 0; mi < nmy; mi++) {
        int m = g->msets[me][mi];
        size_t np = (size_t)(s->off[m + 1] - s->off[m]) * 8 * L;
        size_t nh = (size_t)(s->off[m + 1] - s->off[m]) * 6 * L;
        PH(PH_PACK);
        memcpy(s->AP + (size_t)s->off[m] * 8 * L, g->red + packed, np * 8);
        memcpy(s->AH + (size_t)s->off[m] * 6 * L, g->red + packed + np, nh * 8);
        packed += np + nh;
        PH(SST_PH_SPECTRAL);
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
            fftw_complex c = g->z5[((size_t)u * 5 + f) * g->n + k2];
            fa[(size_t)f * 2 * L + 2 * l] = creal(c);
            fa[(size_t)f * 2 * L + 2 * l + 1] = cimag(c);
        }
    }
}

/* A step with the distributed FFT: the row's ranks hold every unit of the block, the
 * wavenumbers m = q (mod Q) and the longitudes [n t, n t + n). Inverse: local length-n DFTs of
 * the one-sided spectrum (Z_0 = c_0, Z_m = 2 c_m: x = Re sum Z_k e^{2 pi i k x/nlon}), twiddles,
 * log2(Q) exchange stages; forward: the adjoint in reverse order. */
static void dstep(sst_model *s, pgrid *g, int n)
{
    int L = s->L, me = g->q, nmy = g->nms[me], nn = g->n;
    size_t c4 = (size_t)g->nud * 4 * nn, c5 = (size_t)g->nud * 5 * nn;
    PH(SST_PH_SPECTRAL);
    sst_begin_step(s, n);
    PH(PH_PACK);
    memset(g->z4, 0, c4 * sizeof(fftw_complex));
    for (int mi = 0; mi < nmy; mi++) {
        int m = g->msets[me][mi], k2 = (m - me) / g->Q;
        PH(SST_PH_LEGENDRE);
        sst_prep_m(s, m);
        sst_synth_m(s, m, g->h0, g->h1);
        PH(PH_PACK);
        for (int u = 0; u < g->nud; u++) {
            double complex v[4];
            sst_fourier_row(s, u / L, u % L, v);
            for (int f = 0; f < 4; f++)
                g->z4[((size_t)u * 4 + f) * nn + k2] = m ? 2 * v[f] : creal(v[f]);
        }
    }
    PH(SST_PH_FFT);
    fftw_execute(g->dinv);
    for (size_t v = 0; v < c4; v += nn)
        for (int k = 0; k < nn; k++)
            g->z4[v + k] *= g->tw[k];
    for (int d = g->Q / 2; d >= 1; d /= 2)
        bx_stage(g, g->z4, c4, d, 1);
    for (size_t x = 0; x < c4; x++)
        g->x4[x] = creal(g->z4[x]);
    PH(SST_PH_GRID);
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
    PH(SST_PH_FFT);
    for (size_t x = 0; x < c5; x++)
        g->z5[x] = g->x5[x];
    for (int d = 1; d < g->Q; d *= 2)
        bx_stage(g, g->z5, c5, d, 0);
    for (size_t v = 0; v < c5; v += nn)
        for (int k = 0; k < nn; k++)
            g->z5[v + k] *= conj(g->tw[k]);
    fftw_execute(g->dfwd);
    finish_step(s, g, n, fill_distributed);
}

/* This rank's flops per step, by the serial model's conventions (sst_count_flops): the
 * Legendre sums of its wavenumbers at its latitudes, its FFTs and grid-point products, and the
 * spectral update of its wavenumbers, which every rank of a column repeats (the replicated
 * coefficients: duplicated work, P - 1 extra copies in all). The distributed FFT counts what
 * it does instead of a real FFT: complex length-n DFTs (5 n log2 n) of every unit's 9 fields,
 * the twiddles (6 n) and log2 Q butterfly stages (8 flops per complex element). */
static double rank_flops(const sst_model *s, const pgrid *g)
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
static void gather_state(sst_model *s, pgrid *g)
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

static void set_test(sst_model *s, int test, double alpha)
{
    if (test == 2)
        sst_set_tc2(s, alpha);
    else
        sst_set_tc6(s);
}

/* Rank 0, after an integration: the height errors (the largest over the levels) against the
 * test case's solution, each finite and within bound. */
static void check_errors(sst_model *s, int test, double alpha, double days, double *h,
                         double *ht, double err[3], double bound)
{
    static const char *norm[3] = {"l1", "l2", "linf"};
    if (test == 2)
        sst_tc2_height(s, alpha, ht);
    else
        sst_tc6_height(s, days * 86400.0, ht);
    for (int l = 0; l < s->L; l++) {
        double e[3];
        sst_height(s, h, l);
        sst_errors(s, h, ht, e);
        for (int k = 0; k < 3; k++)
            hpc_check_bound(e[k], bound, "psst: test case %d at T%d (%s start) after %g days, "
                            "level %d: normalised %s height error", test, s->M,
                            sst_start_names[s->start], days, l, norm[k]);
        for (int k = 0; k < 3; k++)
            err[k] = fmax(err[k], e[k]);  /* finite: checked above */
    }
}

static int split_list(const char *text, char items[][32], int max)
{
    int n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *t = strtok(buf, ","); t && n < max; t = strtok(NULL, ","))
        snprintf(items[n++], 32, "%s", t);
    return n;
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "psst", "Shallow water model on a P x Q process grid: variants.",
             options, MPI_THREAD_SINGLE);
    int M = (int)hpc_opt_int("truncation"), L = (int)hpc_opt_int("levels");
    int test = (int)hpc_opt_int("test");
    double alpha = hpc_opt_double("alpha"), days = hpc_opt_double("days");
    int start = strcmp(hpc_opt_str("start"), "euler") == 0 ? SST_START_EULER : SST_START_CLASSIC;
    double bound = hpc_opt_double("bound");
    if (bound == 0)
        bound = sst_error_bound(test, M, days);
    int nlon = 0, nlat = 0;
    const char *bad = sst_check_args(M, &nlon, &nlat, L);
    hpc_usage_check(bad != NULL, "psst: %s", bad ? bad : "");
    hpc_usage_check(test != 2 && test != 6, "option --test: %d is not 2 or 6", test);

    int grids[64][2], ngrids = 0;
    if (strcmp(hpc_opt_str("grids"), "all") == 0) {
        for (int P = 1; P <= hpc_nranks; P++)
            if (hpc_nranks % P == 0 && ngrids < 64) {
                grids[ngrids][0] = P;
                grids[ngrids++][1] = hpc_nranks / P;
            }
    } else {
        char items[64][32];
        int n = split_list(hpc_opt_str("grids"), items, 64);
        for (int i = 0; i < n; i++) {
            int P = 0, Q = 0;
            int ok = sscanf(items[i], "%dx%d", &P, &Q) == 2 && P > 0 && Q > 0;
            hpc_usage_check(!ok, "option --grids: '%s' is not PxQ", items[i]);
            hpc_usage_check(P * Q != hpc_nranks, "option --grids: %dx%d does not fit %d ranks",
                            P, Q, hpc_nranks);
            grids[ngrids][0] = P;
            grids[ngrids++][1] = Q;
        }
    }
    char maps[4][32], trs[4][32], sums[4][32];
    int nmaps = split_list(hpc_opt_str("mappings"), maps, 4);
    int ntrs = split_list(hpc_opt_str("transposes"), trs, 4);
    int nsums = split_list(hpc_opt_str("sums"), sums, 4);
    for (int i = 0; i < nmaps; i++)
        hpc_usage_check(strcmp(maps[i], "row") && strcmp(maps[i], "col"),
                        "option --mappings: '%s' is not row or col", maps[i]);
    for (int i = 0; i < ntrs; i++)
        hpc_usage_check(strcmp(trs[i], "alltoallv") && strcmp(trs[i], "pairwise")
                            && strcmp(trs[i], "distributed"),
                        "option --transposes: '%s' is not alltoallv, pairwise or distributed",
                        trs[i]);
    for (int i = 0; i < nsums; i++)
        hpc_usage_check(strcmp(sums[i], "allreduce") && strcmp(sums[i], "ring"),
                        "option --sums: '%s' is not allreduce or ring", sums[i]);
    for (int i = 0; i < ngrids; i++) {
        /* A block is whole north/south pairs of latitudes (sst_legendre.c's symmetry). */
        hpc_usage_check(grids[i][0] > (nlat + 1) / 2, "psst: P = %d exceeds the %d latitudes "
                        "of T%d (blocks of north/south pairs: at most %d)", grids[i][0], nlat, M,
                        (nlat + 1) / 2);
        hpc_usage_check(grids[i][1] > M + 1, "psst: Q = %d exceeds the %d wavenumbers of T%d",
                        grids[i][1], M + 1, M);
        int Q = grids[i][1];
        for (int k = 0; k < ntrs; k++)
            hpc_usage_check(strcmp(trs[k], "distributed") == 0 && ((Q & (Q - 1)) || nlon % Q),
                            "psst: the distributed FFT needs Q a power of two dividing nlon %d "
                            "(Q = %d)", nlon, Q);
        int minunits = (2 * ((nlat + 1) / 2 / grids[i][0]) - nlat % 2) * L;
        hpc_usage_check(grids[i][1] > minunits,
                        "psst: Q = %d exceeds the %d latitude-level pairs of a block", grids[i][1],
                        minunits);
    }

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    hpc_phase_def defs[NPH];
    memcpy(defs, sst_phase_defs, sizeof sst_phase_defs);
    defs[PH_PACK] = (hpc_phase_def){"pack", HPC_KIND_COPY};
    defs[PH_TRANSPOSE] = (hpc_phase_def){"transpose", HPC_KIND_COMM};
    defs[PH_GSUM] = (hpc_phase_def){"global_sum", HPC_KIND_COMM};
    hpc_phases_init(&ph, defs, NPH);

    double dt0 = fmin(2400.0 * (test == 6 ? 0.5 : 1.0) * 42.0 / M, 3600.0);
    int nsteps = (int)ceil(days * 86400.0 / dt0 - 1e-9);
    double dt = days * 86400.0 / nsteps;
    sst_model s, ref;
    sst_init(&s, M, nlon, nlat, L, SST_SEMI_IMPLICIT, dt, 0.0, start);
    /* The serial reference, on rank 0. */
    size_t ns = (size_t)s.ncoef * L;
    double complex *refstate = NULL;
    if (hpc_rank == 0) {
        sst_init(&ref, M, nlon, nlat, L, SST_SEMI_IMPLICIT, dt, 0.0, start);
        set_test(&ref, test, alpha);
        sst_run(&ref, nsteps);
        refstate = malloc(3 * ns * sizeof *refstate);
        memcpy(refstate, ref.z[ref.cur], ns * sizeof *refstate);
        memcpy(refstate + ns, ref.d[ref.cur], ns * sizeof *refstate);
        memcpy(refstate + 2 * ns, ref.p[ref.cur], ns * sizeof *refstate);
        sst_free(&ref);
    }
    size_t npts = (size_t)nlat * nlon;
    double *h = malloc(npts * sizeof *h), *ht = malloc(npts * sizeof *ht);

    for (int gi = 0; gi < ngrids; gi++)
        for (int mp = 0; mp < nmaps; mp++)
            for (int tr = 0; tr < ntrs; tr++)
                for (int su = 0; su < nsums; su++) {
                    pgrid g;
                    int variant = strcmp(trs[tr], "pairwise") == 0       ? 1
                                  : strcmp(trs[tr], "distributed") == 0 ? 2
                                                                        : 0;
                    setup(&g, &s, grids[gi][0], grids[gi][1], strcmp(maps[mp], "col") == 0,
                          variant);
                    g.sum = strcmp(sums[su], "ring") == 0;
                    hpc_sampler sm;
                    hpc_sampler_init(&sm, &hpc_reps);
                    double maxrel = 0, ndiff = 0, err[3] = {0, 0, 0}, wall = 0;
                    int first = 1;
                    hpc_phases_reset(&ph);
                    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
                        set_test(&s, test, alpha);
                        MPI_Barrier(MPI_COMM_WORLD);
                        double t0 = hpc_now();
                        for (int n = 0; n < sst_passes(&s, nsteps); n++)
                            (variant == 2 ? dstep : pstep)(&s, &g, n);
                        hpc_phases_stop(&ph);
                        double tmax;
                        hpc_phases_sample(&ph, &sm, hpc_now() - t0, &wall, &tmax);

                        gather_state(&s, &g);
                        if (hpc_inject == HPC_INJECT_CORRUPT && hpc_rank == 0)
                            s.p[s.cur][ns / 2] += 10.0;
                        /* fmax below drops NaNs: a blown-up state must fail here first. */
                        const double complex *fs[3] = {s.z[s.cur], s.d[s.cur], s.p[s.cur]};
                        for (int f = 0; f < 3 && hpc_rank == 0; f++)
                            hpc_check_finite((const double *)fs[f], 2 * ns, "psst: %dx%d %s %s %s: "
                                             "the state after %g days", g.P, g.Q, maps[mp],
                                             trs[tr], sums[su], days);
                        if (hpc_rank == 0 && first) {
                            double big = 0, diff = 0;
                            const double complex *st[3] = {s.z[s.cur], s.d[s.cur], s.p[s.cur]};
                            for (int f = 0; f < 3; f++)
                                for (size_t x = 0; x < ns; x++) {
                                    double complex r = refstate[f * ns + x];
                                    big = fmax(big, cabs(r));
                                    diff = fmax(diff, cabs(st[f][x] - r));
                                    ndiff += st[f][x] != r;
                                }
                            maxrel = big > 0 ? diff / big : diff;
                            if (!(maxrel <= SERIAL_TOL))
                                hpc_fail("psst: %dx%d %s %s %s: the state differs from the serial "
                                         "model's by %.3g of its largest coefficient (bound %g)",
                                         g.P, g.Q, maps[mp], trs[tr], sums[su], maxrel,
                                         SERIAL_TOL);
                        }
                        first = 0;
                        if (hpc_rank == 0)
                            check_errors(&s, test, alpha, days, h, ht, err, bound);
                    }
                    double *x = malloc((size_t)sm.n * sizeof *x);
                    static const char *metric[3] = {"run_time", "mflops", "sim_days_per_day"};
                    static const char *unit[3] = {"s", "MFlop/s", "days/day"};
                    for (int k = 0; k < 3; k++) {
                        if (k == 0)
                            memcpy(x, sm.samples, (size_t)sm.n * sizeof *x);
                        else if (k == 1)
                            hpc_rates(sm.samples, sm.n, sst_run_flops(&s, nsteps), 1e6, x);
                        else
                            hpc_rates(sm.samples, sm.n, days, 1.0 / 86400.0, x);
                        hpc_stats st;
                        hpc_stats_compute(x, sm.n, &st);
                        hpc_json r;
                        hpc_result_begin(&r, metric[k], unit[k], "median",
                                         k ? "higher" : "lower");
                        hpc_json_int(&r, "truncation", M);
                        hpc_json_int(&r, "levels", L);
                        hpc_json_int(&r, "P", g.P);
                        hpc_json_int(&r, "Q", g.Q);
                        hpc_json_str(&r, "mapping", maps[mp]);
                        hpc_json_str(&r, "transpose", trs[tr]);
                        hpc_json_str(&r, "sum", sums[su]);
                        hpc_json_int(&r, "test", test);
                        hpc_json_str(&r, "start", sst_start_names[start]);
                        hpc_result_stats(&r, &st, sm.converged);
                        hpc_json_exact(&r, "flops_per_step", s.flops_step);
                        hpc_json_int(&r, "steps", nsteps);
                        hpc_json_int(&r, "passes", sst_passes(&s, nsteps));
                        hpc_json_num(&r, "max_rel_diff_vs_serial", maxrel);
                        hpc_json_int(&r, "coefficients_differing_from_serial", (long long)ndiff);
                        hpc_json_bool(&r, "bitwise_equal_to_serial", ndiff == 0);
                        if (k == 0) {  /* us per pass, mean over the kept samples (collective) */
                            double scale = 1e6 / ((double)sm.n * sst_passes(&s, nsteps));
                            hpc_phases_json(&r, &ph, scale, MPI_COMM_WORLD);
                            hpc_json_per_rank(&r, "wall_per_rank", wall * scale, MPI_COMM_WORLD);
                            hpc_json_per_rank(&r, "flops_per_rank", rank_flops(&s, &g),
                                              MPI_COMM_WORLD);
                            hpc_json_exact(&r, "serial_flops", s.flops_step);
                            hpc_json_exact(&r, "dt_s", s.dt);
                        }
                        hpc_json_num(&r, "err_l1", err[0]);
                        hpc_json_num(&r, "err_l2", err[1]);
                        hpc_json_num(&r, "err_linf", err[2]);
                        hpc_json_exact(&r, "err_bound", bound);
                        hpc_json_emit(&r);
                    }
                    free(x);
                    hpc_sampler_free(&sm);
                    teardown(&g);
                }
    free(h);
    free(ht);
    free(refstate);
    sst_free(&s);
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
