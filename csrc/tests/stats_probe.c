/* stats_probe.c - exposes the harness's statistics and repetition control to
 * the test suite (tests/csrc/test_stats.py), which checks them against numpy
 * and the binomial distribution.
 *
 * stdin: "warmup min_reps max_reps ci_target budget_s" then samples.
 * Feeds the samples to a sampler until it says stop (or input ends) and
 * prints one JSON line: how many samples it consumed, whether it converged,
 * the stats of the kept samples, the CI ranks for n = 1..200 and the samples the stats keep
 * for the record (stats.h, HPC_STATS_KEEP).
 */
#include "sampler.h"
#include "stats.h"

#include <stdio.h>

int main(void)
{
    hpc_rep rep;
    if (scanf("%d %d %d %lf %lf", &rep.warmup, &rep.min_reps, &rep.max_reps, &rep.ci_target,
              &rep.budget_s) != 5) {
        fprintf(stderr, "stats_probe: expected 'warmup min max ci budget' on stdin\n");
        return 2;
    }
    hpc_sampler s;
    hpc_sampler_judge = 0;  /* numbers read from stdin, not times (sampler.h) */
    hpc_sampler_init(&s, &rep);
    int consumed = 0;
    double x;
    while (hpc_sampler_more(&s) && scanf("%lf", &x) == 1) {
        hpc_sampler_add(&s, x);
        consumed++;
    }
    hpc_stats st;
    hpc_stats_compute(s.samples, s.n, &st);
    printf("{\"consumed\": %d, \"converged\": %d, \"n\": %d, \"min\": %.17g, \"median\": %.17g, "
           "\"mean\": %.17g, \"max\": %.17g, \"stddev\": %.17g, \"ci_low\": %.17g, "
           "\"ci_high\": %.17g, \"ranks\": [",
           consumed, s.converged, st.n, st.min, st.median, st.mean, st.max, st.stddev, st.ci_low,
           st.ci_high);
    for (int n = 1; n <= 200; n++) {
        int lo, hi;
        hpc_median_ci_ranks(n, &lo, &hi);
        printf("%s[%d, %d]", n > 1 ? ", " : "", lo, hi);
    }
    printf("], \"kept\": [");
    for (int i = 0; i < st.nkept; i++)
        printf("%s%.17g", i ? ", " : "", st.kept[i]);
    printf("]}\n");
    hpc_sampler_free(&s);
    return 0;
}
