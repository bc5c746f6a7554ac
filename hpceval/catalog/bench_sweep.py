"""sweep: the Sweep3D-like KBA wavefront transport proxy (docs/apps_sweep.md). Grind time (ns per
cell-angle per iteration) and time per iteration over rank counts (weak scaling, the EV7 study's
50^3 per PE) and over the pipeline's blocking (k-planes mk, angles mmi)."""
from __future__ import annotations

import itertools
from typing import Any, Dict, List

from hpceval.catalog.common import (expected_seconds, harness_bytes, int_tuple, launch_timeout,
                                    parallel_seconds, rank_counts, ranks_sweep, repetition_args,
                                    spec_arg)
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Scales,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError

METRICS = 2                      # grind_time, iteration_time
SLOW_CELL_ANGLE_S = 2e-8         # pessimistic (time limit): 20x this machine's grind time
ITERATIONS = 200                 # source iterations, a pessimistic bound for the time limit
TYPICAL_CELL_ANGLE_S = 1e-9      # this machine's grind time (0.9 ns), for the estimate
TYPICAL_ITERATIONS = 30          # source iterations of the default cross sections
PASSED = ("fixup", "tol", "max-iters", "sigma-t", "sigma-s", "source")


def _problems(v: Dict[str, Any]) -> List[tuple]:
    """[(option, 'IxJxK', (I, J, K))]: global grids (strong scaling) or blocks per rank (weak)."""
    key = "grid" if v["grid"] else "per-rank"
    return [(f"--{key}", "x".join(map(str, cells)), cells) for cells in v[key]]


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    sns, mks, mmis = v["sn"], v["mk"], v["mmi"]
    bad = [n for n in sns if n not in (2, 4, 6, 8)]
    if bad:
        raise UsageError(f"sweep: S_{bad[0]} has no level-symmetric quadrature here "
                         "(sn = 2, 4, 6 or 8)")
    fixed = [a for name in PASSED for a in b.param(name).to_arg(v[name])] + repetition_args(b, v)
    specs = []
    for n, (opt, shape, cells), sn, mk, mmi in itertools.product(
            rank_counts(v["ranks"], ctx), _problems(v), sns, mks, mmis):
        work = cells[0] * cells[1] * cells[2] * (n if opt == "--per-rank" else 1) * sn * (sn + 2)
        solve_s = parallel_seconds(work * ITERATIONS * SLOW_CELL_ANGLE_S, n, ctx)
        typical_s = parallel_seconds(work * TYPICAL_ITERATIONS * TYPICAL_CELL_ANGLE_S, n, ctx)
        specs.append(LaunchSpec(
            b.name, f"sweep np={n} {shape}{'/rank' if opt == '--per-rank' else ''} S{sn} "
            f"mk={mk} mmi={mmi}", "sweep",
            [opt, shape, "--sn", str(sn), "--mk", str(mk), "--mmi", str(mmi)] + fixed, n, "core",
            expected_results=METRICS, estimate_s=expected_seconds(v, 1, typical_s),
            timeout_s=launch_timeout(v, 1) + 3.0 * (int(v["warmup"]) + 3) * solve_s))
    return specs


MAX_CELLS = 2e9                  # the binary's bound on the global grid (csrc/kernels/sweep.c)


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> tuple:
    """(rank 0's, each other rank's): its block's fluxes, sources and faces (measured: 32 B a
    cell on one rank; 48 here), and on rank 0 the global flux it gathers (16 B a global cell)
    and the serial reference."""
    weak = spec_arg(spec, "--per-rank")
    i, j, k = int_tuple(weak or spec_arg(spec, "--grid"), "grid", "IxJxK", 3)
    glob = i * j * k * (spec.nranks if weak else 1)
    if glob > MAX_CELLS:
        raise UsageError(f"{spec.label}: {glob:.3g} cells in all, more than the binary's "
                         f"{MAX_CELLS:.0e}")
    local = glob // spec.nranks
    mine = 48 * local + (64 << 20) + harness_bytes(v)
    return mine + 16 * glob, mine


def _check(v: Dict[str, Any]) -> None:
    if v["sigma-s"] >= v["sigma-t"]:
        raise UsageError(f"sweep: sigma-s {v['sigma-s']:g} must be below sigma-t "
                         f"{v['sigma-t']:g} (a medium that absorbs)")


register_benchmark(Benchmark(
    "sweep", "proxies",
    "Sweep3D-like discrete-ordinates transport: level-symmetric S_N, diamond differencing, "
    "source iteration, KBA wavefront pipeline over a P x Q grid in blocks of mk k-planes and mmi "
    "angles; particle balance and the one-rank flux checked; grind time and time per iteration",
    # the plan sweeps S_N orders and pipeline blockings, a launch each (the binary: one)
    options("sweep", "per-rank grid sn mk mmi fixup tol max-iters sigma-t sigma-s source",
            per_rank=dict(default="20x20x20", more="the EV7 study: 50x50x50"),
            # the level-symmetric quadratures the binary has: S2 to S8
            sn=dict(kind="ints", default=[6], min=2, max=8, noun="S_N order"),
            mk=dict(kind="ints", default=[10], noun="k-plane block"),
            mmi=dict(kind="ints", default=[3], noun="angle block"))
    + (ranks_sweep(alone=1),),
    _plan, ranks="--np or the ranks sweep", check=_check, memory=_memory,
    tiny=("per-rank=6x6x6", "sn=4"),
    # a variant: its S_N order and pipeline blocking
    scales=Scales("iteration_time", "µs/iter", ("sn", "mk", "mmi"), "S{sn} mk={mk} mmi={mmi}",
                  ("nx", "ny", "nz", "sn")),
    model="sweep",
    # simulated: its cells run on this host, rank after rank
    sim_per_result_s={"": 0.5},
    headline="grind time (ns per cell-angle per iteration, median), time per iteration, "
             "weak-scaling efficiency, overhead breakdown",
    doc="docs/apps_sweep.md"))


# The study: weak scaling at Sweep3D's 50^3 cells per processor over every rung.
register_study("sweep", per_rank="50x50x50", mk=10, mmi=3, ranks="ladder", budget=0.3,
               min_reps=2, max_reps=10, warmup=0)
