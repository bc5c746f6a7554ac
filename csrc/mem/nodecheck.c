/* nodecheck.c - every node at once (issue #51 item 1): one rank a node, all of them measuring
 * at the same time, each on all its cores (OpenMP threads), two rates per node:
 *
 *   triad      STREAM's triad a = b + s c (mem-bandwidth's kernel, mem/lib/bw_kernels.c) over
 *              --bytes of arrays a thread (3 arrays), 24 bytes an element as STREAM counts;
 *              GB/s of the node's threads together (1e9 bytes/s)
 *   fma        a compute-bound rate: CHAINS independent scalar multiply-add chains a thread
 *              (x = x a + b), 2 flops each; GFLOP/s of the node's threads together
 *   latency    memory latency: the main thread alone follows a random single cycle over
 *              --chase-bytes (mem-latency's chase, mem/lib/chase.c, one cache line apart);
 *              ns a load
 *
 * A sample is a batch (harness batch, over this rank alone: every node samples at its own pace,
 * all nodes at once) timed around one parallel region. Rank 0 gathers every rank's kept
 * values and writes one record per node and rate, with the node's name (MPI_Get_processor_name)
 * and rank: the outlier rule (hpceval/analysis/outliers.py) judges the nodes against each other.
 *
 * Verification, outside the timed region: after the samples the triad's arrays are compared
 * with the values its calls give (bw_check), every chain with its closed form
 * a^n (x0 - b/(1-a)) + b/(1-a), the chase's cycle (chase_verify) and where it stopped against
 * a walk of as many loads; --inject corrupt damages the last rank's triad output.
 *
 * Under SimGrid's SMPI the kernels still run (and are checked); their simulated time is charged
 * as flops at the host's speed (smpi_execute_flops: SimGrid models no memory), so a simulated
 * rate says how fast a host is relative to the others, not what its memory delivers.
 */
#include "harness.h"
#include "batch.h"
#include "lib/bw_kernels.h"
#include "lib/chase.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "bytes", .type = HPC_SIZE, .def = "32M", .min = 64 * 1024, .max = 1LL << 36,
     .help = "triad working set a thread (its three arrays)"},
    {.name = "chase-bytes", .type = HPC_SIZE, .def = "128M", .min = 64 * 1024,
     .max = 1LL << 36, .help = "memory latency's working set (a random cycle, 64 B apart)"},
    {.name = "threads", .type = HPC_INT, .def = "0", .min = 0, .max = 4096,
     .help = "OpenMP threads a node (0: OpenMP's default, OMP_NUM_THREADS)"},
    {0}};

enum { CHAINS = 8, NVALS_EXTRA = 3 };
/* SMPI provides MPI_THREAD_SINGLE only; no thread but the main one calls MPI here. */
#ifdef HPC_SMPI
#define THREAD_LEVEL MPI_THREAD_SINGLE
#else
#define THREAD_LEVEL MPI_THREAD_FUNNELED
#endif
static const double FMA_A = 0.9999999, FMA_B = 1e-7, FMA_X0 = 3.0;

static int nthreads;
static bw_buf *bufs;
static char **bases;    /* each thread's allocation */
static double chains[4096][CHAINS];
static long fma_done;   /* multiply-adds each chain has done */
enum { STRIDE = 64, LOADS = 16 };   /* chase_run: 16 loads an iteration */
static char *chase;
static size_t chase_m;
static void *chase_at;
static uint64_t chase_loads;

typedef struct {
    const char *node;
    int rank, threads;
} node_pt;

static void params(hpc_json *j, const void *ctx)
{
    const node_pt *p = ctx;
    hpc_json_str(j, "node", p->node);
    hpc_json_int(j, "rank", p->rank);
    hpc_json_int(j, "threads", p->threads);
}

/* Charge a sample's work to the simulated host (SMPI), nothing on a real machine. */
static void charge(double flops)
{
#ifdef HPC_SMPI
    smpi_execute_flops(flops);
#else
    (void)flops;
#endif
}

static double triad_sample(long k)
{
    double t0 = hpc_now();
#pragma omp parallel num_threads(nthreads)
    bw_run(&bufs[omp_get_thread_num()], k);
    charge(2.0 * (double)bufs[0].n * (double)nthreads * (double)k);
    return hpc_now() - t0;
}

static double fma_sample(long k)
{
    double t0 = hpc_now();
#pragma omp parallel num_threads(nthreads)
    {
        double *x = chains[omp_get_thread_num()];
        double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6],
               x7 = x[7];
        for (long i = 0; i < k; i++) {
            x0 = x0 * FMA_A + FMA_B, x1 = x1 * FMA_A + FMA_B, x2 = x2 * FMA_A + FMA_B;
            x3 = x3 * FMA_A + FMA_B, x4 = x4 * FMA_A + FMA_B, x5 = x5 * FMA_A + FMA_B;
            x6 = x6 * FMA_A + FMA_B, x7 = x7 * FMA_A + FMA_B;
        }
        x[0] = x0, x[1] = x1, x[2] = x2, x[3] = x3, x[4] = x4, x[5] = x5, x[6] = x6, x[7] = x7;
    }
    charge(2.0 * CHAINS * (double)nthreads * (double)k);
    double t = hpc_now() - t0;
    fma_done += k;
    return t;
}

static double chase_sample(long k)
{
    double t0 = hpc_now();
    chase_at = chase_run(chase_at, k);
    charge((double)LOADS * (double)k);
    double t = hpc_now() - t0;
    chase_loads += (uint64_t)LOADS * (uint64_t)k;
    return t;
}

/* Every chain against its closed form after fma_done steps; every thread's triad arrays. */
static void check(void)
{
    double fixed = FMA_B / (1.0 - FMA_A);
    double want = pow(FMA_A, (double)fma_done) * (FMA_X0 - fixed) + fixed;
    for (int t = 0; t < nthreads; t++)
        for (int c = 0; c < CHAINS; c++)
            hpc_check_bound(fabs(chains[t][c] - want) / fabs(want), 1e-6,
                            "nodecheck fma: rank %d thread %d chain %d, relative error", hpc_rank,
                            t, c);
    size_t where;
    const char *cycle = chase_verify(chase, chase_m, STRIDE, &where);
    if (cycle || chase_at != chase_walk(chase, chase_loads, chase_m))
        hpc_fail("data check failed: nodecheck latency, rank %d: the chase %s", hpc_rank,
                 cycle ? cycle : "stopped where a walk of as many loads does not");
    if (hpc_inject == HPC_INJECT_CORRUPT && hpc_rank == hpc_nranks - 1)
        bw_corrupt(&bufs[0]);
    for (int t = 0; t < nthreads; t++) {
        const char *bad = bw_check(&bufs[t], &where);
        if (bad)
            hpc_fail("data check failed: nodecheck triad, rank %d thread %d: %s at element %zu",
                     hpc_rank, t, bad, where);
    }
}

/* One quantity of this rank: its batch's kept values after n, converged and the batch length,
 * in vals (max-reps + NVALS_EXTRA): a rate, work / time in 1e9 a second (GB/s, GFLOP/s), or
 * (is_rate 0) a time per unit of work in ns. */
static void measure(double (*sample)(long), double work, int is_rate, double *vals)
{
    hpc_batch bt;
    hpc_batch_init(&bt, hpc_batch_tick_target(), 1L << 24, 1, MPI_COMM_SELF);
    while (hpc_batch_add_coll(&bt, sample(bt.k)))
        ;
    vals[0] = bt.s.n, vals[1] = bt.s.converged, vals[2] = (double)bt.k;
    for (int i = 0; i < bt.s.n && i < hpc_reps.max_reps; i++)
        vals[NVALS_EXTRA + i] = is_rate ? work / bt.s.samples[i] / 1e9
                                        : bt.s.samples[i] / work * 1e9;
    hpc_batch_free(&bt);
}

/* Rank 0 gathers every rank's values of one rate and writes a record per node. */
static void emit(const char *metric, const char *unit, const char *better, double *vals,
                 const char *names)
{
    int width = hpc_reps.max_reps + NVALS_EXTRA;
    double *all = hpc_rank == 0 ? malloc(sizeof *all * (size_t)width * (size_t)hpc_nranks) : NULL;
    if (hpc_rank == 0 && !all)
        abort();
    MPI_Gather(vals, width, MPI_DOUBLE, all, width, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; hpc_rank == 0 && r < hpc_nranks; r++) {
        const double *v = all + (size_t)r * (size_t)width;
        node_pt p = {names + (size_t)r * MPI_MAX_PROCESSOR_NAME, r, nthreads};
        hpc_point pt = {params, &p, "operations_per_sample", NULL};
        hpc_emit_values(&pt, metric, unit, better, v + NVALS_EXTRA, (int)v[0], (int)v[1],
                        (long)v[2]);
    }
    free(all);
}

static void prepare(size_t bytes)
{
    bufs = calloc((size_t)nthreads, sizeof *bufs);
    bases = calloc((size_t)nthreads, sizeof *bases);
    if (!bufs || !bases)
        abort();
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
        bases[t] = malloc(bw_buffer_bytes(bytes));   /* first touched by its thread */
        if (!bases[t])
            abort();
        bw_prepare(&bufs[t], BW_TRIAD, bases[t], bytes, (uint64_t)(hpc_rank * 4096 + t));
        for (int c = 0; c < CHAINS; c++)
            chains[t][c] = FMA_X0;
    }
}

/* The chase's random single cycle, one cache line apart (its own seed a rank). */
static void prepare_chase(size_t bytes)
{
    chase_m = bytes / STRIDE;
    chase = chase_at = malloc(chase_m * STRIDE);
    if (!chase)
        abort();
    chase_build_cycle(chase, chase_m, STRIDE, (uint64_t)hpc_rank + 1);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "nodecheck",
             "Every node at once, one rank a node: STREAM triad and a multiply-add rate on all "
             "its cores, one record per node.", options, THREAD_LEVEL);
    nthreads = (int)hpc_opt_int("threads");
    if (nthreads == 0)
        nthreads = omp_get_max_threads();
    hpc_usage_check(nthreads > 4096, "--threads: at most 4096, got %d", nthreads);
    size_t bytes = (size_t)hpc_opt_int("bytes");
    hpc_begin(nthreads, NULL);
    char mine[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(mine, &len);
    char *names = hpc_rank == 0 ? calloc((size_t)hpc_nranks, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
               0, MPI_COMM_WORLD);
    prepare(bytes);
    prepare_chase((size_t)hpc_opt_int("chase-bytes"));
    hpc_inject_first_point();
    MPI_Barrier(MPI_COMM_WORLD);
    double elements = (double)bufs[0].n * nthreads;
    size_t width = (size_t)hpc_reps.max_reps + NVALS_EXTRA;
    double *triad = calloc(width, sizeof *triad), *fma = calloc(width, sizeof *fma),
           *lat = calloc(width, sizeof *lat);
    if (!triad || !fma || !lat)
        abort();
    measure(triad_sample, 24.0 * elements, 1, triad);
    measure(fma_sample, 2.0 * CHAINS * nthreads, 1, fma);
    measure(chase_sample, LOADS, 0, lat);
    check();
    emit("triad", "GB/s", "higher", triad, names);
    emit("fma", "GFLOP/s", "higher", fma, names);
    emit("latency", "ns", "lower", lat, names);
    for (int t = 0; t < nthreads; t++)
        free(bases[t]);
    free(chase);
    free(lat);
    free(bases);
    free(triad);
    free(fma);
    free(bufs);
    free(names);
    hpc_finish();
    return 0;
}
