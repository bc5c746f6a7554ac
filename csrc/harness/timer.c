/* timer.c - CLOCK_MONOTONIC wall clock and its measured resolution/overhead. */
#include "timer.h"

#include <stdint.h>
#include <time.h>

double hpc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void hpc_timer_calibrate(hpc_timer_info *info)
{
    info->source = "clock_gettime(CLOCK_MONOTONIC)";
#ifdef HPC_SMPI
    /* SimGrid SMPI (smpicc's mpi.h): the clock is the simulation's, exact to its precision
     * (surf/precision 1e-9), and every read is a call into the simulator: 10^5 reads per rank
     * would take minutes at hundreds of ranks. */
    info->source = "SMPI simulated clock (clock_gettime)";
    info->resolution_ns = 1.0;
    info->overhead_ns = 0.0;
    return;
#endif

    /* Resolution: the smallest step the clock is seen to make. Integer
     * nanoseconds avoid the rounding of the double in hpc_now(). Stop after
     * enough steps were seen, or after a bounded number of reads for a coarse
     * clock. */
    int64_t best = INT64_MAX, prev = now_ns();
    int steps = 0;
    for (long i = 0; i < 10000000 && steps < 10000; i++) {
        int64_t t = now_ns();
        if (t != prev) {
            if (t - prev < best)
                best = t - prev;
            steps++;
        }
        prev = t;
    }
    info->resolution_ns = steps > 0 ? (double)best : 0.0;

    /* Overhead: mean cost of one call over many back-to-back calls. */
    enum { CALLS = 100000 };
    volatile double sink = 0.0;
    double t0 = hpc_now();
    for (int i = 0; i < CALLS; i++)
        sink = hpc_now();
    double t1 = hpc_now();
    (void)sink;
    info->overhead_ns = (t1 - t0) * 1e9 / CALLS;
}
