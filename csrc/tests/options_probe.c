/* options_probe.c - exposes the option parser's list types to the test suite
 * (tests/csrc/test_options.py): parses argv against the table below (no MPI) and
 * prints one JSON line with the lists as parsed, or the one-line error and exits 2.
 */
#include "options.h"

#include <stdio.h>

static const hpc_option none[] = {{0}};
static const hpc_option table[] = {
    {.name = "sizes", .type = HPC_SIZES, .def = "1K,2", .min = 0, .max = 1 << 30},
    {.name = "words", .type = HPC_CHOICES, .def = "b", .choices = "a|b|c"},
    {.name = "ops", .type = HPC_CHOICES, .def = "all", .choices = "x|y|z", .all = 1,
     .what = "an op"},
    {.name = "grids", .type = HPC_GRIDS, .def = "", .what = "PxQ", .all = 1},
    {.name = "boxes", .type = HPC_GRIDS, .dims = 3, .def = "1x2x3"},
    {0}};

int main(int argc, char **argv)
{
    char err[256];
    int rc = hpc_options_parse(argc, argv, none, table, err, sizeof err);
    if (rc != 0) {
        printf("error: %s\n", rc < 0 ? err : "help");
        return 2;
    }
    const char *lists[] = {"sizes", "words", "ops"};
    printf("{");
    for (int l = 0; l < 3; l++) {
        const long long *v;
        int n = hpc_opt_list(lists[l], &v);
        printf("\"%s\": [", lists[l]);
        for (int k = 0; k < n; k++)
            printf("%s%lld", k ? ", " : "", v[k]);
        printf("], ");
    }
    const hpc_grid *g;
    int n = hpc_opt_grids("grids", &g);
    printf("\"grids\": [");
    for (int k = 0; k < n; k++)
        printf("%s[%d, %d]", k ? ", " : "", g[k].x, g[k].y);
    printf("], \"grids_text\": \"%s\", \"boxes\": [", hpc_opt_str("grids"));
    n = hpc_opt_grids("boxes", &g);
    for (int k = 0; k < n; k++)
        printf("%s[%d, %d, %d]", k ? ", " : "", g[k].x, g[k].y, g[k].z);
    printf("]}\n");
    return 0;
}
