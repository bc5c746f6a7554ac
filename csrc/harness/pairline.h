/* pairline.h - where a pair of ranks sits: the round trip of a cache line between them.
 *
 * On one node, two ranks hand a flag in shared memory (MPI_Win_allocate_shared)
 * back and forth; the time of one round trip tells how far apart their cores
 * are (the same core complex, another one, another socket). A hypervisor can
 * move a vCPU while a program runs: on this project's VM a 2-rank launch's
 * 8-byte latency went from 0.13 to 0.37 us and its 16 KiB latency from 2.5 to
 * 3.1 us for minutes while this round trip went from 60-130 to 330 ns, the
 * cores' own speed unchanged (docs/records.md). Read outside any timed region.
 */
#ifndef HPC_PAIRLINE_H
#define HPC_PAIRLINE_H

#include <mpi.h>

/* Collective over comm. For a communicator of exactly two ranks on one node:
 * the round trip now [ns] into *ns and the fastest this pair has shown in this
 * launch into *best, returning 1; else (other sizes, two nodes, simulated
 * runs, or a rank preempted in every probe of 20 ms of attempts: each would
 * have timed the scheduler) 0. */
int hpc_pairline(MPI_Comm comm, double *ns, double *best);

#endif
