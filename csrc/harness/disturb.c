/* disturb.c - disturbance of a measured point: preemptions, steal time, a slowed core, a moved pair. */
#include "disturb.h"
#include "harness.h"
#include "pairline.h"
#include "timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static struct {
    double t;
    long nivcsw;            /* this process's, at the start */
    long gathered;          /* all ranks' preemptions in the window, -1: not gathered */
    unsigned long long steal, total;
    double core_start;      /* this rank's core probe at the start [s] */
    double slower;          /* the slowest rank's probe over its fastest, 0: not gathered */
    int slower_rank;
    double line, line_best; /* a pair's cache-line round trip [ns] now and its fastest, 0: none */
    int hits, dropped, taken; /* the sampler's marks (hpc_disturb_samples), taken -1: none */
} w = {.gathered = -1, .taken = -1};

/* The core's speed: a fixed copy inside L1, timed (median of PROBE_REPS), outside any timed
 * region. A vCPU beside a busy hyperthread of another guest, or a lowered clock, shows in no
 * preemption or steal count, yet a 16 KiB ping-pong ran 1.1-1.2x slower while this copy took
 * 1.07-1.16x longer, and 1.17x slower while it took 1.85x (docs/records.md). */
enum { PROBE_BYTES = 4096, PROBE_COPIES = 32, PROBE_REPS = 5, PROBE_CALIBRATE = 20 };
static unsigned char probe_src[PROBE_BYTES], probe_dst[PROBE_BYTES];
static void *(*volatile probe_copy)(void *, const void *, size_t) = memcpy;  /* never elided */
static double core_best;  /* this process's fastest probe so far [s], 0: none yet */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double core_probe(int copies)
{
#ifdef HPC_SMPI
    return core_best = 1;  /* simulated time: the host's cores do not reach it */
#endif
    double t[PROBE_REPS];
    for (int r = 0; r < PROBE_REPS; r++) {
        double t0 = hpc_now();
        for (int i = 0; i < copies; i++)
            probe_copy(probe_dst, probe_src, PROBE_BYTES);
        t[r] = hpc_now() - t0;
    }
    qsort(t, PROBE_REPS, sizeof *t, by_value);
    if (core_best == 0 || t[0] < core_best)
        core_best = t[0];
    return t[0];
}

/* This rank's core over its fastest in this launch, for the window now closing. */
static double core_slower(void)
{
    int slowed = hpc_inject == HPC_INJECT_SLOW_CORE && hpc_rank == hpc_nranks - 1;
    double end = core_probe(slowed ? 3 * PROBE_COPIES : PROBE_COPIES);
    double worst = end > w.core_start ? end : w.core_start;
    return worst / core_best;
}

long hpc_preemptions_self(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_nivcsw : 0;
}

/* Steal and total jiffies of all CPUs (first line of /proc/stat); 0 if unreadable. */
static void cpu_jiffies(unsigned long long *steal, unsigned long long *total)
{
    unsigned long long v[8] = {0};
    *steal = *total = 0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return;
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                     &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (got < 8)
        return;
    for (int i = 0; i < 8; i++)
        *total += v[i];
    *steal = v[7];
}

void hpc_disturb_start(void)
{
    w.t = hpc_now();
    w.nivcsw = hpc_preemptions_self();
    w.gathered = -1;
    cpu_jiffies(&w.steal, &w.total);
    w.slower = w.line = 0;
    w.taken = -1;
    if (core_best == 0)  /* the launch's first window: a reference to compare with */
        for (int i = 0; i < PROBE_CALIBRATE; i++)
            core_probe(PROBE_COPIES);
    w.core_start = core_probe(PROBE_COPIES);
}

void hpc_disturb_gather(MPI_Comm comm)
{
    long mine = hpc_preemptions_self() - w.nivcsw, all = 0;
    MPI_Reduce(&mine, &all, 1, MPI_LONG, MPI_SUM, 0, comm);
    w.gathered = all;
#ifdef HPC_SMPI
    return;  /* simulated time: no core to time, no cache line between simulated ranks; a
              * second reduction per point made the 64-rank tests 1.3-1.5x slower */
#endif
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct { double v; int r; } slow = {core_slower(), rank}, max;
    MPI_Reduce(&slow, &max, 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0, comm);
    w.slower = max.v;
    w.slower_rank = max.r;
    if (!hpc_pairline(comm, &w.line, &w.line_best))
        w.line = 0;
}

void hpc_disturb_samples(int hits, int dropped, int taken)
{
    w.hits = hits;
    w.dropped = dropped;
    w.taken = taken;
}

/* Preempted too often for the median to stand: the reason, written into why, or NULL. */
static const char *too_preempted(const hpc_disturbance *d, int n, char *why, size_t len)
{
    if (w.taken >= 0) {  /* a sampler's: fine while at most half were preempted */
        if (2 * (w.dropped + w.hits) <= w.taken)
            return NULL;
        snprintf(why, len, "other processes preempted the ranks during %d of %d samples",
                 w.dropped + w.hits, w.taken);
        return why;
    }
    if (d->preemptions < HPC_DISTURB_MIN_PREEMPT || d->preemptions * HPC_DISTURB_SAMPLES_PER < n)
        return NULL;
    snprintf(why, len, "other processes preempted the ranks %ld times in %d samples",
             d->preemptions, n);
    return why;
}

const char *hpc_disturb_judge(hpc_disturbance *d, int n)
{
    static char why[128];
    unsigned long long steal, total;
    cpu_jiffies(&steal, &total);
    d->seconds = hpc_now() - w.t;
    d->preemptions = w.gathered >= 0 ? w.gathered : hpc_preemptions_self() - w.nivcsw;
    /* 10 ms jiffies: below 20 of them (all CPUs together) the share means nothing. */
    d->steal = total >= w.total + 20 ? (double)(steal - w.steal) / (double)(total - w.total) : -1;
    if (w.slower == 0) {  /* not gathered: this rank's own core */
        w.slower = core_slower();
        w.slower_rank = -1;
    }
    d->core_slower = w.slower;
    d->pair_line_ns = w.line;
    d->dropped = w.taken >= 0 ? w.dropped : -1;
#ifdef HPC_SMPI
    /* SimGrid SMPI (smpicc's mpi.h): the ranks are contexts of one simulator process and time
     * is simulated, so the host's preemptions and steal time do not reach the measurement. */
    return NULL;
#endif
    if (d->steal > HPC_DISTURB_STEAL) {
        snprintf(why, sizeof why, "the hypervisor stole %.0f%% of the CPU time", 100 * d->steal);
        return why;
    }
    if (too_preempted(d, n, why, sizeof why))
        return why;
    if (w.line > HPC_DISTURB_MOVED * w.line_best) {
        snprintf(why, sizeof why, "the pair's cache line took %.1fx longer to go round than at "
                 "its fastest in this launch (a core moved farther away)", w.line / w.line_best);
        return why;
    }
    if (d->core_slower > HPC_DISTURB_SLOWER) {
        char who[32] = "its";
        if (w.slower_rank >= 0)
            snprintf(who, sizeof who, "rank %d's", w.slower_rank);
        snprintf(why, sizeof why, "%s core ran %.2fx slower than its fastest in this launch "
                 "(a lowered clock, or another guest on its core)", who, d->core_slower);
        return why;
    }
    return NULL;
}

void hpc_disturb_write(hpc_json *j, int n)
{
    hpc_disturbance d;
    const char *why = hpc_disturb_judge(&d, n);
    if (why)
        hpc_json_str(j, "disturbed", why);
    else
        hpc_json_bool(j, "disturbed", 0);
    hpc_json_object(j, "quiet");
    hpc_json_num(j, "seconds", d.seconds);
    hpc_json_int(j, "preemptions", d.preemptions);
    if (d.steal >= 0)
        hpc_json_num(j, "steal", d.steal);
    hpc_json_num(j, "core_slower", d.core_slower);
    if (d.pair_line_ns > 0)
        hpc_json_num(j, "pair_line_ns", d.pair_line_ns);
    hpc_json_close(j);
    if (d.dropped >= 0)  /* preempted samples set aside: the stats are over the others */
        hpc_json_int(j, "dropped", d.dropped);
}
