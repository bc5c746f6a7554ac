/* random2.c - the SP2 study's "random2" test: every even rank sends to a
 * randomly chosen odd rank, which answers at once (a ping-pong), all pairs
 * at the same time; the pairing is drawn afresh for every sample (rank 0
 * draws, all ranks use it). A sample is the slowest pair's time.
 *   latency   = half the slowest round trip [us]
 *   bandwidth = n / latency                 [MB/s]
 * Needs an even number of ranks. Data are checked after each sample.
 */
#include "harness.h"
#include "lib/comm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES, .def = "8,1K,64K,1M", .min = 0, .max = INT_MAX - 1,
     .help = "message sizes in bytes"},
    {.name = "seed", .type = HPC_INT, .def = "1", .min = 0, .max = INT_MAX,
     .help = "seed of the random pairings"},
    COMM_PAGES_OPTION,
    {0}};

/* partner[r] for every rank: evens get a random permutation of the odds. */
static void draw(int np, unsigned long long *state, int *partner)
{
    int h = np / 2;
    int *odd = malloc(sizeof(int) * (size_t)h);
    for (int i = 0; i < h; i++)
        odd[i] = 2 * i + 1;
    for (int i = h - 1; i > 0; i--) {  /* Fisher-Yates with a 64-bit LCG */
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        int j = (int)((*state >> 33) % (unsigned long long)(i + 1));
        int t = odd[i];
        odd[i] = odd[j], odd[j] = t;
    }
    for (int i = 0; i < h; i++)
        partner[2 * i] = odd[i], partner[odd[i]] = 2 * i;
    free(odd);
}

static void random2_params(hpc_json *r, const void *bytes)
{
    hpc_json_int(r, "bytes", *(const int *)bytes);
    hpc_json_int(r, "nranks", hpc_nranks);
}

static char *sbuf, *rbuf;      /* one message each, + 1 byte: a longer message shows */
static int *partner;          /* this sample's pairing */
static unsigned long long state;  /* of the pairings' generator (rank 0) */

/* One sample: new pairs, k round trips each, the data checked after. Returns the
 * slowest initiator's time (rank 0). */
static double sample(int n, long k, long idx)
{
    int np = hpc_nranks, me = hpc_rank;
    if (me == 0)
        draw(np, &state, partner);
    MPI_Bcast(partner, np, MPI_INT, 0, MPI_COMM_WORLD);
    int p = partner[me], init = me % 2 == 0;
    hpc_fill(sbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)me));
    memset(rbuf, 0, (size_t)n + 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = comm_round_trips(MPI_COMM_WORLD, p, init, MPI_Send, sbuf, rbuf, n, k,
                                MPI_STATUS_IGNORE), slow;
    if (!init)
        t = 0.0;  /* the initiators' clocks span the round trips */
    if (hpc_inject == HPC_INJECT_CORRUPT && n > 0)
        rbuf[n / 2] ^= 0x5a;
    long long bad = hpc_check(rbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)p));
    if (bad < 0 && rbuf[n] != 0)
        bad = n;
    if (bad >= 0)
        hpc_fail("data check failed: random2, %d-byte messages, sample %ld: rank %d received a "
                 "wrong byte from rank %d at offset %lld", n, idx, me, p, bad);
    MPI_Reduce(&t, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return slow;
}

/* n-byte messages: the records. */
static void measure(int n)
{
    long idx = 0;
    hpc_batch bt;
    hpc_batch_init(&bt, HPC_BATCH_MIN_S, 1L << 22, 2, MPI_COMM_WORLD);
    while (hpc_batch_add_coll(&bt, sample(n, bt.k, idx++)))
        ;
    hpc_point pt = {random2_params, &n, "ops_per_sample", comm_record_extra};
    hpc_batch_emit(&pt, "latency", "us", "lower", &bt, 1e6, 0, 0);
    if (n > 0)
        hpc_batch_emit(&pt, "bandwidth", "MB/s", "higher", &bt, 1e6, 1, n);
    hpc_batch_free(&bt);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "random2",
             "Random pairs: evens ping-pong with a random odd rank, all at once (SP2 random2).",
             options, MPI_THREAD_SINGLE);
    int np = hpc_nranks;
    hpc_usage_check(np < 2 || np % 2, "random2 needs an even number of ranks (>= 2), got %d", np);
    const long long *sizes;
    int nsizes;
    long long max = comm_opt_sizes(&sizes, &nsizes);
    hpc_begin(1, NULL);
    sbuf = comm_alloc((size_t)max + 1);
    rbuf = comm_alloc((size_t)max + 1);
    partner = malloc(sizeof(int) * (size_t)np);
    if (!partner)
        abort();
    state = (unsigned long long)hpc_opt_int("seed") * 2654435761ULL + 1;
    hpc_inject_first_point();
    for (int si = 0; si < nsizes; si++)
        measure((int)sizes[si]);
    free(sbuf);
    free(rbuf);
    free(partner);
    hpc_finish();
    return 0;
}
