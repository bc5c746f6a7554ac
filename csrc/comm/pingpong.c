/* pingpong.c - MPI_Send/MPI_Recv ping-pong between ranks 0 and 1.
 *
 * Method (as osu_latency): rank 0 sends n bytes, rank 1 receives them and
 * sends n bytes back; a round trip is two one-way messages. One sample is a
 * batch of k round trips timed as a whole, with k chosen per size so that a
 * batch lasts well above the timer's resolution.
 *   latency   = batch time / (2 k)            [us]
 *   bandwidth = n / latency                   [MB/s, 1e6 bytes/s]
 * Both results come from the same samples. Ranks other than 0 and 1 only
 * wait.
 *
 * Verification, outside the timed region: before each batch each rank
 * clears its receive buffer and fills its send buffer with a pattern seeded
 * by (size, sample, rank); after the batch both ranks check what they
 * received and the size of the last message.
 */
#include "harness.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES,
     .def = "0,1,2,3,4,7,8,16,32,64,128,256,512,1000,1024,2048,4096,8192,16384,"
            "32768,65536,65537,131072,262144,524288,1000000,1048576,2097152,4194304",
     .min = 0, .max = INT_MAX, .help = "message sizes in bytes"},
    {0}};

enum { TAG = 1 };
static const long MAX_BATCH = 1L << 24;  /* round trips per batch, at most */

static char *sbuf, *rbuf;  /* allocated once, page-aligned, touched */

/* Page-aligned, and every page touched so no page fault happens while timing. */
static char *alloc_touched(size_t bytes)
{
    void *p;
    if (posix_memalign(&p, 4096, bytes))
        hpc_fail("cannot allocate %zu bytes", bytes);
    memset(p, 1, bytes);
    return p;
}

/* k round trips of n bytes; returns the time rank 0 measured. Nothing but
 * the Send/Recv pair is inside the loop. */
static double batch(MPI_Comm pair, int rank, int n, long k, MPI_Status *st)
{
    double t0 = 0.0, t1 = 0.0;
    if (rank == 0) {
        t0 = hpc_now();
        for (long i = 0; i < k; i++) {
            MPI_Send(sbuf, n, MPI_BYTE, 1, TAG, pair);
            MPI_Recv(rbuf, n, MPI_BYTE, 1, TAG, pair, st);
        }
        t1 = hpc_now();
    } else {
        for (long i = 0; i < k; i++) {
            MPI_Recv(rbuf, n, MPI_BYTE, 0, TAG, pair, st);
            MPI_Send(sbuf, n, MPI_BYTE, 0, TAG, pair);
        }
    }
    return t1 - t0;
}

/* One sample: prepare buffers, time a batch, check the data. Collective
 * over pair. idx numbers the samples of this size (warm-up included). */
static double sample(MPI_Comm pair, int rank, int n, long k, long idx)
{
    memset(rbuf, 0, (size_t)n);
    hpc_fill(sbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)rank));

    /* An untimed empty round trip: rank 1 has finished preparing and waits
     * in its receive when rank 0 starts the clock, as inside osu_latency's
     * loop. */
    int peer = 1 - rank;
    if (rank == 0) {
        MPI_Send(NULL, 0, MPI_BYTE, peer, TAG, pair);
        MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG, pair, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG, pair, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, peer, TAG, pair);
    }

    MPI_Status st;
    double t = batch(pair, rank, n, k, &st);

    if (hpc_inject == HPC_INJECT_CORRUPT && rank == 1 && n > 0)
        rbuf[n / 2] ^= 0x5a;

    /* bad: -1 ok, -2 wrong message size, else offset of the first wrong byte */
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    long long bad = count != n ? -2
                               : hpc_check(rbuf, (size_t)n,
                                           hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)peer));
    long long bads[2];
    MPI_Gather(&bad, 1, MPI_LONG_LONG, bads, 1, MPI_LONG_LONG, 0, pair);
    for (int r = 0; rank == 0 && r < 2; r++) {
        if (bads[r] == -2)
            hpc_fail("data check failed: %d-byte messages, sample %ld: rank %d "
                     "received a message of the wrong size", n, idx, r);
        if (bads[r] >= 0)
            hpc_fail("data check failed: %d-byte messages, sample %ld: rank %d "
                     "received a wrong byte at offset %lld", n, idx, r, bads[r]);
    }
    return t;
}

static void measure_size(MPI_Comm pair, int rank, int n)
{
    /* Choose k: double it until a batch lasts >= 50 us and >= 1000 timer
     * ticks (rank 0 decides). These batches also warm up this size. */
    double target = 1000.0 * hpc_timer.resolution_ns * 1e-9;
    if (target < 50e-6)
        target = 50e-6;
    long k = 1, idx = 0;
    for (;;) {
        double t = sample(pair, rank, n, k, idx++);
        int done = t >= target || k >= MAX_BATCH;
        MPI_Bcast(&done, 1, MPI_INT, 0, pair);
        if (done)
            break;
        k *= 2;
    }

    hpc_sampler s;
    hpc_sampler_init(&s, &hpc_reps);
    while (hpc_sampler_more_coll(&s, pair))
        hpc_sampler_add(&s, sample(pair, rank, n, k, idx++));

    if (rank == 0) {
        double *v = malloc((size_t)s.n * sizeof *v);
        if (!v)
            abort();
        hpc_stats st;
        hpc_json r;

        for (int i = 0; i < s.n; i++)
            v[i] = s.samples[i] / (2.0 * (double)k) * 1e6;  /* one-way, us */
        hpc_stats_compute(v, s.n, &st);
        hpc_result_begin(&r, "latency", "us", "median", "lower");
        hpc_json_int(&r, "bytes", n);
        hpc_json_str(&r, "ranks", "0-1");
        hpc_result_stats(&r, &st, s.converged);
        hpc_json_int(&r, "round_trips_per_sample", k);
        hpc_json_emit(&r);

        if (n > 0) {
            for (int i = 0; i < s.n; i++)
                v[i] = (double)n / v[i];  /* bytes per us = MB/s */
            hpc_stats_compute(v, s.n, &st);
            hpc_result_begin(&r, "bandwidth", "MB/s", "median", "higher");
            hpc_json_int(&r, "bytes", n);
            hpc_json_str(&r, "ranks", "0-1");
            hpc_result_stats(&r, &st, s.converged);
            hpc_json_int(&r, "round_trips_per_sample", k);
            hpc_json_emit(&r);
        }
        free(v);
    }
    hpc_sampler_free(&s);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "pingpong",
             "MPI_Send/MPI_Recv ping-pong latency and bandwidth between ranks 0 and 1.",
             options, MPI_THREAD_SINGLE);
    if (hpc_nranks < 2)
        hpc_usage_error("pingpong needs at least 2 MPI ranks, got %d", hpc_nranks);

    const long long *sizes;
    int nsizes = hpc_opt_list("sizes", &sizes);
    long long max = 1;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] > max)
            max = sizes[i];

    hpc_begin(1, NULL);

    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, hpc_rank < 2 ? 0 : MPI_UNDEFINED, hpc_rank, &pair);
    hpc_inject_first_point();

    if (hpc_rank < 2) {
        sbuf = alloc_touched((size_t)max);
        rbuf = alloc_touched((size_t)max);
        for (int i = 0; i < nsizes; i++)
            measure_size(pair, hpc_rank, (int)sizes[i]);
        free(sbuf);
        free(rbuf);
        MPI_Comm_free(&pair);
    }

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
