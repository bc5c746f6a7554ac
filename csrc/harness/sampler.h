/* sampler.h - how many repetitions to run for one measured point.
 *
 * Usage:
 *     hpc_sampler s;
 *     hpc_sampler_init(&s, &rep);
 *     while (hpc_sampler_more(&s)) {
 *         double t0 = hpc_now();  work();  hpc_sampler_add(&s, hpc_now() - t0);
 *     }
 *     ... s.samples[0..s.n-1], s.converged ...
 *     hpc_sampler_free(&s);
 *
 * The first rep.warmup samples are discarded. Then samples are kept until
 *   (n >= min_reps and CI half-width / median <= ci_target)   -> converged
 *   or n >= max_reps or budget_s seconds have passed since init,
 * but never fewer than min_reps: the budget does not cut a point below its
 * minimum (min_reps <= max_reps is checked when options are parsed). The decision is taken between samples,
 * never inside a timed region.
 *
 * Preempted samples are set aside, not whole points: add() does not keep a
 * sample during which this process's busy threads were kept off a CPU for more
 * than HPC_DISTURB_LOST of the sample's time (an involuntary context switch,
 * getrusage, then the threads' run-queue wait, runwait.h), as it keeps no
 * warm-up sample. A
 * collective sampler (more_coll, or a batch's) ORs that over the ranks of its
 * communicator first, so that every rank keeps the same samples. At most
 * half of the samples taken are set aside: beyond that the machine is busy,
 * the preempted samples are kept and the point is disturbed (disturb.h).
 */
#ifndef HPC_SAMPLER_H
#define HPC_SAMPLER_H

#include <mpi.h>

/* Fewest samples whose median has a 95% distribution-free CI. */
#define HPC_CI_MIN_N 6

typedef struct {
    int warmup, min_reps, max_reps;
    double ci_target;  /* relative half-width of the median's 95% CI */
    double budget_s;   /* seconds per measured point, warm-up included */
} hpc_rep;

typedef struct {
    hpc_rep rep;
    double *samples;   /* kept samples, in the order they were taken */
    double *sorted;    /* the same, kept sorted for the CI test */
    int n;             /* number of kept samples */
    int nwarm;         /* warm-up samples seen so far */
    double t_start;
    int converged;     /* CI target reached (valid once more() returned 0) */
    MPI_Comm comm;     /* the ranks that take each sample together, MPI_COMM_NULL: this one */
    long nivcsw;       /* this process's preemptions when the previous sample ended */
    double t_prev;     /* when the previous sample ended */
    double waited;     /* hpc_runwait_total() when this sampler last read it */
    int dropped;       /* preempted samples set aside */
    int hits;          /* preempted samples kept (more than half were preempted) */
} hpc_sampler;

/* 1 (the default): set preempted samples aside. 0 in an oversubscribed launch (output.c: every
 * sample is preempted there, and agreeing on each cost the ranks a time slice: MPICH's 4-rank
 * tests on 2 cores ran 5-8x longer), and in the probes of tests/csrc (their samples are numbers
 * read from stdin, not times, and must be kept whatever the machine does). */
extern int hpc_sampler_judge;

void hpc_sampler_init(hpc_sampler *s, const hpc_rep *rep);
void hpc_sampler_add(hpc_sampler *s, double sample);
int hpc_sampler_more(hpc_sampler *s);
/* Collective over the sampler's comm when it has one (more_coll, a batch): every rank of it
 * calls add after every sample. */
/* Collective over comm: rank 0 decides with its own samples and broadcasts
 * the decision, so all ranks run the same number of repetitions. Call it
 * outside the timed region. */
int hpc_sampler_more_coll(hpc_sampler *s, MPI_Comm comm);
/* Relative half-width of the median's CI over the kept samples. */
double hpc_sampler_rel_ci(const hpc_sampler *s);
void hpc_sampler_free(hpc_sampler *s);

#endif
