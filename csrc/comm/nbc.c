/* nbc.c - non-blocking collectives and how much of them a rank hides behind computation,
 * as IMB-NBC and osu_iallreduce measure it: ibarrier, ibcast, iallreduce, iallgather,
 * ialltoall over MPI_COMM_WORLD.
 *
 * Three phases per collective and size, each a sample of k operations (k calibrated by the
 * harness); each operation alone, as IMB-NBC and OSU run them: a barrier, then its post to its
 * wait timed by every rank; the k times summed, the slowest rank's sum kept (MPI_MAX):
 *   pure        post (MPI_Ixxx), then MPI_Wait: t_pure
 *   cpu         the computation alone, calibrated on every rank to last t_pure (the pure
 *               phase's median): t_cpu
 *   overlapped  post, the computation cut in tests + 1 equal parts with an MPI_Test after
 *               each but the last (--tests, default 4; 0 is IMB-NBC's way: none), MPI_Wait:
 *               t_ovrl
 * overlap [%] = 100 max(0, min(1, (t_pure + t_cpu - t_ovrl) / max(t_pure, t_cpu))), IMB-NBC's
 * definition since IMB 2019 (IMB_output.c's NBC branch; the min(t_pure, t_cpu) of older and
 * non-NBC IMB credits a computation shorter than the collective with more than it hid), one
 * value per overlapped sample with the medians of t_pure and t_cpu.
 *
 * The computation is a chain of dependent multiply-adds (neither vectorised nor folded away),
 * whose rate each rank measures once at start, not a sleep: the core stays busy as under an
 * application's work. Its MPI_Test calls are part of t_ovrl, not of t_cpu.
 *
 * Each sample of a collective starts warm: one untimed operation runs after the data
 * preparation and before the timed ones, as OSU's steady-state loop is warm. Above ~50 us
 * an operation a sample is one operation, and without it that operation met buffers the
 * preparation had just left dirty in another core's cache (ibcast 1 MiB: 1.29-1.53 times
 * OSU's time).
 *
 * Verification, outside the timed region: before each sample the send buffers are filled with
 * patterns seeded by (size, sample, rank) and the receive buffers cleared; after the warm
 * operation the receive buffers (ibcast: the non-roots' buffer) are cleared again, by their
 * own rank, so what every rank checks after the sample is what the last timed operation left
 * it (iallreduce: int32 sums).
 */
#include "harness.h"
#include "lib/comm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "ops", .type = HPC_CHOICES, .def = "all",
     .choices = "ibarrier|ibcast|iallreduce|iallgather|ialltoall", .all = 1,
     .what = "a collective", .help = "non-blocking collectives to measure"},
    {.name = "sizes", .type = HPC_SIZES, .def = "4,64,1K,16K,256K,1M", .min = 1,
     .max = 1 << 28, .help = "bytes per rank (multiples of 4 with iallreduce; ibarrier: none)"},
    {.name = "tests", .type = HPC_INT, .def = "4", .min = 0, .max = 1000,
     .help = "MPI_Test calls spread over the computation (0: none, as IMB-NBC)"},
    COMM_PAGES_OPTION,
    {0}};

enum { IBARRIER, IBCAST, IALLREDUCE, IALLGATHER, IALLTOALL, NOPS };
static const char *const NAMES[] = {"ibarrier", "ibcast", "iallreduce", "iallgather",
                                    "ialltoall"};
enum { PURE, CPU, OVERLAPPED, NPHASES };
static const char *const PHASES[] = {"pure", "cpu", "overlapped"};
static const char *const METRICS[] = {"time_pure", "time_cpu", "time_overlapped"};

typedef struct {
    int op, bytes;
} point;

static int me, np, ntests;
static char *sb, *rb;
static double cpu_rate;       /* iterations of the computation a second, this rank */
static long cpu_iters;        /* the current point's computation */
static volatile double sink;  /* keeps the computation's result alive */

static void nbc_params(hpc_json *r, const void *ctx)
{
    const point *p = ctx;
    hpc_json_str(r, "op", NAMES[p->op]);
    hpc_json_int(r, "bytes", p->bytes);
    hpc_json_int(r, "nranks", np);
    hpc_json_int(r, "tests", ntests);
}

static void compute(long iters)
{
#ifdef HPC_SMPI
    /* SMPI: the clock does not pass while computing; the time is charged to the host. */
    comm_busy((double)iters / cpu_rate);
    return;
#endif
    double x = sink;
    for (long i = 0; i < iters; i++)
        x = x * 0.9999999 + 1e-7;
    sink = x;
}

static double timed_compute(long iters)
{
    double t0 = hpc_now();
    compute(iters);
    return hpc_now() - t0;
}

/* The loop's rate: the best of three runs of at least 5 ms. */
static void calibrate_cpu(void)
{
#ifdef HPC_SMPI
    cpu_rate = 1e9;
    return;
#endif
    long n = 1024;
    double t;
    while ((t = timed_compute(n)) < 5e-3)
        n *= 2;
    for (int i = 0; i < 2; i++) {
        double u = timed_compute(n);
        t = u < t ? u : t;
    }
    cpu_rate = (double)n / t;
}

static void post(int op, int n, MPI_Request *r)
{
    switch (op) {
    case IBARRIER: MPI_Ibarrier(MPI_COMM_WORLD, r); break;
    case IBCAST: MPI_Ibcast(sb, n, MPI_BYTE, 0, MPI_COMM_WORLD, r); break;
    case IALLREDUCE:
        MPI_Iallreduce(sb, rb, n / 4, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD, r);
        break;
    case IALLGATHER: MPI_Iallgather(sb, n, MPI_BYTE, rb, n, MPI_BYTE, MPI_COMM_WORLD, r); break;
    case IALLTOALL: MPI_Ialltoall(sb, n, MPI_BYTE, rb, n, MPI_BYTE, MPI_COMM_WORLD, r); break;
    }
}

/* The computation between post and wait, with its MPI_Test calls (they may drive progress). */
static void compute_testing(MPI_Request *r)
{
    long part = cpu_iters / (ntests + 1);
    for (int c = 0; c < ntests; c++) {
        int done;
        compute(part);
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
    }
    compute(cpu_iters - part * ntests);
}

/* k operations (or computations); the time of the timed part, seconds. As IMB-NBC and OSU do,
 * each operation runs alone: a barrier before it, outside its time, so that consecutive
 * operations cannot overlap one another (back to back, a rank's computation hid the previous
 * operation's tail: overlap at 1 KiB 52% against IMB-NBC's 27%, docs/compare.md). */
static double run(int phase, const point *p, long k)
{
    if (phase == CPU) {
        double t0 = hpc_now();
        for (long i = 0; i < k; i++)
            compute(cpu_iters);
        return hpc_now() - t0;
    }
    double t = 0;
    for (long i = 0; i < k; i++) {
        MPI_Request r;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        post(p->op, p->bytes, &r);
        if (phase == OVERLAPPED)
            compute_testing(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        t += hpc_now() - t0;
    }
    return t;
}

static uint64_t seed(int n, long idx, int src, int dst)
{
    return hpc_seed((uint64_t)n, (uint64_t)idx * 65536u + (uint64_t)dst, (uint64_t)src);
}

static int32_t rval(int i, long idx) { return (int32_t)((i + idx) % 13 + 1); }

/* What an operation writes on this rank, cleared: receive buffers, a non-root's ibcast one. */
static void clear(int op, int n)
{
    if (op == IBCAST && me != 0)
        memset(sb, 0, (size_t)n);
    else if (op != IBCAST)
        memset(rb, 0, (size_t)n * (op == IALLREDUCE ? 1 : (size_t)np));
}

static void prepare(int op, int n, long idx)
{
    if (op == IBCAST) {
        if (me == 0)
            hpc_fill(sb, (size_t)n, seed(n, idx, 0, 0));
        else
            clear(op, n);
        return;
    }
    if (op == IALLREDUCE)
        for (int i = 0; i < n / 4; i++)
            ((int32_t *)sb)[i] = (me + 1) * rval(i, idx);
    for (int d = 0; op != IALLREDUCE && d < (op == IALLTOALL ? np : 1); d++)
        hpc_fill(sb + (size_t)d * n, (size_t)n, seed(n, idx, me, op == IALLTOALL ? d : 0));
    clear(op, n);
}

/* Offset of the first wrong byte the last operation left on this rank, or -1. */
static long long check(int op, int n, long idx)
{
    if (op == IBCAST)
        return hpc_check(sb, (size_t)n, seed(n, idx, 0, 0));
    if (op == IALLREDUCE) {
        int32_t tri = (int32_t)np * (np + 1) / 2;
        for (int i = 0; i < n / 4; i++)
            if (((int32_t *)rb)[i] != tri * rval(i, idx))
                return 4LL * i;
        return -1;
    }
    for (int s = 0; s < np; s++) {
        long long bad = hpc_check(rb + (size_t)s * n, (size_t)n,
                                  seed(n, idx, s, op == IALLTOALL ? me : 0));
        if (bad >= 0)
            return bad + (long long)s * n;
    }
    return -1;
}

static void verify(int phase, const point *p, long idx)
{
    if (p->op == IBARRIER)
        return;
    /* --inject corrupt: a wrong byte where the last rank's check reads it */
    if (hpc_inject == HPC_INJECT_CORRUPT && me == np - 1)
        (p->op == IBCAST ? sb : rb)[0] ^= 0x5a;
    long long bad = check(p->op, p->bytes, idx);
    if (bad >= 0)
        hpc_fail("data check failed: nbc, %s of %d bytes, %s sample %ld: rank %d has a wrong "
                 "byte at offset %lld", NAMES[p->op], p->bytes, PHASES[phase], idx, me, bad);
}

/* One sample of k operations (or computations): the slowest rank's time, on rank 0. */
static double sample(int phase, const point *p, long k, long idx)
{
    if (phase != CPU && p->op != IBARRIER)
        prepare(p->op, p->bytes, idx);
    if (phase != CPU) {
        run(phase, p, 1);  /* warm, untimed (top of the file) */
        if (p->op != IBARRIER)
            clear(p->op, p->bytes);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = run(phase, p, k), slowest;
    MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (phase != CPU)
        verify(phase, p, idx);
    return slowest;
}

/* The phase's samples in bt; returns their median (seconds), on every rank. */
static double measure_phase(int phase, const point *p, hpc_batch *bt)
{
    long idx = 0;
    hpc_batch_init(bt, hpc_batch_tick_target(), 1L << 20, 1, MPI_COMM_WORLD);
    while (hpc_batch_add_coll(bt, sample(phase, p, bt->k, idx++)))
        ;
    double med = 0;
    if (me == 0) {
        hpc_stats st;
        hpc_stats_compute(bt->s.samples, bt->s.n, &st);
        med = st.median;
    }
    MPI_Bcast(&med, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return med;
}

/* The three times and the overlap (rank 0 writes). */
static void emit(const point *p, const hpc_batch *bt, double pure, double cpu)
{
    hpc_point pt = {nbc_params, p, "ops_per_sample", comm_record_extra};
    for (int ph = 0; ph < NPHASES; ph++)
        hpc_batch_emit(&pt, METRICS[ph], "us", "lower", &bt[ph], 1e6, 0, 1);
    if (me != 0)
        return;
    const hpc_sampler *s = &bt[OVERLAPPED].s;
    double *v = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *v);
    if (!v)
        abort();
    double hi = pure > cpu ? pure : cpu;
    for (int i = 0; i < s->n; i++) {
        double f = (pure + cpu - s->samples[i]) / hi;
        v[i] = 100 * (f < 0 ? 0 : f > 1 ? 1 : f);
    }
    hpc_emit_values(&pt, "overlap", "%", "higher", v, s->n, s->converged, bt[OVERLAPPED].k);
    free(v);
}

static void measure(const point *p)
{
    hpc_batch bt[NPHASES];
    double pure = measure_phase(PURE, p, &bt[PURE]);
    cpu_iters = (long)(pure * cpu_rate) + 1;
    double cpu = measure_phase(CPU, p, &bt[CPU]);
    measure_phase(OVERLAPPED, p, &bt[OVERLAPPED]);
    emit(p, bt, pure, cpu);
    for (int ph = 0; ph < NPHASES; ph++)
        hpc_batch_free(&bt[ph]);
}

/* Bytes of each buffer; bad sizes refused before anything is measured. */
static size_t buffer_bytes(const int *on, const long long *sizes, int nsizes)
{
    long long max = 4;
    for (int i = 0; i < nsizes; i++) {
        hpc_usage_check(on[IALLREDUCE] && sizes[i] % 4 != 0,
                        "option --sizes: iallreduce needs multiples of 4 bytes (int32 "
                        "elements), %lld given", sizes[i]);
        max = sizes[i] > max ? sizes[i] : max;
    }
    size_t need = (size_t)max * (size_t)np;  /* iallgather, ialltoall: a block per rank */
    hpc_usage_check((double)need * 2 > 0.5 * (double)hpc_mem_available(),
                    "--sizes up to %lld bytes with %d ranks need %.1f GiB per rank: more than "
                    "the memory available", max, np, (double)need * 2 / (1 << 30));
    return need;
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "nbc",
             "non-blocking collectives: pure time, time with a calibrated computation between "
             "post and wait, overlap (IMB-NBC's definition).",
             options, MPI_THREAD_SINGLE);
    me = hpc_rank, np = hpc_nranks;
    hpc_usage_check(np < 2, "nbc needs 2 or more MPI ranks, got %d", np);
    ntests = (int)hpc_opt_int("tests");
    int on[NOPS];
    hpc_opt_chosen("ops", on);
    const long long *sizes;
    int nsizes = hpc_opt_list("sizes", &sizes);
    size_t need = buffer_bytes(on, sizes, nsizes);
    hpc_begin(1, NULL);
    sb = comm_alloc(need);
    rb = comm_alloc(need);
    calibrate_cpu();
    hpc_inject_first_point();
    if (on[IBARRIER])
        measure(&(point){IBARRIER, 0});
    for (int op = IBCAST; op < NOPS; op++)
        for (int i = 0; on[op] && i < nsizes; i++)
            measure(&(point){op, (int)sizes[i]});
    free(sb);
    free(rb);
    hpc_finish();
    return 0;
}
