/* output.c - JSON Lines writer for meta/result/warning/error/end records. */
#include "output.h"
#include "check.h"
#include "disturb.h"
#include "options.h"

#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { RECORD_VERSION = 1 };

static const char *bench_name = "unknown";
static int my_rank;
static int writer;  /* rank 0 writes records */
int hpc_tracing;

void hpc_output_init(const char *benchmark, int rank)
{
    bench_name = benchmark;
    my_rank = rank;
    writer = rank == 0;
}

static void put(hpc_json *j, const char *s, size_t n)
{
    if (j->len + n + 1 > j->cap) {
        j->cap = 2 * (j->len + n + 1) + 256;
        j->buf = realloc(j->buf, j->cap);
        if (!j->buf)
            abort();
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(hpc_json *j, const char *s)
{
    put(j, s, strlen(s));
}

static void quoted(hpc_json *j, const char *s)
{
    puts_(j, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        switch (c) {
        case '"': puts_(j, "\\\""); break;
        case '\\': puts_(j, "\\\\"); break;
        case '\n': puts_(j, "\\n"); break;
        case '\r': puts_(j, "\\r"); break;
        case '\t': puts_(j, "\\t"); break;
        default:
            if (c < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                puts_(j, esc);
            } else {
                put(j, (const char *)&c, 1);
            }
        }
    }
    puts_(j, "\"");
}

/* Comma between members, then "key": (no key inside arrays). */
static void member(hpc_json *j, const char *key)
{
    if (j->count[j->depth]++ > 0)
        puts_(j, ", ");
    if (key) {
        quoted(j, key);
        puts_(j, ": ");
    }
}

static void open_level(hpc_json *j, const char *key, char open, char close)
{
    member(j, key);
    put(j, &open, 1);
    if (j->depth + 1 >= (int)(sizeof j->count / sizeof j->count[0]))
        abort();
    j->depth++;
    j->count[j->depth] = 0;
    j->close[j->depth] = close;
}

void hpc_json_record(hpc_json *j, const char *type)
{
    memset(j, 0, sizeof *j);
    put(j, "{", 1);
    j->close[0] = '}';
    hpc_json_int(j, "record_version", RECORD_VERSION);
    hpc_json_str(j, "type", type);
    hpc_json_str(j, "benchmark", bench_name);
}

void hpc_json_str(hpc_json *j, const char *key, const char *s)
{
    member(j, key);
    quoted(j, s ? s : "");
}

void hpc_json_int(hpc_json *j, const char *key, long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    member(j, key);
    puts_(j, b);
}

/* JSON has no NaN or Infinity, and a non-finite value is never a measurement (a blown-up
 * model, a rate over a zero time): the writing rank fails (error record, exit 1) rather than
 * write a record that looks valid with null or a made-up number in it. Other ranks write
 * nothing, so their copies of a record do not matter. */
static void number(hpc_json *j, const char *key, double v, const char *fmt)
{
    char b[40];
    if (!isfinite(v) && writer)
        hpc_fail("internal error: the value of '%s' is %g, not a finite number; no record "
                 "written", key ? key : "(array element)", v);
    member(j, key);
    snprintf(b, sizeof b, fmt, v);
    puts_(j, b);
}

/* Measured values: 6 significant digits are more than any measurement holds. */
void hpc_json_num(hpc_json *j, const char *key, double v)
{
    number(j, key, v, "%.6g");
}

/* Configured values: the shortest text that reads back as the same double. */
void hpc_json_exact(hpc_json *j, const char *key, double v)
{
    char b[40];
    snprintf(b, sizeof b, "%.15g", v);
    number(j, key, v, strtod(b, NULL) == v ? "%.15g" : "%.17g");
}

void hpc_json_bool(hpc_json *j, const char *key, int v)
{
    member(j, key);
    puts_(j, v ? "true" : "false");
}

void hpc_json_object(hpc_json *j, const char *key)
{
    open_level(j, key, '{', '}');
}

void hpc_json_array(hpc_json *j, const char *key)
{
    open_level(j, key, '[', ']');
}

void hpc_json_close(hpc_json *j)
{
    put(j, &j->close[j->depth], 1);
    j->depth--;
}

void hpc_json_emit(hpc_json *j)
{
    while (j->depth > 0)
        hpc_json_close(j);
    puts_(j, "}\n");
    if (writer) {
        fwrite(j->buf, 1, j->len, stdout);
        fflush(stdout);
    }
    free(j->buf);
    j->buf = NULL;
}

/* CPU set as a list of ranges, e.g. "0-3,8". */
static void format_cpuset(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && used + 24 < len; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
        if (last > c)
            used += (size_t)snprintf(buf + used, len - used, "-%d", last);
        c = last;
    }
}

/* Environment variables that change how MPI and OpenMP behave (binding,
 * transports, threads). Runtime-internal variables are left out. */
static int matters(const char *var)
{
    static const char *prefixes[] = {
        "OMP_", "GOMP_", "KMP_", "OMPI_MCA_btl", "OMPI_MCA_pml", "OMPI_MCA_mtl",
        "OMPI_MCA_coll", "OMPI_MCA_osc", "OMPI_MCA_mpi_", "OMPI_MCA_hwloc", "OMPI_MCA_rmaps",
        "I_MPI_", "MPICH_", "MV2_", "UCX_", "FI_PROVIDER", NULL};
    for (int i = 0; prefixes[i]; i++)
        if (strncmp(var, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

extern char **environ;

enum { AFF_LEN = 256 };

/* Where every rank runs (on rank 0: every rank's entry): host, the CPU it is on right now,
 * the CPUs it may run on (its binding), the CPUs its host has. */
typedef struct {
    int rank, nranks;
    char *hosts;  /* MPI_MAX_PROCESSOR_NAME each */
    int *cpus, *onlines;
    char *affs;   /* AFF_LEN each */
} placement;

static void placement_gather(placement *p)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p->nranks);
    size_t n = (size_t)p->nranks;
    p->hosts = malloc(n * MPI_MAX_PROCESSOR_NAME);
    p->cpus = malloc(n * sizeof *p->cpus);
    p->onlines = malloc(n * sizeof *p->onlines);
    p->affs = malloc(n * AFF_LEN);
    if (!p->hosts || !p->cpus || !p->onlines || !p->affs)
        abort();
    char host[MPI_MAX_PROCESSOR_NAME] = {0};
    int len, cpu = sched_getcpu(), online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    MPI_Get_processor_name(host, &len);
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, p->hosts, MPI_MAX_PROCESSOR_NAME,
               MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Gather(&cpu, 1, MPI_INT, p->cpus, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char aff[AFF_LEN];
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        format_cpuset(&set, aff, sizeof aff);
    else
        snprintf(aff, sizeof aff, "unknown");
    MPI_Gather(aff, AFF_LEN, MPI_CHAR, p->affs, AFF_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Gather(&online, 1, MPI_INT, p->onlines, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void placement_free(placement *p)
{
    free(p->hosts);
    free(p->cpus);
    free(p->onlines);
    free(p->affs);
}

static const char *host_of(const placement *p, int i)
{
    return p->hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME;
}

static void placement_json(hpc_json *j, const placement *p)
{
    hpc_json_array(j, "hosts");
    for (int i = 0; i < p->nranks && p->rank == 0; i++)
        hpc_json_str(j, NULL, host_of(p, i));
    hpc_json_close(j);
    hpc_json_array(j, "cpus");
    for (int i = 0; i < p->nranks && p->rank == 0; i++)
        hpc_json_int(j, NULL, p->cpus[i]);
    hpc_json_close(j);
    hpc_json_array(j, "affinity");
    for (int i = 0; i < p->nranks && p->rank == 0; i++)
        hpc_json_str(j, NULL, p->affs + (size_t)i * AFF_LEN);
    hpc_json_close(j);
}

/* More ranks on a host than it has CPUs: every rank's timing suffers. */
/* Rank 0 warns of each host with more ranks than CPUs; every rank learns whether one had. */
static int warn_oversubscribed(const placement *p)
{
    int over = 0;
    for (int i = 0; i < p->nranks && p->rank == 0; i++) {
        int same = 0, first = 1;
        for (int k = 0; k < p->nranks; k++) {
            if (strcmp(host_of(p, i), host_of(p, k)) == 0) {
                same++;
                first &= k >= i;  /* warn once per host, at its first rank */
            }
        }
        if (first && same > p->onlines[i]) {
            hpc_warn("host %s is oversubscribed: %d ranks on %d CPUs", host_of(p, i), same,
                     p->onlines[i]);
            over = 1;
        }
    }
    MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return over;
}

static void env_json(hpc_json *j)
{
    hpc_json_object(j, "env");
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq && matters(*e)) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
            hpc_json_str(j, name, eq + 1);
        }
    }
    hpc_json_close(j);
}

/* MPI library (first line), version, thread level, compiler, flags, start time. */
static void build_json(hpc_json *j, const hpc_meta_info *m)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int len, version, subversion;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\r\n")] = '\0';
    MPI_Get_version(&version, &subversion);
    char mpi_version[16];
    snprintf(mpi_version, sizeof mpi_version, "%d.%d", version, subversion);
    char utc[32];
    time_t now = time(NULL);
    strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    hpc_json_str(j, "mpi_library", lib);
    hpc_json_str(j, "mpi_version", mpi_version);
    hpc_json_str(j, "mpi_thread_level", m->thread_level);
    hpc_json_str(j, "compiler", __VERSION__);
    hpc_json_str(j, "cflags", m->cflags);
    hpc_json_str(j, "time_utc", utc);
}

static void timing_json(hpc_json *j, const hpc_meta_info *m)
{
    hpc_json_object(j, "timer");
    hpc_json_str(j, "source", m->timer->source);
    hpc_json_num(j, "resolution_ns", m->timer->resolution_ns);
    hpc_json_num(j, "overhead_ns", m->timer->overhead_ns);
    hpc_json_close(j);
    hpc_json_object(j, "rep");
    hpc_json_int(j, "warmup", m->rep->warmup);
    hpc_json_int(j, "min_reps", m->rep->min_reps);
    hpc_json_int(j, "max_reps", m->rep->max_reps);
    hpc_json_exact(j, "ci_target", m->rep->ci_target);
    hpc_json_exact(j, "budget_s", m->rep->budget_s);
    hpc_json_close(j);
}

/* Every option's effective value, then the benchmark's extra keys. */
static void options_json(hpc_json *j, const hpc_meta_info *m)
{
    hpc_json_object(j, "options");
    for (int i = 0; i < hpc_options_count(); i++) {
        const hpc_option *o = hpc_options_get(i);
        switch (o->type) {
        case HPC_INT:
        case HPC_SIZE:
            hpc_json_int(j, o->name, o->ival);
            break;
        case HPC_DOUBLE:
            hpc_json_exact(j, o->name, o->dval);
            break;
        case HPC_STRING:
        case HPC_CHOICE:
        case HPC_CHOICES:  /* lists of words and grids as given: "pack,put", "2x1,1x2" */
        case HPC_GRIDS:
            hpc_json_str(j, o->name, o->text);
            break;
        case HPC_SIZES:
            hpc_json_array(j, o->name);
            for (int k = 0; k < o->nlist; k++)
                hpc_json_int(j, NULL, o->list[k]);
            hpc_json_close(j);
            break;
        }
    }
    if (m->extra)
        m->extra(j);
    hpc_json_close(j);
}

void hpc_write_meta(const hpc_meta_info *m)
{
    placement p;
    placement_gather(&p);
    hpc_json j;
    hpc_json_record(&j, "meta");
    hpc_json_array(&j, "argv");
    for (int i = 0; i < m->argc; i++)
        hpc_json_str(&j, NULL, m->argv[i]);
    hpc_json_close(&j);
    hpc_json_int(&j, "nranks", p.nranks);
    hpc_json_int(&j, "nthreads", m->nthreads);
    placement_json(&j, &p);
    env_json(&j);
    build_json(&j, m);
    timing_json(&j, m);
    options_json(&j, m);
    hpc_json_emit(&j);
    /* Oversubscribed, every sample is preempted by design: none to set aside, and no
     * per-sample agreement between ranks that wait for time slices (sampler.h); the point
     * is judged whole (disturb.h). */
    if (warn_oversubscribed(&p))
        hpc_sampler_judge = 0;
    placement_free(&p);
}

void hpc_result_begin(hpc_json *j, const char *metric, const char *unit,
                      const char *statistic, const char *better)
{
    hpc_json_record(j, "result");
    hpc_json_str(j, "metric", metric);
    hpc_json_str(j, "unit", unit);
    hpc_json_str(j, "statistic", statistic);
    hpc_json_str(j, "better", better);
    hpc_json_object(j, "params");
}

void hpc_result_stats(hpc_json *j, const hpc_stats *s, int converged)
{
    /* A traced run's times include the tracer's cost: never the same point as an untraced one. */
    if (hpc_tracing)
        hpc_json_bool(j, "traced", 1);
    hpc_json_close(j);  /* params */
    hpc_json_object(j, "stats");
    hpc_json_int(j, "n", s->n);
    hpc_json_num(j, "min", s->min);
    hpc_json_num(j, "median", s->median);
    hpc_json_num(j, "mean", s->mean);
    hpc_json_num(j, "max", s->max);
    hpc_json_num(j, "stddev", s->stddev);
    hpc_json_num(j, "ci_low", s->ci_low);
    hpc_json_num(j, "ci_high", s->ci_high);
    hpc_json_close(j);
    hpc_json_bool(j, "converged", converged);
    hpc_json_str(j, "check", "ok");
    hpc_disturb_write(j, s->n);  /* "disturbed", "quiet", "dropped" (disturb.h) */
    if (s->nkept > 0) {  /* the stats' own samples (stats.h): percentiles, bootstraps */
        hpc_json_array(j, "samples");
        for (int i = 0; i < s->nkept; i++)
            hpc_json_num(j, NULL, s->kept[i]);
        hpc_json_close(j);
    }
}

void hpc_warn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!writer)
        return;
    fprintf(stderr, "hpceval-%s: warning: %s\n", bench_name, msg);
    hpc_json j;
    hpc_json_record(&j, "warning");
    hpc_json_str(&j, "message", msg);
    hpc_json_emit(&j);
}

void hpc_write_error(const char *message, int exit_status)
{
    if (!writer) {
        /* Not rank 0: no record, but the reason must not get lost. */
        fprintf(stderr, "hpceval-%s: error (rank %d): %s\n", bench_name, my_rank, message);
        fflush(stderr);
        return;
    }
    fprintf(stderr, "hpceval-%s: error: %s\n", bench_name, message);
    fflush(stderr);
    hpc_json j;
    hpc_json_record(&j, "error");
    hpc_json_str(&j, "message", message);
    hpc_json_int(&j, "exit_status", exit_status);
    hpc_json_emit(&j);
}

void hpc_write_end(double elapsed_s)
{
    hpc_json j;
    hpc_json_record(&j, "end");
    hpc_json_str(&j, "status", "ok");
    hpc_json_num(&j, "elapsed_s", elapsed_s);
    hpc_json_emit(&j);
}
