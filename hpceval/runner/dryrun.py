"""`hpceval run --dry-run`: the launches a run would make and an estimate of its duration, from
the plan alone (no launch; the database, where there is one, only read), as a table or as JSON
(`--json`: what a centre, or a test, reads of a run on a machine it does not have yet). The
estimate of a launch is hpceval/catalog/estimate.py's: start-up growing with the ranks (fitted to
this host's earlier launches where the database has some) plus the measuring time its planner
budgeted; a simulated one's as SMPI's calibration stored here makes it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from hpceval.catalog import LaunchSpec, PlanContext, plan_targets
from hpceval.catalog.estimate import estimate_s, spec_startup_s
from hpceval.runner.placement import Placement

PLAN_VERSION = 1           # the --dry-run --json document (docs/records.md)


@dataclass
class PlannedLaunch:
    spec: LaunchSpec
    nodes: int
    startup_s: float
    measure_s: float
    ppn: int = 0                     # its ranks a node (of its last node: at most)

    @property
    def estimate_s(self) -> float:
        return self.startup_s + self.measure_s

    @property
    def fewer(self) -> str:
        """What a launch with fewer ranks a node than the allocation's says of it ('' if
        none): "128 ranks as 2 nodes x 64"."""
        if self.spec.ppn is None:
            return ""
        return f"{self.spec.nranks} ranks as {self.nodes} nodes x {self.ppn}"


def _option(args: Sequence[str], name: str) -> Optional[str]:
    args = list(args)
    return args[args.index(name) + 1] if name in args[:-1] else None


def dry_run(targets: Sequence[str], sets: Sequence[str], ctx: PlanContext,
            place: Optional[Placement], budget_s: Optional[float] = None) -> List[PlannedLaunch]:
    out = []
    for spec in plan_targets(targets, sets, ctx, budget_s):
        if place:
            place.check(spec.nranks, spec.ppn)         # says it does not fit, in one line
        per = min(spec.ppn or ctx.per_node, ctx.per_node)
        nodes = -(-spec.nranks // per) if place else 1
        # measuring as the budget counted it: a simulated launch's is SMPI's wall time
        # (estimate.stamp), not the simulated seconds its planner budgeted
        start = spec_startup_s(spec)
        out.append(PlannedLaunch(spec, nodes, start, estimate_s(spec) - start,
                                 min(spec.nranks, per)))
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
             "nodes": l.nodes, "ppn": l.ppn if ctx.nodes > 1 else l.spec.nranks,
             "params": _params(l.spec.args), "estimate_s": round(l.estimate_s, 3),
             "timeout_s": round(l.spec.timeout_s, 3),
             **({"fewer_per_node": l.fewer} if l.fewer else {})}
            for l in launches]
    return {"plan_version": PLAN_VERSION, "targets": list(targets),
            "allocation": {"nodes": ctx.nodes, "ppn": ctx.per_node, "cores_per_node": ctx.cores,
                           "mem_available_bytes": ctx.mem_available_bytes},
            "budget_s": budget_s, "areas": ctx.areas if budget_s is not None else [],
            "launches": rows, "estimate_s": round(sum(l.estimate_s for l in launches), 3),
            "notes": list(ctx.notes)}


def describe(launch: PlannedLaunch) -> List[str]:
    """One table row: label, ranks, nodes (nodes x ranks a node where fewer than the
    allocation's), sizes, budget per point, points, estimate."""
    s = launch.spec
    sizes = _option(s.args, "--sizes") or "-"
    if len(sizes) > 30:
        sizes = f"{sizes.count(',') + 1} sizes"
    nodes = f"{launch.nodes} x {launch.ppn}" if launch.fewer else str(launch.nodes)
    return [s.label, str(s.nranks), nodes, sizes, _option(s.args, "--budget") or "-",
            str(s.expected_results), fmt_duration(launch.estimate_s), fmt_duration(s.timeout_s)]


def fmt_duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"

