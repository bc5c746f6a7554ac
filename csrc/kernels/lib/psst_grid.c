/* psst_grid.c - psst's process grid: latitude blocks of north/south pairs and wavenumber
 * sets, the transposes (alltoallv or pairwise), the ring or allreduce global sum, and the
 * distributed FFT's binary-exchange stage (psst.c describes them). */
#include "psst_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int lat0(int nlat, int P, int p) { return (int)((long)nlat * p / P); }

void psst_exchange(pgrid *g, int per)  /* per: doubles per (unit, m) entry on both sides */
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

void psst_global_sum(pgrid *g, double *x, int n)
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

void psst_phases_init(hpc_phases *ph)
{
    hpc_phase_def defs[PSST_NPH];
    memcpy(defs, sst_phase_defs, sizeof sst_phase_defs);
    defs[PSST_PH_PACK] = (hpc_phase_def){"pack", HPC_KIND_COPY};
    defs[PSST_PH_TRANSPOSE] = (hpc_phase_def){"transpose", HPC_KIND_COMM};
    defs[PSST_PH_GSUM] = (hpc_phase_def){"global_sum", HPC_KIND_COMM};
    hpc_phases_init(ph, defs, PSST_NPH);
}

void psst_setup(pgrid *g, sst_model *s, int P, int Q, int colmajor, int transpose)
{
    psst_setup_in(g, s, MPI_COMM_WORLD, P, Q, colmajor, transpose);
}

void psst_setup_in(pgrid *g, sst_model *s, MPI_Comm comm, int P, int Q, int colmajor,
                   int transpose)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    memset(g, 0, sizeof *g);
    g->P = P;
    g->Q = Q;
    g->p = colmajor ? rank % P : rank / Q;
    g->q = colmajor ? rank / P : rank % Q;
    MPI_Comm_split(comm, g->p, g->q, &g->row);
    MPI_Comm_split(comm, g->q + 1000000, g->p, &g->col);
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
    g->g4 = hfft_malloc((size_t)nu * 4 * n * sizeof(double));
    g->g5 = hfft_malloc((size_t)nu * 5 * n * sizeof(double));
    g->c4 = hfft_malloc((size_t)nu * 4 * nc * sizeof(hfft_complex));
    g->c5 = hfft_malloc((size_t)nu * 5 * nc * sizeof(hfft_complex));
    g->inv = hfft_plan_c2r(n, nu * 4, g->c4, nc, g->g4, n, 0);
    g->fwd = hfft_plan_r2c(n, nu * 5, g->g5, n, g->c5, nc, 0);
    /* The transposes' largest side (psst_layout): my wavenumbers of every unit of the row, or
     * my units of every wavenumber, 10 doubles each; not every unit of every wavenumber, Q
     * times more on every rank (13 GB at T85 L18 on 128 simulated ranks). */
    size_t mine = (size_t)units * g->nms[g->q], row = (size_t)g->nu * (s->M + 1);
    size_t big = (mine > row ? mine : row) * 10 + 16;
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

void psst_teardown(pgrid *g)
{
    if (g->transpose == 2) {
        hfft_destroy(g->dinv);
        hfft_destroy(g->dfwd);
        hfft_free(g->z4); hfft_free(g->z5); hfft_free(g->zp); hfft_free(g->tw);
        free(g->x4); free(g->x5);
    }
    hfft_destroy(g->inv);
    hfft_destroy(g->fwd);
    hfft_free(g->g4); hfft_free(g->g5); hfft_free(g->c4); hfft_free(g->c5);
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
    g->z4 = hfft_malloc(nv * sizeof(hfft_complex));
    g->z5 = hfft_malloc(nv * sizeof(hfft_complex));
    g->zp = hfft_malloc(nv * sizeof(hfft_complex));
    g->tw = hfft_malloc((size_t)n * sizeof(hfft_complex));
    g->x4 = malloc(nv * sizeof(double));
    g->x5 = malloc(nv * sizeof(double));
    if (!g->z4 || !g->z5 || !g->zp || !g->tw || !g->x4 || !g->x5)
        hpc_fail("psst: cannot allocate the distributed FFT buffers");
    for (int k = 0; k < n; k++)
        g->tw[k] = cexp(2 * M_PI * I * ((double)g->q * k / s->nlon));
    g->dinv = hfft_plan_c2c(n, g->nud * 4, g->z4, n, HFFT_BACKWARD, 0);
    g->dfwd = hfft_plan_c2c(n, g->nud * 5, g->z5, n, HFFT_FORWARD, 0);
    if (!g->dinv || !g->dfwd)
        hpc_fail("psst: cannot plan the local FFTs of the distributed FFT");
}

/* One binary-exchange stage across the row: every element of z (cnt complex) pairs with the
 * same element on rank q ^ d. Inverse (DIF, d = Q/2 .. 1): lower a + c, upper (a - c) w^j;
 * forward (its adjoint, d = 1 .. Q/2): lower L + conj(w^j) U, upper L - conj(w^j) U; w = e^{i pi/d},
 * j = the lower rank's position in its block of 2d ranks. */
void psst_bx_stage(pgrid *g, hfft_complex *z, size_t cnt, int d, int inverse)
{
    int q = g->q, upper = (q & d) != 0, j = (q & ~d) % (2 * d);
    PSST_PH(g, PSST_PH_TRANSPOSE);
    MPI_Sendrecv(z, (int)(2 * cnt), MPI_DOUBLE, q ^ d, 11, g->zp, (int)(2 * cnt), MPI_DOUBLE, q ^ d,
                 11, g->row, MPI_STATUS_IGNORE);
    PSST_PH(g, SST_PH_FFT);
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
void psst_layout(pgrid *g, int per, int synth)
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
