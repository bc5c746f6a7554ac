/* mc_rng.c - Philox4x32-10 and the per-history streams (mc_rng.h). */
#include "mc_rng.h"

enum { ROUNDS = 10 };
static const uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
static const uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;

void mc_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < ROUNDS; r++) {
        if (r > 0) {  /* the key schedule: a Weyl sequence, bumped before rounds 2..10 */
            k0 += W0;
            k1 += W1;
        }
        uint64_t p0 = (uint64_t)M0 * c0, p1 = (uint64_t)M1 * c2;
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

int mc_philox_selftest(void)
{
    /* counter[4], key[2] -> output[4], from Random123's kat_vectors */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
         0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
         0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}};
    int bad = 0;
    for (int k = 0; k < 3; k++) {
        uint32_t out[4];
        mc_philox4x32_10(kat[k], kat[k] + 4, out);
        for (int i = 0; i < 4; i++)
            bad |= out[i] != kat[k][6 + i];
    }
    return bad;
}

void mc_stream_init(mc_stream *s, uint64_t seed, uint64_t index)
{
    s->key[0] = (uint32_t)seed;
    s->key[1] = (uint32_t)(seed >> 32);
    s->index = index;
    s->block = 0;
    s->left = 0;
}

/* The top 53 bits of a 64-bit word, centred in their interval: (k + 1/2) 2^-53. */
static double open_unit(uint64_t x)
{
    return ((double)(x >> 11) + 0.5) * 0x1p-53;
}

double mc_uniform(mc_stream *s)
{
    if (s->left == 0) {
        uint32_t ctr[4] = {(uint32_t)s->block, (uint32_t)(s->block >> 32), (uint32_t)s->index,
                           (uint32_t)(s->index >> 32)};
        s->block++;
        uint32_t out[4];
        mc_philox4x32_10(ctr, s->key, out);
        s->buf[0] = open_unit((uint64_t)out[0] << 32 | out[1]);
        s->buf[1] = open_unit((uint64_t)out[2] << 32 | out[3]);
        s->left = 2;
    }
    return s->buf[2 - s->left--];
}
