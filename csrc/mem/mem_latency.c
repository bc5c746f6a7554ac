/* mem_latency.c - memory load-to-use latency versus working-set size.
 *
 * Method (lmbench lat_mem_rd, random order): the working set is divided in
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
    {.name = "loads", .type = HPC_SIZE, .def = "0", .min = 0, .max = 1LL << 36,
     .help = "dependent loads per sample, rounded up to a multiple of 16 (0: ~10 ms worth)"},
    {.name = "seed", .type = HPC_SIZE, .def = "1", .min = 0, .max = 1LL << 62,
     .help = "seed of the random cycle"},
    {0}};

static const double SAMPLE_SECONDS = 10e-3;  /* target length of one auto-sized sample */

/* splitmix64 as a random number generator (rand() is too short and slow). */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t x = (*state += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

#define ELEM(i) ((void **)(buf + (size_t)(i) * stride))

/* Sattolo's algorithm on the pointers themselves: start from the identity
 * (element i points to itself), then for i = m-1 .. 1 swap the pointers of
 * element i and a random element j < i. The result, read as "element i
 * points to element next(i)", is a uniformly random cycle through all m
 * elements. (j % i has a bias below i / 2^64: negligible.) */
static void build_cycle(char *buf, size_t m, size_t stride, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < m; i++)
        *ELEM(i) = ELEM(i);
    for (size_t i = m - 1; i > 0; i--) {
        size_t j = (size_t)(rng_next(&state) % i);
        void *t = *ELEM(i);
        *ELEM(i) = *ELEM(j);
        *ELEM(j) = t;
    }
}

/* Walk m steps from element 0: each step must land on an element of the
 * working set not seen before, and the m-th step must return to element 0.
 * Returns NULL if so, else what went wrong. */
static const char *verify_cycle(char *buf, size_t m, size_t stride, size_t *where)
{
    unsigned char *seen = calloc(m / 8 + 1, 1);
    if (!seen)
        hpc_fail("cannot allocate %zu bytes", m / 8 + 1);
    const char *why = NULL;
    uintptr_t base = (uintptr_t)buf, p = base;
    for (size_t step = 0; step < m && !why; step++) {
        size_t off = p - base, i = off / stride;
        *where = step;
        if (p < base || off >= m * stride || off % stride != 0)
            why = "points outside the working set";
        else if (seen[i / 8] & (1u << (i % 8)))
            why = "visits an element twice";
        else {
            seen[i / 8] |= (unsigned char)(1u << (i % 8));
            p = (uintptr_t)*(void **)p;
        }
    }
    if (!why && p != base) {
        *where = m;
        why = "does not return to its start";
    }
    free(seen);
    return why;
}

/* The timed loop: iters x 16 dependent loads, unrolled so the loop's own
 * branch costs little next to a load. noinline keeps it one unit of code
 * whatever the caller looks like. */
#define LOAD1 p = *(void **)p;
#define LOAD4 LOAD1 LOAD1 LOAD1 LOAD1
#define LOAD16 LOAD4 LOAD4 LOAD4 LOAD4
static __attribute__((noinline)) void *chase(void *p, long iters)
{
    for (long i = 0; i < iters; i++) {
        LOAD16
    }
    return p;
}

static void *volatile sink;  /* the chase's result is used: the loop cannot be dropped */

static void measure(char *buf, size_t ws, size_t stride, long long loads, uint64_t seed)
{
    size_t m = ws / stride;
    build_cycle(buf, m, stride, hpc_seed(seed, ws, stride));
    if (hpc_inject == HPC_INJECT_CORRUPT)
        *ELEM(m / 2) = ELEM(m / 2);  /* a self-loop: the walk gets stuck there */

    size_t where;
    const char *why = verify_cycle(buf, m, stride, &where);
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
        p = chase(p, probe);
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
        p = chase(p, iters);
        double t = hpc_now() - t0;
        steps += 16 * (uint64_t)iters;
        hpc_sampler_add(&s, t / (16.0 * (double)iters) * 1e9);
    }
    sink = p;

    /* Where the chase must have ended: steps mod m further along the cycle. */
    void *q = buf;
    for (uint64_t i = 0; i < steps % m; i++)
        q = *(void **)q;
    if (q != p)
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
    hpc_json_str(&r, "order", "random");
    hpc_result_stats(&r, &st, s.converged);
    hpc_json_int(&r, "loads_per_sample", 16 * (long long)iters);
    hpc_json_emit(&r);
    hpc_sampler_free(&s);
}

static void meta_extra(hpc_json *o)
{
    hpc_json_str(o, "thp", hpc_thp_mode());
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "mem-latency",
             "Memory load-to-use latency: dependent loads over a random pointer cycle.",
             options, MPI_THREAD_SINGLE);

    const long long *sizes;
    int nsizes = hpc_opt_list("sizes", &sizes);
    long long stride = hpc_opt_int("stride");
    long long cpu = hpc_opt_int("cpu");
    long long max = 0;
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

    int pin_failed = 0;
    if (hpc_rank == 0 && cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)cpu, &set);
        pin_failed = sched_setaffinity(0, sizeof set, &set) != 0;
    }
    hpc_usage_check(pin_failed, "option --cpu: cannot run on CPU %lld (no such CPU, or not "
                    "allowed)", cpu);

    hpc_begin(1, meta_extra);
    hpc_inject_first_point();

    if (hpc_rank == 0) {
        /* One mapping for all sizes (each uses its first bytes); page
         * faults happen here, not while timing. */
        char *buf = mmap(NULL, (size_t)max, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED)
            hpc_fail("cannot map %lld bytes", max);
        memset(buf, 0, (size_t)max);
        for (int i = 0; i < nsizes; i++)
            measure(buf, (size_t)sizes[i], (size_t)stride, hpc_opt_int("loads"),
                    (uint64_t)hpc_opt_int("seed"));
        munmap(buf, (size_t)max);
    }

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
