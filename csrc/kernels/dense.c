/* dense.c - a distributed dense linear solve on ScaLAPACK: the complex system of AORSA3D's
 * all-orders spectral discretisation (pzgesv) or HPL's real one (pdgesv), block-cyclic with
 * square NB x NB blocks on a P x Q BLACS process grid (process rows P, row-major ranks).
 *
 * The system (lib/dense_matrix.h): a full pseudo-random coupling matrix with n on the
 * diagonal, strictly diagonally dominant (condition number about 6 at every n), generated in
 * place by every rank from global indices: no rank ever holds the whole matrix.
 *
 * A sample: b copied into x, a barrier, then the LU factorisation with partial pivoting
 * (p?getrf) and the solve with its factors (p?getrs), each timed on every rank; the slowest
 * rank's factorisation, solve and total times are kept. GFlop/s = the standard operation count
 * (HPL's 2/3 n^3 + 3/2 n^2 for a real system, 4x that for a complex one) / total time / 1e9.
 *
 * Verification, every sample, outside the timing (lib/dense_solve.h): every rank's part of x
 * finite; A regenerated (the factorisation overwrote it) and HPL's scaled residual
 * ||A x - b|| / (eps (||A|| ||x|| + ||b||) n), infinity norms, below 16; otherwise the run
 * fails with the residual (exit 1). --inject corrupt perturbs x by one part in 10^6 before the
 * check, which must then fail.
 *
 * Points: every kind x n x NB x grid of the lists, one BLACS grid each.
 * Metrics per point: gflops (GFlop/s), time (s, the whole solve), factor_time and solve_time
 * (s); times are the slowest rank's.
 */
#include "batch.h"
#include "harness.h"
#include "lib/dense_lookahead.h"
#include "lib/dense_matrix.h"
#include "lib/dense_solve.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "n", .type = HPC_SIZES, .def = "1000", .min = 1, .max = 1000000,
     .help = "orders n of the systems (n x n)"},
    {.name = "nb", .type = HPC_SIZES, .def = "64", .min = 1, .max = 4096,
     .help = "block sizes NB (NB x NB blocks, at most n)"},
    {.name = "grids", .type = HPC_GRIDS, .def = "all", .what = "PxQ", .all = 1,
     .help = "process grids PxQ (P process rows); all: every P x Q = ranks"},
    {.name = "kinds", .type = HPC_CHOICES, .def = "complex", .choices = "complex|real", .all = 1,
     .help = "systems: complex (pzgesv, AORSA3D), real (pdgesv, HPL)"},
    {.name = "solver", .type = HPC_CHOICE, .def = "scalapack", .choices = "scalapack|lookahead",
     .help = "the factorisation: scalapack (p?getrf, the seeds' reference) or lookahead "
             "(hpceval's LU with recursive panels and look-ahead, as HPL's: real systems on "
             "1 x Q grids); the solve is p?getrs either way"},
    {0}};

typedef struct {
    const long long *n, *nb;
    int nn, nnb, ngrids, nkinds;
    hpc_grid *grids;
    const long long *kinds;  /* indices into dense_kinds */
    int lookahead;           /* --solver lookahead (lib/dense_lookahead.h) */
} config;

/* The largest local block of A a rank holds on a P-row grid: ceil(n / (P NB)) NB rows. */
static double local_extent(long long n, long long nb, int p)
{
    return (double)((n + p * nb - 1) / (p * nb) * nb);
}

static void parse(config *cf)
{
    cf->nn = hpc_opt_list("n", &cf->n);
    cf->nnb = hpc_opt_list("nb", &cf->nb);
    cf->nkinds = hpc_opt_list("kinds", &cf->kinds);
    cf->grids = hpc_opt_pgrids("grids", &cf->ngrids);
    cf->lookahead = strcmp(hpc_opt_str("solver"), "lookahead") == 0;
    for (int k = 0; k < cf->nkinds && cf->lookahead; k++)
        hpc_usage_check(strcmp(dense_kinds[cf->kinds[k]].name, "real") != 0, "option --solver "
                        "lookahead: real systems only (--kinds real)");
    for (int g = 0; g < cf->ngrids && cf->lookahead; g++)
        hpc_usage_check(cf->grids[g].x != 1, "option --solver lookahead: 1 x Q grids only "
                        "(grid %dx%d)", cf->grids[g].x, cf->grids[g].y);
    for (int i = 0; i < cf->nn; i++)
        for (int j = 0; j < cf->nnb; j++) {
            hpc_usage_check(cf->nb[j] > cf->n[i], "option --nb: a block of %lld is larger "
                            "than the matrix (n %lld)", cf->nb[j], cf->n[i]);
            for (int g = 0; g < cf->ngrids; g++)  /* ScaLAPACK indexes a rank's part by int */
                hpc_usage_check(local_extent(cf->n[i], cf->nb[j], cf->grids[g].x) *
                                local_extent(cf->n[i], cf->nb[j], cf->grids[g].y) > INT_MAX,
                                "dense: n %lld on a %dx%d grid: a rank's part of the matrix "
                                "exceeds 2^31 elements", cf->n[i], cf->grids[g].x,
                                cf->grids[g].y);
        }
}

typedef struct {
    const dense_kind *kind;
    int n, nb, P, Q, lookahead;
} point;

typedef struct {
    dense_layout l;
    double *a;
    dense_work w;
    double gen_s;  /* generating A and b, the slowest rank */
} system_;

static void setup(const point *pt, system_ *s)
{
    int ctxt;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", pt->P, pt->Q);
    int info = dense_layout_init(&s->l, pt->n, pt->nb, ctxt, pt->kind->elem);
    if (info != 0)
        hpc_fail("dense: descinit: info %d (n %d, NB %d, grid %dx%d)", info, pt->n, pt->nb,
                 pt->P, pt->Q);
    s->a = malloc(dense_matrix_doubles(&s->l) * sizeof(double));
    if (!s->a || dense_work_init(&s->w, &s->l) != 0)
        hpc_fail("dense: no memory for n %d on a %dx%d grid (%.1f MiB a rank)", pt->n, pt->P,
                 pt->Q, (double)dense_matrix_doubles(&s->l) * 8 / 1048576);
    double t0 = hpc_now();
    dense_fill_matrix(&s->l, s->a);
    dense_fill_rhs(&s->l, s->w.b);
    double t = hpc_now() - t0;
    MPI_Allreduce(&t, &s->gen_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

static void teardown(system_ *s)
{
    free(s->a);
    dense_work_free(&s->w);
    Cblacs_gridexit(s->l.ctxt);
}

enum { FACTOR, SOLVE, TOTAL };

/* One timed solve; t gets the slowest rank's factorisation, solve and total seconds. */
static void timed_solve(const point *pt, system_ *s, double t[3])
{
    memcpy(s->w.x, s->w.b, dense_vector_doubles(&s->l) * sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = hpc_now();
    int info = pt->lookahead ? dense_lookahead_getrf(&s->l, s->a, s->w.ipiv, MPI_COMM_WORLD)
                             : dense_factor(pt->kind, &s->l, s->a, &s->w);
    double t1 = hpc_now();
    int info2 = dense_solve(pt->kind, &s->l, s->a, &s->w);
    double t2 = hpc_now();
    double mine[3] = {t1 - t0, t2 - t1, t2 - t0};
    if (info != 0 || info2 != 0)
        hpc_fail("dense: %s n %d: p?getrf info %d, p?getrs info %d (a zero pivot: the "
                 "matrix is singular)", pt->kind->routine, pt->n, info, info2);
    MPI_Allreduce(mine, t, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* HPL's check of the sample's x (every rank takes part); returns the scaled residual. */
static double check(const point *pt, system_ *s)
{
    if (hpc_inject == HPC_INJECT_CORRUPT && s->l.vloc > 0 && s->l.myrow == 0)
        s->w.x[0] += 1e-6 * (1.0 + fabs(s->w.x[0]));
    hpc_check_finite(s->w.x, (size_t)s->l.vloc * (size_t)s->l.elem,
                     "dense: %s n %d NB %d grid %dx%d: the solution", pt->kind->routine, pt->n,
                     pt->nb, pt->P, pt->Q);
    dense_fill_matrix(&s->l, s->a);  /* the original A, which the next sample factors again */
    double r = dense_residual(pt->kind, &s->l, s->a, &s->w);
    if (hpc_rank == 0)
        hpc_check_bound(r, DENSE_RESIDUAL_BOUND, "dense: %s n %d NB %d grid %dx%d: HPL's "
                        "scaled residual ||Ax-b||/(eps(||A|| ||x||+||b||)n)", pt->kind->routine,
                        pt->n, pt->nb, pt->P, pt->Q);
    return r;
}

typedef struct {
    double *v[4];      /* gflops, time, factor_time, solve_time per kept sample */
    int n, converged;
    double residual;   /* the largest of every checked sample */
} measured;

static void measure(const point *pt, system_ *s, measured *m)
{
    memset(m, 0, sizeof *m);
    for (int k = 0; k < 4; k++)
        if (!(m->v[k] = malloc((size_t)hpc_reps.max_reps * sizeof(double))))
            hpc_fail("dense: no memory for %d samples", hpc_reps.max_reps);
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    double flops = dense_flops(pt->kind, pt->n);
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        double t[3];
        timed_solve(pt, s, t);
        m->residual = fmax(m->residual, check(pt, s));
        int kept = sm.n;
        hpc_sampler_add(&sm, t[TOTAL]);
        if (sm.n > kept) {
            m->v[0][kept] = flops / t[TOTAL] * 1e-9;
            m->v[1][kept] = t[TOTAL];
            m->v[2][kept] = t[FACTOR];
            m->v[3][kept] = t[SOLVE];
        }
    }
    m->n = sm.n;
    m->converged = sm.converged;
    hpc_sampler_free(&sm);
}

typedef struct {
    const point *pt;
    const system_ *s;
    const measured *m;
} emitted;

static void params(hpc_json *r, const void *ctx)
{
    const point *pt = ((const emitted *)ctx)->pt;
    hpc_json_str(r, "kind", pt->kind->name);
    hpc_json_str(r, "routine", pt->kind->routine);
    hpc_json_int(r, "n", pt->n);
    hpc_json_int(r, "nb", pt->nb);
    hpc_json_int(r, "P", pt->P);
    hpc_json_int(r, "Q", pt->Q);
    hpc_json_int(r, "ranks", hpc_nranks);
    if (pt->lookahead)   /* said only when not ScaLAPACK's: the same points as before stay so */
        hpc_json_str(r, "solver", "lookahead");
}

static emitted current;  /* what extra() writes: hpc_point's extra takes no context */

static void extra(hpc_json *r)
{
    const emitted *e = &current;
    hpc_json_num(r, "residual", e->m->residual);
    hpc_json_exact(r, "residual_bound", DENSE_RESIDUAL_BOUND);
    hpc_json_bool(r, "verified", e->m->residual < DENSE_RESIDUAL_BOUND);
    hpc_json_exact(r, "flops_per_solve", dense_flops(e->pt->kind, e->pt->n));
    hpc_json_num(r, "generate_s", e->s->gen_s);
    hpc_json_str(r, "matrix", "diagonally dominant pseudo-random (lib/dense_matrix.h)");
}

static void emit(const point *pt, const system_ *s, measured *m)
{
    static const char *const metric[] = {"gflops", "time", "factor_time", "solve_time"};
    static const char *const unit[] = {"GFlop/s", "s", "s", "s"};
    static const char *const better[] = {"higher", "lower", "lower", "lower"};
    current = (emitted){pt, s, m};
    hpc_point hp = {params, &current, "solves_per_sample", extra};
    for (int k = 0; k < 4; k++) {
        if (hpc_rank == 0)
            hpc_emit_values(&hp, metric[k], unit[k], better[k], m->v[k], m->n, m->converged, 1);
        free(m->v[k]);
    }
}

static void run_point(const point *pt)
{
    system_ s;
    setup(pt, &s);
    hpc_inject_first_point();
    measured m;
    measure(pt, &s, &m);
    emit(pt, &s, &m);
    teardown(&s);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "dense",
             "Dense linear solve on ScaLAPACK (pzgesv as AORSA3D, pdgesv as HPL), block-cyclic "
             "on a P x Q grid; HPL's residual check; GFlop/s, factorisation and solve times.",
             options, MPI_THREAD_SINGLE);
    config cf;
    parse(&cf);
    int me, np;
    Cblacs_pinfo(&me, &np);

    hpc_begin(1, NULL);
    for (int k = 0; k < cf.nkinds; k++)
        for (int i = 0; i < cf.nn; i++)
            for (int j = 0; j < cf.nnb; j++)
                for (int g = 0; g < cf.ngrids; g++) {
                    point pt = {&dense_kinds[cf.kinds[k]], (int)cf.n[i], (int)cf.nb[j],
                                cf.grids[g].x, cf.grids[g].y, cf.lookahead};
                    run_point(&pt);
                }
    free(cf.grids);
    Cblacs_exit(1);

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
