/* npb_app.h - what the drivers of NPB's pseudo-applications (npb-lu, npb-bt) share: NPB's
 * timing rule (untimed initialisation, a timed run of all the steps, the slowest rank's time),
 * the verification of the residual and error norms (and LU's surface integral) against NPB's
 * reference values, and the two result records (mops, run_time). */
#ifndef NPB_APP_H
#define NPB_APP_H

#include "harness.h"

/* One class of a benchmark: its size, steps and NPB's reference values. */
typedef struct {
    char name;
    int n, steps;
    double dt;
    double rsd[5], err[5];   /* RMS norms of the residual and of the error (xcrref, xceref) */
    double frc;              /* LU's surface integral (xciref); 0: none */
} npb_class;

/* A run: the benchmark, its class and layout, and the hooks that do the work. */
typedef struct {
    const char *bench, *source, *mops_formula, *decomposition;
    const char *steps_name;     /* NPB's name of the step count: itmax (LU), niter (BT) */
    npb_class cl;
    double ops;                 /* NPB's operation count of one timed run */
    int xdim, ydim;             /* the process grid */
    const hpc_phase_def *phases;
    int nphases;
    void *ctx;
    void (*initialise)(void *ctx);          /* untimed, before each timed run */
    void (*run)(void *ctx, hpc_phases *ph); /* the timed steps */
    /* untimed, after: the residual and error norms (and surface integral) to verify */
    void (*results)(void *ctx, double rsd[5], double err[5], double *frc);
} npb_app;

/* The classes' table lookup (the option's choices are the table's names). */
npb_class npb_app_class(const npb_class *table, int n, const char *name);

/* Measure (harness samples of timed runs, each verified: exit 1 on a mismatch) and emit the
 * records. Collective. */
void npb_app_main(const npb_app *a);

#endif
