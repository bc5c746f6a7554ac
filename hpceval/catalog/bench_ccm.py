"""ccm: CCM/MP-2D's grid-point side, as the ORNL study describes it (section 2.2, Fig. 7;
docs/apps_ccm.md): the column physics on a P x Q longitude-latitude decomposition with and
without the 180-degree swap that evens out day and night, and a shape-preserving semi-Lagrangian
tracer step with its departure-point halo and mass fixer. Time per step per balance and rank
count, the physics' imbalance, and the phases the overhead breakdown (Fig. 7's computation
against parallel overhead) reads."""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Dict, List, Tuple

from hpceval.catalog.common import (check_memory, expected_seconds, harness_bytes,
                                    launch_timeout, rank_counts, ranks_sweep, repetition_args,
                                    spec_arg)
from hpceval.catalog.ladder import RankRule
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Scales, Tunes,
                                      join_suite, register_benchmark, register_study)
from hpceval.errors import UsageError

BENCH = "ccm"
METRICS = 2                 # step_time, physics_imbalance a point
# csrc/kernels/lib/ccm_model.c: a half-hour step, 40 m/s zonal and 10 m/s meridional wind
RADIUS, DT, U0, V0 = 6.371e6, 1800.0, 40.0, 10.0
# One rank here, 128 x 64 x 18, loaded: 12 ms a step (docs/apps_ccm.md); work ~ points x levels^2
TYPICAL_S_PER_POINT = 12e-3 / (128 * 64 * 18 * 18)
SLOWDOWN = 20.0             # the time limit's allowance over the typical figure


def halo(nlon: int, nlat: int) -> Tuple[int, int]:
    """The departure points' halo (ccm_grid_init): the longest trajectory plus the stencil."""
    return (math.ceil(U0 * DT / RADIUS / (2 * math.pi / nlon)) + 2,
            math.ceil(V0 * DT / RADIUS / (math.pi / nlat)) + 2)


def process_grid(n: int) -> Tuple[int, int]:
    """P x Q for n ranks as the binary picks it: Q the smallest even factor at least sqrt(n)
    (every block then has a partner 180 degrees away), else the most nearly square."""
    for q in range(2, n + 1, 2):
        if n % q == 0 and q * q >= n:
            return n // q, q
    q = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
    return n // q, q


def _misfit(nlon: int, nlat: int, p: int, q: int) -> str:
    """Why a p x q process grid cannot hold the grid ('' when it can)."""
    hx, hy = halo(nlon, nlat)
    if nlon % q or nlat % p:
        return (f"a {p}x{q} process grid does not divide {nlon}x{nlat} (Q the longitudes, P "
                "the latitudes)")
    if nlon // q < hx or nlat // p < hy:
        return (f"blocks of {nlon // q}x{nlat // p} points on {p}x{q} ranks are narrower than "
                f"the departure points' halo ({hx}x{hy})")
    return ""


def _fits(v: Dict[str, Any], p: int, q: int, label: str) -> None:
    why = _misfit(int(v["nlon"]), int(v["nlat"]), p, q)
    if why:
        raise UsageError(f"{label}: {why}")


@lru_cache(maxsize=64)
def _grid_rule(nlon: int, nlat: int) -> RankRule:
    return RankRule(lambda n: not _misfit(nlon, nlat, *process_grid(n)),
                    f"its process grid (Q the smallest even factor at least sqrt(ranks)) must "
                    f"divide {nlon}x{nlat} into blocks no narrower than the halo "
                    f"({'x'.join(map(str, halo(nlon, nlat)))})")


def _rank_rule(v: Dict[str, Any]) -> RankRule:
    """The counts whose process grid holds the grid: a ladder across nodes keeps to them (100
    ranks a node run 128 ranks on 2 nodes at T42)."""
    return _grid_rule(int(v["nlon"]), int(v["nlat"]))


def _balances(v: Dict[str, Any], q: int, label: str, ctx: PlanContext) -> List[str]:
    asked = list(v["balances"])
    if q % 2 and "swap" in asked:
        if asked == ["swap"]:
            raise UsageError(f"{label}: the swap needs an even Q (a block 180 degrees away)")
        asked.remove("swap")
        ctx.note(f"{label}: balances=swap left out: Q = {q} has no block 180 degrees away")
    return asked


def rank_bytes(v: Dict[str, Any], n: int, p: int, q: int) -> int:
    """A rank's arrays (temperature, two tracer arrays with halo, buffers) and rank 0's check:
    every rank's state gathered and a one-rank run of the whole grid."""
    nlon, nlat, lev = int(v["nlon"]), int(v["nlat"]), int(v["levels"])
    hx, hy = halo(nlon, nlat)
    nx, ny = nlon // q, nlat // p
    block = 8 * lev * ((nx + 2 * hx) * (ny + 2 * hy) * 2 + nx * ny * 9)
    whole = 8 * lev * ((nlon + 2 * hx) * (nlat + 2 * hy) * 2 + nlon * nlat * 11)
    return block + whole // max(n, 1) + harness_bytes(v)


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    fixed = ([a for name in ("nlon", "nlat", "levels", "steps")
              for a in b.param(name).to_arg(v[name])] + repetition_args(b, v))
    points = int(v["nlon"]) * int(v["nlat"]) * int(v["levels"]) ** 2
    step_s = TYPICAL_S_PER_POINT * points
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        p, q = process_grid(n)
        label = f"ccm np={n}"
        _fits(v, p, q, label)
        balances = _balances(v, q, label, ctx)
        # rank 0 holds the whole grid for the check: count it once per node
        check_memory(ctx.ranks_per_node(n) * rank_bytes(v, n, p, q), ctx, label)
        check_s = step_s * int(v["steps"]) * len(balances)
        sample_s = step_s * int(v["steps"]) / n
        specs.append(LaunchSpec(
            b.name, f"{label} {v['nlon']}x{v['nlat']}x{v['levels']} {','.join(balances)}",
            "ccm", fixed + ["--npe", f"{p}x{q}", "--balances", ",".join(balances)], n, "core",
            expected_results=METRICS * len(balances),
            estimate_s=expected_seconds(v, len(balances), sample_s) + check_s,
            timeout_s=launch_timeout(v, len(balances)) + SLOWDOWN * check_s
            + 3.0 * (int(v["warmup"]) + 3) * SLOWDOWN * sample_s * len(balances)))
    return specs


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    p, q = (int(x) for x in spec_arg(spec, "--npe").split("x"))
    return rank_bytes({**v, "nlon": spec_arg(spec, "--nlon"), "nlat": spec_arg(spec, "--nlat"),
                       "levels": spec_arg(spec, "--levels")}, spec.nranks, p, q)


register_benchmark(Benchmark(
    BENCH, "proxies",
    "CCM/MP-2D's grid-point side (ORNL study): column physics with a day/night imbalance, with "
    "and without the 180-degree swap, and a shape-preserving semi-Lagrangian tracer step with "
    "its departure-point halo and mass fixer; time per step, the physics' imbalance and the "
    "overhead breakdown (Fig. 7), checked against one rank and for tracer mass",
    options("ccm", "nlon nlat levels steps balances") + (ranks_sweep(),),
    _plan, ranks="--np or the ranks sweep (default 2)", memory=_memory, rank_rule=_rank_rule,
    tiny=("nlon=32", "nlat=16", "levels=4", "steps=2"),
    at_scale=("balances=swap",),
    # the balance is the variant; the grid makes the problem
    scales=Scales("step_time", "µs/step", ("balance",), "{balance}", ("nlon", "nlat", "levels")),
    tunes=Tunes("step_time", ("nlon", "nlat", "levels"), ("balance", "P", "Q"),
                ("balances=all",), "{balance} {P}x{Q}"),
    # simulated (SMPI 3.32, this VM, 2026-12-07): T42 at 64 ranks 1.5 s for 4 results, T42 at
    # 512 10.7 s, T170 at 1,024 48.4 s: a result costs 4.6-11 ms a busy rank, growing with the
    # ranks as SMPI's messages do (cost.py's growth): 1.7 ms at 64 ranks
    sim_per_result_s={"": 0.0017},
    headline="time per step per balance, the physics' imbalance (max/mean - 1), overhead "
             "breakdown",
    doc="docs/apps_ccm.md"))

# The ORNL area's suite (with psst): both balances at 1, 2 and 4 ranks, each against the
# one-rank run (the overhead breakdown's baseline)
join_suite("kernels", BENCH, ranks="1,2,4", budget=0.3, min_reps=3, max_reps=10, warmup=1)

# The study: the ORNL study's CCM2 grids, T42 (128 x 64) on every rung its blocks allow (to 512
# ranks: 4 x 4 points), and T170 (512 x 256) from 16 ranks on; 18 levels; both balances, the
# top rung of a thinned plan the swap alone (at_scale). Fig. 7's split against processors.
_STUDY = {"levels": 18, "budget": 0.3, "min_reps": 2, "max_reps": 5, "warmup": 1}
register_study(BENCH, **_STUDY, nlon=128, nlat=64, ranks="ladder<=512")
register_study(BENCH, **_STUDY, nlon=512, nlat=256, steps=2, ranks="ladder>=16")
