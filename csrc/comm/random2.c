/* random2.c - the SP2 study's "random2" test: every even rank sends to a
 * randomly chosen odd rank, which answers at once (a ping-pong), all pairs
 * at the same time; the pairing is drawn afresh for every sample (rank 0
 * draws, all ranks use it). A sample is the slowest pair's time.
 *   latency   = half the slowest round trip [us]
 *   bandwidth = n / latency                 [MB/s]
 * Needs an even number of ranks. Data are checked after each sample.
 */
#include "harness.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES, .def = "8,1K,64K,1M", .min = 0, .max = INT_MAX - 1,
     .help = "message sizes in bytes"},
    {.name = "seed", .type = HPC_INT, .def = "1", .min = 0, .max = INT_MAX,
     .help = "seed of the random pairings"},
    {0}};

enum { TAG = 5 };

static void *xalloc(size_t bytes)
{
    void *p;
    if (posix_memalign(&p, 4096, bytes ? bytes : 1))
        hpc_fail("cannot allocate %zu bytes", bytes);
    memset(p, 1, bytes);
    return p;
}

/* partner[r] for every rank: evens get a random permutation of the odds. */
static void draw(int np, unsigned long long *state, int *partner)
{
    int h = np / 2;
    int *odd = malloc(sizeof(int) * (size_t)h);
    for (int i = 0; i < h; i++)
        odd[i] = 2 * i + 1;
    for (int i = h - 1; i > 0; i--) {  /* Fisher-Yates with a 64-bit LCG */
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        int j = (int)((*state >> 33) % (unsigned long long)(i + 1));
        int t = odd[i];
        odd[i] = odd[j], odd[j] = t;
    }
    for (int i = 0; i < h; i++)
        partner[2 * i] = odd[i], partner[odd[i]] = 2 * i;
    free(odd);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "random2",
             "Random pairs: evens ping-pong with a random odd rank, all at once (SP2 random2).",
             options, MPI_THREAD_SINGLE);
    int np = hpc_nranks, me = hpc_rank;
    hpc_usage_check(np < 2 || np % 2, "random2 needs an even number of ranks (>= 2), got %d", np);
    const long long *sizes;
    int nsizes = hpc_opt_list("sizes", &sizes);
    long long max = 1;
    for (int i = 0; i < nsizes; i++)
        max = sizes[i] > max ? sizes[i] : max;
    hpc_begin(1, NULL);
    char *sbuf = xalloc((size_t)max + 1), *rbuf = xalloc((size_t)max + 1);
    int *partner = malloc(sizeof(int) * (size_t)np);
    unsigned long long state = (unsigned long long)hpc_opt_int("seed") * 2654435761ULL + 1;
    hpc_inject_first_point();

    for (int si = 0; si < nsizes; si++) {
        int n = (int)sizes[si];
        long k = 1, idx = 0;
        int warm = 1;
        hpc_sampler s;
        for (;;) {
            if (me == 0)
                draw(np, &state, partner);
            MPI_Bcast(partner, np, MPI_INT, 0, MPI_COMM_WORLD);
            int p = partner[me], init = me % 2 == 0;
            hpc_fill(sbuf, (size_t)n, hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)me));
            memset(rbuf, 0, (size_t)n + 1);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = hpc_now();
            for (long i = 0; i < k; i++) {
                if (init) {
                    MPI_Send(sbuf, n, MPI_BYTE, p, TAG, MPI_COMM_WORLD);
                    MPI_Recv(rbuf, n, MPI_BYTE, p, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(rbuf, n, MPI_BYTE, p, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(sbuf, n, MPI_BYTE, p, TAG, MPI_COMM_WORLD);
                }
            }
            double t = init ? hpc_now() - t0 : 0.0, slow;
            if (hpc_inject == HPC_INJECT_CORRUPT && n > 0)
                rbuf[n / 2] ^= 0x5a;
            long long bad = hpc_check(rbuf, (size_t)n,
                                      hpc_seed((uint64_t)n, (uint64_t)idx, (uint64_t)p));
            if (bad < 0 && rbuf[n] != 0)
                bad = n;
            if (bad >= 0)
                hpc_fail("data check failed: random2, %d-byte messages, sample %ld: rank %d "
                         "received a wrong byte from rank %d at offset %lld", n, idx, me, p, bad);
            MPI_Reduce(&t, &slow, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            idx++;
            if (warm) {
                int done = slow >= 50e-6 || k >= (1L << 22);
                MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
                if (!done) {
                    k *= 2;
                    continue;
                }
                warm = 0;
                hpc_sampler_init(&s, &hpc_reps);
            } else {
                hpc_sampler_add(&s, slow / (2.0 * (double)k));
            }
            if (!hpc_sampler_more_coll(&s, MPI_COMM_WORLD))
                break;
        }
        if (me == 0) {
            double *v = malloc((size_t)s.n * sizeof *v);
            hpc_stats st;
            hpc_json r;
            for (int m = 0; m < 2; m++) {
                if (m == 1 && n == 0)
                    break;
                for (int i = 0; i < s.n; i++)
                    v[i] = m == 0 ? s.samples[i] * 1e6 : n / (s.samples[i] * 1e6);
                hpc_stats_compute(v, s.n, &st);
                hpc_result_begin(&r, m == 0 ? "latency" : "bandwidth", m == 0 ? "us" : "MB/s",
                                 "median", m == 0 ? "lower" : "higher");
                hpc_json_int(&r, "bytes", n);
                hpc_json_int(&r, "nranks", np);
                hpc_result_stats(&r, &st, s.converged);
                hpc_json_int(&r, "ops_per_sample", k);
                hpc_json_emit(&r);
            }
            free(v);
        }
        hpc_sampler_free(&s);
    }
    free(sbuf);
    free(rbuf);
    free(partner);
    hpc_finish();
    return 0;
}
