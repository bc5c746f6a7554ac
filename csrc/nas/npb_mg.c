/* npb_mg.c - NAS Parallel Benchmarks MG (NAS report RNR-94-007; NPB 3.4 MG/mg.f): V-cycle
 * multigrid on the periodic 3-D Poisson problem A u = v, v zero except +1 at 10 and -1 at 10
 * points chosen with NPB's random generator (lib/mg_grid.h: mg_zran3). nit iterations of
 * u = u + M r (a V-cycle), r = v - A u; the result is the L2 norm of the final residual,
 * checked against NPB's published value for the class (relative error <= 1e-8).
 *
 * Timing as NPB does it: set up, one untimed iteration (the warm-up of code and pages),
 * re-initialise u and v, then time resid + norm, nit iterations and the final norm. Each
 * sample of the harness is one such timed run after a fresh re-initialisation (untimed).
 * Mop/s = 58 * nit * n^3 / time / 1e6 (mg.f: "mflops = 58.*1.0D-6*nit*nn / t"), time the
 * slowest rank's.
 *
 * Parallelisation (docs/nas_mg.md): 1-D slabs in z over a power-of-two number of ranks,
 * periodic ghost-plane exchange at every level; levels with fewer than two planes per rank
 * are replicated on every rank (allgather at the switch). Needs n >= 2 * ranks.
 *
 * --inject corrupt adds 1 to one residual value before the final norm: verification fails.
 * A failed verification or a non-finite norm: error record, exit 1. */
#include "harness.h"
#include "lib/mg_grid.h"
#include "lib/mg_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "class", .type = HPC_CHOICE, .def = "S", .choices = "S|W|A|B",
     .help = "NPB problem class: S 32^3 x 4 it, W 128^3 x 4, A 256^3 x 4, B 256^3 x 20"},
    /* NPB's own untimed iteration is the warm-up; harness warm-up samples are extra */
    {.name = "warmup", .type = HPC_INT, .def = "0", .min = 0, .max = 1000000,
     .help = "whole timed runs discarded before measuring (NPB's warm-up iteration is always "
             "done)"},
    {0}};

/* NPB 3.4 MG/mg.f: the class table in its main program (nx(lt) and nit) and the reference
 * norms of its verification block ("verify_value = 0.5307707005734d-04" etc.); the same
 * values are in NPB 3.3.1's mg.f. Class W is NPB 3.x's 128^3 x 4 (NPB 2's was 64^3 x 40). */
typedef struct {
    char name;
    int n, nit;
    double verify;
} mg_class;

static const mg_class CLASSES[] = {
    {'S', 32, 4, 0.5307707005734e-04},
    {'W', 128, 4, 0.6467329375339e-05},
    {'A', 256, 4, 0.2433365309069e-05},
    {'B', 256, 20, 0.1800564401355e-05},
};
static const double EPSILON = 1e-8;  /* mg.f: "epsilon = 1.d-8" */
static const char *const SOURCE = "NPB 3.4 MG/mg.f verification block (same in NPB 3.3.1)";

typedef struct {
    mg_class cl;
} config;

static void parse(config *c)
{
    const char *name = hpc_opt_str("class");
    for (size_t i = 0; i < sizeof CLASSES / sizeof CLASSES[0]; i++)
        if (name[0] == CLASSES[i].name)
            c->cl = CLASSES[i];
    int p = hpc_nranks;
    hpc_usage_check(p & (p - 1), "npb-mg: %d ranks: NPB MG runs on a power of two", p);
    hpc_usage_check(c->cl.n < 2 * p, "npb-mg: class %c (%d^3) is too small for %d ranks: at most "
                    "%d (two z-planes per rank)", c->cl.name, c->cl.n, p, c->cl.n / 2);
}

static void coefficients(mg_ctx *g, char cls)
{
    /* mg.f: a(0..3) of the operator A; c(0..3) of the smoother, S(a) for S, W, A and
     * S(b) for B and larger */
    static const double A[4] = {-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0};
    static const double CA[4] = {-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0};
    static const double CB[4] = {-3.0 / 17.0, 1.0 / 33.0, -1.0 / 61.0, 0.0};
    memcpy(g->a, A, sizeof A);
    memcpy(g->c, cls == 'B' ? CB : CA, sizeof CA);
}

/* u = 0, v = NPB's charges (untimed, as NPB's re-initialisation). */
static void initialise(mg_ctx *g)
{
    hpc_phases *ph = g->ph;
    g->ph = NULL;
    mg_level *L = &g->lev[g->lt];
    mg_zero(L->u, L->size);
    mg_zran3(g);
    g->ph = ph;
}

/* NPB's timed part: resid, norm, nit x (V-cycle, resid), norm. Returns the final norm. The
 * norms are taken, and each V-cycle's first restriction made, with the residual before them
 * (mg_resid_top); a corrupted run takes its last norm apart, after the corruption. */
static double benchmark(mg_ctx *g, int nit)
{
    double rnm2, rnmu;
    int corrupt = hpc_inject == HPC_INJECT_CORRUPT;
    mg_resid_top(g, MG_NORM | MG_AHEAD, &rnm2, &rnmu);
    for (int it = 0; it < nit; it++) {
        mg_vcycle(g);
        mg_resid_top(g, it + 1 < nit ? MG_AHEAD : corrupt ? 0 : MG_NORM, &rnm2, &rnmu);
    }
    if (corrupt) {
        mg_level *L = &g->lev[g->lt];
        if (g->rank == 0)
            L->r[L->sz + L->sy + 1] += 1.0;  /* a wrong residual: the norm must not verify */
        mg_norm2u3(g, L->r, &rnm2, &rnmu);
    }
    return rnm2;
}

/* NPB's startup iteration, untimed, then its re-initialisation. */
static void warm_up(mg_ctx *g)
{
    hpc_phases *ph = g->ph;
    g->ph = NULL;
    double rnm2, rnmu;
    initialise(g);
    mg_resid_top(g, MG_NORM | MG_AHEAD, &rnm2, &rnmu);
    mg_vcycle(g);
    mg_resid_top(g, 0, &rnm2, &rnmu);
    g->ph = ph;
}

typedef struct {
    double rnm2, err;
    double *time, *mops;  /* per kept sample */
    int n, converged;
    double wall;          /* this rank's time over the kept samples */
    hpc_phases ph;
} measured;

/* Relative error against the class's reference; exit 1 unless within EPSILON. */
static double verify(const config *c, double rnm2)
{
    double err = fabs(rnm2 - c->cl.verify) / c->cl.verify;
    if (hpc_rank == 0)
        hpc_check_bound(err, EPSILON, "npb-mg: class %c: the residual norm %.13e differs from "
                        "NPB's %.13e (%s) by a relative error", c->cl.name, rnm2, c->cl.verify,
                        SOURCE);
    return err;
}

static void measure(const config *c, mg_ctx *g, measured *m)
{
    memset(m, 0, sizeof *m);
    hpc_phases_init(&m->ph, mg_phase_defs, MG_NPHASES);
    m->time = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    m->mops = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    if (!m->time || !m->mops)
        hpc_fail("npb-mg: no memory for %d samples", hpc_reps.max_reps);
    warm_up(g);
    double n = c->cl.n, ops = 58.0 * c->cl.nit * n * n * n;
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    int first = 1;
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        initialise(g);
        MPI_Barrier(MPI_COMM_WORLD);
        g->ph = &m->ph;
        double t0 = hpc_now();
        double rnm2 = benchmark(g, c->cl.nit);
        hpc_phases_stop(&m->ph);
        double t = hpc_now() - t0, tmax;
        g->ph = NULL;
        m->err = verify(c, rnm2);
        /* the same ranks repeat the same arithmetic: the same bits */
        if (!first && rnm2 != m->rnm2 && hpc_rank == 0)
            hpc_fail("npb-mg: a repeated run's norm %.17g differs from the first's %.17g", rnm2,
                     m->rnm2);
        m->rnm2 = rnm2;
        first = 0;
        if (hpc_phases_sample(&m->ph, &sm, t, &m->wall, &tmax)) {
            m->time[sm.n - 1] = tmax;
            m->mops[sm.n - 1] = ops / tmax / 1e6;
        }
    }
    m->n = sm.n;
    m->converged = sm.converged;
    hpc_sampler_free(&sm);
}

static void params(hpc_json *r, const config *c)
{
    char cls[2] = {c->cl.name, '\0'};
    hpc_json_str(r, "class", cls);
    hpc_json_int(r, "n", c->cl.n);
    hpc_json_int(r, "nit", c->cl.nit);
    hpc_json_int(r, "ranks", hpc_nranks);
}

/* The verification values and how the run was laid out, in every record. */
static void common_json(hpc_json *r, const config *c, const mg_ctx *g, const measured *m)
{
    hpc_json_exact(r, "rnm2", m->rnm2);
    hpc_json_exact(r, "verify_value", c->cl.verify);
    hpc_json_num(r, "rel_err", m->err);
    hpc_json_exact(r, "epsilon", EPSILON);
    hpc_json_bool(r, "verified", 1);  /* a run that does not verify emits no result */
    hpc_json_str(r, "verify_source", SOURCE);
    hpc_json_str(r, "mops_formula", "58 * nit * n^3 / time / 1e6 (NPB 3.4 MG/mg.f)");
    hpc_json_str(r, "decomposition", "z-slabs");
    int dist = 0;
    for (int k = 1; k <= g->lt; k++)
        dist += !g->lev[k].rep;
    hpc_json_int(r, "levels", g->lt);
    hpc_json_int(r, "replicated_levels", g->lt - dist);
}

static void emit(const config *c, const mg_ctx *g, measured *m)
{
    static const char *const metric[] = {"mops", "run_time"};   /* as npb-cg's */
    static const char *const unit[] = {"Mop/s", "s"};
    static const char *const better[] = {"higher", "lower"};
    double *data[] = {m->mops, m->time};
    for (int k = 0; k < 2; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], m->n, &st);
        hpc_json r;
        hpc_result_begin(&r, metric[k], unit[k], "median", better[k]);
        params(&r, c);
        hpc_result_stats(&r, &st, m->converged);
        common_json(&r, c, g, m);
        if (k == 1) {  /* seconds per timed run, each rank's own (collective) */
            hpc_phases_json(&r, &m->ph, 1.0 / m->n, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "wall_per_rank", m->wall / m->n, MPI_COMM_WORLD);
        }
        hpc_json_emit(&r);
    }
    free(m->time);
    free(m->mops);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "npb-mg",
             "NAS Parallel Benchmarks MG: V-cycle multigrid on a periodic 3-D Poisson problem, "
             "classes S, W, A, B, verified against NPB's residual norms.", options,
             MPI_THREAD_SINGLE);
    config c;
    parse(&c);

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    mg_ctx g;
    if (mg_setup(&g, c.cl.n, MPI_COMM_WORLD))
        hpc_fail("npb-mg: no memory for class %c (%d^3) on %d ranks", c.cl.name, c.cl.n,
                 hpc_nranks);
    coefficients(&g, c.cl.name);
    measured m;
    measure(&c, &g, &m);
    emit(&c, &g, &m);
    mg_free(&g);

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
