/* pop_caf.c - the Co-Array Fortran halo update and global sum of the POP proxies (pop_caf.h):
 * the decomposition's side here, the coarrays in lib/pop_coarrays.f90; built where OpenCoarrays
 * links (HPC_HAVE_CAF, csrc/Makefile), elsewhere a stub that says so. */
#include "pop_caf.h"

#ifdef HPC_HAVE_CAF
/* lib/pop_coarrays.f90, and OpenCoarrays' start and end (gfortran's ABI) */
int caf_pop_images_are(int rank, int nranks);
void caf_pop_field_alloc(long n, const int ranks[8], int nr, double **p);
void caf_pop_field_free(void);
void caf_pop_sync_peers(void);
void caf_pop_put(long dst, int tld, long src, int sld, int cnt, int rank);
void caf_pop_sum_alloc(void);
void caf_pop_sum_free(void);
double caf_pop_sum(double v);
void _gfortran_caf_init(int *argc, char ***argv);
void _gfortran_caf_finalize(void);

static const int DY[8] = {0, 0, 1, -1, 1, 1, -1, -1};  /* as pop_comm.c: E W N S NE NW SE SW */
static int field_live, sum_live;

int pop_caf_available(void) { return 1; }

int pop_caf_init(int *argc, char ***argv)
{
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    _gfortran_caf_init(argc, argv);
    return caf_pop_images_are(rank, nranks) ? 0 : -1;
}

void pop_caf_finalize(void) { _gfortran_caf_finalize(); }

static int remote(const pop_halo *h, int k)
{
    return h->d.nbr[k] != MPI_PROC_NULL && h->d.nbr[k] != h->d.rank;
}

double *pop_caf_field(pop_halo *h, size_t n)
{
    unsigned long mine = n, most;
    MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
    int ranks[8], nr = 0;
    for (int k = 0; k < 8; k++) {      /* sync images takes each image once */
        int seen = !remote(h, k);
        for (int m = 0; m < nr && !seen; m++)
            seen = ranks[m] == h->d.nbr[k];
        if (!seen)
            ranks[nr++] = h->d.nbr[k];
    }
    if (field_live)
        return NULL;
    field_live = 1;
    double *x;
    caf_pop_field_alloc((long)most, ranks, nr, &x);
    return x;
}

void pop_caf_field_free(pop_halo *h)
{
    (void)h;
    caf_pop_field_free();
    field_live = 0;
}

/* The neighbours' ghosts are free (their last operator application is done: the shmem
 * version's "ready" flags), each edge put, then the neighbours' puts into mine are done. */
void pop_caf_halo(pop_halo *h)
{
    caf_pop_sync_peers();
    for (int k = 0; k < 8; k++)
        if (remote(h, k))
            caf_pop_put(h->tgt_disp[k], DY[k] ? 1 : h->tgt_ld[k], h->send0[k], DY[k] ? 1 : h->ld,
                        h->cnt[k], h->d.nbr[k]);
    caf_pop_sync_peers();
}

int pop_caf_sum_init(pop_gsum *s)
{
    (void)s;
    if (sum_live)
        return -1;
    sum_live = 1;
    caf_pop_sum_alloc();
    return 0;
}

void pop_caf_sum_free(pop_gsum *s)
{
    (void)s;
    caf_pop_sum_free();
    sum_live = 0;
}

double pop_caf_gsum(pop_gsum *s, double v)
{
    (void)s;
    return caf_pop_sum(v);
}

#else  /* no Co-Array Fortran in this build: the variants cannot be chosen (pop_variants.c) */

int pop_caf_available(void) { return 0; }
int pop_caf_init(int *argc, char ***argv) { (void)argc, (void)argv; return -1; }
void pop_caf_finalize(void) {}
double *pop_caf_field(pop_halo *h, size_t n) { (void)h, (void)n; return NULL; }
void pop_caf_field_free(pop_halo *h) { (void)h; }
void pop_caf_halo(pop_halo *h) { (void)h; }
int pop_caf_sum_init(pop_gsum *s) { (void)s; return -1; }
void pop_caf_sum_free(pop_gsum *s) { (void)s; }
double pop_caf_gsum(pop_gsum *s, double v) { (void)s; return v; }

#endif
