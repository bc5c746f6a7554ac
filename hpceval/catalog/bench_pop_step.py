"""pop-step: POP's whole time step (the X1 study, docs/proxies.md): the baroclinic phase (3-D
explicit tracer and momentum updates over the levels, halo updates of the 3-D state, implicit
vertical mixing per column) and the barotropic phase (the free-surface PCG of `barotropic`,
sharing its C library) on the same P x Q blocks. Simulated years per day and the split of the
step between the phases, per rank count.

A sibling of `barotropic` rather than an extension: that benchmark measures one solve per
sample across every halo/sum variant and mapping (its records, scaling, tuning and `predict`
model are per solver iteration); the whole step's sample is a run of model steps on a 3-D grid,
with other records (years per day, the phase split) and another memory footprint."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from hpceval.catalog.bench_proxies import typical_solve_s, without_pgas
from hpceval.catalog.common import (check_memory, expected_seconds, harness_bytes, int_tuple,
                                    launch_timeout, parallel_seconds, process_grids, rank_counts,
                                    ranks_sweep, repetition_args, spec_arg, words)
from hpceval.catalog.options import choices, options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Scales, SeedAxis,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError

BENCH = "pop-step"
METRICS = 5                 # step_time, sim_years_per_day, barotropic_share, the two phases' times
CLINIC_HALOS = choices(BENCH, "clinic-halos")
MAX_COLUMNS = 200_000_000   # the binary's limits (csrc/kernels/pop_step.c check_grid)
MAX_POINTS = 40_000_000_000
MAX_LEVELS = 1000
BYTES_PER_POINT = 8 * 11    # a rank's block: state and next (4 fields each), mixing (2), w
REF_BYTES_PER_POINT = 8 * 22  # rank 0's one-block run, its kept state and two gathered copies
COLUMN_BYTES = 9            # every rank's global mask and depths
S_PER_POINT = 3e-7          # a rank's baroclinic time per grid point, pessimistic (time limit)
TYPICAL_S_PER_POINT = 1e-7  # this machine's: ~0.1 us per point and step on one rank, loaded


def _grids(v: Dict[str, Any]) -> List[Tuple[int, int, int]]:
    grids = list(v["grids"])
    for nx, ny, nz in grids:
        if nx < 3 or ny < 2:
            raise UsageError(f"{BENCH}: grid {nx}x{ny}x{nz}: too small (nx >= 3, ny >= 2)")
        if nz > MAX_LEVELS or nx * ny > MAX_COLUMNS or nx * ny * nz > MAX_POINTS:
            raise UsageError(f"{BENCH}: grid {nx}x{ny}x{nz}: too big (at most {MAX_LEVELS} "
                             f"levels, {MAX_COLUMNS} columns, {MAX_POINTS} points)")
    return grids


def _step_seconds(nx: int, ny: int, nz: int, nranks: int, per_point: float) -> float:
    """One step: the baroclinic work per point, and the barotropic solve (iterations grow with
    the grid as barotropic's, 30 flops per column at 0.3 GFlop/s, 4 ms of halo and sums each:
    oversubscribed ranks waiting for each other)."""
    iters = 1.2 * max(nx, ny) + 50
    return (nx * ny * nz * per_point / nranks
            + iters * (30.0 * nx * ny / nranks / 3e8 + (4e-3 if nranks > 1 else 0.0)))


def _typical_step_s(nx: int, ny: int, nz: int, nranks: int, ctx: PlanContext) -> float:
    """One step as it typically takes (the plan's estimate): the baroclinic work and one solve
    as barotropic's estimate has it."""
    return (parallel_seconds(nx * ny * nz * TYPICAL_S_PER_POINT, nranks, ctx)
            + typical_solve_s(nx, ny, nranks, ctx))


def _reference_points(v: Dict[str, Any], grids) -> int:
    """The grid points of the largest grid rank 0 runs alone as the reference (0: none)."""
    return max((nx * ny * nz for nx, ny, nz in grids if nx * ny * nz <= int(v["ref-max"])),
               default=0)


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    grids = _grids(v)
    clinics = words(v["clinic-halos"], CLINIC_HALOS, "clinic-halos", all_ok=True)
    halos, sums = (without_pgas(b, name, v[name], ctx) for name in ("halos", "sums"))
    fixed = (["--grids", ",".join("x".join(map(str, g)) for g in grids),
              "--clinic-halos", ",".join(clinics), "--land", ",".join(v["land"]),
              "--mappings", ",".join(v["mappings"]), "--halos", ",".join(halos),
              "--sums", ",".join(sums)]
             + [a for name in ("branch", "steps", "dt", "tol", "check-every", "max-iters",
                               "ref-max", "bound") for a in b.param(name).to_arg(v[name])]
             + repetition_args(b, v))
    variants = len(clinics) * len(halos) * len(sums) * len(v["mappings"])
    steps, ref = int(v["steps"]), _reference_points(v, grids)
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        pgrids = process_grids(v["pgrids"], n, "pgrids",
                               fits=lambda p, q: all(p <= nx and q <= ny for nx, ny, _ in grids))
        for p, q in pgrids:
            for nx, ny, nz in grids:
                if p > nx or q > ny:
                    raise UsageError(f"{BENCH}: a {p}x{q} process grid leaves blocks smaller "
                                     f"than one point on the {nx}x{ny}x{nz} grid")
        label = f"{BENCH} np={n} {fixed[1]}"
        biggest = max(nx * ny * nz for nx, ny, nz in grids)
        columns = max(nx * ny for nx, ny, _ in grids)
        check_memory(ctx.ranks_per_node(n) * (BYTES_PER_POINT * biggest // n
                                              + COLUMN_BYTES * columns)
                     + REF_BYTES_PER_POINT * ref, ctx, label)
        points = len(grids) * len(pgrids) * len(v["land"]) * variants
        sample = max(_step_seconds(*g, n, S_PER_POINT) for g in grids) * steps
        typical = max(_typical_step_s(*g, n, ctx) for g in grids) * steps
        reference = steps * max((_typical_step_s(*g, 1, ctx) for g in grids
                                 if g[0] * g[1] * g[2] <= int(v["ref-max"])), default=0.0)
        specs.append(LaunchSpec(
            b.name, label, BENCH, fixed + ["--pgrids", ",".join(f"{p}x{q}" for p, q in pgrids)],
            n, "core", expected_results=METRICS * points,
            estimate_s=expected_seconds(v, points, typical) + reference,
            timeout_s=launch_timeout(v, points) + 10.0 * reference
            + 3.0 * (int(v["warmup"]) + 2) * sample * points))
    return specs


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> tuple:
    """(rank 0's, each other rank's): its block's share of the grid (BYTES_PER_POINT a point),
    the global mask and depths; rank 0 also the one-block reference up to ref-max points."""
    grids = [int_tuple(g, "grids", "NXxNYxNZ", 3) for g in spec_arg(spec, "--grids").split(",")]
    mine = (BYTES_PER_POINT * max(nx * ny * nz for nx, ny, nz in grids) // spec.nranks
            + COLUMN_BYTES * max(nx * ny for nx, ny, _ in grids) + harness_bytes(v))
    return mine + REF_BYTES_PER_POINT * _reference_points(v, grids), mine


register_benchmark(Benchmark(
    BENCH, "proxies",
    "POP-like whole time step (X1 study): baroclinic 3-D tracer and momentum updates over the "
    "levels, 3-D halo updates (per level as stock POP, or aggregated), Richardson vertical "
    "mixing per column, and the barotropic free-surface PCG; simulated years per day and the "
    "barotropic/baroclinic split; tracers conserved to round-off, the state of a one-rank run "
    "reproduced on every decomposition",
    # the planner reads the process grids itself ('square', its default, fits the grid)
    options("pop-step", "grids pgrids land mappings clinic-halos halos sums branch steps dt tol "
            "check-every max-iters ref-max bound",
            pgrids=dict(kind="str", default="square", more="square: the two most nearly "
                        "square that fit the grid, squarest: the one"),
            clinic_halos=dict(kind="str", default="aggregate", more="comma list, or all"))
    + (ranks_sweep(),),
    _plan, ranks="--np or the ranks sweep (default 2)", memory=_memory,
    tiny=("grids=24x16x4", "steps=2", "pgrids=all"),
    # a budget's top rung: one variant of each choice (budget.py's tops)
    # (and samples of one step: its time within 6% of three's at 16 simulated ranks)
    at_scale=("pgrids=squarest", "clinic-halos=aggregate", "steps=1"), seed_curve=True,
    scales=Scales("step_time", "ms/step", ("clinic_halo", "halo", "sum", "branch"),
                  "{clinic_halo} {halo}/{sum}{branch:(?)}", ("nx", "ny", "nz", "land"),
                  seed_axes=(SeedAxis("sim_years_per_day", "simulated years per day",
                                      "the X1 study's Figs. 6.1 and 7.3 (POP)"),)),
    # simulated: the 256- and 1,024-rank studies of 2026-12-07 here, SMPI 3.32 (benchmarks/
    # study_run.py's costs)
    sim_per_result_s={"": 0.12},
    headline="simulated years per day, the barotropic/baroclinic split, s per simulated day of"
             " each phase, overhead breakdown",
    doc="docs/proxies.md"))


# The study: the X1 study's x1 benchmark (1 degree, 320x384x40) strong-scaled over every rung
# with both 3-D halo updates, and the 0.1-degree grid (3600x2400x40) from 64 ranks on where
# memory allows (a shorter time step there: 480 s, POP's order at 0.1 degree). The study checks
# the tracers' conservation only (ref-max=0): rank 0's one-block reference would cost every rung
# a one-core run of the steps (some 10 s at 1 degree, more than the rung's samples); the tests
# and the pop suite check the reference.
_STUDY = {"pgrids": "square", "clinic-halos": "aggregate,levels", "budget": 0.3, "min-reps": 2,
          "max-reps": 5, "warmup": 1, "steps": 3, "ref-max": 0}
register_study(BENCH, **_STUDY, grids="320x384x40", ranks="ladder")
register_study(BENCH, **{**_STUDY, "clinic-halos": "aggregate", "warmup": 0, "min-reps": 1,
                         "max-reps": 2, "steps": 2, "dt": 480}, grids="3600x2400x40",
               ranks="ladder>=64")
