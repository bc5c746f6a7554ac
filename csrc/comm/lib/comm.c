/* comm.c - see comm.h: buffers, node identity, placement patterns, records (the protocol
 * engine is p2p_engine.c). */
#include "comm.h"
#include "affinity.h"
#include "refine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void comm_busy(double d)
{
#ifdef HPC_SMPI
    /* SimGrid SMPI (smpicc): simulated time does not pass while spinning on the clock; the
     * computation is charged to the simulated host instead. */
    smpi_execute(d);
    return;
#endif
    double end = hpc_now() + d;
    while (hpc_now() < end)
        ;
}

const char *comm_pages_asked(void)
{
    return hpc_opt_str("buffer-pages");
}

void *comm_alloc(size_t bytes)
{
    /* 2 MiB-aligned and, by default, backed by transparent huge pages where
     * the kernel grants them: with 4 KiB pages the buffers' physical frames,
     * and so the cache sets they share, change from one process to the next,
     * and a 16 KiB ping-pong then measured 1.9 us in some runs and 2.2 us in
     * others. --buffer-pages base measures as tools with base pages do. */
    const size_t huge = (size_t)2 << 20;
    int thp = strcmp(comm_pages_asked(), "base") != 0;
    void *p;
    if (bytes == 0)
        bytes = 1;
#ifdef HPC_SMPI
    /* SimGrid SMPI: the ranks are contexts of one process and the simulated machine has no
     * pages. Rounding each buffer to 2 MiB took 4.5 GB for 1,024 ranks' two small buffers,
     * and reading /proc/self/smaps (whose maps grow with the ranks) per buffer took most of
     * a 1,024-rank launch's start-up. posix_memalign, not malloc: SMPI would share a large
     * malloc between the ranks (auto-shared-malloc), and the received data is checked. */
    (void)thp;
    if (posix_memalign(&p, 64, bytes))
        hpc_fail("cannot allocate %zu bytes", bytes);
    memset(p, 1, bytes);
    comm_buffer_pages = "base";
    return p;
#endif
    size_t len = (bytes + huge - 1) / huge * huge;
    if (posix_memalign(&p, huge, len))
        hpc_fail("cannot allocate %zu bytes", bytes);
    madvise(p, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);  /* a hint: THP may be refused */
    memset(p, 1, len);
    if (!thp || hpc_huge_bytes(p, len) <= 0)
        comm_buffer_pages = "base";
    return p;
}

const char *comm_buffer_pages = "thp";

long long comm_opt_sizes(const long long **sizes, int *n)
{
    *n = hpc_opt_list("sizes", sizes);
    long long max = 1;
    for (int i = 0; i < *n; i++)
        if ((*sizes)[i] > max)
            max = (*sizes)[i];
    return max;
}

int comm_nodes(int ranks_per_node, int *node)
{
    int mine;
    if (ranks_per_node > 0) {
        mine = hpc_rank / ranks_per_node;
    } else {
        /* The lowest world rank sharing memory with me names my node. */
        MPI_Comm shm;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, hpc_rank, MPI_INFO_NULL, &shm);
        int lowest = hpc_rank;
        MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, shm);
        MPI_Comm_free(&shm);
        mine = lowest;
    }
    MPI_Allgather(&mine, 1, MPI_INT, node, 1, MPI_INT, MPI_COMM_WORLD);
    /* Renumber 0..nnodes-1 in order of first appearance. */
    int *map = malloc((size_t)hpc_nranks * sizeof *map), nnodes = 0;
    int *key = malloc((size_t)hpc_nranks * sizeof *key);
    if (!map || !key)
        abort();
    for (int r = 0; r < hpc_nranks; r++) {
        int j = 0;
        while (j < nnodes && key[j] != node[r])
            j++;
        if (j == nnodes)
            key[nnodes++] = node[r];
        map[r] = j;
    }
    memcpy(node, map, (size_t)hpc_nranks * sizeof *node);
    free(map);
    free(key);
    return nnodes;
}

static char why[256];

/* The world rank with local rank l on node n, or -1. */
static int rank_on(const int *node, int n, int l)
{
    for (int r = 0; r < hpc_nranks; r++)
        if (node[r] == n && l-- == 0)
            return r;
    return -1;
}

static void pair(comm_role *role, int a, int b)
{
    role[a] = (comm_role){1, 1, b, b};
    role[b] = (comm_role){1, 0, a, a};
}

const char *comm_pattern(const char *pattern, int peer, const int *node, int nnodes,
                         comm_role *role)
{
    int n = hpc_nranks;
    for (int r = 0; r < n; r++)
        role[r] = (comm_role){0, 0, -1, -1};
    if (strcmp(pattern, "0-1") == 0) {
        if (n < 2)
            return "pattern 0-1 needs at least 2 ranks";
        if (node[0] != node[1])
            return "pattern 0-1 needs ranks 0 and 1 on one node (they are on different nodes)";
        pair(role, 0, 1);
    } else if (strcmp(pattern, "intra-pairs") == 0) {
        if (n % 2)
            return (snprintf(why, sizeof why,
                             "pattern intra-pairs needs an even number of ranks, got %d", n),
                    why);
        for (int r = 0; r < n; r += 2) {
            if (node[r] != node[r + 1])
                return (snprintf(why, sizeof why,
                                 "pattern intra-pairs: ranks %d and %d are on different nodes "
                                 "(an odd number of ranks per node?)", r, r + 1),
                        why);
            pair(role, r, r + 1);
        }
    } else if (strcmp(pattern, "0-k") == 0) {
        if (nnodes < 2 && peer < 0)
            return "pattern 0-k needs ranks on at least 2 nodes (set ranks-per-node to "
                   "emulate nodes on one machine)";
        int k = peer;
        if (k < 0)
            for (k = 1; node[k] == node[0]; k++)
                ;
        if (k < 1 || k >= n)
            return (snprintf(why, sizeof why, "pattern 0-k: peer %d is not a rank in 1..%d", k,
                             n - 1),
                    why);
        pair(role, 0, k);
    } else if (strcmp(pattern, "ring") == 0) {
        if (n < 2)
            return "pattern ring needs at least 2 ranks";
        for (int r = 0; r < n; r++)
            role[r] = (comm_role){1, 0, (r + 1) % n, (r + n - 1) % n};
        /* A ring of two is a pair (each rank's peer both ways): one must start its
         * handshake, or both wait to receive first (a swap on 2 ranks hung). */
        if (n == 2)
            role[0].initiator = 1;
    } else if (strcmp(pattern, "cross-pairs") == 0) {
        if (nnodes < 2)
            return "pattern cross-pairs needs ranks on at least 2 nodes (set ranks-per-node to "
                   "emulate nodes on one machine)";
        if (nnodes % 2)
            return (snprintf(why, sizeof why,
                             "pattern cross-pairs needs an even number of nodes, got %d", nnodes),
                    why);
        int per = 0;
        for (int r = 0; r < n; r++)
            per += node[r] == 0;
        for (int r = 0; r < n; r++) {
            int c = 0;
            for (int i = 0; i < n; i++)
                c += node[i] == node[r];
            if (c != per)
                return "pattern cross-pairs needs the same number of ranks on every node";
        }
        for (int m = 0; m < nnodes; m += 2)
            for (int l = 0; l < per; l++)
                pair(role, rank_on(node, m, l), rank_on(node, m + 1, l));
    } else {
        return "unknown pattern";
    }
    return NULL;
}

void comm_bufs_init(comm_bufs *b, size_t cap, MPI_Comm act, int with_windows)
{
    /* One spare byte past the largest message: a guard that must stay untouched. */
    b->cap = cap;
    b->sbuf = comm_alloc(cap + 1);
    b->rbuf = comm_alloc(cap + 1);
    if (with_windows) {
        MPI_Win_create(b->sbuf, (MPI_Aint)cap + 1, 1, MPI_INFO_NULL, act, &b->ws);
        MPI_Win_create(b->rbuf, (MPI_Aint)cap + 1, 1, MPI_INFO_NULL, act, &b->wr);
    }
}

void comm_bufs_free(comm_bufs *b, int with_windows)
{
    if (with_windows) {
        MPI_Win_free(&b->ws);
        MPI_Win_free(&b->wr);
    }
    free(b->sbuf);
    free(b->rbuf);
}

void comm_flush_cache(size_t bytes)
{
    static char *junk;
    static size_t have;
    if (bytes == 0)
        return;
    if (have < bytes) {
        free(junk);
        junk = comm_alloc(bytes);
        have = bytes;
    }
    static unsigned char v;
    memset(junk, ++v, bytes);
}

int comm_rank_in(MPI_Comm comm, int world_rank)
{
    MPI_Group w, g;
    int out;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Comm_group(comm, &g);
    MPI_Group_translate_ranks(w, 1, &world_rank, g, &out);
    MPI_Group_free(&w);
    MPI_Group_free(&g);
    return out;
}

void comm_record_extra(hpc_json *r)
{
    hpc_json_str(r, "buffer_pages", comm_buffer_pages);
    hpc_json_str(r, "buffer_pages_asked", comm_pages_asked());
    if (comm_refining)
        hpc_json_bool(r, "refined", 1);  /* a size the sweep added to bracket a switch */
}

void comm_emit(const char *metric, const char *unit, const char *better, const comm_point *p,
               double scale, int is_rate, void (*params)(hpc_json *, const void *),
               const void *ctx)
{
    if (hpc_rank != 0)
        return;
    double *v = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *v);
    if (!v)
        abort();
    for (int i = 0; i < p->n; i++)
        v[i] = is_rate ? scale / p->t[i] : p->t[i] * scale;
    hpc_point pt = {params, ctx, "ops_per_sample", comm_record_extra};
    hpc_emit_values(&pt, metric, unit, better, v, p->n, p->converged, p->batch);
    free(v);
}

void comm_point_to_root(int from, comm_point *p)
{
    if (from == 0 || (hpc_rank != from && hpc_rank != 0))
        return;
    if (hpc_rank == from) {
        int hdr[3] = {p->n, p->converged, (int)p->batch};
        MPI_Send(hdr, 3, MPI_INT, 0, 11, MPI_COMM_WORLD);
        MPI_Send(p->t, p->n, MPI_DOUBLE, 0, 12, MPI_COMM_WORLD);
        return;
    }
    int hdr[3];
    MPI_Recv(hdr, 3, MPI_INT, from, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *p = (comm_point){malloc(sizeof(double) * (size_t)(hdr[0] > 0 ? hdr[0] : 1)), hdr[0], hdr[1],
                      hdr[2]};
    if (!p->t)
        abort();
    MPI_Recv(p->t, hdr[0], MPI_DOUBLE, from, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void comm_split_points(int color, int key, const comm_role *me, const comm_p2p_cfg *cfg,
                       size_t cap, int npts, const size_t *bytes, comm_point *pts)
{
    MPI_Comm act;
    MPI_Comm_split(MPI_COMM_WORLD, color, key, &act);
    if (color == MPI_UNDEFINED)
        return;
    comm_bufs bufs;
    comm_bufs_init(&bufs, cap, act, 0);
    for (int i = 0; i < npts; i++)
        comm_p2p_point(act, me, cfg, &bufs, bytes[i], &pts[i]);
    comm_bufs_free(&bufs, 0);
    MPI_Comm_free(&act);
}
