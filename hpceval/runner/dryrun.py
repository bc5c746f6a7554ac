"""`hpceval run --dry-run`: the launches a run would make and an estimate of its duration, from
the plan alone (no launch, no database), as a table or as JSON (`--json`: what a centre, or a
test, reads of a run on a machine it does not have yet). The estimate of a launch is
hpceval/catalog/budget.py's: start-up growing with the ranks plus the measuring time its planner
budgeted."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from hpceval.catalog import LaunchSpec, PlanContext, plan_targets
from hpceval.catalog.budget import measure_s, spec_startup_s
from hpceval.runner.placement import Placement

PLAN_VERSION = 1           # the --dry-run --json document (docs/records.md)


@dataclass
class PlannedLaunch:
    spec: LaunchSpec
    nodes: int
    startup_s: float
    measure_s: float

    @property
    def estimate_s(self) -> float:
        return self.startup_s + self.measure_s


def _option(args: Sequence[str], name: str) -> Optional[str]:
    args = list(args)
    return args[args.index(name) + 1] if name in args[:-1] else None


def dry_run(targets: Sequence[str], sets: Sequence[str], ctx: PlanContext,
            place: Optional[Placement], budget_s: Optional[float] = None) -> List[PlannedLaunch]:
    out = []
    for spec in plan_targets(targets, sets, ctx, budget_s):
        if place and spec.nranks > place.nranks:
            place.slots(spec.nranks)                  # says it does not fit, in one line
        nodes = -(-spec.nranks // place.ppn) if place else 1
        out.append(PlannedLaunch(spec, nodes, spec_startup_s(spec), measure_s(spec)))
    return out


def _params(args: Sequence[str]) -> Dict[str, str]:
    """A launch's options as NAME -> value (a flag without a value: "")."""
    out: Dict[str, str] = {}
    args = list(args)
    for i, a in enumerate(args):
        if a.startswith("--"):
            nxt = args[i + 1] if i + 1 < len(args) else ""
            out[a[2:]] = "" if nxt.startswith("--") else nxt
    return out


def plan_json(targets: Sequence[str], launches: List[PlannedLaunch], ctx: PlanContext,
              budget_s: Optional[float]) -> Dict[str, Any]:
    """The plan as one JSON document: the allocation, each launch (benchmark, ranks, nodes,
    ppn, parameters, estimate), each area's share when budgeted, what was left out."""
    rows = [{"benchmark": l.spec.benchmark, "label": l.spec.label, "ranks": l.spec.nranks,
             "nodes": l.nodes, "ppn": min(l.spec.nranks, ctx.per_node) if ctx.nodes > 1
             else l.spec.nranks, "params": _params(l.spec.args),
             "estimate_s": round(l.estimate_s, 3), "timeout_s": round(l.spec.timeout_s, 3)}
            for l in launches]
    return {"plan_version": PLAN_VERSION, "targets": list(targets),
            "allocation": {"nodes": ctx.nodes, "ppn": ctx.per_node, "cores_per_node": ctx.cores,
                           "mem_available_bytes": ctx.mem_available_bytes},
            "budget_s": budget_s, "areas": ctx.areas if budget_s is not None else [],
            "launches": rows, "estimate_s": round(sum(l.estimate_s for l in launches), 3),
            "notes": list(ctx.notes)}


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

