/* harness.c - start-up, usage errors, fault injection and shutdown. */
#include "harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int hpc_rank, hpc_nranks;
hpc_rep hpc_reps;
hpc_timer_info hpc_timer;
hpc_inject_mode hpc_inject;

static const char *bench_name;
static int saved_argc;
static char **saved_argv;
static const char *build_cflags;
static double t_start;
static int provided;  /* MPI thread level */

/* Options every benchmark has. A benchmark may override an entry by
 * declaring one with the same name (e.g. a different default). */
static const hpc_option common_options[] = {
    {.name = "warmup", .type = HPC_INT, .def = "2", .min = 0, .max = 1000000,
     .help = "repetitions run before samples are kept"},
    {.name = "min-reps", .type = HPC_INT, .def = "10", .min = 1, .max = 1000000,
     .help = "samples kept at least, whatever the budget", .at_most = "max-reps"},
    {.name = "max-reps", .type = HPC_INT, .def = "1000", .min = 1, .max = 1000000,
     .help = "samples kept at most"},
    {.name = "ci-target", .type = HPC_DOUBLE, .def = "0.02", .min = 0.0001, .max = 1,
     .help = "stop when the median's 95% CI half-width / median is at most this"},
    {.name = "budget", .type = HPC_DOUBLE, .def = "1.0", .min = 0, .max = 86400,
     .help = "seconds per measured point (warm-up included)"},
    {.name = "inject", .type = HPC_CHOICE, .def = "none", .choices = "none|corrupt|hang|die|slow-core|far-pair|late-thread|preempted",
     .help = "fault injection for testing the harness"},
    {0}};

void hpc_usage_error(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (hpc_rank == 0)
        hpc_write_error(msg, 2);
    MPI_Finalize();
    exit(2);
}

void hpc_usage_check(int bad, const char *fmt, ...)
{
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!bad)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hpc_usage_error("%s", msg);
}

int hpc_opt_numbers(const char *name, double *out, int max)
{
    const char *p = hpc_opt_str(name);
    int n = 0;
    for (;;) {
        char *end;
        double v = strtod(p, &end);
        int bad = end == p || !isfinite(v) || (*end != ',' && *end != '\0') || n >= max;
        hpc_usage_check(bad, "option --%s: '%s' is not a comma list of at most %d numbers", name,
                        hpc_opt_str(name), max);
        out[n++] = v;
        if (*end == '\0')
            return n;
        p = end + 1;
    }
}

static const char *thread_level_name(int level)
{
    return level == MPI_THREAD_SINGLE       ? "single"
           : level == MPI_THREAD_FUNNELED   ? "funneled"
           : level == MPI_THREAD_SERIALIZED ? "serialized"
           : level == MPI_THREAD_MULTIPLE   ? "multiple"
                                            : "unknown";
}

/* Started without a launcher (a singleton: a serial kernel run as a plain program), Open MPI
 * starts a runtime daemon and its UCX layer first: 0.3 s, a third of a T85 spectral run. A
 * singleton talks to no other process, so it asks for neither; a user's own setting wins, and
 * other MPIs ignore these names. */
static void lean_singleton(void)
{
    static const char *const launched[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                           "PMI_FD"};
    for (size_t i = 0; i < sizeof launched / sizeof *launched; i++)
        if (getenv(launched[i]))
            return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    setenv("OMPI_MCA_pml", "ob1", 0);
}

void hpc_init_(int *argc, char ***argv, const char *name, const char *about,
               const hpc_option *opts, int thread_level, const char *cflags)
{
    /* --describe, alone: the option table as JSON, without MPI (the build runs it, where no
     * launcher may be at hand; docs/architecture.md). */
    if (*argc == 2 && strcmp((*argv)[1], "--describe") == 0) {
        hpc_options_describe(name, common_options, opts);
        exit(0);
    }
    lean_singleton();
    MPI_Init_thread(argc, argv, thread_level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &hpc_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &hpc_nranks);
    t_start = hpc_now();
    saved_argc = *argc;
    saved_argv = *argv;
    build_cflags = cflags;
    bench_name = name;
    hpc_output_init(name, hpc_rank);

    /* Every rank parses the same argv, so all reach the same verdict. */
    char err[512];
    int rc = hpc_options_parse(*argc, *argv, common_options, opts, err, sizeof err);
    if (rc == 1) {
        if (hpc_rank == 0) {
            char prog[128];
            snprintf(prog, sizeof prog, "hpceval-%s", name);
            hpc_options_help(prog, about);
            fflush(stdout);
        }
        MPI_Finalize();
        exit(0);
    }
    if (rc < 0)
        hpc_usage_error("%s", err);

    hpc_reps.warmup = (int)hpc_opt_int("warmup");
    hpc_reps.min_reps = (int)hpc_opt_int("min-reps");
    hpc_reps.max_reps = (int)hpc_opt_int("max-reps");
    hpc_reps.ci_target = hpc_opt_double("ci-target");
    hpc_reps.budget_s = hpc_opt_double("budget");

    /* In the order of hpc_inject_mode; the option's choices are checked already. */
    static const char *const injects[] = {"none", "corrupt", "hang", "die", "slow-core",
                                          "far-pair", "late-thread", "preempted"};
    const char *inject = hpc_opt_str("inject");
    for (int i = 0; i < (int)(sizeof injects / sizeof *injects); i++)
        if (strcmp(inject, injects[i]) == 0)
            hpc_inject = (hpc_inject_mode)i;

    hpc_timer_calibrate(&hpc_timer);
    hpc_tracing = getenv("HPCEVAL_TRACE_DIR") != NULL;  /* output.h */
    if (provided < thread_level)
        hpc_usage_error("MPI provides thread level '%s', '%s' is needed",
                        thread_level_name(provided), thread_level_name(thread_level));
}

void hpc_begin(int nthreads, void (*extra)(hpc_json *options))
{
    hpc_meta_info m = {.argc = saved_argc,
                       .argv = saved_argv,
                       .nthreads = nthreads,
                       .cflags = build_cflags,
                       .thread_level = thread_level_name(provided),
                       .timer = &hpc_timer,
                       .rep = &hpc_reps,
                       .extra = extra};
    hpc_write_meta(&m);
}

hpc_grid *hpc_opt_pgrids(const char *name, int *n)
{
    const hpc_grid *given;
    int ngiven = hpc_opt_grids(name, &given);
    int all = strcmp(hpc_opt_str(name), "all") == 0;
    hpc_grid *pq = malloc(sizeof *pq * (size_t)(all ? hpc_nranks : ngiven > 0 ? ngiven : 1));
    if (!pq)
        abort();
    *n = 0;
    for (int P = 1; all && P <= hpc_nranks; P++)
        if (hpc_nranks % P == 0)
            pq[(*n)++] = (hpc_grid){P, hpc_nranks / P, 0};
    for (int k = 0; !all && k < ngiven; k++) {
        hpc_usage_check((long long)given[k].x * given[k].y != hpc_nranks,
                        "option --%s: %dx%d does not fit %d ranks", name, given[k].x,
                        given[k].y, hpc_nranks);
        pq[(*n)++] = given[k];
    }
    return pq;
}

void hpc_inject_first_point(void)
{
    static int done;
    if (done++ || hpc_rank != hpc_nranks - 1)
        return;
    if (hpc_inject == HPC_INJECT_HANG) {
        fprintf(stderr, "hpceval-%s: --inject hang: rank %d sleeps forever\n", bench_name,
                hpc_rank);
        fflush(stderr);
        for (;;)
            pause();
    }
    if (hpc_inject == HPC_INJECT_DIE) {
        fprintf(stderr, "hpceval-%s: --inject die: rank %d exits with status 7\n", bench_name,
                hpc_rank);
        fflush(stderr);
        _exit(7);
    }
}

void hpc_inject_late_thread(int thread)
{
    if (hpc_inject == HPC_INJECT_LATE_THREAD && thread == 0)
        nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
}

void hpc_idle_barrier(MPI_Comm comm)
{
#ifdef HPC_SMPI
    /* SimGrid SMPI: a blocked rank costs the simulation nothing, a polling one a call into the
     * simulator every 0.2 ms of simulated time (hundreds of idle ranks: hours of wall time). */
    MPI_Barrier(comm);
    return;
#endif
    MPI_Request req;
    int done = 0;
    const struct timespec pause_ts = {0, 200000};  /* 0.2 ms */
    MPI_Ibarrier(comm, &req);
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        nanosleep(&pause_ts, NULL);
    }
}

void hpc_finish_by(void (*finalize)(void))
{
    hpc_write_end(hpc_now() - t_start);
    if (finalize)
        finalize();
    else
        MPI_Finalize();
}

void hpc_finish(void)
{
    hpc_finish_by(NULL);
}
