/* smpi_message_cost.c - what SimGrid's SMPI costs in wall time a simulated message (driven by
 * benchmarks/smpi_message_cost.py, docs/simulate.md "SimGrid's own cost"). Not a measurement of
 * an MPI: the driver times the whole smpirun from outside.
 *
 *   smpi_message_cost N halo       every rank posts 4 receives and 4 sends of 8 B (ring
 *                                  neighbours 1 and 32 apart) and waits for all 8, N times
 *   smpi_message_cost N allreduce  N 8-byte MPI_Allreduce
 *   smpi_message_cost 0 none       start-up and MPI_Finalize only
 *
 * Rank 0 prints the simulated seconds of the loop, which must not depend on the SimGrid. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void halo(int r, int p)
{
    double send[4] = {1, 2, 3, 4}, recv[4];
    int nb[4] = {(r + 1) % p, (r + p - 1) % p, (r + 32) % p, (r + p - 32 % p) % p};
    MPI_Request rq[8];
    for (int k = 0; k < 4; k++)
        MPI_Irecv(&recv[k], 1, MPI_DOUBLE, nb[k], k ^ 1, MPI_COMM_WORLD, &rq[k]);
    for (int k = 0; k < 4; k++)
        MPI_Isend(&send[k], 1, MPI_DOUBLE, nb[k], k, MPI_COMM_WORLD, &rq[4 + k]);
    MPI_Waitall(8, rq, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int n = argc > 2 ? atoi(argv[1]) : 0;
    const char *what = argc > 2 ? argv[2] : "none";
    double x = 1, y = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (!strcmp(what, "halo"))
            halo(r, p);
        else if (!strcmp(what, "allreduce"))
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0;
    if (r == 0)
        printf("%s ranks=%d n=%d simulated_s=%.9f\n", what, p, n, t);
    MPI_Finalize();
    return 0;
}
