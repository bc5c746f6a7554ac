/* phold_sync.h - the conservative parallel engines of PHOLD.
 *
 * Each rank holds a block of LPs (phold_part) and processes its events in
 * (time, dst, src, seq) order; an event for another rank's LP is batched per
 * destination rank. A batch on the wire is phold_event[1 + k]: element 0 is
 * a header (t: the sender's promise, src: the sender's rank), then k events.
 *
 * yawns: windows. An MPI_Allreduce gives the earliest pending event time
 * T (queued or in a batch just sent) and how many batches each rank must
 * receive; every rank then processes its events with t < T + lookahead
 * (none of them can schedule an event inside that window) and sends one
 * batch per destination rank that has events.
 *
 * null: Chandy-Misra-Bryant. A rank processes the events before the
 * smallest promise received (its input channels' clocks) and then sends
 * every other rank its new promise min(next event, that clock) + lookahead
 * (capped at the end time), with the events for it; a batch without events
 * is a null message. It sends only when there are events or the promise
 * grew, and blocks for a message only when it cannot go on.
 */
#ifndef PHOLD_SYNC_H
#define PHOLD_SYNC_H

#include "phases.h"
#include "phold_model.h"

#include <stdint.h>

enum { PHOLD_PH_PROCESS, PHOLD_PH_SEND, PHOLD_PH_SYNC, PHOLD_NPHASES };
extern const hpc_phase_def phold_phase_defs[PHOLD_NPHASES];

typedef enum { PHOLD_YAWNS, PHOLD_NULL } phold_sync;

/* What one rank did in a run. */
typedef struct {
    int64_t committed;      /* events processed */
    int64_t remote_events;  /* events sent to other ranks */
    int64_t batches;        /* messages carrying events */
    int64_t sync_msgs;      /* yawns: reductions joined (0 on one rank); null: null messages */
    int64_t windows;        /* yawns: windows; null: rounds of the loop */
} phold_counts;

/* Run p (initialised, its initial events queued) to the end time on MPI_COMM_WORLD, rank
 * hpc_rank holding p; collective. Phase times go to ph (which must be running or stopped;
 * it is stopped on return), the counts are added to *c. */
void phold_run(phold_sync sync, phold_part *p, hpc_phases *ph, phold_counts *c);

#endif
