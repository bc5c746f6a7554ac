/* mem_contention.c - one core's memory bandwidth and latency while other cores
 * stream, and one core alone versus every core at once.
 *
 * Method (EV7 paper section 2, p690 talk):
 *  loaded: OpenMP thread 0 (the measuring core) measures read bandwidth over
 *    its own --bytes working set (lib/bw_kernels.h, 8 B counted per element)
 *    and the load latency of a random pointer cycle over its own
 *    --latency-bytes, while threads 1..k run --stream-mode over their own
 *    --bytes working sets without pause, for k = 0 .. threads-1. Records:
 *    params {experiment: "loaded", others: k}, metrics bandwidth (GB/s) and
 *    latency (ns); the streamers' total rate is kept as "others_gbs".
 *  per-core: --stream-mode on 1 core, then on every core at once (the p690
 *    "32 serial jobs" experiment). A sample is R passes on each core started
 *    together; the per-core rate is bytes / the slowest core's time. Records:
 *    params {experiment: "per-core", cores: c}, metric bandwidth (GB/s per core).
 * Threads are pinned by OMP_PROC_BIND/OMP_PLACES (the planner sets them; a
 * warning otherwise) and first-touch their own buffers.
 *
 * Verification, outside the timed region: every thread's arrays after its last
 * pass (bw_check), and the pointer chase's end point.
 *
 * Only rank 0 measures; other ranks wait without spinning.
 */
#include "harness.h"
#include "affinity.h"
#include "lib/bw_kernels.h"
#include "lib/chase.h"

#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "bytes", .type = HPC_SIZE, .def = "0", .min = 0, .max = 1LL << 40,
     .help = "working set of each core's bandwidth kernel (0: 4x the last-level cache)"},
    {.name = "latency-bytes", .type = HPC_SIZE, .def = "0", .min = 0, .max = 1LL << 40,
     .help = "working set of the latency chase (0: same as --bytes)"},
    {.name = "threads", .type = HPC_INT, .def = "0", .min = 0, .max = 4096,
     .help = "cores used (0: OpenMP's default, OMP_NUM_THREADS)"},
    {.name = "stream-mode", .type = HPC_STRING, .def = "triad",
     .help = "kernel the other cores run (a mem-bandwidth mode: read, copy, triad, ...)"},
    {.name = "experiments", .type = HPC_CHOICE, .def = "both", .choices = "both|loaded|per-core",
     .help = "which experiments to run"},
    {.name = "sample-ms", .type = HPC_DOUBLE, .def = "5", .min = 0.1, .max = 10000,
     .help = "target duration of one sample in milliseconds"},
    {0}};

static int nthreads, stream_mode;
static int *thread_cpus;
static long long llc;
static const char *llc_source;
static char **bufs;
static size_t buf_bytes, ws, lat_ws;
static atomic_int stop;

static void meta_extra(hpc_json *o)
{
    hpc_json_int(o, "llc_bytes", llc);
    hpc_json_str(o, "llc_source", llc_source);
    hpc_json_array(o, "thread_cpus");
    for (int t = 0; t < nthreads; t++)
        hpc_json_int(o, NULL, thread_cpus[t]);
    hpc_json_close(o);
}

static void check(bw_buf *w, int t)
{
    size_t where;
    const char *why = bw_check(w, &where);
    if (why)
        hpc_fail("mem-contention check failed: %s on thread %d: %s (element %zu)",
                 bw_modes[w->mode].name, t, why, where);
}

static void emit(const char *metric, const char *unit, const char *better, const char *exp,
                 const char *key, int value, const double *x, int n, int converged,
                 const char *extra_key, double extra)
{
    hpc_stats st;
    hpc_stats_compute(x, n, &st);
    hpc_json r;
    hpc_result_begin(&r, metric, unit, "median", better);
    hpc_json_str(&r, "experiment", exp);
    hpc_json_int(&r, key, value);
    hpc_json_int(&r, "bytes", (long long)(strcmp(metric, "latency") == 0 ? lat_ws : ws));
    hpc_json_str(&r, "kernel", strcmp(metric, "latency") == 0 ? "chase"
                 : strcmp(exp, "loaded") == 0 ? "read" : bw_modes[stream_mode].name);
    hpc_result_stats(&r, &st, converged);
    if (extra_key)
        hpc_json_num(&r, extra_key, extra);
    hpc_json_str(&r, "stream_mode", bw_modes[stream_mode].name);
    hpc_json_emit(&r);
}

/* Passes of w that last about sample_s seconds. */
static long passes_for(bw_buf *w, double sample_s)
{
    bw_run(w, 1);
    double t0 = hpc_now();
    bw_run(w, 1);
    double once = hpc_now() - t0;
    long reps = once > 0 ? (long)(sample_s / once) + 1 : 100;
    return reps > 1000000 ? 1000000 : reps;
}

/* Thread 0 measures while threads 1..k stream. */
static void loaded(int k, double sample_s, char *chase_buf)
{
    bw_buf *w = calloc((size_t)nthreads, sizeof *w);
    uint64_t seed = hpc_seed(ws, (uint64_t)k, 11);
    double bw_unit = 8.0 * 1;  /* read: 8 B counted per element */
    hpc_sampler sb, sl;
    uint64_t *passes = calloc((size_t)nthreads, sizeof *passes);
    double t_streams = 0;
    size_t m = lat_ws / 64;
    chase_build_cycle(chase_buf, m, 64, seed);
    size_t where;
    const char *why = chase_verify(chase_buf, m, 64, &where);
    if (why)
        hpc_fail("pointer cycle check failed: the walk %s at step %zu", why, where);
    void *p = chase_buf;
    uint64_t steps = 0;
    long iters = 1;
    atomic_store(&stop, 0);
#pragma omp parallel num_threads(k + 1)
    {
        int t = omp_get_thread_num();
        hpc_inject_late_thread(t);
        bw_prepare(&w[t], t == 0 ? BW_READ : (bw_mode)stream_mode, bufs[t], ws, seed + (uint64_t)t);
#pragma omp barrier
        if (t > 0) {
            while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
                bw_run(&w[t], 1);
                passes[t]++;
            }
        } else {
            double start = hpc_now();
            long reps = passes_for(&w[0], sample_s);
            hpc_sampler_init(&sb, &hpc_reps);
            while (hpc_sampler_more(&sb)) {
                double t0 = hpc_now();
                bw_run(&w[0], reps);
                hpc_sampler_add(&sb, (double)w[0].n * bw_unit * (double)reps /
                                         (hpc_now() - t0) / 1e9);
            }
            /* Loads per latency sample: ~sample_s worth, from a short probe. */
            double t0 = hpc_now();
            p = chase_run(p, 256);
            steps += 16 * 256;
            double per = (hpc_now() - t0) / (16.0 * 256);
            iters = per > 0 ? (long)(sample_s / per / 16.0) + 1 : 1024;
            hpc_sampler_init(&sl, &hpc_reps);
            while (hpc_sampler_more(&sl)) {
                t0 = hpc_now();
                p = chase_run(p, iters);
                double t = hpc_now() - t0;
                steps += 16 * (uint64_t)iters;
                hpc_sampler_add(&sl, t / (16.0 * (double)iters) * 1e9);
            }
            t_streams = hpc_now() - start;
            atomic_store(&stop, 1);
        }
    }
    if (chase_walk(chase_buf, steps, m) != p)
        hpc_fail("pointer chase under contention ended on the wrong element");
    if (hpc_inject == HPC_INJECT_CORRUPT)
        bw_corrupt(&w[k]);
    for (int t = 0; t <= k; t++)
        check(&w[t], t);
    double others = 0;
    for (int t = 1; t <= k; t++)
        others += (double)passes[t] * bw_modes[stream_mode].words_counted * 8.0 * (double)w[t].n;
    others = t_streams > 0 ? others / t_streams / 1e9 : 0;
    emit("bandwidth", "GB/s", "higher", "loaded", "others", k, sb.samples, sb.n, sb.converged,
         "others_gbs", others);
    emit("latency", "ns", "lower", "loaded", "others", k, sl.samples, sl.n, sl.converged,
         "others_gbs", others);
    hpc_sampler_free(&sb);
    hpc_sampler_free(&sl);
    free(passes);
    free(w);
}

/* The stream kernel on 'cores' cores at once; per-core rate from the slowest. */
static void per_core(int cores, double sample_s)
{
    bw_buf *w = calloc((size_t)nthreads, sizeof *w);
    uint64_t seed = hpc_seed(ws, (uint64_t)cores, 13);
    double *t_thread = calloc((size_t)nthreads, sizeof *t_thread);
    long reps = 1;
    hpc_sampler s;
    hpc_sampler_init(&s, &hpc_reps);
    int more = 1;
#pragma omp parallel num_threads(cores)
    {
        int t = omp_get_thread_num();
        hpc_inject_late_thread(t);
        bw_prepare(&w[t], (bw_mode)stream_mode, bufs[t], ws, seed + (uint64_t)t);
        /* The single may run on any thread: without this barrier, one that came before thread
         * 0 had prepared w[0] timed an empty buffer and chose up to 10^6 passes a sample (CI's
         * 78 s hang). */
#pragma omp barrier
#pragma omp single
        reps = passes_for(&w[0], sample_s);
        for (;;) {
#pragma omp barrier
            if (!more)
                break;
            double t0 = hpc_now();
            bw_run(&w[t], reps);
            t_thread[t] = hpc_now() - t0;
#pragma omp barrier
#pragma omp single
            {
                double slowest = 0;
                for (int i = 0; i < cores; i++)
                    slowest = t_thread[i] > slowest ? t_thread[i] : slowest;
                hpc_sampler_add(&s, slowest);
                more = hpc_sampler_more(&s);
            }
        }
    }
    if (hpc_inject == HPC_INJECT_CORRUPT)
        bw_corrupt(&w[cores - 1]);
    for (int t = 0; t < cores; t++)
        check(&w[t], t);
    double bytes = bw_modes[stream_mode].words_counted * 8.0 * (double)w[0].n * (double)reps;
    hpc_rates(s.samples, s.n, bytes, 1e9, s.samples);
    emit("bandwidth", "GB/s", "higher", "per-core", "cores", cores, s.samples, s.n, s.converged,
         NULL, 0);
    hpc_sampler_free(&s);
    free(t_thread);
    free(w);
}

/* --threads, --stream-mode, the working sets (0: from the last-level cache) against the
 * memory available. */
static void parse(void)
{
    if (hpc_opt_int("threads") > 0)
        omp_set_num_threads((int)hpc_opt_int("threads"));
    nthreads = omp_get_max_threads();
    stream_mode = bw_mode_by_name(hpc_opt_str("stream-mode"));
    hpc_usage_check(stream_mode < 0 || (!bw_have_nt() && strstr(hpc_opt_str("stream-mode"), "-nt")),
                    "option --stream-mode: '%s' is not a mode (read, write, rmw, memset, memcpy, "
                    "copy, triad, write-nt, copy-nt, triad-nt)", hpc_opt_str("stream-mode"));
    llc = hpc_llc_bytes(&llc_source);
    ws = (size_t)hpc_opt_int("bytes");
    if (ws == 0) {
        ws = llc > 0 ? (size_t)(4 * llc) : (size_t)64 << 20;
        hpc_opt_set_int("bytes", (long long)ws);
    }
    lat_ws = (size_t)hpc_opt_int("latency-bytes");
    if (lat_ws == 0) {
        lat_ws = ws;
        hpc_opt_set_int("latency-bytes", (long long)lat_ws);
    }
    hpc_usage_check(ws < 1024 || lat_ws < 1024, "options --bytes, --latency-bytes: at least 1K");
    lat_ws = lat_ws / 64 * 64;
    buf_bytes = bw_buffer_bytes(ws);
    long long avail = hpc_mem_available();
    double need = (double)buf_bytes * nthreads + (double)lat_ws;
    hpc_usage_check(avail > 0 && need > 0.8 * (double)avail,
                    "option --bytes: %d cores x %zu bytes (+ %zu for the chase) exceed 80%% of "
                    "MemAvailable (%lld bytes)", nthreads, ws, lat_ws, avail);
}

/* Rank 0: each thread maps and touches its own buffer, thread 0 the chase's too. Returns
 * 1 if a mapping failed. */
static int map_buffers(char **chase_buf)
{
    thread_cpus = calloc((size_t)nthreads, sizeof *thread_cpus);
    bufs = calloc((size_t)nthreads, sizeof *bufs);
    *chase_buf = NULL;
    int failed = 0;
    if (hpc_rank != 0)
        return 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        char why[256];
        hpc_pages got;
        thread_cpus[t] = sched_getcpu();
        bufs[t] = hpc_map(buf_bytes, HPC_PAGES_THP, -1, &got, why, sizeof why);
        if (t == 0)
            *chase_buf = hpc_map(lat_ws, HPC_PAGES_THP, -1, &got, why, sizeof why);
        if (!bufs[t] || (t == 0 && !*chase_buf))
            failed = 1;
    }
    return failed;
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "mem-contention",
             "One core's bandwidth and latency while k other cores stream; 1 core vs all.",
             options, MPI_THREAD_FUNNELED);
    parse();
    char *chase_buf;
    int failed = map_buffers(&chase_buf);

    hpc_begin(nthreads, meta_extra);
    if (failed)
        hpc_fail("cannot map the buffers (%zu bytes per core)", buf_bytes);
    if (hpc_rank == 0 && omp_get_proc_bind() == omp_proc_bind_false)
        hpc_warn("OpenMP threads are not bound to CPUs (set OMP_PROC_BIND=close OMP_PLACES=cores)");
    hpc_inject_first_point();
    if (hpc_rank == 0) {
        double sample_s = hpc_opt_double("sample-ms") * 1e-3;
        const char *exp = hpc_opt_str("experiments");
        if (strcmp(exp, "per-core") != 0)
            for (int k = 0; k < nthreads; k++)
                loaded(k, sample_s, chase_buf);
        if (strcmp(exp, "loaded") != 0) {
            per_core(1, sample_s);
            if (nthreads > 1)
                per_core(nthreads, sample_s);
        }
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
