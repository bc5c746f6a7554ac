/* eager.c - where the MPI library stops sending eagerly: the time a late
 * receive takes, per message size (the SP2 study's eager limit).
 *
 * Method: one sample is one message. Rank 0 tells rank 1 to send ("go", a
 * zero-byte message), then stays away from MPI for --late microseconds (a
 * spin outside MPI) while rank 1 calls MPI_Send with n bytes; then rank 0
 * posts the receive and times it until rank 1's zero-byte "done", sent when
 * its MPI_Send returned, has arrived:
 *   late_receive = time from posting the receive to the "done"   [us]
 * An eager message (or, for a library that buffers, the whole send) is over
 * before the receive is posted: what is left is copying it out and, on
 * Open MPI's shared memory, handing the fragment back. A rendezvous message
 * only starts when the receive is posted: handshake, transfer, the sender's
 * completion. The sender's copy and the transfer of an eager message are
 * hidden in the wait, so the curve steps where the protocol changes, far
 * more than a ping-pong's does (Open MPI's shared memory here, eager limit
 * raised to 16 KiB: 0.8 -> 3.3 us at the switch, where a ping-pong's latency
 * steps 2.3 -> 2.5 us, within its noise).
 *
 * After the listed sizes, up to --refine more are measured where the curve
 * jumps, bisecting until the switch is bracketed to --resolution bytes
 * (lib/refine.h), as pingpong does; the steps by a factor first, smallest
 * size first, since here the protocol change is a factor and a copy's own
 * steps are 5-15%.
 *
 * Verification, outside the timed region: rank 1 fills its send buffer with
 * a pattern seeded by (size, sample) before each "go", rank 0 clears its
 * receive buffer before it and checks the message's size and bytes after the
 * "done". Ranks other than 0 and 1 only wait.
 */
#include "harness.h"
#include "lib/comm.h"
#include "lib/refine.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES,
     .def = "256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144",
     .min = 0, .max = INT_MAX, .help = "message sizes in bytes"},
    {.name = "late", .type = HPC_DOUBLE, .def = "20", .min = 1, .max = 1e6,
     .help = "microseconds the receive is posted after the send is started"},
    COMM_REFINE_OPTIONS,
    COMM_PAGES_OPTION,
    {0}};

enum { TAG_GO = 1, TAG_DATA, TAG_DONE };

static char *sbuf, *rbuf;  /* allocated once, page-aligned, touched */
static double late_s;      /* --late, seconds */

/* One late receive of n bytes, sample idx; rank 0 returns its time. */
static double late_receive(MPI_Comm pair, int rank, int n, long idx)
{
    MPI_Status st;
    if (rank == 1) {
        hpc_fill(sbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, 1));
        MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, pair, &st);
        MPI_Send(sbuf, n, MPI_BYTE, 0, TAG_DATA, pair);
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_DONE, pair);
        return 0.0;
    }
    memset(rbuf, 0, (size_t)n);
    MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, pair);
    comm_busy(late_s);
    double t0 = hpc_now();
    MPI_Recv(rbuf, n, MPI_BYTE, 1, TAG_DATA, pair, &st);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_DONE, pair, MPI_STATUS_IGNORE);
    double t = hpc_now() - t0;

    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count != n)
        hpc_fail("data check failed: %d-byte messages, sample %ld: a message of %d bytes "
                 "arrived", n, idx, count);
    if (hpc_inject == HPC_INJECT_CORRUPT && n > 0)
        rbuf[n / 2] ^= 0x5a;
    long long bad = hpc_check(rbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, 1));
    if (bad >= 0)
        hpc_fail("data check failed: %d-byte messages, sample %ld: a wrong byte at offset %lld",
                 n, idx, bad);
    return t;
}

static void eager_params(hpc_json *r, const void *bytes)
{
    hpc_json_int(r, "bytes", *(const int *)bytes);
    hpc_json_str(r, "ranks", "0-1");
    hpc_json_exact(r, "late_us", hpc_opt_double("late"));
}

/* Measures one size and writes its record (unless record is 0: a
 * refinement's check); on rank 0, *out gets the median and its CI. */
static void measure_size(MPI_Comm pair, int rank, int n, int record, comm_sized *out)
{
    hpc_sampler s;
    hpc_sampler_init(&s, &hpc_reps);
    long idx = 0;
    while (hpc_sampler_more_coll(&s, pair))
        hpc_sampler_add(&s, late_receive(pair, rank, n, idx++));
    if (rank == 0) {
        hpc_stats st;
        hpc_stats_compute(s.samples, s.n, &st);
        *out = (comm_sized){n, st.median, st.ci_low, st.ci_high};
        for (int i = 0; i < s.n; i++)
            s.samples[i] *= 1e6;
        hpc_point pt = {eager_params, &n, "messages_per_sample", comm_record_extra};
        if (record)
            hpc_emit_values(&pt, "late_receive", "us", "lower", s.samples, s.n, s.converged, 1);
    }
    hpc_sampler_free(&s);
}

static void measure_cb(long long n, int record, void *pair, comm_sized *out)
{
    int rank;
    MPI_Comm_rank(*(MPI_Comm *)pair, &rank);
    measure_size(*(MPI_Comm *)pair, rank, (int)n, record, out);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "eager",
             "Late-receive time per message size between ranks 0 and 1: where the MPI "
             "library's eager protocol ends.",
             options, MPI_THREAD_SINGLE);
    if (hpc_nranks < 2)
        hpc_usage_error("eager needs at least 2 MPI ranks, got %d", hpc_nranks);

    const long long *sizes;
    int nsizes;
    long long max = comm_opt_sizes(&sizes, &nsizes);
    late_s = hpc_opt_double("late") * 1e-6;

    hpc_begin(1, NULL);

    comm_pair_sweep(sizes, nsizes, max, 1, measure_cb, &sbuf, &rbuf);
    hpc_finish();
    return 0;
}
