/* collectives.c - barrier, bcast, reduce, allreduce, allgather, alltoall,
 * alltoallv latency vs size, timed as the SP2 study did; and reduce with a
 * user-defined null operation (reduce-null, SP2 §3.2): the library's
 * reduction cost without the arithmetic, beside MPI_SUM's.
 *
 * One sample: barrier, then k times (operation; barrier), timed by every
 * rank; the time of one operation is that / k minus the barrier's own cost
 * (measured first, the same way, with nothing between the barriers). The
 * sample kept is the slowest rank's time (latency, the headline); the mean
 * over ranks is reported beside it (latency_mean), and the slowest time with
 * the barrier included (latency_raw), since with a costly, noisy barrier
 * (oversubscribed ranks) the difference is not resolved: a warning record
 * says so. bandwidth = bytes / the
 * slowest time, where bytes is each rank's contribution (bcast: the message;
 * reduce/allreduce: the vector; allgather: one block; alltoall(v): the
 * average block per destination).
 * The last operation's result is checked on every rank outside the timed
 * region.
 */
#include "harness.h"
#include "lib/comm.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "ops", .type = HPC_CHOICES,
     .def = "all",
     .choices = "barrier|bcast|reduce|reduce-null|allreduce|allgather|alltoall|alltoallv",
     .all = 1,
     .what = "a collective", .help = "collectives to measure"},
    {.name = "sizes", .type = HPC_SIZES, .def = "4,64,1K,16K,256K,1M", .min = 0,
     .max = 1 << 28, .help = "bytes per rank (multiples of 4 for reduce/allreduce)"},
    COMM_PAGES_OPTION,
    {0}};

enum { BARRIER, BCAST, REDUCE, REDUCE_NULL, ALLREDUCE, ALLGATHER, ALLTOALL, ALLTOALLV, NOPS };
static const char *const NAMES[] = {"barrier", "bcast", "reduce", "reduce-null", "allreduce",
                                    "allgather", "alltoall", "alltoallv"};

static int me, np;
static char *sb, *rb;
static int *scnt, *sdsp, *rcnt, *rdsp;  /* alltoallv */
static double barrier_s;                /* one barrier, slowest rank */
static MPI_Op null_op;                  /* reduce-null's operation */

/* Combines nothing: what a reduction costs the library without arithmetic.
 * The root's result is then some rank's own contribution, element by element. */
static void combine_nothing(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
}

static int is_reduce(int op) { return op == REDUCE || op == REDUCE_NULL || op == ALLREDUCE; }

/* alltoallv: s sends n * (1 + (s + d) % 3) / 2 bytes to d (0.5n, n, 1.5n). */
static int vcount(int n, int s, int d) { return (int)((long)n * (1 + (s + d) % 3) / 2); }

static uint64_t block_seed(int n, long idx, int src, int dst)
{
    return hpc_seed((uint64_t)n, (uint64_t)idx * 65536u + (uint64_t)dst, (uint64_t)src);
}

static int32_t rval(int i, long idx) { return (int32_t)((i + idx) % 13 + 1); }

static void prepare(int op, int n, long idx)
{
    int cnt = n / 4;
    switch (op) {
    case BCAST:
        if (me == 0)
            hpc_fill(sb, (size_t)n, block_seed(n, idx, 0, 0));
        else
            memset(sb, 0, (size_t)n);
        break;
    case REDUCE:
    case REDUCE_NULL:
    case ALLREDUCE:
        for (int i = 0; i < cnt; i++)
            ((int32_t *)sb)[i] = (me + 1) * rval(i, idx);
        memset(rb, 0, (size_t)n);
        break;
    case ALLGATHER:
        hpc_fill(sb, (size_t)n, block_seed(n, idx, me, 0));
        memset(rb, 0, (size_t)n * np);
        break;
    case ALLTOALL:
        for (int d = 0; d < np; d++)
            hpc_fill(sb + (size_t)d * n, (size_t)n, block_seed(n, idx, me, d));
        memset(rb, 0, (size_t)n * np);
        break;
    case ALLTOALLV:
        for (int d = 0, so = 0, ro = 0; d < np; d++) {
            scnt[d] = vcount(n, me, d), sdsp[d] = so, so += scnt[d];
            rcnt[d] = vcount(n, d, me), rdsp[d] = ro, ro += rcnt[d];
            hpc_fill(sb + sdsp[d], (size_t)scnt[d], block_seed(n, idx, me, d));
        }
        memset(rb, 0, (size_t)rdsp[np - 1] + (size_t)rcnt[np - 1]);
        break;
    }
}

/* Clear what the operation writes on this rank (the result the check reads). */
static void clear_result(int op, int n)
{
    if (op == BCAST)
        memset(sb, 0, me == 0 ? 0 : (size_t)n);
    else if (op == ALLTOALLV)
        memset(rb, 0, (size_t)rdsp[np - 1] + (size_t)rcnt[np - 1]);
    else if (op != BARRIER)
        memset(rb, 0, (size_t)n * (is_reduce(op) ? 1 : (size_t)np));
}

static void run_op(int op, int n)
{
    switch (op) {
    case BARRIER: break;
    case BCAST: MPI_Bcast(sb, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case REDUCE: MPI_Reduce(sb, rb, n / 4, MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case REDUCE_NULL: MPI_Reduce(sb, rb, n / 4, MPI_INT32_T, null_op, 0, MPI_COMM_WORLD); break;
    case ALLREDUCE: MPI_Allreduce(sb, rb, n / 4, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD); break;
    case ALLGATHER: MPI_Allgather(sb, n, MPI_BYTE, rb, n, MPI_BYTE, MPI_COMM_WORLD); break;
    case ALLTOALL: MPI_Alltoall(sb, n, MPI_BYTE, rb, n, MPI_BYTE, MPI_COMM_WORLD); break;
    case ALLTOALLV:
        MPI_Alltoallv(sb, scnt, sdsp, MPI_BYTE, rb, rcnt, rdsp, MPI_BYTE, MPI_COMM_WORLD);
        break;
    }
}

/* reduce-null on the root: each element one rank's contribution (r + 1) * v. */
static long long check_null(int n, long idx)
{
    if (me != 0)
        return -1;
    for (int i = 0; i < n / 4; i++) {
        int32_t got = ((int32_t *)rb)[i], v = rval(i, idx);
        if (got % v != 0 || got / v < 1 || got / v > np)
            return 4LL * i;
    }
    return -1;
}

/* Offset of the first wrong byte of the result on this rank, or -1. */
static long long check(int op, int n, long idx)
{
    long long bad = -1;
    int32_t tri = (int32_t)np * (np + 1) / 2;
    switch (op) {
    case BCAST:
        return hpc_check(sb, (size_t)n, block_seed(n, idx, 0, 0));
    case REDUCE_NULL:
        return check_null(n, idx);
    case REDUCE:
    case ALLREDUCE:
        if (op == REDUCE && me != 0)
            return -1;
        for (int i = 0; i < n / 4; i++)
            if (((int32_t *)rb)[i] != tri * rval(i, idx))
                return 4LL * i;
        return -1;
    case ALLGATHER:
        for (int s = 0; s < np && bad < 0; s++) {
            bad = hpc_check(rb + (size_t)s * n, (size_t)n, block_seed(n, idx, s, 0));
            if (bad >= 0)
                bad += (long long)s * n;
        }
        return bad;
    case ALLTOALL:
    case ALLTOALLV:
        for (int s = 0; s < np && bad < 0; s++) {
            size_t off = op == ALLTOALL ? (size_t)s * n : (size_t)rdsp[s];
            size_t len = op == ALLTOALL ? (size_t)n : (size_t)rcnt[s];
            bad = hpc_check(rb + off, len, block_seed(n, idx, s, me));
            if (bad >= 0)
                bad += (long long)off;
        }
        return bad;
    }
    return -1;
}

/* One sample: this rank's time of one operation and the barrier-subtracted
 * slowest and mean over ranks (on rank 0). */
static void sample(int op, int n, long k, long idx, double *slowest, double *mean, double *raw)
{
    prepare(op, n, idx);
    /* Untimed: freshly written buffers are slower to move the first time (the
     * peers read lines dirty in the writer's cache; a large operation's batch
     * is one operation), so one run brings them to the steady state of
     * repeated operations (osu_* -c warms up the same way); then the results
     * are cleared again so that the check proves the timed run. */
    run_op(op, n);
    clear_result(op, n);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = hpc_now();
    for (long i = 0; i < k; i++) {
        run_op(op, n);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double t = (hpc_now() - t0) / (double)k, traw = t;
    if (op != BARRIER)
        t -= barrier_s;
    /* --inject corrupt: a wrong byte where the check reads it (a reduce's root). */
    int victim = (op == REDUCE || op == REDUCE_NULL) ? 0 : np - 1;
    if (hpc_inject == HPC_INJECT_CORRUPT && me == victim && op != BARRIER && n >= 4)
        ((op == BCAST) ? sb : rb)[0] ^= 0x5a;
    long long bad = op == BARRIER ? -1 : check(op, n, idx);
    if (bad >= 0)
        hpc_fail("data check failed: %s of %d bytes, sample %ld: rank %d has a wrong byte at "
                 "offset %lld", NAMES[op], n, idx, me, bad);
    /* Two reductions, not three: each costs a 1,024-rank simulation a collective. */
    double mine[2] = {t, traw}, most[2] = {t, traw}, sum = t * np;
    MPI_Reduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    *slowest = most[0];
    *raw = most[1];
    *mean = sum / np;
}

static void emit(const char *metric, const char *unit, const char *better, const char *op,
                 int n, double *v, int cnt, int conv, long k)
{
    hpc_stats st;
    hpc_json r;
    hpc_stats_compute(v, cnt, &st);
    hpc_result_begin(&r, metric, unit, "median", better);
    hpc_json_str(&r, "op", op);
    hpc_json_int(&r, "bytes", n);
    hpc_json_int(&r, "nranks", np);
    hpc_result_stats(&r, &st, conv);
    hpc_json_int(&r, "ops_per_sample", k);
    hpc_json_str(&r, "buffer_pages", comm_buffer_pages);
    hpc_json_str(&r, "buffer_pages_asked", comm_pages_asked());
    hpc_json_exact(&r, "barrier_us", barrier_s * 1e6);
    hpc_json_emit(&r);
}

/* Returns the median of the slowest times (seconds) on all ranks. */
static double measure(int op, int n, int write)
{
    hpc_batch bt;
    hpc_batch_init(&bt, hpc_batch_tick_target(), 1L << 20, 1, MPI_COMM_WORLD);
    long idx = 0;
    double slow, mean, raw;
    int more;
    do {
        /* Batch length from raw time: subtracted times may be tiny. */
        double saved = barrier_s;
        barrier_s = 0;
        sample(op, n, bt.k, idx++, &slow, &mean, &raw);
        barrier_s = saved;
        more = hpc_batch_calibrate_coll(&bt, slow * bt.k);
    } while (more);
    /* Kept samples are the subtracted times, fed to the sampler below. */
    hpc_sampler *s = &bt.s;
    long k = bt.k;
    double *means = malloc((size_t)hpc_reps.max_reps * sizeof *means);
    double *raws = malloc((size_t)hpc_reps.max_reps * sizeof *raws);
    if (!means || !raws)
        abort();
    int nm = 0;
    while (hpc_sampler_more_coll(s, MPI_COMM_WORLD)) {
        sample(op, n, k, idx++, &slow, &mean, &raw);
        /* A subtracted time can come out at or below zero for a near-free
         * operation; 1 ns keeps it a positive, finite number. */
        if (slow < 1e-9)
            slow = 1e-9;
        if (mean < 1e-9)
            mean = 1e-9;
        int kept = s->n;
        hpc_sampler_add(s, slow);
        if (s->n > kept) {
            raws[nm] = raw;
            means[nm++] = mean;
        }
    }
    double med = 0;
    if (me == 0) {
        hpc_stats st;
        hpc_stats_compute(s->samples, s->n, &st);
        med = st.median;
        if (write) {
            double *v = malloc((size_t)s->n * sizeof *v);
            for (int i = 0; i < s->n; i++)
                v[i] = s->samples[i] * 1e6;
            emit("latency", "us", "lower", NAMES[op], n, v, s->n, s->converged, k);
            for (int i = 0; i < nm; i++)
                v[i] = means[i] * 1e6;
            emit("latency_mean", "us", "lower", NAMES[op], n, v, nm, s->converged, k);
            if (op != BARRIER) {
                /* The operation with its barrier, unsubtracted: when the barrier's
                 * own cost is most of it (oversubscribed ranks), the subtracted
                 * latency is not resolved and says so. */
                for (int i = 0; i < nm; i++)
                    v[i] = raws[i] * 1e6;
                emit("latency_raw", "us", "lower", NAMES[op], n, v, nm, s->converged, k);
                hpc_stats rs;
                hpc_stats_compute(raws, nm, &rs);
                if (med < 0.1 * rs.median)
                    hpc_warn("%s of %d bytes on %d ranks: the barrier (%.3g us) is over 90%% of "
                             "the measured time (%.3g us); the subtracted latency is not "
                             "resolved", NAMES[op], n, np, barrier_s * 1e6, rs.median * 1e6);
            }
            if (n > 0 && op != BARRIER) {
                for (int i = 0; i < s->n; i++)
                    v[i] = n / (s->samples[i] * 1e6);
                emit("bandwidth", "MB/s", "higher", NAMES[op], n, v, s->n, s->converged, k);
            }
            free(v);
        }
    }
    MPI_Bcast(&med, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(means);
    free(raws);
    hpc_batch_free(&bt);
    return med;
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "collectives",
             "Collective latency vs size (barrier-synchronised, barrier cost subtracted, "
             "slowest rank; per-rank mean beside it).",
             options, MPI_THREAD_SINGLE);
    me = hpc_rank, np = hpc_nranks;
    int on[NOPS];
    hpc_opt_chosen("ops", on);
    const long long *sizes;
    int nsizes = hpc_opt_list("sizes", &sizes);
    long long max = 4;
    for (int i = 0; i < nsizes; i++)
        max = sizes[i] > max ? sizes[i] : max;
    /* alltoallv's largest block is 1.5x; allgather/alltoall need np blocks, the others one
     * (1,024 simulated ranks of bcast and allreduce held 4 GiB of blocks they never used). */
    int gathers = on[ALLGATHER] || on[ALLTOALL] || on[ALLTOALLV];
    size_t need = (size_t)max * (gathers ? (size_t)np : 1) * 2;
    hpc_usage_check((double)need * 2 > 0.5 * (double)hpc_mem_available(),
                    "--sizes up to %lld bytes with %d ranks need %.1f GiB per rank: more than "
                    "the memory available", max, np, (double)need * 2 / (1 << 30));

    hpc_begin(1, NULL);
    sb = comm_alloc(need);
    rb = comm_alloc(need);
    scnt = malloc(4 * sizeof(int) * (size_t)np);
    sdsp = scnt + np, rcnt = sdsp + np, rdsp = rcnt + np;
    MPI_Op_create(combine_nothing, 1, &null_op);
    hpc_inject_first_point();

    barrier_s = 0;
    barrier_s = measure(BARRIER, 0, on[BARRIER]);
    for (int op = BCAST; op < NOPS; op++)
        for (int i = 0; on[op] && i < nsizes; i++) {
            int n = (int)sizes[i];
            if (is_reduce(op) && n % 4) {
                hpc_warn("skipped %s of %d bytes: not a multiple of 4 (int32 elements)",
                         NAMES[op], n);
                continue;
            }
            measure(op, n, 1);
        }
    free(sb);
    free(rb);
    free(scnt);
    MPI_Op_free(&null_op);
    hpc_finish();
    return 0;
}
