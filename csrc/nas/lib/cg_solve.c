#include "cg_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const hpc_phase_def cg_phase_defs[CG_NPHASES] = {
    [CG_PH_MATVEC] = {"matvec", HPC_KIND_COMPUTE},
    [CG_PH_VECTOR] = {"vector", HPC_KIND_COMPUTE},
    [CG_PH_ALLGATHER] = {"allgather", HPC_KIND_COMM},
    [CG_PH_ALLREDUCE] = {"allreduce", HPC_KIND_COMM},
};

int cg_solver_init(cg_solver *s, const cg_matrix *m, double shift, MPI_Comm comm,
                   hpc_phases *ph)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->shift = shift;
    s->comm = comm;
    s->ph = ph;
    int n;
    MPI_Comm_size(comm, &n);
    s->counts = malloc((size_t)n * sizeof *s->counts);
    s->displs = malloc((size_t)n * sizeof *s->displs);
    size_t na = (size_t)m->na, nr = (size_t)m->nrows + 1;  /* + 1: never malloc(0) */
    s->p = calloc(na, sizeof *s->p);
    s->z = calloc(na, sizeof *s->z);
    s->x = calloc(nr, sizeof *s->x);
    s->q = calloc(nr, sizeof *s->q);
    s->r = calloc(nr, sizeof *s->r);
    int bad = !s->counts || !s->displs || !s->p || !s->z || !s->x || !s->q || !s->r;
    if (!bad) {
        MPI_Allgather(&m->nrows, 1, MPI_INT, s->counts, 1, MPI_INT, comm);
        MPI_Allgather(&m->row0, 1, MPI_INT, s->displs, 1, MPI_INT, comm);
    }
    return bad ? -1 : 0;
}

void cg_solver_free(cg_solver *s)
{
    free(s->counts), free(s->displs);
    free(s->p), free(s->z), free(s->x), free(s->q), free(s->r);
    memset(s, 0, sizeof *s);
}

void cg_solver_reset(cg_solver *s)
{
    for (int i = 0; i < s->m->nrows; i++)
        s->x[i] = 1.0;
}

/* The whole of v from every rank's rows (v is whole-length; this rank's rows are at row0). */
static void gather(cg_solver *s, double *v)
{
    hpc_phase_to(s->ph, CG_PH_ALLGATHER);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, s->counts, s->displs, MPI_DOUBLE,
                   s->comm);
}

/* n sums added over the ranks (in place). */
static void reduce(cg_solver *s, double *v, int n)
{
    hpc_phase_to(s->ph, CG_PH_ALLREDUCE);
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, s->comm);
}

/* out = A v over this rank's rows; v whole. */
static void matvec(cg_solver *s, const double *v, double *out)
{
    hpc_phase_to(s->ph, CG_PH_MATVEC);
    const cg_matrix *m = s->m;
    for (int j = 0; j < m->nrows; j++) {
        double sum = 0.0;
        for (int64_t k = m->rowstr[j]; k < m->rowstr[j + 1]; k++)
            sum += m->a[k] * v[m->col[k]];
        out[j] = sum;
    }
    hpc_phase_to(s->ph, CG_PH_VECTOR);
}

static double dot_local(const double *a, const double *b, int n)
{
    double sum = 0.0;
    for (int j = 0; j < n; j++)
        sum += a[j] * b[j];
    return sum;
}

/* conj_grad: z ~ A^-1 x by CG_STEPS steps from z = 0; returns ||x - A z||. */
static double conj_grad(cg_solver *s)
{
    int n = s->m->nrows;
    double *p = s->p + s->m->row0, *z = s->z + s->m->row0, *x = s->x, *q = s->q, *r = s->r;
    hpc_phase_to(s->ph, CG_PH_VECTOR);
    for (int j = 0; j < n; j++) {
        q[j] = z[j] = 0.0;
        r[j] = p[j] = x[j];
    }
    double rho = dot_local(r, r, n);
    reduce(s, &rho, 1);
    for (int step = 0; step < CG_STEPS; step++) {
        gather(s, s->p);
        matvec(s, s->p, q);
        double d = dot_local(p, q, n);
        reduce(s, &d, 1);
        hpc_phase_to(s->ph, CG_PH_VECTOR);
        double alpha = rho / d, rho0 = rho;
        for (int j = 0; j < n; j++) {
            z[j] += alpha * p[j];
            r[j] -= alpha * q[j];
        }
        rho = dot_local(r, r, n);
        reduce(s, &rho, 1);
        hpc_phase_to(s->ph, CG_PH_VECTOR);
        double beta = rho / rho0;
        for (int j = 0; j < n; j++)
            p[j] = r[j] + beta * p[j];
    }
    gather(s, s->z);
    matvec(s, s->z, r);  /* r = A z: the explicit residual, not the recurrence's */
    double sum = 0.0;
    for (int j = 0; j < n; j++)
        sum += (x[j] - r[j]) * (x[j] - r[j]);
    reduce(s, &sum, 1);
    return sqrt(sum);
}

double cg_outer(cg_solver *s, double *rnorm)
{
    *rnorm = conj_grad(s);
    int n = s->m->nrows;
    const double *z = s->z + s->m->row0;
    hpc_phase_to(s->ph, CG_PH_VECTOR);
    double norm[2] = {dot_local(s->x, z, n), dot_local(z, z, n)};
    reduce(s, norm, 2);
    hpc_phase_to(s->ph, CG_PH_VECTOR);
    double zeta = s->shift + 1.0 / norm[0], scale = 1.0 / sqrt(norm[1]);
    for (int j = 0; j < n; j++)
        s->x[j] = scale * z[j];
    return zeta;
}

double cg_flops(const cg_class *c)
{
    double nz = c->nonzer * (c->nonzer + 1.0);
    return 2.0 * c->niter * c->na * (3.0 + nz + 25.0 * (5.0 + nz) + 3.0);
}
