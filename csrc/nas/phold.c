/* phold.c - PHOLD, fine-grain parallel discrete-event simulation: like PS,
 * the network simulator of the SP2 study, a code whose many short messages
 * expose the latency of the machine rather than its bandwidth.
 *
 * Model (lib/phold_model.h): --lps logical processes in blocks over the
 * ranks, --population events each at the start; every event schedules one
 * new event, at a uniformly random LP with probability --remote (else at
 * its own LP), after --lookahead plus an exponential delay of mean --mean;
 * the run ends at simulated time --end. Random numbers are a hash of
 * (seed, LP, that LP's event number), ties are broken by (time, destination
 * LP, source LP, source event number): the result does not depend on the
 * number of ranks.
 *
 * Synchronisation (lib/phold_sync.h), conservative, --sync: yawns (windows
 * of one lookahead after a global minimum, MPI_Allreduce) and null
 * (Chandy-Misra-Bryant null messages).
 *
 * Points: every (sync, lookahead, remote) of the lists. Before measuring a
 * point, rank 0 runs the model sequentially (untimed; the other ranks wait
 * in a sleeping barrier); every timed sample's committed events and
 * checksum of the final LP states must equal that run's, else an error
 * record and exit 1.
 *
 * Metrics: event_rate (committed events per second of the slowest rank; per
 * rank too), messages_per_event (events sent to other ranks plus sync
 * messages, over committed events), sync_share (share of the ranks' time
 * spent waiting in synchronisation; per-rank phases process/send/sync).
 */
#include "harness.h"
#include "lib/phold_model.h"
#include "lib/phold_sync.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "lps", .type = HPC_SIZE, .def = "1024", .min = 1, .max = 1e10,
     .help = "logical processes (LPs), in blocks over the ranks (at least one per rank)"},
    {.name = "population", .type = HPC_SIZE, .def = "4", .min = 1, .max = 1e6,
     .help = "events per LP at the start"},
    {.name = "end", .type = HPC_DOUBLE, .def = "50", .min = 0, .max = 1e12,
     .help = "simulated end time (events at or after it are not processed)"},
    {.name = "mean", .type = HPC_DOUBLE, .def = "1", .min = 0, .max = 1e12,
     .help = "mean of the exponential part of an event's delay"},
    {.name = "lookahead", .type = HPC_STRING, .def = "0.1,1",
     .help = "fixed part of every delay, > 0, comma list (one point each)"},
    {.name = "remote", .type = HPC_STRING, .def = "0.1,0.5,0.9",
     .help = "share of events sent to a uniformly random LP (else to their own LP), in "
             "[0, 1], comma list"},
    {.name = "sync", .type = HPC_CHOICES, .def = "yawns,null", .choices = "yawns|null",
     .help = "conservative synchronisation: yawns windows (allreduce) or null messages"},
    {.name = "seed", .type = HPC_SIZE, .def = "12345", .min = 0, .max = 4e18,
     .help = "random key: the same seed, the same events"},
    {0}};

static const char *const SYNC_NAMES[] = {"yawns", "null"};
enum { MAX_VALUES = 64 };
static const double MAX_EVENTS = 1e11;  /* a bound on a run's events: a typo is not a week */

/* A comma list of numbers in [lo, hi] (lo itself excluded when open); the count. */
static int parse_list(const char *opt, double *out, double lo, double hi, int open)
{
    int n = hpc_opt_numbers(opt, out, MAX_VALUES);
    for (int k = 0; k < n; k++)
        hpc_usage_check(out[k] < lo || out[k] > hi || (open && out[k] == lo), "option --%s: %g "
                        "is outside %s%g, %g]", opt, out[k], open ? "(" : "[", lo, hi);
    return n;
}

typedef struct {
    phold_model base;  /* lookahead and remote: per point */
    double lookahead[MAX_VALUES], remote[MAX_VALUES];
    int nla, nremote, nsync;
    const long long *syncs;
} config;

static void parse(config *c)
{
    memset(c, 0, sizeof *c);
    phold_model *m = &c->base;
    m->lps = hpc_opt_int("lps");
    m->population = hpc_opt_int("population");
    m->end = hpc_opt_double("end");
    m->mean = hpc_opt_double("mean");
    m->seed = (uint64_t)hpc_opt_int("seed");
    hpc_usage_check(!(m->end > 0), "option --end: the end time must be positive");
    c->nla = parse_list("lookahead", c->lookahead, 0, 1e12, 1);
    c->nremote = parse_list("remote", c->remote, 0, 1, 0);
    c->nsync = hpc_opt_list("sync", &c->syncs);
    hpc_usage_check(m->lps < hpc_nranks, "phold: %lld LPs for %d ranks: every rank needs one",
                    (long long)m->lps, hpc_nranks);
    for (int k = 0; k < c->nla; k++) {
        /* each LP processes about one event per (mean + lookahead) of simulated time */
        double events = (double)m->lps * (double)m->population *
                        (1 + m->end / (m->mean + c->lookahead[k]));
        hpc_usage_check(events > MAX_EVENTS, "phold: about %.3g events with lookahead %g: "
                        "more than %.0e", events, c->lookahead[k], MAX_EVENTS);
    }
}

typedef struct {
    phold_model m;
    phold_sync sync;
} point;

/* Per kept sample, summed over the ranks (index) and this rank's own totals. */
enum { S_EVENTS, S_REMOTE, S_SYNCMSG, S_BATCHES, S_WINDOWS, S_SYNC, S_COMM, S_WALL, S_N };

typedef struct {
    double *rate, *msgs, *share;  /* per kept sample */
    double sums[S_N];             /* over the kept samples, all ranks */
    int n, converged;
    double wall;                  /* this rank's time over the kept samples */
    phold_counts kept;            /* this rank's counts over the kept samples */
    hpc_phases ph;
    int64_t events, ref_events;
    uint64_t checksum, ref_checksum;
    double ref_seconds;
} measured;

/* Rank 0 runs the whole model on one queue while the others sleep in a barrier. */
static void reference(const point *pt, measured *r)
{
    if (hpc_rank == 0) {
        double t0 = hpc_now();
        phold_sequential(&pt->m, &r->ref_events, &r->ref_checksum);
        r->ref_seconds = hpc_now() - t0;
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
}

/* The sample's events and checksum against the sequential run (rank 0 judges). */
static void verify(const phold_part *part, measured *r)
{
    int64_t ev = part->committed, events;
    uint64_t cs = phold_part_checksum(part), checksum;
    MPI_Reduce(&ev, &events, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cs, &checksum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (hpc_rank != 0)
        return;
    if (hpc_inject == HPC_INJECT_CORRUPT)  /* one LP's state off by a bit: the check must fail */
        checksum ^= 1;
    if (events != r->ref_events || checksum != r->ref_checksum)
        hpc_fail("phold: %lld events committed, checksum %016llx; the sequential run: %lld, "
                 "%016llx", (long long)events, (unsigned long long)checksum,
                 (long long)r->ref_events, (unsigned long long)r->ref_checksum);
    r->events = events;
    r->checksum = checksum;
}

/* One timed run from the initial events; this rank's wall time. */
static double run_once(const point *pt, measured *r, phold_counts *c)
{
    phold_part part;
    int64_t first = phold_first_lp(hpc_rank, hpc_nranks, pt->m.lps);
    phold_part_init(&part, &pt->m, first,
                    phold_first_lp(hpc_rank + 1, hpc_nranks, pt->m.lps) - first);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = hpc_now();
    phold_run(pt->sync, &part, &r->ph, c);
    double wall = hpc_now() - t0;
    verify(&part, r);
    phold_part_free(&part);
    return wall;
}

static void add_counts(phold_counts *to, const phold_counts *c)
{
    to->committed += c->committed;
    to->remote_events += c->remote_events;
    to->batches += c->batches;
    to->sync_msgs += c->sync_msgs;
    to->windows += c->windows;
}

/* A kept sample: its totals over the ranks and the three metrics. */
static void keep(measured *r, const phold_counts *c, double sync_s, double comm_s, double wall,
                 double tmax)
{
    double v[S_N] = {(double)c->committed, (double)c->remote_events, (double)c->sync_msgs,
                     (double)c->batches, (double)c->windows, sync_s, comm_s, wall};
    MPI_Allreduce(MPI_IN_PLACE, v, S_N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < S_N; k++)
        r->sums[k] += v[k];
    int i = r->n++;
    r->rate[i] = v[S_EVENTS] / tmax;
    r->msgs[i] = v[S_EVENTS] > 0 ? (v[S_REMOTE] + v[S_SYNCMSG]) / v[S_EVENTS] : 0;
    r->share[i] = v[S_WALL] > 0 ? v[S_SYNC] / v[S_WALL] : 0;
    add_counts(&r->kept, c);
}

static double phase_time(const hpc_phases *ph, int id) { return ph->total[id]; }

static void measure(const point *pt, measured *r)
{
    memset(r, 0, sizeof *r);
    hpc_phases_init(&r->ph, phold_phase_defs, PHOLD_NPHASES);
    reference(pt, r);
    size_t room = (size_t)hpc_reps.max_reps * sizeof(double);
    r->rate = malloc(room);
    r->msgs = malloc(room);
    r->share = malloc(room);
    if (!r->rate || !r->msgs || !r->share)
        hpc_fail("phold: no memory for %d samples", hpc_reps.max_reps);
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        phold_counts c = {0};
        double sync0 = phase_time(&r->ph, PHOLD_PH_SYNC);
        double comm0 = sync0 + phase_time(&r->ph, PHOLD_PH_SEND);
        double wall = run_once(pt, r, &c), tmax;
        double sync_s = phase_time(&r->ph, PHOLD_PH_SYNC) - sync0;
        double comm_s = phase_time(&r->ph, PHOLD_PH_SYNC) + phase_time(&r->ph, PHOLD_PH_SEND)
                        - comm0;
        if (hpc_phases_sample(&r->ph, &sm, wall, &r->wall, &tmax))
            keep(r, &c, sync_s, comm_s, wall, tmax);
    }
    r->converged = sm.converged;
    hpc_sampler_free(&sm);
}

static void params(hpc_json *j, const point *pt)
{
    hpc_json_str(j, "sync", SYNC_NAMES[pt->sync]);
    hpc_json_exact(j, "lookahead", pt->m.lookahead);
    hpc_json_exact(j, "remote", pt->m.remote);
    hpc_json_int(j, "lps", pt->m.lps);
    hpc_json_int(j, "population", pt->m.population);
    hpc_json_exact(j, "end_time", pt->m.end);
    hpc_json_exact(j, "mean_delay", pt->m.mean);
    hpc_json_int(j, "ranks", hpc_nranks);
    hpc_json_int(j, "seed", (long long)pt->m.seed);
}

static void hex(hpc_json *j, const char *key, uint64_t v)
{
    char s[20];
    snprintf(s, sizeof s, "%016llx", (unsigned long long)v);
    hpc_json_str(j, key, s);
}

/* The verification values: the parallel run's and the sequential reference's. */
static void verification_json(hpc_json *j, const measured *r)
{
    hpc_json_int(j, "events_committed", r->events);
    hex(j, "checksum", r->checksum);
    hpc_json_int(j, "reference_events", r->ref_events);
    hex(j, "reference_checksum", r->ref_checksum);
    hpc_json_bool(j, "verified", r->events == r->ref_events && r->checksum == r->ref_checksum);
    hpc_json_num(j, "reference_seconds", r->ref_seconds);
    hpc_json_num(j, "reference_event_rate",
                 r->ref_seconds > 0 ? (double)r->ref_events / r->ref_seconds : 0);
}

/* Counts per committed event, over every kept sample and rank. */
static void counts_json(hpc_json *j, const point *pt, const measured *r)
{
    double ev = r->sums[S_EVENTS] > 0 ? r->sums[S_EVENTS] : 1, n = r->n > 0 ? r->n : 1;
    hpc_json_num(j, "remote_events_per_event", r->sums[S_REMOTE] / ev);
    hpc_json_num(j, "sync_messages_per_event", r->sums[S_SYNCMSG] / ev);
    hpc_json_num(j, "batches_per_event", r->sums[S_BATCHES] / ev);
    hpc_json_num(j, "windows_per_run", r->sums[S_WINDOWS] / n / hpc_nranks);
    hpc_json_str(j, "sync_messages", pt->sync == PHOLD_YAWNS
                 ? "one per rank per window (its share of the allreduce)"
                 : "null messages (batches without events)");
}

static void emit(const point *pt, measured *r)
{
    static const char *const metric[] = {"event_rate", "messages_per_event", "sync_share"};
    static const char *const unit[] = {"events/s", "messages", "fraction"};
    static const char *const better[] = {"higher", "lower", "lower"};
    double *data[] = {r->rate, r->msgs, r->share};
    double runs = r->n > 0 ? r->n : 1;
    for (int k = 0; k < 3; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], r->n, &st);
        hpc_json j;
        hpc_result_begin(&j, metric[k], unit[k], "median", better[k]);
        params(&j, pt);
        hpc_result_stats(&j, &st, r->converged);
        verification_json(&j, r);
        if (k == 0)  /* collective */
            hpc_json_per_rank(&j, "event_rate_per_rank",
                              r->wall > 0 ? (double)r->kept.committed / r->wall : 0,
                              MPI_COMM_WORLD);
        if (k == 1)
            counts_json(&j, pt, r);
        if (k == 2) {  /* microseconds per run (collective) */
            double wall = r->sums[S_WALL] > 0 ? r->sums[S_WALL] : 1;
            hpc_json_num(&j, "comm_share", r->sums[S_COMM] / wall);
            hpc_phases_json(&j, &r->ph, 1e6 / runs, MPI_COMM_WORLD);
            hpc_json_per_rank(&j, "wall_per_rank", r->wall / runs * 1e6, MPI_COMM_WORLD);
            hpc_json_per_rank(&j, "events_per_rank", (double)r->kept.committed / runs,
                              MPI_COMM_WORLD);
        }
        hpc_json_emit(&j);
    }
    free(r->rate);
    free(r->msgs);
    free(r->share);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "phold",
             "PHOLD parallel discrete-event simulation: committed events per second, "
             "messages per event, time in synchronisation.", options, MPI_THREAD_SINGLE);
    config c;
    parse(&c);
    hpc_begin(1, NULL);
    hpc_inject_first_point();
    for (int s = 0; s < c.nsync; s++)
        for (int l = 0; l < c.nla; l++)
            for (int k = 0; k < c.nremote; k++) {
                point pt = {c.base, (phold_sync)c.syncs[s]};
                pt.m.lookahead = c.lookahead[l];
                pt.m.remote = c.remote[k];
                measured r;
                measure(&pt, &r);
                emit(&pt, &r);
            }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
