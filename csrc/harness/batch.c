/* batch.c - batch length calibration in front of an hpc_sampler. */
#include "batch.h"
#include "disturb.h"
#include "harness.h"
#include "timer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef HPC_SMPI
#include <xbt/config.h>
#endif

void hpc_batch_init(hpc_batch *b, double target, long cap, double ops_per_k, MPI_Comm comm)
{
    memset(b, 0, sizeof *b);
    b->k = 1;
    b->calibrating = 1;
    b->target = target;
    b->cap = cap;
#ifdef HPC_SMPI
    /* SimGrid SMPI's clock is exact (timer.c): more operations per sample average nothing,
     * and an operation the simulation prices near zero (loggp's 8-byte gap, a third of a
     * nanosecond: a detached send) took 10^5 messages a sample, 17 s of a 64-rank test. */
    if (b->cap > HPC_BATCH_SMPI_CAP)
        b->cap = HPC_BATCH_SMPI_CAP;
    /* Where the host's computation is not charged either (smpi/simulate-computation:no, the
     * communication binaries), the samples at one k agree: one decides (a 1,024-rank
     * collective's calibration was a third of its simulation). */
    b->confirm = sg_cfg_get_boolean("smpi/simulate-computation") ? HPC_BATCH_CONFIRM : 1;
#else
    b->confirm = HPC_BATCH_CONFIRM;
#endif
    b->ops_per_k = ops_per_k;
    b->comm = comm;
}

double hpc_batch_tick_target(void)
{
    double target = 1000.0 * hpc_timer.resolution_ns * 1e-9;
    return target < HPC_BATCH_MIN_S ? HPC_BATCH_MIN_S : target;
}

/* Smallest power-of-two multiple of k (at least 2k) whose batch would last
 * the target if one batch of k takes t; at most cap. */
static long grown_k(const hpc_batch *b, double t)
{
    double want = t > 0.0 ? b->target / t * (double)b->k : (double)b->cap;
    long k = b->k * 2;
    while (k < b->cap && (double)k < want)
        k *= 2;
    return k < b->cap ? k : b->cap;
}

/* Rank 0's decision after one calibration sample: the new k, or 0 when k
 * is settled. Nothing is decided on one sample: HPC_BATCH_CONFIRM samples
 * are taken at each k and their median decides. Below the target it sets k
 * from its own rate (at least 2k); at or above it k is settled. A single
 * cold sample cannot lock k low, and a single fast one cannot double it (a
 * 16-round-trip batch of 16 KiB lasts about 51 us on the 2-core CI VM: any
 * one sample under 50 us used to double k to 32). */
static long calibration_step(hpc_batch *b, double t)
{
    if (b->k >= b->cap)
        return 0;
    b->at_k_t[b->at_k++] = t;
    if (b->at_k < b->confirm)
        return b->k;
    b->at_k = 0;
    hpc_stats st;
    hpc_stats_compute(b->at_k_t, b->confirm, &st);
    return st.median < b->target ? grown_k(b, st.median) : 0;
}

/* Broadcast rank 0's next k (0: settled) and apply it on every rank. */
static int apply_k(hpc_batch *b, long next)
{
    MPI_Bcast(&next, 1, MPI_LONG, 0, b->comm);
    if (next > 0) {
        b->k = next;
        return 1;
    }
    b->calibrating = 0;
    hpc_sampler_init(&b->s, &hpc_reps);
    b->s.comm = b->comm;  /* every rank calls add: they agree on preempted samples */
    return 0;
}

int hpc_batch_calibrate_coll(hpc_batch *b, double t)
{
    int rank;
    MPI_Comm_rank(b->comm, &rank);
    return apply_k(b, rank == 0 ? calibration_step(b, t) : 0);
}

/* Rank 0, while sampling: after HPC_BATCH_CHECK kept samples, a median
 * batch time under half the target means calibration was fooled (it ran
 * while the machine was slow or cold): return a larger k to start over. */
static long recalibration(hpc_batch *b)
{
    const hpc_sampler *s = &b->s;
    if (s->n != HPC_BATCH_CHECK || b->recalibrations >= HPC_BATCH_MAX_RECAL || b->k >= b->cap)
        return 0;
    double batch_t = hpc_sorted_median(s->sorted, s->n) * (double)b->k * b->ops_per_k;
    return batch_t < 0.5 * b->target ? grown_k(b, batch_t) : 0;
}

int hpc_batch_add_coll(hpc_batch *b, double t)
{
    if (b->calibrating) {
        hpc_batch_calibrate_coll(b, t);
        return 1;  /* still calibrating, or a new sampler that wants samples */
    }
    hpc_sampler_add(&b->s, t / ((double)b->k * b->ops_per_k));
    /* One broadcast carries both of rank 0's decisions: next k, or more. */
    int rank;
    MPI_Comm_rank(b->comm, &rank);
    long d[2] = {0, 0};
    if (rank == 0) {
        d[0] = recalibration(b);
        d[1] = d[0] == 0 && hpc_sampler_more(&b->s);
    }
    MPI_Bcast(d, 2, MPI_LONG, 0, b->comm);
    if (d[0] > 0) {
        /* Start over: the samples taken with the old k are dropped. */
        hpc_sampler_free(&b->s);
        b->recalibrations++;
        b->k = d[0];
        b->at_k = 0;
        b->calibrating = 1;
        return 1;
    }
    if (!d[1])
        hpc_disturb_gather(b->comm);  /* the point is over: every rank's preemptions */
    return (int)d[1];
}

void hpc_batch_free(hpc_batch *b)
{
    hpc_sampler_free(&b->s);
}

void hpc_emit_values(const hpc_point *pt, const char *metric, const char *unit,
                     const char *better, const double *v, int n, int converged, long batch)
{
    hpc_stats st;
    hpc_stats_compute(v, n, &st);
    hpc_json r;
    hpc_result_begin(&r, metric, unit, "median", better);
    pt->params(&r, pt->ctx);
    hpc_result_stats(&r, &st, converged);
    hpc_json_int(&r, pt->batch_key, batch);
    if (pt->extra)
        pt->extra(&r);
    hpc_json_emit(&r);
}

void hpc_batch_emit(const hpc_point *pt, const char *metric, const char *unit,
                    const char *better, const hpc_batch *b, double scale, int is_rate,
                    double work)
{
    if (hpc_rank != 0)
        return;
    const hpc_sampler *s = &b->s;
    double *v = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *v);
    if (!v)
        abort();
    for (int i = 0; i < s->n; i++)
        v[i] = is_rate ? work / (s->samples[i] * scale) : s->samples[i] * scale;
    hpc_emit_values(pt, metric, unit, better, v, s->n, s->converged, b->k);
    free(v);
}
