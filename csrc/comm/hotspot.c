/* hotspot.c - k senders to one receiver (rank 0), k = 1..n-1.
 *
 * One operation: each of ranks 1..k sends a window of W messages of n bytes
 * to rank 0, which has posted k*W receives (one buffer per sender) and then
 * acknowledges each sender with an empty message. Rank 0 times it.
 *   bandwidth = k W n / time   aggregate at the receiver [MB/s]
 * so a perfect network holds it flat in k and a single receiver's limit
 * shows as the curve's plateau. Data from every sender are checked after
 * each sample, outside the timed region.
 */
#include "harness.h"
#include "lib/comm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES, .def = "1K,64K,1M", .min = 1, .max = INT_MAX,
     .help = "message sizes in bytes"},
    {.name = "window", .type = HPC_INT, .def = "16", .min = 1, .max = 1024,
     .help = "messages in flight per sender"},
    COMM_PAGES_OPTION,
    {0}};

enum { TAG = 3, ACK = 4 };

/* ctx: senders, bytes, window. */
static void hotspot_params(hpc_json *r, const void *ctx)
{
    const int *p = ctx;
    hpc_json_int(r, "senders", p[0]);
    hpc_json_int(r, "bytes", p[1]);
    hpc_json_int(r, "window", p[2]);
}

/* Rank 0: one receive buffer per sender (all W messages of a sender land in it, as
 * osu_bw's window does); senders: one send buffer. */
static char *buf;
static MPI_Request *req;
static int w;  /* window */

/* nb windows from k senders, each acknowledged (rank 0). */
static void receive_windows(MPI_Comm act, int k, int n, long nb)
{
    for (long b = 0; b < nb; b++) {
        for (int r = 1; r <= k; r++)
            for (int m = 0; m < w; m++)
                MPI_Irecv(buf + (size_t)(r - 1) * n, n, MPI_BYTE, r, TAG, act,
                          &req[(r - 1) * w + m]);
        hpc_wait_all(k * w, req);
        for (int r = 1; r <= k; r++)
            MPI_Send(NULL, 0, MPI_BYTE, r, ACK, act);
    }
}

/* nb windows to rank 0, each waiting for its acknowledgement (senders). */
static void send_windows(MPI_Comm act, int n, long nb)
{
    for (long b = 0; b < nb; b++) {
        for (int m = 0; m < w; m++)
            MPI_Isend(buf, n, MPI_BYTE, 0, TAG, act, &req[m]);
        hpc_wait_all(w, req);
        MPI_Recv(NULL, 0, MPI_BYTE, 0, ACK, act, MPI_STATUS_IGNORE);
    }
}

/* Rank 0, after a sample: every sender's data. */
static void check_received(int k, int n, long idx)
{
    if (hpc_inject == HPC_INJECT_CORRUPT)
        buf[n / 2] ^= 0x5a;
    for (int r = 1; r <= k; r++) {
        long long bad = hpc_check(buf + (size_t)(r - 1) * n, (size_t)n,
                                  hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)r));
        if (bad >= 0)
            hpc_fail("data check failed: hotspot, %d senders, %d-byte messages, sample %ld: "
                     "data from rank %d wrong at offset %lld", k, n, idx, r, bad);
    }
}

/* One sample of nb windows; the data are prepared and checked outside the timed region. */
static double sample(MPI_Comm act, int k, int n, long nb, long idx)
{
    int me = hpc_rank;
    if (me == 0)
        memset(buf, 0, (size_t)n * k);
    else
        hpc_fill(buf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)me));
    MPI_Barrier(act);
    double t0 = hpc_now();
    if (me == 0)
        receive_windows(act, k, n, nb);
    else
        send_windows(act, n, nb);
    double t = hpc_now() - t0;
    if (me == 0)
        check_received(k, n, idx);
    return t;
}

/* k senders, n-byte messages: one record. */
static void measure(MPI_Comm act, int k, int n)
{
    long idx = 0;
    hpc_batch bt;
    hpc_batch_init(&bt, HPC_BATCH_MIN_S, 1L << 20, 1, act);
    /* bt.k grows until samples last >= 50 us (rank 0 decides, batch.h) */
    while (hpc_batch_add_coll(&bt, sample(act, k, n, bt.k, idx++)))
        ;
    int hp[3] = {k, n, w};
    hpc_point pt = {hotspot_params, hp, "ops_per_sample", comm_record_extra};
    hpc_batch_emit(&pt, "bandwidth", "MB/s", "higher", &bt, 1e6, 1, (double)k * w * n);
    hpc_batch_free(&bt);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "hotspot",
             "k senders to rank 0, k = 1..n-1: aggregate bandwidth at the receiver.",
             options, MPI_THREAD_SINGLE);
    hpc_usage_check(hpc_nranks < 2, "hotspot needs at least 2 MPI ranks, got %d", hpc_nranks);
    const long long *sizes;
    int nsizes;
    long long max = comm_opt_sizes(&sizes, &nsizes);
    w = (int)hpc_opt_int("window");
    int np = hpc_nranks, me = hpc_rank;
    hpc_begin(1, NULL);

    buf = comm_alloc((size_t)max * (me == 0 ? (size_t)(np - 1) : 1) + 1);
    req = malloc(sizeof(MPI_Request) * (size_t)w * (size_t)np);
    if (!req)
        abort();
    hpc_inject_first_point();
    for (int k = 1; k < np; k++) {
        MPI_Comm act;
        MPI_Comm_split(MPI_COMM_WORLD, me <= k ? 0 : MPI_UNDEFINED, me, &act);
        for (int si = 0; me <= k && si < nsizes; si++)
            measure(act, k, (int)sizes[si]);
        if (me <= k)
            MPI_Comm_free(&act);
        hpc_idle_barrier(MPI_COMM_WORLD);
    }
    free(buf);
    free(req);
    hpc_finish();
    return 0;
}
