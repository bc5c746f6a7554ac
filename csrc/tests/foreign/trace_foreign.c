/* trace_foreign.c - a plain MPI program, not built on the hpceval harness, for the tracing
 * tests: what `hpceval trace` must handle in any MPI code.
 *
 *   trace_foreign [ROUNDS [EXIT]]
 *
 * Every round, inside a phase "round" (MPI_Pcontrol 101/102, as csrc/harness/phases.h
 * marks phases), each rank passes a number around the ring in a nested phase "exchange"
 * (exactly one MPI_Send and one MPI_Recv per rank) and sums the ranks in a phase "sum"
 * (one MPI_Allreduce). Rank 0 prints one line; the program exits with EXIT (default 0)
 * after MPI_Finalize, so a test can check that the exit status passes through.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    int status = argc > 2 ? atoi(argv[2]) : 0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int bad = 0;

    for (int r = 0; r < rounds; r++) {
        MPI_Pcontrol(101, "round");
        MPI_Pcontrol(101, "exchange");
        int out = rank * 1000 + r, in = -1;
        if (size > 1) {
            if (rank % 2 == 0) { /* even ranks send first: no reliance on eager buffering */
                MPI_Send(&out, 1, MPI_INT, right, r, MPI_COMM_WORLD);
                MPI_Recv(&in, 1, MPI_INT, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&in, 1, MPI_INT, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&out, 1, MPI_INT, right, r, MPI_COMM_WORLD);
            }
        } else {
            in = out;
        }
        bad |= in != left * 1000 + r;
        MPI_Pcontrol(102, "exchange");
        MPI_Pcontrol(101, "sum");
        long mine = rank, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        bad |= sum != (long)size * (size - 1) / 2;
        MPI_Pcontrol(102, "sum");
        MPI_Pcontrol(102, "round");
    }
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("trace_foreign: %d ranks, %d rounds, %s\n", size, rounds, any_bad ? "WRONG" : "ok");
    MPI_Finalize();
    return any_bad ? 1 : status;
}
