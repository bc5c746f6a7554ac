/* mc_farm.h - the master-worker cycles of the montecarlo proxy (MCNP's
 * scheme). Rank 0 is the master, ranks 1..W the workers. In each cycle the
 * master hands out index ranges of --chunk histories on request: a worker
 * sends the tally of its last range (the first request of a cycle carries
 * an empty one) and gets the next range, or an empty range when the cycle's
 * histories are all given out. The master adds each tally into the cycle's
 * as it arrives (integer sums: the order does not matter), and at the end of
 * the cycle broadcasts the combined cycle tally (the rendezvous at which
 * MCNP's master passes on the next cycle's source). With one rank (W = 0)
 * the master tracks every chunk itself.
 */
#ifndef MC_FARM_H
#define MC_FARM_H

#include "mc_transport.h"
#include "phases.h"

/* The phases, in this order in the definitions passed to hpc_phases_init. */
enum { MC_PH_TRACK, MC_PH_HANDOUT, MC_PH_COLLECT, MC_PH_COMBINE, MC_PH_RENDEZVOUS, MC_NPHASES };
extern const hpc_phase_def mc_phase_defs[MC_NPHASES];

typedef struct {
    const mc_problem *prob;
    int64_t particles, chunk;  /* histories per cycle; per message */
    int cycles;
    double master_sleep_us;    /* 0: the master blocks in MPI_Recv; > 0: probes and sleeps */
    hpc_phases *ph;
    int64_t tracked;           /* histories this rank tracked, summed over runs */
} mc_run;

/* Every cycle once (collective over MPI_COMM_WORLD); rank 0's *total is the
 * combined tally of all cycles. Cycle c tracks the histories with global
 * indices c particles .. (c + 1) particles - 1. */
void mc_farm_run(mc_run *run, mc_tally *total);

#endif
