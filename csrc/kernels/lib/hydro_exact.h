/* hydro_exact.h - the exact solution of the Riemann problem of the 1-D Euler equations
 * (ideal gas), as Toro (Riemann Solvers and Numerical Methods for Fluid Dynamics, ch. 4)
 * computes it: Newton iteration on the pressure function from the two-rarefaction guess,
 * then the solution sampled on rays x / t.
 */
#ifndef HYDRO_EXACT_H
#define HYDRO_EXACT_H

typedef struct {
    double rho, u, p;
} hy_state1;

typedef struct {
    hy_state1 l, r;
    double gamma, cl, cr;
    double pstar, ustar;  /* the star region's pressure and velocity */
    int iterations;
} hy_riemann;

/* 0; -1 if the data make a vacuum or the iteration does not converge. */
int hy_riemann_solve(hy_riemann *rs, hy_state1 l, hy_state1 r, double gamma);

/* The solution on the ray x / t = s (the initial discontinuity at x = 0). */
hy_state1 hy_riemann_sample(const hy_riemann *rs, double s);

#endif
