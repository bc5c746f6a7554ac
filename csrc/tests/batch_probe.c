/* batch_probe.c - exposes the batch-length calibration (batch.h) to the test
 * suite (tests/csrc/test_batch.py) with synthetic times, on one rank.
 *
 * stdin: "target cap ops_per_k warmup min_reps max_reps ci_target budget_s",
 * then the time of one operation for each successive sample. The probe feeds
 * each as a batch time (time x k x ops_per_k, as a real batch of k would
 * take) until the batch says stop or input ends, and prints one JSON line:
 * the k of every sample, the final k, kept samples and recalibrations.
 */
#include "batch.h"
#include "harness.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double target, ops;
    long cap;
    hpc_rep *r = &hpc_reps;
    if (scanf("%lf %ld %lf %d %d %d %lf %lf", &target, &cap, &ops, &r->warmup, &r->min_reps,
              &r->max_reps, &r->ci_target, &r->budget_s) != 8) {
        fprintf(stderr, "batch_probe: expected 'target cap ops warmup min max ci budget'\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hpc_sampler_judge = 0;  /* numbers read from stdin, not times (sampler.h) */
    hpc_batch b;
    hpc_batch_init(&b, target, cap, ops, MPI_COMM_SELF);
    printf("{\"ks\": [");
    double per_op;
    int first = 1, more = 1;
    while (more && scanf("%lf", &per_op) == 1) {
        printf("%s%ld", first ? "" : ", ", b.k);
        first = 0;
        more = hpc_batch_add_coll(&b, per_op * (double)b.k * ops);
    }
    printf("], \"k\": %ld, \"calibrating\": %d, \"n\": %d, \"recalibrations\": %d}\n", b.k,
           b.calibrating, b.calibrating ? 0 : b.s.n, b.recalibrations);
    hpc_batch_free(&b);
    MPI_Finalize();
    return 0;
}
