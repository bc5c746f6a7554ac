/* p2p_batch.c - one batch of operations per mode and protocol (p2p_batch.h), and the
 * ping-pong loop every ping-pong uses (comm_round_trips). Nothing but the operations is
 * inside the loops: buffers are prepared and checked around them (p2p_engine.c).
 */
#include "p2p_batch.h"

#include <stdlib.h>

double comm_round_trips(MPI_Comm c, int peer, int init, comm_send_fn send, const char *sbuf,
                        char *rbuf, int n, long k, MPI_Status *st)
{
    double t0;
    if (init) {
        t0 = hpc_now();
        for (long i = 0; i < k; i++) {
            send(sbuf, n, MPI_BYTE, peer, TAG, c);
            MPI_Recv(rbuf, n, MPI_BYTE, peer, TAG, c, st);
        }
    } else {
        t0 = hpc_now();
        for (long i = 0; i < k; i++) {
            MPI_Recv(rbuf, n, MPI_BYTE, peer, TAG, c, st);
            send(sbuf, n, MPI_BYTE, peer, TAG, c);
        }
    }
    return hpc_now() - t0;
}

static void pingpong_isend(const job *j, long k)
{
    char *s = j->b->sbuf, *r = j->b->rbuf;
    int n = j->n, to = j->to;
    MPI_Comm c = j->act;
    MPI_Request *q = j->req;
    if (j->init) {
        for (long i = 0; i < k; i++) {
            MPI_Irecv(r, n, MPI_BYTE, to, TAG, c, &q[0]);
            MPI_Isend(s, n, MPI_BYTE, to, TAG, c, &q[1]);
            hpc_wait_all(2, q);
        }
        return;
    }
    for (long i = 0; i < k; i++) {
        MPI_Irecv(r, n, MPI_BYTE, to, TAG, c, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Isend(s, n, MPI_BYTE, to, TAG, c, &q[1]);
        MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    }
}

/* A ready send needs the receive posted: each side posts the receive for the next message
 * before it sends. The responder's first receive was posted before the batch (sample()). */
static void pingpong_rsend(const job *j, long k)
{
    char *s = j->b->sbuf, *r = j->b->rbuf;
    int n = j->n, to = j->to;
    MPI_Comm c = j->act;
    MPI_Request *q = j->req;
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
}

static void pingpong_persistent(const job *j, long k)
{
    MPI_Request *q = j->req;
    for (long i = 0; i < k; i++) {
        if (j->init) {
            MPI_Startall(2, q);
            hpc_wait_all(2, q);
        } else {
            MPI_Start(&q[0]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            MPI_Start(&q[1]);
            MPI_Wait(&q[1], MPI_STATUS_IGNORE);
        }
    }
}

/* Ping: the initiator moves the data, fence; pong: the responder, fence. */
static void pingpong_fence(const job *j, long k)
{
    comm_proto p = j->cfg->proto;
    char *s = j->b->sbuf, *r = j->b->rbuf;
    int n = j->n, to = j->to;
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
}

/* Passive target: only the initiator acts; one operation is lock, put/get, unlock (the
 * unlock completes it at both ends). */
static void pingpong_lock(const job *j, long k)
{
    comm_proto p = j->cfg->proto;
    char *s = j->b->sbuf, *r = j->b->rbuf;
    int n = j->n, to = j->to;
    if (!j->init)
        return;
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

static void pingpong(const job *j, long k)
{
    switch (j->cfg->proto) {
    case PROTO_SEND:
    case PROTO_SSEND:
        comm_round_trips(j->act, j->to, j->init,
                         j->cfg->proto == PROTO_SSEND ? MPI_Ssend : MPI_Send, j->b->sbuf,
                         j->b->rbuf, j->n, k, MPI_STATUS_IGNORE);
        break;
    case PROTO_ISEND: pingpong_isend(j, k); break;
    case PROTO_RSEND: pingpong_rsend(j, k); break;
    case PROTO_PERSISTENT: pingpong_persistent(j, k); break;
    case PROTO_PUT_FENCE:
    case PROTO_GET_FENCE: pingpong_fence(j, k); break;
    case PROTO_PUT_LOCK:
    case PROTO_GET_LOCK: pingpong_lock(j, k); break;
    default: abort();
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
            hpc_wait_all(2, q);
            break;
        case PROTO_PERSISTENT:
            MPI_Startall(2, q);
            hpc_wait_all(2, q);
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

/* Streaming, one-sided: a window of puts/gets by the initiator (both ends in bistream),
 * completed by a fence or the unlock. */
static void stream_one_sided(const job *j, long k)
{
    comm_proto p = j->cfg->proto;
    char *s = j->b->sbuf, *r = j->b->rbuf;
    int n = j->n, w = j->cfg->window, to = j->to;
    int put = p == PROTO_PUT_FENCE || p == PROTO_PUT_LOCK;
    MPI_Win win = put ? j->b->wr : j->b->ws;
    int acts = j->init || j->cfg->mode == MODE_BISTREAM;
    for (long i = 0; i < k; i++) {
        if (acts && passive(p))
            MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win);
        for (int m = 0; acts && m < w; m++) {
            if (put)
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
    }
}

/* osu_bibw: both ends post a window of receives and of sends. */
static void stream_both(const job *j, long k)
{
    char *s = j->b->sbuf, *r = j->b->rbuf;
    int n = j->n, w = j->cfg->window, to = j->to;
    MPI_Request *q = j->req;
    for (long i = 0; i < k; i++) {
        if (j->cfg->proto == PROTO_PERSISTENT) {
            MPI_Startall(2 * w, q);
        } else {
            for (int m = 0; m < w; m++)
                MPI_Irecv(r, n, MPI_BYTE, to, TAG, j->act, &q[m]);
            for (int m = 0; m < w; m++)
                MPI_Isend(s, n, MPI_BYTE, to, TAG, j->act, &q[w + m]);
        }
        hpc_wait_all(2 * w, q);
    }
}

/* osu_bw's sender: a window of sends, then the receiver's empty acknowledgement (with
 * ready sends the acknowledgement comes first: the receiver's window is posted). */
static void stream_send(const job *j, long k)
{
    comm_proto p = j->cfg->proto;
    char *s = j->b->sbuf;
    int n = j->n, w = j->cfg->window, to = j->to;
    MPI_Comm c = j->act;
    MPI_Request *q = j->req;
    for (long i = 0; i < k; i++) {
        if (p == PROTO_RSEND)
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
            hpc_wait_all(w, q);
        }
        if (p != PROTO_RSEND)
            MPI_Recv(NULL, 0, MPI_BYTE, to, ACK, c, MPI_STATUS_IGNORE);
    }
    if (p == PROTO_RSEND)  /* the last window's completion at the receiver */
        MPI_Recv(NULL, 0, MPI_BYTE, to, ACK, c, MPI_STATUS_IGNORE);
}

/* osu_bw's receiver: a window of receives (all into the same buffer, as osu_bw; the data
 * are identical), then the acknowledgement. */
static void stream_receive(const job *j, long k)
{
    comm_proto p = j->cfg->proto;
    char *r = j->b->rbuf;
    int n = j->n, w = j->cfg->window, to = j->to;
    MPI_Comm c = j->act;
    MPI_Request *q = j->req;
    for (long i = 0; i < k; i++) {
        if (p == PROTO_PERSISTENT) {
            MPI_Startall(w, q);
        } else {
            for (int m = 0; m < w; m++)
                MPI_Irecv(r, n, MPI_BYTE, to, TAG, c, &q[m]);
        }
        if (p == PROTO_RSEND)
            MPI_Send(NULL, 0, MPI_BYTE, to, ACK, c);
        hpc_wait_all(w, q);
        if (p != PROTO_RSEND)
            MPI_Send(NULL, 0, MPI_BYTE, to, ACK, c);
    }
    if (p == PROTO_RSEND)  /* the last window's completion is part of the batch */
        MPI_Send(NULL, 0, MPI_BYTE, to, ACK, c);
}

static void stream(const job *j, long k)
{
    if (one_sided(j->cfg->proto))
        stream_one_sided(j, k);
    else if (j->cfg->mode == MODE_BISTREAM)
        stream_both(j, k);
    else if (j->init)
        stream_send(j, k);
    else
        stream_receive(j, k);
}

void p2p_batch_run(const job *j, long k)
{
    switch (j->cfg->mode) {
    case MODE_PINGPONG: pingpong(j, k); break;
    case MODE_SWAP: swap(j, k); break;
    default: stream(j, k); break;
    }
}
