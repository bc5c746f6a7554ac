/* mc_rng.h - the counter-based random streams of the montecarlo proxy.
 *
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
 * easy as 1, 2, 3", SC11), written here from the paper's description: a
 * keyed bijection of a 128-bit counter, 10 rounds of two 32x32->64-bit
 * multiplications (M0 = 0xD2511F53, M1 = 0xCD9E8D57) with the key bumped by
 * the Weyl constants (0x9E3779B9, 0xBB67AE85) between rounds.
 *
 * A history's stream is a function of (seed, global history index) only:
 * key = seed, counter = (draw block lo, hi, index lo, hi). So a history
 * draws the same numbers on any rank, in any chunk, in any order; which is
 * what makes the tallies independent of the number of workers.
 */
#ifndef MC_RNG_H
#define MC_RNG_H

#include <stdint.h>

/* One Philox4x32-10 block: out = philox(ctr, key). */
void mc_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* The published known answers (Random123's kat_vectors); 0 if all match. */
int mc_philox_selftest(void);

typedef struct {
    uint32_t key[2];
    uint64_t index;   /* global history index */
    uint64_t block;   /* next counter block of this history */
    int left;         /* unused doubles in buf */
    double buf[2];
} mc_stream;

/* The stream of history number index. */
void mc_stream_init(mc_stream *s, uint64_t seed, uint64_t index);

/* Uniform on the open interval (0, 1): 53 random bits, never 0 or 1 (log and
 * 2u-1 stay finite and nonzero). */
double mc_uniform(mc_stream *s);

#endif
