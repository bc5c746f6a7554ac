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

/* The number of samples below the true median is Binomial(n, 1/2). With the
 * normal approximation, the order statistics of ranks
 *   j = floor((n - 1.96 sqrt(n)) / 2)  and  k = ceil(1 + (n + 1.96 sqrt(n)) / 2)
 * bracket the median with ~95% confidence, whatever the distribution
 * (e.g. Le Boudec, "Performance Evaluation of Computer and Communication
 * Systems", Thm. 2.1). */
void hpc_median_ci_ranks(int n, int *lo, int *hi)
{
    if (n < 6) {
        *lo = 1;
        *hi = n;
        return;
    }
    double h = 1.96 * sqrt((double)n);
    int j = (int)floor((n - h) / 2.0);
    int k = (int)ceil(1.0 + (n + h) / 2.0);
    *lo = j < 1 ? 1 : j;
    *hi = k > n ? n : k;
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
    double mean = sum / n;
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
    free(v);
}

void hpc_rates(const double *t, int n, double bytes, double unit, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = bytes / t[i] / unit;
}
