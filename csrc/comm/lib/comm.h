/* comm.h - shared code of the communication benchmarks: buffers, node
 * identity, placement patterns and the point-to-point protocol engine.
 *
 * A point (one message size, one mode, one protocol) is measured by
 * comm_p2p_point(): every active rank of `act` has a role (its peer(s) and
 * whether it initiates), one sample is a batch of k operations timed by each
 * active rank, and the sample kept is the slowest rank's time (MPI_MAX over
 * `act`), so contention between simultaneous pairs shows. Data are checked
 * after every batch, outside the timed region.
 */
#ifndef HPC_COMM_H
#define HPC_COMM_H

#include "batch.h"
#include "harness.h"

#include <stddef.h>

typedef enum { MODE_PINGPONG, MODE_SWAP, MODE_STREAM, MODE_BISTREAM } comm_mode;

typedef enum {
    PROTO_SEND, PROTO_SENDRECV, PROTO_ISEND, PROTO_SSEND, PROTO_RSEND, PROTO_PERSISTENT,
    PROTO_PUT_FENCE, PROTO_GET_FENCE, PROTO_PUT_LOCK, PROTO_GET_LOCK
} comm_proto;

#define COMM_MODES "pingpong|swap|stream|bistream"
#define COMM_PROTOS "send|sendrecv|isend|ssend|rsend|persistent|put-fence|get-fence|put-lock|get-lock"

comm_mode comm_mode_parse(const char *s);
comm_proto comm_proto_parse(const char *s);
/* NULL if the protocol works in the mode, else why not (one line). */
const char *comm_proto_unsupported(comm_mode m, comm_proto p);

/* 2 MiB-aligned, every page touched (no page fault while timing), with the
 * pages --buffer-pages asks for: thp (the default: transparent huge pages
 * asked for with madvise) or base (MADV_NOHUGEPAGE, as OSU's buffers get
 * them where THP is "madvise"). Huge pages make the buffers' cache placement
 * the same in every run: with base pages a 16 KiB ping-pong moved by 13%
 * between processes, 1 MiB ran 25% slower and 4 MiB was bimodal. */
void *comm_alloc(size_t bytes);
/* Busy computation of d seconds outside MPI: the CPU stays busy, as in an
 * overlapped computation (netgauge spins on its clock the same way); under
 * SMPI the time is charged to the simulated host. */
void comm_busy(double d);
/* What the buffers got: "thp", or "base" (asked for, or once an allocation
 * got no huge page); and what --buffer-pages asked for. Every record says. */
extern const char *comm_buffer_pages;
const char *comm_pages_asked(void);

/* The --buffer-pages option of every binary that allocates with comm_alloc. */
#define COMM_PAGES_OPTION                                                        \
    {.name = "buffer-pages", .type = HPC_CHOICE, .def = "thp", .choices = "thp|base", \
     .help = "message buffers' pages: thp (transparent huge pages asked for) or base"}
/* The --sizes option: *sizes, *n as hpc_opt_list gives them; returns the
 * largest size, at least 1 (for buffer sizes). */
long long comm_opt_sizes(const long long **sizes, int *n);

/* Node of every rank of MPI_COMM_WORLD (0..nnodes-1, in order of each node's
 * lowest rank). ranks_per_node > 0 overrides what MPI reports (shared-memory
 * split), so that cross-node patterns can be exercised on one machine.
 * Collective. Returns nnodes; node[] has hpc_nranks entries. */
int comm_nodes(int ranks_per_node, int *node);

/* Role of one rank in a placement pattern. */
typedef struct {
    int active;     /* takes part */
    int initiator;  /* pair patterns: the lower rank of its pair */
    int to, from;   /* world ranks it sends to / receives from (equal for pairs) */
} comm_role;

#define COMM_PATTERNS "0-1|intra-pairs|0-k|ring|cross-pairs"

/* Fill role[0..nranks-1] for a pattern: 0-1 (ranks 0 and 1, same node),
 * intra-pairs (2i with 2i+1, all at once, each pair inside a node), 0-k (0 with
 * the first rank of another node, or with `peer` if >= 0), ring (i sends to
 * i+1 and receives from i-1, all at once), cross-pairs (local rank l of node
 * 2j with local rank l of node 2j+1, all at once). Returns NULL, or why the
 * pattern cannot run here (odd rank count, one node, ...). */
const char *comm_pattern(const char *pattern, int peer, const int *node, int nnodes,
                         comm_role *role);

typedef struct {
    comm_mode mode;
    comm_proto proto;
    int window;     /* messages in flight per batch step (stream modes) */
    size_t flush;   /* bytes written between samples to evict caches, 0: none */
} comm_p2p_cfg;

/* Result of one measured point (valid on rank 0 of act). */
typedef struct {
    double *t;     /* per-sample slowest time of one operation [s] */
    int n;
    int converged;
    long batch;    /* operations per sample */
} comm_point;

/* Message buffers of one rank, and with one-sided protocols the windows
 * over them (created collectively over act). */
typedef struct {
    MPI_Win ws, wr;   /* over sbuf and rbuf of every rank of act */
    char *sbuf, *rbuf;
    size_t cap;
} comm_bufs;

void comm_bufs_init(comm_bufs *b, size_t cap, MPI_Comm act, int with_windows);
void comm_bufs_free(comm_bufs *b, int with_windows);

/* Measure one point over `act` (the active ranks; their world ranks in
 * role). b holds at least `bytes` (comm_bufs_init, with windows for the
 * one-sided protocols).
 * One operation: pingpong = one one-way message (half a round trip);
 * passive-target put/get pingpong = one lock/op/unlock; swap = one
 * simultaneous exchange; stream/bistream = one window of messages.
 * Collective over act. Free out->t with free(). */
void comm_p2p_point(MPI_Comm act, const comm_role *me, const comm_p2p_cfg *cfg,
                    comm_bufs *b, size_t bytes, comm_point *out);

/* k round trips of n bytes with peer (a rank of c): the initiator sends first, the other
 * answers; send is MPI_Send or MPI_Ssend. Nothing but the send/receive pair is inside the
 * loop (send is called through a pointer, as a direct call goes through the PLT anyway);
 * *st is the last receive's status (MPI_STATUS_IGNORE allowed), for a check after it.
 * Returns the loop's time, clock read right around it (on the initiator: k round trips). */
typedef int (*comm_send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
double comm_round_trips(MPI_Comm c, int peer, int init, comm_send_fn send, const char *sbuf,
                      char *rbuf, int n, long k, MPI_Status *st);

/* Write latency/bandwidth-style records from per-sample times: value =
 * scale / t (rates) or t * scale (times). params() writes the params. */
void comm_emit(const char *metric, const char *unit, const char *better, const comm_point *p,
               double scale, int is_rate, void (*params)(hpc_json *, const void *),
               const void *ctx);

/* The keys every comm record has after its batch length (hpc_point.extra): buffer_pages,
 * and refined for a size comm_refine_switches added. */
void comm_record_extra(hpc_json *r);

/* Write over `bytes` of a private buffer so caches hold none of the message
 * buffers (no-op when bytes == 0). */
void comm_flush_cache(size_t bytes);

/* npts points (sizes bytes[]) over the ranks of colour `color` of a split of the world,
 * ordered by key (the points are valid on the lowest), buffers of `cap` bytes; the ranks of
 * colour MPI_UNDEFINED (me NULL allowed) pass by. Collective over the world. */
void comm_split_points(int color, int key, const comm_role *me, const comm_p2p_cfg *cfg,
                       size_t cap, int npts, const size_t *bytes, comm_point *pts);

/* The point measured on world rank `from` handed to world rank 0 (a no-op when from is 0):
 * collective over the two; on rank 0 *p is filled (free p->t), elsewhere left as it is. */
void comm_point_to_root(int from, comm_point *p);

/* World rank -> rank in comm (MPI_UNDEFINED if not in it). */
int comm_rank_in(MPI_Comm comm, int world_rank);

#endif
