/* stats.h - summary statistics of a set of samples. */
#ifndef HPC_STATS_H
#define HPC_STATS_H

#include <stddef.h>

/* Samples a record carries (docs/records.md, "samples"): every kept sample up to this many,
 * else this many order statistics spread evenly over the sorted samples (min and max among
 * them). The store computes percentiles from them, and `compare` bootstraps its intervals. */
#define HPC_STATS_KEEP 1000

typedef struct {
    int n;
    double min, median, mean, max;
    double stddev;           /* sample standard deviation (n-1); 0 when n == 1 */
    double ci_low, ci_high;  /* distribution-free 95% CI of the median */
    int nkept;               /* samples in kept[]: n, or HPC_STATS_KEEP when n is larger */
    double kept[HPC_STATS_KEEP];  /* in the order taken (n <= HPC_STATS_KEEP), else sorted */
} hpc_stats;

/* Summarize x[0..n-1] (n >= 1) and keep its samples (kept[]); x itself is not modified. */
void hpc_stats_compute(const double *x, int n, hpc_stats *s);

/* Ranks (1-based, into the sorted samples) of the distribution-free 95% CI
 * of the median, from the binomial distribution (exact, symmetric).
 * With n < 6 the interval is [1, n], i.e. [min, max]. */
void hpc_median_ci_ranks(int n, int *lo, int *hi);

/* Median of an already sorted array. */
double hpc_sorted_median(const double *sorted, int n);

/* Convert time samples (seconds) into rates: out[i] = bytes / t[i] / unit,
 * e.g. unit 1e9 for GB/s. out may be the same array as t. */
void hpc_rates(const double *t, int n, double bytes, double unit, double *out);

#endif
