/* phases.c - per-rank phase timers (phases.h). */
#include "phases.h"

#include <stdlib.h>
#include <string.h>

static const char *kind_name(hpc_phase_kind k)
{
    return k == HPC_KIND_COMM ? "comm" : k == HPC_KIND_COPY ? "copy" : "compute";
}

void hpc_phases_init(hpc_phases *ph, const hpc_phase_def *defs, int n)
{
    memset(ph, 0, sizeof *ph);
    ph->n = n < HPC_PHASES_MAX ? n : HPC_PHASES_MAX;
    memcpy(ph->def, defs, (size_t)ph->n * sizeof *defs);
    ph->cur = -1;
}

void hpc_phases_reset(hpc_phases *ph)
{
    memset(ph->total, 0, sizeof ph->total);
    memset(ph->base, 0, sizeof ph->base);
}

int hpc_phases_sample(hpc_phases *ph, hpc_sampler *sm, double t, double *wall, double *tmax)
{
    MPI_Allreduce(&t, tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int before = sm->n;
    hpc_sampler_add(sm, *tmax);
    int keep = sm->n > before;
    if (keep) {
        memcpy(ph->base, ph->total, sizeof ph->base);
        *wall += t;
    } else {
        memcpy(ph->total, ph->base, sizeof ph->total);
    }
    return keep;
}

double hpc_phases_sum(const hpc_phases *ph)
{
    double s = 0;
    for (int i = 0; i < ph->n; i++)
        s += ph->total[i];
    return s;
}

/* Gather one number per rank of comm to its rank 0. */
static double *gather(double v, MPI_Comm comm, int *n)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, n);
    double *all = rank == 0 ? malloc((size_t)*n * sizeof *all) : NULL;
    MPI_Gather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, comm);
    return all;
}

static void write_array(hpc_json *j, const char *key, const double *all, int n)
{
    hpc_json_array(j, key);
    for (int r = 0; all && r < n; r++)
        hpc_json_num(j, NULL, all[r]);
    hpc_json_close(j);
}

void hpc_json_per_rank(hpc_json *j, const char *key, double v, MPI_Comm comm)
{
    int n;
    double *all = gather(v, comm, &n);
    write_array(j, key, all, n);
    free(all);
}

void hpc_phases_json(hpc_json *j, const hpc_phases *ph, double scale, MPI_Comm comm)
{
    hpc_json_object(j, "phases");
    for (int i = 0; i < ph->n; i++) {
        int n;
        double *all = gather(ph->total[i] * scale, comm, &n);
        hpc_json_object(j, ph->def[i].name);
        hpc_json_str(j, "kind", kind_name(ph->def[i].kind));
        write_array(j, "per_rank", all, n);
        hpc_json_close(j);
        free(all);
    }
    hpc_json_close(j);
}
