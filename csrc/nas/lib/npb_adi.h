/* npb_adi.h - what the drivers of NPB's ADI pseudo-applications (npb-bt, npb-sp) share: NPB's
 * square rank rule on LU's sqrt(P) x sqrt(P) grid, the forcing and initial values, NPB's
 * untimed step, the timed niter steps and NPB's verification after them (the error norms,
 * then a new residual and its norms). */
#ifndef NPB_ADI_H
#define NPB_ADI_H

#include "lu_grid.h"
#include "npb_app.h"

typedef struct {
    npb_app app;                /* the benchmark's description (the rest is set here) */
    const char *kernel_name;    /* "BT", "SP" */
    void *kernel;               /* its context, and what it does with it: */
    int (*setup)(void *kernel, lu_ctx *g);   /* 0, or -1 without memory */
    void (*step)(void *kernel);              /* one time step (collective) */
    void (*release)(void *kernel);
    lu_ctx g;
} npb_adi;

/* After hpc_init: the class named by --class from table (n classes), the rank checks (a usage
 * error, exit 2), then the whole run (measure, verify, emit). ops(n) is NPB's operation count
 * of one step on an n^3 grid. Collective. */
void npb_adi_main(npb_adi *r, const npb_class *table, int n, double (*ops)(double n));

#endif
