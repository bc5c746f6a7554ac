/* pop_caf.h - the Co-Array Fortran variants of pop_comm.h's halo update and global sum (see
 * there); lib/pop_caf.c, with the coarrays in lib/pop_coarrays.f90. Without Co-Array Fortran in the
 * build (no HPC_HAVE_CAF) every function is a stub and pop_caf_available() is 0. */
#ifndef POP_CAF_H
#define POP_CAF_H
#include "pop_comm.h"

#include <stddef.h>

/* Whether this build has Co-Array Fortran (OpenCoarrays). */
int pop_caf_available(void);
/* OpenCoarrays started after MPI_Init (it then takes MPI as it is; -1 where its images are not
 * MPI's ranks), and ended, leaving MPI to its owner. */
int pop_caf_init(int *argc, char ***argv);
void pop_caf_finalize(void);
/* Collective: the halo's field of n points as a coarray (the largest block's size on every
 * image); NULL when another one is live. */
double *pop_caf_field(pop_halo *h, size_t n);
void pop_caf_field_free(pop_halo *h);    /* collective */
void pop_caf_halo(pop_halo *h);          /* the remote ghosts (self copies are the caller's) */
int pop_caf_sum_init(pop_gsum *s);       /* collective; 0, or -1 when another one is live */
void pop_caf_sum_free(pop_gsum *s);      /* collective */
double pop_caf_gsum(pop_gsum *s, double v);

#endif
