/* harness.h - what every benchmark includes: MPI start/stop, options,
 * records, repetition control, checks and fault injection.
 *
 *     int main(int argc, char **argv) {
 *         hpc_init(&argc, &argv, "name", "what it measures", opts, MPI_THREAD_SINGLE);
 *         ... validate options (hpc_usage_check) ...
 *         hpc_begin(nthreads, NULL);           // meta record
 *         ... measure, hpc_result_begin/end ...
 *         hpc_finish();                        // end record, MPI_Finalize
 *         return 0;
 *     }
 */
#ifndef HPC_HARNESS_H
#define HPC_HARNESS_H

#include "check.h"
#include "options.h"
#include "phases.h"
#include "output.h"
#include "sampler.h"
#include "stats.h"
#include "sysinfo.h"
#include "timer.h"

#include <mpi.h>

/* Set by the Makefile for each binary (flags and compiler as built). */
#ifndef HPC_CFLAGS
#define HPC_CFLAGS "unknown"
#endif

typedef enum {
    HPC_INJECT_NONE,
    HPC_INJECT_CORRUPT,  /* damage data before the check: the check must fail */
    HPC_INJECT_HANG,     /* last rank sleeps forever at the first point */
    HPC_INJECT_DIE,      /* last rank calls _exit(7) at the first point */
    HPC_INJECT_SLOW_CORE, /* last rank's core probe does three times the work when a window closes */
    HPC_INJECT_FAR_PAIR, /* a pair's rank 1 answers its cache line late after the first time */
    HPC_INJECT_LATE_THREAD, /* OpenMP thread 0 enters a parallel region 5 ms after the others */
    HPC_INJECT_PREEMPTED /* last rank says it was preempted during every third sample */
} hpc_inject_mode;

extern int hpc_rank, hpc_nranks;     /* in MPI_COMM_WORLD */
extern hpc_rep hpc_reps;             /* from --warmup, --min-reps, ... */
extern hpc_timer_info hpc_timer;     /* measured at start-up */
extern hpc_inject_mode hpc_inject;   /* from --inject */

/* MPI_Init_thread(thread_level), parse the options (common + opts),
 * calibrate the timer. --help prints the table and exits 0; a bad option is
 * reported by rank 0 and all ranks exit 2. HPC_CFLAGS is taken from the
 * caller's file, hence the macro.
 * thread_level: MPI_THREAD_SINGLE for single-threaded benchmarks,
 * MPI_THREAD_FUNNELED for OpenMP ones (only the main thread calls MPI).
 * Ask no more than needed: Open MPI 4.1 adds ~45 ns to every message as soon
 * as more than MPI_THREAD_SINGLE is provided. */
void hpc_init_(int *argc, char ***argv, const char *name, const char *about,
               const hpc_option *opts, int thread_level, const char *cflags);
#define hpc_init(argc, argv, name, about, opts, thread_level) \
    hpc_init_(argc, argv, name, about, opts, thread_level, HPC_CFLAGS)

/* Write the meta record (collective). extra() may add keys to its options. */
void hpc_begin(int nthreads, void (*extra)(hpc_json *options));

/* Bad usage: all ranks must call it; rank 0 reports, all exit 2. */
void hpc_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Collective: if rank 0's bad is true, hpc_usage_error(fmt, ...). */
void hpc_usage_check(int bad, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A comma list of at most max finite numbers (any option type, read as given) into out;
 * returns the count. Anything else is a usage error naming the option. */
int hpc_opt_numbers(const char *name, double *out, int max);

/* A HPC_GRIDS option of process grids PxQ: "all" (.all) is every P x Q = hpc_nranks,
 * P ascending; a grid that does not fit hpc_nranks is a usage error. Returns a malloc'd
 * array (free it) and its length in *n. */
hpc_grid *hpc_opt_pgrids(const char *name, int *n);

/* Call when the first point is about to be measured: --inject hang/die. */
void hpc_inject_first_point(void);

/* First thing in an OpenMP parallel region, with omp_get_thread_num(): --inject late-thread
 * holds thread 0 back, as a preemption would, so that the region's order is tested. */
void hpc_inject_late_thread(int thread);

/* Barrier that sleeps between polls, so waiting ranks leave the CPU to the
 * ones measuring (MPI_Barrier busy-polls in most MPI libraries). */
void hpc_idle_barrier(MPI_Comm comm);

/* MPI_Waitall(c, r, MPI_STATUSES_IGNORE), inline (timed loops call it). MPICH defines
 * MPI_STATUSES_IGNORE as (MPI_Status *)1, which gcc 12 takes for a zero-length array that
 * MPI_Waitall would overflow: a false warning, silenced here once. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static inline void hpc_wait_all(int c, MPI_Request *r)
{
    MPI_Waitall(c, r, MPI_STATUSES_IGNORE);
}
#pragma GCC diagnostic pop

/* Write the end record and MPI_Finalize. */
void hpc_finish(void);
/* Write the end record and call finalize(), which ends MPI too (OpenSHMEM's
 * shmem_finalize in Open MPI: MPI_Finalize after it is an error). */
void hpc_finish_by(void (*finalize)(void));

#endif
