/* pop_variants.c - the POP proxies' shared halo and global-sum choices (pop_variants.h). */
#include "pop_variants.h"
#include "harness.h"
#include "pop_caf.h"
#include "pop_shmem.h"

#include <stdlib.h>
#include <string.h>

const char *const POP_HALO_NAMES[] = {"datatype", "pack", "put", "shmem", "caf"};
const char *const POP_SUM_NAMES[] = {"allreduce", "tree", "onesided", "shmem", "caf"};

int pop_uses(const long long *v, int n, long long x)
{
    for (int k = 0; k < n; k++)
        if (v[k] == x)
            return 1;
    return 0;
}

/* v without x when `missing`: 'all' leaves x out; x named is a usage error saying `needs`. */
static int leave_out(const char *name, long long x, const char *what, int missing,
                     const char *needs, long long *out, const long long **v, int n)
{
    if (!missing || !pop_uses(*v, n, x))
        return n;
    hpc_usage_check(strstr(hpc_opt_str(name), what) != NULL, "option --%s: %s needs a build "
                    "with %s; this one has none", name, what, needs);
    int m = 0;
    for (int k = 0; k < n && m < 16; k++)
        if ((*v)[k] != x)
            out[m++] = (*v)[k];
    *v = out;
    return m;
}

int pop_pgas_choices(const char *name, long long shmem, long long caf, const long long **v)
{
    static long long kept[2][2][16];
    int n = hpc_opt_list(name, v), s = strcmp(name, "sums") == 0;
    n = leave_out(name, shmem, "shmem", !pop_shmem_available(), "OpenSHMEM (Open MPI's "
                  "liboshmem)", kept[s][0], v, n);
    return leave_out(name, caf, "caf", !pop_caf_available(), "Co-Array Fortran (install "
                     "libcoarrays-openmpi-dev and rebuild)", kept[s][1], v, n);
}

static int saved_argc;
static char **saved_argv;

/* Whether --halos or --sums may run a globally addressable variant ('shmem', 'caf' or 'all'
 * among them), read before MPI starts. */
static int may_use_pgas(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        size_t len = strncmp(a, "--halos", 7) == 0 ? 7 : strncmp(a, "--sums", 6) == 0 ? 6 : 0;
        if (!len)
            continue;
        v = a[len] == '=' ? a + len + 1 : a[len] == 0 && i + 1 < argc ? argv[i + 1] : NULL;
        if (v && (strstr(v, "shmem") || strstr(v, "caf") || strstr(v, "all")))
            return 1;
    }
    return 0;
}

void pop_pgas_prepare(int argc, char **argv)
{
    saved_argc = argc;
    saved_argv = argv;
    if ((pop_shmem_available() || pop_caf_available()) && may_use_pgas(argc, argv))
        setenv("OMPI_MCA_osc", "^rdma", 0);
}

static int started_shmem, started_caf;

/* OpenCoarrays first (it leaves MPI to its owner), then OpenSHMEM (which in Open MPI finalizes
 * MPI too), else MPI. */
static void finish(void)
{
    if (started_caf)
        pop_caf_finalize();
    if (started_shmem)
        pop_shmem_finalize();
    else
        MPI_Finalize();
}

void (*pop_pgas_start(int shmem, int caf, const char *who))(void)
{
    hpc_usage_check(shmem && pop_shmem_init() != 0, "%s: OpenSHMEM's PEs are not MPI's ranks "
                    "here", who);
    started_shmem = shmem;
    hpc_usage_check(caf && pop_caf_init(&saved_argc, &saved_argv) != 0, "%s: Co-Array "
                    "Fortran's images are not MPI's ranks here", who);
    started_caf = caf;
    return shmem || caf ? finish : NULL;
}
