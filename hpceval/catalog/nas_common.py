"""What the NAS Parallel Benchmarks (npb-cg, -mg, -lu, -bt, -sp) share in the catalog: NPB's
rank rules and their plans (samples, launches, the pseudo-applications' process grids and
memory). Their card rows and figures are views (hpceval/views/rows_npb_*.py, figures_sp2.py)."""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Tuple

from hpceval.catalog.common import (check_memory, expected_seconds, harness_bytes,
                                    launch_timeout, parallel_seconds, rank_counts,
                                    repetition_args)
from hpceval.catalog.ladder import RankRule
from hpceval.catalog.params import Param
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext, register_study
from hpceval.errors import UsageError

def ranks_param(counts: str = "powers of two", alone: int = 2) -> Param:
    """The rank-count sweep of an NPB benchmark, whose rule allows `counts`."""
    return Param("ranks", "str", "", f"rank counts to sweep ({counts}), comma-separated, 'max' = "
                 f"all cores (empty: --np, else {alone})")


# Each sample is a whole NPB run after NPB's own untimed warm-up: fewer, longer samples than
# the harness's defaults (the NPB binaries, ps, swm: options.options(..., **FEWER_REPS)).
FEWER_REPS = {"warmup": dict(default=0), "min_reps": dict(default=3),
              "max_reps": dict(default=20)}


# NPB's rank rules (Benchmark.rank_rule): a ladder's rungs across nodes keep to them with
# fewer ranks a node (hpceval/catalog/ladder.py)
POWER_OF_TWO = RankRule(lambda n: n >= 1 and not n & (n - 1),
                        "NPB runs on a power of two ranks (1, 2, 4, 8, ...)")
SQUARE = RankRule(lambda n: n >= 1 and math.isqrt(n) ** 2 == n,
                  "NPB runs it on a square number of ranks (1, 4, 9, 16, ...)")


def square_grid(np: int) -> Tuple[int, int]:
    """The sqrt(P) x sqrt(P) grid over (i, j) of npb-bt's and npb-sp's square rank counts."""
    q = math.isqrt(np)
    return q, q


def plan_class(b: Benchmark, v: Dict[str, Any], ctx: PlanContext, run_s: float,
               slow_factor: float, fits: Callable[[int], None],
               rule: RankRule = POWER_OF_TWO) -> List[LaunchSpec]:
    """One launch per rank count of the `ranks` sweep of an NPB benchmark (its mops and run_time
    records) at v's class, whose timed run takes run_s seconds on one rank (slow_factor times
    this machine's): each count checked by NPB's rule (powers of two by default) and by
    fits(ranks) (a UsageError if not)."""
    cls = v["class"]
    fixed = b.param("class").to_arg(cls) + repetition_args(b, v)
    runs = int(v["warmup"]) + int(v["min-reps"]) + 3         # + NPB's warm-up and set-up
    specs = []
    # without a sweep or --np: 2 ranks, or 1 where NPB's rule forbids 2 (squares)
    alone = not str(v["ranks"]).strip() and not ctx.nranks and rule is SQUARE
    for np in [1] if alone else rank_counts(v["ranks"], ctx):
        rule.check(b.name, np)
        fits(np)
        specs.append(LaunchSpec(
            b.name, f"{b.name} np={np} class {cls}", b.name, fixed, np, "core",
            expected_results=2,
            estimate_s=expected_seconds(v, 1, parallel_seconds(run_s / slow_factor, np, ctx)),
            timeout_s=launch_timeout(v, 1) + 3.0 * runs * parallel_seconds(run_s, np, ctx)))
    return specs


def grid_app(bench: str, classes: Dict[str, Tuple[int, int, float]], slow_factor: float,
             point_bytes: int, grid: Callable[[int], Tuple[int, int]],
             rule: RankRule):
    """The plan and memory functions of an NPB pseudo-application (npb-lu, npb-bt): classes
    name (n, steps, a pessimistic one-rank timed run in s), point_bytes its bytes per grid point
    (ghosts included), grid(ranks) its (xdim, ydim) process grid over (i, j), which must leave
    every rank 3 points in each (NPB's subdomain rule)."""
    def plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
        cls = v["class"]
        n, _, run_s = classes[cls]
        check_memory(point_bytes * (n + 4) ** 3, ctx, f"{bench} class {cls} ({n}^3)")

        def fits(np: int) -> None:
            xdim, ydim = grid(np)
            if n // xdim < 3:
                raise UsageError(f"{bench}: class {cls} ({n}^3) is too small for {np} ranks (a "
                                 f"{xdim} x {ydim} grid): at least 3 points a rank in i and j")
        return plan_class(b, v, ctx, run_s, slow_factor, fits, rule)

    def memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
        n = classes[v["class"]][0]
        xdim, ydim = grid(spec.nranks)
        # a rank's columns with two ghost layers in i and j, all planes
        return point_bytes * (n // xdim + 5) * (n // ydim + 5) * (n + 2) + harness_bytes(v)
    return plan, memory


def register_npb_study(bench: str) -> None:
    """The study's entries of an NPB benchmark: class A up to 64 ranks, B from 16 on (the SP2
    study ran B); the rungs NPB's rank rule or the class's size exclude are left out, said."""
    for cls, ranks in (("A", "ladder<=64"), ("B", "ladder>=16")):
        register_study(bench, **{"class": cls}, ranks=ranks, min_reps=2, max_reps=5, warmup=0)
