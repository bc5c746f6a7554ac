/* evh1_check.h - EVH1's problems (a blast wave, Sod's tube along an axis) and their checks,
 * none of it timed (evh1.c describes the checks and their bounds). */
#ifndef EVH1_CHECK_H
#define EVH1_CHECK_H

#include "evh1_step.h"

typedef enum { EV_BLAST, EV_SOD_X, EV_SOD_Y, EV_SOD_Z } ev_problem;

#define EV_SOD_T 0.2          /* Sod's end time: the waves stay inside the tube */
#define EV_CHECK_STEPS 100    /* the blast's check run: --steps steps, at most this many */
#define EV_CONS_BOUND 1e-12   /* relative change of total mass and energy */
#define EV_SYM_BOUND 1e-12    /* a mirror zone's difference, relative to the field's largest */
#define EV_L1_AT_100 5.46e-3  /* Sod's L1 density bound at 100 zones ... */
#define EV_L1_ORDER 0.9       /* ... shrinking as n^-0.9 (docs/apps_evh1.md) */

typedef struct {
    double change[2];  /* blast: relative change of mass, energy */
    double asym;       /* blast: the largest mirror difference, relative */
    double l1;         /* sod */
    int steps;         /* of the check run */
} ev_verdict;

/* The initial state, in layout X. */
void ev_init(ev_solver *sv, ev_problem pb);

/* Collective: every rank's state finite, else rank 0 fails naming the first bad rank. */
void ev_check_finite(const ev_solver *sv, const char *when);

/* The check run of a point (collective; a failure is rank 0's: error record, exit 1). */
ev_verdict ev_verify(ev_solver *sv, ev_problem pb, int steps, double l1_bound);

#endif
