/* evh1_step.h - EVH1's time step on the pencils of evh1_grid.h: a sweep in x, y and z (z, y, x
 * on every other step: the alternation makes the splitting second order), each over every whole line
 * of the layout that holds it, with a transpose between sweeps. The time step comes from the
 * state at the step's start, the minimum over the ranks (MPI_Allreduce).
 */
#ifndef EVH1_STEP_H
#define EVH1_STEP_H

#include "evh1_grid.h"
#include "evh1_ppm.h"

typedef struct {
    ev_grid *g;
    ev_line line;            /* the work arrays of one line */
    ev_boundary bc[3];       /* per axis */
    double h[3], gamma, cfl;
} ev_solver;

/* 0, or -1 without memory. */
int ev_solver_init(ev_solver *sv, ev_grid *g, const ev_boundary bc[3], double gamma, double cfl);
void ev_solver_free(ev_solver *sv);

/* The time step CFL / max over zones and axes of (|u_a| + c) / h_a, minimum over the ranks
 * (phases: compute, then dt). Collective. */
double ev_dt(ev_solver *sv);

/* A step by dt: three sweeps, two transposes; x, y, z from layout X (where a run starts),
 * z, y, x from layout Z (where the previous step ended). */
void ev_step(ev_solver *sv, double dt);

/* Up to nsteps steps from time *t, stopping at t_end when t_end > 0 (the last step shortened
 * to land on it); the number taken. A time step that is not finite and positive fails. */
int ev_advance(ev_solver *sv, int nsteps, double t_end, double *t);

/* The pressure of a zone's state. */
double ev_pressure(double gamma, const double f[EV_NF]);

#endif
