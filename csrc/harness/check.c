/* check.c - seeded data patterns and the fatal-error exit. */
#include "check.h"
#include "output.h"

#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* splitmix64 (Steele et al.): a good 64-bit mixing function. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t hpc_seed(uint64_t a, uint64_t b, uint64_t c)
{
    return splitmix64(a ^ splitmix64(b ^ splitmix64(c)));
}

/* xorshift64 (Marsaglia): one cheap step per 8-byte word. */
static uint64_t next_word(uint64_t x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

static uint64_t first_state(uint64_t seed)
{
    return splitmix64(seed) | 1;  /* xorshift must not start at 0 */
}

void hpc_fill(void *buf, size_t bytes, uint64_t seed)
{
    unsigned char *p = buf;
    uint64_t x = first_state(seed);
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        x = next_word(x);
        memcpy(p + i, &x, 8);  /* memcpy: no alignment or aliasing issues */
    }
    if (i < bytes) {
        x = next_word(x);
        memcpy(p + i, &x, bytes - i);
    }
}

long long hpc_check(const void *buf, size_t bytes, uint64_t seed)
{
    const unsigned char *p = buf;
    uint64_t x = first_state(seed);
    for (size_t i = 0; i < bytes; i += 8) {
        x = next_word(x);
        size_t n = bytes - i < 8 ? bytes - i : 8;
        if (memcmp(p + i, &x, n) != 0) {
            const unsigned char *want = (const unsigned char *)&x;
            for (size_t k = 0; k < n; k++)
                if (p[i + k] != want[k])
                    return (long long)(i + k);
        }
    }
    return -1;
}

void hpc_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hpc_write_error(msg, 1);
    /* MPICH's hydra tears its I/O forwarding down on an abort without draining it: 1 run in 30
     * lost the error record just written. A pause on this fatal path lets it arrive first. */
    struct timespec drain = {0, 200 * 1000 * 1000};
    nanosleep(&drain, NULL);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);  /* not reached */
}

/* hpc_fail("<what>: <tail>"), what formatted with ap. It does not return, so the callers'
 * va_start needs no va_end. */
static void fail_what(const char *tail, const char *what, va_list ap)
    __attribute__((noreturn));
static void fail_what(const char *tail, const char *what, va_list ap)
{
    char w[768];
    vsnprintf(w, sizeof w, what, ap);
    hpc_fail("%s: %s", w, tail);
}

void hpc_check_bound(double value, double bound, const char *what, ...)
{
    if (isfinite(value) && value <= bound)
        return;
    char tail[128];
    if (isfinite(value))
        snprintf(tail, sizeof tail, "%.3g exceeds the bound %g", value, bound);
    else
        snprintf(tail, sizeof tail, "%g is not finite (bound %g): the computation blew up",
                 value, bound);
    va_list ap;
    va_start(ap, what);
    fail_what(tail, what, ap);
}

void hpc_check_finite(const double *x, size_t n, const char *what, ...)
{
    size_t i = 0;
    while (i < n && isfinite(x[i]))
        i++;
    if (i == n)
        return;
    char tail[128];
    snprintf(tail, sizeof tail, "element %zu of %zu is %g, not finite: the computation blew up",
             i, n, x[i]);
    va_list ap;
    va_start(ap, what);
    fail_what(tail, what, ap);
}
