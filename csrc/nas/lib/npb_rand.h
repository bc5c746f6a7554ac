/* The NAS Parallel Benchmarks' pseudo-random generator (NAS report RNR-94-007, section 2.2;
 * NPB 2/3 common/randdp.f): x_{k+1} = a * x_k mod 2^46, in double precision by splitting
 * the operands into 23-bit halves so every product is exact. CG's matrix generator and MG's
 * charge placement both draw from it, so the verification values depend on it bit for bit. */
#ifndef NPB_RAND_H
#define NPB_RAND_H

#define NPB_A 1220703125.0      /* 5^13, the multiplier of every NPB kernel */

/* Advance *x one step with multiplier a; returns the new value scaled into (0, 1). */
double npb_randlc(double *x, double a);

/* n steps: y[i] = the i-th new value in (0, 1); *x is left at the last state. */
void npb_vranlc(int n, double *x, double a, double *y);

/* a^n mod 2^46 (the multiplier that jumps a stream n steps ahead), by repeated squaring. */
double npb_pow46(double a, long long n);

#endif
