/* mc_farm.c - the master-worker cycles (mc_farm.h). */
#include "mc_farm.h"
#include "check.h"

#include <mpi.h>
#include <stdlib.h>
#include <time.h>

enum { TAG_RESULT = 191, TAG_WORK = 192 };

const hpc_phase_def mc_phase_defs[MC_NPHASES] = {{"track", HPC_KIND_COMPUTE},
                                                 {"handout", HPC_KIND_COMM},
                                                 {"collect", HPC_KIND_COMM},
                                                 {"combine", HPC_KIND_COMPUTE},
                                                 {"rendezvous", HPC_KIND_COMM}};

/* The next request into *in. A blocking MPI_Recv busy-polls in most MPI libraries, so a
 * master that shares a core (with a worker, or anything else) takes CPU from it; probing
 * and sleeping gives the CPU back for up to one sleep of latency per request. */
static void next_request(const mc_run *run, mc_tally *in, MPI_Status *st)
{
    int from = MPI_ANY_SOURCE;
    if (run->master_sleep_us > 0) {
        long ns = (long)(run->master_sleep_us * 1e3);
        struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
        for (int flag = 0; !flag;) {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, st);
            if (!flag)
                nanosleep(&ts, NULL);
        }
        from = st->MPI_SOURCE;
    }
    MPI_Recv(in, sizeof *in, MPI_BYTE, from, TAG_RESULT, MPI_COMM_WORLD, st);
}

/* The master's side of cycle c; given[w] is what worker w holds (0: nothing). */
static void master_cycle(mc_run *run, int c, int nworkers, int64_t *given, mc_tally *cyc)
{
    hpc_phases *ph = run->ph;
    int64_t base = (int64_t)c * run->particles, next = 0;
    for (int active = nworkers; active > 0;) {
        mc_tally in;
        MPI_Status st;
        hpc_phase_to(ph, MC_PH_COLLECT);  /* mostly waiting for the next request */
        next_request(run, &in, &st);
        int w = st.MPI_SOURCE;
        hpc_phase_to(ph, MC_PH_COMBINE);
        if (in.histories != given[w])
            hpc_fail("montecarlo: cycle %d: worker %d returned %lld histories, was given %lld", c,
                     w, (long long)in.histories, (long long)given[w]);
        mc_tally_add(cyc, &in);
        hpc_phase_to(ph, MC_PH_HANDOUT);
        int64_t n = run->particles - next < run->chunk ? run->particles - next : run->chunk;
        int64_t range[2] = {base + next, n};
        next += n;
        given[w] = n;
        active -= n == 0;  /* an empty range ends this worker's cycle */
        MPI_Send(range, 2, MPI_INT64_T, w, TAG_WORK, MPI_COMM_WORLD);
    }
}

static void worker_cycle(mc_run *run)
{
    hpc_phases *ph = run->ph;
    mc_tally mine;
    mc_tally_zero(&mine);  /* the first request of the cycle: nothing tracked yet */
    for (;;) {
        int64_t range[2];
        hpc_phase_to(ph, MC_PH_COLLECT);
        MPI_Send(&mine, sizeof mine, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        hpc_phase_to(ph, MC_PH_HANDOUT);  /* waiting for the master's answer */
        MPI_Recv(range, 2, MPI_INT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (range[1] == 0)
            return;
        hpc_phase_to(ph, MC_PH_TRACK);
        mc_tally_zero(&mine);
        mc_track(run->prob, range[0], range[1], &mine);
        run->tracked += range[1];
    }
}

/* One rank: the master tracks the cycle itself, chunk by chunk as a worker would. */
static void serial_cycle(mc_run *run, int c, mc_tally *cyc)
{
    int64_t base = (int64_t)c * run->particles;
    for (int64_t next = 0; next < run->particles; next += run->chunk) {
        int64_t n = run->particles - next < run->chunk ? run->particles - next : run->chunk;
        mc_tally in;
        hpc_phase_to(run->ph, MC_PH_TRACK);
        mc_tally_zero(&in);
        mc_track(run->prob, base + next, n, &in);
        run->tracked += n;
        hpc_phase_to(run->ph, MC_PH_COMBINE);
        mc_tally_add(cyc, &in);
    }
}

void mc_farm_run(mc_run *run, mc_tally *total)
{
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int64_t *given = rank == 0 ? calloc((size_t)nranks, sizeof *given) : NULL;
    if (rank == 0 && !given)
        hpc_fail("montecarlo: no memory for %d workers", nranks - 1);
    mc_tally_zero(total);
    for (int c = 0; c < run->cycles; c++) {
        mc_tally cyc;
        mc_tally_zero(&cyc);
        if (rank == 0 && nranks == 1)
            serial_cycle(run, c, &cyc);
        else if (rank == 0)
            master_cycle(run, c, nranks - 1, given, &cyc);
        else
            worker_cycle(run);
        hpc_phase_to(run->ph, MC_PH_RENDEZVOUS);
        MPI_Bcast(&cyc, sizeof cyc, MPI_BYTE, 0, MPI_COMM_WORLD);
        hpc_phase_to(run->ph, MC_PH_COMBINE);
        mc_tally_add(total, &cyc);
    }
    hpc_phases_stop(run->ph);
    free(given);
}
