/* disturb.h - was a measured point disturbed while it ran?
 *
 * A point's window opens when its sampler starts (hpc_sampler_init) and
 * closes when its record is written. Two signals, both read outside the
 * timed region:
 *   - preemptions: involuntary context switches of the benchmark's processes
 *     (getrusage), summed over the ranks of the sampler's communicator when
 *     the sampling ends collectively: another runnable process took a core
 *     from a rank;
 *   - steal: the share of CPU time the hypervisor gave to other guests
 *     (/proc/stat), on rank 0's node, judged only over windows long enough
 *     for the kernel's 10 ms accounting;
 *   - a slowed core: each rank times a fixed copy inside L1 when the window
 *     opens and when it closes; the slower of the two over the fastest that
 *     rank has timed in this launch, the worst over the ranks;
 *   - a moved pair: when the sampling ends collectively over two ranks of one
 *     node, their cache-line round trip (pairline.h) against the fastest the
 *     pair has shown in this launch.
 * hpc_result_stats writes "disturbed": false, or the reason as text, and the
 * raw numbers under "quiet" (docs/records.md).
 */
#ifndef HPC_DISTURB_H
#define HPC_DISTURB_H

#include "output.h"

#include <mpi.h>

/* A point whose sampler set its preempted samples aside (sampler.h) is disturbed only when
 * more than half of its samples were preempted: the machine was busy. A point without marks (a benchmark's own
 * loop) is disturbed when its ranks were preempted at least HPC_DISTURB_MIN_PREEMPT times
 * and at least once per HPC_DISTURB_SAMPLES_PER kept samples (fewer hits leave the median
 * where it was). Either is disturbed when the hypervisor stole more than HPC_DISTURB_STEAL
 * of the CPU time. */
#define HPC_DISTURB_MIN_PREEMPT 3
#define HPC_DISTURB_SAMPLES_PER 4
#define HPC_DISTURB_STEAL 0.05
/* A sample is set aside (sampler.h) when its busy threads waited on a run queue for more than
 * this share of its time: a 5 us preemption in a 50 us ping-pong batch, not a 10 us wake-up of
 * another process in a 100 ms STREAM sample. */
#define HPC_DISTURB_LOST 0.01
/* A point is disturbed when a rank's core ran more than this much slower than its fastest. On
 * this project's VM the 3 us probe reads 1.1-1.3x at the median of a quiet quick run, 1.7-2.0x
 * at its 90th percentile, 2.1-4.3x at its 99th, and up to 2.5x it says nothing of the point
 * (the points' spread against other runs is the same in every bin; docs/repeatability.md):
 * 1.03 flagged 85-95% of a quiet run's points. */
#define HPC_DISTURB_SLOWER 2.5
/* ... or when a pair's cache line went round more than this much slower than at its fastest:
 * here a pair that stays varies up to 1.5x (120-190 ns), a vCPU moved away takes 1.8-2.7x
 * longer (330-350 ns after 130-195). */
#define HPC_DISTURB_MOVED 1.6

/* This process's involuntary context switches so far (getrusage). */
long hpc_preemptions_self(void);

/* Open the window of a new point (every rank). */
void hpc_disturb_start(void);
/* Collective over comm, at the end of sampling: rank 0 learns the
 * preemptions of all ranks of comm. */
void hpc_disturb_gather(MPI_Comm comm);

typedef struct {
    double seconds;      /* length of the window */
    long preemptions;    /* involuntary context switches (all ranks gathered, else rank 0's) */
    double steal;        /* share of CPU time stolen, or -1 when the window was too short */
    double core_slower;  /* the slowest rank's core probe over its fastest (>= 1) */
    double pair_line_ns; /* a pair's cache-line round trip at the end, or 0 (not a pair) */
    int dropped;         /* preempted samples set aside, or -1: the samples were not marked */
} hpc_disturbance;

/* The sampler's count so far: of `taken` samples, `dropped` were preempted and set aside,
 * `hits` preempted and kept (once half had been set aside). */
void hpc_disturb_samples(int hits, int dropped, int taken);

/* Close the window on this rank and judge it for a point of n kept samples:
 * returns the reason (static text) or NULL when the point ran undisturbed. */
const char *hpc_disturb_judge(hpc_disturbance *d, int n);

/* Judge the point of n kept samples and write "disturbed", "quiet" and, for a sampler's
 * point, "dropped" into its result record (docs/records.md). */
void hpc_disturb_write(hpc_json *j, int n);

#endif
