/* check.h - verify that benchmarks move/compute the right data. */
#ifndef HPC_CHECK_H
#define HPC_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Mix three numbers (e.g. size, sample index, rank) into one seed. */
uint64_t hpc_seed(uint64_t a, uint64_t b, uint64_t c);

/* Fill buf with a pseudo-random pattern that depends on seed. A buffer left
 * over from another size, sample or rank therefore does not pass the check. */
void hpc_fill(void *buf, size_t bytes, uint64_t seed);

/* Offset of the first byte that differs from hpc_fill(buf, bytes, seed),
 * or -1 if all bytes are right. */
long long hpc_check(const void *buf, size_t bytes, uint64_t seed);

/* Fatal error (wrong answer): error record + one line on stderr, then
 * MPI_Abort(MPI_COMM_WORLD, 1). Any rank may call it. */
void hpc_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The check every kernel makes of a computed number (an error norm, a difference from a
 * reference): finite and at most bound, else hpc_fail with "<what>: <value> ... bound".
 * Why a helper: NaN compares false with everything, so "if (err > bound) fail" and fmax()
 * (which drops a NaN) let a blown-up run through. what is a printf format. Any rank. */
void hpc_check_bound(double value, double bound, const char *what, ...)
    __attribute__((format(printf, 3, 4)));

/* The same for a state: every x[0..n) finite, else hpc_fail naming the first bad index. */
void hpc_check_finite(const double *x, size_t n, const char *what, ...)
    __attribute__((format(printf, 3, 4)));

#endif
