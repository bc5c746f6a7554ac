/* loggp.c - LogGP parameters (L, o_s, o_r, g, G) between ranks 0 and 1, by
 * netgauge's method (Hoefler, Lichei, Rehm, "Low-Overhead LogGP Parameter
 * Assessment for Modern Interconnection Networks", IPDPS 2007; Hoefler,
 * Schneider, Lumsdaine, "LogGP in theory and practice", 2009). docs/loggp.md.
 *
 * A train PRTT(n, d, s): rank 0 sends n messages of s bytes with a busy
 * computation of d between them, rank 1 receives all n and answers with one
 * message of s bytes; the time is rank 0's, from the first send to the answer.
 * Per size s, one point each (median, CI over samples; a sample is a batch of
 * trains or round trips, long enough for the timer, batch.h):
 *   round_trip RTT(s) = PRTT(1, 0, s)
 *   gap        g(s) = (PRTT(n, 0, s) - RTT(s)) / (n - 1)
 *   o_s        o_s(s) = (PRTT(n, d, s) - RTT(s) - D) / (n - 1)
 *   o_r        rank 1 sends n messages back to back; rank 0 takes the first,
 *              then n - 1 times computes d and receives (the message is there
 *              by then: d exceeds the latency): o_r(s) = (T - D) / (n - 1)
 * D is the time of the n - 1 computations alone: (n - 1)(d + eps), eps the
 * overshoot of one computation (its last clock read), measured alone with
 * computations of 1 us (so that the spin loop is not counted as overhead). Every
 * derived sample uses the medians of RTT(s) and D; one below 0 (noise) is
 * clipped at 0 and counted ("clipped_samples"). The default d is 2 RTT(s).
 * Summary (one record, metric L, at the smallest size s0):
 *   L = RTT(s0) / 2 - o_s(s0) - o_r(s0), clipped at 0 (and said so), its
 *   samples pairing the i-th samples of the three points (independent points,
 *   so each pair is a sample of L); G = the least-squares slope of g(s) over
 *   the large sizes (>= the largest / 16, at least two), per sample pairing
 *   likewise; o_s, o_r, g at s0 beside them.
 * Data are checked after every sample, outside the timed region.
 */
#include "harness.h"
#include "lib/comm.h"
#include "lib/loggp_fit.h"

#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES,
     .def = "0,8,64,512,4096,16384,65536,262144,1048576", .min = 0, .max = INT_MAX,
     .help = "message sizes in bytes (the smallest gives L, o_s, o_r, g; the largest G)"},
    {.name = "train", .type = HPC_INT, .def = "32", .min = 2, .max = 100000,
     .help = "messages per train (n of PRTT(n, d, s))"},
    {.name = "delay", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 1e7,
     .help = "computation between messages in us (0: 2x the size's round trip)"},
    COMM_PAGES_OPTION,
    {0}};

enum { K_RTT, K_GAP, K_OS, K_OR, K_IDLE };
static const char *KIND_NAMES[] = {"round-trip", "gap", "o_s", "o_r", "idle"};
enum { TAG = 7 };
static const long MAX_BATCH = 1L << 20;

static char *sbuf, *rbuf;  /* page-aligned, touched (comm_alloc) */

typedef struct {
    MPI_Comm pair;
    int rank, bytes;
    long train;      /* n */
    double delay;    /* d [s] */
} lg_ctx;

/* Kept samples of one point (rank 0): seconds per round trip or per train. */
typedef struct {
    double *t;
    int n, converged;
    long batch;
    double median;
} lg_point;

/* Rank 0 sends the train (computing d between sends), rank 1 answers. */
static double train_out(const lg_ctx *c, double d, MPI_Status *st)
{
    int n = c->bytes;
    if (c->rank == 1) {
        for (long i = 0; i < c->train; i++)
            MPI_Recv(rbuf, n, MPI_BYTE, 0, TAG, c->pair, st);
        MPI_Send(sbuf, n, MPI_BYTE, 0, TAG, c->pair);
        return 0.0;
    }
    double t0 = hpc_now();
    MPI_Send(sbuf, n, MPI_BYTE, 1, TAG, c->pair);
    for (long i = 1; i < c->train; i++) {
        if (d > 0.0)
            comm_busy(d);
        MPI_Send(sbuf, n, MPI_BYTE, 1, TAG, c->pair);
    }
    MPI_Recv(rbuf, n, MPI_BYTE, 1, TAG, c->pair, st);
    return hpc_now() - t0;
}

/* Rank 1 sends the train back to back; rank 0 takes the first message, then
 * computes d before each receive, so the message is waiting: only the receive
 * call's own time (o_r) adds to the computations. An empty answer ends it. */
static double train_in(const lg_ctx *c, MPI_Status *st)
{
    int n = c->bytes;
    if (c->rank == 1) {
        for (long i = 0; i < c->train; i++)
            MPI_Send(sbuf, n, MPI_BYTE, 0, TAG, c->pair);
        MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG, c->pair, MPI_STATUS_IGNORE);
        return 0.0;
    }
    MPI_Recv(rbuf, n, MPI_BYTE, 1, TAG, c->pair, st);
    double t0 = hpc_now();
    for (long i = 1; i < c->train; i++) {
        comm_busy(c->delay);
        MPI_Recv(rbuf, n, MPI_BYTE, 1, TAG, c->pair, st);
    }
    double t = hpc_now() - t0;
    MPI_Send(NULL, 0, MPI_BYTE, 1, TAG, c->pair);
    return t;
}

/* The n - 1 computations alone (rank 0): what D subtracts. */
static double idle_train(const lg_ctx *c)
{
    if (c->rank != 0)
        return 0.0;
    double t0 = hpc_now();
    for (long i = 1; i < c->train; i++)
        comm_busy(c->delay);
    return hpc_now() - t0;
}

/* k operations of a kind; rank 0's time. */
static double timed(const lg_ctx *c, int kind, long k, MPI_Status *st)
{
    if (kind == K_RTT)
        return comm_round_trips(c->pair, 1 - c->rank, c->rank == 0, MPI_Send, sbuf, rbuf,
                                c->bytes, k, st);
    double t = 0.0;
    for (long j = 0; j < k; j++)
        t += kind == K_IDLE  ? idle_train(c)
             : kind == K_OR  ? train_in(c, st)
             : kind == K_GAP ? train_out(c, 0.0, st)
                             : train_out(c, c->delay, st);
    return t;
}

/* Did this rank receive the last message of the sample right? -1 yes, -2 a
 * wrong size, else the offset of the first wrong byte. */
static long long received_bad(const lg_ctx *c, int kind, const MPI_Status *st, long idx)
{
    if (kind == K_IDLE || (kind == K_OR && c->rank == 1))
        return -1;  /* nothing received (rank 1's K_OR answer is empty) */
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (count != c->bytes)
        return -2;
    uint64_t peer = (uint64_t)(1 - c->rank);
    return hpc_check(rbuf, (size_t)c->bytes, hpc_seed((uint64_t)c->bytes, (uint64_t)idx, peer));
}

/* One sample: prepare, time k operations, check. Collective over the pair. */
static double sample(const lg_ctx *c, int kind, long k, long idx)
{
    int n = c->bytes;
    MPI_Status st;
    if (kind != K_IDLE) {
        hpc_fill(sbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)c->rank));
        /* untimed: the buffers' steady state (as pingpong), then cleared so the
         * check proves the timed operations, then an empty round trip so both
         * ranks start together */
        comm_round_trips(c->pair, 1 - c->rank, c->rank == 0, MPI_Send, sbuf, rbuf, n, 1, &st);
        memset(rbuf, 0, (size_t)n);
        comm_round_trips(c->pair, 1 - c->rank, c->rank == 0, MPI_Send, sbuf, rbuf, 0, 1, &st);
    }
    double t = timed(c, kind, k, &st);
    if (hpc_inject == HPC_INJECT_CORRUPT && c->rank == 0 && n > 0 && kind != K_IDLE)
        rbuf[n / 2] ^= 0x5a;
    long long bad = received_bad(c, kind, &st, idx), bads[2];
    MPI_Gather(&bad, 1, MPI_LONG_LONG, bads, 1, MPI_LONG_LONG, 0, c->pair);
    for (int r = 0; c->rank == 0 && r < 2; r++)
        if (bads[r] != -1) {
            char what[64] = "a message of the wrong size";
            if (bads[r] >= 0)
                snprintf(what, sizeof what, "a wrong byte at offset %lld", bads[r]);
            hpc_fail("data check failed: loggp %s train, %d-byte messages, sample %ld: rank %d "
                     "received %s", KIND_NAMES[kind], n, idx, r, what);
        }
    return t;
}

/* Measure one point; rank 0 gets its kept samples (free p->t). */
static void measure(const lg_ctx *c, int kind, lg_point *p)
{
    hpc_batch b;
    hpc_batch_init(&b, hpc_batch_tick_target(), MAX_BATCH, 1, c->pair);
    long idx = 0;
    while (hpc_batch_add_coll(&b, sample(c, kind, b.k, idx++)))
        ;
    memset(p, 0, sizeof *p);
    if (c->rank == 0) {
        p->n = b.s.n;
        p->t = malloc(sizeof *p->t * (size_t)(p->n > 0 ? p->n : 1));
        if (!p->t)
            abort();
        memcpy(p->t, b.s.samples, sizeof *p->t * (size_t)p->n);
        p->converged = b.s.converged;
        p->batch = b.k;
        hpc_stats st;
        hpc_stats_compute(p->t, p->n > 0 ? p->n : 1, &st);
        p->median = st.median;
    }
    hpc_batch_free(&b);
}

/* ---------------------------------------------------------------- records */

/* The keys of the record being written besides its stats (rank 0). */
typedef struct {
    long train;
    double delay_us, computation_us;  /* d asked for, and measured per message (D / (n-1)) */
    int clipped;
} lg_keys;
static lg_keys cur;

static void lg_params(hpc_json *r, const void *bytes)
{
    hpc_json_int(r, "bytes", *(const int *)bytes);
    hpc_json_str(r, "ranks", "0-1");
}

static void lg_extra(hpc_json *r)
{
    hpc_json_int(r, "train", cur.train);
    hpc_json_num(r, "delay_us", cur.delay_us);
    hpc_json_num(r, "computation_us", cur.computation_us);
    hpc_json_int(r, "clipped_samples", cur.clipped);
    comm_record_extra(r);
}

/* Rank 0: write a point's record with values (t - sub) / div in us, clipped at
 * 0; returns those values (malloc'd, for the summary). */
static double *emit_derived(const lg_ctx *c, const char *metric, const char *key,
                            const lg_point *p, double sub, double div)
{
    double *v = malloc(sizeof *v * (size_t)(p->n > 0 ? p->n : 1));
    if (!v)
        abort();
    cur.clipped = loggp_derive(p->t, p->n, sub, div, 1e6, v);
    hpc_point pt = {lg_params, &c->bytes, key, lg_extra};
    hpc_emit_values(&pt, metric, "us", "lower", v, p->n, p->converged, p->batch);
    return v;
}

/* What the summary needs of one size (rank 0): samples in us, their medians. */
typedef struct {
    int bytes, converged;
    double *v[4];   /* K_RTT, K_GAP, K_OS, K_OR */
    int n[4];
    double med[4];
} lg_size;

static void keep(lg_size *z, int kind, double *v, const lg_point *p)
{
    hpc_stats st;
    hpc_stats_compute(v, p->n > 0 ? p->n : 1, &st);
    z->v[kind] = v;
    z->n[kind] = p->n;
    z->med[kind] = st.median;
    z->converged = z->converged && p->converged;
}

/* Measure one size: round trip, then D, gap, o_s, o_r (collective over the pair). */
static void measure_size(lg_ctx *c, lg_size *z)
{
    lg_point p;
    measure(c, K_RTT, &p);
    double rtt = p.median;
    MPI_Bcast(&rtt, 1, MPI_DOUBLE, 0, c->pair);
    double d = hpc_opt_double("delay") * 1e-6;
    c->delay = d > 0.0 ? d : 2.0 * rtt;  /* longer than the latency, as o_r needs */
    cur = (lg_keys){c->train, c->delay * 1e6, 0.0, 0};
    z->bytes = c->bytes;
    z->converged = 1;
    if (c->rank == 0)
        keep(z, K_RTT, emit_derived(c, "round_trip", "round_trips_per_sample", &p, 0, 1), &p);
    free(p.t);

    /* One computation lasts d + eps (the spin's last clock read, the call):
     * eps is measured with computations of at most 1 us, whose short samples a
     * preemption on a loaded machine rarely hits, unlike trains of long ones. */
    double n1 = (double)(c->train - 1), d_short = c->delay < 1e-6 ? c->delay : 1e-6;
    double d_long = c->delay;
    c->delay = d_short;
    measure(c, K_IDLE, &p);
    c->delay = d_long;
    double D = n1 * (d_long + p.median / n1 - d_short);
    cur.computation_us = D / n1 * 1e6;
    free(p.t);
    static const int kinds[] = {K_GAP, K_OS, K_OR};
    static const char *metrics[] = {"gap", "o_s", "o_r"};
    for (int i = 0; i < 3; i++) {
        int kind = kinds[i];
        measure(c, kind, &p);
        double sub = kind == K_GAP ? rtt : kind == K_OS ? rtt + D : D;
        if (c->rank == 0)
            keep(z, kind, emit_derived(c, metrics[i], "trains_per_sample", &p, sub, n1), &p);
        free(p.t);
    }
    if (c->rank == 0 && c->delay * 1e6 < z->med[K_GAP])
        hpc_warn("loggp: %d bytes: the delay %.3g us is below the gap %.3g us: o_s includes "
                 "waiting for the network (give a longer --delay)", c->bytes, c->delay * 1e6,
                 z->med[K_GAP]);
}

/* ---------------------------------------------------------------- summary */

/* G's samples (us per byte): the least-squares slope of the i-th gap samples of
 * the fit sizes (those >= the largest / 16, at least the two largest sizes).
 * Returns how many; *lo, *hi get the fitted size range. */
static int g_samples(const lg_size *z, int nz, double *out, int *lo, int *hi)
{
    int bytes[nz], idx[nz];
    for (int j = 0; j < nz; j++)
        bytes[j] = z[j].bytes;
    int m = loggp_fit_sizes(bytes, nz, idx), ns = INT_MAX;
    *lo = INT_MAX, *hi = 0;
    for (int k = 0; k < m; k++) {
        const lg_size *q = &z[idx[k]];
        ns = q->n[K_GAP] < ns ? q->n[K_GAP] : ns;
        *lo = q->bytes < *lo ? q->bytes : *lo;
        *hi = q->bytes > *hi ? q->bytes : *hi;
    }
    double x[m], y[m];
    for (int i = 0; i < ns; i++) {
        for (int k = 0; k < m; k++) {
            x[k] = z[idx[k]].bytes;
            y[k] = z[idx[k]].v[K_GAP][i];
        }
        out[i] = loggp_slope(x, y, m);
    }
    return ns;
}

/* Rank 0: the summary record, L with its stats, the other parameters beside it. */
static void summary(const lg_size *z, int nz, long train)
{
    int s0 = 0, conv = 1, maxn = 1;
    for (int j = 0; j < nz; j++) {
        s0 = z[j].bytes < z[s0].bytes ? j : s0;
        conv = conv && z[j].converged;
        maxn = z[j].n[K_GAP] > maxn ? z[j].n[K_GAP] : maxn;
    }
    const lg_size *a = &z[s0];
    int m = a->n[K_RTT];
    m = a->n[K_OS] < m ? a->n[K_OS] : m;
    m = a->n[K_OR] < m ? a->n[K_OR] : m;
    double *L = malloc(sizeof *L * (size_t)(m > maxn ? m : maxn));
    if (!L)
        abort();
    for (int i = 0; i < m; i++)
        L[i] = a->v[K_RTT][i] / 2.0 - a->v[K_OS][i] - a->v[K_OR][i];
    int clipped = loggp_derive(L, m, 0.0, 1.0, 1.0, L);
    hpc_stats sl, sg;
    hpc_stats_compute(L, m, &sl);
    if (sl.median <= 0.0)
        hpc_warn("loggp: L = RTT/2 - o_s - o_r is negative at %d bytes (RTT/2 %.3g us, o_s "
                 "%.3g us, o_r %.3g us): clipped at 0; the overheads overlap the transfer",
                 a->bytes, a->med[K_RTT] / 2, a->med[K_OS], a->med[K_OR]);
    int lo, hi, ng = g_samples(z, nz, L, &lo, &hi);  /* L's samples are written: reuse */
    hpc_stats_compute(L, ng, &sg);

    hpc_json j;
    hpc_result_begin(&j, "L", "us", "median", "lower");
    hpc_json_int(&j, "bytes", a->bytes);
    hpc_json_str(&j, "ranks", "0-1");
    hpc_result_stats(&j, &sl, conv);
    hpc_json_bool(&j, "L_clipped", sl.median <= 0.0);
    hpc_json_int(&j, "clipped_samples", clipped);
    hpc_json_int(&j, "train", train);
    hpc_json_num(&j, "rtt_us", a->med[K_RTT]);
    hpc_json_num(&j, "o_s_us", a->med[K_OS]);
    hpc_json_num(&j, "o_r_us", a->med[K_OR]);
    hpc_json_num(&j, "g_us", a->med[K_GAP]);
    hpc_json_num(&j, "G_us_per_byte", sg.median);
    hpc_json_num(&j, "G_ci_low", sg.ci_low);
    hpc_json_num(&j, "G_ci_high", sg.ci_high);
    hpc_json_int(&j, "G_samples", sg.n);
    hpc_json_int(&j, "G_fit_min_bytes", lo);
    hpc_json_int(&j, "G_fit_max_bytes", hi);
    comm_record_extra(&j);
    hpc_json_emit(&j);
    free(L);
}

/* ---------------------------------------------------------------- main */

static int distinct(const long long *v, int n)
{
    int d = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen = seen || v[j] == v[i];
        d += !seen;
    }
    return d;
}

/* Ranks 0 and 1: every size, then the summary. */
static void run_pair(MPI_Comm pair, const long long *sizes, int nsizes, long long max)
{
    sbuf = comm_alloc((size_t)max);
    rbuf = comm_alloc((size_t)max);
    lg_size *z = calloc((size_t)nsizes, sizeof *z);
    if (!z)
        abort();
    lg_ctx c = {pair, hpc_rank, 0, hpc_opt_int("train"), 0.0};
    for (int i = 0; i < nsizes; i++) {
        c.bytes = (int)sizes[i];
        measure_size(&c, &z[i]);
    }
    if (hpc_rank == 0)
        summary(z, nsizes, c.train);
    for (int i = 0; i < nsizes; i++)
        for (int k = 0; k < 4; k++)
            free(z[i].v[k]);
    free(z);
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "loggp", "LogGP parameters L, o_s, o_r, g, G between ranks 0 and 1 "
             "(netgauge's method).", options, MPI_THREAD_SINGLE);
    const long long *sizes;
    int nsizes;
    long long max = comm_opt_sizes(&sizes, &nsizes);
    hpc_usage_check(hpc_nranks < 2, "loggp needs at least 2 MPI ranks, got %d", hpc_nranks);
    hpc_usage_check(distinct(sizes, nsizes) < 2,
                    "--sizes: give at least two different sizes (G is a slope over sizes)");
    hpc_begin(1, NULL);
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, hpc_rank < 2 ? 0 : MPI_UNDEFINED, hpc_rank, &pair);
    hpc_inject_first_point();
    if (pair != MPI_COMM_NULL) {
        run_pair(pair, sizes, nsizes, max);
        MPI_Comm_free(&pair);
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
