/* sampler.c - repetition control: warm-up, CI-based stopping, time budget. */
#include "sampler.h"
#include "disturb.h"
#include "harness.h"
#include "runwait.h"
#include "stats.h"
#include "timer.h"

#include <stdlib.h>
#include <string.h>

int hpc_sampler_judge = 1;

void hpc_sampler_init(hpc_sampler *s, const hpc_rep *rep)
{
    memset(s, 0, sizeof *s);
    s->rep = *rep;
    s->samples = malloc((size_t)rep->max_reps * sizeof(double));
    s->sorted = malloc((size_t)rep->max_reps * sizeof(double));
    if (!s->samples || !s->sorted)
        abort();
    s->comm = MPI_COMM_NULL;
    s->t_start = hpc_now();
    hpc_disturb_start();  /* a new point: its disturbance window opens */
    s->nivcsw = hpc_preemptions_self();
    s->waited = hpc_runwait_total();
    s->t_prev = hpc_now();
}

void hpc_sampler_free(hpc_sampler *s)
{
    free(s->samples);
    free(s->sorted);
    s->samples = s->sorted = NULL;
}

/* Was any rank of the sample preempted since the previous sample ended? Between samples. */
static int preempted(hpc_sampler *s)
{
#ifdef HPC_SMPI
    (void)s;
    return 0;  /* simulated time: the host's scheduler does not reach it */
#else
    long now = hpc_preemptions_self();
    double t = hpc_now();
    int hit = 0;
    if (now != s->nivcsw && hpc_sampler_judge) {  /* preempted: how long? (runwait.h) */
        double waited = hpc_runwait_total();
        hit = waited < 0 || waited - s->waited > HPC_DISTURB_LOST * (t - s->t_prev);
        s->waited = waited;
    }
    s->nivcsw = now;
    s->t_prev = t;
    /* --inject preempted: the last rank reports every third sample taken after warm-up */
    if (hpc_inject == HPC_INJECT_PREEMPTED && hpc_rank == hpc_nranks - 1 &&
        s->nwarm >= s->rep.warmup && (s->n + s->dropped) % 3 == 2)
        hit = 1;
    if (s->comm != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, &hit, 1, MPI_INT, MPI_LOR, s->comm);
    return hit;
#endif
}

void hpc_sampler_add(hpc_sampler *s, double sample)
{
    int hit = preempted(s);
    if (s->nwarm < s->rep.warmup) {
        s->nwarm++;
        return;
    }
    if (s->n >= s->rep.max_reps)
        return;
    /* Set aside while at most half (and a CI's worth) were: beyond, keep them (disturb.c). */
    if (hit && 2 * s->dropped <= s->n + s->dropped + HPC_CI_MIN_N) {
        s->dropped++;  /* set aside, as a warm-up sample is */
        hpc_disturb_samples(s->hits, s->dropped, s->n + s->dropped);
        return;
    }
    s->hits += hit;
    if (hpc_sampler_judge)  /* else the point is judged whole, by its preemptions (disturb.c) */
        hpc_disturb_samples(s->hits, s->dropped, s->n + 1 + s->dropped);
    s->samples[s->n] = sample;
    /* Insertion into the sorted copy: O(n), cheaper than sorting each time. */
    int i = s->n;
    while (i > 0 && s->sorted[i - 1] > sample) {
        s->sorted[i] = s->sorted[i - 1];
        i--;
    }
    s->sorted[i] = sample;
    s->n++;
}

double hpc_sampler_rel_ci(const hpc_sampler *s)
{
    if (s->n < 1)
        return 1e300;
    int lo, hi;
    hpc_median_ci_ranks(s->n, &lo, &hi);
    double median = hpc_sorted_median(s->sorted, s->n);
    double half = 0.5 * (s->sorted[hi - 1] - s->sorted[lo - 1]);
    return median > 0.0 ? half / median : 1e300;
}

int hpc_sampler_more(hpc_sampler *s)
{
    const hpc_rep *r = &s->rep;
    /* Below 6 samples the median's distribution-free interval [min, max]
     * covers less than 95%: no CI, so never "converged". */
    s->converged = s->n >= r->min_reps && s->n >= HPC_CI_MIN_N &&
                   hpc_sampler_rel_ci(s) <= r->ci_target;

    /* Warm-up and --min-reps samples whatever the budget: a point cut below
     * its minimum has no honest CI (the launch's time limit still applies). */
    if (s->nwarm < r->warmup || s->n < r->min_reps)
        return 1;
    if (s->converged || s->n >= r->max_reps)
        return 0;
    return hpc_now() - s->t_start < r->budget_s;
}

int hpc_sampler_more_coll(hpc_sampler *s, MPI_Comm comm)
{
    int rank, more = 0;
    MPI_Comm_rank(comm, &rank);
    s->comm = comm;  /* from now on the ranks agree on which samples were preempted */
    if (rank == 0)
        more = hpc_sampler_more(s);
    MPI_Bcast(&more, 1, MPI_INT, 0, comm);
    if (!more)
        hpc_disturb_gather(comm);  /* the point is over: every rank's preemptions */
    return more;
}
