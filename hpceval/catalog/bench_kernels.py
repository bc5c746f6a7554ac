"""Compute kernels: the column-physics kernel and the spectral transform shallow water model
(serial; every rank integrates the same problem at once for the "all cores" case), and the
`kernels` suite."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

from hpceval.catalog.common import (counts, expected_seconds, harness_bytes, launch_timeout,
                                    parallel_seconds, process_grids, rank_counts, ranks_sweep,
                                    repetition_args, spec_arg, words)
from hpceval.catalog.options import options
from hpceval.catalog.params import Param
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Scales, SeedAxis,
                                      Suite, Tunes, register_benchmark, register_study,
                                      register_suite)
from hpceval.errors import UsageError

ALPHAS = {"0": 0.0, "pi/4": math.pi / 4, "pi/2": math.pi / 2}


def _plan_column(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    too_big = [n for n in v["nlons"] if n > v["ncols"]]
    if too_big:
        raise UsageError(f"--set nlons: {too_big[0]} exceeds ncols={v['ncols']}")
    args = (b.param("nlons").to_arg(v["nlons"]) + b.param("ncols").to_arg(v["ncols"])
            + b.param("levels").to_arg(v["levels"]) + repetition_args(b, v))
    return [LaunchSpec(b.name, "column", "column", args, 1, "core", expected_results=len(v["nlons"]),
                       timeout_s=launch_timeout(v, len(v["nlons"])))]


def sst_grid(m: int) -> tuple[int, int]:
    """The C binary's default grid: the smallest even 2,3,5-smooth nlon >= 3M+1, nlat = nlon/2."""
    n = 3 * m + 1
    while True:
        k = n
        for f in (2, 3, 5):
            while k % f == 0:
                k //= f
        if k == 1 and n % 2 == 0:
            return n, (n + 1) // 2
        n += 1


SST_SLOW_FACTOR = 4.0     # _sst_seconds assumes 1 GFlop/s; the transforms run at several


def _sst_seconds(m: int, levels: int, days: float) -> float:
    """A pessimistic guess of one integration's time (1 GFlop/s), for the launch's time limit."""
    nlon, nlat = sst_grid(m)
    flops = 52.0 * levels * nlat * (m + 1) * (m + 2) / 2 + 60.0 * levels * nlat * nlon
    dt = min(300.0 * 42 / m, 1800.0)  # the smallest default step (test case 6, explicit)
    return days * 86400 / dt * flops / 1e9


def _plan_sst(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    truncs, levels = v["truncations"], v["levels"]
    if (v["nlon"] or v["nlat"]) and len(truncs) > 1:
        raise UsageError("--set nlon/nlat: give one truncation only")
    for m in truncs:
        nlon, nlat = sst_grid(m)
        nlon, nlat = v["nlon"] or nlon, v["nlat"] or nlat
        if nlon < 3 * m + 1 or 2 * nlat < 3 * m + 1:
            raise UsageError(f"sst: a {nlon}x{nlat} grid aliases at T{m} "
                             f"(need nlon >= {3 * m + 1}, nlat >= {(3 * m + 1) / 2:g})")
    schemes = v["scheme"]
    tests = v["test"]
    alphas = v["alpha"]
    fixed = (b.param("truncations").to_arg(truncs) + b.param("levels").to_arg(levels)
             + ["--days", str(v["days"]), "--dt", str(v["dt"]), "--robert", str(v["robert"]),
                "--start", v["start"], "--bound", str(v["bound"])] + repetition_args(b, v))
    if v["nlon"]:
        fixed += ["--nlon", str(v["nlon"])]
    if v["nlat"]:
        fixed += ["--nlat", str(v["nlat"])]
    specs = []
    points = len(truncs) * len(levels)
    for copies in counts(v["copies"], ctx.cores, "copies", "rank count"):
        for scheme in schemes:
            run_s = sum(_sst_seconds(m, l, v["days"]) for m in truncs for l in levels)
            for test in tests:
                for alpha in (alphas if test in ("1", "2") else ["0"]):
                    args = fixed + ["--scheme", scheme, "--test", test,
                                    "--alpha", repr(ALPHAS[alpha])]
                    label = f"sst np={copies} {scheme} tc{test}" + (f" alpha={alpha}" if test in ("1", "2") else "")
                    specs.append(LaunchSpec(
                        b.name, label, "sst", args, copies, "core", expected_results=6 * points,
                        timeout_s=launch_timeout(v, points) + 3 * run_s * copies))
    return specs


def sst_bytes(m: int, levels: int, nlon: int = 0, nlat: int = 0) -> int:
    """The serial model's memory at T`m` (measured: 360 MB at T340 L1, 1.6 GB at T170 L64):
    the Legendre table (half the latitudes, P and dP) and some 24 grid fields per level."""
    nlon, nlat = (nlon or sst_grid(m)[0]), (nlat or sst_grid(m)[1])
    return 4 * nlat * (m + 1) * (m + 2) + 192 * nlon * nlat * levels + 96 * (m + 1) * (m + 2) * levels


def _sst_memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    return max(sst_bytes(m, l, v["nlon"], v["nlat"]) for m in v["truncations"]
               for l in v["levels"]) + harness_bytes(v)


def psst_bytes(m: int, levels: int, nranks: int, v: Dict[str, Any]) -> Tuple[int, int]:
    """(rank 0's, each other rank's): rank 0 holds the serial model and, while it starts, the
    serial reference it checks every variant against; the others the Legendre tables and the
    spectral state and work arrays (sst_init_spectral: measured 62 MB at T85 L18 on 4 ranks)
    and, like rank 0, their share of the grid's arrays and the transposes' buffers."""
    nlon, nlat = sst_grid(m)
    share = 2 * 192 * nlon * nlat * levels // nranks + harness_bytes(v)
    spectral = 4 * nlat * (m + 1) * (m + 2) + 176 * (m + 1) * (m + 2) * levels
    return 2 * sst_bytes(m, levels) + share, spectral + share


def psst_memory(spec: LaunchSpec, v: Dict[str, Any]) -> Tuple[int, int]:
    """psst_bytes of the problem in the launch's arguments (a preset, swm, picks it)."""
    return psst_bytes(int(spec_arg(spec, "--truncation")), int(spec_arg(spec, "--levels")),
                      spec.nranks, v)


register_benchmark(Benchmark(
    "column", "kernels",
    "column-physics kernel (18-level columns, sqrt/exp/divide): MFlop/s vs longitude dimension",
    options("column", "nlons ncols levels"),
    _plan_column, memory=lambda spec, v: 8 * 32 * v["ncols"] * v["levels"] + harness_bytes(v),
    tiny=("nlons=8", "ncols=16"),
    headline="MFlop/s (exact operation count)"))

register_benchmark(Benchmark(
    "sst", "kernels",
    "spectral transform shallow water model (Williamson test cases 1, 2 and 6): MFlop/s, "
    "simulated days per day vs truncation and levels; one copy vs one per core",
    # the plan sweeps truncations, levels, schemes, test cases and named flow angles, a launch
    # (or a point) each, where the binary takes one of each
    options("sst", "truncations levels scheme test alpha days dt robert start bound nlon nlat",
            truncations=dict(default=[5, 10, 21, 42]), levels=dict(default=[1, 2, 4, 8], min=1),
            scheme=dict(kind="words", more="comma list"),
            test=dict(kind="words", default="2", choices=("1", "2", "6"),
                      more="comma list: 1 (cosine bell), 2 (steady: round-off), 6 "
                      "(Rossby-Haurwitz), each checked against its error bound"),
            alpha=dict(kind="words", default="0,pi/4", choices=tuple(ALPHAS),
                       more="comma list of 0, pi/4, pi/2"))
    + (Param("copies", "str", "1,max", "ranks integrating the same problem at once ('max' = "
             "all cores)"),),
    _plan_sst, ranks="copies (default 1 and all cores)", memory=_sst_memory,
    tiny=("truncations=5", "levels=1", "copies=1", "alpha=0", "days=0.2"),
    headline="MFlop/s, simulated days per day"))

def _plan_psst(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    counts_ = rank_counts(v["ranks"], ctx)
    return [spec for n in counts_ for spec in plan_psst_ranks(b, v, n, len(counts_) > 1, ctx)]


def psst_grid_fits(m: int, levels: int, p: int, q: int) -> bool:
    """A P x Q grid psst runs at T`m`: P at most the north/south latitude pairs (the code's
    blocks), Q at most the wavenumbers and the latitude-level units of a rank (a transpose
    spreads them over its row's Q ranks)."""
    nlat = sst_grid(m)[1]
    return p <= (nlat + 1) // 2 and q <= m + 1 and q <= (nlat // p) * levels


def plan_psst_ranks(b: Benchmark, v: Dict[str, Any], nranks: int, sweep: bool,
                    ctx: PlanContext) -> List[LaunchSpec]:
    m, levels = v["truncation"], v["levels"]
    nlon, nlat = sst_grid(m)
    grids = process_grids(v["grids"], nranks, "grids", sweep,
                          fits=lambda p, q: psst_grid_fits(m, levels, p, q))
    for p, q in grids:
        if not psst_grid_fits(m, levels, p, q):
            raise UsageError(f"psst: a {p}x{q} process grid does not fit T{m} with {levels} "
                             f"level(s) ({nlat} latitudes, {m + 1} wavenumbers)")
    maps = v["mappings"]
    trs = v["transposes"]
    if "distributed" in trs:
        # the binary exchange halves the row log2(Q) times over equal longitude blocks
        for p, q in grids:
            if q & (q - 1) or nlon % q:
                raise UsageError(f"psst: the distributed FFT needs Q a power of two dividing "
                                 f"nlon {nlon} (grid {p}x{q})")
    sums = v["sums"]
    points = len(grids) * len(maps) * len(trs) * len(sums)
    args = (["--truncation", str(m), "--levels", str(levels), "--days", str(v["days"]),
             "--grids", ",".join(f"{p}x{q}" for p, q in grids), "--mappings", ",".join(maps),
             "--transposes", ",".join(trs), "--sums", ",".join(sums), "--start", v["start"]]
            + repetition_args(b, v))
    run_s = parallel_seconds(_sst_seconds(m, levels, v["days"]), nranks, ctx)
    typical_s = run_s / SST_SLOW_FACTOR
    return [LaunchSpec(b.name, f"{b.name} np={nranks} T{m} L={levels}", "psst", args, nranks,
                       "core", expected_results=3 * points,
                       estimate_s=expected_seconds(v, points, typical_s),
                       timeout_s=launch_timeout(v, points) + 3 * run_s * (points + 1))]


register_benchmark(Benchmark(
    "psst", "kernels",
    "the shallow water model on a P x Q process grid: transpose FFT (MPI_Alltoallv or pairwise "
    "exchange) or distributed FFT (binary exchange), distributed Legendre sum (MPI_Allreduce or ring), row/column-major mapping; "
    "each variant checked against the serial model",
    # levels: four transformed together, the planner's default problem
    options("psst", "truncation levels grids mappings transposes sums days start",
            levels=dict(default=4, min=1),
            grids=dict(kind="str", more="square: the two most nearly square that fit the "
                       "truncation, squarest: the one"))
    + (ranks_sweep(note="; with 1 among them the report breaks the parallel overhead down"),),
    _plan_psst, ranks="--np or the ranks sweep (default 2)", memory=psst_memory,
    tiny=("truncation=5", "levels=1", "days=0.2", "grids=2x1", "mappings=row",
          "transposes=alltoallv", "sums=allreduce"),
    # a budget's top rung: one variant of each choice (budget.py's tops)
    at_scale=("grids=squarest", "transposes=alltoallv", "sums=allreduce"),
    # the spectral model: FFT by transpose or distributed, Legendre sum; T, levels, test case
    scales=Scales("run_time", "s/run", ("transpose", "sum"), "{transpose}/{sum}",
                  ("truncation", "levels", "test"), seed_axes=(
                      SeedAxis("sim_days_per_day", "seconds per simulated day",
                               "the ORNL study's Fig. 6 (CCM/MP-2D)", per="inverse",
                               scale=86400.0),
                      SeedAxis("mflops", "MFlop/s per processor (the serial model's count)",
                               "the ORNL study's Fig. 6 (CCM/MP-2D)", per="processor"))),
    tunes=Tunes("run_time", ("truncation", "levels", "test"),
                ("transpose", "sum", "P", "Q", "mapping"),
                ("transposes=alltoallv,pairwise,distributed", "sums=allreduce,ring", "grids=all",
                 "mappings=row,col"), "{transpose}/{sum} {P}x{Q} {mapping}"),
    model="psst",
    headline="time per step, (time - min) / min"))


# T5..T42 in a few minutes on 2 cores; T85 and T170 on request (--set sst.truncations=85,170).
register_suite(Suite(
    "kernels", "column-physics kernel vs longitude dimension; shallow water model T5..T42 "
    "x levels 1..8, test cases 2 (alpha 0, pi/4), 6 and 1, one copy and one per core; the parallel "
    "variants at T21 on 1, 2 and 4 ranks (a few minutes)",
    (("column", {"budget": "0.2", "min-reps": "5"}),
     ("sst", {"test": "2,6", "budget": "1", "min-reps": "3", "max-reps": "10", "warmup": "1"}),
     # test case 1 takes 4x the steps (its bell needs a short step): one angle, fewer levels
     ("sst", {"test": "1", "alpha": "0", "levels": "1,4", "budget": "1", "min-reps": "3",
              "max-reps": "10", "warmup": "1"}),
     # 1, 2 and 4 ranks: the overhead breakdown against each variant's own 1-rank run
     ("psst", {"ranks": "1,2,4", "budget": "0.5", "min-reps": "3", "max-reps": "10",
               "warmup": "1"}))))


# The study: the serial kernels once; the shallow water model at T42, T85 and T170 with 18
# levels (the ORNL study's CCM sizes) on every rung its truncation allows, the two most nearly
# square process grids per rung, the best variant per rung.
_PSST = {"grids": "square", "mappings": "row", "min-reps": "2", "max-reps": "5", "warmup": "0",
         "budget": "0.5"}
register_study("column", budget=0.2, min_reps=5)
register_study("sst", test=2, truncations=42, levels=1, copies=1, budget=1, min_reps=3, max_reps=10,
               warmup=1)
register_study("psst", **_PSST, truncation=42, levels=18, days=0.25, ranks="ladder")
register_study("psst", **_PSST, truncation=85, levels=18, days=0.1, ranks="ladder>=4")
register_study("psst", **_PSST, truncation=170, levels=18, days=0.05, ranks="ladder>=16")
