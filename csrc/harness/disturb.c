/* disturb.c - disturbance of a measured point: preemptions and steal time. */
#include "disturb.h"
#include "timer.h"

#include <stdio.h>
#include <sys/resource.h>

static struct {
    double t;
    long nivcsw;            /* this process's, at the start */
    long gathered;          /* all ranks' preemptions in the window, -1: not gathered */
    unsigned long long steal, total;
} w = {.gathered = -1};

static long involuntary_switches(void)
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
    w.nivcsw = involuntary_switches();
    w.gathered = -1;
    cpu_jiffies(&w.steal, &w.total);
}

void hpc_disturb_gather(MPI_Comm comm)
{
    long mine = involuntary_switches() - w.nivcsw, all = 0;
    MPI_Reduce(&mine, &all, 1, MPI_LONG, MPI_SUM, 0, comm);
    w.gathered = all;
}

const char *hpc_disturb_judge(hpc_disturbance *d, int n)
{
    static char why[128];
    unsigned long long steal, total;
    cpu_jiffies(&steal, &total);
    d->seconds = hpc_now() - w.t;
    d->preemptions = w.gathered >= 0 ? w.gathered : involuntary_switches() - w.nivcsw;
    /* 10 ms jiffies: below 20 of them (all CPUs together) the share means nothing. */
    d->steal = total >= w.total + 20 ? (double)(steal - w.steal) / (double)(total - w.total) : -1;
#ifdef HPC_SMPI
    /* SimGrid SMPI (smpicc's mpi.h): the ranks are contexts of one simulator process and time
     * is simulated, so the host's preemptions and steal time do not reach the measurement. */
    return NULL;
#endif
    if (d->steal > HPC_DISTURB_STEAL) {
        snprintf(why, sizeof why, "the hypervisor stole %.0f%% of the CPU time", 100 * d->steal);
        return why;
    }
    if (d->preemptions >= HPC_DISTURB_MIN_PREEMPT &&
        d->preemptions * HPC_DISTURB_SAMPLES_PER >= n) {
        snprintf(why, sizeof why, "other processes preempted the ranks %ld times in %d samples",
                 d->preemptions, n);
        return why;
    }
    return NULL;
}
