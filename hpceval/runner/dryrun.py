"""`hpceval run --dry-run`: the launches a run would make and an estimate of its duration, from
the plan alone (no launch, no database). The estimate of a launch is its start-up, modelled as
growing with the ranks (tree spawn and MPI_Init's wire-up), plus the measuring time its planner
budgeted (every point spending its whole budget: an upper bound, as converged points stop
early)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

from hpceval.catalog import LaunchSpec, PlanContext, plan_targets
from hpceval.catalog.common import planned_seconds
from hpceval.runner.placement import Placement

STARTUP_S = 1.0            # one launch of a few ranks here: 0.5-1.3 s (mpirun, 2 ranks)
STARTUP_PER_RANK_S = 1e-3  # wire-up grows with the ranks; 10,000 ranks: about 11 s a launch


@dataclass
class PlannedLaunch:
    spec: LaunchSpec
    nodes: int
    startup_s: float
    measure_s: float

    @property
    def estimate_s(self) -> float:
        return self.startup_s + self.measure_s


def startup_s(nranks: int) -> float:
    return STARTUP_S + STARTUP_PER_RANK_S * nranks


def estimate_s(spec: LaunchSpec) -> float:
    """A launch's estimate: start-up plus its planned measuring time (an upper bound)."""
    return startup_s(spec.nranks) + planned_seconds(spec)


def _option(args: Sequence[str], name: str) -> Optional[str]:
    args = list(args)
    return args[args.index(name) + 1] if name in args[:-1] else None


def dry_run(targets: Sequence[str], sets: Sequence[str], ctx: PlanContext,
            place: Optional[Placement]) -> List[PlannedLaunch]:
    out = []
    for spec in plan_targets(targets, sets, ctx):
        nodes = len(place.slots(spec.nranks)) if place else 1
        out.append(PlannedLaunch(spec, nodes, startup_s(spec.nranks), planned_seconds(spec)))
    return out


def describe(launch: PlannedLaunch) -> List[str]:
    """One table row: label, ranks, nodes, sizes, budget per point, points, estimate."""
    s = launch.spec
    sizes = _option(s.args, "--sizes") or "-"
    if len(sizes) > 30:
        sizes = f"{sizes.count(',') + 1} sizes"
    return [s.label, str(s.nranks), str(launch.nodes), sizes, _option(s.args, "--budget") or "-",
            str(s.expected_results), fmt_duration(launch.estimate_s), fmt_duration(s.timeout_s)]


def fmt_duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"

