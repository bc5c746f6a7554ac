/* stream.c - STREAM memory bandwidth (McCalpin) with OpenMP.
 *
 * Method, as in STREAM 5.10: three arrays a, b, c of n doubles, much larger
 * than the last-level cache; each repetition runs the four kernels, each
 * timed on its own around one "omp parallel for schedule(static)":
 *     copy:  c = a            2 x 8 x n bytes
 *     scale: b = 3 c          2 x 8 x n bytes
 *     add:   c = a + b        3 x 8 x n bytes
 *     triad: a = b + 3 c      3 x 8 x n bytes
 * (bytes counted as STREAM counts them: no write-allocate traffic). The
 * arrays are first touched in parallel with the same static schedule, so
 * each thread's part lies in its own NUMA node. Reported: the best rate
 * (STREAM's figure) in GB/s = 1e9 bytes/s, with the full statistics.
 *
 * Verification, outside the timing: at the end every element is compared
 * with the value the same sequence of kernels gives on scalars (STREAM's
 * checkSTREAMresults, relative error 1e-13).
 *
 * Only rank 0 measures; other ranks wait without spinning.
 */
#include "harness.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Values grow 15x per repetition (as in STREAM), so repetitions must stay
 * below ~260 for doubles: hence the narrower --warmup and --max-reps. */
static hpc_option options[] = {
    {.name = "n", .type = HPC_SIZE, .def = "0", .min = 0, .max = 1LL << 36,
     .help = "elements per array (0: 4x the last-level cache, at least 10M)"},
    {.name = "threads", .type = HPC_INT, .def = "0", .min = 0, .max = 4096,
     .help = "OpenMP threads (0: OpenMP's default, OMP_NUM_THREADS)"},
    {.name = "warmup", .type = HPC_INT, .def = "1", .min = 0, .max = 50,
     .help = "repetitions (of all four kernels) run before samples are kept"},
    {.name = "max-reps", .type = HPC_INT, .def = "100", .min = 1, .max = 200,
     .help = "samples kept at most (values must not overflow)"},
    {0}};

enum { COPY, SCALE, ADD, TRIAD, NKERNELS };
static const char *kernel_name[NKERNELS] = {"copy", "scale", "add", "triad"};
static const double kernel_words[NKERNELS] = {2, 2, 3, 3};  /* arrays touched */

static double *a, *b, *c;
static long n;
static int nthreads;
static int *thread_cpus;
static long long llc;
static const char *llc_source;

static const char *bind_name(omp_proc_bind_t bind)
{
    switch (bind) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "master";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    }
    return "unknown";
}

static void meta_extra(hpc_json *o)
{
    hpc_json_int(o, "llc_bytes", llc);
    hpc_json_str(o, "llc_source", llc_source);
    hpc_json_str(o, "proc_bind", bind_name(omp_get_proc_bind()));
    hpc_json_array(o, "thread_cpus");
    for (int t = 0; t < nthreads; t++)
        hpc_json_int(o, NULL, thread_cpus[t]);
    hpc_json_close(o);
    hpc_json_str(o, "thp", hpc_thp_mode());
}

/* Warnings (after the meta record) when threads may not get a core each. */
static void warn_about_placement(void)
{
    int bound = omp_get_proc_bind() != omp_proc_bind_false;
    if (!bound) {
        char list[256] = "";
        for (int t = 0, len = 0; t < nthreads && len < 200; t++)
            len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", t ? "," : "",
                            thread_cpus[t]);
        hpc_warn("OpenMP threads are not bound to CPUs (set OMP_PROC_BIND=close "
                 "OMP_PLACES=cores); CPUs at start: %s", list);
    }

    /* mpirun binds a rank to one core by default; OpenMP then starts one
     * thread only, or crowds all threads on that core. With binding on,
     * the OpenMP places tell where threads may run (the process's own mask
     * is already that of the first place). */
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int usable = bound ? omp_get_num_places() : CPU_COUNT(&allowed);
    if (!bound && usable < online)
        hpc_warn("the process may run on %d of %ld online CPUs (under mpirun use "
                 "--bind-to none or give the rank more cores)", usable, online);
    if (nthreads > usable)
        hpc_warn("%d threads share %d %s", nthreads, usable,
                 bound ? "OpenMP places" : "allowed CPUs");

    if (llc > 0 && 8.0 * (double)n < 4.0 * (double)llc)
        hpc_warn("arrays of %ld bytes are smaller than 4x the last-level cache "
                 "(%lld bytes): rates include cache bandwidth", 8 * n, llc);
}

/* 64-byte (cache-line) aligned; not touched here: see first touch in main. */
static double *alloc_array(long len)
{
    void *p;
    if (posix_memalign(&p, 64, 8 * (size_t)len))
        hpc_fail("cannot allocate an array of %ld doubles", len);
    return p;
}

/* One repetition: the four kernels, each timed alone. The implicit barrier
 * at the end of each parallel for is part of the time, as in STREAM. */
static void run_kernels(double t[NKERNELS])
{
    const double scalar = 3.0;

    t[COPY] = hpc_now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++)
        c[j] = a[j];
    t[COPY] = hpc_now() - t[COPY];

    t[SCALE] = hpc_now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++)
        b[j] = scalar * c[j];
    t[SCALE] = hpc_now() - t[SCALE];

    t[ADD] = hpc_now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++)
        c[j] = a[j] + b[j];
    t[ADD] = hpc_now() - t[ADD];

    t[TRIAD] = hpc_now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++)
        a[j] = b[j] + scalar * c[j];
    t[TRIAD] = hpc_now() - t[TRIAD];
}

/* STREAM's checkSTREAMresults: replay the kernels on scalars, compare the
 * average absolute error of each array, relative to the expected value,
 * with epsilon. */
static void check_results(long reps)
{
    const double scalar = 3.0, epsilon = 1e-13;
    double aj = 1.0, bj = 2.0, cj = 0.0;
    aj = 2.0 * aj;  /* the a[j] = 2 a[j] done after initialization */
    for (long k = 0; k < reps; k++) {
        cj = aj;
        bj = scalar * cj;
        cj = aj + bj;
        aj = bj + scalar * cj;
    }

    const double *arr[3] = {a, b, c};
    const double expect[3] = {aj, bj, cj};
    const char *name[3] = {"a", "b", "c"};
    for (int x = 0; x < 3; x++) {
        double sum_err = 0.0;
        for (long j = 0; j < n; j++)
            sum_err += fabs(arr[x][j] - expect[x]);
        double avg_err = sum_err / (double)n;
        if (fabs(avg_err / expect[x]) > epsilon) {
            long first = 0;
            while (first < n && fabs(arr[x][first] / expect[x] - 1.0) <= epsilon)
                first++;
            hpc_fail("STREAM check failed: array %s: average relative error %.3g > %g "
                     "after %ld repetitions (first wrong element %ld: %.17g, expected %.17g)",
                     name[x], avg_err / fabs(expect[x]), epsilon, reps, first,
                     first < n ? arr[x][first] : 0.0, expect[x]);
        }
    }
}

/* --threads and --n (0: STREAM's rule), checked against the memory available. */
static void parse(void)
{
    if (hpc_opt_int("threads") > 0)
        omp_set_num_threads((int)hpc_opt_int("threads"));
    nthreads = omp_get_max_threads();

    llc = hpc_llc_bytes(&llc_source);
    n = (long)hpc_opt_int("n");
    if (n == 0) {
        /* STREAM's rule: each array at least 4x the last-level cache. */
        n = llc > 0 ? (long)(4 * llc / 8) : 0;
        if (n < 10000000)
            n = 10000000;
        hpc_opt_set_int("n", n);
    }
    long long avail = hpc_mem_available();
    hpc_usage_check(avail > 0 && 3.0 * 8.0 * (double)n > 0.8 * (double)avail,
                    "option --n: 3 arrays of %ld doubles (%.3g bytes) exceed 80%% of "
                    "MemAvailable (%lld bytes)", n, 3.0 * 8.0 * (double)n, avail);
}

static void arrays_init(void)
{
    a = alloc_array(n);
    b = alloc_array(n);
    c = alloc_array(n);
    /* First touch with the kernels' schedule: pages land near the thread that will use
     * them. */
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.0;
    }
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; j++)
        a[j] = 2.0 * a[j];  /* as STREAM (its timer test); the check expects it */
}

/* Repeat all four kernels until every kernel's sampler is done; a kernel that is done
 * keeps running (unrecorded) so the arrays follow the sequence the check replays. The
 * four kernels (four measured points) share the repetitions, so each sampler gets the
 * four budgets: the run takes about 4 x --budget, as if the points were measured one
 * after another. Returns the repetitions. */
static long sweep(hpc_sampler s[NKERNELS])
{
    hpc_rep rep = hpc_reps;
    rep.budget_s *= NKERNELS;
    for (int k = 0; k < NKERNELS; k++)
        hpc_sampler_init(&s[k], &rep);
    long reps = 0;
    for (;;) {
        int more[NKERNELS], any = 0;
        for (int k = 0; k < NKERNELS; k++)
            any |= more[k] = hpc_sampler_more(&s[k]);
        if (!any)
            return reps;
        double t[NKERNELS];
        run_kernels(t);
        reps++;
        for (int k = 0; k < NKERNELS; k++)
            if (more[k])
                hpc_sampler_add(&s[k], t[k]);
    }
}

static void emit(hpc_sampler s[NKERNELS])
{
    for (int k = 0; k < NKERNELS; k++) {
        double bytes = kernel_words[k] * 8.0 * (double)n;
        double *rate = malloc((size_t)s[k].n * sizeof *rate);
        hpc_rates(s[k].samples, s[k].n, bytes, 1e9, rate);
        hpc_stats st;
        hpc_stats_compute(rate, s[k].n, &st);
        hpc_json r;
        hpc_result_begin(&r, "bandwidth", "GB/s", "max", "higher");
        hpc_json_str(&r, "kernel", kernel_name[k]);
        hpc_json_int(&r, "threads", nthreads);
        hpc_json_int(&r, "array_bytes", 8LL * n);
        hpc_json_str(&r, "bind", bind_name(omp_get_proc_bind()));  /* close/spread sweep */
        hpc_json_int(&r, "bytes_per_iter", (long long)bytes);
        hpc_result_stats(&r, &st, s[k].converged);
        hpc_json_emit(&r);
        free(rate);
        hpc_sampler_free(&s[k]);
    }
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "stream", "STREAM copy/scale/add/triad memory bandwidth (OpenMP).",
             options, MPI_THREAD_FUNNELED);
    parse();
    /* Where the threads run (at start: unbound threads may move later). */
    thread_cpus = calloc((size_t)nthreads, sizeof *thread_cpus);
#pragma omp parallel
    thread_cpus[omp_get_thread_num()] = sched_getcpu();

    hpc_begin(nthreads, meta_extra);
    warn_about_placement();
    hpc_inject_first_point();
    if (hpc_rank == 0) {
        arrays_init();
        hpc_sampler s[NKERNELS];
        long reps = sweep(s);
        if (hpc_inject == HPC_INJECT_CORRUPT)
            a[n / 2] *= 2.0;
        check_results(reps);
        emit(s);
        free(a);
        free(b);
        free(c);
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
