/* chase.c - building, checking and chasing pointer cycles (see chase.h). */
#include "chase.h"

#include "check.h"

#include <stdlib.h>

/* splitmix64 as a random number generator (rand() is too short and slow). */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t x = (*state += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

#define ELEM(i) ((void **)(buf + (size_t)(i) * stride))

/* Sattolo's algorithm on the pointers themselves: start from the identity
 * (element i points to itself), then for i = m-1 .. 1 swap the pointers of
 * element i and a random element j < i. The result, read as "element i
 * points to element next(i)", is a uniformly random cycle through all m
 * elements. (j % i has a bias below i / 2^64: negligible.) */
void chase_build_cycle(char *buf, size_t m, size_t stride, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < m; i++)
        *ELEM(i) = ELEM(i);
    for (size_t i = m - 1; i > 0; i--) {
        size_t j = (size_t)(rng_next(&state) % i);
        void *t = *ELEM(i);
        *ELEM(i) = *ELEM(j);
        *ELEM(j) = t;
    }
}

/* Fisher-Yates shuffle of idx[0..n-1]. */
static void shuffle(size_t *idx, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(rng_next(state) % i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

/* TLB-friendly order (multichase's "TLB locality"): the working set is cut
 * into windows of w elements; the cycle visits the windows in a random order
 * and, inside each, every element in a random order, so loads miss the
 * caches but a TLB entry serves a whole window. Returns 0, or -1 when the
 * order cannot be allocated. */
int chase_build_windows(char *buf, size_t m, size_t stride, size_t w, uint64_t seed)
{
    uint64_t state = seed;
    size_t nw = (m + w - 1) / w;
    size_t *order = malloc(m * sizeof *order), *wins = malloc(nw * sizeof *wins);
    if (!order || !wins) {
        free(order);
        free(wins);
        return -1;
    }
    for (size_t k = 0; k < nw; k++)
        wins[k] = k;
    shuffle(wins, nw, &state);
    size_t pos = 0;
    for (size_t k = 0; k < nw; k++) {
        size_t first = wins[k] * w, len = first + w <= m ? w : m - first;
        for (size_t e = 0; e < len; e++)
            order[pos + e] = first + e;
        shuffle(order + pos, len, &state);
        pos += len;
    }
    for (size_t k = 0; k < m; k++)
        *ELEM(order[k]) = ELEM(order[(k + 1) % m]);
    free(order);
    free(wins);
    return 0;
}

/* Linear order: element i points to element i+1, the last one to element 0. */
void chase_build_line(char *buf, size_t m, size_t stride)
{
    for (size_t i = 0; i < m; i++)
        *ELEM(i) = ELEM((i + 1) % m);
}

/* Walk m steps from element 0: each step must land on an element of the
 * working set not seen before, and the m-th step must return to element 0.
 * Returns NULL if so, else what went wrong. */
const char *chase_verify(char *buf, size_t m, size_t stride, size_t *where)
{
    unsigned char *seen = calloc(m / 8 + 1, 1);
    if (!seen)
        hpc_fail("cannot allocate %zu bytes", m / 8 + 1);
    const char *why = NULL;
    uintptr_t base = (uintptr_t)buf, p = base;
    for (size_t step = 0; step < m && !why; step++) {
        size_t off = p - base, i = off / stride;
        *where = step;
        if (p < base || off >= m * stride || off % stride != 0)
            why = "points outside the working set";
        else if (seen[i / 8] & (1u << (i % 8)))
            why = "visits an element twice";
        else {
            seen[i / 8] |= (unsigned char)(1u << (i % 8));
            p = (uintptr_t)*(void **)p;
        }
    }
    if (!why && p != base) {
        *where = m;
        why = "does not return to its start";
    }
    free(seen);
    return why;
}

/* The timed loop: iters x 16 dependent loads, unrolled so the loop's own
 * branch costs little next to a load. noinline keeps it one unit of code
 * whatever the caller looks like. */
#define LOAD1 p = *(void **)p;
#define LOAD4 LOAD1 LOAD1 LOAD1 LOAD1
#define LOAD16 LOAD4 LOAD4 LOAD4 LOAD4
__attribute__((noinline)) void *chase_run(void *p, long iters)
{
    for (long i = 0; i < iters; i++) {
        LOAD16
    }
    return p;
}

void *chase_walk(char *buf, uint64_t steps, size_t m)
{
    void *q = buf;
    for (uint64_t i = 0; i < steps % m; i++)
        q = *(void **)q;
    return q;
}
