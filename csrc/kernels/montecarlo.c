/* montecarlo.c - an MCNP-like master-worker particle transport proxy: the
 * code the EV7 study judged the machine with (time per particle history
 * against the number of workers, a master collecting every cycle).
 *
 * Physics (lib/mc_transport.h): one-speed transport through a replicated
 * geometry, a slab stack (1-D in x; a normally incident or isotropic source
 * at x = 0; particles leave through either face) or nested spheres (a point
 * source at the centre); every region has its own sigma_t and scattering
 * ratio c; analog absorption and isotropic scattering. Tallies: transmitted
 * (spheres: escaped), reflected (spheres: always 0), absorbed per region,
 * collisions, and the track length per region (MCNP's F4) with its sum of
 * squares, all integers (fixed point for the tracks).
 *
 * Parallel scheme (lib/mc_farm.h): rank 0 is the master, ranks 1..W
 * workers. Each cycle the master hands out ranges of --chunk histories on
 * request (dynamic: a worker that finishes asks for more, sending back the
 * tally of its range), adds the tallies up, and ends the cycle with a
 * broadcast of the combined tally. One rank: the master tracks itself.
 * --master-sleep: the master probes and sleeps instead of blocking in
 * MPI_Recv (which polls), leaving the CPU to workers that share its core.
 *
 * Reproducibility: a history's random numbers are Philox4x32-10 of (seed,
 * global history index) (lib/mc_rng.h), and tallies are integer sums, so the
 * tallies are the same bits for any number of workers, any chunk size and
 * any arrival order.
 *
 * A sample: one whole run of all --cycles after a barrier, the slowest
 * rank's time; a cycle alone of few particles is too short to time, and the
 * per-cycle rendezvous is part of what is measured. Every sample tracks the
 * same histories, so every sample's tallies must equal the first's.
 *
 * Checks (rank 0, outside the timing, after the first sample): particle
 * balance transmitted + reflected + absorbed = histories exactly; every
 * estimate finite; without scattering (every c = 0) and with a normal or
 * central source, the transmission against exp(-sum sigma_t d) and each
 * region's track against its exact mean within 4 standard errors; with
 * --expect-transmission, the transmission against that reference within 4
 * combined standard errors. A failed check: error record, exit 1.
 *
 * Metrics: history_time (ns per history: the run's wall time over all its
 * histories, not per worker), cycle_time (us per cycle; per-rank phases and
 * wall time per cycle), master_busy (fraction of rank 0's wall time spent
 * tracking, handing out and combining rather than waiting).
 */
#include "harness.h"
#include "lib/mc_farm.h"
#include "lib/mc_rng.h"
#include "lib/mc_transport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "cycles", .type = HPC_INT, .def = "10", .min = 1, .max = 1e9,
     .help = "cycles per run (the master combines the tallies at the end of each)"},
    {.name = "particles", .type = HPC_SIZE, .def = "10000", .min = 1, .max = 1e12,
     .help = "particle histories per cycle"},
    {.name = "chunk", .type = HPC_SIZE, .def = "100", .min = 1, .max = 1e12,
     .help = "histories per work message (at least one chunk per worker per cycle)"},
    {.name = "geometry", .type = HPC_CHOICE, .def = "slab", .choices = "slab|spheres",
     .help = "slab stack (1-D in x) or nested spheres with a point source at the centre"},
    {.name = "source", .type = HPC_CHOICE, .def = "normal", .choices = "normal|isotropic",
     .help = "slab source at x = 0: normally incident, or isotropic over the inward half"},
    {.name = "thickness", .type = HPC_STRING, .def = "2",
     .help = "slab: layer thicknesses in cm, comma list, one per region from x = 0"},
    {.name = "radii", .type = HPC_STRING, .def = "1,2",
     .help = "spheres: increasing outer radii in cm, comma list, one per region"},
    {.name = "sigma-t", .type = HPC_STRING, .def = "1",
     .help = "total cross section per region in 1/cm, >= 0 (one value: every region)"},
    {.name = "scatter", .type = HPC_STRING, .def = "0.5",
     .help = "scattering ratio c = sigma_s / sigma_t per region, in [0, 1] (one value: every "
             "region)"},
    {.name = "master-sleep", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 1e6,
     .help = "us the master sleeps between probes for requests (0: it blocks in MPI_Recv, "
             "which polls in most MPI libraries and takes a shared core from a worker)"},
    {.name = "seed", .type = HPC_SIZE, .def = "12345", .min = 0, .max = 4e18,
     .help = "Philox key: the same seed, the same histories"},
    {.name = "expect-transmission", .type = HPC_DOUBLE, .def = "-1", .min = -1, .max = 1,
     .help = "reference transmission to check against (-1: none)"},
    {.name = "expect-se", .type = HPC_DOUBLE, .def = "0", .min = 0, .max = 1,
     .help = "standard error of --expect-transmission"},
    {0}};

static const char *const SOURCE_NAMES[] = {"normal", "isotropic"};
static const double NSIGMA = 4;  /* a correct code fails a check 6e-5 of the time */

/* A comma list of finite numbers into out; the count, or a usage error. */
/* Per-region material values: one per region, or one for every region. */
static void region_values(const char *opt, int nreg, double lo, double hi, double *out)
{
    double v[MC_MAX_REGIONS];
    int n = hpc_opt_numbers(opt, v, MC_MAX_REGIONS);
    hpc_usage_check(n != 1 && n != nreg, "option --%s: %d values for %d regions", opt, n, nreg);
    for (int r = 0; r < nreg; r++) {
        out[r] = v[n == 1 ? 0 : r];
        hpc_usage_check(!(out[r] >= lo && out[r] <= hi), "option --%s: %g is outside [%g, %g]",
                        opt, out[r], lo, hi);
    }
}

static void parse_problem(mc_problem *p)
{
    memset(p, 0, sizeof *p);
    p->shape = strcmp(hpc_opt_str("geometry"), "slab") == 0 ? MC_SLAB : MC_SPHERES;
    p->source = strcmp(hpc_opt_str("source"), "normal") == 0 ? MC_NORMAL : MC_ISOTROPIC;
    hpc_usage_check(p->shape == MC_SPHERES && p->source != MC_NORMAL, "option --source: "
                    "spheres have a point source at the centre (slab only)");
    const char *opt = p->shape == MC_SLAB ? "thickness" : "radii";
    double v[MC_MAX_REGIONS];
    p->nreg = hpc_opt_numbers(opt, v, MC_MAX_REGIONS);
    for (int r = 0; r < p->nreg; r++) {
        /* slab: faces are running sums of the thicknesses; spheres: the radii themselves */
        double prev = p->bound[r];
        p->bound[r + 1] = p->shape == MC_SLAB ? prev + v[r] : v[r];
        hpc_usage_check(!(p->bound[r + 1] > prev),
                        p->shape == MC_SLAB ? "option --%s: thickness %g is not positive"
                                            : "option --%s: radius %g is not above the last",
                        opt, v[r]);
    }
    region_values("sigma-t", p->nreg, 0, 1e30, p->sigma_t);
    region_values("scatter", p->nreg, 0, 1, p->scatter);
    p->seed = (uint64_t)hpc_opt_int("seed");
}

typedef struct {
    mc_problem prob;
    int64_t particles, chunk, histories, chunks;  /* histories: all cycles */
    int cycles, workers;
    double expect, expect_se, master_sleep_us;
} config;

static void parse(config *c)
{
    parse_problem(&c->prob);
    c->cycles = (int)hpc_opt_int("cycles");
    c->particles = hpc_opt_int("particles");
    c->chunk = hpc_opt_int("chunk");
    c->workers = hpc_nranks - 1;
    c->chunks = (c->particles + c->chunk - 1) / c->chunk;
    c->expect = hpc_opt_double("expect-transmission");
    c->expect_se = hpc_opt_double("expect-se");
    c->master_sleep_us = hpc_opt_double("master-sleep");
    hpc_usage_check(c->chunks < c->workers, "montecarlo: %lld histories per cycle in chunks of "
                    "%lld give %lld chunk(s), fewer than the %d workers: a worker gets no work",
                    (long long)c->particles, (long long)c->chunk, (long long)c->chunks, c->workers);
    hpc_usage_check((double)c->cycles * (double)c->particles > 4e18,
                    "montecarlo: %d cycles of %lld histories are too many", c->cycles,
                    (long long)c->particles);
    c->histories = (int64_t)c->cycles * c->particles;
    /* one history has no spread to estimate a standard error from */
    hpc_usage_check(c->histories < 2, "montecarlo: one history in all; at least 2 are needed");
}

typedef struct {
    mc_tally tally;
    mc_est trans, refl, track[MC_MAX_REGIONS];
    int analytic;  /* 1: compared with the exact answer */
    double exact_trans, exact_track[MC_MAX_REGIONS], z_trans, z_expect;
} verdict;

/* |est - ref| within NSIGMA se, plus the track's fixed-point rounding. */
static double check_near(double est, double ref, double se, double slack, const char *what)
{
    hpc_check_bound(fabs(est - ref), NSIGMA * se + slack, "montecarlo: %s %.17g differs from "
                    "%.17g by more than %g standard errors (%g)", what, est, ref, NSIGMA, se);
    return se > 0 ? (est - ref) / se : 0;
}

static void verify(const config *c, const mc_tally *t, verdict *v)
{
    memset(v, 0, sizeof *v);
    v->tally = *t;
    if (hpc_inject == HPC_INJECT_CORRUPT)  /* a particle counted twice: the balance must fail */
        v->tally.transmitted++;
    t = &v->tally;
    const mc_problem *p = &c->prob;
    int64_t sum = t->transmitted + t->reflected;
    for (int r = 0; r < p->nreg; r++)
        sum += t->absorbed[r];
    if (t->histories != c->histories || sum != c->histories)
        hpc_fail("montecarlo: particle balance: transmitted %lld + reflected %lld + absorbed "
                 "%lld != %lld source particles (tracked %lld)", (long long)t->transmitted,
                 (long long)t->reflected, (long long)(sum - t->transmitted - t->reflected),
                 (long long)c->histories, (long long)t->histories);
    v->trans = mc_fraction(t->transmitted, c->histories);
    v->refl = mc_fraction(t->reflected, c->histories);
    for (int r = 0; r < p->nreg; r++)
        v->track[r] = mc_track_length(t, r);
    /* mc_est is {mean, se}: the array of estimates is a flat array of doubles */
    hpc_check_finite(&v->trans.mean, 2, "montecarlo: the transmission estimate");
    hpc_check_finite(&v->track[0].mean, 2 * (size_t)p->nreg, "montecarlo: the track tallies");
    v->analytic = mc_analytic(p, &v->exact_trans, v->exact_track);
    if (v->analytic) {
        double e = v->exact_trans, se = sqrt(e * (1 - e) / (double)c->histories);
        v->z_trans = check_near(v->trans.mean, e, se, 0, "the transmission");
        for (int r = 0; r < p->nreg; r++) {
            char what[64];
            snprintf(what, sizeof what, "the mean track in region %d", r);
            check_near(v->track[r].mean, v->exact_track[r], v->track[r].se,
                       ldexp(1, -MC_FIX_BITS), what);
        }
    }
    if (c->expect >= 0) {
        double se = sqrt(v->trans.se * v->trans.se + c->expect_se * c->expect_se);
        v->z_expect = check_near(v->trans.mean, c->expect, se, 0,
                                 "the transmission (--expect-transmission)");
    }
}

typedef struct {
    double *grind, *cycle, *busy;  /* per kept sample: ns/history, us/cycle, fraction */
    int n, converged;
    double wall;                   /* this rank's time over the kept samples */
    int64_t tracked;               /* this rank's histories over the kept samples */
    hpc_phases ph;
    verdict v;
} measured;

/* Rank 0's busy time: everything but waiting for requests and the rendezvous. */
static double busy_time(const hpc_phases *ph)
{
    return ph->total[MC_PH_TRACK] + ph->total[MC_PH_HANDOUT] + ph->total[MC_PH_COMBINE];
}

static void measure(const config *c, measured *m)
{
    memset(m, 0, sizeof *m);
    hpc_phases_init(&m->ph, mc_phase_defs, MC_NPHASES);
    mc_run run = {&c->prob, c->particles, c->chunk, c->cycles, c->master_sleep_us, &m->ph, 0};
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    size_t room = (size_t)hpc_reps.max_reps * sizeof(double);
    m->grind = malloc(room);
    m->cycle = malloc(room);
    m->busy = malloc(room);
    if (!m->grind || !m->cycle || !m->busy)
        hpc_fail("montecarlo: no memory for %d samples", hpc_reps.max_reps);
    int first = 1;
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        mc_tally t;
        int64_t tracked0 = run.tracked;
        double busy0 = busy_time(&m->ph);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        mc_farm_run(&run, &t);
        double wall = hpc_now() - t0, tmax;
        double busy = busy_time(&m->ph) - busy0;
        if (hpc_rank == 0 && first)
            verify(c, &t, &m->v);
        else if (hpc_rank == 0 && !mc_tally_equal(&t, &m->v.tally))
            hpc_fail("montecarlo: a repeated run's tallies differ from the first run's");
        first = 0;
        if (hpc_phases_sample(&m->ph, &sm, wall, &m->wall, &tmax)) {
            m->grind[sm.n - 1] = tmax / (double)c->histories * 1e9;
            m->cycle[sm.n - 1] = tmax / c->cycles * 1e6;
            m->busy[sm.n - 1] = busy / wall;
        } else {
            run.tracked = tracked0;  /* a warm-up sample */
        }
    }
    m->n = sm.n;
    m->converged = sm.converged;
    m->tracked = run.tracked;
    hpc_sampler_free(&sm);
}

static void params(hpc_json *r, const config *c)
{
    hpc_json_str(r, "geometry", c->prob.shape == MC_SLAB ? "slab" : "spheres");
    hpc_json_str(r, "source", c->prob.shape == MC_SLAB ? SOURCE_NAMES[c->prob.source] : "point");
    hpc_json_int(r, "cycles", c->cycles);
    hpc_json_int(r, "particles", c->particles);
    hpc_json_int(r, "chunk", c->chunk);
    hpc_json_int(r, "workers", c->workers);
    hpc_json_exact(r, "master_sleep_us", c->master_sleep_us);
}

static void region_array(hpc_json *r, const char *key, const double *v, int n, size_t stride)
{
    hpc_json_array(r, key);
    for (int k = 0; k < n; k++)
        hpc_json_exact(r, NULL, v[(size_t)k * stride]);
    hpc_json_close(r);
}

/* The tallies, estimates and checks (exact: the same tallies write the same text). */
static void tally_json(hpc_json *r, const config *c, const verdict *v)
{
    const mc_tally *t = &v->tally;
    int nreg = c->prob.nreg;
    char digest[20];
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)mc_tally_digest(t, nreg));
    hpc_json_str(r, "tally_digest", digest);
    hpc_json_int(r, "source_particles", c->histories);
    hpc_json_int(r, "transmitted", t->transmitted);
    hpc_json_int(r, "reflected", t->reflected);
    hpc_json_array(r, "absorbed");
    for (int k = 0; k < nreg; k++)
        hpc_json_int(r, NULL, t->absorbed[k]);
    hpc_json_close(r);
    hpc_json_int(r, "collisions", t->collisions);
    hpc_json_exact(r, "transmission", v->trans.mean);
    hpc_json_exact(r, "transmission_se", v->trans.se);
    hpc_json_exact(r, "reflection", v->refl.mean);
    hpc_json_exact(r, "reflection_se", v->refl.se);
    region_array(r, "track_cm", &v->track[0].mean, nreg, 2);
    region_array(r, "track_se_cm", &v->track[0].se, nreg, 2);
    region_array(r, "bounds_cm", c->prob.bound, nreg + 1, 1);
    region_array(r, "sigma_t", c->prob.sigma_t, nreg, 1);
    region_array(r, "scatter", c->prob.scatter, nreg, 1);
    hpc_json_str(r, "verified_against", v->analytic ? "analytic" : c->expect >= 0 ? "reference"
                                                                                : "balance");
    if (v->analytic) {
        hpc_json_exact(r, "exact_transmission", v->exact_trans);
        hpc_json_num(r, "transmission_z", v->z_trans);
        region_array(r, "exact_track_cm", v->exact_track, nreg, 1);
    }
    if (c->expect >= 0) {
        hpc_json_exact(r, "expect_transmission", c->expect);
        hpc_json_exact(r, "expect_se", c->expect_se);
        hpc_json_num(r, "expect_z", v->z_expect);
    }
    hpc_json_int(r, "seed", (long long)c->prob.seed);
}

/* Keys every record carries besides params (what the scaling side needs). */
static void common_json(hpc_json *r, const config *c)
{
    hpc_json_int(r, "histories", c->histories);
    hpc_json_int(r, "trackers", c->workers > 0 ? c->workers : 1);
    hpc_json_bool(r, "master_tracks", c->workers == 0);
    hpc_json_int(r, "chunks_per_cycle", c->chunks);
    hpc_json_int(r, "regions", c->prob.nreg);
}

static void emit(const config *c, measured *m)
{
    static const char *const metric[] = {"history_time", "cycle_time", "master_busy"};
    static const char *const unit[] = {"ns", "us", "fraction"};
    double *data[] = {m->grind, m->cycle, m->busy};
    double kept_cycles = (double)m->n * c->cycles;
    for (int k = 0; k < 3; k++) {
        hpc_stats st;
        hpc_stats_compute(data[k], m->n, &st);
        hpc_json r;
        hpc_result_begin(&r, metric[k], unit[k], "median", "lower");
        params(&r, c);
        hpc_result_stats(&r, &st, m->converged);
        common_json(&r, c);
        if (k == 0) {
            hpc_json_str(&r, "grind_basis", "wall time of a run over all its histories");
            tally_json(&r, c, &m->v);
        }
        if (k == 1) {  /* per cycle, over every kept sample (collective) */
            hpc_phases_json(&r, &m->ph, 1e6 / kept_cycles, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "wall_per_rank", m->wall / kept_cycles * 1e6, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "histories_per_rank", (double)m->tracked / kept_cycles,
                              MPI_COMM_WORLD);
        }
        hpc_json_emit(&r);
    }
    free(m->grind);
    free(m->cycle);
    free(m->busy);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "montecarlo",
             "MCNP-like master-worker particle transport: time per history vs workers.", options,
             MPI_THREAD_SINGLE);
    config c;
    parse(&c);
    if (mc_philox_selftest())
        hpc_fail("montecarlo: Philox4x32-10 does not reproduce its published known answers");

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    measured m;
    measure(&c, &m);
    emit(&c, &m);

    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
