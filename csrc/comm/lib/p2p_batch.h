/* p2p_batch.h - inside the comm library: one batch of k operations of a mode and
 * protocol (p2p_batch.c), for the engine (p2p_engine.c).
 */
#ifndef HPC_P2P_BATCH_H
#define HPC_P2P_BATCH_H

#include "comm.h"

enum { TAG = 7, ACK = 8 };

/* One point being measured, as one rank sees it. */
typedef struct {
    MPI_Comm act;
    const comm_p2p_cfg *cfg;
    comm_bufs *b;
    int to, from, init;  /* peers as ranks of act; initiator of a pair */
    int n;
    MPI_Request *req;    /* 2 * window */
} job;

static inline int one_sided(comm_proto p) { return p >= PROTO_PUT_FENCE; }
static inline int passive(comm_proto p) { return p == PROTO_PUT_LOCK || p == PROTO_GET_LOCK; }

/* k operations of j's mode and protocol (see comm_p2p_point for what one is). */
void p2p_batch_run(const job *j, long k);

#endif
