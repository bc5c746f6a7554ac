/* phases.h - per-rank phase timers for the application proxies.
 *
 * A proxy names its phases once, with a kind each (what the overhead
 * breakdown adds them into):
 *     static const hpc_phase_def defs[] = {
 *         {"compute", HPC_KIND_COMPUTE}, {"halo", HPC_KIND_COMM},
 *         {"pack", HPC_KIND_COPY}, {"global_sum", HPC_KIND_COMM}};
 *     hpc_phases ph;
 *     hpc_phases_init(&ph, defs, 4);
 * and, in the timed loop, switches from phase to phase; one clock read per
 * switch, so the phases cover the loop without gaps:
 *     hpc_phases_start(&ph, COMPUTE);  ...  hpc_phase_to(&ph, HALO);  ...
 *     hpc_phases_stop(&ph);
 * After the measurement, hpc_phases_json() (collective) gathers every rank's
 * totals into the result record as
 *     "phases": {"compute": {"kind": "compute", "per_rank": [...]}, ...}
 * scaled (e.g. to microseconds per iteration).
 *
 * When the run is traced (hpceval trace, or a launch with tracing on: the
 * environment has HPCEVAL_TRACE_DIR), every switch also calls MPI_Pcontrol
 * with HPC_PCONTROL_BEGIN/END and the phase's name, which the PMPI trace
 * library (csrc/trace) records as a phase slice. Untraced, no MPI call is made.
 */
#ifndef HPC_PHASES_H
#define HPC_PHASES_H

#include "output.h"
#include "sampler.h"
#include "timer.h"

#include <mpi.h>

#define HPC_PHASES_MAX 16
/* MPI_Pcontrol levels of a phase's begin and end; the second argument is
 * the phase name (const char *). Levels 0-2 are the standard's own. */
#define HPC_PCONTROL_BEGIN 101
#define HPC_PCONTROL_END 102

typedef enum { HPC_KIND_COMPUTE, HPC_KIND_COMM, HPC_KIND_COPY } hpc_phase_kind;

typedef struct {
    const char *name;
    hpc_phase_kind kind;
} hpc_phase_def;

typedef struct {
    int n, cur;                  /* cur: running phase, -1 when stopped */
    double t0;                   /* when cur began */
    hpc_phase_def def[HPC_PHASES_MAX];
    double total[HPC_PHASES_MAX];  /* seconds, since the last reset */
    double base[HPC_PHASES_MAX];   /* totals after the last kept sample */
} hpc_phases;

void hpc_phases_init(hpc_phases *ph, const hpc_phase_def *defs, int n);
void hpc_phases_reset(hpc_phases *ph);  /* totals to zero */
/* The end of one timed sample, t this rank's time (collective): the slowest
 * rank's time goes to the sampler (*tmax); when the sampler keeps the sample,
 * t is added to *wall (this rank's own time over the kept samples), else (a
 * warm-up sample) its phase times are taken out again. Returns whether kept. */
int hpc_phases_sample(hpc_phases *ph, hpc_sampler *sm, double t, double *wall, double *tmax);

static inline void hpc_phase_to(hpc_phases *ph, int id)
{
    double t = hpc_now();
    if (ph->cur >= 0) {
        ph->total[ph->cur] += t - ph->t0;
        if (hpc_tracing)
            MPI_Pcontrol(HPC_PCONTROL_END, ph->def[ph->cur].name);
    }
    ph->cur = id;
    ph->t0 = t;
    if (id >= 0 && hpc_tracing)
        MPI_Pcontrol(HPC_PCONTROL_BEGIN, ph->def[id].name);
}

static inline void hpc_phases_start(hpc_phases *ph, int id) { hpc_phase_to(ph, id); }
static inline void hpc_phases_stop(hpc_phases *ph) { hpc_phase_to(ph, -1); }

/* Seconds of all phases together on this rank. */
double hpc_phases_sum(const hpc_phases *ph);

/* Collective over comm (rank 0 of comm writes): adds "phases" to j, each
 * rank's total times scale. */
void hpc_phases_json(hpc_json *j, const hpc_phases *ph, double scale, MPI_Comm comm);

/* Collective: adds key: [v of each rank] to j. */
void hpc_json_per_rank(hpc_json *j, const char *key, double v, MPI_Comm comm);

#endif
