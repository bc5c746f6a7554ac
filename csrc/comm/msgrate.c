/* msgrate.c - message rate and aggregate bandwidth of P pairs at once (as osu_mbw_mr).
 *
 * Pairs: of N ranks (N even), rank i sends to rank i + N/2, for i < P (--pairs, default
 * N/2). Ranks placed by node on two nodes thus pair across them; on one node the pairs
 * share it. Ranks in no pair wait.
 *
 * One operation is one window: every sender posts W (--window) MPI_Isend of n bytes to its
 * partner, which has posted W MPI_Irecv (all into one buffer, as osu_mbw_mr does); the
 * receiver then sends an empty acknowledgement, which the sender waits for. A sample is a
 * batch of k windows timed by every active rank; the sample kept is the slowest rank's time
 * (MPI_MAX), so the aggregate figures are what all pairs sustain together:
 *   message_rate = P W / time of a window      [Mmsg/s, 1e6 messages/s]
 *   bandwidth    = P W n / time of a window    [MB/s, 1e6 bytes/s]
 *
 * Verification, outside the timed region: before each sample every sender fills its buffer
 * with a pattern seeded by (size, sample, its rank) and every receiver clears its own; after
 * the sample each receiver checks the size of every message of its last window and its
 * partner's pattern, and rank 0 judges.
 */
#include "harness.h"
#include "lib/comm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES,
     .def = "1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,128K,256K,512K,1M,2M,4M",
     .min = 1, .max = INT_MAX, .help = "message sizes in bytes"},
    {.name = "window", .type = HPC_INT, .def = "64", .min = 1, .max = 1024,
     .help = "messages in flight per pair and window, as osu_mbw_mr"},
    {.name = "pairs", .type = HPC_INT, .def = "0", .min = 0, .max = INT_MAX / 2,
     .help = "pairs that communicate at once, rank i with rank i + N/2 (0: N/2, every rank)"},
    COMM_PAGES_OPTION,
    {0}};

enum { TAG = 5, ACK = 6 };

typedef struct {
    int pairs, window, bytes;
} point;

/* The launch's ranks are a param too: records name no launch, and a point is tied to its
 * launch (oversubscribed or not, hpceval/analysis/oversubscription.py) by its rank count. */

static void msgrate_params(hpc_json *r, const void *ctx)
{
    const point *p = ctx;
    hpc_json_int(r, "bytes", p->bytes);
    hpc_json_int(r, "pairs", p->pairs);
    hpc_json_int(r, "window", p->window);
    hpc_json_int(r, "nranks", hpc_nranks);
}

static char *buf;           /* a sender's message, or where a receiver's W messages land */
static MPI_Request *req;    /* one window's requests */
static MPI_Status *stat;    /* and their statuses (osu_mbw_mr's too): the sizes are checked */
static int sender, partner; /* this rank's role; partner as a rank of the active group */

/* nb windows: post, wait, acknowledge (sender: wait for the acknowledgement). */
static void windows(MPI_Comm act, int w, int n, long nb)
{
    for (long b = 0; b < nb; b++) {
        for (int m = 0; m < w; m++) {
            if (sender)
                MPI_Isend(buf, n, MPI_BYTE, partner, TAG, act, &req[m]);
            else
                MPI_Irecv(buf, n, MPI_BYTE, partner, TAG, act, &req[m]);
        }
        MPI_Waitall(w, req, stat);
        if (sender)
            MPI_Recv(NULL, 0, MPI_BYTE, partner, ACK, act, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, partner, ACK, act);
    }
}

/* A receiver's verdict on the last window: -2 a message of the wrong size, else the offset of
 * the first wrong byte of the partner's pattern, or -1. */
static long long received(const point *p, long idx)
{
    for (int m = 0; m < p->window; m++) {
        int count;
        MPI_Get_count(&stat[m], MPI_BYTE, &count);
        if (count != p->bytes)
            return -2;
    }
    return hpc_check(buf, (size_t)p->bytes,
                     hpc_seed((uint64_t)p->bytes, (uint64_t)idx, (uint64_t)partner));
}

/* Every receiver checks its last window; rank 0 (a sender) names the first wrong one. In the
 * active group ranks 0..P-1 are the senders, P..2P-1 their partners. Collective. */
static void check_received(MPI_Comm act, const point *p, long idx)
{
    int me, half = hpc_nranks / 2;
    MPI_Comm_rank(act, &me);
    long long bad = -1;
    if (!sender) {
        if (hpc_inject == HPC_INJECT_CORRUPT && me == p->pairs)
            buf[p->bytes / 2] ^= 0x5a;
        bad = received(p, idx);
    }
    long long *bads = me == 0 ? malloc(sizeof *bads * 2 * (size_t)p->pairs) : NULL;
    MPI_Gather(&bad, 1, MPI_LONG_LONG, bads, 1, MPI_LONG_LONG, 0, act);
    for (int j = 0; me == 0 && j < p->pairs; j++) {
        if (bads[p->pairs + j] == -2)
            hpc_fail("data check failed: msgrate, %d pairs, %d-byte messages, sample %ld: "
                     "rank %d received a message of the wrong size from rank %d", p->pairs,
                     p->bytes, idx, half + j, j);
        if (bads[p->pairs + j] >= 0)
            hpc_fail("data check failed: msgrate, %d pairs, %d-byte messages, sample %ld: "
                     "rank %d received a wrong byte from rank %d at offset %lld", p->pairs,
                     p->bytes, idx, half + j, j, bads[p->pairs + j]);
    }
    free(bads);
}

/* One sample of nb windows, the slowest rank's time (rank 0); data prepared and checked
 * outside the timed region. */
static double sample(MPI_Comm act, const point *p, long nb, long idx)
{
    if (sender)
        hpc_fill(buf, (size_t)p->bytes, hpc_seed((uint64_t)p->bytes, (uint64_t)idx,
                                                 (uint64_t)hpc_rank));
    else
        memset(buf, 0, (size_t)p->bytes);
    MPI_Barrier(act);
    double t0 = hpc_now();
    windows(act, p->window, p->bytes, nb);
    double t = hpc_now() - t0, slowest;
    MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, act);
    check_received(act, p, idx);
    return slowest;
}

/* One size: its two records. */
static void measure(MPI_Comm act, point *p)
{
    long idx = 0;
    hpc_batch bt;
    hpc_batch_init(&bt, hpc_batch_tick_target(), 1L << 20, 1, act);
    while (hpc_batch_add_coll(&bt, sample(act, p, bt.k, idx++)))
        ;
    hpc_point pt = {msgrate_params, p, "windows_per_sample", comm_record_extra};
    double msgs = (double)p->pairs * p->window;
    hpc_batch_emit(&pt, "message_rate", "Mmsg/s", "higher", &bt, 1e6, 1, msgs);
    hpc_batch_emit(&pt, "bandwidth", "MB/s", "higher", &bt, 1e6, 1, msgs * p->bytes);
    hpc_batch_free(&bt);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "msgrate",
             "message rate and aggregate bandwidth of pairs (rank i with i + N/2) at once.",
             options, MPI_THREAD_SINGLE);
    int np = hpc_nranks, half = np / 2, me = hpc_rank;
    hpc_usage_check(np % 2 != 0, "msgrate needs an even number of MPI ranks, got %d", np);
    point p = {(int)hpc_opt_int("pairs"), (int)hpc_opt_int("window"), 0};
    hpc_usage_check(p.pairs > half, "option --pairs: %d pairs need %d ranks, got %d",
                    p.pairs, 2 * p.pairs, np);
    if (p.pairs == 0)
        p.pairs = half;
    const long long *sizes;
    int nsizes;
    long long max = comm_opt_sizes(&sizes, &nsizes);
    hpc_begin(1, NULL);

    int active = me < p.pairs || (me >= half && me - half < p.pairs);
    sender = me < half;
    partner = sender ? me + p.pairs : me - half;  /* ranks in the active group */
    MPI_Comm act;
    MPI_Comm_split(MPI_COMM_WORLD, active ? 0 : MPI_UNDEFINED, me, &act);
    buf = comm_alloc((size_t)max + 1);
    req = malloc(sizeof(MPI_Request) * (size_t)p.window);
    stat = malloc(sizeof(MPI_Status) * (size_t)p.window);
    if (!req || !stat)
        abort();
    hpc_inject_first_point();
    for (int si = 0; active && si < nsizes; si++) {
        p.bytes = (int)sizes[si];
        measure(act, &p);
    }
    if (active)
        MPI_Comm_free(&act);
    hpc_idle_barrier(MPI_COMM_WORLD);
    free(buf);
    free(req);
    free(stat);
    hpc_finish();
    return 0;
}
