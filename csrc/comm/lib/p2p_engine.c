/* p2p_engine.c - the point-to-point protocol engine of comm.h: which protocol works in
 * which mode, the sample around a batch (prepare, time, check) and comm_p2p_point. The
 * batches themselves are in p2p_batch.c.
 */
#include "p2p_batch.h"

#include <stdlib.h>
#include <string.h>

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
        p2p_batch_run(j, 1);
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
    p2p_batch_run(j, k);
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
