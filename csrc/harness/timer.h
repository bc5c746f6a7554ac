/* timer.h - the one clock every benchmark uses. */
#ifndef HPC_TIMER_H
#define HPC_TIMER_H

/* Built with SimGrid's smpicc (SMPI: simulated ranks and time, docs/simulate.md), which
 * includes smpi_helpers.h in every file. */
#if defined(SMPI_HELPERS_H) || defined(SMPI_SHARED_MALLOC)
#define HPC_SMPI 1
#endif

/* Seconds from clock_gettime(CLOCK_MONOTONIC): not affected by NTP steps. */
double hpc_now(void);

typedef struct {
    const char *source;    /* "clock_gettime(CLOCK_MONOTONIC)" */
    double resolution_ns;  /* smallest nonzero difference of two consecutive reads */
    double overhead_ns;    /* mean cost of one hpc_now() call */
} hpc_timer_info;

/* Measure resolution and overhead (takes a few milliseconds). */
void hpc_timer_calibrate(hpc_timer_info *info);

#endif
