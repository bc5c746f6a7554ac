/* bisection.c - effective bisection bandwidth by netgauge's method (Hoefler, Schneider and
 * Lumsdaine, "Multistage switches are not crossbars", 2008): --matchings random perfect
 * matchings of the ranks (one rank a node), every pair of a matching exchanging --bytes (1 MiB)
 * in both directions at once.
 *
 * Matching m (0-based) is a Fisher-Yates shuffle of the ranks drawn with splitmix64 from
 * (--seed, m): the same on every rank and in every run; pairs (perm[2i], perm[2i+1]), the
 * first the initiator; of an odd rank count perm[P-1] sits the matching out. For each matching:
 *   - pair_bandwidth: every pair on its own communicator, all pairs at once, a simultaneous
 *     exchange (MPI_Sendrecv, mode swap of comm_p2p_point) sampled by the harness's batch
 *     sampler; bytes / time of one exchange (each direction's rate), one record a pair;
 *   - aggregate_bandwidth: every pair in lockstep over one communicator, a sample the slowest
 *     pair's exchange time; (paired ranks x bytes) / that time, one record a matching.
 * Data filled before and checked after every sample, outside the timed region (--inject
 * corrupt caught there). Rank 0 writes each matching's records as it ends.
 */
#include "lib/comm.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

static hpc_option options[] = {
    {.name = "bytes", .type = HPC_SIZE, .def = "1M", .min = 1, .max = INT_MAX - 1,
     .help = "message size each rank of a pair sends its partner"},
    /* netgauge's default is more; 8 bound the spread at the acceptance test's budget */
    {.name = "matchings", .type = HPC_INT, .def = "8", .min = 1, .max = 1 << 20,
     .help = "random perfect matchings measured, one after the other"},
    {.name = "seed", .type = HPC_INT, .def = "1", .min = 0, .max = 1 << 30,
     .help = "seed of the matchings (the same seed, the same matchings)"},
    COMM_PAGES_OPTION,
    {0}};

typedef struct {
    long long bytes;
    int matching, src, dst, pairs, seed;
} pair_pt;

static void pair_params(hpc_json *j, const void *ctx)
{
    const pair_pt *p = ctx;
    hpc_json_int(j, "bytes", p->bytes);
    hpc_json_int(j, "matching", p->matching);
    hpc_json_int(j, "seed", p->seed);
    if (p->src >= 0) {
        hpc_json_int(j, "src", p->src);
        hpc_json_int(j, "dst", p->dst);
    } else {
        hpc_json_int(j, "pairs", p->pairs);
    }
}

static long long nmatchings, seed;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Matching m: perm[] a shuffle of 0..P-1 drawn from (seed, m). */
static void matching(int m, int *perm)
{
    int P = hpc_nranks;
    uint64_t x = (uint64_t)seed * 0x100000001B3ull + (uint64_t)m;
    for (int i = 0; i < P; i++)
        perm[i] = i;
    for (int i = P - 1; i > 0; i--) {
        int j = (int)(splitmix64(&x) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
}

/* This rank's partner in perm (-1: it sits out), *init: it is its pair's first. */
static int partner_in(const int *perm, int *init)
{
    for (int i = 0; i + 1 < hpc_nranks; i += 2) {
        if (perm[i] == hpc_rank || perm[i + 1] == hpc_rank) {
            *init = perm[i] == hpc_rank;
            return *init ? perm[i + 1] : perm[i];
        }
    }
    return -1;
}

/* One point of a simultaneous exchange with peer over the ranks of `color` (split of the
 * world, ordered by key: the point is valid on the lowest); the ranks of colour MPI_UNDEFINED
 * pass by. */
static void exchange(int color, int key, int peer, int init, size_t bytes, comm_point *pt)
{
    comm_p2p_cfg cfg = {MODE_SWAP, PROTO_SENDRECV, 1, 0};
    comm_role me = {1, init, peer, peer};
    comm_split_points(color, key, &me, &cfg, bytes, 1, &bytes, pt);
}

static void measure_matching(int m, const int *perm, long long bytes)
{
    int init = 0, peer = partner_in(perm, &init), pairs = hpc_nranks / 2;
    comm_point mine = {0};
    /* every pair at once, each on its own communicator (colour: its initiator, which holds
     * the point) */
    exchange(peer < 0 ? MPI_UNDEFINED : (init ? hpc_rank : peer), !init, peer, init,
             (size_t)bytes, &mine);
    hpc_idle_barrier(MPI_COMM_WORLD);
    pair_pt p = {bytes, m, 0, 0, pairs, (int)seed};
    for (int i = 0; i + 1 < hpc_nranks; i += 2) {
        comm_point pt = mine;
        comm_point_to_root(perm[i], &pt);
        if (hpc_rank != 0)
            continue;
        p.src = perm[i], p.dst = perm[i + 1];
        comm_emit("pair_bandwidth", "MB/s", "higher", &pt, (double)bytes / 1e6, 1,
                  pair_params, &p);
        if (perm[i] != 0)
            free(pt.t);
    }
    if (peer >= 0)
        free(mine.t);
    /* every pair in lockstep over one communicator: a sample is the slowest pair's */
    comm_point all = {0};
    exchange(peer < 0 ? MPI_UNDEFINED : 0, hpc_rank, peer, init, (size_t)bytes, &all);
    int first = hpc_nranks;  /* the lowest paired rank holds it (of an odd P one sits out) */
    for (int i = 0; i < 2 * pairs; i++)
        first = perm[i] < first ? perm[i] : first;
    comm_point_to_root(first, &all);
    if (hpc_rank == 0) {
        p.src = -1;
        comm_emit("aggregate_bandwidth", "MB/s", "higher", &all, 2.0 * pairs * (double)bytes / 1e6,
                  1, pair_params, &p);
    }
    if (peer >= 0 || hpc_rank == 0)
        free(all.t);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "bisection",
             "Effective bisection bandwidth (netgauge): random perfect matchings of the ranks, "
             "every pair exchanging a large message at once.", options, MPI_THREAD_SINGLE);
    hpc_usage_check(hpc_nranks < 2, "bisection needs at least 2 MPI ranks (one a node), got %d",
                    hpc_nranks);
    nmatchings = hpc_opt_int("matchings");
    seed = hpc_opt_int("seed");
    long long bytes = hpc_opt_int("bytes");
    hpc_begin(1, NULL);
    int *perm = malloc(sizeof *perm * (size_t)hpc_nranks);
    if (!perm)
        abort();
    for (int m = 0; m < nmatchings; m++) {
        matching(m, perm);
        measure_matching(m, perm, bytes);
    }
    free(perm);
    hpc_finish();
    return 0;
}
