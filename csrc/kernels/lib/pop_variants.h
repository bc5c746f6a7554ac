/* pop_variants.h - the halo and global-sum choices the POP proxies (barotropic.c, pop_step.c)
 * share: which of --halos and --sums this build can run (the OpenSHMEM ones only where
 * OpenSHMEM links), and starting and ending OpenSHMEM around MPI when one of them is asked
 * for; lib/pop_variants.c. */
#ifndef POP_VARIANTS_H
#define POP_VARIANTS_H

/* Whether the list v of n values holds x. */
int pop_uses(const long long *v, int n, long long x);
/* The chosen variants of option `name` (--halos, --sums), `shmem` the value of its OpenSHMEM
 * one: in a build without OpenSHMEM 'all' leaves it out and naming it is a usage error. */
int pop_shmem_choices(const char *name, long long shmem, const long long **v);
/* Before hpc_init: where --halos or --sums may run an OpenSHMEM variant, keep Open MPI 4.1.4's
 * osc/rdma out (it leaves a memory hook that MPI_Finalize calls after OpenSHMEM has run: a
 * segfault with UCX 1.13). */
void pop_shmem_prepare(int argc, char **argv);
/* After parsing, when `wanted`: OpenSHMEM started (a usage error where its PEs are not MPI's
 * ranks); the function hpc_finish_by then ends with (NULL when not wanted). */
void (*pop_shmem_start(int wanted, const char *who))(void);

#endif
