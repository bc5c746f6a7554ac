/* mem_latency.c - memory load-to-use latency versus working-set size.
 *
 * Method (lmbench lat_mem_rd; --order random by default): the working set is divided in
 * elements --stride bytes apart (one cache line by default), each holding a
 * pointer to the next element of a random single cycle through all of them
 * (Sattolo's algorithm). Chasing the pointers, p = *(void **)p, makes every
 * load depend on the previous one, so the time per load is the latency of
 * the level of the memory hierarchy the working set fits in; the random
 * order defeats the hardware prefetchers. A sample is L dependent loads
 * (L chosen so a sample lasts ~10 ms); result: ns per load.
 *
 * Verification, outside the timed region: before timing, walking the cycle
 * from element 0 visits every element exactly once and returns to element
 * 0; after timing, the pointer the chase ended on is the element reached by
 * walking the same number of steps again, so the loads really happened.
 *
 * Only rank 0 measures; other ranks wait without spinning.
 */
#include "harness.h"
#include "affinity.h"
#include "lib/chase.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES,
     .def = "4K,6K,8K,12K,16K,24K,32K,48K,64K,96K,128K,192K,256K,384K,512K,768K,"
            "1M,1536K,2M,3M,4M,6M,8M,12M,16M,24M,32M,48M,64M,96M,128M,192M,256M",
     .min = 16, .max = 1LL << 40, .help = "working-set sizes in bytes"},
    {.name = "stride", .type = HPC_SIZE, .def = "64", .min = 8, .max = 1 << 20,
     .help = "bytes between two pointers (a multiple of 8; default: one cache line)"},
    {.name = "cpu", .type = HPC_INT, .def = "-1", .min = -1, .max = CPU_SETSIZE - 1,
     .help = "pin rank 0 to this CPU (-1: leave the affinity as it is)"},
    {.name = "node", .type = HPC_INT, .def = "-1", .min = -1, .max = 4095,
     .help = "NUMA node the working set lives on (-1: first touch by the measuring CPU)"},
    {.name = "order", .type = HPC_CHOICE, .def = "random", .choices = "random|window|linear",
     .help = "random single cycle (defeats prefetch; TLB misses included, as lat_mem_rd -t), "
             "window: random inside --window-sized windows visited in random order (TLB "
             "misses mostly avoided, as multichase), or linear: element i -> i+1"},
    {.name = "window", .type = HPC_SIZE, .def = "256K", .min = 64, .max = 1LL << 40,
     .help = "order window: bytes per window (multichase's TLB locality, 64 base pages)"},
    {.name = "pages", .type = HPC_CHOICE, .def = "base", .choices = "base|thp|huge",
     .help = "base pages, transparent huge pages (madvise) or explicit 2 MiB pages"},
    {.name = "loads", .type = HPC_SIZE, .def = "0", .min = 0, .max = 1LL << 36,
     .help = "dependent loads per sample, rounded up to a multiple of 16 (0: ~10 ms worth)"},
    {.name = "seed", .type = HPC_SIZE, .def = "1", .min = 0, .max = 1LL << 62,
     .help = "seed of the random cycle"},
    {0}};

static const double SAMPLE_SECONDS = 10e-3;  /* target length of one auto-sized sample */

#define ELEM(i) ((void **)(buf + (size_t)(i) * stride))

static void *volatile sink;  /* the chase's result is used: the loop cannot be dropped */

static const char *order;              /* --order */
static size_t window;                  /* --window, order window */
static hpc_pages pages_want, pages_got;
static int cpu_opt, node_opt, home_node = -1;
static long long huge_bytes = -1;

/* Where the pages really are, the home the measuring CPU is on, the distance between them. */
static void emit_home(hpc_json *r)
{
    int cpu_node = hpc_cpu_node(sched_getcpu());
    hpc_json_int(r, "memory_node", home_node);
    hpc_json_int(r, "cpu_node", cpu_node);
    hpc_json_int(r, "distance", hpc_numa_distance(cpu_node, home_node));
}

static void measure(char *buf, size_t ws, size_t stride, long long loads, uint64_t seed)
{
    size_t m = ws / stride;
    if (order[0] == 'l')
        chase_build_line(buf, m, stride);
    else if (order[0] == 'r')
        chase_build_cycle(buf, m, stride, hpc_seed(seed, ws, stride));
    else if (chase_build_windows(buf, m, stride, window / stride, hpc_seed(seed, ws, stride)))
        hpc_fail("cannot allocate the visiting order of %zu elements", m);
    if (hpc_inject == HPC_INJECT_CORRUPT)
        *ELEM(m / 2) = ELEM(m / 2);  /* a self-loop: the walk gets stuck there */

    size_t where;
    const char *why = chase_verify(buf, m, stride, &where);
    if (why)
        hpc_fail("pointer cycle check failed for %zu bytes: the walk %s at step %zu", ws, why,
                 where);

    /* The verification walk also brought the working set into the caches
     * (and TLB) as far as it fits. Loads per sample: given, or measured
     * from a short chase so that a sample lasts ~10 ms. */
    void *p = buf;
    uint64_t steps = 0;  /* loads done since element 0: to check the end point */
    long iters;
    if (loads > 0) {
        iters = (long)((loads + 15) / 16);
    } else {
        const long probe = 1024;
        double t0 = hpc_now();
        p = chase_run(p, probe);
        double per_load = (hpc_now() - t0) / (16.0 * probe);
        steps += 16 * (uint64_t)probe;
        iters = (long)(SAMPLE_SECONDS / per_load / 16.0) + 1;
        if (iters < 64)
            iters = 64;
        if (iters > (1L << 26))
            iters = 1L << 26;
    }

    hpc_sampler s;
    hpc_sampler_init(&s, &hpc_reps);
    while (hpc_sampler_more(&s)) {
        double t0 = hpc_now();
        p = chase_run(p, iters);
        double t = hpc_now() - t0;
        steps += 16 * (uint64_t)iters;
        hpc_sampler_add(&s, t / (16.0 * (double)iters) * 1e9);
    }
    sink = p;

    /* Where the chase must have ended: steps mod m further along the cycle. */
    if (chase_walk(buf, steps, m) != p)
        hpc_fail("pointer chase for %zu bytes ended on the wrong element", ws);

    hpc_stats st;
    hpc_stats_compute(s.samples, s.n, &st);
    double sample_ns = st.median * 16.0 * (double)iters;
    if (sample_ns < 1000.0 * hpc_timer.resolution_ns)
        hpc_warn("%zu bytes: a sample (%.0f ns) lasts less than 1000 timer ticks of %.0f ns; "
                 "use more --loads", ws, sample_ns, hpc_timer.resolution_ns);
    hpc_json r;
    hpc_result_begin(&r, "latency", "ns", "median", "lower");
    hpc_json_int(&r, "bytes", (long long)ws);
    hpc_json_int(&r, "stride", (long long)stride);
    hpc_json_str(&r, "order", order);
    if (order[0] == 'w')
        hpc_json_int(&r, "window", (long long)window);
    hpc_json_str(&r, "pages", pages_want == HPC_PAGES_HUGE ? "huge-2M" : hpc_pages_name(pages_want));
    hpc_json_int(&r, "cpu", cpu_opt);
    hpc_json_int(&r, "node", node_opt);
    hpc_result_stats(&r, &st, s.converged);
    hpc_json_str(&r, "pages_used", hpc_pages_name(pages_got));
    if (huge_bytes >= 0)
        hpc_json_int(&r, "huge_page_bytes", huge_bytes);  /* of the whole mapping */
    emit_home(&r);
    hpc_json_int(&r, "loads_per_sample", 16 * (long long)iters);
    hpc_json_emit(&r);
    hpc_sampler_free(&s);
}

static void meta_extra(hpc_json *o)
{
    hpc_json_str(o, "thp", hpc_thp_mode());
    hpc_json_int(o, "numa_nodes", hpc_numa_nodes());
}

/* Check the options and pin rank 0 (--cpu); returns the largest size. */
static long long parse(const long long *sizes, int nsizes, long long stride)
{
    long long cpu = hpc_opt_int("cpu"), max = 0;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] > max)
            max = sizes[i];
    hpc_usage_check(stride % (long long)sizeof(void *) != 0,
                    "option --stride: %lld is not a multiple of %zu", stride, sizeof(void *));
    for (int i = 0; i < nsizes; i++) {
        hpc_usage_check(sizes[i] % stride != 0, "option --sizes: %lld is not a multiple of "
                        "--stride %lld", sizes[i], stride);
        hpc_usage_check(sizes[i] < 2 * stride, "option --sizes: %lld holds fewer than 2 "
                        "elements of --stride %lld", sizes[i], stride);
    }
    /* Refuse before allocating what the machine cannot hold without swapping. */
    long long avail = hpc_mem_available();
    hpc_usage_check(avail > 0 && (double)max > 0.8 * (double)avail,
                    "option --sizes: working set of %lld bytes exceeds 80%% of MemAvailable "
                    "(%lld bytes)", max, avail);
    cpu_opt = (int)cpu;
    node_opt = (int)hpc_opt_int("node");
    order = hpc_opt_str("order");
    window = (size_t)hpc_opt_int("window");
    hpc_usage_check(order[0] == 'w' && window % (size_t)stride, "option --window: %zu bytes is "
                    "not a multiple of --stride %lld", window, stride);
    const char *pg = hpc_opt_str("pages");
    pages_want = pg[0] == 'b' ? HPC_PAGES_BASE : pg[0] == 't' ? HPC_PAGES_THP : HPC_PAGES_HUGE;
    hpc_usage_check(cpu >= 0 && !hpc_cpu_exists((int)cpu), "option --cpu: CPU %lld does not "
                    "exist or is not allowed (online CPUs: /sys/devices/system/cpu/online)", cpu);
    hpc_usage_check(node_opt >= 0 && !hpc_numa_node_exists(node_opt), "option --node: NUMA node "
                    "%d does not exist (this machine has %d node(s))", node_opt, hpc_numa_nodes());
    int pin_failed = 0;
    if (hpc_rank == 0 && cpu >= 0)
        pin_failed = hpc_bind_cpu((int)cpu) != 0;
    hpc_usage_check(pin_failed, "option --cpu: cannot run on CPU %lld (not allowed)", cpu);
    return max;
}

/* One mapping for all sizes (each uses its first bytes), on rank 0; page faults happen
 * here (hpc_map touches every page), not while timing. why: a failure or a warning. */
static char *map_buffer(long long max, char *why, size_t len)
{
    if (hpc_rank != 0)
        return NULL;
    char *buf = hpc_map((size_t)max, pages_want, node_opt, &pages_got, why, len);
    if (buf) {
        home_node = hpc_numa_node_of(buf);
        if (pages_got != HPC_PAGES_BASE)
            huge_bytes = hpc_huge_bytes(buf, (size_t)max);
    }
    return buf;
}

static void warn_pages(const char *buf, const char *why, long long max)
{
    if (hpc_rank == 0 && !buf)
        hpc_fail("%s", why);
    if (why[0])
        hpc_warn("%s", why);
    if (hpc_rank == 0 && pages_got == HPC_PAGES_THP && huge_bytes == 0 && max >= (2 << 20))
        hpc_warn("transparent huge pages were asked for but none was granted (THP mode %s)",
                 hpc_thp_mode());
    if (hpc_rank == 0 && hpc_numa_nodes() == 1 && node_opt >= 0)
        hpc_warn("one NUMA node: the core x memory-home latency matrix has one column");
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "mem-latency",
             "Memory load-to-use latency: dependent loads over a random pointer cycle.",
             options, MPI_THREAD_SINGLE);
    const long long *sizes;
    int nsizes = hpc_opt_list("sizes", &sizes);
    long long stride = hpc_opt_int("stride");
    long long max = parse(sizes, nsizes, stride);
    char why[256] = "";
    char *buf = map_buffer(max, why, sizeof why);

    hpc_begin(1, meta_extra);
    hpc_inject_first_point();
    warn_pages(buf, why, max);
    if (hpc_rank == 0) {
        for (int i = 0; i < nsizes; i++)
            measure(buf, (size_t)sizes[i], (size_t)stride, hpc_opt_int("loads"),
                    (uint64_t)hpc_opt_int("seed"));
        hpc_unmap(buf, (size_t)max, pages_got);
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
