/* ps_net.h - PS, the SP2 study's network simulator: a 2-D torus of routers
 * with cut-through flow control, simulated cycle by cycle, its routers in
 * blocks over a logical 2-D torus of processes that each talk to their four
 * neighbours only.
 *
 * Model. X x Y routers, each with a node that injects a packet of `flits`
 * flits in a cycle with probability `inject` (a draw from (seed, router,
 * cycle): phold_model.h's counter-based hash), to a uniformly random other
 * router. Routing is dimension order (x first, then y, the shorter way round,
 * ties eastward/northward). Every router has one FIFO output queue per
 * direction; a link carries one flit a cycle. Cut-through: a packet starts on
 * a free link the cycle it reaches the head of the queue and its head arrives
 * at the next router one cycle later, where it may leave at once while its
 * tail still follows (the link stays busy `flits` cycles); a packet never
 * waits for its tail (store-and-forward would). Queues are unbounded (virtual
 * cut-through with buffers that always take a whole packet: no deadlock, no
 * drop). A packet is delivered when its head reaches its destination; its
 * latency counts to its tail's arrival.
 *
 * Order. In a cycle every router first takes, in a fixed order, its injected
 * packet and the heads that arrive from the west, east, south and north
 * (queueing each on its output or delivering it), then starts a packet on
 * every free output link. Everything a router does in a cycle depends on its
 * own state and on what its neighbours sent in the previous cycle only, so
 * any partition of the routers over processes gives the same run as one
 * process holding them all (ps_sequential): the check.
 *
 * Messages. After each cycle a process sends every neighbouring process one
 * short message per packet crossing to it, or one null message when none
 * does (the last message of a cycle is flagged): at least 4 messages a
 * process a cycle, more with load, as the study's PS did.
 */
#ifndef PS_NET_H
#define PS_NET_H

#include <stddef.h>
#include <stdint.h>

enum { PS_EAST, PS_WEST, PS_NORTH, PS_SOUTH, PS_DIRS };

/* A packet, also a message on the wire (at: the router its head reaches; last: the last
 * message of a cycle to that neighbour; dst -1: a null message). */
typedef struct {
    int32_t src, dst, born, at, last, pad;
} ps_packet;

typedef struct {
    ps_packet *a;
    size_t head, n, cap;
} ps_queue;

typedef struct {
    int X, Y, flits;
    int64_t cycles;
    double inject;   /* packets a router a cycle */
    uint64_t seed;
} ps_model;

/* What a run did: the totals of every router (summed over processes), and its messages. */
enum { PS_INJECTED, PS_DELIVERED, PS_LATENCY, PS_HOPS, PS_QUEUED, PS_CHECKSUM, PS_NCOUNT };
typedef struct {
    uint64_t v[PS_NCOUNT];   /* PS_CHECKSUM: a sum of hashes of the delivered packets */
    int64_t messages;        /* MPI messages this process sent (0 alone) */
} ps_counts;

/* One process's block of routers [x0, x0 + w) x [y0, y0 + h) of a PX x PY process torus. */
typedef struct {
    const ps_model *m;
    int x0, y0, w, h;
    int nbr[PS_DIRS];          /* the neighbouring process (MPI_COMM_WORLD rank); -1: local */
    ps_queue *out;             /* [router][dir] */
    int64_t *busy;             /* [router][dir]: the cycle the link is free again */
    ps_packet *cur, *next;     /* [router][dir]: a head arriving this / the next cycle */
    ps_packet *send[PS_DIRS];  /* packets for the neighbour of a direction, this cycle */
    size_t nsend[PS_DIRS], capsend[PS_DIRS];
    ps_counts c;
} ps_part;

/* The bisection's theoretical bandwidth in flits per router per cycle: 8 / max(X, Y) (a cut
 * across the longer dimension crosses 2 x (shorter) links each way, one flit a cycle each;
 * uniform traffic sends half its flits across). */
double ps_saturation(const ps_model *m);

/* The block of rank r of a px x py process grid (row-major ranks; px | X, py | Y); with
 * px = py = 1 the whole network, and no messages (the sequential reference). */
void ps_part_init(ps_part *p, const ps_model *m, int px, int py, int rank);
void ps_part_free(ps_part *p);

/* All the model's cycles on p (collective over MPI_COMM_WORLD unless p is the whole network);
 * the run's totals are in p->c. */
void ps_run(ps_part *p);

/* The whole network on one process. */
void ps_sequential(const ps_model *m, ps_counts *c);

#endif
