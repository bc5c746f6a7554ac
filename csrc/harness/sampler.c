/* sampler.c - repetition control: warm-up, CI-based stopping, time budget. */
#include "sampler.h"
#include "disturb.h"
#include "stats.h"
#include "timer.h"

#include <stdlib.h>
#include <string.h>

void hpc_sampler_init(hpc_sampler *s, const hpc_rep *rep)
{
    memset(s, 0, sizeof *s);
    s->rep = *rep;
    s->samples = malloc((size_t)rep->max_reps * sizeof(double));
    s->sorted = malloc((size_t)rep->max_reps * sizeof(double));
    if (!s->samples || !s->sorted)
        abort();
    s->t_start = hpc_now();
    hpc_disturb_start();  /* a new point: its disturbance window opens */
}

void hpc_sampler_free(hpc_sampler *s)
{
    free(s->samples);
    free(s->sorted);
    s->samples = s->sorted = NULL;
}

void hpc_sampler_add(hpc_sampler *s, double sample)
{
    if (s->nwarm < s->rep.warmup) {
        s->nwarm++;
        return;
    }
    if (s->n >= s->rep.max_reps)
        return;
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
    if (rank == 0)
        more = hpc_sampler_more(s);
    MPI_Bcast(&more, 1, MPI_INT, 0, comm);
    if (!more)
        hpc_disturb_gather(comm);  /* the point is over: every rank's preemptions */
    return more;
}
