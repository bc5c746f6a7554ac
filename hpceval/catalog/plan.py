"""Plan: suite/benchmark names and --set overrides -> a list of launches."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from hpceval.catalog import budget, ladder
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext, resolve_targets
from hpceval.errors import UsageError


def parse_sets(sets: Sequence[str]) -> List[Tuple[str | None, str, str]]:
    """'NAME=VALUE' or 'BENCHMARK.NAME=VALUE' -> (benchmark or None, name, value)."""
    out = []
    for item in sets:
        if "=" not in item:
            raise UsageError(f"--set '{item}': expected NAME=VALUE")
        key, value = item.split("=", 1)
        key = key.strip()
        bench, _, name = key.rpartition(".")
        if not name:
            raise UsageError(f"--set '{item}': empty parameter name")
        out.append((bench or None, name, value.strip()))
    return out


MIN_POINT_BUDGET_S = 0.005     # a point's budget is never scaled below this


def _scaled_budget(bench: Benchmark, values: Dict[str, object], ctx: PlanContext) -> Dict[str, object]:
    if ctx.budget_scale == 1.0 or not bench.has_param("budget"):
        return values
    budget = float(values.get("budget", bench.param("budget").default))
    return {**values, "budget": max(MIN_POINT_BUDGET_S, budget * ctx.budget_scale)}


def plan_rungs(bench: Benchmark, values: Dict[str, object], ctx: PlanContext) -> List[LaunchSpec]:
    """A benchmark's launches; a rank parameter with ladder words (hpceval/catalog/ladder.py)
    is planned rung by rung, and a rung the benchmark refuses (memory, a grid that does not
    divide, NPB's powers of two) is left out and noted: a ladder takes what fits the
    allocation. A plan left with nothing at all is refused by its caller (plan_targets)."""
    values = _scaled_budget(bench, values, ctx)
    rp = bench.rank_param
    text = values.get(rp, bench.param(rp).default) if rp else None
    counts = ladder.expand(text, ctx.per_node, ctx.nodes) if rp else None
    if counts is None:
        return bench.plan(values, ctx)
    if not counts:
        ctx.note(f"{bench.name} ranks={text}: no such rung in {ctx.nodes} node(s) x "
                 f"{ctx.per_node} ranks, left out")
    by_rung: Dict[int, List[LaunchSpec]] = {}
    for n in counts:
        try:
            by_rung[n] = bench.plan({**values, rp: str(n)}, ctx)
        except UsageError as exc:
            ctx.note(f"{bench.name} at {n} ranks left out: {exc}")
    # Thinned among the rungs the benchmark takes: its own top rung stays (thinning the whole
    # ladder first lost psst's 1,600 ranks, kept 800, and then refused 3,200).
    kept = ladder.thin(sorted(by_rung), ctx.thin, [ctx.per_node, 2 * ctx.per_node])
    return [spec for n in kept for spec in by_rung[n]]


def plan_targets(names: Sequence[str], sets: Sequence[str], ctx: PlanContext,
                 budget_s: Optional[float] = None) -> List[LaunchSpec]:
    """The launches of suites and benchmarks with --set overrides; with budget_s, fitted to it
    (hpceval/catalog/budget.py: areas' shares, shorter budgets, thinner ladders)."""
    entries = resolve_entries(names, sets)
    if budget_s is not None:
        specs = budget.fit(entries, ctx, plan_rungs, budget_s)
    else:
        specs = budget.stamp([spec for bench, values in entries
                              for spec in plan_rungs(bench, values, ctx)], ctx)
    if not specs:
        why = f": {ctx.notes[0]}" + (f" (and {len(ctx.notes) - 1} more)" if len(ctx.notes) > 1
                                     else "") if ctx.notes else ""
        raise UsageError(f"nothing to run in {' + '.join(names)}{why}")
    return specs


def resolve_entries(names: Sequence[str], sets: Sequence[str]) -> List[Tuple[Benchmark, Dict[str, object]]]:
    """(benchmark, parsed values) per suite entry or benchmark, --set applied; every setting is
    parsed here, so a bad one fails before anything is planned."""
    targets = resolve_targets(names)
    overrides = parse_sets(sets)
    used = [False] * len(overrides)
    entries = []
    for bench, settings in targets:
        values: Dict[str, object] = {}
        for name, text in settings.items():
            values[name] = bench.param(name).parse(text)
        for i, (only, name, text) in enumerate(overrides):
            if only not in (None, bench.name):
                continue
            if not bench.has_param(name):
                if only is not None:
                    raise UsageError(f"--set {only}.{name}: {bench.name} has no parameter '{name}'")
                continue
            values[name] = bench.param(name).parse(text)
            used[i] = True
        entries.append((bench, values))
    for (only, name, _), ok in zip(overrides, used):
        if not ok:
            where = only or ", ".join(sorted({b.name for b, _ in targets}))
            raise UsageError(f"--set {name}: no parameter '{name}' in {where}")
    return entries
