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
 * After the listed sizes, up to --refine more are measured where the curve
 * jumps (a protocol switch), bisecting until the switch is bracketed to
 * --resolution bytes (lib/refine.h).
 *
 * Verification, outside the timed region: before each batch each rank
 * clears its receive buffer and fills its send buffer with a pattern seeded
 * by (size, sample, rank); after the batch both ranks check what they
 * received and the size of the last message.
 *
 * The first transfer of freshly written buffers is slower than the steady
 * state (the peer reads lines still dirty in the writer's cache; 1.3x at
 * 4 MiB here), and a large message's batch is one round trip. So after the
 * buffers are prepared, one untimed round trip of the same size moves them
 * into the state of a sender that sends the same buffer again (what
 * osu_latency -c does with its warm-up transfers), and the receive buffers
 * are cleared again so that the check still proves the timed batch.
 *
 * --method osu measures as osu_latency (OSU 7.4) does, to set hpceval beside
 * OSU's figures: the buffers are filled once per size, --warmup round trips
 * run untimed, then --max-reps round trips are each timed on their own, back
 * to back, with nothing between them (no preparation, no collective), and
 * the message of the last one is checked; each timed with MPI_Wtime, as
 * OSU does. osu_latency prints the mean of
 * those times: the records' stats.mean is that figure (their median stays the
 * statistic, as for every record).
 */
#include "disturb.h"
#include "harness.h"
#include "lib/comm.h"
#include "lib/refine.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES,
     .def = "0,1,2,3,4,7,8,16,32,64,128,256,512,1000,1024,2048,4096,8192,16384,"
            "32768,65536,65537,131072,262144,524288,1000000,1048576,2097152,4194304",
     .min = 0, .max = INT_MAX, .help = "message sizes in bytes"},
    COMM_REFINE_OPTIONS,
    COMM_PAGES_OPTION,
    {.name = "method", .type = HPC_CHOICE, .def = "batch", .choices = "batch|osu",
     .help = "batch: calibrated batches, buffers prepared per sample; osu: as osu_latency (each "
             "of --max-reps round trips timed alone, buffers filled once)"},
    {0}};

static const long MAX_BATCH = 1L << 24;  /* round trips per batch, at most */

static char *sbuf, *rbuf;  /* allocated once, page-aligned, touched */

/* k round trips of n bytes (the comm library's loop); rank 0's time is the one kept. */
static double batch(MPI_Comm pair, int rank, int n, long k, MPI_Status *st)
{
    return comm_round_trips(pair, 1 - rank, rank == 0, MPI_Send, sbuf, rbuf, n, k, st);
}

static int osu_method;  /* --method osu */

/* Rank 0's verdict on rank r's check (bad: -1 ok, -2 wrong message size,
 * else offset of the first wrong byte). */
static void judge(const long long bads[2], int n, long idx)
{
    for (int r = 0; r < 2; r++) {
        if (bads[r] == -2)
            hpc_fail("data check failed: %d-byte messages, sample %ld: rank %d "
                     "received a message of the wrong size", n, idx, r);
        if (bads[r] >= 0)
            hpc_fail("data check failed: %d-byte messages, sample %ld: rank %d "
                     "received a wrong byte at offset %lld", n, idx, r, bads[r]);
    }
}

/* Both ranks check what they received (pattern of sample idx from the
 * peer, message of n bytes); rank 0 judges. Collective over pair. */
static void check_received(MPI_Comm pair, int rank, int n, long idx, const MPI_Status *st)
{
    if (hpc_inject == HPC_INJECT_CORRUPT && rank == 1 && n > 0)
        rbuf[n / 2] ^= 0x5a;
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    long long bad = count != n ? -2
                               : hpc_check(rbuf, (size_t)n,
                                           hpc_seed((uint64_t)n, (uint64_t)idx,
                                                    (uint64_t)(1 - rank)));
    long long bads[2];
    MPI_Gather(&bad, 1, MPI_LONG_LONG, bads, 1, MPI_LONG_LONG, 0, pair);
    if (rank == 0)
        judge(bads, n, idx);
}

/* One sample: prepare buffers, time a batch, check the data. Collective
 * over pair. idx numbers the samples of this size (warm-up included). */
static double sample(MPI_Comm pair, int rank, int n, long k, long idx)
{
    hpc_fill(sbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)rank));
    MPI_Status st;
    batch(pair, rank, n, 1, &st);  /* untimed: the buffers' steady state */
    memset(rbuf, 0, (size_t)n);

    /* An untimed empty round trip: rank 1 has finished preparing and waits
     * in its receive when rank 0 starts the clock, as inside osu_latency's
     * loop. */
    batch(pair, rank, 0, 1, &st);

    double t = batch(pair, rank, n, k, &st);
    check_received(pair, rank, n, idx, &st);
    return t;
}

static void pingpong_params(hpc_json *r, const void *bytes)
{
    hpc_json_int(r, "bytes", *(const int *)bytes);
    hpc_json_str(r, "ranks", "0-1");
}

static void pingpong_extra(hpc_json *r)
{
    comm_record_extra(r);
    hpc_json_str(r, "method", osu_method ? "osu" : "batch");
}

/* --method osu: osu_latency's loop (see the top). Returns the kept
 * one-way times (seconds) in *samples (rank 0's count), their number. */
static int osu_loop(MPI_Comm pair, int rank, int n, double **samples)
{
    int warm = hpc_reps.warmup, reps = hpc_reps.max_reps;
    double *v = malloc(sizeof *v * (size_t)reps);
    if (!v)
        abort();
    hpc_fill(sbuf, (size_t)n, hpc_seed((uint64_t)n, 0, (uint64_t)rank));
    memset(rbuf, 0, (size_t)n);
    MPI_Status st;
    hpc_disturb_start();  /* no sampler here: this point's window opens by hand */
    MPI_Barrier(pair);
    /* MPI_Wtime, not the harness's timer: its cost is inside each timed round trip, part of
     * OSU's method (MPICH's is cheaper than clock_gettime: 8 B came out 11% above OSU). */
    for (int i = 0; i < warm + reps; i++) {
        if (rank == 0) {  /* rank 1 times nothing: its turnaround is on the round trip */
            double t0 = MPI_Wtime();
            MPI_Send(sbuf, n, MPI_BYTE, 1, 1, pair);
            MPI_Recv(rbuf, n, MPI_BYTE, 1, 1, pair, &st);
            if (i >= warm)
                v[i - warm] = (MPI_Wtime() - t0) / 2;
        } else {
            MPI_Recv(rbuf, n, MPI_BYTE, 0, 1, pair, &st);
            MPI_Send(sbuf, n, MPI_BYTE, 0, 1, pair);
            if (i >= warm)
                v[i - warm] = 1.0;  /* a placeholder: only rank 0's times are kept */
        }
    }
    check_received(pair, rank, n, 0, &st);
    hpc_disturb_gather(pair);
    *samples = v;
    return reps;
}

/* Measures one size and writes its records (unless record is 0: a
 * refinement's check); on rank 0, *out gets the median one-way time
 * (seconds) and its CI. */
static void measure_size_osu(MPI_Comm pair, int rank, int n, int record, comm_sized *out)
{
    double *v;
    int reps = osu_loop(pair, rank, n, &v);
    hpc_point pt = {pingpong_params, &n, "round_trips_per_sample", pingpong_extra};
    hpc_stats st;
    hpc_stats_compute(v, reps, &st);
    for (int i = 0; i < reps; i++)
        v[i] *= 1e6;
    if (record && rank == 0)
        hpc_emit_values(&pt, "latency", "us", "lower", v, reps, 1, 1);
    for (int i = 0; i < reps; i++)
        v[i] = n / v[i];  /* MB/s: bytes per microsecond */
    if (record && rank == 0 && n > 0)
        hpc_emit_values(&pt, "bandwidth", "MB/s", "higher", v, reps, 1, 1);
    *out = (comm_sized){n, st.median, st.ci_low, st.ci_high};
    free(v);
}

static void measure_size(MPI_Comm pair, int rank, int n, int record, comm_sized *out)
{
    if (osu_method) {
        measure_size_osu(pair, rank, n, record, out);
        return;
    }
    /* Choose k so that a batch lasts >= 50 us and >= 1000 timer ticks
     * (rank 0 decides, batch.h). These batches also warm up this size. Kept
     * samples are one-way times: a round trip is two operations. */
    hpc_batch bt;
    hpc_batch_init(&bt, hpc_batch_tick_target(), MAX_BATCH, 2, pair);
    long idx = 0;
    while (hpc_batch_add_coll(&bt, sample(pair, rank, n, bt.k, idx++)))
        ;
    hpc_point pt = {pingpong_params, &n, "round_trips_per_sample", pingpong_extra};
    if (record)
        hpc_batch_emit(&pt, "latency", "us", "lower", &bt, 1e6, 0, 0);
    if (record && n > 0)
        hpc_batch_emit(&pt, "bandwidth", "MB/s", "higher", &bt, 1e6, 1, n);
    if (rank == 0) {
        hpc_stats st;
        hpc_stats_compute(bt.s.samples, bt.s.n, &st);
        *out = (comm_sized){n, st.median, st.ci_low, st.ci_high};
    }
    hpc_batch_free(&bt);
}

static void measure_cb(long long n, int record, void *pair, comm_sized *out)
{
    int rank;
    MPI_Comm_rank(*(MPI_Comm *)pair, &rank);
    measure_size(*(MPI_Comm *)pair, rank, (int)n, record, out);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "pingpong",
             "MPI_Send/MPI_Recv ping-pong latency and bandwidth between ranks 0 and 1.",
             options, MPI_THREAD_SINGLE);
    if (hpc_nranks < 2)
        hpc_usage_error("pingpong needs at least 2 MPI ranks, got %d", hpc_nranks);

    const long long *sizes;
    int nsizes;
    long long max = comm_opt_sizes(&sizes, &nsizes);
    osu_method = strcmp(hpc_opt_str("method"), "osu") == 0;

    hpc_begin(1, NULL);

    comm_pair_sweep(sizes, nsizes, max, 0, measure_cb, &sbuf, &rbuf);
    hpc_finish();
    return 0;
}
