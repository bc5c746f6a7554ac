/* chase.h - pointer chasing: the dependent-load loop of mem-latency and mem-contention.
 *
 * A working set of m elements 'stride' bytes apart; each element holds a
 * pointer to the next element of a single cycle through all of them, random
 * (Sattolo), random inside windows visited in random order (TLB-friendly,
 * as multichase), or linear (i -> i+1). chase_run follows 16 x iters
 * pointers. */
#ifndef HPC_CHASE_H
#define HPC_CHASE_H

#include <stddef.h>
#include <stdint.h>

void chase_build_cycle(char *buf, size_t m, size_t stride, uint64_t seed);
void chase_build_line(char *buf, size_t m, size_t stride);
/* Windows of w elements in random order, random inside each; -1: no memory. */
int chase_build_windows(char *buf, size_t m, size_t stride, size_t w, uint64_t seed);
/* Walk m steps from element 0: NULL if every element is visited once and the
 * walk returns to element 0, else what went wrong (step in *where). */
const char *chase_verify(char *buf, size_t m, size_t stride, size_t *where);
void *chase_run(void *p, long iters);
/* The element reached from element 0 after 'steps' loads. */
void *chase_walk(char *buf, uint64_t steps, size_t m);

#endif
