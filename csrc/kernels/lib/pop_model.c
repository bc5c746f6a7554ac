/* pop_model.c - the whole POP-like model on one rank's block (pop_model.h). */
#include "pop_model.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

const hpc_phase_def POP_MODEL_PHASES[POP_MODEL_NPHASES] = {
    {"compute", HPC_KIND_COMPUTE},      {"halo", HPC_KIND_COMM},
    {"copy", HPC_KIND_COPY},            {"global_sum", HPC_KIND_COMM},
    {"clinic", HPC_KIND_COMPUTE},       {"clinic_halo", HPC_KIND_COMM},
    {"clinic_copy", HPC_KIND_COPY},     {"vmix", HPC_KIND_COMPUTE}};

int pop_model_init(pop_model *m, const pop_grid *g, const pop_model_cfg *c, int alone)
{
    pop_decomp *d = &m->d;
    pop_decomp_init(d, c->nx, c->ny, alone ? 1 : c->P, alone ? 1 : c->Q, c->colmajor,
                    alone ? 0 : hpc_rank, alone ? 1 : hpc_nranks);
    hpc_phases_init(&m->ph, POP_MODEL_PHASES, POP_MODEL_NPHASES);
    m->tol = c->tol;
    if (pop_block_init(&m->blk, g, d->i0, d->j0, d->bx, d->by)
        || pop_halo_init(&m->h, d, alone ? POP_HALO_PACK : c->halo, &m->ph)
        || pop_gsum_init(&m->gs, alone ? POP_SUM_ALLREDUCE : c->sum, c->branch)
        || pop_pcg_init(&m->s, &m->blk, &m->h, &m->gs, &m->ph, c->check_every, c->max_iters)
        || pop_sea_init(&m->o, g, d->i0, d->j0, d->bx, d->by, c->nz, c->dt)
        || pop_halo3_init(&m->h3, d, POP_NFIELDS * c->nz, c->clinic, &m->ph, POP_PH_CLINIC_HALO,
                          POP_PH_CLINIC_COPY)
        || pop_halo3_init(&m->htr, d, 2 * c->nz, c->clinic, &m->ph, POP_PH_CLINIC_HALO,
                          POP_PH_CLINIC_COPY)
        || pop_halo3_init(&m->hbar, d, 2, POP_H3_AGGREGATE, &m->ph, POP_PH_HALO, POP_PH_COPY)
        || pop_halo3_init(&m->heta, d, 1, POP_H3_AGGREGATE, &m->ph, POP_PH_HALO, POP_PH_COPY))
        return -1;
    if (alone)
        m->gs.nranks = 1;  /* its sums are its own values */
    return 0;
}

void pop_model_free(pop_model *m)
{
    pop_halo3_free(&m->heta);
    pop_halo3_free(&m->hbar);
    pop_halo3_free(&m->htr);
    pop_halo3_free(&m->h3);
    pop_sea_free(&m->o);
    pop_pcg_free(&m->s);
    pop_gsum_free(&m->gs);
    pop_halo_free(&m->h);
    pop_block_free(&m->blk);
}

void pop_model_reset(pop_model *m, const pop_grid *g)
{
    pop_sea_start(&m->o, g, m->d.i0, m->d.j0);
    memset(m->s.x, 0, m->blk.n * sizeof(double));  /* the solver's warm start: eta = 0 */
    m->iters = 0;
}

/* The barotropic phase: rhs from the depth-mean flow, PCG from the last eta, correction. */
static void tropic_step(pop_model *m)
{
    pop_sea *o = &m->o;
    hpc_phase_to(&m->ph, POP_PH_COMPUTE);
    pop_tropic_means(o);
    pop_halo3_update(&m->hbar, o->bar);
    hpc_phase_to(&m->ph, POP_PH_COMPUTE);
    double bb = pop_tropic_rhs(o, m->s.rhs);
    hpc_phase_to(&m->ph, POP_PH_SUM);
    m->s.tol2_bb = m->tol * m->tol * pop_gsum_do(&m->gs, bb);
    int it = pop_pcg_solve(&m->s);
    if (it < 0)
        hpc_fail("pop-step: the barotropic solve did not converge in %d iterations",
                 m->s.max_iters);
    m->iters += it;
    hpc_phase_to(&m->ph, POP_PH_COMPUTE);
    for (int j = 1; j <= o->by; j++)
        memcpy(o->eta + (size_t)j * o->ld + 1, m->s.x + (size_t)j * o->ld + 1,
               (size_t)o->bx * sizeof(double));
    pop_halo3_update(&m->heta, o->eta);
    hpc_phase_to(&m->ph, POP_PH_COMPUTE);
    pop_tropic_correct(o);
}

void pop_model_steps(pop_model *m, int steps)
{
    hpc_phases_start(&m->ph, POP_PH_CLINIC_HALO);
    for (int n = 0; n < steps; n++) {
        pop_halo3_update(&m->h3, m->o.state);
        pop_clinic_step(&m->o, &m->ph, &m->htr);
        tropic_step(m);
    }
    hpc_phases_stop(&m->ph);
}

void pop_model_gather(const pop_model *m, double *out)
{
    const pop_decomp *d = &m->d;
    const pop_sea *o = &m->o;
    int nl = POP_NFIELDS * o->nz, n = d->bx * d->by * nl;
    double *mine = malloc((size_t)(n > 0 ? n : 1) * sizeof(double)), *all = NULL;
    int *cnt = NULL, *dsp = NULL;
    if (!mine)
        hpc_fail("pop-step: no memory to gather the state");
    for (int l = 0; l < nl; l++)
        for (int j = 0; j < d->by; j++)
            memcpy(mine + ((size_t)l * d->by + j) * d->bx,
                   o->state + l * o->n2 + (size_t)(j + 1) * o->ld + 1, (size_t)d->bx * sizeof(double));
    if (d->rank == 0) {
        cnt = malloc((size_t)d->nranks * sizeof(int));
        dsp = malloc((size_t)d->nranks * sizeof(int));
        all = malloc((size_t)d->nx * d->ny * nl * sizeof(double));
        if (!cnt || !dsp || !all)
            hpc_fail("pop-step: no memory to gather the state");
        for (int r = 0, off = 0; r < d->nranks; r++) {
            pop_decomp b;
            pop_decomp_init(&b, d->nx, d->ny, d->P, d->Q, d->colmajor, r, d->nranks);
            cnt[r] = b.bx * b.by * nl;
            dsp[r] = off;
            off += cnt[r];
        }
    }
    if (d->nranks > 1)
        MPI_Gatherv(mine, n, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else
        memcpy(all, mine, (size_t)n * sizeof(double));
    for (int r = 0; d->rank == 0 && r < d->nranks; r++) {
        pop_decomp b;
        pop_decomp_init(&b, d->nx, d->ny, d->P, d->Q, d->colmajor, r, d->nranks);
        for (int l = 0; l < nl; l++)
            for (int j = 0; j < b.by; j++)
                memcpy(out + ((size_t)l * d->ny + b.j0 + j) * d->nx + b.i0,
                       all + dsp[r] + ((size_t)l * b.by + j) * b.bx, (size_t)b.bx * sizeof(double));
    }
    free(mine);
    free(cnt);
    free(dsp);
    free(all);
}

