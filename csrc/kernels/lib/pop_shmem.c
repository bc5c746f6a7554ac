/* pop_shmem.c - the OpenSHMEM halo update and global sum of the POP proxies (pop_comm.h),
 * built where OpenSHMEM links (HPC_HAVE_SHMEM, csrc/Makefile); elsewhere a stub that says so.
 *
 * Flags are counters: update (sum) number n sets them to n, and a rank waits until they reach
 * n, so no flag is ever reset and a neighbour one update ahead is told apart. */
#include "pop_shmem.h"

#ifdef HPC_HAVE_SHMEM
#include <shmem.h>

static const int DY[8] = {0, 0, 1, -1, 1, 1, -1, -1};  /* as pop_comm.c: E W N S NE NW SE SW */
static const int OPP[8] = {1, 0, 3, 2, 7, 6, 5, 4};

int pop_shmem_available(void) { return 1; }

static int remote(const pop_halo *h, int k)
{
    return h->d.nbr[k] != MPI_PROC_NULL && h->d.nbr[k] != h->d.rank;
}

double *pop_shmem_field(pop_halo *h, size_t n)
{
    /* Symmetric: the same size on every rank, the largest block's. */
    unsigned long mine = n, most;
    MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
    h->flags = shmem_calloc(16, sizeof(long));
    double *x = shmem_malloc(most * sizeof(double));
    return h->flags && x ? x : NULL;
}

void pop_shmem_field_free(pop_halo *h)
{
    shmem_barrier_all();      /* no neighbour still writes into it */
    shmem_free(h->x);
    shmem_free(h->flags);
}

/* My edge toward k into the neighbour's ghosts on its side opposite k. */
static void put_edge(pop_halo *h, int k)
{
    double *dst = h->x + h->tgt_disp[k];
    const double *src = h->x + h->send0[k];
    if (DY[k])                /* a row or a corner: contiguous in both */
        shmem_double_put(dst, src, (size_t)h->cnt[k], h->d.nbr[k]);
    else                      /* a column: strided by each block's own row length */
        shmem_double_iput(dst, src, h->tgt_ld[k], h->ld, (size_t)h->cnt[k], h->d.nbr[k]);
}

void pop_shmem_halo(pop_halo *h)
{
    long n = ++h->seq, *ready = h->flags, *filled = h->flags + 8;
    for (int k = 0; k < 8; k++)      /* my ghosts on side k are free for that neighbour */
        if (remote(h, k))
            shmem_long_p(&ready[OPP[k]], n, h->d.nbr[k]);
    for (int k = 0; k < 8; k++)
        if (remote(h, k)) {
            shmem_long_wait_until(&ready[k], SHMEM_CMP_GE, n);
            put_edge(h, k);
            shmem_fence();           /* the edge lands before the flag */
            shmem_long_p(&filled[OPP[k]], n, h->d.nbr[k]);
        }
    for (int k = 0; k < 8; k++)
        if (remote(h, k))
            shmem_long_wait_until(&filled[k], SHMEM_CMP_GE, n);
}

int pop_shmem_sum_init(pop_gsum *s)
{
    /* slots: nranks partial sums and the total, on every rank (symmetric), used on rank 0 */
    s->slots = shmem_calloc((size_t)s->nranks + 1, sizeof(double));
    s->flags = shmem_calloc((size_t)s->nranks + 1, sizeof(long));
    return s->slots && s->flags ? 0 : -1;
}

void pop_shmem_sum_free(pop_gsum *s)
{
    shmem_barrier_all();
    shmem_free(s->slots);
    shmem_free(s->flags);
}

double pop_shmem_sum(pop_gsum *s, double v)
{
    long n = ++s->seq;
    int N = s->nranks;
    if (s->rank != 0) {
        shmem_double_p(&s->slots[s->rank], v, 0);
        shmem_fence();
        shmem_long_p(&s->flags[s->rank], n, 0);
        shmem_long_wait_until(&s->flags[N], SHMEM_CMP_GE, n);
        return s->slots[N];
    }
    double t = v;
    for (int r = 1; r < N; r++) {    /* rank order: every rank gets the same bits */
        shmem_long_wait_until(&s->flags[r], SHMEM_CMP_GE, n);
        t += s->slots[r];
    }
    for (int r = 1; r < N; r++)
        shmem_double_p(&s->slots[N], t, r);
    shmem_fence();
    for (int r = 1; r < N; r++)
        shmem_long_p(&s->flags[N], n, r);
    return t;
}

int pop_shmem_init(void)
{
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    shmem_init();
    return shmem_my_pe() == rank && shmem_n_pes() == nranks ? 0 : -1;   /* PEs are ranks */
}

void pop_shmem_finalize(void) { shmem_finalize(); }

#else  /* no OpenSHMEM in this build: the variants cannot be chosen (barotropic.c refuses) */

int pop_shmem_available(void) { return 0; }
double *pop_shmem_field(pop_halo *h, size_t n) { (void)h, (void)n; return NULL; }
void pop_shmem_field_free(pop_halo *h) { (void)h; }
void pop_shmem_halo(pop_halo *h) { (void)h; }
int pop_shmem_sum_init(pop_gsum *s) { (void)s; return -1; }
void pop_shmem_sum_free(pop_gsum *s) { (void)s; }
double pop_shmem_sum(pop_gsum *s, double v) { (void)s; return v; }
int pop_shmem_init(void) { return -1; }
void pop_shmem_finalize(void) {}

#endif
