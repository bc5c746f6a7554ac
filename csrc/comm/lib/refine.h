/* refine.h - where does a message-time curve jump? Adaptive refinement
 * around protocol switches (eager -> rendezvous), as the SP2 study located
 * them, without a dense sweep.
 *
 * After a sweep of sizes, an interval (a, b) is a suspected switch when the
 * line through the points below it misses b and the line through the
 * points above it misses a, both by more than tol (relative): a Hockney
 * region t = t0 + n / r is a straight line, a switch is a step or a kink.
 * Each suspected interval is bisected: the midpoint is measured between
 * fresh measurements of the two ends (a, m, b back to back; the ends' are
 * checks that write no records) and the half whose ends differ more keeps
 * the bracket, until b - a <= resolution bytes, or until the CIs of the
 * ends' medians overlap (no step: noise or a gradual change; the interval is
 * given up). The suspects are narrowed one after the other, best ranked
 * first (a drop, then one both lines miss, then the sharpest bend: a
 * protocol change alters the cost per byte, a copy's own steps do not), so
 * the budget goes to the switches first. Only points measured
 * together are compared: a sweep's point
 * taken seconds earlier, in another state of the machine, never is. So a switch is bracketed to
 * within one refinement step at a cost of about log2((b - a) / resolution)
 * points, wherever it lies. Points measured while refining are written with
 * "refined": true (comm_refining).
 */
#ifndef HPC_COMM_REFINE_H
#define HPC_COMM_REFINE_H

#include <mpi.h>

typedef struct {
    long long n;      /* message size, bytes */
    double t;         /* median time of one operation (valid on rank 0) */
    double lo, hi;    /* its 95% CI */
} comm_sized;

/* Measure size n (collective over the refinement's comm); on rank 0 fill
 * out->t, lo, hi. With record 0 it is a check: no records are written. */
typedef void (*comm_measure_fn)(long long n, int record, void *ctx, comm_sized *out);

typedef struct {
    int max_points;        /* sizes added at most, over all switches */
    long long resolution;  /* bisect until the bracket is this narrow (bytes) */
    double tol;            /* relative miss of a line that suggests a switch */
    int by_height;         /* rank suspects by their step's relative height, steps of 1.5x
                              or more first and the smallest size first among them (a curve
                              whose protocol changes are its tall steps: eager.c) */
} comm_refine_cfg;

/* The options of every binary that refines (read by comm_sweep). */
#define COMM_REFINE_OPTIONS                                                                   \
    {.name = "refine", .type = HPC_INT, .def = "24", .min = 0, .max = 1000,                   \
     .help = "sizes added at most to bracket protocol switches (0: the listed sizes only)"},  \
    {.name = "refine-tol", .type = HPC_DOUBLE, .def = "0.1", .min = 0.001, .max = 10,         \
     .help = "a line through neighbouring sizes that misses by this much (relative) suggests " \
             "a switch"},                                                                     \
    {.name = "resolution", .type = HPC_SIZE, .def = "16", .min = 1, .max = INT_MAX,           \
     .help = "bracket a switch to this many bytes"}

/* 1 while comm_refine_switches measures: records then say "refined": true. */
extern int comm_refining;

/* pts[0..*npts-1]: the sweep's points (rank 0's values count); room for
 * cfg->max_points more. Measures the new sizes with fn and appends them.
 * Collective over comm (rank 0 decides). Returns the number of switches
 * bracketed. */
int comm_refine_switches(comm_sized *pts, int *npts, const comm_refine_cfg *cfg,
                         comm_measure_fn fn, void *ctx, MPI_Comm comm);

/* Measure every listed size with fn (records written), then refine with
 * the COMM_REFINE_OPTIONS given (by_height as in comm_refine_cfg).
 * Collective over comm. */
void comm_sweep(const long long *sizes, int nsizes, int by_height, comm_measure_fn fn,
                void *ctx, MPI_Comm comm);

/* The sweep of ranks 0 and 1 (pingpong, eager), after hpc_begin: their
 * communicator (fn's ctx), buffers of max bytes in *sbuf and *rbuf,
 * --inject's first point, comm_sweep, everything freed; the other ranks
 * wait. Collective over MPI_COMM_WORLD. */
void comm_pair_sweep(const long long *sizes, int nsizes, long long max, int by_height,
                     comm_measure_fn fn, char **sbuf, char **rbuf);

#endif
