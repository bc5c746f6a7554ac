/* npb_cg.c - NAS Parallel Benchmarks kernel CG (NAS report RNR-94-007; NPB 2/3): the inverse
 * power method with an inner conjugate-gradient solve estimates the smallest eigenvalue of a
 * random sparse symmetric positive definite matrix; zeta = shift + 1 / (x . z) after niter
 * outer iterations must match NPB's value for the class to a relative 1e-10.
 *
 * The matrix (lib/cg_matrix.h) is NPB's makea, drawn from NPB's generator in NPB's order, so
 * the verification value is NPB's. Decomposition (lib/cg_solve.h): a block of rows per rank,
 * the search direction gathered by MPI_Allgatherv before every product, dot products by
 * MPI_Allreduce (NPB's 2-D layout is not reproduced). Rank counts: powers of two, as NPB's.
 *
 * Timing, NPB's rule: makea and one outer iteration run untimed; x is reset to ones, and a
 * sample is the niter outer iterations after a barrier, the slowest rank's time (NPB's tmax).
 * The harness repeats samples (--min-reps ...); every sample's zeta is verified, outside the
 * timing. Mop/s = NPB's operation count (cg_flops) / time / 1e6.
 *
 * --inject corrupt scales this rank's matrix elements by 1 + 1e-6 before the first iteration:
 * zeta moves by ~1e-7 relative, so the verification must fail (exit 1).
 *
 * Metrics: mops (Mop/s, with the verification values), run_time (s per niter iterations,
 * NPB's "Time in seconds") and iteration_time (ms per outer iteration, per-rank phases). */
#include "harness.h"
#include "lib/cg_matrix.h"
#include "lib/cg_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "class", .type = HPC_CHOICE, .def = "S", .choices = "S|W|A|B",
     .help = "NPB problem class (S: na 1400; W: 7000; A: 14000; B: 75000)"},
    {0}};

static const double EPSILON = 1e-10;  /* NPB's verification tolerance (relative) */
static const char *const ZETA_SOURCE = "NPB 3.4 CG/cg.f, zeta_verify_value";

typedef struct {
    const cg_class *c;
    int row0, nrows;
} config;

static void parse(config *cf)
{
    cf->c = cg_class_find(hpc_opt_str("class")[0]);
    hpc_usage_check((hpc_nranks & (hpc_nranks - 1)) != 0, "npb-cg: %d ranks: NPB CG runs on a "
                    "power of two ranks (1, 2, 4, 8, ...)", hpc_nranks);
    int na = cf->c->na;
    hpc_usage_check(hpc_nranks > na, "npb-cg: %d ranks for %d rows", hpc_nranks, na);
    cf->row0 = (int)((long long)na * hpc_rank / hpc_nranks);
    cf->nrows = (int)((long long)na * (hpc_rank + 1) / hpc_nranks) - cf->row0;
}

typedef struct {
    cg_matrix m;
    cg_solver s;
    hpc_phases ph;
    long long nnz;    /* all ranks' */
    double setup_s;   /* makea, the slowest rank */
} problem;

static void damage(cg_matrix *m)
{
    for (int64_t k = 0; k < m->nnz; k++)
        m->a[k] *= 1.0 + 1e-6;
}

/* makea, the solver's buffers, and NPB's untimed first iteration. */
static void setup(const config *cf, problem *pb)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = hpc_now();
    if (cg_makea(cf->c, cf->row0, cf->nrows, &pb->m) != 0)
        hpc_fail("npb-cg: no memory for class %c's matrix (rows %d..%d)", cf->c->name, cf->row0,
                 cf->row0 + cf->nrows - 1);
    double t = hpc_now() - t0;
    MPI_Allreduce(&t, &pb->setup_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    long long nnz = pb->m.nnz;
    MPI_Allreduce(&nnz, &pb->nnz, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    hpc_phases_init(&pb->ph, cg_phase_defs, CG_NPHASES);
    if (cg_solver_init(&pb->s, &pb->m, cf->c->shift, MPI_COMM_WORLD, &pb->ph) != 0)
        hpc_fail("npb-cg: no memory for the vectors of class %c", cf->c->name);
    if (hpc_inject == HPC_INJECT_CORRUPT)
        damage(&pb->m);
    double rnorm;
    cg_solver_reset(&pb->s);
    cg_outer(&pb->s, &rnorm);
    hpc_phases_stop(&pb->ph);
    hpc_phases_reset(&pb->ph);
}

typedef struct {
    double zeta, rnorm, err;
} verdict;

/* NPB's verification of one sample (rank 0; a failure ends the run with exit 1). */
static void verify(const cg_class *c, double zeta, double rnorm, verdict *v)
{
    double got[2] = {zeta, rnorm};
    hpc_check_finite(got, 2, "npb-cg: class %c: zeta and ||r||", c->name);
    v->zeta = zeta;
    v->rnorm = rnorm;
    v->err = fabs(zeta - c->zeta) / c->zeta;
    hpc_check_bound(v->err, EPSILON, "npb-cg: class %c verification failed: zeta %.13f, NPB's "
                    "%.13f, relative error", c->name, zeta, c->zeta);
}

typedef struct {
    double *mops, *run_s, *iter_ms;  /* per kept sample */
    int n, converged;
    double wall;  /* this rank's time over the kept samples */
    verdict v;
} measured;

/* One sample: niter outer iterations from x = ones; returns this rank's time. */
static double one_run(const config *cf, problem *pb, double *zeta, double *rnorm)
{
    cg_solver_reset(&pb->s);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = hpc_now();
    hpc_phases_start(&pb->ph, CG_PH_VECTOR);
    for (int it = 0; it < cf->c->niter; it++)
        *zeta = cg_outer(&pb->s, rnorm);
    hpc_phases_stop(&pb->ph);
    return hpc_now() - t0;
}

static void measure(const config *cf, problem *pb, measured *m)
{
    memset(m, 0, sizeof *m);
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    size_t room = (size_t)hpc_reps.max_reps * sizeof(double);
    m->mops = malloc(room);
    m->run_s = malloc(room);
    m->iter_ms = malloc(room);
    if (!m->mops || !m->run_s || !m->iter_ms)
        hpc_fail("npb-cg: no memory for %d samples", hpc_reps.max_reps);
    double flops = cg_flops(cf->c);
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        double zeta = 0, rnorm = 0, tmax;
        double wall = one_run(cf, pb, &zeta, &rnorm);
        if (hpc_rank == 0)
            verify(cf->c, zeta, rnorm, &m->v);
        if (hpc_phases_sample(&pb->ph, &sm, wall, &m->wall, &tmax)) {
            m->run_s[sm.n - 1] = tmax;
            m->mops[sm.n - 1] = flops / tmax * 1e-6;
            m->iter_ms[sm.n - 1] = tmax / cf->c->niter * 1e3;
        }
    }
    m->n = sm.n;
    m->converged = sm.converged;
    hpc_sampler_free(&sm);
}

static void params(hpc_json *r, const config *cf)
{
    char name[2] = {cf->c->name, '\0'};
    hpc_json_str(r, "class", name);
    hpc_json_int(r, "na", cf->c->na);
    hpc_json_int(r, "nonzer", cf->c->nonzer);
    hpc_json_int(r, "niter", cf->c->niter);
    hpc_json_exact(r, "shift", cf->c->shift);
    hpc_json_int(r, "ranks", hpc_nranks);
}

/* What every record carries: the verification and the problem's size. */
static void common_json(hpc_json *r, const config *cf, const problem *pb, const verdict *v)
{
    hpc_json_exact(r, "zeta", v->zeta);
    hpc_json_exact(r, "zeta_reference", cf->c->zeta);
    hpc_json_num(r, "zeta_rel_error", v->err);
    hpc_json_exact(r, "zeta_epsilon", EPSILON);
    hpc_json_bool(r, "verified", v->err <= EPSILON);
    hpc_json_str(r, "zeta_source", ZETA_SOURCE);
    hpc_json_num(r, "rnorm", v->rnorm);
    hpc_json_int(r, "nnz", pb->nnz);
    hpc_json_int(r, "cg_steps", CG_STEPS);
    hpc_json_exact(r, "flops_per_run", cg_flops(cf->c));
    hpc_json_num(r, "setup_s", pb->setup_s);
    hpc_json_str(r, "decomposition", "row blocks; allgatherv + allreduce");
}

static void emit(const config *cf, problem *pb, measured *m)
{
    static const char *const metric[] = {"mops", "run_time", "iteration_time"};
    static const char *const unit[] = {"Mop/s", "s", "ms"};
    static const char *const better[] = {"higher", "lower", "lower"};
    double *data[] = {m->mops, m->run_s, m->iter_ms};
    double iters = (double)m->n * cf->c->niter;
    for (int k = 0; k < 3; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], m->n, &st);
        hpc_json r;
        hpc_result_begin(&r, metric[k], unit[k], "median", better[k]);
        params(&r, cf);
        hpc_result_stats(&r, &st, m->converged);
        common_json(&r, cf, pb, &m->v);
        if (k == 2) {  /* per outer iteration, over every kept sample (collective) */
            hpc_phases_json(&r, &pb->ph, 1e3 / iters, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "wall_per_rank", m->wall / iters * 1e3, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "rows_per_rank", cf->nrows, MPI_COMM_WORLD);
        }
        hpc_json_emit(&r);
    }
    free(m->mops);
    free(m->run_s);
    free(m->iter_ms);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "npb-cg",
             "NAS Parallel Benchmarks CG: smallest eigenvalue of a random sparse matrix by "
             "inverse power iteration with conjugate gradients; Mop/s as NPB counts them.",
             options, MPI_THREAD_SINGLE);
    config cf;
    parse(&cf);

    hpc_begin(1, NULL);
    problem pb;
    setup(&cf, &pb);
    hpc_inject_first_point();
    measured m;
    measure(&cf, &pb, &m);
    emit(&cf, &pb, &m);
    cg_solver_free(&pb.s);
    cg_matrix_free(&pb.m);

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
