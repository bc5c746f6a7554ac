/* netmap.c - the network map: node-to-node latency (8 B) and bandwidth (--bytes, 1 MiB) of
 * every pair of ranks, one rank a node, in O(P) rounds (as mpiGraph's shift pattern).
 *
 * Round k (1 <= k <= P/2) holds the pairs {i, i+k mod P}: every rank is in two of them (with
 * i+k and i-k), one when k = P/2. Those pairs form gcd(P,k) cycles; a cycle's edges coloured
 * alternately (a third colour for the last edge of an odd cycle) split the round into 2 or 3
 * phases in which every rank is in one pair at most. Every pair of a phase measures at once:
 * a ping-pong at 8 B (latency: half a round trip) and at --bytes (bandwidth: bytes over half a
 * round trip), each a point of the harness's batch sampler over the pair's communicator
 * (comm_p2p_point: data filled before and checked after every sample, outside the timed
 * region, --inject corrupt caught there). Rounds 1 .. P/2 cover every pair once.
 *
 * --shifts measures only the rounds it lists (the plan's sample above a stated rank count):
 * every record says which round it is of how many (shift, rounds, rounds_total), and the
 * meta record whether the rounds were sampled. Records name both ends' ranks and the nodes
 * they ran on (MPI_Get_processor_name). Rank 0 writes each phase's records as it ends: --inject
 * die or hang strikes the last rank before the last round, and the rounds before are kept.
 */
#include "lib/comm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "bytes", .type = HPC_SIZE, .def = "1M", .min = 1, .max = INT_MAX - 1,
     .help = "message size of the bandwidth ping-pong (latency is measured at 8 bytes)"},
    {.name = "shifts", .type = HPC_SIZES, .def = "0", .min = 0, .max = INT_MAX,
     .help = "rounds to measure, shifts k of 1..P/2 ascending (0: every round)"},
    COMM_PAGES_OPTION,
    {0}};

enum { LATENCY_BYTES = 8 };

typedef struct {
    long long bytes;
    int a, b, shift, rounds, total;
    const char *node_a, *node_b;
} link_pt;

static void params(hpc_json *j, const void *ctx)
{
    const link_pt *p = ctx;
    hpc_json_int(j, "bytes", p->bytes);
    hpc_json_int(j, "src", p->a);
    hpc_json_int(j, "dst", p->b);
    hpc_json_str(j, "src_node", p->node_a);
    hpc_json_str(j, "dst_node", p->node_b);
    hpc_json_int(j, "shift", p->shift);
    hpc_json_int(j, "rounds", p->rounds);
    hpc_json_int(j, "rounds_total", p->total);
}

static int nshifts, total_rounds;

static void meta_extra(hpc_json *o)
{
    hpc_json_int(o, "rounds", nshifts);
    hpc_json_int(o, "rounds_total", total_rounds);
    hpc_json_bool(o, "sampled", nshifts < total_rounds);
}

/* Inverse of a modulo m (gcd 1), by the extended Euclid algorithm. */
static long long inverse(long long a, long long m)
{
    long long r0 = m, r1 = a % m, s0 = 0, s1 = 1;
    while (r1) {
        long long q = r0 / r1, t = r0 - q * r1;
        r0 = r1, r1 = t;
        t = s0 - q * s1;
        s0 = s1, s1 = t;
    }
    return ((s0 % m) + m) % m;
}

static long long gcd(long long a, long long b)
{
    while (b) {
        long long t = a % b;
        a = b, b = t;
    }
    return a;
}

/* Colour of edge j (c_j -- c_j+1) of a cycle of length L: alternate, the last edge of an odd
 * cycle a third; -1 for the second edge of a 2-cycle (the first one again). */
static int colour(long long j, long long L)
{
    if (L == 2)
        return j == 0 ? 0 : -1;
    return (L % 2 == 1 && j == L - 1) ? 2 : (int)(j % 2);
}

/* Phases of round k on P ranks. */
static int phases(int P, int k)
{
    long long L = P / gcd(P, k);
    return L == 2 ? 1 : (L % 2 ? 3 : 2);
}

/* Rank i's partner in phase ph of round k (-1: none); *init: i starts the ping-pong. */
static int partner(int i, int P, int k, int ph, int *init)
{
    long long g = gcd(P, k), L = P / g, s = i % g;
    long long j = ((i - s) / g) * inverse(k / g, L) % L;  /* i = c_j = s + j k (mod P) */
    if (colour(j, L) == ph) {
        *init = 1;
        return (i + k) % P;
    }
    if (colour((j + L - 1) % L, L) == ph) {
        *init = 0;
        return (i - k + P) % P;
    }
    return -1;
}

/* Measure this rank's pair of the phase: pts[0] latency, pts[1] bandwidth. Collective over
 * MPI_COMM_WORLD (the split); the ranks in no pair pass by. */
static void measure_phase(int peer, int init, long long bytes, comm_point *pts)
{
    comm_p2p_cfg cfg = {MODE_PINGPONG, PROTO_SEND, 1, 0};
    comm_role me = {1, init, peer, peer};
    size_t sizes[2] = {LATENCY_BYTES, (size_t)bytes};
    comm_split_points(peer < 0 ? MPI_UNDEFINED : (init ? hpc_rank : peer), init ? 0 : 1, &me,
                      &cfg, (size_t)bytes, 2, sizes, pts);
}

/* The initiator a hands its two points' samples to rank 0 (which keeps its own). */
static void hand_over(int a, comm_point *pts)
{
    for (int m = 0; m < 2; m++)
        comm_point_to_root(a, &pts[m]);
}

static char *names;  /* on rank 0: every rank's node name, MPI_MAX_PROCESSOR_NAME apart */

static const char *name_of(int r)
{
    return names + (size_t)r * MPI_MAX_PROCESSOR_NAME;
}

/* Every pair of the phase: its initiator hands rank 0 its points, rank 0 writes them. */
static void emit_phase(int k, int ph, long long bytes, const comm_point *mine)
{
    int P = hpc_nranks;
    for (int a = 0; a < P; a++) {
        int init, b = partner(a, P, k, ph, &init);
        if (b < 0 || !init)
            continue;
        comm_point pts[2] = {mine[0], mine[1]};
        hand_over(a, pts);
        if (hpc_rank != 0)
            continue;
        link_pt p = {LATENCY_BYTES, a, b, k, nshifts, total_rounds, name_of(a), name_of(b)};
        comm_emit("latency", "us", "lower", &pts[0], 1e6, 0, params, &p);
        p.bytes = bytes;
        comm_emit("bandwidth", "MB/s", "higher", &pts[1], (double)bytes / 1e6, 1, params, &p);
        if (a != 0)
            free(pts[0].t), free(pts[1].t);
    }
}

/* One round: its phases measured one after the other, every pair of a phase at once. */
static void round_k(int k, long long bytes)
{
    for (int ph = 0; ph < phases(hpc_nranks, k); ph++) {
        comm_point mine[2] = {{0}};
        int init, peer = partner(hpc_rank, hpc_nranks, k, ph, &init);
        measure_phase(peer, init, bytes, mine);
        hpc_idle_barrier(MPI_COMM_WORLD);  /* the phase's pairs all done */
        emit_phase(k, ph, bytes, mine);
        if (peer >= 0)
            free(mine[0].t), free(mine[1].t);
    }
}

/* The rounds (--shifts, checked; NULL: every round 1..P/2). */
static const long long *rounds(void)
{
    const long long *s;
    nshifts = hpc_opt_list("shifts", &s);
    if (nshifts == 1 && s[0] == 0) {
        nshifts = total_rounds;
        return NULL;
    }
    for (int i = 0; i < nshifts; i++)
        hpc_usage_check(s[i] < 1 || s[i] > total_rounds || (i > 0 && s[i] <= s[i - 1]),
                        "--shifts: %lld is not a shift 1..%d in ascending order", s[i],
                        total_rounds);
    return s;
}

/* Node names to rank 0; a warning when ranks share a node (their pairs measure it, not the
 * network). */
static void gather_names(void)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(mine, &len);
    names = hpc_rank == 0 ? calloc((size_t)hpc_nranks, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
               0, MPI_COMM_WORLD);
    int *node = malloc(sizeof *node * (size_t)hpc_nranks);
    if (!node || (hpc_rank == 0 && !names))
        abort();
    int nnodes = comm_nodes(0, node);
    if (nnodes < hpc_nranks)
        hpc_warn("netmap: %d ranks on %d nodes: pairs of ranks on one node measure the node, "
                 "not the network (one rank a node maps it)", hpc_nranks, nnodes);
    free(node);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "netmap",
             "Latency (8 B) and bandwidth of every pair of ranks, one rank a node, in P/2 "
             "rounds of shifted pairs measured at once.", options, MPI_THREAD_SINGLE);
    hpc_usage_check(hpc_nranks < 2, "netmap needs at least 2 MPI ranks (one a node), got %d",
                    hpc_nranks);
    total_rounds = hpc_nranks / 2;
    const long long *shifts = rounds();
    long long bytes = hpc_opt_int("bytes");
    hpc_begin(1, meta_extra);
    gather_names();
    for (int r = 0; r < nshifts; r++) {
        if (r == nshifts - 1) {  /* --inject die, hang: a node lost mid-map, the rounds before kept */
            hpc_idle_barrier(MPI_COMM_WORLD);  /* once rank 0 has written them: a rank that died
                                                * sooner had the job ended before it could */
            hpc_inject_first_point();
        }
        round_k(shifts ? (int)shifts[r] : r + 1, bytes);
    }
    free(names);
    hpc_finish();
    return 0;
}
