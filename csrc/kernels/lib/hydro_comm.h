/* hydro_comm.h - the P x Q x R process grid of the hydro proxy and its halo exchange.
 *
 * Rank r sits at (r mod P, (r / P) mod Q, r / (P Q)): x fastest. A direction is periodic
 * (the neighbours wrap, a rank alone in it exchanges with itself) or outflow (the ghosts of
 * the outer blocks copy the edge cell: zero gradient).
 *
 * One exchange fills both ghost layers of every side, edges and corners included: x first
 * over the interior y, z; then y over the whole x extent; then z over the whole x, y extent,
 * so each later direction carries what the earlier ones brought in.
 */
#ifndef HYDRO_COMM_H
#define HYDRO_COMM_H

#include "hydro_scheme.h"
#include "phases.h"

/* The proxy's phases, in the order of its phase table. */
enum { HY_PH_COMPUTE, HY_PH_HALO, HY_PH_DT, HY_PH_PACK, HY_NPH };

typedef struct {
    int P[3], coord[3];
    int nb[3][2];     /* neighbour rank below / above; -1: an outflow boundary */
    double *buf[4];   /* send low, send high, receive low, receive high */
    size_t cap;       /* doubles per buffer */
} hy_comm;

/* 0, or -1 without memory. */
int hy_comm_init(hy_comm *c, const int P[3], const int periodic[3], int rank, const hy_block *b);
void hy_comm_free(hy_comm *c);

/* Fill the ghosts (collective over the neighbours); packing is timed as HY_PH_PACK, the MPI
 * calls as HY_PH_HALO; ends in HY_PH_PACK. */
void hy_exchange(hy_comm *c, hy_block *b, hpc_phases *ph);

#endif
