/* batch.h - operations per sample (batch length) and repetition control for
 * operations too short to time one by one.
 *
 * Usage:
 *     hpc_batch b;
 *     hpc_batch_init(&b, HPC_BATCH_MIN_S, 1L << 20, 1, comm);
 *     double t;
 *     do {
 *         double t0 = hpc_now();
 *         for (long i = 0; i < b.k; i++) op();
 *         t = hpc_now() - t0;                 (rank 0's time of the sample)
 *     } while (hpc_batch_add_coll(&b, t));
 *     ... b.s.samples[0..b.s.n-1] are times of one operation, b.s.converged, b.k ...
 *     hpc_batch_free(&b);
 *
 * Calibration: k starts at 1. HPC_BATCH_CONFIRM samples are taken at each
 * k (one under SMPI without simulated computation: they agree) and their
 * median decides: shorter than the target, it sets k to the
 * power of two its rate says reaches the target (at least 2k); otherwise k
 * is settled (as it is when k reaches the cap). A single cold sample (first
 * touch, connection set-up, a late peer) cannot lock k low, and a single
 * fast one cannot double it where a batch lasts about the target. The
 * calibration samples are warm-up and are not kept. Then an hpc_sampler
 * starts (with hpc_reps) and every sample is kept as t / (k * ops_per_k)
 * until hpc_sampler_more says stop (see sampler.h). After HPC_BATCH_CHECK
 * kept samples, a median batch time under half the target means the
 * calibration was fooled: k grows and sampling starts over (at most
 * HPC_BATCH_MAX_RECAL times). k is a power of two, so the division is exact.
 *
 * All decisions are rank 0's, broadcast over comm: every rank of comm must
 * call add_coll (or calibrate_coll) after every sample, outside the timed
 * region; t matters on rank 0 only.
 *
 * A benchmark whose kept sample is not simply t / k calibrates with
 * hpc_batch_calibrate_coll and then drives b.s itself with hpc_sampler_add
 * and hpc_sampler_more_coll.
 */
#ifndef HPC_BATCH_H
#define HPC_BATCH_H

#include "output.h"
#include "sampler.h"

#include <mpi.h>

/* The median calibration sample at the settled k lasts at least this long
 * (seconds). */
#define HPC_BATCH_MIN_S 50e-6
/* Operations per sample at most under SimGrid's SMPI (batch.c). */
#define HPC_BATCH_SMPI_CAP 64
/* Calibration samples at one k whose median decides (odd). */
#define HPC_BATCH_CONFIRM 3
/* Kept samples after which k is checked once more, and how often it may
 * be corrected. */
#define HPC_BATCH_CHECK 5
#define HPC_BATCH_MAX_RECAL 2

typedef struct {
    hpc_sampler s;     /* kept samples (valid once calibration is over) */
    long k;            /* operations per sample */
    int calibrating;   /* 1 while k is still being chosen */
    int at_k;          /* calibration samples taken at this k so far */
    double at_k_t[HPC_BATCH_CONFIRM]; /* their times */
    int confirm;       /* calibration samples at one k: HPC_BATCH_CONFIRM, 1 where exact */
    int recalibrations;/* times k was corrected after sampling had started */
    double target;     /* sample time (s) at which calibration stops */
    long cap;          /* k at which calibration stops in any case */
    double ops_per_k;  /* operations per unit of k (2 for a round trip) */
    MPI_Comm comm;
} hpc_batch;

void hpc_batch_init(hpc_batch *b, double target, long cap, double ops_per_k, MPI_Comm comm);
/* Larger of HPC_BATCH_MIN_S and 1000 timer ticks. */
double hpc_batch_tick_target(void);
/* Calibration step with rank 0's sample time t: returns 1 while k is still
 * being chosen (k may have grown), 0 once it is settled (the sampler is then
 * initialised). Collective over comm. */
int hpc_batch_calibrate_coll(hpc_batch *b, double t);
/* Feed one sample (rank 0's time of k operations); returns whether to take
 * another. Collective over comm. */
int hpc_batch_add_coll(hpc_batch *b, double t);
/* Frees the sampler (safe if calibration never finished). */
void hpc_batch_free(hpc_batch *b);

/* What every record of one measured point says besides its metric and values. */
typedef struct {
    void (*params)(hpc_json *, const void *);  /* writes the params from ctx */
    const void *ctx;
    const char *batch_key;   /* the batch length's key: "ops_per_sample", ... */
    void (*extra)(hpc_json *);  /* keys after the batch length, or NULL */
} hpc_point;

/* One result record (rank 0 writes it) from values already scaled: statistic median,
 * stats, the batch length. */
void hpc_emit_values(const hpc_point *pt, const char *metric, const char *unit,
                     const char *better, const double *v, int n, int converged, long batch);
/* The same from a batch's kept samples t (seconds per operation): value = work / (t *
 * scale) with is_rate (work per operation), else t * scale. */
void hpc_batch_emit(const hpc_point *pt, const char *metric, const char *unit,
                    const char *better, const hpc_batch *b, double scale, int is_rate,
                    double work);

#endif
