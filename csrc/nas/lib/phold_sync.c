/* phold_sync.c - the YAWNS and null-message engines (phold_sync.h). */
#include "phold_sync.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const hpc_phase_def phold_phase_defs[PHOLD_NPHASES] = {
    {"process", HPC_KIND_COMPUTE}, {"send", HPC_KIND_COMM}, {"sync", HPC_KIND_COMM}};

/* yawns alternates the tag by window: a rank one window ahead may already have sent its
 * next batches while a slower one still counts those of the last window. */
enum { TAG = 46 };

/* A batch sent, its buffer kept until the send completes (req MPI_REQUEST_NULL: free). */
typedef struct {
    phold_event *buf;
    size_t cap;
    MPI_Request req;
} flight;

/* One output channel: events gathered in fill (fill[0] is the header) while the batches sent
 * before may still be on their way. No rank ever waits for a send before the next: a rank
 * spinning on MPI_Test for its large send while receiving (MPI_Iprobe) livelocked under SMPI
 * (a null-message launch never ended), and a blocking wait deadlocks two ranks whose large
 * sends wait for each other's receive. */
typedef struct {
    phold_event *fill;
    size_t n, cap;  /* n: events in fill after the header */
    flight *fl;
    int nfl;
} channel;

typedef struct {
    phold_sync sync;
    phold_part *p;
    hpc_phases *ph;
    phold_counts *c;
    int me, np;
    channel *out;
    double *clock;     /* null: the last promise received from each rank */
    double *promised;  /* null: the last promise sent to each rank */
    double sent_min;   /* yawns: the earliest event sent in this window */
    phold_event *rbuf;
    size_t rcap;
    int tag;           /* of the batches sent in this window (null: always TAG) */
} engine;

static phold_event *ensure(phold_event *p, size_t *cap, size_t need)
{
    return phold_grow(p, cap, need, sizeof *p);
}

static void engine_init(engine *g, phold_sync sync, phold_part *p, hpc_phases *ph,
                        phold_counts *c)
{
    memset(g, 0, sizeof *g);
    g->sync = sync;
    g->p = p;
    g->ph = ph;
    g->c = c;
    MPI_Comm_rank(MPI_COMM_WORLD, &g->me);
    MPI_Comm_size(MPI_COMM_WORLD, &g->np);
    g->out = calloc((size_t)g->np, sizeof *g->out);
    g->clock = calloc((size_t)g->np, sizeof *g->clock);
    g->promised = calloc((size_t)g->np, sizeof *g->promised);
    if (!g->out || !g->clock || !g->promised) {
        fprintf(stderr, "phold: no memory for %d channels\n", g->np);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    g->clock[g->me] = INFINITY;  /* no channel to itself */
    g->sent_min = INFINITY;
    g->tag = TAG;
}

static void engine_free(engine *g)
{
    for (int d = 0; d < g->np; d++) {
        free(g->out[d].fill);
        for (int i = 0; i < g->out[d].nfl; i++)
            free(g->out[d].fl[i].buf);
        free(g->out[d].fl);
    }
    free(g->out);
    free(g->clock);
    free(g->promised);
    free(g->rbuf);
}

/* Receive one batch (from any rank): queue its events, note its promise. Without block,
 * only if one has arrived; returns whether one was received. */
static int receive(engine *g, int block)
{
    MPI_Status st;
    int flag = 1, bytes;
    if (block)
        MPI_Probe(MPI_ANY_SOURCE, g->tag, MPI_COMM_WORLD, &st);
    else
        MPI_Iprobe(MPI_ANY_SOURCE, g->tag, MPI_COMM_WORLD, &flag, &st);
    if (!flag)
        return 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    size_t n = (size_t)bytes / sizeof(phold_event);
    g->rbuf = ensure(g->rbuf, &g->rcap, n);
    MPI_Recv(g->rbuf, bytes, MPI_BYTE, st.MPI_SOURCE, g->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (size_t k = 1; k < n; k++)
        phold_heap_push(&g->p->heap, &g->rbuf[k]);
    /* the events came before the promise: they are queued before the clock moves past them */
    g->clock[st.MPI_SOURCE] = g->rbuf[0].t;
    return 1;
}

/* A flight of d's whose send has completed (tested once each, never waited for), else a
 * new one. */
static flight *free_flight(channel *ch)
{
    for (int i = 0; i < ch->nfl; i++) {
        int done = 1;
        if (ch->fl[i].req != MPI_REQUEST_NULL)
            MPI_Test(&ch->fl[i].req, &done, MPI_STATUS_IGNORE);
        if (done)
            return &ch->fl[i];
    }
    flight *more = realloc(ch->fl, ((size_t)ch->nfl + 1) * sizeof *more);
    if (!more) {
        fprintf(stderr, "phold: no memory for a batch in flight\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    ch->fl = more;
    ch->fl[ch->nfl] = (flight){NULL, 0, MPI_REQUEST_NULL};
    return &ch->fl[ch->nfl++];
}

static int in_flight(const channel *ch)
{
    for (int i = 0; i < ch->nfl; i++)
        if (ch->fl[i].req != MPI_REQUEST_NULL)
            return 1;
    return 0;
}

static void send_batch(engine *g, int d, double promise)
{
    channel *ch = &g->out[d];
    ch->fill = ensure(ch->fill, &ch->cap, 1);  /* a null message is a header alone */
    flight *f = free_flight(ch);
    phold_event *b = ch->fill;
    size_t cap = ch->cap;
    ch->fill = f->buf;
    ch->cap = f->cap;
    f->buf = b;
    f->cap = cap;
    b[0] = (phold_event){promise, 0, g->me, 0};
    size_t n = ch->n;
    ch->n = 0;
    MPI_Isend(b, (int)((n + 1) * sizeof *b), MPI_BYTE, d, g->tag, MPI_COMM_WORLD, &f->req);
    if (n)
        g->c->batches++;
    else
        g->c->sync_msgs++;
}

/* Queue a scheduled event here, or add it to its rank's next batch. */
static void route(engine *g, const phold_event *e)
{
    const phold_model *m = g->p->m;
    int d = phold_owner(e->dst, g->np, m->lps);
    if (d == g->me) {
        phold_heap_push(&g->p->heap, e);
        return;
    }
    channel *ch = &g->out[d];
    ch->fill = ensure(ch->fill, &ch->cap, ch->n + 2);
    ch->fill[++ch->n] = *e;
    g->c->remote_events++;
    if (e->t < g->sent_min)
        g->sent_min = e->t;
}

/* Process every queued event before bound. */
static void process_until(engine *g, double bound)
{
    phold_part *p = g->p;
    int64_t before = p->committed;
    while (p->heap.n && p->heap.a[0].t < bound) {
        phold_event e = phold_heap_pop(&p->heap), next;
        if (phold_process(p, &e, &next))
            route(g, &next);
    }
    g->c->committed += p->committed - before;
}

/* Every batch sent has been received, or will be without this rank: yawns has received its
 * window's batches; a null rank has every other's promise of the end, so every rank still
 * running receives what it was sent. */
static void wait_all_flights(engine *g)
{
    for (int d = 0; d < g->np; d++)
        for (int i = 0; i < g->out[d].nfl; i++)
            MPI_Wait(&g->out[d].fl[i].req, MPI_STATUS_IGNORE);
}

/* Sums batch counts, takes the minimum of the last element (the earliest event time). */
static void sum_then_min(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    double *a = in, *b = inout;
    for (int k = 0; k < *len - 1; k++)
        b[k] += a[k];
    b[*len - 1] = fmin(a[*len - 1], b[*len - 1]);
}

/* One reduction: how many batches come to each rank, and the earliest pending event. */
static double window_reduce(engine *g, MPI_Op op, double *buf, int *expect)
{
    for (int d = 0; d < g->np; d++)
        buf[d] = in_flight(&g->out[d]);  /* a batch went to d this window */
    buf[g->np] = fmin(phold_heap_min(&g->p->heap), g->sent_min);
    MPI_Allreduce(MPI_IN_PLACE, buf, g->np + 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
    g->c->windows++;
    g->c->sync_msgs += g->np > 1;
    *expect = (int)buf[g->me];
    return buf[g->np];
}

static void run_yawns(engine *g)
{
    const phold_model *m = g->p->m;
    MPI_Op op;
    MPI_Op_create(sum_then_min, 1, &op);
    double *buf = malloc(((size_t)g->np + 1) * sizeof *buf);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (;;) {
        int expect;
        hpc_phase_to(g->ph, PHOLD_PH_SYNC);
        double t = window_reduce(g, op, buf, &expect);
        hpc_phase_to(g->ph, PHOLD_PH_SEND);
        for (int k = 0; k < expect; k++)
            receive(g, 1);
        wait_all_flights(g);  /* every batch was received: req back to MPI_REQUEST_NULL */
        if (t >= m->end)
            break;
        double window_end = fmin(t + m->lookahead, m->end);
        g->tag ^= 1;
        hpc_phase_to(g->ph, PHOLD_PH_PROCESS);
        g->sent_min = INFINITY;
        process_until(g, window_end);
        hpc_phase_to(g->ph, PHOLD_PH_SEND);
        for (int d = 0; d < g->np; d++)
            if (g->out[d].n)
                send_batch(g, d, window_end);
    }
    free(buf);
    MPI_Op_free(&op);
}

static double min_clock(const engine *g)
{
    double safe = INFINITY;
    for (int d = 0; d < g->np; d++)
        safe = fmin(safe, g->clock[d]);
    return safe;
}

static void run_null(engine *g)
{
    const phold_model *m = g->p->m;
    for (;;) {
        hpc_phase_to(g->ph, PHOLD_PH_SEND);
        while (receive(g, 0))
            ;
        double safe = min_clock(g);
        hpc_phase_to(g->ph, PHOLD_PH_PROCESS);
        process_until(g, fmin(safe, m->end));
        hpc_phase_to(g->ph, PHOLD_PH_SEND);
        double next = phold_heap_min(&g->p->heap);
        /* nothing this rank sends from now on is earlier than this */
        double promise = fmin(fmin(next, safe) + m->lookahead, m->end);
        for (int d = 0; d < g->np; d++)
            if (d != g->me && (g->out[d].n || promise > g->promised[d])) {
                send_batch(g, d, promise);
                g->promised[d] = promise;
            }
        g->c->windows++;
        if (next >= m->end && safe >= m->end)
            break;  /* every channel said end: nothing more will come */
        hpc_phase_to(g->ph, PHOLD_PH_SYNC);
        MPI_Status st;
        MPI_Probe(MPI_ANY_SOURCE, g->tag, MPI_COMM_WORLD, &st);
    }
    hpc_phase_to(g->ph, PHOLD_PH_SEND);
    wait_all_flights(g);
}

void phold_run(phold_sync sync, phold_part *p, hpc_phases *ph, phold_counts *c)
{
    engine g;
    engine_init(&g, sync, p, ph, c);
    if (sync == PHOLD_YAWNS)
        run_yawns(&g);
    else
        run_null(&g);
    hpc_phases_stop(ph);
    engine_free(&g);
}
