/* npb_adi.c - the driver of NPB's ADI pseudo-applications (BT, SP) on LU's grid. */
#include "npb_adi.h"

#include <math.h>

static void initialise(void *ctx)
{
    lu_initial(&((npb_adi *)ctx)->g);
}

static void run(void *ctx, hpc_phases *ph)
{
    npb_adi *r = ctx;
    r->g.ph = ph;
    for (int step = 0; step < r->app.cl.steps; step++)
        r->step(r->kernel);
    r->g.ph = NULL;
}

/* NPB's verify: the error norms, then a new right-hand side and its norm (over dt). */
static void results(void *ctx, double rsd[5], double err[5], double *frc)
{
    lu_ctx *g = &((npb_adi *)ctx)->g;
    if (hpc_inject == HPC_INJECT_CORRUPT && g->rank == 0)
        lu_at(g, g->u, g->ist, g->jst, 3)[0] += 1.0;  /* a wrong value: must not verify */
    lu_error(g, err);
    lu_rhs(g);
    lu_l2norm(g, g->rsd, rsd);
    *frc = 0.0;
}

void npb_adi_main(npb_adi *r, const npb_class *table, int n_classes, double (*ops)(double n))
{
    npb_app *a = &r->app;
    a->cl = npb_app_class(table, n_classes, hpc_opt_str("class"));
    int p = hpc_nranks, n = a->cl.n, q = (int)lround(sqrt((double)p));
    hpc_usage_check(q * q != p, "%s: %d ranks: NPB %s runs on a square number of ranks",
                    a->bench, p, r->kernel_name);
    a->xdim = a->ydim = q;
    hpc_usage_check(n / q < 3, "%s: class %c (%d^3) is too small for %d ranks (a %d x %d grid): "
                    "at least 3 points a rank in each of i and j", a->bench, a->cl.name, n, p, q,
                    q);
    a->ops = a->cl.steps * ops(n);
    a->steps_name = "niter";
    a->initialise = initialise;
    a->run = run;
    a->results = results;
    a->ctx = r;

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    if (lu_setup(&r->g, n, a->cl.dt, q, q, MPI_COMM_WORLD) || r->setup(r->kernel, &r->g))
        hpc_fail("%s: no memory for class %c (%d^3) on %d ranks", a->bench, a->cl.name, n, p);
    lu_forcing(&r->g);
    lu_initial(&r->g);
    r->step(r->kernel);   /* NPB's untimed step */
    npb_app_main(a);
    r->release(r->kernel);
    lu_free(&r->g);
}
