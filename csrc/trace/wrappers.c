/* wrappers.c - one wrapper per traced MPI call, with the exact MPI-3 prototypes (const
 * buffers) of Open MPI 4.1's and MPICH's mpi.h.
 *
 * Each wrapper is one TRACE line: the PMPI call, then what to record as bytes and peer
 * (evaluated after the call, and only when it succeeded and is being recorded):
 *   bytes: count * type size of the call's message; for collectives the per-process piece
 *          (what OSU calls the message size); NONE where it means nothing.
 *   peer:  MPI_COMM_WORLD rank of the destination, source, root or target; NONE otherwise.
 * Point-to-point sends and receives are TRACE_MSG lines, which also record the message tag
 * (the OTF2 export's message events match sends to receives by it).
 */
#include "trace.h"

#include <stdarg.h>

#define NONE (-1)

/* The body of every wrapper. Untraced (no HPCEVAL_TRACE_DIR, another thread than the one
 * that initialised MPI, or a call made from inside a traced call): the PMPI call, nothing
 * else. */
#define TRACE(name, call, bytes, peer) TRACE_MSG(name, call, bytes, peer, NONE)
#define TRACE_MSG(name, call, bytes, peer, tag)                                            \
    do {                                                                                   \
        if (!hpt_on)                                                                       \
            return call;                                                                   \
        hpt_on = 0;                                                                        \
        uint64_t t0_ = hpt_now();                                                          \
        int rc_ = call;                                                                    \
        uint64_t t1_ = hpt_now();                                                          \
        if (rc_ == MPI_SUCCESS)                                                            \
            hpt_record(HPT_##name, t0_, t1_, (bytes), (peer), (tag));                      \
        else                                                                               \
            hpt_record(HPT_##name, t0_, t1_, NONE, NONE, NONE);                            \
        hpt_on = 1;                                                                        \
        return rc_;                                                                        \
    } while (0)

/* A receive from MPI_ANY_SOURCE: the sender, when the program asked for the status. */
#define SOURCE(comm, source, status)                                                       \
    hpt_peer(comm, (source) == MPI_ANY_SOURCE && (status) != MPI_STATUS_IGNORE             \
                       ? (status)->MPI_SOURCE : (source))

/* A receive with MPI_ANY_TAG: the message's tag, when the program asked for the status. */
#define TAG(tag, status)                                                                   \
    ((tag) == MPI_ANY_TAG && (status) != MPI_STATUS_IGNORE ? (status)->MPI_TAG : (tag))

/* Collectives that may take MPI_IN_PLACE as the send buffer size their piece by the
 * receive arguments then. */
#define PIECE(sendbuf, scount, stype, rcount, rtype)                                       \
    ((sendbuf) == MPI_IN_PLACE ? hpt_bytes(rcount, rtype) : hpt_bytes(scount, stype))

/* Sum of a counts array over the communicator (the remote group of an intercommunicator). */
static int64_t total_bytes(const int counts[], MPI_Datatype type, MPI_Comm comm)
{
    int n = 0, inter = 0;
    int64_t sum = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    for (int i = 0; i < n; i++)
        sum += counts[i];
    return sum > 0 && sum <= INT32_MAX ? hpt_bytes((int)sum, type) : (sum == 0 ? 0 : NONE);
}

/* ---- environment ---------------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv)
{
    uint64_t t0 = hpt_now();
    return hpt_init_hook(PMPI_Init(argc, argv), t0, HPT_Init);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t0 = hpt_now();
    return hpt_init_hook(PMPI_Init_thread(argc, argv, required, provided), t0, HPT_Init_thread);
}

int MPI_Finalize(void)
{
    return hpt_finalize();
}

/* MPI_Pcontrol(101, name) begins a phase, MPI_Pcontrol(102, name) ends it
 * (HPC_PCONTROL_BEGIN/END of csrc/harness/phases.h). Other levels pass through. */
int MPI_Pcontrol(const int level, ...)
{
    if (hpt_on && (level == 101 || level == 102)) {
        va_list ap;
        va_start(ap, level);
        const char *name = va_arg(ap, const char *);
        va_end(ap);
        hpt_phase(level == 101, name);
    }
    return PMPI_Pcontrol(level);
}

/* Not recorded: they only keep the peer translation cache (peers.c) right. */
int MPI_Comm_free(MPI_Comm *comm)
{
    if (hpt_on)
        hpt_forget_comm(*comm);
    return PMPI_Comm_free(comm);
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
    if (hpt_on)
        hpt_forget_comm(*comm);
    return PMPI_Comm_disconnect(comm);
}

int MPI_Win_free(MPI_Win *win)
{
    if (hpt_on)
        hpt_forget_win(*win);
    return PMPI_Win_free(win);
}

/* ---- point-to-point --------------------------------------------------------------- */

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    TRACE_MSG(Send, PMPI_Send(buf, count, type, dest, tag, comm),
          hpt_bytes(count, type), hpt_peer(comm, dest), tag);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    TRACE_MSG(Recv, PMPI_Recv(buf, count, type, source, tag, comm, status),
              hpt_bytes(count, type), SOURCE(comm, source, status), TAG(tag, status));
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    TRACE_MSG(Isend, PMPI_Isend(buf, count, type, dest, tag, comm, request),
          hpt_bytes(count, type), hpt_peer(comm, dest), tag);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    TRACE_MSG(Irecv, PMPI_Irecv(buf, count, type, source, tag, comm, request),
          hpt_bytes(count, type), hpt_peer(comm, source), tag);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    TRACE_MSG(Ssend, PMPI_Ssend(buf, count, type, dest, tag, comm),
          hpt_bytes(count, type), hpt_peer(comm, dest), tag);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    TRACE_MSG(Rsend, PMPI_Rsend(buf, count, type, dest, tag, comm),
          hpt_bytes(count, type), hpt_peer(comm, dest), tag);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    TRACE_MSG(Bsend, PMPI_Bsend(buf, count, type, dest, tag, comm),
          hpt_bytes(count, type), hpt_peer(comm, dest), tag);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    TRACE_MSG(Issend, PMPI_Issend(buf, count, type, dest, tag, comm, request),
          hpt_bytes(count, type), hpt_peer(comm, dest), tag);
}

/* bytes: the message sent; peer: the destination */
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status)
{
    TRACE(Sendrecv, PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                  recvcount, recvtype, source, recvtag, comm, status),
          hpt_bytes(sendcount, sendtype), hpt_peer(comm, dest));
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    TRACE(Sendrecv_replace,
          PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status),
          hpt_bytes(count, type), hpt_peer(comm, dest));
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    TRACE(Wait, PMPI_Wait(request, status), NONE, NONE);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    TRACE(Waitall, PMPI_Waitall(count, requests, statuses), NONE, NONE);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    TRACE(Waitany, PMPI_Waitany(count, requests, index, status), NONE, NONE);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    TRACE(Waitsome, PMPI_Waitsome(incount, requests, outcount, indices, statuses), NONE, NONE);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    TRACE(Test, PMPI_Test(request, flag, status), NONE, NONE);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    TRACE(Testall, PMPI_Testall(count, requests, flag, statuses), NONE, NONE);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    TRACE(Testany, PMPI_Testany(count, requests, index, flag, status), NONE, NONE);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    TRACE(Testsome, PMPI_Testsome(incount, requests, outcount, indices, statuses), NONE, NONE);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    TRACE(Probe, PMPI_Probe(source, tag, comm, status), NONE, SOURCE(comm, source, status));
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    TRACE(Iprobe, PMPI_Iprobe(source, tag, comm, flag, status), NONE, hpt_peer(comm, source));
}

int MPI_Start(MPI_Request *request)
{
    TRACE(Start, PMPI_Start(request), NONE, NONE);
}

int MPI_Startall(int count, MPI_Request requests[])
{
    TRACE(Startall, PMPI_Startall(count, requests), NONE, NONE);
}

/* ---- collectives ------------------------------------------------------------------- */

int MPI_Barrier(MPI_Comm comm)
{
    TRACE(Barrier, PMPI_Barrier(comm), NONE, NONE);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    TRACE(Bcast, PMPI_Bcast(buffer, count, type, root, comm),
          hpt_bytes(count, type), hpt_peer(comm, root));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    TRACE(Reduce, PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm),
          hpt_bytes(count, type), hpt_peer(comm, root));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    TRACE(Allreduce, PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm),
          hpt_bytes(count, type), NONE);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TRACE(Alltoall,
          PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
          PIECE(sendbuf, sendcount, sendtype, recvcount, recvtype), NONE);
}

/* bytes: everything this rank sends */
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TRACE(Alltoallv,
          PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm),
          sendbuf == MPI_IN_PLACE ? total_bytes(recvcounts, recvtype, comm)
                                  : total_bytes(sendcounts, sendtype, comm),
          NONE);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TRACE(Allgather,
          PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
          PIECE(sendbuf, sendcount, sendtype, recvcount, recvtype), NONE);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    TRACE(Allgatherv,
          PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm),
          sendbuf == MPI_IN_PLACE ? NONE : hpt_bytes(sendcount, sendtype), NONE);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TRACE(Gather,
          PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
          PIECE(sendbuf, sendcount, sendtype, recvcount, recvtype), hpt_peer(comm, root));
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    TRACE(Gatherv,
          PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                       root, comm),
          sendbuf == MPI_IN_PLACE ? NONE : hpt_bytes(sendcount, sendtype), hpt_peer(comm, root));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TRACE(Scatter,
          PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
          recvbuf == MPI_IN_PLACE ? hpt_bytes(sendcount, sendtype) : hpt_bytes(recvcount, recvtype),
          hpt_peer(comm, root));
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    TRACE(Scatterv,
          PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                        root, comm),
          recvbuf == MPI_IN_PLACE ? NONE : hpt_bytes(recvcount, recvtype), hpt_peer(comm, root));
}

/* bytes: the whole vector reduced */
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    TRACE(Reduce_scatter, PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm),
          total_bytes(recvcounts, type, comm), NONE);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    TRACE(Reduce_scatter_block,
          PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm),
          hpt_bytes(recvcount, type), NONE);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm)
{
    TRACE(Scan, PMPI_Scan(sendbuf, recvbuf, count, type, op, comm), hpt_bytes(count, type), NONE);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
    TRACE(Exscan, PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm),
          hpt_bytes(count, type), NONE);
}

/* ---- one-sided --------------------------------------------------------------------- */

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_type,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_type,
            MPI_Win win)
{
    TRACE(Put,
          PMPI_Put(origin_addr, origin_count, origin_type, target_rank, target_disp,
                   target_count, target_type, win),
          hpt_bytes(origin_count, origin_type), hpt_win_peer(win, target_rank));
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Win win)
{
    TRACE(Get,
          PMPI_Get(origin_addr, origin_count, origin_type, target_rank, target_disp,
                   target_count, target_type, win),
          hpt_bytes(origin_count, origin_type), hpt_win_peer(win, target_rank));
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_type,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_type, MPI_Op op, MPI_Win win)
{
    TRACE(Accumulate,
          PMPI_Accumulate(origin_addr, origin_count, origin_type, target_rank, target_disp,
                          target_count, target_type, op, win),
          hpt_bytes(origin_count, origin_type), hpt_win_peer(win, target_rank));
}

/* bytes: the result fetched (the origin buffer is unused with MPI_NO_OP) */
int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_type,
                       void *result_addr, int result_count, MPI_Datatype result_type,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_type, MPI_Op op, MPI_Win win)
{
    TRACE(Get_accumulate,
          PMPI_Get_accumulate(origin_addr, origin_count, origin_type, result_addr, result_count,
                              result_type, target_rank, target_disp, target_count, target_type,
                              op, win),
          hpt_bytes(result_count, result_type), hpt_win_peer(win, target_rank));
}

int MPI_Win_fence(int assert, MPI_Win win)
{
    TRACE(Win_fence, PMPI_Win_fence(assert, win), NONE, NONE);
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    TRACE(Win_lock, PMPI_Win_lock(lock_type, rank, assert, win), NONE, hpt_win_peer(win, rank));
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
    TRACE(Win_unlock, PMPI_Win_unlock(rank, win), NONE, hpt_win_peer(win, rank));
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    TRACE(Win_lock_all, PMPI_Win_lock_all(assert, win), NONE, NONE);
}

int MPI_Win_unlock_all(MPI_Win win)
{
    TRACE(Win_unlock_all, PMPI_Win_unlock_all(win), NONE, NONE);
}

int MPI_Win_flush(int rank, MPI_Win win)
{
    TRACE(Win_flush, PMPI_Win_flush(rank, win), NONE, hpt_win_peer(win, rank));
}

int MPI_Win_flush_all(MPI_Win win)
{
    TRACE(Win_flush_all, PMPI_Win_flush_all(win), NONE, NONE);
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    TRACE(Win_post, PMPI_Win_post(group, assert, win), NONE, NONE);
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    TRACE(Win_start, PMPI_Win_start(group, assert, win), NONE, NONE);
}

int MPI_Win_complete(MPI_Win win)
{
    TRACE(Win_complete, PMPI_Win_complete(win), NONE, NONE);
}

int MPI_Win_wait(MPI_Win win)
{
    TRACE(Win_wait, PMPI_Win_wait(win), NONE, NONE);
}
