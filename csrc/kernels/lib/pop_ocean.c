/* pop_ocean.c - the 3-D ocean's block: levels, metrics, initial state (pop_ocean.h). */
#include "pop_ocean.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double DEPTH = 5000.0;  /* m: the levels' total thickness */

static double *zeros(size_t n) { return calloc(n ? n : 1, sizeof(double)); }

static int clamp(int j, int lo, int hi) { return j < lo ? lo : j > hi ? hi : j; }

/* Latitude (radians) of T-row j (centre) or U-row j (its north edge): the rows' uniform
 * spacing between the walls at +-78 degrees (the grid's equatorial refinement left out). */
static double latitude(const pop_grid *g, double j)
{
    return (-78.0 + 156.0 * j / g->ny) * M_PI / 180.0;
}

static void levels(pop_sea *o)
{
    double sum = 0;
    for (int k = 0; k < o->nz; k++) {
        double s = o->nz > 1 ? (double)k / (o->nz - 1) : 0;
        o->dz[k] = 1.0 + 24.0 * s * s;  /* 25 times thicker at the bottom than at the top */
        sum += o->dz[k];
    }
    o->htot = 0;
    for (int k = 0; k < o->nz; k++) {
        o->dz[k] *= DEPTH / sum;
        o->htot += o->dz[k];
    }
    for (int k = 0; k + 1 < o->nz; k++)
        o->dzw[k] = 0.5 * (o->dz[k] + o->dz[k + 1]);
}

static void metrics(pop_sea *o, const pop_grid *g, int i0, int j0)
{
    for (int jj = 0; jj < o->by + 2; jj++) {
        int j = clamp(j0 + jj - 1, 0, g->ny - 1);
        o->dxu[jj] = g->dxu[j];
        o->dyu[jj] = g->dyu[j];
        o->area[jj] = g->area[j];
        o->dyt[jj] = g->area[j] / g->dxu[clamp(j, 0, g->ny - 2)];  /* east face of a T-cell */
        double f = 2 * 7.292e-5 * sin(latitude(g, j + 1.0));
        o->cosf[jj] = cos(f * o->dt);
        o->sinf[jj] = sin(f * o->dt);
        for (int ii = 0; ii < o->bx + 2; ii++) {
            int i = ((i0 + ii - 1) % g->nx + g->nx) % g->nx, jg = j0 + jj - 1;
            size_t c = (size_t)jj * o->ld + ii;
            o->mask[c] = (unsigned char)pop_ocean(g, i, jg);
            o->hu[c] = jg >= 0 && jg < g->ny ? g->hu[(size_t)jg * g->nx + i] : 0.0;
        }
    }
}

int pop_sea_init(pop_sea *o, const pop_grid *g, int i0, int j0, int bx, int by, int nz,
                   double dt)
{
    memset(o, 0, sizeof *o);
    o->nz = nz;
    o->bx = bx;
    o->by = by;
    o->ld = bx + 2;
    o->n2 = (size_t)(bx + 2) * (by + 2);
    o->dt = dt;
    size_t rows = (size_t)by + 2, n3 = (size_t)POP_NFIELDS * nz * o->n2;
    double **rowv[] = {&o->dxu, &o->dyu, &o->area, &o->dyt, &o->cosf, &o->sinf};
    for (size_t m = 0; m < sizeof rowv / sizeof rowv[0]; m++)
        *rowv[m] = zeros(rows);
    o->dz = zeros((size_t)nz);
    o->dzw = zeros((size_t)nz);
    o->hu = zeros(o->n2);
    o->mask = calloc(o->n2, 1);
    o->state = zeros(n3);
    o->next = zeros(n3);
    o->kt = zeros((size_t)nz * o->n2);
    o->kv = zeros((size_t)nz * o->n2);
    o->p = zeros(o->n2);
    o->pacc = zeros(o->n2);
    o->fe = zeros(o->n2);
    o->fn = zeros(o->n2);
    o->te = zeros(o->n2);
    o->tn = zeros(o->n2);
    o->fvt = zeros(o->n2);
    o->fvb = zeros(o->n2);
    o->w = zeros((size_t)(nz + 1) * o->n2);
    o->bar = zeros(2 * o->n2);
    o->eta = zeros(o->n2);
    o->cp = zeros((size_t)nz * o->ld);
    o->dp = zeros((size_t)nz * o->ld);
    o->kr = zeros((size_t)nz * o->ld);
    if (!o->dxu || !o->dyu || !o->area || !o->dyt || !o->cosf || !o->sinf || !o->dz || !o->dzw
        || !o->hu || !o->mask || !o->state || !o->next || !o->kt || !o->kv || !o->p || !o->pacc
        || !o->fe || !o->fn || !o->te || !o->tn || !o->fvt || !o->fvb || !o->w || !o->bar || !o->eta || !o->cp || !o->dp || !o->kr) {
        pop_sea_free(o);
        return -1;
    }
    levels(o);
    metrics(o, g, i0, j0);
    return 0;
}

void pop_sea_free(pop_sea *o)
{
    double *all[] = {o->dz, o->dzw, o->dxu, o->dyu, o->area, o->dyt, o->cosf, o->sinf, o->hu,
                     o->state, o->next, o->kt, o->kv, o->p, o->pacc, o->fe, o->fn, o->te,
                     o->tn, o->fvt, o->fvb, o->w, o->bar,
                     o->eta, o->cp, o->dp, o->kr};
    for (size_t m = 0; m < sizeof all / sizeof all[0]; m++)
        free(all[m]);
    free(o->mask);
    memset(o, 0, sizeof *o);
}

/* Smooth, deterministic fields of the global position: warm, salty surface waters over
 * cold deep ones (stably stratified), a gyre-like flow decaying with depth. */
void pop_sea_start(pop_sea *o, const pop_grid *g, int i0, int j0)
{
    double z = 0;
    for (int k = 0; k < o->nz; k++) {
        double zc = z + 0.5 * o->dz[k];
        z += o->dz[k];
        for (int jj = 0; jj < o->by + 2; jj++)
            for (int ii = 0; ii < o->bx + 2; ii++) {
                size_t c = (size_t)jj * o->ld + ii;
                double xt = (i0 + ii - 0.5) / g->nx, yt = (j0 + jj - 0.5) / g->ny;
                double xu = (i0 + ii) / (double)g->nx, yu = (j0 + jj) / (double)g->ny;
                double lat = latitude(g, j0 + jj - 0.5), cl = cos(lat);
                int ocean = o->mask[c], wet = o->hu[c] > 0;
                pop_level(o, o->state, POP_T, k)[c] =
                    ocean ? 2.0 + 18.0 * cl * cl * exp(-zc / 700.0)
                                + 0.5 * sin(2 * M_PI * xt) * sin(M_PI * yt) * exp(-zc / 1500.0)
                          : 0.0;
                pop_level(o, o->state, POP_S, k)[c] =
                    ocean ? 34.7 + 0.6 * cl * exp(-zc / 1000.0) - 0.1 * cos(2 * M_PI * xt) : 0.0;
                double a = wet ? 0.1 * exp(-zc / 1000.0) : 0.0;
                pop_level(o, o->state, POP_U, k)[c] = a * cos(2 * M_PI * xu) * sin(2 * M_PI * yu);
                pop_level(o, o->state, POP_V, k)[c] = -a * sin(2 * M_PI * xu) * cos(2 * M_PI * yu);
            }
    }
    memset(o->eta, 0, o->n2 * sizeof(double));
}

double pop_sea_content(const pop_sea *o, int f)
{
    double sum = 0;
    for (int k = 0; k < o->nz; k++) {
        const double *x = pop_level(o, o->state, f, k);
        for (int jj = 1; jj <= o->by; jj++)
            for (int ii = 1; ii <= o->bx; ii++) {
                size_t c = (size_t)jj * o->ld + ii;
                sum += o->mask[c] ? o->area[jj] * o->dz[k] * x[c] : 0.0;
            }
    }
    return sum;
}
