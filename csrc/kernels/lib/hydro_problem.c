/* hydro_problem.c - initial states and check sums of the hydro proxy (hydro_problem.h).
 * None of it is timed: every function visits the cells through one callback loop. */
#include "hydro_problem.h"

#include <math.h>

const hy_state1 HY_SOD_LEFT = {1.0, 0.0, 1.0}, HY_SOD_RIGHT = {0.125, 0.0, 0.1};

typedef struct {
    hy_block *b;
    const int *origin, *nglob;  /* NULL: no coordinates wanted */
    void *ctx;
} visit;

/* fn(v, cell index, global centre) for every interior cell. */
static void each_cell(visit *v, void (*fn)(visit *, size_t, const double *))
{
    const hy_block *b = v->b;
    double x[3] = {0, 0, 0};
    for (int k = 0; k < b->n[2]; k++)
        for (int j = 0; j < b->n[1]; j++)
            for (int i = 0; i < b->n[0]; i++) {
                int g[3] = {i, j, k};
                for (int d = 0; v->nglob && d < 3; d++)
                    x[d] = (v->origin[d] + g[d] + 0.5) / v->nglob[d];
                fn(v, hy_idx(b, i + HY_G, j + HY_G, k + HY_G), x);
            }
}

static void set_cell(hy_block *b, size_t c, double rho, double u, double v, double w, double p)
{
    b->u[HY_RHO][c] = rho;
    b->u[HY_MX][c] = rho * u;
    b->u[HY_MY][c] = rho * v;
    b->u[HY_MZ][c] = rho * w;
    b->u[HY_E][c] = p / (b->gamma - 1) + 0.5 * rho * (u * u + v * v + w * w);
}

static void init_cell(visit *v, size_t c, const double *x)
{
    if (*(const hy_problem *)v->ctx == HY_SOD) {
        hy_state1 s = x[0] < 0.5 ? HY_SOD_LEFT : HY_SOD_RIGHT;
        set_cell(v->b, c, s.rho, s.u, 0, 0, s.p);
        return;
    }
    const double tp = 2 * M_PI;
    double sx = sin(tp * x[0]), sy = sin(tp * x[1]), sz = sin(tp * x[2]);
    double cx = cos(tp * x[0]), cy = cos(tp * x[1]), cz = cos(tp * x[2]);
    set_cell(v->b, c, 1 + 0.2 * sx * cy * cz, 0.3 + 0.2 * sy, -0.2 + 0.2 * sz, 0.1 + 0.2 * sx,
             1 + 0.2 * cx * sy * cz);
}

void hy_init(hy_block *b, hy_problem pb, const int origin[3], const int nglob[3])
{
    visit v = {b, origin, nglob, &pb};
    each_cell(&v, init_cell);
}

/* Kahan sums: 2 HY_NV pairs (sum, compensation). */
static void add_cell(visit *v, size_t c, const double *x)
{
    (void)x;
    double *acc = v->ctx;
    for (int q = 0; q < 2 * HY_NV; q++) {
        double val = v->b->u[q % HY_NV][c];
        double y = (q < HY_NV ? val : fabs(val)) - acc[2 * q + 1], t = acc[2 * q] + y;
        acc[2 * q + 1] = (t - acc[2 * q]) - y;
        acc[2 * q] = t;
    }
}

void hy_totals(const hy_block *b, double tot[HY_NV], double mag[HY_NV])
{
    double acc[4 * HY_NV] = {0};
    visit v = {(hy_block *)b, NULL, NULL, acc};
    each_cell(&v, add_cell);
    for (int q = 0; q < HY_NV; q++) {
        tot[q] = acc[2 * q];
        mag[q] = acc[2 * (q + HY_NV)];
    }
}

typedef struct {
    const hy_riemann *rs;
    double t, sum;
} l1_ctx;

static void l1_cell(visit *v, size_t c, const double *x)
{
    l1_ctx *l = v->ctx;
    l->sum += fabs(v->b->u[HY_RHO][c] - hy_riemann_sample(l->rs, (x[0] - 0.5) / l->t).rho);
}

double hy_sod_l1_sum(const hy_block *b, const hy_riemann *rs, const int origin[3],
                     const int nglob[3], double t)
{
    l1_ctx l = {rs, t, 0};
    visit v = {(hy_block *)b, origin, nglob, &l};
    each_cell(&v, l1_cell);
    return l.sum;
}

static void finite_cell(visit *v, size_t c, const double *x)
{
    (void)x;
    long long *first = v->ctx;
    for (int q = 0; q < HY_NV && *first < 0; q++)
        if (!isfinite(v->b->u[q][c]))
            *first = (long long)c;
}

long long hy_first_nonfinite(const hy_block *b)
{
    long long first = -1;
    visit v = {(hy_block *)b, NULL, NULL, &first};
    each_cell(&v, finite_cell);
    return first;
}

static void corrupt_cell(visit *v, size_t c, const double *x)
{
    (void)x;
    v->b->u[HY_RHO][c] += 0.1;
}

void hy_corrupt(hy_block *b)
{
    visit v = {b, NULL, NULL, NULL};
    each_cell(&v, corrupt_cell);
}
