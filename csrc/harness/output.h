/* output.h - JSON Lines records on stdout (docs/records.md), rank 0 only.
 *
 * A record is built in memory and written as one line, then stdout is
 * flushed, so a reader (or a crash) never sees half a record. Other ranks
 * build nothing visible: every hpc_json_* call is cheap and harmless there.
 */
#ifndef HPC_OUTPUT_H
#define HPC_OUTPUT_H

#include "sampler.h"
#include "stats.h"
#include "timer.h"

#include <stddef.h>

typedef struct {
    char *buf;
    size_t len, cap;
    int depth;
    int count[16];   /* members already written at each nesting level */
    char close[16];  /* '}' or ']' to close each level */
} hpc_json;

/* Name used in every record ("benchmark"); only rank 0 writes records. */
void hpc_output_init(const char *benchmark, int rank);

/* Generic writer. key is NULL for elements of an array. */
void hpc_json_record(hpc_json *j, const char *type);  /* opens {"record_version":1,... */
void hpc_json_str(hpc_json *j, const char *key, const char *s);
void hpc_json_int(hpc_json *j, const char *key, long long v);
void hpc_json_num(hpc_json *j, const char *key, double v);   /* measured: 6 digits */
void hpc_json_exact(hpc_json *j, const char *key, double v); /* configured: exact */
void hpc_json_bool(hpc_json *j, const char *key, int v);
void hpc_json_object(hpc_json *j, const char *key);
void hpc_json_array(hpc_json *j, const char *key);
void hpc_json_close(hpc_json *j);                      /* ends object/array */
void hpc_json_emit(hpc_json *j);                       /* ends the record, writes it */

/* What the meta record reports besides what it gathers itself. */
typedef struct {
    int argc;
    char **argv;
    int nthreads;              /* threads per rank */
    const char *cflags;        /* compiler and flags, as built */
    const char *thread_level;  /* MPI thread support provided, e.g. "single" */
    const hpc_timer_info *timer;
    const hpc_rep *rep;
    void (*extra)(hpc_json *options);  /* may add keys to "options"; may be NULL */
} hpc_meta_info;

/* The meta record. Collective over MPI_COMM_WORLD: gathers each rank's
 * host, current CPU and allowed CPUs, and adds a warning record when a host
 * has more ranks than CPUs. */
void hpc_write_meta(const hpc_meta_info *m);

/* Set by hpc_init when HPCEVAL_TRACE_DIR is in the environment: results say "traced"
 * (the tracer's cost is in their times) and phases are marked for the tracer (phases.h). */
extern int hpc_tracing;

/* A result record:
 *     hpc_result_begin(&j, "latency", "us", "median", "lower");  // opens params
 *     hpc_json_int(&j, "bytes", n);                              // the params
 *     hpc_result_stats(&j, &stats, converged);  // closes params; stats, converged,
 *                                               // check ("ok": data was verified)
 *     hpc_json_int(&j, "round_trips_per_sample", k);  // optional extra keys
 *     hpc_json_emit(&j);
 */
void hpc_result_begin(hpc_json *j, const char *metric, const char *unit,
                      const char *statistic, const char *better);
void hpc_result_stats(hpc_json *j, const hpc_stats *stats, int converged);

/* warning and error records also go to stderr as one line. An error on a
 * rank other than 0 goes to stderr only. */
void hpc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hpc_write_error(const char *message, int exit_status);
void hpc_write_end(double elapsed_s);

#endif
