/* evh1_ppm.h - one 1-D sweep of EVH1's hydrodynamics on a line of zones (a pencil): a
 * Lagrangian step with piecewise parabolic (PPM) interface states and a two-shock Riemann
 * solver, then a conservative PPM remap back to the fixed grid, as VH-1 (Blondin & Lufkin)
 * does in its ppmlr routine (the formulas: Colella & Woodward 1984, J. Comput. Phys. 54).
 *
 * The caller copies a line of n zones into the work arrays at [EV_G, EV_G + n), fills the
 * EV_G ghost zones on each side (ev_ghosts), calls ev_sweep and copies the zones back. The
 * line's state: density, the velocity along the line and the two across it, the total
 * energy per unit mass (conserved; pressure is derived from it in each sweep).
 */
#ifndef EVH1_PPM_H
#define EVH1_PPM_H

#define EV_G 6 /* ghost zones a side: the remap's flux at the edge reaches 6 zones out */

/* Quantities of a line: density, the three velocities (u along the line), total specific
 * energy. */
enum { EV_RHO, EV_U, EV_V, EV_W, EV_E, EV_NQ };

/* Arrays of the Riemann problems: p, u, C left and right of each interface, the p* floor,
 * scratch of the wave curves, the zones' sound speeds. */
enum { RS_PL, RS_UL, RS_CL, RS_PR, RS_UR, RS_CR, RS_FLOOR, RS_TL, RS_TR, RS_C, RS_N };

typedef struct {
    int cap;               /* zones with ghosts the arrays hold */
    double *mem;           /* every array below is a slice of it */
    double gamma;
    double *q[EV_NQ], *p;  /* the line's state; p from it */
    double *dx, *dm;       /* zone widths (Lagrangian after the step), masses */
    double *al[EV_NQ], *da[EV_NQ], *a6[EV_NQ];  /* parabolas: left edge, slope, curvature */
    double *pl, *dpl, *p6;  /* pressure's parabola (the Lagrangian step's interface states) */
    double *pstar, *ustar;  /* at the interface i + 1/2 */
    double *rs[RS_N];       /* the Riemann problems (RS_*) */
    double *fm, *fq[EV_NQ]; /* remap: mass and quantity fluxes through the fixed interface */
    double *w1, *w2;        /* scratch: limited slopes, edge values */
    double *cu, *cd, *eu, *e1, *e0;  /* interpolation coefficients of the zone widths */
} ev_line;

typedef enum { EV_PERIODIC, EV_OUTFLOW } ev_boundary;

/* 0, or -1 without memory for lines of up to n zones. */
int ev_line_init(ev_line *l, int n, double gamma);
void ev_line_free(ev_line *l);

/* Fill the ghost zones of q[] of a line of n zones. */
void ev_ghosts(ev_line *l, int n, ev_boundary b);

/* The sweep of n zones of width h by dt (the ghost zones filled). */
void ev_sweep(ev_line *l, int n, double h, double dt);

#endif
