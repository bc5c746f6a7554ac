"""What the NAS Parallel Benchmarks (npb-cg, npb-mg, npb-lu) share in the catalog: NPB's rank rule and
the report hooks of a benchmark whose figure of merit is Mop/s by class (a machine-card and
headline row for its best point, a Mop/s-vs-ranks figure per class)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List

from hpceval.catalog.common import (expected_seconds, launch_timeout, parallel_seconds,
                                    rank_counts, repetition_args)
from hpceval.catalog.params import Param
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext
from hpceval.errors import UsageError

SECTION = "SP2 application set (NAS CG, MG and LU, PHOLD)"   # the report section of all four


# The rank-count sweep of an NPB benchmark.
RANKS = Param("ranks", "str", "", "rank counts to sweep (powers of two), comma-separated, 'max' = "
              "all cores (empty: --np, else 2)")


def power_of_two(bench: str, n: int) -> None:
    """NPB runs on 1, 2, 4, 8, ... ranks."""
    if n < 1 or n & (n - 1):
        raise UsageError(f"{bench}: {n} ranks: NPB runs on a power of two ranks (1, 2, 4, 8, ...)")


def plan_class(b: Benchmark, v: Dict[str, Any], ctx: PlanContext, run_s: float,
               slow_factor: float, fits: Callable[[int], None]) -> List[LaunchSpec]:
    """One launch per rank count of the `ranks` sweep of an NPB benchmark (its mops and run_time
    records) at v's class, whose timed run takes run_s seconds on one rank (slow_factor times
    this machine's): powers of two, each also checked by fits(ranks) (a UsageError if not)."""
    cls = v["class"]
    fixed = b.param("class").to_arg(cls) + repetition_args(b, v)
    runs = int(v["warmup"]) + int(v["min-reps"]) + 3         # + NPB's warm-up and set-up
    specs = []
    for np in rank_counts(v["ranks"], ctx):
        power_of_two(b.name, np)
        fits(np)
        specs.append(LaunchSpec(
            b.name, f"{b.name} np={np} class {cls}", b.name, fixed, np, "core",
            expected_results=2,
            estimate_s=expected_seconds(v, 1, parallel_seconds(run_s / slow_factor, np, ctx)),
            timeout_s=launch_timeout(v, 1) + 3.0 * runs * parallel_seconds(run_s, np, ctx)))
    return specs


class NasHooks:
    """card_rows, headline_rows and figures of one NPB benchmark (its catalog module's hooks)."""

    def __init__(self, bench: str, what: str, order: int, where=None):
        self.bench, self.what, self.order = bench, what, order
        self.where = where or (lambda p: f"class {p['class']}, {p['ranks']} ranks")

    def _best(self, records: list):
        from hpceval.analysis.headlines import select, value
        recs = [r for r in select(records, self.bench, "mops") if value(r)]
        return max(recs, key=value) if recs else None

    def _rows(self):
        from hpceval.analysis.proxies import BestPoint
        return BestPoint(self._best, lambda rec: self.where(rec["params"]),
                         f"{self.what}, Mop/s", "Mop/s", f"{self.what} Mop/s", order=self.order)

    def card_rows(self):
        return self._rows().card_rows()

    def headline_rows(self):
        return self._rows().headline_rows()

    def figures(self):
        from hpceval.report.figures import FigureSpec, _figure
        from hpceval.report.figures_apps import _points, draw

        def rates(runs):
            pts = _points(runs, self.bench, "mops", lambda p: p["ranks"],
                          lambda p: f"class {p['class']}", lambda p: True)
            if not pts:
                return None
            fig = _figure((6.0, 4.0))
            draw(fig.subplots(1, 1), pts, "ranks", "Mop/s (NPB's operation count)")
            return fig
        return [FigureSpec(SECTION, f"{self.what}: Mop/s vs ranks, per class", rates, self.bench,
                           order=self.order)]
