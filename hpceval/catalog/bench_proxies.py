"""Application proxies: the POP-like barotropic solver (preconditioned conjugate gradient on a
9-point ocean operator with land, halo-update and global-sum variants, strong and weak scaling
over rank counts) and the `pop` suite."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (check_memory, expected_seconds, harness_bytes, int_pair,
                                    launch_timeout, parallel_seconds, process_grids, rank_counts,
                                    ranks_sweep, repetition_args, spec_arg)
from hpceval.catalog.options import options
from hpceval.catalog.params import Param
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Scales, Suite, Tunes,
                                      register_benchmark, register_study, register_suite)
from hpceval.paths import bin_dir, build_has, build_says
from hpceval.errors import UsageError

SCALINGS = ("strong", "weak")
MAX_POINTS = 200_000_000        # the binary's limit on nx * ny
DEFAULT_WEAK_BLOCK = "48x32"    # points per rank when weak scaling is asked for without a block


def _check_grid(nx: int, ny: int, what: str) -> None:
    if nx < 3 or ny < 2:
        raise UsageError(f"barotropic: {what} {nx}x{ny}: too small (nx >= 3, ny >= 2)")
    if nx * ny > MAX_POINTS:
        raise UsageError(f"barotropic: {what} {nx}x{ny}: too big (at most {MAX_POINTS} points)")


def _solve_seconds(nx: int, ny: int, nranks: int) -> float:
    """A pessimistic guess of one solve, for the launch's time limit: iterations grow with the
    grid (350 at 320x384, 1410 at 1280x1536), 30 flops per point at 0.3 GFlop/s per rank, and up
    to 4 ms of halo and sums per iteration (oversubscribed ranks waiting for each other)."""
    iters = 1.2 * max(nx, ny) + 50
    return iters * (30.0 * nx * ny / nranks / 3e8 + 4e-3)


TYPICAL_FLOPS = 1.5e9           # a rank's rate on the 9-point operator (this machine: ~2 GFlop/s)
TYPICAL_ITERATION_COMM_S = 2e-5  # halo update and global sum of one iteration


def typical_solve_s(nx: int, ny: int, nranks: int, ctx: PlanContext) -> float:
    """One solve as it typically takes (the plan's estimate; pop-step's barotropic phase too)."""
    iters = 1.2 * max(nx, ny) + 50
    return iters * (parallel_seconds(30.0 * nx * ny / TYPICAL_FLOPS, nranks, ctx)
                    + (TYPICAL_ITERATION_COMM_S if nranks > 1 else 0.0))


# The globally addressable variants of --set halos and sums: whether the build has each, and
# what it needs (OpenSHMEM is said in every build's buildinfo.json, Co-Array Fortran only where
# a build has it).
PGAS = {"shmem": (lambda: build_has("shmem"), "OpenSHMEM (Open MPI's liboshmem)"),
        "caf": (lambda: build_says("caf"),
                "Co-Array Fortran (install libcoarrays-openmpi-dev, rebuild)")}


def without_pgas(b: Benchmark, name: str, chosen: List[str], ctx: PlanContext) -> List[str]:
    """The variants of --set NAME this build can run: in a build without OpenSHMEM (MPICH, SMPI:
    buildinfo.json) or Co-Array Fortran, every variant ('all') leaves it out, said; one named is
    refused."""
    everything = set(chosen) == set(b.param(name).choices)
    for variant, (has, needs) in PGAS.items():
        if variant not in chosen or has():
            continue
        if not everything:
            raise UsageError(f"--set {b.name}.{name}: {variant} needs a build with {needs}; "
                             f"{bin_dir()} has none")
        ctx.note(f"{b.name}: {name} {variant} left out: this build has no {needs.split(' (')[0]}")
        chosen = [c for c in chosen if c != variant]
    return chosen


def _plan_barotropic(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    ranks = rank_counts(v["ranks"], ctx)
    scalings, grids = v["scaling"], v["grids"]
    for nx, ny in grids:
        _check_grid(nx, ny, "grid")
    block_text = str(v["weak-block"]).strip()
    if block_text and "weak" not in scalings:
        raise UsageError("--set weak-block: give scaling=weak (or strong,weak) with it")
    block = int_pair(block_text or DEFAULT_WEAK_BLOCK, "weak-block", "BXxBY")
    lands, maps, branches = v["land"], v["mappings"], v["branches"]
    halos, sums = (without_pgas(b, name, v[name], ctx) for name in ("halos", "sums"))
    trace = v["trace"] == "yes"
    # land other than the default named, and tracing: the study's two ladders (continents,
    # none) are two problems whose costs are learned apart (simulate/cost.py), and two launches
    # in the log
    suffix = ("" if lands == b.param("land").initial else f" land={','.join(lands)}") + \
        (" traced" if trace else "")     # the quick suite's second launch, its Gantt chart's
    variants = len(maps) * len(halos) * sum(len(branches) if s == "tree" else 1 for s in sums)
    fixed = (["--land", ",".join(lands), "--mappings", ",".join(maps), "--halos", ",".join(halos),
              "--sums", ",".join(sums), "--branches", ",".join(str(k) for k in branches)]
             + b.param("tol").to_arg(v["tol"]) + b.param("dt").to_arg(v["dt"])
             + b.param("check-every").to_arg(v["check-every"])
             + b.param("max-iters").to_arg(v["max-iters"])
             + b.param("direct-max").to_arg(v["direct-max"]) + repetition_args(b, v))
    specs = []
    for n in ranks:
        pgrids = process_grids(v["pgrids"], n, "pgrids", fits=lambda p, q: "strong" not in scalings
                               or all(p <= nx and q <= ny for nx, ny in grids))
        pg_arg = ["--pgrids", ",".join(f"{p}x{q}" for p, q in pgrids)]
        for scaling in scalings:
            if scaling == "strong":
                shapes = grids
                for nx, ny in grids:
                    for p, q in pgrids:
                        if p > nx or q > ny:
                            raise UsageError(f"barotropic: a {p}x{q} process grid leaves blocks "
                                             f"smaller than one point on the {nx}x{ny} grid")
                args = ["--grids", ",".join(f"{nx}x{ny}" for nx, ny in grids)] + pg_arg + fixed
                label = (f"barotropic np={n} {','.join(f'{nx}x{ny}' for nx, ny in grids)} "
                         f"strong{suffix}")
                points = len(grids) * len(pgrids) * len(lands) * variants
            else:
                shapes = [(block[0] * p, block[1] * q) for p, q in pgrids]
                for nx, ny in shapes:
                    _check_grid(nx, ny, f"weak-block {block[0]}x{block[1]} makes a grid")
                args = ["--weak-block", f"{block[0]}x{block[1]}"] + pg_arg + fixed
                label = f"barotropic np={n} {block[0]}x{block[1]}/rank weak{suffix}"
                points = len(pgrids) * len(lands) * variants
            biggest = max(nx * ny for nx, ny in shapes)
            # Every rank holds the global mask and depths (9 bytes a point), the blocks about 12
            # fields, rank 0 about 13 global reference fields: the fullest node's share.
            check_memory((9 * ctx.ranks_per_node(n) + 200) * biggest, ctx, f"barotropic {label}")
            solve = max(_solve_seconds(nx, ny, n) for nx, ny in shapes)
            typical = max(typical_solve_s(nx, ny, n, ctx) for nx, ny in shapes)
            reps = int(v["warmup"]) + 1
            specs.append(LaunchSpec(
                b.name, label, "barotropic", args, n, "core", expected_results=2 * points,
                estimate_s=expected_seconds(v, points, typical),
                timeout_s=launch_timeout(v, points) + 3.0 * reps * solve * points, trace=trace))
    return specs


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> tuple:
    """(rank 0's, each other rank's): the global mask and depths (9 bytes a point, every rank),
    about 12 fields of its block, and on rank 0 13 global reference fields."""
    block = spec_arg(spec, "--weak-block")
    if block:
        bx, by = int_pair(block, "weak-block", "BXxBY")
        points = max(bx * p * by * q for p, q in (int_pair(g, "pgrids", "PxQ") for g in
                                                  spec_arg(spec, "--pgrids").split(",")))
    else:
        points = max(nx * ny for nx, ny in (int_pair(g, "grids", "NXxNY") for g in
                                            spec_arg(spec, "--grids").split(",")))
    mine = 9 * points + 96 * points // spec.nranks + harness_bytes(v)
    return mine + 104 * points, mine


register_benchmark(Benchmark(
    "barotropic", "proxies",
    "POP-like barotropic solver: diagonally preconditioned conjugate gradient on a 9-point "
    "free-surface operator with land, P x Q blocks; halo updates by derived datatypes, packing, "
    "MPI_Put, OpenSHMEM or Co-Array Fortran puts, global sums by MPI_Allreduce, a k-ary tree, "
    "one-sided writes to a master, OpenSHMEM flags or a master reading coarrays; "
    "time per iteration, simulated days per day, per-rank phase times; strong and weak scaling",
    # the planner reads weak-block and pgrids itself ('square', a list that fits each rank
    # count); the binary takes one tree branching factor, the plan a list
    options("barotropic", "grids weak-block land pgrids mappings halos sums branches tol "
            "check-every max-iters dt direct-max",
            weak_block=dict(kind="str", more=f"with scaling=weak, empty: {DEFAULT_WEAK_BLOCK}"),
            pgrids=dict(kind="str", more="square: the two most nearly square that fit the "
                        "grid, squarest: the one; a list keeps those that fit each rank count"),
            branches=dict(kind="ints", noun="branching factor"))
    + (Param("scaling", "words", ["strong"], "strong, weak or strong,weak", choices=SCALINGS),
       ranks_sweep(),
       Param("trace", "choice", "no", "run under the PMPI trace library and store the trace",
             choices=("yes", "no"))),
    _plan_barotropic, ranks="--np or the ranks sweep (default 2)", memory=_memory,
    tiny=("grids=32x32", "pgrids=2x1", "halos=pack", "sums=allreduce", "land=none",
          "mappings=row"),
    # a budget's top rung: one variant of each choice (budget.py's tops)
    at_scale=("pgrids=squarest", "halos=pack", "sums=allreduce"), seed_curve=True,
    scales=Scales("iteration_time", "µs/iter", ("halo", "sum", "branch"),
                  "{halo}/{sum}{branch:(?)}", ("nx", "ny", "land")),
    tunes=Tunes("iteration_time", ("nx", "ny", "land"),
                ("halo", "sum", "branch", "P", "Q", "mapping"),
                ("halos=all", "sums=all", "branches=2,4", "pgrids=all", "mappings=row,col"),
                "{halo}/{sum}{branch:(?)} {P}x{Q} {mapping}"),
    model="barotropic",
    # simulated: the 256- and 1,024-rank studies of 2026-12-07 here, SMPI 3.32 (benchmarks/
    # study_run.py's costs)
    sim_per_result_s={"": 0.14},
    headline="us per iteration (median), simulated days per day, per-rank phase times, "
             "overhead breakdown",
    doc="docs/proxies.md"))


_FAST = {"budget": "0.2", "min-reps": "3", "max-reps": "10", "warmup": "1"}

# About a minute on 2 cores (4 ranks are oversubscribed there): every variant at 1, 2 and 4 ranks
# on a small grid (each variant its own 1-rank baseline) and at 2 and 4 ranks on POP's gx1 size
# with continents, strong and weak scaling over 1, 2, 4 ranks, one traced run (2 solves per
# variant: a trace of some 50k events); and the whole time step (pop-step, bench_pop_step.py)
# at 1, 2 and 4 ranks with both 3-D halo updates on a small 3-D grid.
register_suite(Suite(
    "pop", "POP-like barotropic solver: halo and global-sum variants at 1, 2 and 4 ranks (96x64) "
    "and 2 and 4 ranks (320x384 with continents), strong and weak scaling over 1, 2, 4 ranks, "
    "one traced run; without land at 1, 2 and 4 ranks for `predict`; POP's whole time step "
    "(years per day, phase split) at 1, 2 and 4 ranks",
    (("barotropic", {**_FAST, "grids": "96x64", "ranks": "1,2,4"}),
     ("barotropic", {**_FAST, "grids": "320x384", "ranks": "2,4", "mappings": "row",
                     "branches": "2", "budget": "0.5", "max-reps": "20"}),
     ("barotropic", {**_FAST, "grids": "320x384", "ranks": "1,2,4", "scaling": "strong,weak",
                     "weak-block": "80x96", "mappings": "row", "halos": "pack",
                     "sums": "allreduce", "budget": "0.5", "max-reps": "20"}),
     ("barotropic", {**_FAST, "grids": "96x64", "ranks": "4", "pgrids": "2x2", "mappings": "row",
                     "halos": "pack,put", "sums": "allreduce,onesided", "trace": "yes",
                     "warmup": "0", "min-reps": "2", "max-reps": "2"}),
     # What `hpceval predict barotropic` reads (its model has no land): the one-rank compute
     # rate, and 2 and 4 ranks to hold the prediction against.
     ("barotropic", {**_FAST, "grids": "96x64", "ranks": "1,2,4", "land": "none",
                     "mappings": "row", "halos": "pack", "sums": "allreduce"}),
     ("pop-step", {**_FAST, "grids": "96x64x20", "ranks": "1,2,4", "clinic-halos": "all",
                   "steps": "5"}))))


# The study: POP's barotropic solver strong-scaled on the 1-degree grid (320x384) over every
# rung, and on the 0.1-degree grid (3600x2400) from 64 ranks on, as the X1 study ran them; the
# two most nearly square process grids, packed and datatype halos, allreduce and tree sums: the
# best per rung.
_POP = {"pgrids": "square", "mappings": "row", "halos": "pack,datatype", "sums": "allreduce,tree",
        "branches": "4", "land": "continents", "budget": "0.3", "min-reps": "2", "max-reps": "5",
        "warmup": "1"}
register_study("barotropic", **_POP, grids="320x384", ranks="ladder")
# The same grid without land, one variant, every rung: the model `predict` holds against the
# study (`hpceval predict --run RUN`) has no land, and reads its compute rate from rung 1.
register_study("barotropic", **{**_POP, "land": "none", "halos": "pack", "sums": "allreduce"},
               grids="320x384", ranks="ladder")
# One solve per point on the 0.1-degree grid: a solve takes seconds there.
register_study("barotropic", **{**_POP, "halos": "pack", "sums": "allreduce", "warmup": "0",
                                "min-reps": "1", "max-reps": "2"}, grids="3600x2400",
               ranks="ladder>=64")
