/* rma.c - one-sided communication by synchronisation mode (as osu_put_latency/-bw,
 * osu_get_latency/-bw, osu_acc_latency, osu_fop_latency, osu_cas_latency).
 *
 * Rank 0 is the origin, rank 1 the target (as OSU); other ranks wait. One epoch is opened,
 * filled with the origin's operations and closed under one synchronisation mode:
 *   fence  MPI_Win_fence on both ranks closes each epoch;
 *   lock   MPI_Win_lock(SHARED)/MPI_Win_unlock around each epoch, at the origin only;
 *   flush  MPI_Win_lock_all once a sample (untimed), MPI_Win_flush closes each epoch;
 *   pscw   origin MPI_Win_start/MPI_Win_complete, target MPI_Win_post/MPI_Win_wait.
 * Operations: put, get, acc (MPI_Accumulate, MPI_SUM over MPI_UINT32_T: sizes that are not
 * whole elements are skipped) of n bytes, fop (MPI_Fetch_and_op, SUM of 1) and cas
 * (MPI_Compare_and_swap) of one 8-byte word. Operation j of an epoch goes to displacement
 * j n of the window from offset j n of the origin's buffer (as osu_put_bw/osu_get_bw): an
 * epoch of w operations touches w n bytes each side, so a bandwidth epoch cannot stay in the
 * caches by rewriting one n-byte slot (it did: 31-33 GB/s at 64 KiB, OSU with -W 1 the same).
 * A sample is a batch of k epochs, timed by the origin:
 *   latency   = batch time / k, one operation an epoch              [us]
 *   bandwidth = window n k / batch time, window operations an epoch [MB/s] (put, get)
 *
 * Each sample starts warm: one untimed epoch runs after the data preparation (which leaves
 * the buffers dirty in the preparing core's cache) and before the timed ones, as OSU's
 * steady-state loop is warm. Above ~50 us an operation, k is 1: without it a 1 MiB put
 * under Open MPI took 77-83 us against OSU's 44-46 us. A bandwidth sample lasts 1 ms at
 * least (BW_BATCH_S; OSU times 20 epochs): the first timed epoch follows rearm()'s rewrite
 * of the w n bytes it reads, and as the only epoch of a sample it ran at half speed (Open
 * MPI, 64 KiB puts: 17-29 GB/s alone, 35-41 GB/s in 16 epochs; osu_put_bw 28-42).
 *
 * Verification, outside the timed region: before each sample the origin fills its buffer
 * with a pattern seeded by (size, sample, rank) and the target clears its window (get: fills
 * it); the warm epoch's data is then made distinguishable from the timed epochs' (put: the
 * origin's buffer held another pattern during the warm epoch; get: the origin clears its
 * result buffer again), so the check sees what the timed operations left. After the sample
 * the rank that holds the data checks every slot written against what k + 1 epochs must
 * leave: the target's window after puts (the pattern) and accumulates (k + 1 times the
 * pattern, element by element), the origin's buffer after gets, both after fop and cas (the
 * target's word k + 1, the origin's last fetched value k: every operation, the warm one
 * included, took effect once). A rank reads or writes its own window only under a lock of
 * it, between epochs.
 *
 * Why 4-byte elements for acc, not OSU's bytes: Open MPI 4.1.4's op/avx component sums 8-bit
 * integers with saturation (255 after enough accumulates, not the sum mod 256); this check
 * caught it. 32-bit sums wrap, as MPI_SUM on unsigned integers must.
 */
#include "harness.h"
#include "lib/comm.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "ops", .type = HPC_CHOICES, .def = "all",
     .choices = "put|get|acc|fop|cas", .all = 1,
     .help = "operations: put, get, acc (accumulate, SUM of 4-byte integers), fop (fetch-and-op), cas "
             "(compare-and-swap); fop and cas at 8 B only"},
    {.name = "sync", .type = HPC_CHOICES, .def = "all",
     .choices = "fence|lock|flush|pscw", .all = 1,
     .help = "synchronisation modes: fence, lock (lock/unlock an epoch), flush (lock_all "
             "once, flush an epoch), pscw (post-start-complete-wait)"},
    {.name = "sizes", .type = HPC_SIZES,
     .def = "1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,128K,256K,512K,1M",
     .min = 1, .max = INT_MAX, .help = "message sizes in bytes (put, get, acc)"},
    {.name = "window", .type = HPC_INT, .def = "32", .min = 1, .max = 1024,
     .help = "operations an epoch in the put and get bandwidth tests"},
    {.name = "win", .type = HPC_CHOICE, .def = "allocate", .choices = "allocate|create",
     .help = "window memory: MPI_Win_allocate, or MPI_Win_create over the benchmark's buffer"},
    COMM_PAGES_OPTION,
    {0}};

enum { PUT, GET, ACC, FOP, CAS, NOPS };
enum { FENCE, LOCK, FLUSH, PSCW, NSYNCS };
static const char *const OPS[] = {"put", "get", "acc", "fop", "cas"};
static const char *const SYNCS[] = {"fence", "lock", "flush", "pscw"};
enum { WORD = 8, TARGET = 1 };

typedef struct {
    int op, sync, bytes, window;  /* window: operations an epoch */
} point;

static MPI_Win win;
static char *base;            /* this rank's window memory (the target's is the one used) */
static char *sbuf, *rbuf;     /* the origin's source and result buffers */
static char *ebuf;            /* what a checked buffer must hold */
static MPI_Group peer;        /* the other rank of the pair, for pscw */
static int origin, created;   /* rank 0 of the pair; --win create */
static uint64_t cas_word[2];  /* cas: compared with, swapped in (the target's word k, k+1) */

static void rma_params(hpc_json *r, const void *ctx)
{
    const point *p = ctx;
    hpc_json_str(r, "op", OPS[p->op]);
    hpc_json_str(r, "sync", SYNCS[p->sync]);
    hpc_json_int(r, "bytes", p->bytes);
    hpc_json_int(r, "window", p->window);
    hpc_json_str(r, "win", created ? "create" : "allocate");
}

/* The origin's operations of one epoch. */
static void issue(const point *p)
{
    static const uint64_t one = 1;
    for (int w = 0; w < p->window; w++) {
        size_t off = (size_t)w * (size_t)p->bytes;  /* slot w, each side (top of the file) */
        if (p->op == PUT)
            MPI_Put(sbuf + off, p->bytes, MPI_BYTE, TARGET, (MPI_Aint)off, p->bytes, MPI_BYTE,
                    win);
        else if (p->op == GET)
            MPI_Get(rbuf + off, p->bytes, MPI_BYTE, TARGET, (MPI_Aint)off, p->bytes, MPI_BYTE,
                    win);
        else if (p->op == ACC)
            MPI_Accumulate(sbuf, p->bytes / 4, MPI_UINT32_T, TARGET, 0, p->bytes / 4,
                           MPI_UINT32_T, MPI_SUM, win);
        else if (p->op == FOP)
            MPI_Fetch_and_op(&one, rbuf, MPI_UINT64_T, TARGET, 0, MPI_SUM, win);
        else
            MPI_Compare_and_swap(&cas_word[1], &cas_word[0], rbuf, MPI_UINT64_T, TARGET, 0,
                                 win);
    }
}

/* k epochs of the point's mode (the timed loop); flush's lock_all and fence's first and last
 * fences are the caller's. cas's words change only once an epoch has completed them. */
static void epochs(const point *p, long k)
{
    for (long e = 0; e < k; e++) {
        if (p->sync == LOCK && origin)
            MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, win);
        else if (p->sync == PSCW && origin)
            MPI_Win_start(peer, 0, win);
        else if (p->sync == PSCW)
            MPI_Win_post(peer, 0, win);
        if (origin)
            issue(p);
        if (p->sync == FENCE)
            MPI_Win_fence(0, win);
        else if (p->sync == LOCK && origin)
            MPI_Win_unlock(TARGET, win);
        else if (p->sync == FLUSH && origin)
            MPI_Win_flush(TARGET, win);
        else if (p->sync == PSCW)
            origin ? MPI_Win_complete(win) : MPI_Win_wait(win);
        cas_word[0]++, cas_word[1]++;
    }
}

/* Local access to this rank's own window, between epochs. */
static void own_window(int lock)
{
    int me = origin ? 0 : TARGET;
    if (lock)
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    else
        MPI_Win_unlock(me, win);
}

static uint64_t seed(const point *p, long idx, int rank)
{
    return hpc_seed((uint64_t)p->bytes, (uint64_t)idx, (uint64_t)rank);
}

/* Bytes an epoch touches each side: window slots of n bytes (put, get; acc has window 1). */
static size_t span(const point *p)
{
    return (size_t)p->window * (size_t)p->bytes;
}

enum { WARM_SEED = 2 };  /* seed rank of the put pattern of the warm epoch, not a rank's */

/* Buffers before a sample: the origin's source pattern and cleared results, the target's
 * window cleared (get: the target's pattern). */
static void prepare(const point *p, long idx)
{
    size_t n = span(p);
    cas_word[0] = 0, cas_word[1] = 1;
    if (origin) {
        hpc_fill(sbuf, n, seed(p, idx, p->op == PUT ? WARM_SEED : 0));
        memset(rbuf, 0, n);
        return;
    }
    own_window(1);
    if (p->op == GET)
        hpc_fill(base, n, seed(p, idx, TARGET));
    else
        memset(base, 0, n);
    own_window(0);
}

/* After the warm epoch, the origin's local buffers (never the window, so no lock): put's
 * source gets the sample's pattern, get's result is cleared, so the check tells the timed
 * epochs' data from the warm one's. Written by the origin, they stay in its cache. */
static void rearm(const point *p, long idx)
{
    if (!origin)
        return;
    if (p->op == PUT)
        hpc_fill(sbuf, span(p), seed(p, idx, 0));
    else if (p->op == GET)
        memset(rbuf, 0, span(p));
}

/* The buffer this rank checks after k epochs (NULL: none), with what it must hold in ebuf. */
static char *expected(const point *p, long k, long idx)
{
    uint64_t ops = (uint64_t)k * (uint64_t)p->window, word = origin ? ops - 1 : ops;
    size_t n = span(p);
    if (p->op == FOP || p->op == CAS) {
        memcpy(ebuf, &word, WORD);
        return origin ? rbuf : base;
    }
    if (p->op == GET) {
        hpc_fill(ebuf, n, seed(p, idx, TARGET));
        return origin ? rbuf : NULL;
    }
    if (origin)
        return NULL;
    hpc_fill(ebuf, n, seed(p, idx, 0));
    for (size_t i = 0; p->op == ACC && i < n; i += 4) {  /* SUM of k patterns (window 1) */
        uint32_t v;
        memcpy(&v, ebuf + i, 4);
        v *= (uint32_t)k;
        memcpy(ebuf + i, &v, 4);
    }
    return base;
}

/* This rank's verdict: the offset of the first wrong byte of what it checks, or -1. */
static long long verdict(const point *p, long k, long idx)
{
    char *held = expected(p, k, idx);
    if (!held)
        return -1;
    int corrupt_here = (p->op == PUT || p->op == ACC) ? !origin : origin;
    if (!origin)
        own_window(1);
    if (hpc_inject == HPC_INJECT_CORRUPT && corrupt_here)
        held[p->bytes / 2] ^= 0x5a;
    long long bad = -1, n = (long long)span(p);  /* every slot written */
    for (long long i = 0; bad < 0 && i < n; i++)
        if (held[i] != ebuf[i])
            bad = i;
    if (!origin)
        own_window(0);
    return bad;
}

/* Both ranks check what they hold; the origin judges. Collective over the pair. */
static void check(MPI_Comm pair, const point *p, long k, long idx)
{
    long long bad = verdict(p, k, idx), bads[2];
    MPI_Gather(&bad, 1, MPI_LONG_LONG, bads, 1, MPI_LONG_LONG, 0, pair);
    for (int r = 0; origin && r < 2; r++)
        if (bads[r] >= 0)
            hpc_fail("data check failed: rma, %s under %s, %d-byte operations, window %d, "
                     "sample %ld: rank %d's %s has a wrong byte at offset %lld", OPS[p->op],
                     SYNCS[p->sync], p->bytes, p->window, idx, r,
                     r == 0 ? "result buffer" : "window", bads[r]);
}

/* One sample of k timed epochs after a warm one, the origin's time; data prepared and
 * checked outside it. */
static double sample(MPI_Comm pair, const point *p, long k, long idx)
{
    prepare(p, idx);
    MPI_Barrier(pair);
    if (p->sync == FENCE)
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (p->sync == FLUSH && origin)
        MPI_Win_lock_all(0, win);
    epochs(p, 1);  /* warm, untimed (top of the file) */
    rearm(p, idx);
    double t0 = hpc_now();
    epochs(p, k);
    double t = hpc_now() - t0;
    if (p->sync == FENCE)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (p->sync == FLUSH && origin)
        MPI_Win_unlock_all(win);
    MPI_Barrier(pair);
    check(pair, p, k + 1, idx);
    return t;
}

#define BW_BATCH_S 1e-3  /* a bandwidth sample's least length (top of the file) */

/* One point: its latency record (window 1) or bandwidth record. */
static void measure(MPI_Comm pair, const point *p)
{
    long idx = 0;
    hpc_batch bt;
    double target = hpc_batch_tick_target();
    if (p->window > 1 && target < BW_BATCH_S)
        target = BW_BATCH_S;  /* epochs past the first after rearm (top of the file) */
    hpc_batch_init(&bt, target, 1L << 20, 1, pair);
    while (hpc_batch_add_coll(&bt, sample(pair, p, bt.k, idx++)))
        ;
    hpc_point pt = {rma_params, p, "epochs_per_sample", comm_record_extra};
    if (p->window == 1)
        hpc_batch_emit(&pt, "latency", "us", "lower", &bt, 1e6, 0, 0);
    else
        hpc_batch_emit(&pt, "bandwidth", "MB/s", "higher", &bt, 1e6, 1,
                       (double)p->window * p->bytes);
    hpc_batch_free(&bt);
}

/* Every size of one operation under one mode: latency, and for put and get bandwidth. */
static void sweep(MPI_Comm pair, int op, int sync, const long long *sizes, int nsizes,
                  int window)
{
    static const long long word = WORD;
    if (op == FOP || op == CAS)
        sizes = &word, nsizes = 1;
    for (int si = 0; si < nsizes; si++) {
        if (op == ACC && sizes[si] % 4)
            continue;  /* whole 4-byte elements (top of the file) */
        point p = {op, sync, (int)sizes[si], 1};
        measure(pair, &p);
        p.window = window;
        if (op == PUT || op == GET)
            measure(pair, &p);
    }
}

/* The window over `cap` bytes of every rank of the pair (MPI_Win_allocate or _create). */
static void open_window(MPI_Comm pair, size_t cap)
{
    MPI_Group all, other;
    MPI_Comm_group(pair, &all);
    int them = origin ? TARGET : 0;
    MPI_Group_incl(all, 1, &them, &other);
    peer = other;
    MPI_Group_free(&all);
    if (created) {
        base = comm_alloc(cap);
        MPI_Win_create(base, (MPI_Aint)cap, 1, MPI_INFO_NULL, pair, &win);
    } else {
        MPI_Win_allocate((MPI_Aint)cap, 1, MPI_INFO_NULL, pair, &base, &win);
        memset(base, 0, cap);  /* touched before timing, as comm_alloc's buffers */
    }
}

static void close_window(void)
{
    MPI_Win_free(&win);
    MPI_Group_free(&peer);
    if (created)
        free(base);
}

int main(int argc, char **argv)
{
#ifdef OPEN_MPI
    /* Open MPI 4.1.4's osc/rdma (its default here, over shared memory too) kills the target
     * in MPI_Compare_and_swap (SIGSEGV); sm, pt2pt and ucx do not. Read at MPI_Init; a
     * value the user set wins. */
    setenv("OMPI_MCA_osc", "^rdma", 0);
#endif
    hpc_init(&argc, &argv, "rma",
             "one-sided put, get, accumulate, fetch-and-op and compare-and-swap latency and "
             "bandwidth by synchronisation mode, rank 0 to rank 1.",
             options, MPI_THREAD_SINGLE);
    hpc_usage_check(hpc_nranks < 2, "rma needs at least 2 MPI ranks, got %d", hpc_nranks);
    const long long *sizes;
    int nsizes, on_op[NOPS], on_sync[NSYNCS];
    size_t cap = (size_t)comm_opt_sizes(&sizes, &nsizes);
    hpc_opt_chosen("ops", on_op);
    hpc_opt_chosen("sync", on_sync);
    int window = (int)hpc_opt_int("window");
    if (on_op[PUT] || on_op[GET])
        cap *= (size_t)window;  /* a bandwidth epoch's slots (top of the file) */
    /* At least a page: MPICH 4.0's 8-byte MPI_Win_allocate lost every put here (16 B did
     * not); a page costs nothing. */
    cap = cap < 4096 ? 4096 : cap;
    created = strcmp(hpc_opt_str("win"), "create") == 0;
    hpc_begin(1, NULL);

    int active = hpc_rank < 2;
    origin = hpc_rank == 0;
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, active ? 0 : MPI_UNDEFINED, hpc_rank, &pair);
    hpc_inject_first_point();
    if (active) {
        sbuf = comm_alloc(cap);
        rbuf = comm_alloc(cap);
        ebuf = comm_alloc(cap);
        open_window(pair, cap);
        for (int op = 0; op < NOPS; op++)
            for (int sync = 0; on_op[op] && sync < NSYNCS; sync++)
                if (on_sync[sync])
                    sweep(pair, op, sync, sizes, nsizes, window);
        close_window();
        free(sbuf), free(rbuf), free(ebuf);
        MPI_Comm_free(&pair);
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
