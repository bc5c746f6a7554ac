/* congestion.c - congestion impact by GPCNeT's method (Chunduri et al., SC19): a victim set of
 * ranks measures 8 B latency (ping-pong, half a round trip), bandwidth (ping-pong of --bytes)
 * and an 8 B allreduce, first alone (the others wait), then while the other ranks, the
 * aggressors, run incast (every aggressor sends --aggressor-bytes to the first aggressor, over
 * and over) and then all-to-all (MPI_Alltoall of --aggressor-bytes a pair, over and over).
 *
 * Victims: --victims-percent (GPCNeT's 20) of the ranks, an even number of them, at least 2,
 * spread evenly (ranks 0, s, 2s, ... with s = P / victims); at least 2 aggressors: 4 ranks or
 * more. Victim pairs are the victims taken two by two; a latency or bandwidth sample is the
 * slowest pair's (comm_p2p_point), its data checked after every sample outside the timed
 * region; an allreduce sample is k allreduces, their results summed in the loop and the sum
 * checked against the exact one after it. The aggressors stop when the victims' leader (rank
 * 0) says so; the ratio congested / isolated is the analysis's (hpceval/analysis/congestion.py).
 */
#include "lib/comm.h"

#include <limits.h>
#include <stdlib.h>

static hpc_option options[] = {
    {.name = "bytes", .type = HPC_SIZE, .def = "128K", .min = 1, .max = INT_MAX - 1,
     .help = "message size of the victims' bandwidth ping-pong (latency at 8 bytes)"},
    {.name = "aggressor-bytes", .type = HPC_SIZE, .def = "64K", .min = 1, .max = 1 << 19,
     .help = "message size of the aggressors' incast and all-to-all (per pair)"},
    {.name = "victims-percent", .type = HPC_INT, .def = "20", .min = 1, .max = 50,
     .help = "share of the ranks that are victims (GPCNeT: 20)"},
    COMM_PAGES_OPTION,
    {0}};

enum { LATENCY_BYTES = 8, STOP_TAG = 77 };
#define STOP_CHECK_S 2e-3  /* s between the aggressors' looks for the stop */
static const char *const CONDITIONS[] = {"isolated", "incast", "alltoall"};

static int nvictims, stride;

typedef struct {
    long long bytes;
    const char *condition;
} cong_pt;

static void params(hpc_json *j, const void *ctx)
{
    const cong_pt *p = ctx;
    hpc_json_int(j, "bytes", p->bytes);
    hpc_json_str(j, "condition", p->condition);
    hpc_json_int(j, "victims", nvictims);
    hpc_json_int(j, "aggressors", hpc_nranks - nvictims);
}

static int is_victim(int r)
{
    return r % stride == 0 && r / stride < nvictims;
}

/* k allreduces of 8 B over the victims; the results' sum checked after the loop. */
static double allreduce_sample(MPI_Comm vic, long k, long idx)
{
    double in = (double)(hpc_rank + 1 + idx), out = 0, sum = 0, want = 0;
    for (int v = 0; v < nvictims; v++)
        want += (double)(v * stride + 1 + idx);
    MPI_Barrier(vic);
    double t0 = MPI_Wtime();
    for (long i = 0; i < k; i++) {
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, vic);
        sum += out;
    }
    double t = MPI_Wtime() - t0;
    if (hpc_inject == HPC_INJECT_CORRUPT && idx == 0)
        sum += 1;
    if (sum != want * (double)k)
        hpc_fail("data check failed: allreduce, sample %ld: sum of %ld results %.17g, expected "
                 "%.17g", idx, k, sum, want * (double)k);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, vic);
    return t;
}

static void allreduce_point(MPI_Comm vic, comm_point *pt)
{
    hpc_batch bt;
    hpc_batch_init(&bt, hpc_batch_tick_target(), 1L << 20, 1.0, vic);
    long idx = 0;
    while (hpc_batch_add_coll(&bt, allreduce_sample(vic, bt.k, idx++)))
        ;
    *pt = (comm_point){malloc(sizeof(double) * (size_t)(bt.s.n > 0 ? bt.s.n : 1)), bt.s.n,
                       bt.s.converged, bt.k};
    if (!pt->t)
        abort();
    for (int i = 0; i < bt.s.n; i++)
        pt->t[i] = bt.s.samples[i];
    hpc_batch_free(&bt);
}

/* The victims' three points, written by rank 0 (the victims' first). */
static void victims_measure(MPI_Comm vic, long long bytes, const char *condition)
{
    int me = hpc_rank / stride, init = me % 2 == 0;
    int peer = (init ? me + 1 : me - 1) * stride;
    comm_p2p_cfg cfg = {MODE_PINGPONG, PROTO_SEND, 1, 0};
    comm_role role = {1, init, peer, peer};
    comm_point pts[3];
    comm_bufs bufs;
    comm_bufs_init(&bufs, (size_t)bytes, vic, 0);
    comm_p2p_point(vic, &role, &cfg, &bufs, LATENCY_BYTES, &pts[0]);
    comm_p2p_point(vic, &role, &cfg, &bufs, (size_t)bytes, &pts[1]);
    comm_bufs_free(&bufs, 0);
    allreduce_point(vic, &pts[2]);
    if (hpc_rank == 0) {
        cong_pt p = {LATENCY_BYTES, condition};
        comm_emit("latency", "us", "lower", &pts[0], 1e6, 0, params, &p);
        comm_emit("allreduce", "us", "lower", &pts[2], 1e6, 0, params, &p);
        p.bytes = bytes;
        comm_emit("bandwidth", "MB/s", "higher", &pts[1], (double)bytes / 1e6, 1, params, &p);
    }
    for (int i = 0; i < 3; i++)
        free(pts[i].t);
}

/* Incast or all-to-all over the aggressors until rank 0 says stop. */
static void aggress(MPI_Comm agg, int pattern, long long abytes)
{
    int na, ar, stop = 0;
    MPI_Comm_size(agg, &na);
    MPI_Comm_rank(agg, &ar);
    char *s = comm_alloc((size_t)abytes * (size_t)na), *r = comm_alloc((size_t)abytes * (size_t)na);
    MPI_Request req = MPI_REQUEST_NULL;
    if (ar == 0)
        MPI_Irecv(&stop, 1, MPI_INT, 0, STOP_TAG, MPI_COMM_WORLD, &req);
    int flag = 0;
    double checked = MPI_Wtime();
    while (!flag) {
        if (pattern == 1 && ar == 0) {
            for (int i = 1; i < na; i++)
                MPI_Recv(r, (int)abytes, MPI_BYTE, MPI_ANY_SOURCE, 1, agg, MPI_STATUS_IGNORE);
        } else if (pattern == 1) {
            MPI_Send(s, (int)abytes, MPI_BYTE, 0, 1, agg);
        } else {
            MPI_Alltoall(s, (int)abytes, MPI_BYTE, r, (int)abytes, MPI_BYTE, agg);
        }
        /* The stop is looked for once per STOP_CHECK_S, not every round: SMPI charges each
         * MPI_Test 0.1 ms of simulated time (smpi/test), which left the aggressors idle 90%
         * of the time and the victims unslowed; real hardware stops at most that much later. */
        if (ar == 0 && MPI_Wtime() - checked >= STOP_CHECK_S) {
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            checked = MPI_Wtime();
        }
        MPI_Bcast(&flag, 1, MPI_INT, 0, agg);
    }
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "congestion",
             "Congestion impact (GPCNeT): victims' 8 B latency, bandwidth and 8 B allreduce "
             "alone and beside aggressors' incast and all-to-all.", options, MPI_THREAD_SINGLE);
    hpc_usage_check(hpc_nranks < 4, "congestion needs at least 4 MPI ranks (2 victims, 2 "
                    "aggressors; one a node), got %d", hpc_nranks);
    long long bytes = hpc_opt_int("bytes"), abytes = hpc_opt_int("aggressor-bytes");
    nvictims = (int)(hpc_nranks * hpc_opt_int("victims-percent") / 100) / 2 * 2;
    nvictims = nvictims < 2 ? 2 : nvictims;
    stride = hpc_nranks / nvictims;
    hpc_begin(1, NULL);
    int victim = is_victim(hpc_rank), leader = -1;
    for (int r = hpc_nranks - 1; r >= 0; r--)
        leader = is_victim(r) ? leader : r;  /* the first aggressor */
    MPI_Comm vic;  /* the victims' or the aggressors' */
    MPI_Comm_split(MPI_COMM_WORLD, victim, hpc_rank, &vic);
    for (int c = 0; c < 3; c++) {
        if (c == 1)
            hpc_inject_first_point();
        hpc_idle_barrier(MPI_COMM_WORLD);
        if (victim) {
            victims_measure(vic, bytes, CONDITIONS[c]);
            if (c > 0 && hpc_rank == 0) {
                int one = 1;
                MPI_Send(&one, 1, MPI_INT, leader, STOP_TAG, MPI_COMM_WORLD);
            }
        } else if (c > 0) {
            aggress(vic, c, abytes);
        }
    }
    MPI_Comm_free(&vic);
    hpc_finish();
    return 0;
}
