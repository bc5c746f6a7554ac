/* runwait.c - run-queue wait of this process's busy threads (runwait.h). */
#include "runwait.h"
#include "timer.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { MAX_TASKS = 256 };

static struct task {
    int tid, fd;
    unsigned long long run, wait;  /* ns, at the previous call */
} tasks[MAX_TASKS];
static int ntasks, unreadable;
static double t_prev = -1, total;

/* A thread's run and wait times [ns] now; 0 when it has gone. */
static int read_task(const struct task *t, unsigned long long *run, unsigned long long *wait)
{
    char buf[128];
    ssize_t got = pread(t->fd, buf, sizeof buf - 1, 0);
    if (got <= 0)
        return 0;
    buf[got] = 0;
    return sscanf(buf, "%llu %llu", run, wait) == 2;
}

/* Open the schedstat of threads started since the last look (an OpenMP team, MPI's helpers). */
static void find_tasks(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) {
        unreadable = 1;
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) && ntasks < MAX_TASKS) {
        int tid = atoi(e->d_name), known = tid <= 0;
        for (int i = 0; i < ntasks && !known; i++)
            known = tasks[i].tid == tid;
        if (known)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct task *t = &tasks[ntasks];
        *t = (struct task){tid, fd, 0, 0};
        if (read_task(t, &t->run, &t->wait))
            ntasks++;
        else
            close(fd);
    }
    closedir(d);
}

double hpc_runwait_total(void)
{
#ifdef HPC_SMPI
    /* SimGrid SMPI: the ranks are contexts of one host thread and time is simulated, so the
     * host's run queue does not reach the measurement; each rank's look held a descriptor
     * (1,024 of them at 1,024 ranks) for nothing. */
    return -1;
#endif
    if (unreadable)
        return -1;
    double now = hpc_now(), span = now - t_prev;
    int first = t_prev < 0;
    find_tasks();
    for (int i = 0; i < ntasks; i++) {
        unsigned long long run, wait;
        if (!read_task(&tasks[i], &run, &wait))
            continue;
        /* busy: running or ready to run (not asleep) at least half of the time */
        if (!first && (double)(run - tasks[i].run + wait - tasks[i].wait) * 1e-9 >= 0.5 * span)
            total += (double)(wait - tasks[i].wait) * 1e-9;
        tasks[i].run = run;
        tasks[i].wait = wait;
    }
    t_prev = now;
    return unreadable ? -1 : total;
}
