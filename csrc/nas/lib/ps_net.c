/* ps_net.c - PS's torus network, cycle by cycle (ps_net.h). */
#include "ps_net.h"
#include "phold_model.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static const int DX[PS_DIRS] = {1, -1, 0, 0}, DY[PS_DIRS] = {0, 0, 1, -1};
static const int OPPOSITE[PS_DIRS] = {PS_WEST, PS_EAST, PS_SOUTH, PS_NORTH};
/* The order a router takes the heads arriving in a cycle: from the west (travelling east),
 * east, south, north. */
static const int ARRIVAL_ORDER[PS_DIRS] = {PS_EAST, PS_WEST, PS_NORTH, PS_SOUTH};

double ps_saturation(const ps_model *m)
{
    return 8.0 / (m->X > m->Y ? m->X : m->Y);
}

static void *alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();  /* phold_grow's policy: a model this size does not fit */
    return p;
}

static int wrap(int v, int n) { return (v % n + n) % n; }

void ps_part_init(ps_part *p, const ps_model *m, int px, int py, int rank)
{
    memset(p, 0, sizeof *p);
    p->m = m;
    p->w = m->X / px;
    p->h = m->Y / py;
    int rx = rank % px, ry = rank / px;
    p->x0 = rx * p->w;
    p->y0 = ry * p->h;
    int pdx[PS_DIRS] = {px, px, py, py};
    for (int d = 0; d < PS_DIRS; d++)  /* a dimension of one process wraps inside the block */
        p->nbr[d] = pdx[d] == 1 ? -1
                                : wrap(ry + DY[d], py) * px + wrap(rx + DX[d], px);
    size_t slots = (size_t)p->w * p->h * PS_DIRS;
    p->out = alloc(slots, sizeof *p->out);
    p->busy = alloc(slots, sizeof *p->busy);
    p->cur = alloc(slots, sizeof *p->cur);
    p->next = alloc(slots, sizeof *p->next);
    for (size_t k = 0; k < slots; k++)
        p->cur[k].dst = p->next[k].dst = -1;
}

void ps_part_free(ps_part *p)
{
    for (size_t k = 0; k < (size_t)p->w * p->h * PS_DIRS; k++)
        free(p->out[k].a);
    for (int d = 0; d < PS_DIRS; d++)
        free(p->send[d]);
    free(p->out);
    free(p->busy);
    free(p->cur);
    free(p->next);
}

static void push(ps_queue *q, const ps_packet *e)
{
    if (q->n == q->cap) {  /* grow, unrolling the ring to the front */
        size_t cap = q->cap ? 2 * q->cap : 4;
        ps_packet *a = alloc(cap, sizeof *a);
        for (size_t k = 0; k < q->n; k++)
            a[k] = q->a[(q->head + k) % q->cap];
        free(q->a);
        q->a = a;
        q->cap = cap;
        q->head = 0;
    }
    q->a[(q->head + q->n++) % q->cap] = *e;
}

static ps_packet pop(ps_queue *q)
{
    ps_packet e = q->a[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return e;
}

/* The local index of global router (x, y), or -1 outside the block. */
static long local(const ps_part *p, int x, int y)
{
    x -= p->x0;
    y -= p->y0;
    if (x < 0 || y < 0 || x >= p->w || y >= p->h)
        return -1;
    return (long)y * p->w + x;
}

/* Dimension order: the direction out of router `at` towards dst, the shorter way round. */
static int route(const ps_model *m, int at, int dst)
{
    int dx = wrap(dst % m->X - at % m->X, m->X), dy = wrap(dst / m->X - at / m->X, m->Y);
    if (dx)
        return 2 * dx <= m->X ? PS_EAST : PS_WEST;
    return 2 * dy <= m->Y ? PS_NORTH : PS_SOUTH;
}

/* A head at local router r (global g) in cycle t: delivered there or queued for its way on. */
static void take(ps_part *p, long r, int g, const ps_packet *e, int64_t t)
{
    ps_counts *c = &p->c;
    if (e->dst == g) {
        c->v[PS_DELIVERED]++;
        c->v[PS_LATENCY] += (uint64_t)(t - e->born + p->m->flits);
        c->v[PS_CHECKSUM] += phold_hash(p->m->seed, (uint64_t)e->src << 32 | (uint32_t)e->dst,
                                        (uint64_t)e->born, (uint64_t)t);
        return;
    }
    push(&p->out[r * PS_DIRS + route(p->m, g, e->dst)], e);
}

/* Its node's packet of cycle t, if it injects one: to a uniformly random other router. */
static int injected(const ps_model *m, int g, int64_t t, ps_packet *e)
{
    if (phold_unit(phold_hash(m->seed, (uint64_t)g, (uint64_t)t, 0)) >= m->inject)
        return 0;
    int n = m->X * m->Y;
    int dst = (int)(phold_hash(m->seed, (uint64_t)g, (uint64_t)t, 1) % (uint64_t)(n - 1));
    *e = (ps_packet){.src = g, .dst = dst >= g ? dst + 1 : dst, .born = (int32_t)t};
    return 1;
}

/* Phase one of cycle t: every router takes its injected packet and its arriving heads. */
static void take_all(ps_part *p, int64_t t)
{
    const ps_model *m = p->m;
    for (int y = 0; y < p->h; y++)
        for (int x = 0; x < p->w; x++) {
            long r = (long)y * p->w + x;
            int g = (p->y0 + y) * m->X + p->x0 + x;
            ps_packet e;
            if (m->X * m->Y > 1 && injected(m, g, t, &e)) {
                p->c.v[PS_INJECTED]++;
                take(p, r, g, &e, t);
            }
            for (int k = 0; k < PS_DIRS; k++) {
                ps_packet *a = &p->cur[r * PS_DIRS + ARRIVAL_ORDER[k]];
                if (a->dst >= 0)
                    take(p, r, g, a, t);
                a->dst = -1;
            }
        }
}

/* Phase two: every free output link starts the packet at the head of its queue. */
static void start_all(ps_part *p, int64_t t)
{
    const ps_model *m = p->m;
    for (int y = 0; y < p->h; y++)
        for (int x = 0; x < p->w; x++)
            for (int d = 0; d < PS_DIRS; d++) {
                size_t k = ((size_t)y * p->w + x) * PS_DIRS + d;
                if (p->busy[k] > t || p->out[k].n == 0)
                    continue;
                ps_packet e = pop(&p->out[k]);
                p->busy[k] = t + m->flits;
                p->c.v[PS_HOPS]++;
                int nx = wrap(p->x0 + x + DX[d], m->X), ny = wrap(p->y0 + y + DY[d], m->Y);
                long n = local(p, nx, ny);
                e.at = ny * m->X + nx;
                e.last = 0;
                if (n >= 0) {
                    p->next[n * PS_DIRS + d] = e;
                    continue;
                }
                p->send[d] = phold_grow(p->send[d], &p->capsend[d], p->nsend[d] + 1,
                                        sizeof(ps_packet));
                p->send[d][p->nsend[d]++] = e;
            }
}

/* Every direction's packets of this cycle to its neighbour, one message each (a null message
 * when there are none), and the neighbours' into next. */
static void exchange(ps_part *p, MPI_Request **req, size_t *capreq)
{
    static const ps_packet null = {.dst = -1, .last = 1};
    size_t nreq = 0;
    for (int d = 0; d < PS_DIRS; d++) {
        if (p->nbr[d] < 0)
            continue;
        size_t n = p->nsend[d];
        if (n)
            p->send[d][n - 1].last = 1;
        *req = phold_grow(*req, capreq, nreq + (n ? n : 1), sizeof **req);
        for (size_t k = 0; k < (n ? n : 1); k++)
            MPI_Isend(n ? &p->send[d][k] : &null, sizeof(ps_packet), MPI_BYTE, p->nbr[d], d,
                      MPI_COMM_WORLD, &(*req)[nreq++]);
        p->c.messages += (int64_t)(n ? n : 1);
    }
    for (int d = 0; d < PS_DIRS; d++) {
        if (p->nbr[d] < 0)
            continue;
        ps_packet e;
        do {
            MPI_Recv(&e, sizeof e, MPI_BYTE, p->nbr[OPPOSITE[d]], d, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (e.dst >= 0)
                p->next[local(p, e.at % p->m->X, e.at / p->m->X) * PS_DIRS + d] = e;
        } while (!e.last);
    }
    for (size_t k = 0; k < nreq; k++)  /* (MPI_Waitall: a false gcc warning under MPICH) */
        MPI_Wait(&(*req)[k], MPI_STATUS_IGNORE);
    for (int d = 0; d < PS_DIRS; d++)
        p->nsend[d] = 0;
}

void ps_run(ps_part *p)
{
    MPI_Request *req = NULL;
    size_t capreq = 0;
    for (int64_t t = 0; t < p->m->cycles; t++) {
        take_all(p, t);
        start_all(p, t);
        exchange(p, &req, &capreq);
        ps_packet *s = p->cur;  /* the heads sent this cycle arrive in the next */
        p->cur = p->next;
        p->next = s;
    }
    free(req);
    for (size_t k = 0; k < (size_t)p->w * p->h * PS_DIRS; k++)
        p->c.v[PS_QUEUED] += p->out[k].n + (p->cur[k].dst >= 0);
}

void ps_sequential(const ps_model *m, ps_counts *c)
{
    ps_part p;
    ps_part_init(&p, m, 1, 1, 0);
    ps_run(&p);
    *c = p.c;
    ps_part_free(&p);
}
