/* distance.c - distance map: ping-pong latency and bandwidth from rank 0 to
 * every other rank (or to the ranks --dests lists: the plan's sample at
 * hundreds of ranks), or (--full) between every pair of ranks, one pair at a
 * time while the others wait idle. Each record names both ends' node (MPI
 * shared-memory split, or --ranks-per-node), socket and CPU (where the rank
 * was when the run began), so a report can lay the map out by node, socket
 * and core. The full matrix costs n(n-1)/2 pairs: it is
 * opt-in, and the planner refuses it beyond a modest rank count.
 */
#include "lib/comm.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES, .def = "8,1M", .min = 0, .max = INT_MAX - 1,
     .help = "message sizes in bytes"},
    {.name = "full", .type = HPC_INT, .def = "0", .min = 0, .max = 1,
     .help = "1: every pair of ranks (n(n-1)/2 pairs); 0: rank 0 to every rank"},
    {.name = "dests", .type = HPC_SIZES, .def = "0", .min = 0, .max = INT_MAX - 1,
     .help = "rank 0 to these ranks only, ascending (0: to every rank)"},
    {.name = "protocol", .type = HPC_CHOICE, .def = "send", .choices = COMM_PROTOS,
     .help = "ping-pong protocol"},
    {.name = "ranks-per-node", .type = HPC_INT, .def = "0", .min = 0, .max = INT_MAX,
     .help = "override node identity: ranks r/N share a node (0: from MPI shared memory)"},
    COMM_PAGES_OPTION,
    {0}};

typedef struct {
    long long bytes;
    int a, b, node_a, node_b, cpu_a, cpu_b, sock_a, sock_b;
    const char *proto;
} pp;

/* Socket (physical package) of a CPU from sysfs, -1 if unknown. */
static int socket_of(int cpu)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    FILE *f = fopen(path, "r");
    int s = -1;
    if (f) {
        if (fscanf(f, "%d", &s) != 1)
            s = -1;
        fclose(f);
    }
    return s;
}

static void params(hpc_json *j, const void *ctx)
{
    const pp *p = ctx;
    hpc_json_int(j, "bytes", p->bytes);
    hpc_json_int(j, "src", p->a);
    hpc_json_int(j, "dst", p->b);
    hpc_json_int(j, "src_node", p->node_a);
    hpc_json_int(j, "dst_node", p->node_b);
    hpc_json_int(j, "src_cpu", p->cpu_a);
    hpc_json_int(j, "dst_cpu", p->cpu_b);
    hpc_json_int(j, "src_socket", p->sock_a);
    hpc_json_int(j, "dst_socket", p->sock_b);
    hpc_json_str(j, "protocol", p->proto);
}

/* Node, CPU and socket of every world rank. */
static int *node, *cpu, *sock;

static void placement(void)
{
    node = malloc((size_t)hpc_nranks * sizeof *node);
    cpu = malloc((size_t)hpc_nranks * sizeof *cpu);
    sock = malloc((size_t)hpc_nranks * sizeof *sock);
    if (!node || !cpu || !sock)
        abort();
    comm_nodes((int)hpc_opt_int("ranks-per-node"), node);
    int mycpu = sched_getcpu(), mysock = socket_of(mycpu);
    MPI_Allgather(&mycpu, 1, MPI_INT, cpu, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(&mysock, 1, MPI_INT, sock, 1, MPI_INT, MPI_COMM_WORLD);
}

/* Ranks a and b measure every size into pts; the others pass by. */
static void measure_pair(int a, int b, const comm_p2p_cfg *cfg, const long long *sizes,
                         int nsizes, long long max, comm_point *pts)
{
    int one_sided = cfg->proto >= PROTO_PUT_FENCE;
    if (hpc_rank != a && hpc_rank != b)
        return;
    /* A communicator of the two alone (collective over them only): a split of the world
     * per pair cost every rank a step, minutes per map at 1,024 simulated ranks. */
    int two[2] = {a, b};
    MPI_Group world, g;
    MPI_Comm pair;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 2, two, &g);
    MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &pair);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    comm_role me = {1, hpc_rank == a, hpc_rank == a ? b : a, hpc_rank == a ? b : a};
    comm_bufs bufs;
    comm_bufs_init(&bufs, (size_t)max, pair, one_sided);
    for (int i = 0; i < nsizes; i++)
        comm_p2p_point(pair, &me, cfg, &bufs, (size_t)sizes[i], &pts[i]);
    comm_bufs_free(&bufs, one_sided);
    MPI_Comm_free(&pair);
}

/* The pair's lower rank a hands its samples of size i to rank 0. */
static void hand_over(int a, comm_point *pt)
{
    if (a != 0 && hpc_rank == a) {
        int hdr[3] = {pt->n, pt->converged, (int)pt->batch};
        MPI_Send(hdr, 3, MPI_INT, 0, 11, MPI_COMM_WORLD);
        MPI_Send(pt->t, pt->n, MPI_DOUBLE, 0, 12, MPI_COMM_WORLD);
        free(pt->t);
    } else if (a != 0 && hpc_rank == 0) {
        int hdr[3];
        MPI_Recv(hdr, 3, MPI_INT, a, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        *pt = (comm_point){malloc(sizeof(double) * (size_t)hdr[0]), hdr[0], hdr[1], hdr[2]};
        MPI_Recv(pt->t, hdr[0], MPI_DOUBLE, a, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* Rank 0 writes the pair's records. */
static void emit_pair(int a, int b, const long long *sizes, int nsizes, const char *proto_name,
                      comm_point *pts)
{
    for (int i = 0; i < nsizes; i++) {
        hand_over(a, &pts[i]);
        if (hpc_rank == 0) {
            pp p = {sizes[i], a, b, node[a], node[b], cpu[a], cpu[b], sock[a], sock[b],
                    proto_name};
            comm_emit("latency", "us", "lower", &pts[i], 1e6, 0, params, &p);
            if (sizes[i] > 0)
                comm_emit("bandwidth", "MB/s", "higher", &pts[i], (double)sizes[i] / 1e6, 1,
                          params, &p);
            free(pts[i].t);
        } else if (hpc_rank == b) {
            free(pts[i].t);
        }
    }
}

/* The destinations of rank 0 (--dests), checked; NULL: every rank. */
static const long long *destinations(int *ndests)
{
    const long long *d;
    *ndests = hpc_opt_list("dests", &d);
    if (*ndests == 1 && d[0] == 0)
        return NULL;
    for (int i = 0; i < *ndests; i++)
        hpc_usage_check(d[i] < 1 || d[i] >= hpc_nranks || (i > 0 && d[i] <= d[i - 1]),
                        "--dests: %lld is not a rank 1..%d in ascending order", d[i],
                        hpc_nranks - 1);
    return d;
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "distance",
             "Latency and bandwidth from rank 0 to every rank (or every pair), by node and CPU.",
             options, MPI_THREAD_SINGLE);
    hpc_usage_check(hpc_nranks < 2, "distance needs at least 2 MPI ranks, got %d", hpc_nranks);
    const char *proto_name = hpc_opt_str("protocol");
    comm_proto proto = comm_proto_parse(proto_name);
    const char *e = comm_proto_unsupported(MODE_PINGPONG, proto);
    hpc_usage_check(e != NULL, "--protocol %s: %s", proto_name, e);
    int full = (int)hpc_opt_int("full"), ndests;
    const long long *dests = destinations(&ndests);
    hpc_usage_check(full && dests, "--dests is for rank 0's map, not with --full 1");
    const long long *sizes;
    int nsizes;
    long long max = comm_opt_sizes(&sizes, &nsizes);
    placement();

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    comm_p2p_cfg cfg = {MODE_PINGPONG, proto, 1, 0};
    comm_point *pts = calloc((size_t)nsizes, sizeof *pts);
    if (!pts)
        abort();
    for (int a = 0; a < (full ? hpc_nranks - 1 : 1); a++)
        for (int k = a + 1; k < (dests ? ndests + 1 : hpc_nranks); k++) {
            int b = dests ? (int)dests[k - 1] : k;
            measure_pair(a, b, &cfg, sizes, nsizes, max, pts);
            hpc_idle_barrier(MPI_COMM_WORLD);  /* the others wait idle */
            emit_pair(a, b, sizes, nsizes, proto_name, pts);
        }
    free(pts);
    free(node);
    free(cpu);
    free(sock);
    hpc_finish();
    return 0;
}
