/* shmem_halo.c - a halo update against the words in it, two-sided MPI beside globally
 * addressable memory (the Cray X1 study's Fig. 8.1, Wallcraft's HALO benchmark).
 *
 * Every rank of a periodic 2-D process grid (MPI_Dims_create) sends `words` 4-byte words
 * to each of its 4 side neighbours and receives theirs into a ghost buffer per side. The
 * same ranks, the same buffers (OpenSHMEM symmetric memory), one method after another:
 *   mpi         MPI_Irecv / MPI_Isend / MPI_Waitall (POP's two-sided halo update)
 *   mpi-put     MPI_Put into the neighbours' window, MPI_Win_fence
 *   shmem-put   shmem_putmem into the neighbours' ghosts, shmem_barrier_all (the study's
 *               first Co-Array version synchronised by global barriers)
 *   shmem-get   shmem_getmem of the neighbours' edges, shmem_barrier_all ("each process
 *               reads remote memory to update the local halo")
 *   shmem-flag  shmem_putmem, shmem_fence, then a flag per side (shmem_long_p) that the
 *               neighbour waits on: pairwise synchronisation, no global barrier (the study's
 *               August version); ghosts alternate between two buffers so a neighbour a step
 *               ahead never overwrites the ones in use
 *   caf-put     Co-Array Fortran (OpenCoarrays): each edge assigned to the neighbour's ghost
 *               coarray, `sync all` (lib/halo_caf.f90; the study's own Co-Array versions)
 *   caf-get     each ghost assigned from the neighbour's edge coarray, `sync all`
 *   caf-sync    puts, then `sync images` with the neighbours only (pairwise), ghost sets
 *               alternating as shmem-flag's
 * The caf methods exist where the build found OpenCoarrays (HPC_HAVE_CAF; else asking for one
 * is a usage error naming the package): its images are MPI's ranks, its coarrays its own.
 * A sample is k updates timed by every rank; the slowest rank's time per update is kept.
 * Every ghost word is checked against the sender's pattern after each sample, outside the
 * timed region. Built against Open MPI's OpenSHMEM (liboshmem), whose PEs are MPI's ranks.
 */
#include "batch.h"
#include "harness.h"

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES, .def = "1,16,256,4K,64K", .min = 1, .max = 1 << 22,
     .help = "4-byte words sent to each of the four neighbours"},
    {.name = "methods", .type = HPC_CHOICES, .def = "mpi,mpi-put,shmem-put,shmem-get,shmem-flag",
     .choices = "mpi|mpi-put|shmem-put|shmem-get|shmem-flag|caf-put|caf-get|caf-sync", .all = 1,
     .help = "halo update methods (caf-*: Co-Array Fortran, where the build has OpenCoarrays)"},
    {0}};

enum { MPI2, MPIPUT, SPUT, SGET, SFLAG, CPUT, CGET, CSYNC, NMETHODS };
static const char *const METHODS[] = {"mpi", "mpi-put", "shmem-put", "shmem-get", "shmem-flag",
                                      "caf-put", "caf-get", "caf-sync"};
#define IS_CAF(m) ((m) >= CPUT)

/* lib/halo_caf.f90 (Co-Array Fortran), and OpenCoarrays' start and end (gfortran's ABI). */
void caf_halo_init(long maxw, const int nbr[4], int32_t **edge, int32_t **ghost);
void caf_halo_put(long w, const int nbr[4]);
void caf_halo_get(long w, const int nbr[4]);
void caf_halo_sync(long w, const int nbr[4], int set);
void caf_halo_barrier(void);
void caf_halo_free(void);
void _gfortran_caf_init(int *argc, char ***argv);
void _gfortran_caf_finalize(void);

/* Sides: north, south, west, east; the opposite of d is d ^ 1. */
static const int DY[4] = {-1, 1, 0, 0}, DX[4] = {0, 0, -1, 1};
static int nbr[4], dims[2];
static MPI_Comm cart;
static long maxw, w;           /* words per side: the largest, the current */
/* Symmetric: edges sent toward each side; two ghost sets (shmem-flag alternates); flags. */
static int32_t *edge, *ghost;
static int32_t *shm_edge, *shm_ghost, *caf_edge, *caf_ghost;   /* the two memories of them */
static long *flag;
static long exchange_no;       /* shmem-flag: updates so far, every rank alike */
static int32_t *win_ghost;     /* mpi-put: the window's ghosts */
static MPI_Win win = MPI_WIN_NULL;

static int32_t *edge_of(int d) { return edge + d * maxw; }
static int32_t *ghost_of(int set, int d) { return ghost + (set * 4 + d) * maxw; }

static int32_t pattern(int rank, int d, long i, long idx)
{
    return (int32_t)((((long long)rank * 4 + d) * 1000003LL + i * 31 + idx * 7) & 0x7fffffff);
}

/* The ghosts a method leaves its result in. */
static int32_t *result_ghost(int m, int d)
{
    if (m == MPIPUT)
        return win_ghost + d * maxw;
    return ghost_of(m == SFLAG || m == CSYNC ? (int)(exchange_no & 1) : 0, d);
}

/* --- one update by each method ---------------------------------------------------------- */

static void mpi_update(void)
{
    MPI_Request req[8];
    for (int d = 0; d < 4; d++)
        MPI_Irecv(ghost_of(0, d), (int)w, MPI_INT32_T, nbr[d], d ^ 1, cart, &req[d]);
    for (int d = 0; d < 4; d++)
        MPI_Isend(edge_of(d), (int)w, MPI_INT32_T, nbr[d], d, cart, &req[4 + d]);
    hpc_wait_all(8, req);
}

static void mpi_put_update(void)
{
    for (int d = 0; d < 4; d++)
        MPI_Put(edge_of(d), (int)w, MPI_INT32_T, nbr[d], (MPI_Aint)((d ^ 1) * maxw), (int)w,
                MPI_INT32_T, win);
    MPI_Win_fence(0, win);
}

static void shmem_put_update(void)
{
    for (int d = 0; d < 4; d++)
        shmem_putmem(ghost_of(0, d ^ 1), edge_of(d), (size_t)w * 4, nbr[d]);
    shmem_barrier_all();
}

static void shmem_get_update(void)
{
    for (int d = 0; d < 4; d++)
        shmem_getmem(ghost_of(0, d), edge_of(d ^ 1), (size_t)w * 4, nbr[d]);
    shmem_barrier_all();
}

static void shmem_flag_update(void)
{
    long n = ++exchange_no;
    int set = (int)(n & 1);
    for (int d = 0; d < 4; d++) {
        shmem_putmem(ghost_of(set, d ^ 1), edge_of(d), (size_t)w * 4, nbr[d]);
        shmem_fence();   /* the data before the flag, at that PE */
        shmem_long_p(&flag[d ^ 1], n, nbr[d]);
    }
    for (int d = 0; d < 4; d++)
        shmem_long_wait_until(&flag[d], SHMEM_CMP_GE, n);
}

#ifdef HPC_HAVE_CAF
static void caf_update(int m)
{
    if (m == CPUT)
        caf_halo_put(w, nbr);
    else if (m == CGET)
        caf_halo_get(w, nbr);
    else
        caf_halo_sync(w, nbr, (int)(++exchange_no & 1));
}
#else
static void caf_update(int m) { (void)m; }   /* never chosen: main refuses the caf methods */
#endif

static void updates(int m, long k)
{
    for (long it = 0; it < k; it++)
        switch (m) {
        case MPI2: mpi_update(); break;
        case MPIPUT: mpi_put_update(); break;
        case SPUT: shmem_put_update(); break;
        case SGET: shmem_get_update(); break;
        case SFLAG: shmem_flag_update(); break;
        default: caf_update(m); break;
        }
}

/* The edges and ghosts a method works on: OpenSHMEM's symmetric memory, or the coarrays. */
static void use_memory(int m)
{
    edge = IS_CAF(m) ? caf_edge : shm_edge;
    ghost = IS_CAF(m) ? caf_ghost : shm_ghost;
}

/* --- a sample and its check ------------------------------------------------------------- */

/* This rank's edges for sample idx, and every ghost cleared. */
static void prepare(long idx)
{
    for (int d = 0; d < 4; d++)
        for (long i = 0; i < w; i++)
            edge_of(d)[i] = pattern(hpc_rank, d, i, idx);
    memset(ghost, 0xff, (size_t)8 * maxw * 4);
    if (win_ghost)
        memset(win_ghost, 0xff, (size_t)4 * maxw * 4);
}

/* Side and word of the first wrong ghost word, as side * maxw + word, or -1. The ghost of
 * side d holds what neighbour d sent toward d ^ 1. */
static long check(int m, long idx)
{
    for (int d = 0; d < 4; d++) {
        const int32_t *g = result_ghost(m, d);
        for (long i = 0; i < w; i++)
            if (g[i] != pattern(nbr[d], d ^ 1, i, idx))
                return d * maxw + i;
    }
    return -1;
}

static double sample(int m, long k, long idx)
{
    use_memory(m);
    prepare(idx);
    if (m == MPIPUT)
        MPI_Win_fence(0, win);
#ifdef HPC_HAVE_CAF
    if (IS_CAF(m))
        caf_halo_barrier();
#endif
    shmem_barrier_all();     /* every ghost cleared before anyone writes one */
    MPI_Barrier(cart);
    double t0 = hpc_now();
    updates(m, k);
    double t = hpc_now() - t0, slow;
    if (hpc_inject == HPC_INJECT_CORRUPT && hpc_rank == hpc_nranks - 1)
        result_ghost(m, 0)[w - 1] ^= 1;
    long bad = check(m, idx);
    if (bad >= 0)
        hpc_fail("data check failed: shmem-halo %s, %ld words, sample %ld: rank %d's ghost "
                 "from side %ld, word %ld, is wrong", METHODS[m], w, idx, hpc_rank,
                 bad / maxw, bad % maxw);
    MPI_Reduce(&t, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, cart);
    return slow;
}

typedef struct {
    const char *method, *grid;
    long words;
} halo_point;

static void params(hpc_json *r, const void *ctx)
{
    const halo_point *h = ctx;
    hpc_json_str(r, "method", h->method);
    hpc_json_int(r, "words", h->words);
    hpc_json_int(r, "nranks", hpc_nranks);
    hpc_json_str(r, "grid", h->grid);
}

static void measure(int m, const char *grid)
{
    hpc_batch bt;
    hpc_batch_init(&bt, HPC_BATCH_MIN_S, 1L << 20, 1, cart);
    long idx = 0;
    while (hpc_batch_add_coll(&bt, sample(m, bt.k, idx++)))
        ;
    halo_point hp = {METHODS[m], grid, w};
    hpc_point pt = {params, &hp, "ops_per_sample", NULL};
    hpc_batch_emit(&pt, "latency", "us", "lower", &bt, 1e6, 0, 0);
    hpc_batch_emit(&pt, "bandwidth", "MB/s", "higher", &bt, 1e6, 1, 4.0 * 4 * w);
    hpc_batch_free(&bt);
}

/* --- set-up ----------------------------------------------------------------------------- */

static void grid_init(void)
{
    MPI_Dims_create(hpc_nranks, 2, dims);
    int periods[2] = {1, 1}, coords[2];
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, hpc_rank, 2, coords);
    for (int d = 0; d < 4; d++) {
        int c[2] = {coords[0] + DY[d], coords[1] + DX[d]};
        MPI_Cart_rank(cart, c, &nbr[d]);   /* periodic: wraps (to itself on a 1-wide grid) */
    }
}

static void buffers_init(int puts)
{
    edge = shm_edge = shmem_malloc((size_t)4 * maxw * 4);
    ghost = shm_ghost = shmem_malloc((size_t)8 * maxw * 4);
    flag = shmem_calloc(4, sizeof(long));
    if (!edge || !ghost || !flag)
        hpc_fail("shmem_malloc of %ld words a side failed (the symmetric heap: "
                 "SHMEM_SYMMETRIC_SIZE)", maxw);
    if (puts)
        MPI_Win_allocate((MPI_Aint)4 * maxw * 4, 4, MPI_INFO_NULL, cart, &win_ghost, &win);
#ifdef HPC_HAVE_CAF
    caf_halo_init(maxw, nbr, &caf_edge, &caf_ghost);
#endif
}

static void buffers_free(void)
{
    if (win != MPI_WIN_NULL)
        MPI_Win_free(&win);
#ifdef HPC_HAVE_CAF
    caf_halo_free();
#endif
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(shm_ghost);
    shmem_free(shm_edge);
}

int main(int argc, char **argv)
{
    /* Open MPI 4.1.4's osc/rdma leaves a memory hook of an unloaded component that
     * MPI_Finalize then calls (a segfault with OpenSHMEM, UCX 1.13); the others serve puts. */
    setenv("OMPI_MCA_osc", "^rdma", 0);
    hpc_init(&argc, &argv, "shmem-halo",
             "Halo update vs words: two-sided MPI, MPI puts, OpenSHMEM puts, gets and flags.",
             options, MPI_THREAD_SINGLE);
    shmem_init();
    hpc_usage_check(shmem_my_pe() != hpc_rank || shmem_n_pes() != hpc_nranks,
                    "OpenSHMEM's PEs are not MPI's ranks here (PE %d of %d)", shmem_my_pe(),
                    shmem_n_pes());
    const long long *sizes;
    int ns = hpc_opt_list("sizes", &sizes), on[NMETHODS];
    hpc_opt_chosen("methods", on);
#ifdef HPC_HAVE_CAF
    _gfortran_caf_init(&argc, &argv);   /* after MPI's: OpenCoarrays then uses it as it is */
#else
    for (int m = CPUT; m < NMETHODS; m++)
        hpc_usage_check(on[m], "option --methods: %s needs Co-Array Fortran, which this build "
                        "has not (install libcoarrays-openmpi-dev and rebuild)", METHODS[m]);
#endif
    maxw = 1;
    for (int i = 0; i < ns; i++)
        maxw = sizes[i] > maxw ? (long)sizes[i] : maxw;
    grid_init();
    hpc_begin(1, NULL);
    char grid[32];
    snprintf(grid, sizeof grid, "%dx%d", dims[0], dims[1]);
    buffers_init(on[MPIPUT]);
    hpc_inject_first_point();
    for (int i = 0; i < ns; i++) {
        w = (long)sizes[i];
        for (int m = 0; m < NMETHODS; m++)
            if (on[m])
                measure(m, grid);
    }
    buffers_free();
    MPI_Comm_free(&cart);
#ifdef HPC_HAVE_CAF
    _gfortran_caf_finalize();   /* leaves MPI to its owner (shmem_finalize below) */
#endif
    hpc_finish_by(shmem_finalize);   /* it finalizes MPI too (Open MPI's OpenSHMEM) */
    return 0;
}
