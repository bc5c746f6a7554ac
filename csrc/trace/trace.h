/* trace.h - the hpceval PMPI trace library (libhpceval-trace.so), internal interface.
 *
 * The library is preloaded into an MPI program (LD_PRELOAD, see hpceval trace and
 * docs/trace.md). Each wrapped MPI_X times the matching PMPI_X and records one event;
 * MPI_Pcontrol(101, name) / MPI_Pcontrol(102, name) record the begin and end of a phase
 * (csrc/harness/phases.h). At MPI_Finalize each rank writes
 *     $HPCEVAL_TRACE_DIR/rank-<R>.<job>.hpt
 * one JSON header line (rank, nranks, host, clock offsets, event cost, counts, names)
 * followed by the raw events (struct hpt_event, native little-endian), which
 * hpceval/trace/merge.py turns into Chrome trace-event JSON.
 *
 * Without HPCEVAL_TRACE_DIR in the environment nothing is recorded: every wrapper
 * tests one thread-local flag and calls the PMPI_ function.
 */
#ifndef HPT_TRACE_H
#define HPT_TRACE_H

#include <mpi.h>
#include <stdint.h>
#include <time.h>

/* Every call the library wraps, in the order of its call ids (the id is the index into
 * this list, and the names table of the raw file is written from it). */
#define HPT_CALLS(X)                                                                        \
    /* environment */                                                                       \
    X(Init) X(Init_thread) X(Finalize)                                                      \
    /* point-to-point */                                                                    \
    X(Send) X(Recv) X(Isend) X(Irecv) X(Ssend) X(Rsend) X(Bsend) X(Issend)                  \
    X(Sendrecv) X(Sendrecv_replace)                                                         \
    X(Wait) X(Waitall) X(Waitany) X(Waitsome) X(Test) X(Testall) X(Testany) X(Testsome)     \
    X(Probe) X(Iprobe) X(Start) X(Startall)                                                 \
    /* collectives */                                                                       \
    X(Barrier) X(Bcast) X(Reduce) X(Allreduce) X(Alltoall) X(Alltoallv)                     \
    X(Allgather) X(Allgatherv) X(Gather) X(Gatherv) X(Scatter) X(Scatterv)                  \
    X(Reduce_scatter) X(Reduce_scatter_block) X(Scan) X(Exscan)                             \
    /* one-sided */                                                                         \
    X(Put) X(Get) X(Accumulate) X(Get_accumulate)                                           \
    X(Win_fence) X(Win_lock) X(Win_unlock) X(Win_lock_all) X(Win_unlock_all)                \
    X(Win_flush) X(Win_flush_all) X(Win_post) X(Win_start) X(Win_complete) X(Win_wait)

enum {
#define HPT_ENUM(name) HPT_##name,
    HPT_CALLS(HPT_ENUM)
#undef HPT_ENUM
    HPT_NCALLS
};

/* What an event is. Phase marks are instants (t_begin == t_end); the merge pairs them. */
enum { HPT_KIND_CALL = 0, HPT_KIND_PHASE_BEGIN = 1, HPT_KIND_PHASE_END = 2 };

/* One event: 40 bytes. The layout is written into the raw file's header
 * ("event_layout") and read by merge.py with numpy; change both together. */
typedef struct {
    uint64_t t_begin, t_end; /* ns, CLOCK_MONOTONIC of this rank (offsets applied at merge) */
    int64_t bytes;           /* count * type size where meaningful, else -1 */
    int32_t peer;            /* MPI_COMM_WORLD rank of the partner/root/target, else -1 */
    int32_t tag;             /* point-to-point message tag (OTF2 message events), else -1 */
    uint16_t id;             /* call id (HPT_*), or phase name index for phase marks */
    uint16_t kind;           /* HPT_KIND_* */
    uint32_t spare;          /* padding to 8 bytes, named so the layout covers every byte */
} hpt_event;

/* Nonzero on the thread that called MPI_Init while tracing is on and no traced call is
 * in progress (so calls MPI makes from inside MPI are not recorded twice). Initial-exec
 * TLS: one load from the thread pointer, no __tls_get_addr call in the untraced path. */
extern __thread int hpt_on __attribute__((tls_model("initial-exec")));

static inline uint64_t hpt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* trace.c */
void hpt_record(int id, uint64_t t_begin, uint64_t t_end, int64_t bytes, int peer, int tag);
int hpt_init_hook(int rc, uint64_t t_begin, int id); /* after PMPI_Init* returned rc */
int hpt_finalize(void);                                             /* replaces MPI_Finalize */
void hpt_phase(int begin, const char *name);

/* peers.c: bytes and MPI_COMM_WORLD ranks for the event fields */
int64_t hpt_bytes(int count, MPI_Datatype type);
int hpt_peer(MPI_Comm comm, int rank);    /* rank in comm -> world rank, -1 if none */
int hpt_win_peer(MPI_Win win, int rank);  /* rank in the window's group -> world rank */
void hpt_peers_init(void);
void hpt_peers_free(void);
void hpt_forget_comm(MPI_Comm comm);
void hpt_forget_win(MPI_Win win);

#endif
