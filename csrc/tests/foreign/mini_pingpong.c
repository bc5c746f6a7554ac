/* mini_pingpong.c - the smallest MPI ping-pong: ranks 0 and 1, one-way time per size (half the
 * mean round trip over REPS after WARMUP), printed by rank 0 as "bytes us" lines. No harness:
 * the ground truth hpceval's pingpong is checked against on a simulated platform
 * (tests/simulate/test_ground_truth.py, built there with smpicc). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { WARMUP = 5, REPS = 50 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Two passes over the sizes, the second printed: the first size's first pass pays the
     * process's cold start (page faults, SMPI's first calls), charged as computation. */
    for (int a = 1; a < 2 * argc - 1; a++) {
        int n = atoi(argv[1 + (a - 1) % (argc - 1)]);
        char *buf = calloc((size_t)n + 1, 1);
        double t0 = 0;
        for (int i = 0; i < WARMUP + REPS; i++) {
            if (i == WARMUP)
                t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(buf, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
            }
        }
        if (rank == 0 && a >= argc)
            printf("%d %.6f\n", n, (MPI_Wtime() - t0) / REPS / 2 * 1e6);
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
