/* ps.c - PS, the SP2 study's parallel network simulator: a 2-D torus of
 * routers (--routers, 32x32 in the study) with cut-through flow control,
 * simulated for --cycles cycles (40,000 in the study) under an offered load
 * given as a percentage of the bisection's theoretical bandwidth (--loads,
 * 5% to 90% in the study). The processes form a logical 2-D torus (the most
 * nearly square PX x PY with PX | X and PY | Y), each holding a block of
 * routers and talking to its four neighbours only: one short message per
 * packet crossing to a neighbour in a cycle, or a null message
 * (lib/ps_net.h). The model shares PHOLD's counter-based random numbers
 * (lib/phold_model.h).
 *
 * Check: before a load's samples, rank 0 simulates the whole network alone
 * (untimed; the others wait in a sleeping barrier); every timed parallel run
 * must inject, deliver, delay and route exactly the same packets (the counts,
 * the latency sum and a checksum of every delivery), else an error record
 * and exit 1.
 *
 * Metrics per load: run_time (the simulation's execution time, slowest rank)
 * and messages (MPI messages sent by all processes in a run); with them the
 * packets delivered, the accepted load and the mean latency in cycles.
 */
#include "harness.h"
#include "lib/ps_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "routers", .type = HPC_GRIDS, .def = "32x32", .what = "XxY",
     .help = "the simulated torus: X x Y routers"},
    {.name = "loads", .type = HPC_STRING, .def = "5,10,20,30,40,50,60,70,80,90",
     .help = "offered loads, % of the bisection's theoretical bandwidth, in (0, 100], comma "
             "list (one point each)"},
    {.name = "cycles", .type = HPC_SIZE, .def = "40000", .min = 1, .max = 2e9,
     .help = "simulated cycles"},
    {.name = "flits", .type = HPC_INT, .def = "4", .min = 1, .max = 4096,
     .help = "flits per packet (a link carries one flit a cycle)"},
    {.name = "seed", .type = HPC_SIZE, .def = "12345", .min = 0, .max = 4e18,
     .help = "random key: the same seed, the same packets"},
    {0}};

enum { MAX_LOADS = 64 };
static const double MAX_WORK = 1e11;  /* router-cycles a point: a typo is not a week */

typedef struct {
    ps_model m;
    double loads[MAX_LOADS];
    int nloads, px, py;
} config;

/* The most nearly square px x py = nranks with px | X and py | Y (px <= py on a tie). */
static int process_grid(const ps_model *m, int nranks, int *px, int *py)
{
    int best = 0;
    for (int a = 1; a <= nranks; a++) {
        int b = nranks / a;
        if (a * b != nranks || m->X % a || m->Y % b)
            continue;
        int spread = a > b ? a - b : b - a;
        if (!best || spread < abs(*px - *py)) {
            *px = a;
            *py = b;
            best = 1;
        }
    }
    return best;
}

static void parse(config *c)
{
    memset(c, 0, sizeof *c);
    const hpc_grid *g;
    int ng = hpc_opt_grids("routers", &g);
    hpc_usage_check(ng != 1, "option --routers: give one XxY");
    c->m.X = g[0].x;
    c->m.Y = g[0].y;
    c->m.cycles = hpc_opt_int("cycles");
    c->m.flits = (int)hpc_opt_int("flits");
    c->m.seed = (uint64_t)hpc_opt_int("seed");
    double routers = (double)c->m.X * c->m.Y;  /* a router is an int32 on the wire */
    hpc_usage_check(routers < 2 || routers > 0x1p30, "option --routers: %dx%d: from 2 to 2^30 "
                    "routers", c->m.X, c->m.Y);
    hpc_usage_check(routers * (double)c->m.cycles > MAX_WORK,
                    "ps: %dx%d routers x %lld cycles: more than %.0e router-cycles", c->m.X,
                    c->m.Y, (long long)c->m.cycles, MAX_WORK);
    c->nloads = hpc_opt_numbers("loads", c->loads, MAX_LOADS);
    hpc_usage_check(c->nloads < 1, "option --loads: give at least one load");
    for (int k = 0; k < c->nloads; k++) {
        hpc_usage_check(!(c->loads[k] > 0 && c->loads[k] <= 100), "option --loads: %g is "
                        "outside (0, 100]", c->loads[k]);
        hpc_usage_check(c->loads[k] / 100 * ps_saturation(&c->m) / c->m.flits > 1,
                        "ps: a %g%% load of %dx%d routers needs more than one %d-flit packet "
                        "a router a cycle", c->loads[k], c->m.X, c->m.Y, c->m.flits);
    }
    hpc_usage_check(!process_grid(&c->m, hpc_nranks, &c->px, &c->py),
                    "ps: %d processes do not tile %dx%d routers as a PX x PY torus (PX | %d, "
                    "PY | %d)", hpc_nranks, c->m.X, c->m.Y, c->m.X, c->m.Y);
}

typedef struct {
    double *time, *msgs;  /* per kept sample */
    int n, converged;
    ps_counts ref, got;
    double ref_seconds;
} measured;

/* The run's totals over the processes against the sequential run's (rank 0 judges). */
static void verify(const ps_part *part, measured *r)
{
    uint64_t v[PS_NCOUNT];
    MPI_Reduce(part->c.v, v, PS_NCOUNT, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (hpc_rank != 0)
        return;
    if (hpc_inject == HPC_INJECT_CORRUPT)  /* one delivery's hash off by a bit */
        v[PS_CHECKSUM] ^= 1;
    if (memcmp(v, r->ref.v, sizeof v) != 0)
        hpc_fail("ps: %llu packets delivered, latency sum %llu, checksum %016llx; the "
                 "sequential run: %llu, %llu, %016llx", (unsigned long long)v[PS_DELIVERED],
                 (unsigned long long)v[PS_LATENCY], (unsigned long long)v[PS_CHECKSUM],
                 (unsigned long long)r->ref.v[PS_DELIVERED],
                 (unsigned long long)r->ref.v[PS_LATENCY],
                 (unsigned long long)r->ref.v[PS_CHECKSUM]);
    memcpy(r->got.v, v, sizeof v);
}

/* One timed run: this rank's wall time; the messages of every rank into *msgs. */
static double run_once(const config *c, const ps_model *m, measured *r, double *msgs)
{
    ps_part part;
    ps_part_init(&part, m, c->px, c->py, hpc_rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = hpc_now();
    ps_run(&part);
    double wall = hpc_now() - t0;
    verify(&part, r);
    double sent = (double)part.c.messages;
    MPI_Allreduce(&sent, msgs, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ps_part_free(&part);
    return wall;
}

static void measure(const config *c, const ps_model *m, measured *r)
{
    memset(r, 0, sizeof *r);
    if (hpc_rank == 0) {
        double t0 = hpc_now();
        ps_sequential(m, &r->ref);
        r->ref_seconds = hpc_now() - t0;
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    r->time = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    r->msgs = malloc((size_t)hpc_reps.max_reps * sizeof(double));
    if (!r->time || !r->msgs)
        hpc_fail("ps: no memory for %d samples", hpc_reps.max_reps);
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        double msgs, wall = run_once(c, m, r, &msgs), tmax;
        MPI_Allreduce(&wall, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int kept = sm.n;
        hpc_sampler_add(&sm, tmax);
        if (sm.n > kept)  /* not a warm-up sample */
            r->msgs[kept] = msgs;
    }
    r->n = sm.n;
    memcpy(r->time, sm.samples, (size_t)sm.n * sizeof(double));
    r->converged = sm.converged;
    hpc_sampler_free(&sm);
}

static void hex(hpc_json *j, const char *key, uint64_t v)
{
    char s[20];
    snprintf(s, sizeof s, "%016llx", (unsigned long long)v);
    hpc_json_str(j, key, s);
}

static void params(hpc_json *j, const config *c, const ps_model *m, double load)
{
    char text[64];
    hpc_json_exact(j, "load", load);
    snprintf(text, sizeof text, "%dx%d", m->X, m->Y);
    hpc_json_str(j, "routers", text);
    snprintf(text, sizeof text, "%dx%d", c->px, c->py);
    hpc_json_str(j, "procs", text);
    hpc_json_int(j, "cycles", m->cycles);
    hpc_json_int(j, "flits", m->flits);
    hpc_json_int(j, "ranks", hpc_nranks);
    hpc_json_int(j, "seed", (long long)m->seed);
}

/* What the network did (the sequential run's, equal to the parallel runs') and the check. */
static void network_json(hpc_json *j, const ps_model *m, const measured *r)
{
    const uint64_t *v = r->ref.v;
    double rc = (double)m->X * m->Y * (double)m->cycles;
    hpc_json_exact(j, "inject_probability", m->inject);
    hpc_json_num(j, "offered_flits_per_router_cycle", m->inject * m->flits);
    hpc_json_num(j, "accepted_flits_per_router_cycle", (double)v[PS_DELIVERED] * m->flits / rc);
    hpc_json_num(j, "saturation_flits_per_router_cycle", ps_saturation(m));
    hpc_json_int(j, "packets_injected", (long long)v[PS_INJECTED]);
    hpc_json_int(j, "packets_delivered", (long long)v[PS_DELIVERED]);
    hpc_json_int(j, "packets_in_network_at_end", (long long)v[PS_QUEUED]);
    hpc_json_int(j, "link_traversals", (long long)v[PS_HOPS]);
    hpc_json_num(j, "mean_latency_cycles",
                 v[PS_DELIVERED] ? (double)v[PS_LATENCY] / (double)v[PS_DELIVERED] : 0);
    hex(j, "checksum", r->got.v[PS_CHECKSUM]);
    hex(j, "reference_checksum", v[PS_CHECKSUM]);
    hpc_json_bool(j, "verified", memcmp(r->got.v, v, sizeof r->got.v) == 0);
    hpc_json_num(j, "reference_seconds", r->ref_seconds);
}

static void emit(const config *c, const ps_model *m, double load, measured *r)
{
    static const char *const metric[] = {"run_time", "messages"};
    static const char *const unit[] = {"s", "messages"};
    double *data[] = {r->time, r->msgs};
    for (int k = 0; k < 2; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], r->n, &st);
        hpc_json j;
        hpc_result_begin(&j, metric[k], unit[k], "median", "lower");
        params(&j, c, m, load);
        hpc_result_stats(&j, &st, r->converged);
        network_json(&j, m, r);
        if (k == 1)
            hpc_json_num(&j, "messages_per_rank_per_cycle",
                         st.median / hpc_nranks / (double)m->cycles);
        hpc_json_emit(&j);
    }
    free(r->time);
    free(r->msgs);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "ps",
             "PS network simulator: a torus of routers with cut-through flow control under "
             "load; execution time and messages vs offered load.", options, MPI_THREAD_SINGLE);
    config c;
    parse(&c);
    hpc_begin(1, NULL);
    hpc_inject_first_point();
    for (int k = 0; k < c.nloads; k++) {
        ps_model m = c.m;
        m.inject = c.loads[k] / 100 * ps_saturation(&m) / m.flits;
        measured r;
        measure(&c, &m, &r);
        emit(&c, &m, c.loads[k], &r);
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
