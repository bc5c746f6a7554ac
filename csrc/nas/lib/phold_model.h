/* phold_model.h - the PHOLD model: logical processes (LPs), their events,
 * the counter-based random numbers and a binary-heap event queue.
 *
 * N LPs start with `population` events each. Processing an event at LP d,
 * time t, takes LP d's next event number n and draws from (seed, d, n) only:
 * with probability `remote` the new event goes to an LP drawn uniformly from
 * all N (it may be d itself or an LP of the same rank), otherwise to d
 * itself; its time is t + lookahead + an exponential delay of mean `mean`.
 * Events at or after `end` are neither processed nor sent. Because the
 * draws depend on (LP, event number) and the queue order on the event alone,
 * the committed events and the final LP states are the same for any number
 * of ranks; phold_sequential is the one-queue reference.
 */
#ifndef PHOLD_MODEL_H
#define PHOLD_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* An event; also the wire format (a batch is an array of them, see phold_sync.h). */
typedef struct {
    double t;        /* simulated time */
    int64_t dst;     /* the LP that processes it */
    int64_t src;     /* the LP that scheduled it (initial events: dst) */
    uint64_t seq;    /* src's event number that scheduled it (initial: 0..population-1) */
} phold_event;

typedef struct {
    int64_t lps, population;
    double end, mean, lookahead, remote;
    uint64_t seed;
} phold_model;

/* Total order of events: (t, dst, src, seq); unique, so ties never depend on arrival. */
int phold_before(const phold_event *a, const phold_event *b);

/* An array of at least need elements (capacity doubled); out of memory: abort. */
void *phold_grow(void *p, size_t *cap, size_t need, size_t elem);

typedef struct {
    phold_event *a;
    size_t n, cap;
} phold_heap;

void phold_heap_push(phold_heap *h, const phold_event *e);
phold_event phold_heap_pop(phold_heap *h);
/* The earliest event's time, or INFINITY when empty. */
double phold_heap_min(const phold_heap *h);

/* The 64-bit hash of (seed, lp, event number, draw): splitmix64's finaliser chained. */
uint64_t phold_hash(uint64_t seed, uint64_t lp, uint64_t n, uint64_t draw);
/* Uniform on (0, 1), never 0 or 1, from a hash. */
double phold_unit(uint64_t h);

/* The LPs of one rank (block distribution), their states and event queue. */
typedef struct {
    const phold_model *m;
    int64_t first, count;   /* LPs first .. first+count-1 */
    uint64_t *state;        /* per local LP: a running hash of the events it processed */
    int64_t *done;          /* per local LP: events processed */
    phold_heap heap;
    int64_t committed;
} phold_part;

int64_t phold_first_lp(int rank, int nranks, int64_t lps);
int phold_owner(int64_t lp, int nranks, int64_t lps);

/* Fresh LP states and the initial events of LPs first .. first+count-1. */
void phold_part_init(phold_part *p, const phold_model *m, int64_t first, int64_t count);
void phold_part_free(phold_part *p);

/* Process e (an event of this part, e->t < end): update its LP, and return 1 with the
 * scheduled event in *out, or 0 when that falls at or after the end. */
int phold_process(phold_part *p, const phold_event *e, phold_event *out);

/* The part's contribution to the checksum (a sum over LPs: any partition adds up the same). */
uint64_t phold_part_checksum(const phold_part *p);

/* The whole model on one queue. */
void phold_sequential(const phold_model *m, int64_t *events, uint64_t *checksum);

#endif
