/* pop_variants.h - the halo and global-sum choices the POP proxies (barotropic.c, pop_step.c)
 * share: their names, which of --halos and --sums this build can run (the OpenSHMEM ones only
 * where OpenSHMEM links, the Co-Array Fortran ones only where OpenCoarrays does), and starting
 * and ending those around MPI when one of them is asked for; lib/pop_variants.c. */
#ifndef POP_VARIANTS_H
#define POP_VARIANTS_H

/* By pop_comm.h's POP_HALO_* and POP_SUM_* values. */
extern const char *const POP_HALO_NAMES[];
extern const char *const POP_SUM_NAMES[];

/* Whether the list v of n values holds x. */
int pop_uses(const long long *v, int n, long long x);
/* The chosen variants of option `name` (--halos, --sums; `shmem` and `caf` its values of those
 * variants): in a build without one 'all' leaves it out, and naming it is a usage error. */
int pop_pgas_choices(const char *name, long long shmem, long long caf, const long long **v);
/* Before hpc_init: where --halos or --sums may run a globally addressable variant, keep Open
 * MPI 4.1.4's osc/rdma out (it leaves a memory hook that MPI_Finalize calls after OpenSHMEM has
 * run: a segfault with UCX 1.13); the arguments are kept for OpenCoarrays' start. */
void pop_pgas_prepare(int argc, char **argv);
/* After parsing: OpenSHMEM started when `shmem`, OpenCoarrays when `caf` (a usage error where
 * their PEs or images are not MPI's ranks); the function hpc_finish_by then ends with (NULL
 * when neither is wanted). */
void (*pop_pgas_start(int shmem, int caf, const char *who))(void);

#endif
