/* trace.c - state of the trace library: the event buffer, phase names, clock alignment,
 * the cost of one event, and the raw file written at MPI_Finalize (format: trace.h). */
#include "trace.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HPT_DEFAULT_MAX_EVENTS 2000000 /* 64 MB per rank, touched only as it fills */
#define HPT_MAX_PHASES 256
#define HPT_NAME_LEN 64
#define HPT_PINGS 10          /* clock ping-pongs per rank; the shortest round trip is kept */
#define HPT_PINGS_MAX 200     /* ... more while none came back within HPT_RTT_GOOD_NS: */
#define HPT_RTT_GOOD_NS 60000 /* oversubscribed ranks on a busy node can make 10 all slow */
#define HPT_COST_BLOCKS 5     /* the per-event cost: fastest of 5 blocks */
#define HPT_COST_REPS 40000   /* of this many recordings */
#define HPT_HOST_LEN 256

__thread int hpt_on __attribute__((tls_model("initial-exec")));

static const char *const call_names[HPT_NCALLS] = {
#define HPT_NAME(name) "MPI_" #name,
    HPT_CALLS(HPT_NAME)
#undef HPT_NAME
};

static int setup;         /* the collective part of MPI_Init ran: MPI_Finalize repeats it */
static hpt_event *events; /* NULL: this rank records nothing */
static uint64_t capacity, nevents, dropped;
static char phase_names[HPT_MAX_PHASES][HPT_NAME_LEN];
static int nphases;
static unsigned long long phase_names_lost; /* marks that went to "(other)": table full */

static int rank, nranks, thread_level, same_host;
static char host[HPT_HOST_LEN], dir[PATH_MAX];
static unsigned long long job;
static MPI_Comm clock_comm = MPI_COMM_NULL;
static uint64_t t_init, t_finalize, mono_at_init, real_at_init;
static int64_t offset[2], measured[2], rtt[2]; /* [0] at MPI_Init, [1] at MPI_Finalize */
static double event_cost_ns;

static void warn(const char *what, const char *detail)
{
    fprintf(stderr, "hpceval-trace: rank %d: %s%s%s\n", rank, what, detail ? ": " : "",
            detail ? detail : "");
}

/* The store behind every event; the event cost measurement times exactly this. */
static inline void store(hpt_event *ev, int kind, int id, uint64_t b, uint64_t e,
                         int64_t bytes, int peer, int tag)
{
    ev->t_begin = b;
    ev->t_end = e;
    ev->bytes = bytes;
    ev->peer = peer;
    ev->tag = tag;
    ev->spare = 0;
    ev->id = (uint16_t)id;
    ev->kind = (uint16_t)kind;
}

static void record(int kind, int id, uint64_t b, uint64_t e, int64_t bytes, int peer, int tag)
{
    if (nevents == capacity) { /* full: count, never grow (no allocation while traced) */
        dropped++;
        return;
    }
    store(&events[nevents++], kind, id, b, e, bytes, peer, tag);
}

void hpt_record(int id, uint64_t t_begin, uint64_t t_end, int64_t bytes, int peer, int tag)
{
    record(HPT_KIND_CALL, id, t_begin, t_end, bytes, peer, tag);
}

/* Index of a phase name, added on first sight. A full table maps to "(other)". */
static int intern(const char *name)
{
    for (int i = 0; i < nphases; i++)
        if (strncmp(phase_names[i], name, HPT_NAME_LEN - 1) == 0)
            return i;
    if (nphases == HPT_MAX_PHASES - 1) {
        phase_names_lost++;
        strcpy(phase_names[HPT_MAX_PHASES - 1], "(other)");
        return HPT_MAX_PHASES - 1;
    }
    snprintf(phase_names[nphases], HPT_NAME_LEN, "%s", name);
    return nphases++;
}

void hpt_phase(int begin, const char *name)
{
    uint64_t t = hpt_now();
    int id = intern(name ? name : "(null)");
    record(begin ? HPT_KIND_PHASE_BEGIN : HPT_KIND_PHASE_END, id, t, t, -1, -1, -1);
}

/* Offset of this rank's CLOCK_MONOTONIC to rank 0's (add it to a local time to get rank
 * 0's), from HPT_PINGS or more ping-pongs with rank 0; the one with the shortest round trip
 * bounds the error best (half its round trip). Rank 0 serves the ranks one after the other,
 * each until it sends "done" (1). */
static void serve_pings(void)
{
    char ping = 0;
    for (int r = 1; r < nranks; r++)
        for (;;) {
            PMPI_Recv(&ping, 1, MPI_CHAR, r, 0, clock_comm, MPI_STATUS_IGNORE);
            if (ping == 1)
                break;
            uint64_t t_root = hpt_now();
            PMPI_Send(&t_root, 1, MPI_UINT64_T, r, 0, clock_comm);
        }
}

static void measure_offset(int64_t *off, int64_t *round_trip)
{
    int64_t best_rtt = INT64_MAX, best_off = 0;
    char ping = 0, done = 1;
    uint64_t t_root;
    if (rank == 0) {
        serve_pings();
        *off = 0;
        *round_trip = 0;
        return;
    }
    for (int k = 0; k < HPT_PINGS || (best_rtt > HPT_RTT_GOOD_NS && k < HPT_PINGS_MAX); k++) {
        uint64_t t1 = hpt_now();
        PMPI_Send(&ping, 1, MPI_CHAR, 0, 0, clock_comm);
        PMPI_Recv(&t_root, 1, MPI_UINT64_T, 0, 0, clock_comm, MPI_STATUS_IGNORE);
        uint64_t t2 = hpt_now();
        if ((int64_t)(t2 - t1) < best_rtt) {
            best_rtt = (int64_t)(t2 - t1);
            best_off = (int64_t)t_root - (int64_t)(t1 + (t2 - t1) / 2);
        }
    }
    PMPI_Send(&done, 1, MPI_CHAR, 0, 0, clock_comm);
    *off = best_off;
    *round_trip = best_rtt;
}

/* Ranks on rank 0's host read the same CLOCK_MONOTONIC (one per Linux system): their
 * offset is exactly 0, and the measured one (noise of a few hundred ns) is only kept in
 * the header as a check. */
static void align_clock(int when)
{
    measure_offset(&measured[when], &rtt[when]);
    offset[when] = same_host ? 0 : measured[when];
}

int hpt_init_hook(int rc, uint64_t t_begin, int id)
{
    const char *d = getenv("HPCEVAL_TRACE_DIR");
    if (rc != MPI_SUCCESS || !d || !*d)
        return rc;
    /* The collective part first, on every rank (all of them see the same environment). */
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &nranks);
    PMPI_Query_thread(&thread_level);
    PMPI_Comm_dup(MPI_COMM_WORLD, &clock_comm); /* our messages never meet the program's */
    setup = 1;
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "?");
    host[sizeof host - 1] = '\0';
    char root_host[HPT_HOST_LEN];
    memcpy(root_host, host, sizeof host);
    PMPI_Bcast(root_host, sizeof root_host, MPI_CHAR, 0, clock_comm);
    same_host = strcmp(root_host, host) == 0;
    {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        real_at_init = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        mono_at_init = hpt_now();
    }
    /* A job id names the files, so a directory that saw several jobs can be told apart. */
    job = ((unsigned long long)getpid() << 32) ^ real_at_init;
    PMPI_Bcast(&job, 1, MPI_UNSIGNED_LONG_LONG, 0, clock_comm);
    hpt_peers_init();
    align_clock(0);

    /* Then this rank's buffer and directory; a failure here costs only this rank's file. */
    snprintf(dir, sizeof dir, "%s", d);
    for (char *p = dir + 1; *p; p++) /* mkdir -p */
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0777);
            *p = '/';
        }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        warn("cannot create HPCEVAL_TRACE_DIR, not tracing", strerror(errno));
        return rc;
    }
    capacity = HPT_DEFAULT_MAX_EVENTS;
    const char *m = getenv("HPCEVAL_TRACE_MAX_EVENTS");
    if (m && *m) {
        char *end;
        unsigned long long v = strtoull(m, &end, 10);
        if (*end == '\0' && v > 0)
            capacity = v;
        else if (rank == 0)
            warn("HPCEVAL_TRACE_MAX_EVENTS is not a positive integer, using the default", m);
    }
    /* Pages are touched as the buffer fills: a short run costs only what it uses. */
    events = malloc(capacity * sizeof *events);
    if (!events) {
        warn("cannot allocate the event buffer (lower HPCEVAL_TRACE_MAX_EVENTS), not tracing",
             NULL);
        return rc;
    }
    t_init = hpt_now();
    record(HPT_KIND_CALL, id, t_begin, t_init, -1, -1, -1);
    hpt_on = 1;
    return rc;
}

/* Nanoseconds to record one event as a wrapper does: two clock reads, the bytes and peer
 * lookups of an MPI_Send, the store. The fastest of a few blocks: on a shared host the
 * others include time stolen by other processes, which is not the library's cost. */
static double measure_event_cost(void)
{
    static hpt_event scratch[64];
    double best = 1e30;
    for (int block = 0; block < HPT_COST_BLOCKS; block++) {
        uint64_t t0 = hpt_now();
        for (int i = 0; i < HPT_COST_REPS; i++) {
            uint64_t b = hpt_now();
            int64_t bytes = hpt_bytes(8, MPI_DOUBLE);
            int peer = hpt_peer(MPI_COMM_WORLD, 0);
            store(&scratch[i & 63], HPT_KIND_CALL, HPT_Send, b, hpt_now(), bytes, peer, 0);
            __asm__ __volatile__("" ::: "memory"); /* keep every store */
        }
        double ns = (double)(hpt_now() - t0) / HPT_COST_REPS;
        if (ns < best)
            best = ns;
    }
    return best;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_names(FILE *f, const char *key, const char *const *names, int n)
{
    fprintf(f, ",\"%s\":[", key);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        json_str(f, names[i]);
    }
    fputc(']', f);
}

/* One JSON header line, then the events; written to a temporary name and renamed, so a
 * reader never sees half a file. */
static void write_file(void)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/rank-%d.%016llx.hpt", dir, rank, job);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        warn("cannot write the trace", strerror(errno));
        return;
    }
    const char *pnames[HPT_MAX_PHASES];
    int np = phase_names_lost ? HPT_MAX_PHASES : nphases;
    for (int i = 0; i < np; i++)
        pnames[i] = phase_names[i];
    for (int i = nphases; i < np; i++) /* unused slots below "(other)" */
        pnames[i] = "";
    fprintf(f, "{\"format\":\"hpceval-trace\",\"version\":1,\"rank\":%d,\"nranks\":%d,\"host\":",
            rank, nranks);
    json_str(f, host);
    fprintf(f, ",\"pid\":%ld,\"job\":\"%016llx\",\"thread_level\":%d", (long)getpid(), job,
            thread_level);
    fprintf(f, ",\"clock\":\"CLOCK_MONOTONIC\",\"t_init_ns\":%llu,\"t_finalize_ns\":%llu"
               ",\"monotonic_at_init_ns\":%llu,\"realtime_at_init_ns\":%llu",
            (unsigned long long)t_init, (unsigned long long)t_finalize,
            (unsigned long long)mono_at_init, (unsigned long long)real_at_init);
    fprintf(f, ",\"same_host_as_rank0\":%s,\"offset_ns\":[%lld,%lld],\"measured_offset_ns\":"
               "[%lld,%lld],\"rtt_ns\":[%lld,%lld]",
            same_host ? "true" : "false", (long long)offset[0], (long long)offset[1],
            (long long)measured[0], (long long)measured[1], (long long)rtt[0],
            (long long)rtt[1]);
    fprintf(f, ",\"event_cost_ns\":%.2f,\"events\":%llu,\"dropped\":%llu,\"capacity\":%llu"
               ",\"phase_marks_other\":%llu",
            event_cost_ns, (unsigned long long)nevents, (unsigned long long)dropped,
            (unsigned long long)capacity, phase_names_lost);
    fprintf(f, ",\"event_size\":%zu,\"event_layout\":[[\"t_begin\",\"<u8\"],[\"t_end\",\"<u8\"],"
               "[\"bytes\",\"<i8\"],[\"peer\",\"<i4\"],[\"tag\",\"<i4\"],[\"id\",\"<u2\"],"
               "[\"kind\",\"<u2\"],[\"spare\",\"<u4\"]]",
            sizeof(hpt_event));
    json_names(f, "calls", call_names, HPT_NCALLS);
    json_names(f, "phases", pnames, np);
    fputs("}\n", f);
    size_t put = fwrite(events, sizeof *events, nevents, f);
    int bad = put != nevents || ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        warn("cannot write the trace", strerror(errno));
        unlink(tmp);
    }
}

int hpt_finalize(void)
{
    if (!setup)
        return PMPI_Finalize();
    hpt_on = 0;
    t_finalize = hpt_now();
    /* Collective, like the setup: every rank that ran it takes part. */
    align_clock(1);
    event_cost_ns = measure_event_cost();
    PMPI_Comm_free(&clock_comm);
    hpt_peers_free();
    /* The file is written before PMPI_Finalize: once a rank has left MPI_Finalize and exits
     * with an error, mpirun kills the others, and they must have written by then. So the
     * MPI_Finalize slice covers this library's own work (clock, cost), not PMPI_Finalize. */
    if (events) {
        record(HPT_KIND_CALL, HPT_Finalize, t_finalize, hpt_now(), -1, -1, -1);
        write_file();
        free(events);
        events = NULL;
    }
    setup = 0;
    return PMPI_Finalize();
}
