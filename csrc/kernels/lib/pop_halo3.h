/* pop_halo3.h - halo updates of a stack of 2-D levels (the 3-D fields of the POP-like whole
 * time step, kernels/pop_step.c): nl levels of the block shape (bx+2)(by+2), one after the
 * other (stride n2), width 1 with corners, periodic in x, closed in y, as pop_halo does for
 * one field (pop_comm.h). Two variants, both packing into contiguous buffers:
 *   levels     one exchange per level, each waited for before the next: POP 1.4.3's loop
 *              over 2-D halo updates (8 messages per level and neighbour direction)
 *   aggregate  every level in one message per direction: the Earth Simulator version's
 *              single routine that combined the updates into fewer, larger messages
 *              (the X1 study, section 7)
 * A neighbour that is the rank itself (P == 1: east and west) is a local copy.
 */
#ifndef POP_HALO3_H
#define POP_HALO3_H

#include "pop_comm.h"

enum { POP_H3_LEVELS, POP_H3_AGGREGATE };

typedef struct {
    int variant, nl, ld, rank;
    size_t n2;                 /* points of one level */
    int nbr[8];
    int send0[8], recv0[8], ni[8], nj[8], cnt[8];  /* per level: regions (pop_region) */
    double *sbuf[8], *rbuf[8]; /* cnt nl each */
    hpc_phases *ph;
    int ph_comm, ph_copy;      /* phase ids of the exchange and of the packing */
} pop_halo3;

/* Returns 0, or -1 out of memory. Local (no collective). */
int pop_halo3_init(pop_halo3 *h, const pop_decomp *d, int nl, int variant, hpc_phases *ph,
                   int ph_comm, int ph_copy);
/* Fill the ghosts of the nl levels at x; switches the phases as it goes. */
void pop_halo3_update(pop_halo3 *h, double *x);
void pop_halo3_free(pop_halo3 *h);

#endif
