/* sweep.c - a Sweep3D-like proxy: discrete-ordinates transport by KBA wavefront sweeps
 * (Koch, Baker and Alcouffe), the kernel by which the ASCI machines (and the EV7 study) were
 * judged in weak scaling.
 *
 * The problem: a 3-D grid of cubic cells of width --h (global --grid IxJxK, or --per-rank
 * IxJxK cells on each of the P x Q ranks), one energy group, one material (--sigma-t,
 * --sigma-s: isotropic scattering), an isotropic fixed source --q everywhere or only in a
 * central box (--source center: cells [n/4, n - n/4) of each axis; third: Sweep3D's central
 * third), vacuum boundaries.
 * Level-symmetric S_N quadrature (--sn 2, 4, 6, 8; lib/sweep_quad.c: the LQn sets of Lewis
 * and Miller, weights summing to 1 over the sphere), diamond differencing with an optional
 * negative-flux fix-up (--fixup; lib/sweep_kernel.c), source iteration from phi = 0 until the
 * largest relative change of phi in any cell is at most --tol.
 *
 * Parallelism (lib/sweep_solver.c): (i, j) over a --npe-i x --npe-j process grid, k whole. Each
 * of the eight octants is swept as a KBA pipeline over blocks of --mk k-planes and --mmi
 * directions (a remainder block where they do not divide kt or the directions per octant):
 * MPI_Recv of the upstream i- and j-faces, the block's sweep, MPI_Send of the downstream faces.
 *
 * A sample: one complete solve (every iteration from phi = 0) after a barrier; the slowest
 * rank's time. A whole solve, rather than some iterations after convergence, because a solve is
 * what the application does and its iteration count is fixed by the problem (each sample must
 * take the same count; the first one's is checked).
 *
 * Checks, outside the timing, after the first solve: phi finite; the particle balance
 *   source = absorption + leakage,  sum q V = sum (sigma_t - sigma_s) phi V + sum w |mu| psi A
 * with the leakage tallied from the outgoing boundary angular fluxes of the last sweep, to 1e-10
 * relative (--tol is refused where its iteration error could exceed a tenth of that); and,
 * when the global problem has at most --ref-max cell-angles, phi against a serial solve of the
 * same problem by rank 0 (P = Q = 1, the same code without messages: the arithmetic per cell is
 * the same, so the difference is exactly 0 here; bound 1e-12 of max phi). In the binary, so
 * that every run of a small problem proves its decomposition by itself; bigger problems are
 * compared by the tests through the records' checksum (sum phi V over the grid).
 * --inject corrupt changes one cell's phi before the checks.
 *
 * Metrics: grind time (ns per cell-angle per iteration on the rank's own cell-angles, here the
 * global count / P Q, i.e. exact per rank under weak scaling: the per-processor grind time of
 * the KBA performance models; Sweep3D's driver prints time / all cell-angles, in us, which the
 * record carries as global_grind_time_median, ns) and time per iteration (us), with per-rank
 * phases (compute = the sweep and the per-iteration source
 * and convergence passes, wait = blocked in MPI_Recv for upstream faces, send = in MPI_Send,
 * copy = faces packed and unpacked (the kernel's faces are padded) or zeroed at the vacuum
 * boundary, reduce = the convergence test's MPI_Allreduce), wall times and cell-angles per rank.
 */
#include "harness.h"
#include "lib/sweep_quad.h"
#include "lib/sweep_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "per-rank", .type = HPC_GRIDS, .dims = 3, .what = "IxJxK", .def = "",
     .help = "cells per rank (weak scaling; the global grid is I P x J Q x K); neither "
             "this nor --grid: 20x20x20"},
    {.name = "grid", .type = HPC_GRIDS, .dims = 3, .what = "IxJxK", .def = "",
     .help = "global cells (strong scaling; not with --per-rank)"},
    {.name = "npe-i", .type = HPC_INT, .def = "0", .min = 0, .max = 1 << 20,
     .help = "P, ranks along i (0: P x Q as square as the ranks allow)"},
    {.name = "npe-j", .type = HPC_INT, .def = "0", .min = 0, .max = 1 << 20,
     .help = "Q, ranks along j (0: ranks / P)"},
    {.name = "sn", .type = HPC_INT, .def = "6", .min = 0, .max = 1000,
     .help = "S_N order of the level-symmetric quadrature: 2, 4, 6 or 8 (N (N+2) directions)"},
    {.name = "mk", .type = HPC_INT, .def = "10", .min = 1, .max = 1 << 20,
     .help = "k-planes per pipeline block (a shorter last block if it does not divide K; at most "
             "K are used)"},
    {.name = "mmi", .type = HPC_INT, .def = "3", .min = 1, .max = SWEEP_MAX_ANGLES,
     .help = "directions per pipeline block (a shorter last block if it does not divide an "
             "octant's N (N+2) / 8; at most those are used; the kernel takes 4 at once, so "
             "a multiple of 4 wastes no lanes)"},
    {.name = "fixup", .type = HPC_INT, .def = "0", .min = 0, .max = 1,
     .help = "1: set negative outgoing face fluxes to zero (balance-preserving)"},
    {.name = "tol", .type = HPC_DOUBLE, .def = "1e-12", .min = 1e-15, .max = 1e-6,
     .help = "convergence: max over cells of |phi - phi_old| / |phi| <= tol (below ~1e-13 the "
             "round-off of the smallest fluxes may stall it)"},
    {.name = "max-iters", .type = HPC_INT, .def = "2000", .min = 1, .max = 1000000,
     .help = "source iterations at most (not converged: error)"},
    {.name = "sigma-t", .type = HPC_DOUBLE, .def = "1", .min = 1e-6, .max = 1e6,
     .help = "total cross section (per unit length)"},
    {.name = "sigma-s", .type = HPC_DOUBLE, .def = "0.5", .min = 0, .max = 1e6,
     .help = "scattering cross section (< sigma-t)"},
    {.name = "q", .type = HPC_DOUBLE, .def = "1", .min = 1e-6, .max = 1e6,
     .help = "isotropic source density"},
    {.name = "source", .type = HPC_CHOICE, .def = "uniform", .choices = "uniform|center|third",
     .help = "where the source is: everywhere, the central box [n/4, n - n/4) of each axis, or "
             "Sweep3D's central third [(n+1)/3, n - (n+1)/3)"},
    {.name = "h", .type = HPC_DOUBLE, .def = "1", .min = 1e-6, .max = 1e6,
     .help = "cell width (cubic cells)"},
    {.name = "ref-max", .type = HPC_DOUBLE, .def = "1e7", .min = 0, .max = 1e12,
     .help = "rank 0 also solves serially (the reference) up to this many global cell-angles"},
    {0}};

static const hpc_phase_def PHASES[SWEEP_NPH] = {{"compute", HPC_KIND_COMPUTE},
                                                {"wait", HPC_KIND_COMM},
                                                {"send", HPC_KIND_COMM},
                                                {"copy", HPC_KIND_COPY},
                                                {"reduce", HPC_KIND_COMM}};
static const double BALANCE_BOUND = 1e-10, SERIAL_BOUND = 1e-12;
enum { FLOPS_PER_CELL_ANGLE = 15 };  /* lib/sweep_kernel.c */

typedef struct {
    sweep_problem pb;
    sweep_quad quad;
    int P, Q, weak;
    double tol, ref_max;
    int max_iters;
    char what[160];  /* for messages */
} config;

typedef struct {
    int iters, serial_iters;                    /* serial_iters: 0 without the reference */
    double source, absorption, leakage[6], balance, checksum, vs_serial;
    long fixups;
    hpc_stats grind, iter_us;
    int converged;
    double wall;               /* this rank's solve time over the kept samples */
    double cell_angles_mine;   /* this rank's, per iteration */
    hpc_phases ph;
    long kept_iters;
} outcome;

/* One IxJxK grid option (the harness parses it) into g; 0 when not given. */
static int one_grid(const char *opt, int g[3])
{
    const hpc_grid *given;
    int n = hpc_opt_grids(opt, &given);
    hpc_usage_check(n > 1, "sweep: --%s '%s': one grid", opt, hpc_opt_str(opt));
    if (n == 1)
        g[0] = given->x, g[1] = given->y, g[2] = given->z;
    return n;
}

/* The most square P x Q = n with P <= Q. */
static void square_grid(int n, int *P, int *Q)
{
    *P = 1;
    for (int d = 1; d * d <= n; d++)
        if (n % d == 0)
            *P = d;
    *Q = n / *P;
}

static void parse_decomposition(config *c)
{
    int P = (int)hpc_opt_int("npe-i"), Q = (int)hpc_opt_int("npe-j");
    if (P == 0 && Q == 0)
        square_grid(hpc_nranks, &P, &Q);
    else if (Q == 0 && P > 0 && hpc_nranks % P == 0)
        Q = hpc_nranks / P;
    else if (P == 0 && Q > 0 && hpc_nranks % Q == 0)
        P = hpc_nranks / Q;
    hpc_usage_check((long)P * Q != hpc_nranks, "sweep: --npe-i %lld x --npe-j %lld does not "
                    "make the %d ranks", hpc_opt_int("npe-i"), hpc_opt_int("npe-j"), hpc_nranks);
    c->P = P;
    c->Q = Q;
}

static void parse_grids(config *c)
{
    int g[3] = {20, 20, 20}, per = one_grid("per-rank", g), glob = one_grid("grid", g);
    hpc_usage_check(per && glob, "sweep: give --per-rank or --grid, not both");
    c->weak = !glob;
    double cells = (double)g[0] * g[1] * g[2] * (c->weak ? (double)c->P * c->Q : 1);
    hpc_usage_check(cells > 2e9, "sweep: %dx%dx%d cells are too many", g[0], g[1], g[2]);
    c->pb.nx = c->weak ? g[0] * c->P : g[0];
    c->pb.ny = c->weak ? g[1] * c->Q : g[1];
    c->pb.nz = g[2];
    hpc_usage_check(c->P > c->pb.nx || c->Q > c->pb.ny, "sweep: the %dx%dx%d grid does not fit "
                    "the %dx%d process grid (a rank without cells)", c->pb.nx, c->pb.ny,
                    c->pb.nz, c->P, c->Q);
}

static void parse_physics(config *c)
{
    sweep_problem *pb = &c->pb;
    int sn = (int)hpc_opt_int("sn");
    int rc = sweep_quad_init(&c->quad, sn);
    hpc_usage_check(rc == -1, "sweep: --sn %d: there is no level-symmetric S%d set here (2, 4, "
                    "6, 8)", sn, sn);
    if (rc == -2)
        hpc_fail("sweep: the S%d quadrature's moments are wrong", sn);
    pb->mk = (int)hpc_opt_int("mk");
    pb->mmi = (int)hpc_opt_int("mmi");
    /* A block cannot be bigger than everything: the whole column, all of an octant's
     * directions (the meta record reports the values used). */
    if (pb->mk > pb->nz)
        hpc_opt_set_int("mk", pb->mk = pb->nz);
    if (pb->mmi > c->quad.nm)
        hpc_opt_set_int("mmi", pb->mmi = c->quad.nm);
    pb->fixup = (int)hpc_opt_int("fixup");
    pb->sigt = hpc_opt_double("sigma-t");
    pb->sigs = hpc_opt_double("sigma-s");
    pb->q = hpc_opt_double("q");
    static const char *const SOURCES[] = {"uniform", "center", "third"};
    for (int r = 0; r < 3; r++)
        if (strcmp(hpc_opt_str("source"), SOURCES[r]) == 0)
            pb->region = r;
    pb->dx = pb->dy = pb->dz = hpc_opt_double("h");
    hpc_usage_check(pb->sigs >= pb->sigt, "sweep: --sigma-s %g must be below --sigma-t %g",
                    pb->sigs, pb->sigt);
    c->tol = hpc_opt_double("tol");
    c->max_iters = (int)hpc_opt_int("max-iters");
    c->ref_max = hpc_opt_double("ref-max");
    /* Converged to tol, the balance misses by at most sigma_s tol sum|phi| V / Q <=
     * tol c / (1 - c) (c = sigma_s / sigma_t); keep that a tenth of the balance bound. */
    double ratio = pb->sigs / pb->sigt;
    hpc_usage_check(c->tol * ratio / (1 - ratio) > 0.1 * BALANCE_BOUND, "sweep: --tol %g is too "
                    "loose for the %g balance check at scattering ratio %g", c->tol,
                    BALANCE_BOUND, ratio);
    snprintf(c->what, sizeof c->what, "%dx%dx%d S%d on %dx%d, mk %d, mmi %d, fixup %d",
             pb->nx, pb->ny, pb->nz, sn, c->P, c->Q, pb->mk, pb->mmi, pb->fixup);
}

/* Every rank's phi into the global [k][j][i] array out on rank 0 (collective). */
static void gather_phi(const config *c, const sweep_solver *s, double *out)
{
    int *cnt = NULL, *dsp = NULL;
    double *all = NULL;
    if (hpc_rank == 0) {
        cnt = malloc((size_t)hpc_nranks * sizeof *cnt);
        dsp = malloc((size_t)hpc_nranks * sizeof *dsp);
        all = malloc((size_t)c->pb.nx * c->pb.ny * c->pb.nz * sizeof *all);
        if (!cnt || !dsp || !all)
            hpc_fail("sweep: no memory to gather phi");
        for (int r = 0, off = 0; r < hpc_nranks; r++) {
            int i0, it, j0, jt;
            sweep_split(c->pb.nx, c->P, r % c->P, &i0, &it);
            sweep_split(c->pb.ny, c->Q, r / c->P, &j0, &jt);
            cnt[r] = it * jt * c->pb.nz;
            dsp[r] = off;
            off += cnt[r];
        }
    }
    MPI_Gatherv(s->phi, (int)s->ncell, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; hpc_rank == 0 && r < hpc_nranks; r++) {
        int i0, it, j0, jt;
        sweep_split(c->pb.nx, c->P, r % c->P, &i0, &it);
        sweep_split(c->pb.ny, c->Q, r / c->P, &j0, &jt);
        for (int k = 0; k < c->pb.nz; k++)
            for (int j = 0; j < jt; j++)
                memcpy(out + ((size_t)k * c->pb.ny + j0 + j) * c->pb.nx + i0,
                       all + dsp[r] + ((size_t)k * jt + j) * it, (size_t)it * sizeof *out);
    }
    free(cnt);
    free(dsp);
    free(all);
}

/* Rank 0 solves the whole problem alone and compares (collective: the gather). */
static void check_serial(const config *c, const sweep_solver *s, outcome *o)
{
    size_t n = (size_t)c->pb.nx * c->pb.ny * c->pb.nz;
    o->vs_serial = NAN;
    if ((double)n * 8 * c->quad.nm > c->ref_max)
        return;
    double *g = hpc_rank == 0 ? malloc(n * sizeof *g) : NULL;
    if (hpc_rank == 0 && !g)
        hpc_fail("sweep: no memory to gather phi");
    gather_phi(c, s, g);
    if (hpc_rank == 0) {
        hpc_phases ph;
        hpc_phases_init(&ph, PHASES, SWEEP_NPH);
        sweep_solver ref;
        if (sweep_init(&ref, &c->pb, &c->quad, 1, 1, 0, 0, MPI_COMM_NULL, &ph))
            hpc_fail("sweep: no memory for the serial reference");
        o->serial_iters = sweep_solve(&ref, c->tol, c->max_iters);
        if (o->serial_iters < 0)
            hpc_fail("sweep: %s: the serial reference did not converge", c->what);
        double diff = 0, big = 0;
        for (size_t k = 0; k < n; k++) {
            diff = fmax(diff, fabs(g[k] - ref.phi[k]));
            big = fmax(big, fabs(ref.phi[k]));
        }
        o->vs_serial = big > 0 ? diff / big : diff;
        hpc_check_bound(o->vs_serial, SERIAL_BOUND, "sweep: %s: phi differs from the serial "
                        "solve (max norm, relative)", c->what);
        sweep_free(&ref);
    }
    free(g);
}

/* Finite phi, the particle balance, the serial reference (collective). */
static void verify(const config *c, sweep_solver *s, outcome *o)
{
    if (hpc_inject == HPC_INJECT_CORRUPT && hpc_rank == 0)
        s->phi[s->ncell / 2] = 2 * s->phi[s->ncell / 2] + 1;  /* the checks must see this */
    hpc_check_finite(s->phi, s->ncell, "sweep: %s: rank %d's phi", c->what, hpc_rank);
    double v = c->pb.dx * c->pb.dy * c->pb.dz, loc[9] = {0};
    for (size_t k = 0; k < s->ncell; k++) {
        loc[0] += s->qsrc[k];
        loc[1] += s->phi[k];
    }
    loc[0] *= v;
    loc[1] *= v;
    memcpy(loc + 2, s->leak, sizeof s->leak);
    loc[8] = (double)s->fixups;
    double tot[9];
    MPI_Allreduce(loc, tot, 9, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    o->source = tot[0];
    o->checksum = tot[1];
    o->absorption = (c->pb.sigt - c->pb.sigs) * tot[1];
    double out = 0;
    for (int f = 0; f < 6; f++)
        out += o->leakage[f] = tot[2 + f];
    o->fixups = (long)tot[8];
    o->balance = fabs(o->source - o->absorption - out) / o->source;
    if (hpc_rank == 0)
        hpc_check_bound(o->balance, BALANCE_BOUND, "sweep: %s: particle balance |source - "
                        "absorption - leakage| / source", c->what);
    check_serial(c, s, o);
}

static void measure(const config *c, outcome *o)
{
    hpc_phases_init(&o->ph, PHASES, SWEEP_NPH);
    sweep_solver s;
    if (sweep_init(&s, &c->pb, &c->quad, c->P, c->Q, hpc_rank % c->P, hpc_rank / c->P,
                   MPI_COMM_WORLD, &o->ph))
        hpc_fail("sweep: %s: no memory", c->what);
    double angles = 8.0 * c->quad.nm;
    double per_rank = (double)c->pb.nx * c->pb.ny * c->pb.nz * angles / (c->P * c->Q);
    o->cell_angles_mine = (double)s.ncell * angles;
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    double *grind = malloc((size_t)hpc_reps.max_reps * sizeof *grind);
    double *iter_us = malloc((size_t)hpc_reps.max_reps * sizeof *iter_us);
    o->iters = -1;
    hpc_phases_reset(&o->ph);
    while (hpc_sampler_more_coll(&sm, MPI_COMM_WORLD)) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = hpc_now();
        int it = sweep_solve(&s, c->tol, c->max_iters);
        double t = hpc_now() - t0, tmax;
        if (it < 0) {  /* the same on every rank: the convergence test is global */
            hpc_check_finite(s.phi, s.ncell, "sweep: %s: rank %d's phi", c->what, hpc_rank);
            hpc_fail("sweep: %s: not converged to tol %g in %d iterations", c->what, c->tol,
                     c->max_iters);
        }
        if (o->iters < 0) {
            o->iters = it;
            verify(c, &s, o);
        } else if (it != o->iters && hpc_rank == 0) {
            hpc_fail("sweep: %s: a repeated solve took %d iterations, the first %d", c->what, it,
                     o->iters);
        }
        if (hpc_phases_sample(&o->ph, &sm, t, &o->wall, &tmax)) {
            grind[sm.n - 1] = tmax / it / per_rank * 1e9;
            iter_us[sm.n - 1] = tmax / it * 1e6;
            o->kept_iters += it;
        }
    }
    hpc_stats_compute(grind, sm.n, &o->grind);
    hpc_stats_compute(iter_us, sm.n, &o->iter_us);
    o->converged = sm.converged;
    free(grind);
    free(iter_us);
    hpc_sampler_free(&sm);
    sweep_free(&s);
}

static void emit_params(hpc_json *r, const config *c)
{
    static const char *const keys[] = {"nx", "ny", "nz", "P", "Q", "sn", "mk", "mmi", "fixup"};
    const int v[] = {c->pb.nx, c->pb.ny, c->pb.nz, c->P, c->Q, c->quad.sn, c->pb.mk, c->pb.mmi,
                     c->pb.fixup};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        hpc_json_int(r, keys[k], v[k]);
    hpc_json_str(r, "source", hpc_opt_str("source"));
    hpc_json_str(r, "scaling", c->weak ? "weak" : "strong");
}

/* The checks' figures and the problem's constants. */
static void emit_checks(hpc_json *r, const config *c, const outcome *o)
{
    /* All digits: a reader can redo the balance. */
    hpc_json_exact(r, "source", o->source);
    hpc_json_exact(r, "absorption", o->absorption);
    hpc_json_array(r, "leakage");  /* -x, +x, -y, +y, -z, +z */
    for (int f = 0; f < 6; f++)
        hpc_json_exact(r, NULL, o->leakage[f]);
    hpc_json_close(r);
    hpc_json_num(r, "balance_rel_error", o->balance);
    hpc_json_exact(r, "checksum", o->checksum);  /* all digits: compared between runs */
    if (!isnan(o->vs_serial)) {  /* absent above --ref-max */
        hpc_json_num(r, "max_rel_diff_vs_serial", o->vs_serial);
        hpc_json_int(r, "serial_iterations", o->serial_iters);
    }
    hpc_json_int(r, "fixups_last_iteration", o->fixups);
    static const char *const keys[] = {"tol", "sigma_t", "sigma_s", "q", "h"};
    const double v[] = {c->tol, c->pb.sigt, c->pb.sigs, c->pb.q, c->pb.dx};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        hpc_json_exact(r, keys[k], v[k]);
}

/* grind_time and iteration_time (collective: the per-rank figures). */
static void emit(const config *c, outcome *o)
{
    double angles = 8.0 * c->quad.nm;
    double per_rank = (double)c->pb.nx * c->pb.ny * c->pb.nz * angles / (c->P * c->Q);
    for (int k = 0; k < 2; k++) {
        hpc_json r;
        hpc_result_begin(&r, k ? "iteration_time" : "grind_time", k ? "us" : "ns", "median",
                         "lower");
        emit_params(&r, c);
        hpc_result_stats(&r, k ? &o->iter_us : &o->grind, o->converged);
        hpc_json_int(&r, "iterations", o->iters);
        hpc_json_int(&r, "angles", (long long)angles);
        hpc_json_exact(&r, "cell_angles_per_rank", per_rank);  /* the grind time's basis */
        hpc_json_int(&r, "flops_per_cell_angle", FLOPS_PER_CELL_ANGLE);
        if (k == 0)  /* what Sweep3D's driver prints (in us there): time / all cell-angles */
            hpc_json_num(&r, "global_grind_time_median", o->grind.median / (c->P * c->Q));
        if (k == 1) {
            /* Per iteration, over every kept sample. */
            double scale = 1e6 / (double)o->kept_iters;
            hpc_phases_json(&r, &o->ph, scale, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "wall_per_rank", o->wall * scale, MPI_COMM_WORLD);
            hpc_json_per_rank(&r, "cell_angles_per_rank_each", o->cell_angles_mine,
                              MPI_COMM_WORLD);
            emit_checks(&r, c, o);
        }
        hpc_json_emit(&r);
    }
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "sweep",
             "Sweep3D-like KBA wavefront transport sweep: grind time and time per iteration.",
             options, MPI_THREAD_SINGLE);
    config c;
    memset(&c, 0, sizeof c);
    parse_decomposition(&c);
    parse_grids(&c);
    parse_physics(&c);
    hpc_begin(1, NULL);
    hpc_inject_first_point();

    outcome o;
    memset(&o, 0, sizeof o);
    measure(&c, &o);
    emit(&c, &o);
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
