/* runwait.h - how long this process's busy threads were kept off a CPU while ready to run.
 *
 * A preemption counted by getrusage may cost a sample nothing (a 10 us wake-up of the driver in
 * a 100 ms STREAM sample) or everything (a 5 us wait in a 50 us ping-pong batch). The kernel
 * says which: each thread's run-queue wait in /proc/self/task/TID/schedstat (ns, second field).
 * Threads that slept most of the interval (MPI's progress and PMIx threads) are not counted:
 * their wait is a wake-up, not work held back. Read outside every timed region. */
#ifndef HPC_RUNWAIT_H
#define HPC_RUNWAIT_H

/* Seconds the busy threads waited on a run queue, summed since the first call (which returns
 * 0): between two calls, a thread counts when it ran or waited to run (was not asleep) at
 * least half of the time between them.
 * -1 where /proc/self/task cannot be read. */
double hpc_runwait_total(void);

#endif
