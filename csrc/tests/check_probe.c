/* check_probe.c - exposes the record writer's number output and the shared bound checks
 * (csrc/harness/output.c, check.c) to the test suite (tests/csrc/test_checks.py).
 *
 *   check_probe num VALUE             one result record with "value": VALUE
 *   check_probe bound VALUE BOUND     hpc_check_bound(VALUE, BOUND), then "value": VALUE
 *   check_probe finite V1 V2 ...      hpc_check_finite(V1..Vn), then "n": n
 *
 * VALUE is read by strtod, so "nan" and "inf" reach the writer as a blown-up kernel would
 * hand them over. A refused value fails as a benchmark does: error record, exit status 1.
 */
#include "check.h"
#include "output.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    hpc_output_init("check-probe", 0);
    if (argc < 3) {
        fprintf(stderr, "usage: check_probe num V | bound V BOUND | finite V...\n");
        return 2;
    }
    hpc_json j;
    hpc_json_record(&j, "probe");
    if (strcmp(argv[1], "finite") == 0) {
        int n = argc - 2;
        double *x = malloc((size_t)n * sizeof *x);
        for (int i = 0; i < n; i++)
            x[i] = strtod(argv[2 + i], NULL);
        hpc_check_finite(x, (size_t)n, "probe state");
        hpc_json_int(&j, "n", n);
        free(x);
    } else {
        double v = strtod(argv[2], NULL);
        if (strcmp(argv[1], "bound") == 0 && argc > 3)
            hpc_check_bound(v, strtod(argv[3], NULL), "probe error");
        hpc_json_num(&j, "value", v);
    }
    hpc_json_emit(&j);
    MPI_Finalize();
    return 0;
}
