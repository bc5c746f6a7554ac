/* mc_transport.h - one-speed particle transport for the montecarlo proxy:
 * a slab stack (1-D in x) or nested spheres, each region with its own total
 * cross section sigma_t and scattering ratio c = sigma_s / sigma_t;
 * analog absorption and isotropic scattering.
 *
 * Tallies are integers so that combining them is exact and independent of
 * order: counts (transmitted, reflected, absorbed per region, collisions)
 * and, per region, the track length of each history (the MCNP F4 flux
 * estimator, volume-integrated) rounded to fixed point 2^-MC_FIX_BITS cm,
 * summed with its square in 128 bits. Whatever the workers, chunks or
 * arrival order, the combined tally is the same bits.
 */
#ifndef MC_TRANSPORT_H
#define MC_TRANSPORT_H

#include <stdint.h>

#define MC_MAX_REGIONS 16
#define MC_FIX_BITS 20  /* 1e-6 cm: far below any statistical error here */

__extension__ typedef unsigned __int128 mc_u128;

typedef enum { MC_SLAB, MC_SPHERES } mc_shape;
typedef enum { MC_NORMAL, MC_ISOTROPIC } mc_source;

typedef struct {
    mc_shape shape;
    mc_source source;  /* slab only: normally incident, or isotropic over the inward half */
    int nreg;
    double bound[MC_MAX_REGIONS + 1];  /* slab: faces x_0 = 0 < ...; spheres: 0 < radii */
    double sigma_t[MC_MAX_REGIONS], scatter[MC_MAX_REGIONS];
    uint64_t seed;
} mc_problem;

typedef struct {
    int64_t histories, transmitted, reflected, collisions;
    int64_t absorbed[MC_MAX_REGIONS];
    mc_u128 track[MC_MAX_REGIONS], track2[MC_MAX_REGIONS];  /* sums of q and q^2 per history */
} mc_tally;

typedef struct {
    double mean, se;  /* per source particle; se: standard error of the mean */
} mc_est;

void mc_tally_zero(mc_tally *t);
void mc_tally_add(mc_tally *into, const mc_tally *t);
int mc_tally_equal(const mc_tally *a, const mc_tally *b);
/* FNV-1a over the used part of the tally: one word for "the same bits". */
uint64_t mc_tally_digest(const mc_tally *t, int nreg);

/* Track histories first .. first + count - 1 (global indices) into t. */
void mc_track(const mc_problem *p, int64_t first, int64_t count, mc_tally *t);

/* Fraction k / n with the standard error from the sum of squares (x^2 = x). */
mc_est mc_fraction(int64_t k, int64_t n);
/* Mean track length per history in region r (cm) and its standard error. */
mc_est mc_track_length(const mc_tally *t, int r);

/* Without scattering (every c = 0) and with a normal (slab) or central point
 * (spheres) source, every history flies one straight line outward:
 * transmission exp(-sum sigma_i d_i), and the mean track in region i
 * P_i (1 - exp(-sigma_i d_i)) / sigma_i with P_i the probability of reaching
 * it. Returns 0 (nothing written) when the problem is not of that kind. */
int mc_analytic(const mc_problem *p, double *transmission, double *track);

#endif
