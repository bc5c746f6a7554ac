/* pop_shmem.h - the OpenSHMEM variants of pop_comm.h's halo update and global sum (see
 * there); lib/pop_shmem.c. Without OpenSHMEM in the build (no HPC_HAVE_SHMEM) every function
 * is a stub and pop_shmem_available() is 0. */
#ifndef POP_SHMEM_H
#define POP_SHMEM_H
#include "pop_comm.h"

#include <stddef.h>

/* Whether this build has OpenSHMEM. */
int pop_shmem_available(void);
/* shmem_init after MPI_Init (Open MPI: PEs are MPI ranks; -1 where they are not), and
 * shmem_finalize, which in Open MPI finalizes MPI too (harness: hpc_finish_by). */
int pop_shmem_init(void);
void pop_shmem_finalize(void);
/* Collective: the halo's field of n points in the symmetric heap (the largest block's size on
 * every rank) and its flags; NULL when out of memory. */
double *pop_shmem_field(pop_halo *h, size_t n);
void pop_shmem_field_free(pop_halo *h);    /* collective */
void pop_shmem_halo(pop_halo *h);          /* the remote ghosts (self copies are the caller's) */
int pop_shmem_sum_init(pop_gsum *s);       /* collective; 0, or -1 out of memory */
void pop_shmem_sum_free(pop_gsum *s);      /* collective */
double pop_shmem_sum(pop_gsum *s, double v);

#endif
