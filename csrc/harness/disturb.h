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
 *     for the kernel's 10 ms accounting.
 * hpc_result_stats writes "disturbed": false, or the reason as text, and the
 * raw numbers under "quiet" (docs/records.md).
 */
#ifndef HPC_DISTURB_H
#define HPC_DISTURB_H

#include <mpi.h>

/* A point is disturbed when its ranks were preempted at least
 * HPC_DISTURB_MIN_PREEMPT times and at least once per HPC_DISTURB_SAMPLES_PER
 * kept samples (fewer hits leave the median where it was), or when the
 * hypervisor stole more than HPC_DISTURB_STEAL of the CPU time. */
#define HPC_DISTURB_MIN_PREEMPT 3
#define HPC_DISTURB_SAMPLES_PER 4
#define HPC_DISTURB_STEAL 0.05

/* Open the window of a new point (every rank). */
void hpc_disturb_start(void);
/* Collective over comm, at the end of sampling: rank 0 learns the
 * preemptions of all ranks of comm. */
void hpc_disturb_gather(MPI_Comm comm);

typedef struct {
    double seconds;      /* length of the window */
    long preemptions;    /* involuntary context switches (all ranks gathered, else rank 0's) */
    double steal;        /* share of CPU time stolen, or -1 when the window was too short */
} hpc_disturbance;

/* Close the window on this rank and judge it for a point of n kept samples:
 * returns the reason (static text) or NULL when the point ran undisturbed. */
const char *hpc_disturb_judge(hpc_disturbance *d, int n);

#endif
