/* comm.c - see comm.h. */
#include "comm.h"
#include "affinity.h"
#include "refine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { TAG = 7, ACK = 8 };
static const long MAX_BATCH = 1L << 22;

static const char *const MODE_NAMES[] = {"pingpong", "swap", "stream", "bistream"};
static const char *const PROTO_NAMES[] = {"send", "sendrecv", "isend", "ssend", "rsend",
                                          "persistent", "put-fence", "get-fence", "put-lock",
                                          "get-lock"};

comm_mode comm_mode_parse(const char *s)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, MODE_NAMES[i]) == 0)
            return (comm_mode)i;
    abort();  /* the option parser only lets the choices through */
}

comm_proto comm_proto_parse(const char *s)
{
    for (int i = 0; i < 10; i++)
        if (strcmp(s, PROTO_NAMES[i]) == 0)
            return (comm_proto)i;
    abort();
}

static int one_sided(comm_proto p) { return p >= PROTO_PUT_FENCE; }
static int passive(comm_proto p) { return p == PROTO_PUT_LOCK || p == PROTO_GET_LOCK; }

const char *comm_proto_unsupported(comm_mode m, comm_proto p)
{
    switch (m) {
    case MODE_PINGPONG:
    case MODE_STREAM:
        return p == PROTO_SENDRECV ? "protocol sendrecv is a simultaneous exchange: use mode swap"
                                   : NULL;
    case MODE_SWAP:
    case MODE_BISTREAM:
        if (p == PROTO_SENDRECV && m == MODE_SWAP)
            return NULL;
        if (p == PROTO_ISEND || p == PROTO_PERSISTENT || p == PROTO_PUT_FENCE ||
            p == PROTO_GET_FENCE)
            return NULL;
        return m == MODE_SWAP
                   ? "mode swap needs sendrecv, isend, persistent, put-fence or get-fence "
                     "(blocking, synchronous, ready and passive-target modes cannot exchange "
                     "simultaneously)"
                   : "mode bistream needs isend, persistent, put-fence or get-fence";
    }
    return "unknown mode";
}

void *comm_alloc(size_t bytes)
{
    /* 2 MiB-aligned and backed by transparent huge pages where the kernel
     * grants them: with 4 KiB pages the buffers' physical frames, and so the
     * cache sets they share, change from one process to the next, and a
     * 16 KiB ping-pong then measured 1.9 us in some runs and 2.2 us in others. */
    const size_t huge = (size_t)2 << 20;
    void *p;
    if (bytes == 0)
        bytes = 1;
    size_t len = (bytes + huge - 1) / huge * huge;
    if (posix_memalign(&p, huge, len))
        hpc_fail("cannot allocate %zu bytes", bytes);
    madvise(p, len, MADV_HUGEPAGE);  /* a hint: base pages where it is refused */
    memset(p, 1, len);
    if (hpc_huge_bytes(p, len) <= 0)
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

/* ------------------------------------------------------------------ batches */

typedef struct {
    MPI_Comm act;
    const comm_p2p_cfg *cfg;
    comm_bufs *b;
    int to, from, init;  /* peers as ranks of act; initiator of a pair */
    int n;
    MPI_Request *req;    /* 2 * window */
} job;

/* MPICH defines MPI_STATUSES_IGNORE as (MPI_Status *)1, which gcc 12 takes for a
 * zero-length array that MPI_Waitall would overflow: a false warning. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static void wait_all(int c, MPI_Request *r) { MPI_Waitall(c, r, MPI_STATUSES_IGNORE); }
#pragma GCC diagnostic pop

/* Two-sided send of the chosen kind, blocking. */
static void send_kind(const job *j, comm_proto p)
{
    char *s = j->b->sbuf;
    if (p == PROTO_SSEND)
        MPI_Ssend(s, j->n, MPI_BYTE, j->to, TAG, j->act);
    else
        MPI_Send(s, j->n, MPI_BYTE, j->to, TAG, j->act);
}

static void pingpong(const job *j, long k)
{
    comm_proto p = j->cfg->proto;
    char *s = j->b->sbuf, *r = j->b->rbuf;
    int n = j->n, to = j->to;
    MPI_Comm c = j->act;
    MPI_Request *q = j->req;
    switch (p) {
    case PROTO_SEND:
    case PROTO_SSEND:
        for (long i = 0; i < k; i++) {
            if (j->init) {
                send_kind(j, p);
                MPI_Recv(r, n, MPI_BYTE, to, TAG, c, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(r, n, MPI_BYTE, to, TAG, c, MPI_STATUS_IGNORE);
                send_kind(j, p);
            }
        }
        break;
    case PROTO_ISEND:
        for (long i = 0; i < k; i++) {
            if (j->init) {
                MPI_Irecv(r, n, MPI_BYTE, to, TAG, c, &q[0]);
                MPI_Isend(s, n, MPI_BYTE, to, TAG, c, &q[1]);
                wait_all(2, q);
            } else {
                MPI_Irecv(r, n, MPI_BYTE, to, TAG, c, &q[0]);
                MPI_Wait(&q[0], MPI_STATUS_IGNORE);
                MPI_Isend(s, n, MPI_BYTE, to, TAG, c, &q[1]);
                MPI_Wait(&q[1], MPI_STATUS_IGNORE);
            }
        }
        break;
    case PROTO_RSEND:
        /* A ready send needs the receive posted: each side posts the receive for
         * the next message before it sends. The responder's first receive was
         * posted before the batch (prepare()). */
        for (long i = 0; i < k; i++) {
            if (j->init) {
                MPI_Irecv(r, n, MPI_BYTE, to, TAG, c, &q[0]);
                MPI_Rsend(s, n, MPI_BYTE, to, TAG, c);
                MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            } else {
                MPI_Wait(&q[1], MPI_STATUS_IGNORE);
                if (i + 1 < k)
                    MPI_Irecv(r, n, MPI_BYTE, to, TAG, c, &q[1]);
                MPI_Rsend(s, n, MPI_BYTE, to, TAG, c);
            }
        }
        break;
    case PROTO_PERSISTENT:
        for (long i = 0; i < k; i++) {
            if (j->init) {
                MPI_Startall(2, q);
                wait_all(2, q);
            } else {
                MPI_Start(&q[0]);
                MPI_Wait(&q[0], MPI_STATUS_IGNORE);
                MPI_Start(&q[1]);
                MPI_Wait(&q[1], MPI_STATUS_IGNORE);
            }
        }
        break;
    case PROTO_PUT_FENCE:
    case PROTO_GET_FENCE:
        /* Ping: the initiator moves the data, fence; pong: the responder, fence. */
        for (long i = 0; i < k; i++) {
            for (int turn = 0; turn < 2; turn++) {
                if (j->init == (turn == 0)) {
                    if (p == PROTO_PUT_FENCE)
                        MPI_Put(s, n, MPI_BYTE, to, 0, n, MPI_BYTE, j->b->wr);
                    else
                        MPI_Get(r, n, MPI_BYTE, to, 0, n, MPI_BYTE, j->b->ws);
                }
                MPI_Win_fence(0, p == PROTO_PUT_FENCE ? j->b->wr : j->b->ws);
            }
        }
        break;
    case PROTO_PUT_LOCK:
    case PROTO_GET_LOCK:
        /* Passive target: only the initiator acts; one operation is
         * lock, put/get, unlock (the unlock completes it at both ends). */
        if (j->init) {
            for (long i = 0; i < k; i++) {
                MPI_Win w = p == PROTO_PUT_LOCK ? j->b->wr : j->b->ws;
                MPI_Win_lock(MPI_LOCK_SHARED, to, 0, w);
                if (p == PROTO_PUT_LOCK)
                    MPI_Put(s, n, MPI_BYTE, to, 0, n, MPI_BYTE, w);
                else
                    MPI_Get(r, n, MPI_BYTE, to, 0, n, MPI_BYTE, w);
                MPI_Win_unlock(to, w);
            }
        }
        break;
    default:
        abort();
    }
}

static void swap(const job *j, long k)
{
    comm_proto p = j->cfg->proto;
    char *s = j->b->sbuf, *r = j->b->rbuf;
    int n = j->n;
    MPI_Comm c = j->act;
    MPI_Request *q = j->req;
    for (long i = 0; i < k; i++) {
        switch (p) {
        case PROTO_SENDRECV:
            MPI_Sendrecv(s, n, MPI_BYTE, j->to, TAG, r, n, MPI_BYTE, j->from, TAG, c,
                         MPI_STATUS_IGNORE);
            break;
        case PROTO_ISEND:
            MPI_Irecv(r, n, MPI_BYTE, j->from, TAG, c, &q[0]);
            MPI_Isend(s, n, MPI_BYTE, j->to, TAG, c, &q[1]);
            wait_all(2, q);
            break;
        case PROTO_PERSISTENT:
            MPI_Startall(2, q);
            wait_all(2, q);
            break;
        case PROTO_PUT_FENCE:
            MPI_Put(s, n, MPI_BYTE, j->to, 0, n, MPI_BYTE, j->b->wr);
            MPI_Win_fence(0, j->b->wr);
            break;
        case PROTO_GET_FENCE:
            MPI_Get(r, n, MPI_BYTE, j->from, 0, n, MPI_BYTE, j->b->ws);
            MPI_Win_fence(0, j->b->ws);
            break;
        default:
            abort();
        }
    }
}

/* osu_bw's scheme: the sender posts a window of W sends, the receiver W
 * receives (all into the same buffer, as osu_bw; the data are identical),
 * then the receiver acknowledges with an empty message. */
static void stream(const job *j, long k)
{
    comm_proto p = j->cfg->proto;
    char *s = j->b->sbuf, *r = j->b->rbuf;
    int n = j->n, w = j->cfg->window, to = j->to;
    MPI_Comm c = j->act;
    MPI_Request *q = j->req;
    int bi = j->cfg->mode == MODE_BISTREAM;
    for (long i = 0; i < k; i++) {
        if (one_sided(p)) {
            MPI_Win win = (p == PROTO_PUT_FENCE || p == PROTO_PUT_LOCK) ? j->b->wr : j->b->ws;
            int acts = j->init || bi;
            if (acts && passive(p))
                MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win);
            for (int m = 0; acts && m < w; m++) {
                if (p == PROTO_PUT_FENCE || p == PROTO_PUT_LOCK)
                    MPI_Put(s, n, MPI_BYTE, to, 0, n, MPI_BYTE, win);
                else
                    MPI_Get(r, n, MPI_BYTE, to, 0, n, MPI_BYTE, win);
            }
            if (passive(p)) {
                if (acts)
                    MPI_Win_unlock(to, win);
            } else {
                MPI_Win_fence(0, win);
            }
            continue;
        }
        if (bi) {
            if (p == PROTO_PERSISTENT) {
                MPI_Startall(2 * w, q);
            } else {
                for (int m = 0; m < w; m++)
                    MPI_Irecv(r, n, MPI_BYTE, to, TAG, c, &q[m]);
                for (int m = 0; m < w; m++)
                    MPI_Isend(s, n, MPI_BYTE, to, TAG, c, &q[w + m]);
            }
            wait_all(2 * w, q);
            continue;
        }
        if (j->init) {
            if (p == PROTO_RSEND)  /* the receiver's "ready": its window is posted */
                MPI_Recv(NULL, 0, MPI_BYTE, to, ACK, c, MPI_STATUS_IGNORE);
            if (p == PROTO_SEND) {
                for (int m = 0; m < w; m++)
                    MPI_Send(s, n, MPI_BYTE, to, TAG, c);
            } else {
                if (p == PROTO_PERSISTENT)
                    MPI_Startall(w, q);
                for (int m = 0; p != PROTO_PERSISTENT && m < w; m++) {
                    if (p == PROTO_SSEND)
                        MPI_Issend(s, n, MPI_BYTE, to, TAG, c, &q[m]);
                    else if (p == PROTO_RSEND)
                        MPI_Irsend(s, n, MPI_BYTE, to, TAG, c, &q[m]);
                    else
                        MPI_Isend(s, n, MPI_BYTE, to, TAG, c, &q[m]);
                }
                wait_all(w, q);
            }
            if (p != PROTO_RSEND)
                MPI_Recv(NULL, 0, MPI_BYTE, to, ACK, c, MPI_STATUS_IGNORE);
        } else {
            if (p == PROTO_PERSISTENT) {
                MPI_Startall(w, q);
            } else {
                for (int m = 0; m < w; m++)
                    MPI_Irecv(r, n, MPI_BYTE, to, TAG, c, &q[m]);
            }
            if (p == PROTO_RSEND)
                MPI_Send(NULL, 0, MPI_BYTE, to, ACK, c);
            wait_all(w, q);
            if (p != PROTO_RSEND)
                MPI_Send(NULL, 0, MPI_BYTE, to, ACK, c);
        }
    }
    if (!bi && !one_sided(p) && p == PROTO_RSEND) {
        /* The last window's completion at the receiver is part of the batch. */
        if (j->init)
            MPI_Recv(NULL, 0, MPI_BYTE, to, ACK, c, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, to, ACK, c);
    }
}

/* Does this rank's rbuf receive the peer's data in this mode/protocol? */
static int receives(const job *j)
{
    comm_mode m = j->cfg->mode;
    comm_proto p = j->cfg->proto;
    if (m == MODE_SWAP || m == MODE_BISTREAM)
        return 1;
    if (m == MODE_PINGPONG && !passive(p))
        return 1;
    int gets = p == PROTO_GET_FENCE || p == PROTO_GET_LOCK;
    return gets ? j->init : !j->init;
}

/* Persistent requests for this size (outside the timed region). */
static void make_persistent(job *j)
{
    int w = j->cfg->window, n = j->n;
    char *s = j->b->sbuf, *r = j->b->rbuf;
    switch (j->cfg->mode) {
    case MODE_PINGPONG:
    case MODE_SWAP:
        MPI_Recv_init(r, n, MPI_BYTE, j->from, TAG, j->act, &j->req[0]);
        MPI_Send_init(s, n, MPI_BYTE, j->to, TAG, j->act, &j->req[1]);
        break;
    case MODE_STREAM:
        for (int m = 0; m < w; m++) {
            if (j->init)
                MPI_Send_init(s, n, MPI_BYTE, j->to, TAG, j->act, &j->req[m]);
            else
                MPI_Recv_init(r, n, MPI_BYTE, j->to, TAG, j->act, &j->req[m]);
        }
        break;
    case MODE_BISTREAM:
        for (int m = 0; m < w; m++) {
            MPI_Recv_init(r, n, MPI_BYTE, j->to, TAG, j->act, &j->req[m]);
            MPI_Send_init(s, n, MPI_BYTE, j->to, TAG, j->act, &j->req[w + m]);
        }
        break;
    }
}

static void free_persistent(job *j)
{
    int c = j->cfg->mode == MODE_BISTREAM ? 2 * j->cfg->window
            : j->cfg->mode == MODE_STREAM ? j->cfg->window : 2;
    for (int m = 0; m < c; m++)
        MPI_Request_free(&j->req[m]);
}

static void run_mode(const job *j, long k)
{
    switch (j->cfg->mode) {
    case MODE_PINGPONG: pingpong(j, k); break;
    case MODE_SWAP: swap(j, k); break;
    default: stream(j, k); break;
    }
}

/* Warm the buffers up before a sample: two-sided protocols whose
 * operations need no extra set-up (ready sends pre-post their receives;
 * one-sided ones fence or lock), and only when the caches are not flushed
 * on purpose (--flush measures cold buffers). */
static int steady_state_warmup(const job *j)
{
    comm_proto p = j->cfg->proto;
    return j->cfg->flush == 0 && !one_sided(p) && p != PROTO_RSEND;
}

/* One sample: prepare and check the data outside the timed region. Returns
 * the slowest timed rank's time (on act's rank 0). */
static double sample(job *j, long k, long idx)
{
    int me = hpc_rank, n = j->n;
    comm_bufs *b = j->b;
    comm_proto p = j->cfg->proto;
    int from_world;
    {
        MPI_Group w, g;
        MPI_Comm_group(MPI_COMM_WORLD, &w);
        MPI_Comm_group(j->act, &g);
        MPI_Group_translate_ranks(g, 1, &j->from, w, &from_world);
        MPI_Group_free(&w);
        MPI_Group_free(&g);
    }
    memset(b->rbuf, 0, (size_t)n + 1);
    hpc_fill(b->sbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)me));
    if (steady_state_warmup(j)) {
        /* Untimed: freshly written buffers are slower to move the first time
         * (a large message's batch is one operation, a window's first
         * message is one of w): one operation brings them to the steady
         * state of repeated transfers, as osu_bw -c warms up; the receive
         * buffer is cleared again so that the check proves the timed batch. */
        run_mode(j, 1);
        memset(b->rbuf, 0, (size_t)n + 1);
    }
    comm_flush_cache(j->cfg->flush);

    MPI_Barrier(j->act);
    if (p == PROTO_RSEND && j->cfg->mode == MODE_PINGPONG && !j->init)
        MPI_Irecv(b->rbuf, n, MPI_BYTE, j->to, TAG, j->act, &j->req[1]);
    if (one_sided(p) && !passive(p))
        MPI_Win_fence(0, p == PROTO_PUT_FENCE ? b->wr : b->ws);
    /* An untimed empty round trip with the peer: it waits when the clock starts. */
    if (j->to == j->from) {
        if (j->init) {
            MPI_Send(NULL, 0, MPI_BYTE, j->to, ACK, j->act);
            MPI_Recv(NULL, 0, MPI_BYTE, j->to, ACK, j->act, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, j->to, ACK, j->act, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, j->to, ACK, j->act);
        }
    }

    double t0 = hpc_now();
    run_mode(j, k);
    double t = hpc_now() - t0;

    if (passive(p)) {
        /* The target learns that the origin is done before it looks at its buffer. */
        if (j->init)
            MPI_Send(NULL, 0, MPI_BYTE, j->to, ACK, j->act);
        else if (j->to == j->from)
            MPI_Recv(NULL, 0, MPI_BYTE, j->to, ACK, j->act, MPI_STATUS_IGNORE);
    }

    int rec = receives(j);
    if (hpc_inject == HPC_INJECT_CORRUPT && rec && n > 0)
        b->rbuf[n / 2] ^= 0x5a;
    long long bad = -1;
    if (rec) {
        bad = hpc_check(b->rbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx,
                                                     (uint64_t)from_world));
        if (bad < 0 && b->rbuf[n] != 0)
            bad = n;  /* more bytes arrived than were sent */
    }
    if (bad >= 0)
        hpc_fail("data check failed: %d-byte messages, sample %ld: rank %d received a wrong "
                 "byte at offset %lld (from rank %d)", n, idx, me, bad, from_world);

    /* Only the ranks that time a whole operation count: initiators in pair
     * modes (their clock spans the round trip), every rank in swap and ring. */
    int timed = j->cfg->mode == MODE_SWAP || j->to != j->from || j->init;
    double mine = timed ? t : 0.0, slowest;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, j->act);
    return slowest;
}

void comm_p2p_point(MPI_Comm act, const comm_role *me, const comm_p2p_cfg *cfg, comm_bufs *b,
                    size_t bytes, comm_point *out)
{
    job j = {.act = act, .cfg = cfg, .b = b, .init = me->initiator, .n = (int)bytes};
    j.to = comm_rank_in(act, me->to);
    j.from = comm_rank_in(act, me->from);
    j.req = malloc(sizeof(MPI_Request) * 2 * (size_t)(cfg->window > 1 ? cfg->window : 1));
    if (!j.req)
        abort();
    if (cfg->proto == PROTO_PERSISTENT)
        make_persistent(&j);

    /* Operations per sample: chosen so that a sample lasts >= 50 us and
     * >= 1000 timer ticks (rank 0 decides, batch.h); these samples warm up too.
     * Kept samples are times of one operation (see comm.h). */
    double per = 1.0;
    if (cfg->mode == MODE_PINGPONG && !passive(cfg->proto))
        per = 2.0;
    hpc_batch bt;
    hpc_batch_init(&bt, hpc_batch_tick_target(), MAX_BATCH, per, act);
    long idx = 0;
    while (hpc_batch_add_coll(&bt, sample(&j, bt.k, idx++)))
        ;
    out->n = bt.s.n;
    out->converged = bt.s.converged;
    out->batch = bt.k;
    out->t = malloc((size_t)(bt.s.n > 0 ? bt.s.n : 1) * sizeof(double));
    if (!out->t)
        abort();
    for (int i = 0; i < bt.s.n; i++)
        out->t[i] = bt.s.samples[i];
    hpc_batch_free(&bt);
    if (cfg->proto == PROTO_PERSISTENT)
        free_persistent(&j);
    free(j.req);
}

/* One record from values already scaled: stats, params, batch length. */
static void emit_values(const char *metric, const char *unit, const char *better,
                        const double *v, int n, int converged, const char *batch_key,
                        long batch, void (*params)(hpc_json *, const void *), const void *ctx)
{
    hpc_stats st;
    hpc_stats_compute(v, n, &st);
    hpc_json r;
    hpc_result_begin(&r, metric, unit, "median", better);
    params(&r, ctx);
    hpc_result_stats(&r, &st, converged);
    hpc_json_int(&r, batch_key, batch);
    hpc_json_str(&r, "buffer_pages", comm_buffer_pages);
    if (comm_refining)
        hpc_json_bool(&r, "refined", 1);  /* a size the sweep added to bracket a switch */
    hpc_json_emit(&r);
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
    emit_values(metric, unit, better, v, p->n, p->converged, "ops_per_sample", p->batch, params,
                ctx);
    free(v);
}

void comm_emit_batch(const char *metric, const char *unit, const char *better,
                     const hpc_batch *b, double scale, int is_rate, double work,
                     const char *batch_key,
                     void (*params)(hpc_json *, const void *), const void *ctx)
{
    if (hpc_rank != 0)
        return;
    const hpc_sampler *s = &b->s;
    double *v = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *v);
    if (!v)
        abort();
    for (int i = 0; i < s->n; i++)
        v[i] = is_rate ? work / (s->samples[i] * scale) : s->samples[i] * scale;
    emit_values(metric, unit, better, v, s->n, s->converged, batch_key, b->k, params, ctx);
    free(v);
}
