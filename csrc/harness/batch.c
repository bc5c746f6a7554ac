/* batch.c - batch length calibration in front of an hpc_sampler. */
#include "batch.h"
#include "harness.h"
#include "timer.h"

#include <string.h>

void hpc_batch_init(hpc_batch *b, double target, long cap, double ops_per_k, MPI_Comm comm)
{
    memset(b, 0, sizeof *b);
    b->k = 1;
    b->calibrating = 1;
    b->target = target;
    b->cap = cap;
    b->ops_per_k = ops_per_k;
    b->comm = comm;
}

double hpc_batch_tick_target(void)
{
    double target = 1000.0 * hpc_timer.resolution_ns * 1e-9;
    return target < HPC_BATCH_MIN_S ? HPC_BATCH_MIN_S : target;
}

int hpc_batch_calibrate_coll(hpc_batch *b, double t)
{
    int done = t >= b->target || b->k >= b->cap;
    MPI_Bcast(&done, 1, MPI_INT, 0, b->comm);
    if (!done) {
        b->k *= 2;
        return 1;
    }
    b->calibrating = 0;
    hpc_sampler_init(&b->s, &hpc_reps);
    return 0;
}

int hpc_batch_add_coll(hpc_batch *b, double t)
{
    if (b->calibrating) {
        if (hpc_batch_calibrate_coll(b, t))
            return 1;
    } else {
        hpc_sampler_add(&b->s, t / ((double)b->k * b->ops_per_k));
    }
    return hpc_sampler_more_coll(&b->s, b->comm);
}

void hpc_batch_free(hpc_batch *b)
{
    hpc_sampler_free(&b->s);
}
