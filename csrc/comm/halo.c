/* halo.c - halo exchange on a periodic 2-D process grid (MPI_Dims_create).
 *
 * Each rank owns a tile x tile block of doubles with a ghost frame `width`
 * cells wide; one exchange fills the ghost cells of the 4 side neighbours
 * (or 8, corners included) from the neighbours' edges. Methods:
 *   pack      copy each edge into a contiguous buffer, Isend/Irecv, unpack
 *   datatype  Isend/Irecv straight from the array with MPI subarray types
 *   put       MPI_Put of each edge into the neighbour's ghosts (vector types at
 *             the regions' displacements), fence
 * (the POP lesson: on the X1 explicit packing beat derived datatypes 3x).
 * A sample is k exchanges timed by every rank; the slowest rank's time per
 * exchange is kept. bandwidth = bytes each rank sends per exchange / time.
 * After each sample every ghost cell is checked against the global
 * coordinates it mirrors, outside the timed region.
 */
#include "harness.h"
#include "lib/comm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "tile", .type = HPC_INT, .def = "128", .min = 1, .max = 8192,
     .help = "cells per side of each rank's tile"},
    {.name = "widths", .type = HPC_SIZES, .def = "1,2,4,8", .min = 1, .max = 8192,
     .help = "ghost widths (cells)"},
    {.name = "neighbours", .type = HPC_CHOICES, .def = "4,8", .choices = "4|8",
     .help = "neighbours: 4 (sides) and/or 8 (and corners)"},
    {.name = "methods", .type = HPC_CHOICES, .def = "pack,datatype,put",
     .choices = "pack|datatype|put", .all = 1, .help = "halo exchange methods"},
    COMM_PAGES_OPTION,
    {0}};

static const char *const METHODS[] = {"pack", "datatype", "put"};
static int N, W, L;  /* tile, width, leading dimension (N + 2W) */
static int dims[2], coords[2];
static double *a;    /* L x L, row-major */
static MPI_Comm cart;

/* Directions: dy, dx in {-1,0,1}; the first 4 are the sides. */
static const int DY[8] = {-1, 1, 0, 0, -1, -1, 1, 1};
static const int DX[8] = {0, 0, -1, 1, -1, 1, -1, 1};
static int opposite(int d)
{
    static const int OPP[8] = {1, 0, 3, 2, 7, 6, 5, 4};
    return OPP[d];
}

/* Interior edge sent toward direction d / ghost region filled from d:
 * start row/col and extent, in array coordinates. */
static void region(int d, int ghost, int *r0, int *h, int *c0, int *wd)
{
    int dy = DY[d], dx = DX[d];
    *h = dy ? W : N;
    *wd = dx ? W : N;
    *r0 = dy == 0 ? W : dy < 0 ? (ghost ? 0 : W) : (ghost ? N + W : N);
    *c0 = dx == 0 ? W : dx < 0 ? (ghost ? 0 : W) : (ghost ? N + W : N);
}

static double cell(long long gy, long long gx, long idx)
{
    long long GY = (long long)dims[0] * N, GX = (long long)dims[1] * N;
    gy = ((gy % GY) + GY) % GY;
    gx = ((gx % GX) + GX) % GX;
    return (double)(((idx % 97) * (1LL << 20) + gy) * (1LL << 20) + gx);
}

static void fill(long idx)
{
    for (int r = 0; r < L; r++)
        for (int c = 0; c < L; c++) {
            int in = r >= W && r < N + W && c >= W && c < N + W;
            a[(size_t)r * L + c] = in ? cell((long long)coords[0] * N + r - W,
                                             (long long)coords[1] * N + c - W, idx)
                                      : -1.0;
        }
}

/* First wrong ghost cell of the exchanged directions, as "row,col", or -1. */
static long long check(int nd, long idx)
{
    for (int d = 0; d < nd; d++) {
        int r0, h, c0, wd;
        region(d, 1, &r0, &h, &c0, &wd);
        for (int r = r0; r < r0 + h; r++)
            for (int c = c0; c < c0 + wd; c++)
                if (a[(size_t)r * L + c] != cell((long long)coords[0] * N + r - W,
                                                 (long long)coords[1] * N + c - W, idx))
                    return (long long)r * L + c;
    }
    return -1;
}

/* The params of one measured point. */
typedef struct {
    const char *method;
    int nd, width, tile;
    const char *grid;
} halo_point;

static void halo_params(hpc_json *r, const void *ctx)
{
    const halo_point *h = ctx;
    hpc_json_str(r, "method", h->method);
    hpc_json_int(r, "neighbours", h->nd);
    hpc_json_int(r, "width", h->width);
    hpc_json_int(r, "tile", h->tile);
    hpc_json_int(r, "nranks", hpc_nranks);
    hpc_json_str(r, "grid", h->grid);
}

/* Set up once per run (nbr, buffers, window) and per width (the subarray types). */
static int nbr[8];                    /* neighbour rank in each direction (periodic) */
static double *sbuf[8], *rbuf[8];     /* pack: one edge each */
static double *packs;                  /* they all live in */
static MPI_Win win = MPI_WIN_NULL;    /* over a, when puts are measured */
static MPI_Datatype st[8], gt[8];     /* edge sent toward d, ghost filled from d */
/* A put's edge and ghost as vectors at their displacements, not subarrays from the array's
 * start: SMPI 3.32 skips a copy whose source and target addresses are equal
 * (Datatype::copy), so a put to itself (a grid one rank wide) moved nothing. An edge lies
 * inside, a ghost outside: their addresses never coincide. */
static MPI_Datatype sv[8], gv[8];
static MPI_Aint sdisp[8], gdisp[8];

enum { PACK, DATATYPE, PUT };

static int count(int d) { return (DY[d] ? W : N) * (DX[d] ? W : N); }

/* k exchanges with nd neighbours by each method. Receive from direction d what that
 * neighbour sent toward -d. */
static void pack_exchanges(int nd, long k)
{
    MPI_Request req[16];
    for (long it = 0; it < k; it++) {
        for (int d = 0; d < nd; d++)
            MPI_Irecv(rbuf[d], count(d), MPI_DOUBLE, nbr[d], opposite(d), cart, &req[d]);
        for (int d = 0; d < nd; d++) {
            int r0, h, c0, wd;
            region(d, 0, &r0, &h, &c0, &wd);
            double *p = sbuf[d];
            for (int r = r0; r < r0 + h; r++)
                for (int c = c0; c < c0 + wd; c++)
                    *p++ = a[(size_t)r * L + c];
            MPI_Isend(sbuf[d], h * wd, MPI_DOUBLE, nbr[d], d, cart, &req[nd + d]);
        }
        hpc_wait_all(2 * nd, req);
        for (int d = 0; d < nd; d++) {
            int r0, h, c0, wd;
            region(d, 1, &r0, &h, &c0, &wd);
            const double *p = rbuf[d];
            for (int r = r0; r < r0 + h; r++)
                for (int c = c0; c < c0 + wd; c++)
                    a[(size_t)r * L + c] = *p++;
        }
    }
}

static void datatype_exchanges(int nd, long k)
{
    MPI_Request req[16];
    for (long it = 0; it < k; it++) {
        for (int d = 0; d < nd; d++)
            MPI_Irecv(a, 1, gt[d], nbr[d], opposite(d), cart, &req[d]);
        for (int d = 0; d < nd; d++)
            MPI_Isend(a, 1, st[d], nbr[d], d, cart, &req[nd + d]);
        hpc_wait_all(2 * nd, req);
    }
}

static void put_exchanges(int nd, long k)
{
    for (long it = 0; it < k; it++) {
        for (int d = 0; d < nd; d++)
            MPI_Put(a + sdisp[d], 1, sv[d], nbr[d], gdisp[opposite(d)], 1, gv[opposite(d)],
                    win);
        MPI_Win_fence(0, win);
    }
}

/* One sample of k exchanges: the slowest rank's time (on rank 0); the ghosts are checked
 * after it, outside the timed region. */
static double sample(int m, int nd, long k, long idx)
{
    fill(idx);
    if (m == PUT)
        MPI_Win_fence(0, win);
    MPI_Barrier(cart);
    double t0 = hpc_now();
    if (m == PACK)
        pack_exchanges(nd, k);
    else if (m == DATATYPE)
        datatype_exchanges(nd, k);
    else
        put_exchanges(nd, k);
    double t = hpc_now() - t0, slow;
    if (hpc_inject == HPC_INJECT_CORRUPT && hpc_rank == hpc_nranks - 1)
        a[(size_t)(W - 1) * L + W] += 1.0;  /* a ghost cell of the top side */
    long long badc = check(nd, idx);
    if (badc >= 0)
        hpc_fail("data check failed: halo %s, %d neighbours, width %d, sample %ld: rank %d "
                 "ghost cell (%lld,%lld) is wrong", METHODS[m], nd, W, idx, hpc_rank,
                 badc / L, badc % L);
    MPI_Reduce(&t, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, cart);
    return slow;
}

/* Method m with nd neighbours at the current width: its two records. */
static void measure(int m, int nd, const char *grid)
{
    hpc_batch bt;
    hpc_batch_init(&bt, HPC_BATCH_MIN_S, 1L << 20, 1, cart);
    double bytes = 0;
    for (int d = 0; d < nd; d++)
        bytes += (double)count(d) * sizeof(double);
    long idx = 0;
    while (hpc_batch_add_coll(&bt, sample(m, nd, bt.k, idx++)))
        ;
    halo_point hp = {METHODS[m], nd, W, N, grid};
    hpc_point pt = {halo_params, &hp, "ops_per_sample", comm_record_extra};
    hpc_batch_emit(&pt, "latency", "us", "lower", &bt, 1e6, 0, 0);
    hpc_batch_emit(&pt, "bandwidth", "MB/s", "higher", &bt, 1e6, 1, bytes);
    hpc_batch_free(&bt);
}

/* Subarray types of width W: send edge and ghost per direction. */
static void types_init(void)
{
    for (int d = 0; d < 8; d++) {
        int sizes[2] = {L, L}, sub[2], start[2];
        region(d, 0, &start[0], &sub[0], &start[1], &sub[1]);
        MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &st[d]);
        MPI_Type_vector(sub[0], sub[1], L, MPI_DOUBLE, &sv[d]);
        sdisp[d] = (MPI_Aint)start[0] * L + start[1];
        region(d, 1, &start[0], &sub[0], &start[1], &sub[1]);
        MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &gt[d]);
        MPI_Type_vector(sub[0], sub[1], L, MPI_DOUBLE, &gv[d]);
        gdisp[d] = (MPI_Aint)start[0] * L + start[1];
        MPI_Datatype *all[4] = {&st[d], &gt[d], &sv[d], &gv[d]};
        for (int i = 0; i < 4; i++)
            MPI_Type_commit(all[i]);
    }
}

static void types_free(void)
{
    for (int d = 0; d < 8; d++) {
        MPI_Type_free(&st[d]);
        MPI_Type_free(&gt[d]);
        MPI_Type_free(&sv[d]);
        MPI_Type_free(&gv[d]);
    }
}

/* The periodic process grid and every rank's neighbours. */
static void grid_init(void)
{
    MPI_Dims_create(hpc_nranks, 2, dims);
    hpc_usage_check((long long)dims[0] * N >= (1 << 20) || (long long)dims[1] * N >= (1 << 20),
                    "--tile %d: the global grid must stay below 2^20 cells per side", N);
    int periods[2] = {1, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, hpc_rank, 2, coords);
    for (int d = 0; d < 8; d++) {
        int c[2] = {coords[0] + DY[d], coords[1] + DX[d]};
        MPI_Cart_rank(cart, c, &nbr[d]);  /* periodic: wraps */
    }
}

/* The array (with the widest ghost frame) and the pack buffers; a window only when puts are
 * measured: Open MPI 4.1 has no one-sided component over TCP, and MPI_Win_allocate would fail
 * the packed and datatype exchanges across nodes too. */
static void buffers_init(int maxw, int puts)
{
    L = N + 2 * maxw;
    size_t abytes = (size_t)L * L * sizeof(double);
    /* MPI_Win_allocate, not Win_create over MPI_Alloc_mem: Open MPI 4.1 then picks its
     * shared-memory one-sided component, and Win_create fails on a single rank there. */
    if (puts)
        MPI_Win_allocate((MPI_Aint)abytes, sizeof(double), MPI_INFO_NULL, cart, &a, &win);
    else
        a = comm_alloc(abytes);  /* the pages --buffer-pages asks for (a window's: MPI's) */
    memset(a, 0, abytes);
    /* The 16 pack buffers in one allocation of those pages too. */
    size_t one = (size_t)N * maxw;
    packs = comm_alloc(16 * one * sizeof(double));
    for (int d = 0; d < 8; d++)
        sbuf[d] = packs + (2 * d) * one, rbuf[d] = packs + (2 * d + 1) * one;
}

static void buffers_free(void)
{
    if (win != MPI_WIN_NULL)
        MPI_Win_free(&win);  /* frees a too */
    else
        free(a);
    free(packs);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "halo",
             "Halo exchange on a 2-D process grid: packed buffers vs derived datatypes vs puts.",
             options, MPI_THREAD_SINGLE);
    N = (int)hpc_opt_int("tile");
    const long long *widths;
    int nw = hpc_opt_list("widths", &widths);
    int maxw = 1;
    for (int i = 0; i < nw; i++)
        maxw = widths[i] > maxw ? (int)widths[i] : maxw;
    hpc_usage_check(maxw > N, "--widths: a ghost width (%d) larger than the tile (%d)", maxw, N);
    int nb_on[2], m_on[3];
    hpc_opt_chosen("neighbours", nb_on);
    hpc_opt_chosen("methods", m_on);
    grid_init();

    hpc_begin(1, NULL);
    char grid[32];
    snprintf(grid, sizeof grid, "%dx%d", dims[0], dims[1]);
    buffers_init(maxw, m_on[2]);
    hpc_inject_first_point();
    for (int wi = 0; wi < nw; wi++) {
        W = (int)widths[wi];
        L = N + 2 * W;
        types_init();
        for (int nbi = 0; nbi < 2; nbi++)
            for (int m = 0; nb_on[nbi] && m < 3; m++)
                if (m_on[m])
                    measure(m, nbi ? 8 : 4, grid);
        types_free();
    }
    buffers_free();
    MPI_Comm_free(&cart);
    hpc_finish();
    return 0;
}
