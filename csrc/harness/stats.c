/* stats.c - min/median/mean/max/stddev and the median's confidence interval. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double hpc_sorted_median(const double *sorted, int n)
{
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

/* The distribution-free 95% CI of the median: [x_(lo), x_(hi)], hi = n+1-lo,
 * misses the true median only when fewer than lo or more than n-lo samples
 * lie below it. That count B is Binomial(n, 1/2) whatever the distribution,
 * so lo is the largest rank with P(B <= lo-1) <= 2.5%. This is the exact
 * form of the usual normal approximation j = floor((n - 1.96 sqrt(n)) / 2),
 * k = ceil(1 + (n + 1.96 sqrt(n)) / 2) (Le Boudec, "Performance Evaluation
 * of Computer and Communication Systems", Thm. 2.1), which is needlessly
 * wide for small n (n = 10 would give [min, max]). No 95% interval exists
 * for n < 6: then [min, max]. */
void hpc_median_ci_ranks(int n, int *lo, int *hi)
{
    *lo = 1;
    *hi = n;
    if (n < 6)
        return;
    /* Sum the pmf upwards from 6 standard deviations below the mean (the
     * mass below is < 1e-9) with pmf(k+1) = pmf(k) (n-k) / (k+1). */
    int k = (int)floor(n / 2.0 - 3.0 * sqrt((double)n));
    if (k < 0)
        k = 0;
    double pmf = exp(lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) - n * log(2.0));
    double cdf = pmf;  /* P(B <= k) */
    while (cdf <= 0.025) {
        pmf *= (double)(n - k) / (k + 1);
        k++;
        cdf += pmf;
    }
    /* k is the first count with P(B <= k) > 2.5%: lo - 1 = k - 1. */
    *lo = k > 1 ? k : 1;
    *hi = n + 1 - *lo;
}

void hpc_stats_compute(const double *x, int n, hpc_stats *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n < 1)
        return;

    double *v = malloc((size_t)n * sizeof *v);
    if (!v)
        abort();
    memcpy(v, x, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);

    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    /* Rounding can put the mean of n equal samples an ulp above the max (SMPI's simulated
     * times are equal): kept inside [min, max], as it is exactly. */
    double mean = fmin(fmax(sum / n, v[0]), v[n - 1]);
    double ss = 0.0;  /* two-pass variance: no cancellation */
    for (int i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);

    int lo, hi;
    hpc_median_ci_ranks(n, &lo, &hi);

    s->min = v[0];
    s->max = v[n - 1];
    s->median = hpc_sorted_median(v, n);
    s->mean = mean;
    s->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    s->ci_low = v[lo - 1];
    s->ci_high = v[hi - 1];
    if (n <= HPC_STATS_KEEP) {
        memcpy(s->kept, x, (size_t)n * sizeof *x);
        s->nkept = n;
    } else {  /* rank i (n - 1) / (KEEP - 1), rounded: the first is the min, the last the max */
        for (int i = 0; i < HPC_STATS_KEEP; i++)
            s->kept[i] = v[(int)(((double)i * (n - 1)) / (HPC_STATS_KEEP - 1) + 0.5)];
        s->nkept = HPC_STATS_KEEP;
    }
    free(v);
}

void hpc_rates(const double *t, int n, double bytes, double unit, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = bytes / t[i] / unit;
}
