/* phold_model.c - the PHOLD model (phold_model.h). */
#include "phold_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int phold_before(const phold_event *a, const phold_event *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->dst != b->dst)
        return a->dst < b->dst;
    if (a->src != b->src)
        return a->src < b->src;
    return a->seq < b->seq;
}

void *phold_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * elem);
    if (!q) {
        fprintf(stderr, "phold: no memory for %zu events\n", c);
        abort();
    }
    *cap = c;
    return q;
}

void phold_heap_push(phold_heap *h, const phold_event *e)
{
    h->a = phold_grow(h->a, &h->cap, h->n + 1, sizeof *h->a);
    size_t i = h->n++;
    while (i > 0 && phold_before(e, &h->a[(i - 1) / 2])) {  /* sift up */
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = *e;
}

phold_event phold_heap_pop(phold_heap *h)
{
    phold_event top = h->a[0], last = h->a[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {  /* sift the last element down from the root */
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && phold_before(&h->a[c + 1], &h->a[c]))
            c++;
        if (!phold_before(&h->a[c], &last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (n > 0)
        h->a[i] = last;
    return top;
}

double phold_heap_min(const phold_heap *h)
{
    return h->n ? h->a[0].t : INFINITY;
}

static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t phold_hash(uint64_t seed, uint64_t lp, uint64_t n, uint64_t draw)
{
    /* one finaliser per key word: nearby keys (LP i, i+1; event n, n+1) decorrelate */
    return mix64(mix64(mix64(mix64(seed) ^ lp) ^ n) ^ draw);
}

double phold_unit(uint64_t h)
{
    return ((double)(h >> 11) + 0.5) * 0x1p-53;
}

int64_t phold_first_lp(int rank, int nranks, int64_t lps)
{
    return (int64_t)((__int128)rank * lps / nranks);
}

int phold_owner(int64_t lp, int nranks, int64_t lps)
{
    /* the largest r with first(r) <= lp */
    return (int)(((__int128)(lp + 1) * nranks - 1) / lps);
}

enum { DRAW_ROUTE, DRAW_DEST, DRAW_DELAY, DRAW_START };
static const uint64_t STATE_KEY = ~0ull;  /* an event number no LP reaches */

void phold_part_init(phold_part *p, const phold_model *m, int64_t first, int64_t count)
{
    memset(p, 0, sizeof *p);
    p->m = m;
    p->first = first;
    p->count = count;
    p->state = malloc((size_t)(count ? count : 1) * sizeof *p->state);
    p->done = calloc((size_t)(count ? count : 1), sizeof *p->done);
    if (!p->state || !p->done) {
        fprintf(stderr, "phold: no memory for %lld LPs\n", (long long)count);
        abort();
    }
    for (int64_t i = 0; i < count; i++) {
        int64_t lp = first + i;
        p->state[i] = phold_hash(m->seed, (uint64_t)lp, STATE_KEY, 0);
        for (int64_t k = 0; k < m->population; k++) {
            double u = phold_unit(phold_hash(m->seed, (uint64_t)lp, (uint64_t)k, DRAW_START));
            phold_event e = {-m->mean * log(u), lp, lp, (uint64_t)k};
            if (e.t < m->end)
                phold_heap_push(&p->heap, &e);
        }
    }
}

void phold_part_free(phold_part *p)
{
    free(p->state);
    free(p->done);
    free(p->heap.a);
    memset(p, 0, sizeof *p);
}

int phold_process(phold_part *p, const phold_event *e, phold_event *out)
{
    const phold_model *m = p->m;
    int64_t i = e->dst - p->first;
    uint64_t n = (uint64_t)(m->population + p->done[i]++);  /* initial events took 0..pop-1 */
    p->committed++;
    /* the state remembers which events came in which order */
    uint64_t t_bits;
    memcpy(&t_bits, &e->t, sizeof t_bits);
    p->state[i] = mix64(p->state[i] ^ phold_hash(t_bits, (uint64_t)e->src, e->seq, 0));
    uint64_t lp = (uint64_t)e->dst;
    int64_t dst = e->dst;
    if (phold_unit(phold_hash(m->seed, lp, n, DRAW_ROUTE)) < m->remote) {
        dst = (int64_t)(phold_unit(phold_hash(m->seed, lp, n, DRAW_DEST)) * (double)m->lps);
        if (dst >= m->lps)  /* (0, 1) * N rounds to N only for huge N; stay in range */
            dst = m->lps - 1;
    }
    double delay = m->lookahead - m->mean * log(phold_unit(phold_hash(m->seed, lp, n,
                                                                       DRAW_DELAY)));
    *out = (phold_event){e->t + delay, dst, e->dst, n};
    return out->t < m->end;
}

uint64_t phold_part_checksum(const phold_part *p)
{
    uint64_t sum = 0;
    for (int64_t i = 0; i < p->count; i++)
        sum += mix64(p->state[i] ^ mix64((uint64_t)(p->first + i)));
    return sum;
}

void phold_sequential(const phold_model *m, int64_t *events, uint64_t *checksum)
{
    phold_part p;
    phold_part_init(&p, m, 0, m->lps);
    while (p.heap.n) {
        phold_event e = phold_heap_pop(&p.heap), next;
        if (phold_process(&p, &e, &next))
            phold_heap_push(&p.heap, &next);
    }
    *events = p.committed;
    *checksum = phold_part_checksum(&p);
    phold_part_free(&p);
}
