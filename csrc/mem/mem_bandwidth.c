/* mem_bandwidth.c - memory bandwidth versus working-set size, per access mode.
 *
 * Method (Cachebench, with STREAM's kernels): for each working set W and
 * mode (read, write, rmw, memset, memcpy, copy, triad and the non-temporal
 * variants: lib/bw_kernels.h, which also states the byte-counting rule of
 * each mode), every thread runs the kernel over its own W bytes, R times in a
 * row; a sample is the wall time of those R passes over all threads (R chosen
 * so that a sample lasts ~2 ms). Rate = threads x counted bytes x R / time in
 * GB/s (1e9 B/s). Counted are the application's bytes; the record also says
 * how many bytes write-allocate adds. Threads are pinned: --cpu for one
 * thread, OMP_PROC_BIND/OMP_PLACES (the planner sets them) for more; each
 * thread maps and first-touches its own buffer, so it lives on its NUMA node
 * (or on --node).
 *
 * Verification, outside the timed region: after the samples of a point, each
 * thread's arrays hold exactly what the last pass must have left (read: the
 * sum; write/memset: the last value; rmw: initial + passes; copies: the
 * source; triad: b + 3c).
 *
 * Only rank 0 measures; other ranks wait without spinning.
 */
#include "harness.h"
#include "affinity.h"
#include "lib/bw_kernels.h"

#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES,
     .def = "1K,4K,16K,64K,256K,1M,4M,16M,64M", .min = 512, .max = 1LL << 40,
     .help = "working-set sizes in bytes per thread (all arrays of the mode together)"},
    {.name = "modes", .type = HPC_CHOICES, .def = "read,write,rmw,memset,memcpy,copy,triad",
     .choices = BW_MODE_NAMES, .what = "a mode", .help = "access modes, in this order"},
    {.name = "threads", .type = HPC_INT, .def = "1", .min = 1, .max = 4096,
     .help = "OpenMP threads, each on its own working set"},
    {.name = "cpu", .type = HPC_INT, .def = "-1", .min = -1, .max = CPU_SETSIZE - 1,
     .help = "pin the (single) thread to this CPU (-1: leave the affinity as it is)"},
    {.name = "node", .type = HPC_INT, .def = "-1", .min = -1, .max = 4095,
     .help = "NUMA node the buffers live on (-1: first touch, each thread's own node)"},
    {.name = "pages", .type = HPC_CHOICE, .def = "thp", .choices = "base|thp|huge",
     .help = "page size: base pages, transparent huge pages (madvise), explicit 2 MiB pages"},
    {.name = "sample-ms", .type = HPC_DOUBLE, .def = "2", .min = 0.01, .max = 10000,
     .help = "target duration of one sample in milliseconds (passes per sample follow)"},
    {0}};

static int nthreads;
static int *thread_cpus;
static hpc_pages pages_got;
static char pages_note[256];

static void meta_extra(hpc_json *o)
{
    hpc_json_str(o, "thp", hpc_thp_mode());
    hpc_json_str(o, "pages_used", hpc_pages_name(pages_got));
    hpc_json_array(o, "thread_cpus");
    for (int t = 0; t < nthreads; t++)
        hpc_json_int(o, NULL, thread_cpus[t]);
    hpc_json_close(o);
    hpc_json_bool(o, "nontemporal_available", bw_have_nt());
}

/* --modes, each one a mode this build has. */
static int parse_modes(const long long **modes)
{
    int n = hpc_opt_list("modes", modes);
    for (int k = 0; k < n; k++)
        hpc_usage_check(!bw_have_nt() && strstr(bw_modes[(*modes)[k]].name, "-nt"),
                        "option --modes: '%s' is not a mode built here (no non-temporal stores)",
                        bw_modes[(*modes)[k]].name);
    return n;
}

static char **bufs;  /* one per thread */
static size_t buf_bytes;
static int node_opt;  /* --node */

/* Where thread 0's working set lives, seen from its CPU: the home of its first page, the
 * distance to it, and the share of its pages on the CPU's own node (below 1: the set spilled
 * to, or was bound to, another home). */
static void emit_home(hpc_json *r, const char *buf, size_t bytes)
{
    int cpu_node = hpc_cpu_node(thread_cpus[0]), home = hpc_numa_node_of(buf);
    hpc_json_int(r, "memory_node", home);
    hpc_json_int(r, "cpu_node", cpu_node);
    hpc_json_int(r, "distance", hpc_numa_distance(cpu_node, home));
    hpc_json_num(r, "local_share", hpc_numa_share_on(buf, bytes, cpu_node));
}

static void measure(int mode, size_t ws, double sample_s)
{
    bw_buf *w = calloc((size_t)nthreads, sizeof *w);
    uint64_t seed = hpc_seed((uint64_t)ws, (uint64_t)mode, 7);
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
        bw_prepare(&w[t], (bw_mode)mode, bufs[t], ws, seed + (uint64_t)t);
    }
    /* Passes per sample, from one pass timed on thread 0 (after a warm pass). */
    bw_run(&w[0], 1);
    double t0 = hpc_now();
    bw_run(&w[0], 1);
    double once = hpc_now() - t0;
    long reps = once > 0 ? (long)(sample_s / once) + 1 : 1000;
    if (reps > 1000000)
        reps = 1000000;

    hpc_sampler s;
    hpc_sampler_init(&s, &hpc_reps);
    while (hpc_sampler_more(&s)) {
        double start = hpc_now();
#pragma omp parallel num_threads(nthreads)
        bw_run(&w[omp_get_thread_num()], reps);
        hpc_sampler_add(&s, hpc_now() - start);
    }

    if (hpc_inject == HPC_INJECT_CORRUPT)
        bw_corrupt(&w[0]);
    for (int t = 0; t < nthreads; t++) {
        size_t where;
        const char *why = bw_check(&w[t], &where);
        if (why)
            hpc_fail("mem-bandwidth check failed: mode %s, %zu bytes, thread %d: %s "
                     "(element %zu)", bw_modes[mode].name, ws, t, why, where);
    }

    const bw_mode_info *mi = &bw_modes[mode];
    double counted = (double)mi->words_counted * 8.0 * (double)w[0].n;
    double bytes = counted * (double)reps * nthreads;
    double *rate = malloc((size_t)s.n * sizeof *rate);
    hpc_rates(s.samples, s.n, bytes, 1e9, rate);
    hpc_stats st;
    hpc_stats_compute(rate, s.n, &st);
    hpc_json r;
    hpc_result_begin(&r, "bandwidth", "GB/s", "median", "higher");
    hpc_json_str(&r, "mode", mi->name);
    hpc_json_int(&r, "bytes", (long long)bw_ws_bytes(&w[0]));
    hpc_json_int(&r, "threads", nthreads);
    hpc_json_str(&r, "pages", hpc_pages_name(pages_got));
    hpc_json_int(&r, "node", node_opt);
    hpc_result_stats(&r, &st, s.converged);
    hpc_json_int(&r, "requested_bytes", (long long)ws);
    hpc_json_int(&r, "bytes_counted_per_pass", (long long)counted);
    hpc_json_int(&r, "write_allocate_bytes_per_pass",
                 (long long)(mi->words_allocate * 8.0 * (double)w[0].n));
    hpc_json_str(&r, "counting", mi->rule);
    hpc_json_int(&r, "passes_per_sample", reps);
    emit_home(&r, bufs[0], bw_ws_bytes(&w[0]));
    hpc_json_emit(&r);
    free(rate);
    hpc_sampler_free(&s);
    free(w);
}

/* --threads, --cpu, --node against the machine and the memory available (rank 0 pinned
 * with --cpu). Returns the largest size. */
static long long parse(const long long *sizes, int nsizes)
{
    long long max = 0;
    for (int i = 0; i < nsizes; i++)
        max = sizes[i] > max ? sizes[i] : max;
    nthreads = (int)hpc_opt_int("threads");
    int cpu = (int)hpc_opt_int("cpu"), node = node_opt = (int)hpc_opt_int("node");
    buf_bytes = bw_buffer_bytes((size_t)max);
    long long avail = hpc_mem_available();
    double need = (double)buf_bytes * nthreads;
    hpc_usage_check(avail > 0 && need > 0.8 * (double)avail,
                    "option --sizes: %d thread(s) x %lld bytes exceed 80%% of MemAvailable "
                    "(%lld bytes)", nthreads, max, avail);
    hpc_usage_check(cpu >= 0 && nthreads > 1, "option --cpu: pins a single thread; with "
                    "--threads %d use OMP_PROC_BIND/OMP_PLACES", nthreads);
    hpc_usage_check(cpu >= 0 && !hpc_cpu_exists(cpu), "option --cpu: CPU %d does not exist "
                    "or is not allowed (online CPUs: see /sys/devices/system/cpu/online)", cpu);
    hpc_usage_check(node >= 0 && !hpc_numa_node_exists(node), "option --node: NUMA node %d "
                    "does not exist (this machine has %d node(s))", node, hpc_numa_nodes());
    if (hpc_rank == 0 && cpu >= 0)
        hpc_bind_cpu(cpu);
    return max;
}

/* Rank 0: each thread maps and touches its own buffer (first touch: its node). Returns 1
 * if a mapping failed (pages_note says why). */
static int map_buffers(void)
{
    const char *pg = hpc_opt_str("pages");
    hpc_pages want = pg[0] == 'b' ? HPC_PAGES_BASE : pg[0] == 't' ? HPC_PAGES_THP : HPC_PAGES_HUGE;
    int node = (int)hpc_opt_int("node"), failed = 0;
    thread_cpus = calloc((size_t)nthreads, sizeof *thread_cpus);
    bufs = calloc((size_t)nthreads, sizeof *bufs);
    pages_got = want;
    if (hpc_rank != 0)
        return 0;
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
        char why[256];
        hpc_pages got;
        thread_cpus[t] = sched_getcpu();
        bufs[t] = hpc_map(buf_bytes, want, node, &got, why, sizeof why);
#pragma omp critical
        {
            if (!bufs[t])
                failed = 1;
            if (got != want || !bufs[t]) {
                pages_got = got;
                snprintf(pages_note, sizeof pages_note, "%s", why);
            }
        }
    }
    return failed;
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "mem-bandwidth",
             "Memory bandwidth vs working set: read, write, rmw, memset, memcpy, copy, triad.",
             options, MPI_THREAD_FUNNELED);
    const long long *modes, *sizes;
    int nmodes = parse_modes(&modes);
    int nsizes = hpc_opt_list("sizes", &sizes);
    parse(sizes, nsizes);
    int map_failed = map_buffers();

    hpc_begin(nthreads, meta_extra);
    if (map_failed)
        hpc_fail("%s", pages_note);
    if (pages_note[0])
        hpc_warn("%s", pages_note);
    if (hpc_rank == 0 && omp_get_proc_bind() == omp_proc_bind_false && nthreads > 1)
        hpc_warn("OpenMP threads are not bound to CPUs (set OMP_PROC_BIND=close OMP_PLACES=cores)");
    hpc_inject_first_point();
    if (hpc_rank == 0) {
        double sample_s = hpc_opt_double("sample-ms") * 1e-3;
        for (int m = 0; m < nmodes; m++)
            for (int i = 0; i < nsizes; i++)
                measure(modes[m], (size_t)sizes[i], sample_s);
        for (int t = 0; t < nthreads; t++)
            hpc_unmap(bufs[t], buf_bytes, pages_got);
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
