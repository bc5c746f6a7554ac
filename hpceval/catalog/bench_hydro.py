"""hydro: the SAGE-like compressible hydrodynamics proxy (3-D Euler, MUSCL-Hancock + HLLC on a
block of cells per rank; docs/apps_hydro.md). Cells per second vs cells per rank (the EV7
study's figs 4.1-4.3) and weak scaling at a fixed block per rank."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (check_memory, expected_seconds, harness_bytes, int_tuple,
                                    launch_timeout, rank_counts, ranks_sweep, repetition_args,
                                    spec_arg)
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Scales,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError

METRICS = 3                       # step_time, cell_rate, cell_rate_per_rank per point
BYTES_PER_CELL = 8 * 24           # conserved fields, fluxes, row buffers: a generous bound
MIN_RATE = 2e5                    # cell updates per second per rank, pessimistic (time limit)
TYPICAL_RATE = 1e7                # this machine's: 12-23 M cells/s per rank


def _blocks(v: Dict[str, Any]) -> List[tuple]:
    return list(v["grid"] or v["cells"])


def _npe_fits(npe: List[tuple], n: int) -> List[str]:
    """--npe for n ranks: the one grid given (the binary's grids option), none when not given."""
    if not npe:
        return []
    if len(npe) != 1:
        raise UsageError(f"--set npe: one PxQxR grid, {len(npe)} given")
    p = npe[0]
    if p[0] * p[1] * p[2] != n:
        raise UsageError(f"hydro: --set npe={'x'.join(map(str, p))} does not fit {n} ranks "
                         "(P Q R = ranks)")
    return ["--npe", "x".join(map(str, p))]


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    blocks = _blocks(v)
    strong = bool(v["grid"])
    shape = ["--grid" if strong else "--cells", ",".join("x".join(map(str, g)) for g in blocks)]
    fixed = (shape + ["--problem", v["problem"]] + b.param("steps").to_arg(v["steps"])
             + b.param("gamma").to_arg(v["gamma"]) + b.param("cfl").to_arg(v["cfl"])
             + repetition_args(b, v))
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        per_rank = max(x * y * z for x, y, z in blocks) // (n if strong else 1)
        if per_rank < 1:
            raise UsageError(f"hydro: the grid leaves ranks without cells at {n} ranks")
        check_memory(ctx.ranks_per_node(n) * BYTES_PER_CELL * per_rank, ctx, f"hydro np={n}")
        # every sample is `steps` steps; the checks run another few on top
        step_s = per_rank / MIN_RATE * int(v["steps"])
        points = len(blocks)
        specs.append(LaunchSpec(
            b.name, f"hydro np={n} {shape[1]} {'strong' if strong else 'weak'} {v['problem']}",
            "hydro", fixed + _npe_fits(v["npe"], n), n, "core",
            expected_results=METRICS * points,
            estimate_s=expected_seconds(v, points, step_s * MIN_RATE / TYPICAL_RATE),
            timeout_s=launch_timeout(v, points) + 3.0 * (int(v["warmup"]) + 3) * step_s * points))
    return specs


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    """BYTES_PER_CELL for every cell of a rank's largest block."""
    strong = spec_arg(spec, "--grid")
    cells = max(x * y * z for x, y, z in (int_tuple(g, "cells", "NXxNYxNZ", 3) for g in
                                           (strong or spec_arg(spec, "--cells")).split(",")))
    return BYTES_PER_CELL * -(-cells // (spec.nranks if strong else 1)) + harness_bytes(v)


register_benchmark(Benchmark(
    "hydro", "proxies",
    "SAGE-like compressible hydrodynamics: 3-D Euler equations, MUSCL-Hancock with an HLLC "
    "Riemann solver, 2-layer halos on a P x Q x R grid; cells per second vs cells per rank and "
    "weak scaling; conservation (periodic) or the exact Sod solution (sod) checked",
    # the plan sweeps four cell counts per rank (weak scaling) and reads npe itself; gamma 1
    # and a zero Courant number are no flow it can plan
    options("hydro", "cells grid npe problem steps gamma cfl",
            cells=dict(default="8x8x8,16x16x16,30x30x15,32x32x32"),
            gamma=dict(min=1.0001), cfl=dict(min=0.01))
    + (ranks_sweep(alone=1),),
    _plan, ranks="--np or the ranks sweep",
    # not sized by it, but its cell-rate figure marks the cache sizes hpceval detects: the
    # planner's probe records the last level with the run
    sized_by_llc=True, memory=_memory, tiny=("cells=8x8x8", "steps=2"),
    # a budget's top rung (budget.py's tops): samples of 2 steps
    at_scale=("steps=2",), seed_curve=True,
    # one scheme: no variant
    scales=Scales("step_time", "µs/step", (), "{problem}", ("nx", "ny", "nz", "problem")),
    headline="cell updates per second per rank (median), time per step, overhead breakdown",
    doc="docs/apps_hydro.md"))


# The study: weak scaling at SAGE's 13,500 cells per processor over every rung.
register_study("hydro", cells="30x30x15", ranks="ladder", budget=0.3, min_reps=3, max_reps=20,
               warmup=1)
