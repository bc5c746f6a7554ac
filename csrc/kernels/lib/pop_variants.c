/* pop_variants.c - the POP proxies' shared halo and global-sum choices (pop_variants.h). */
#include "pop_variants.h"
#include "harness.h"
#include "pop_shmem.h"

#include <stdlib.h>
#include <string.h>

int pop_uses(const long long *v, int n, long long x)
{
    for (int k = 0; k < n; k++)
        if (v[k] == x)
            return 1;
    return 0;
}

int pop_shmem_choices(const char *name, long long shmem, const long long **v)
{
    static long long kept[2][8];
    int n = hpc_opt_list(name, v), m = 0;
    if (pop_shmem_available() || !pop_uses(*v, n, shmem))
        return n;
    hpc_usage_check(strstr(hpc_opt_str(name), "shmem") != NULL, "option --%s: shmem needs a "
                    "build with OpenSHMEM (Open MPI's liboshmem); this one has none", name);
    long long *out = kept[strcmp(name, "sums") == 0];
    for (int k = 0; k < n && m < 8; k++)
        if ((*v)[k] != shmem)
            out[m++] = (*v)[k];
    *v = out;
    return m;
}

/* Whether --halos or --sums may run an OpenSHMEM variant ('shmem' or 'all' among them), read
 * before MPI starts. */
static int may_use_shmem(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        size_t len = strncmp(a, "--halos", 7) == 0 ? 7 : strncmp(a, "--sums", 6) == 0 ? 6 : 0;
        if (!len)
            continue;
        v = a[len] == '=' ? a + len + 1 : a[len] == 0 && i + 1 < argc ? argv[i + 1] : NULL;
        if (v && (strstr(v, "shmem") || strstr(v, "all")))
            return 1;
    }
    return 0;
}

void pop_shmem_prepare(int argc, char **argv)
{
    if (pop_shmem_available() && may_use_shmem(argc, argv))
        setenv("OMPI_MCA_osc", "^rdma", 0);
}

void (*pop_shmem_start(int wanted, const char *who))(void)
{
    hpc_usage_check(wanted && pop_shmem_init() != 0, "%s: OpenSHMEM's PEs are not MPI's ranks "
                    "here", who);
    return wanted ? pop_shmem_finalize : NULL;
}
