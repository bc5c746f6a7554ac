/* npb_app.c - the measurement, verification and records of NPB's pseudo-applications. */
#include "npb_app.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double EPSILON = 1e-8;   /* verify.f90 of LU, BT and SP: "epsilon = 1.0d-08" */

typedef struct {
    double rsd[5], err[5], frc, worst;   /* the verified values, the largest relative error */
    double *time, *mops;                 /* per kept sample */
    int n, converged;
    double wall;                         /* this rank's time over the kept samples */
    hpc_phases ph;
} measured;

npb_class npb_app_class(const npb_class *table, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (name[0] == table[i].name)
            return table[i];
    hpc_fail("no class %s", name);   /* the option's choices are the table's */
}

static double rel(double x, double ref)
{
    return fabs((x - ref) / ref);
}

static double check(const npb_app *a, const char *what, int v, double got, double ref)
{
    double e = rel(got, ref);
    if (hpc_rank == 0)
        hpc_check_bound(e, EPSILON, "%s: class %c: the %s %d, %.16e, differs from NPB's %.16e "
                        "(%s) by a relative error", a->bench, a->cl.name, what, v, got, ref,
                        a->source);
    return e;
}

/* Every value within EPSILON of NPB's (relative), else exit 1; the largest relative error. */
static double verify(const npb_app *a, const measured *m)
{
    double worst = 0.0;
    for (int v = 0; v < 5; v++) {
        double e = check(a, "residual norm", v + 1, m->rsd[v], a->cl.rsd[v]);
        worst = e > worst ? e : worst;
    }
    for (int v = 0; v < 5; v++) {
        double e = check(a, "error norm", v + 1, m->err[v], a->cl.err[v]);
        worst = e > worst ? e : worst;
    }
    if (a->cl.frc != 0.0) {
        double e = check(a, "surface integral", 1, m->frc, a->cl.frc);
        worst = e > worst ? e : worst;
    }
    return worst;
}

static void measure(const npb_app *a, measured *m)
{
    memset(m, 0, sizeof *m);
    hpc_phases_init(&m->ph, a->phases, a->nphases);
    m->time = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    m->mops = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    if (!m->time || !m->mops)
        hpc_fail("%s: no memory for %d samples", a->bench, hpc_reps.max_reps);
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    int runs = 0;
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        double rsd[5];
        a->initialise(a->ctx);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        a->run(a->ctx, &m->ph);
        hpc_phases_stop(&m->ph);
        double t = hpc_now() - t0, tmax;
        a->results(a->ctx, rsd, m->err, &m->frc);
        /* the same ranks repeat the same arithmetic: the same bits */
        if (runs++ && memcmp(rsd, m->rsd, sizeof rsd) && hpc_rank == 0)
            hpc_fail("%s: a repeated run's residual norm %.17g differs from the first's %.17g",
                     a->bench, rsd[0], m->rsd[0]);
        memcpy(m->rsd, rsd, sizeof rsd);
        m->worst = verify(a, m);
        if (hpc_phases_sample(&m->ph, &sm, t, &m->wall, &tmax)) {
            m->time[sm.n - 1] = tmax;
            m->mops[sm.n - 1] = a->ops / tmax / 1e6;
        }
    }
    m->n = sm.n;
    m->converged = sm.converged;
    hpc_sampler_free(&sm);
}

static void five(hpc_json *r, const char *key, const double *v)
{
    hpc_json_array(r, key);
    for (int m = 0; m < 5; m++)
        hpc_json_exact(r, NULL, v[m]);
    hpc_json_close(r);
}

static void params(hpc_json *r, const npb_app *a)
{
    char cls[2] = {a->cl.name, '\0'};
    hpc_json_str(r, "class", cls);
    hpc_json_int(r, "n", a->cl.n);
    hpc_json_int(r, a->steps_name, a->cl.steps);
    hpc_json_int(r, "ranks", hpc_nranks);
}

/* The verification values and the layout, in every record. */
static void describe(hpc_json *r, const npb_app *a, const measured *m)
{
    five(r, "rsdnm", m->rsd);
    five(r, "errnm", m->err);
    five(r, "rsdnm_ref", a->cl.rsd);
    five(r, "errnm_ref", a->cl.err);
    if (a->cl.frc != 0.0) {
        hpc_json_exact(r, "frc", m->frc);
        hpc_json_exact(r, "frc_ref", a->cl.frc);
    }
    hpc_json_num(r, "rel_err", m->worst);
    hpc_json_exact(r, "epsilon", EPSILON);
    hpc_json_bool(r, "verified", 1);  /* a run that does not verify emits no result */
    hpc_json_str(r, "verify_source", a->source);
    hpc_json_exact(r, "dt", a->cl.dt);
    hpc_json_str(r, "mops_formula", a->mops_formula);
    hpc_json_str(r, "decomposition", a->decomposition);
    hpc_json_int(r, "xdim", a->xdim);
    hpc_json_int(r, "ydim", a->ydim);
}

static void emit(const npb_app *a, measured *m)
{
    static const char *const metric[] = {"mops", "run_time"};   /* as npb-cg's, npb-mg's */
    static const char *const unit[] = {"Mop/s", "s"};
    static const char *const better[] = {"higher", "lower"};
    double *data[] = {m->mops, m->time};
    for (int k = 0; k < 2; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], m->n, &st);
        hpc_json r;
        hpc_result_begin(&r, metric[k], unit[k], "median", better[k]);
        params(&r, a);
        hpc_result_stats(&r, &st, m->converged);
        describe(&r, a, m);
        if (k == 1) {  /* seconds per timed run, each rank's own (collective) */
            hpc_phases_json(&r, &m->ph, 1.0 / m->n, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "wall_per_rank", m->wall / m->n, MPI_COMM_WORLD);
        }
        hpc_json_emit(&r);
    }
    free(m->time);
    free(m->mops);
}

void npb_app_main(const npb_app *a)
{
    measured m;
    measure(a, &m);
    emit(a, &m);
}
