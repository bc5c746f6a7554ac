/* pop_solver.c - PCG of the POP-like barotropic proxy (pop_solver.h). */
#include "pop_solver.h"

#include <stdlib.h>
#include <string.h>

int pop_pcg_init(pop_pcg *s, const pop_block *b, pop_halo *h, pop_gsum *g, hpc_phases *ph,
                 int check_every, int max_iters)
{
    memset(s, 0, sizeof *s);
    s->b = b;
    s->halo = h;
    s->sum = g;
    s->ph = ph;
    s->check_every = check_every;
    s->max_iters = max_iters;
    s->x = pop_field(b);
    s->r = pop_field(b);
    s->z = pop_field(b);
    s->q = pop_field(b);
    s->rhs = pop_field(b);
    if (!s->x || !s->r || !s->z || !s->q || !s->rhs) {
        pop_pcg_free(s);
        return -1;
    }
    return 0;
}

void pop_pcg_free(pop_pcg *s)
{
    free(s->x);
    free(s->r);
    free(s->z);
    free(s->q);
    free(s->rhs);
    memset(s, 0, sizeof *s);
}

double pop_pcg_flops(double points, int iters, int check_every)
{
    if (iters < 1)
        return 23.0 * points;
    return points * (23.0 + 26.0 * iters + 2.0 * (iters - 1) + 2.0 * (iters / check_every));
}

int pop_pcg_solve(pop_pcg *s)
{
    const pop_block *b = s->b;
    hpc_phases *ph = s->ph;
    const size_t ld = (size_t)b->ld;
    const int bx = b->bx, by = b->by;
    double *p = s->halo->x;  /* not restrict: the halo update reads and writes it as h->x */
    double *restrict x = s->x, *restrict r = s->r, *restrict z = s->z, *restrict q = s->q;
    const double *restrict rhs = s->rhs, *restrict minv = b->minv;

    /* r = b - A x0, z = M^-1 r, p = z. */
    hpc_phase_to(ph, POP_PH_COMPUTE);
    for (int j = 1; j <= by; j++)
        memcpy(p + j * ld + 1, x + j * ld + 1, (size_t)bx * sizeof(double));
    pop_halo_update(s->halo);
    hpc_phase_to(ph, POP_PH_COMPUTE);
    pop_apply_dot(b, p, q);
    double rz = 0.0;
    for (int j = 1; j <= by; j++)
        for (size_t c = j * ld + 1; c <= j * ld + bx; c++) {
            r[c] = rhs[c] - q[c];
            z[c] = minv[c] * r[c];
            rz += r[c] * z[c];
            p[c] = z[c];
        }
    hpc_phase_to(ph, POP_PH_SUM);
    double rho = pop_gsum_do(s->sum, rz);

    for (int k = 1; k <= s->max_iters; k++) {
        pop_halo_update(s->halo);
        hpc_phase_to(ph, POP_PH_COMPUTE);
        double pq = pop_apply_dot(b, p, q);
        hpc_phase_to(ph, POP_PH_SUM);
        pq = pop_gsum_do(s->sum, pq);
        hpc_phase_to(ph, POP_PH_COMPUTE);
        double alpha = rho / pq, rr = 0.0;
        int check = k % s->check_every == 0;
        rz = 0.0;
        for (int j = 1; j <= by; j++) {
            size_t c0 = j * ld + 1, c1 = j * ld + bx;
            if (check)
                for (size_t c = c0; c <= c1; c++) {
                    x[c] += alpha * p[c];
                    r[c] -= alpha * q[c];
                    z[c] = minv[c] * r[c];
                    rz += r[c] * z[c];
                    rr += r[c] * r[c];
                }
            else
                for (size_t c = c0; c <= c1; c++) {
                    x[c] += alpha * p[c];
                    r[c] -= alpha * q[c];
                    z[c] = minv[c] * r[c];
                    rz += r[c] * z[c];
                }
        }
        if (check) {
            hpc_phase_to(ph, POP_PH_SUM);
            rr = pop_gsum_do(s->sum, rr);
            if (rr <= s->tol2_bb)  /* the same bits on every rank: all stop together */
                return k;
        }
        hpc_phase_to(ph, POP_PH_SUM);
        double rho1 = pop_gsum_do(s->sum, rz);
        hpc_phase_to(ph, POP_PH_COMPUTE);
        double beta = rho1 / rho;
        rho = rho1;
        for (int j = 1; j <= by; j++)
            for (size_t c = j * ld + 1; c <= j * ld + bx; c++)
                p[c] = z[c] + beta * p[c];
    }
    return -1;
}
