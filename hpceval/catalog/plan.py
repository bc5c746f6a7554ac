"""Plan: suite/benchmark names and --set overrides -> a list of launches."""
from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

from hpceval.catalog import budget, estimate, ladder
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

Memo = Dict[tuple, Tuple[Any, List[str]]]
T = TypeVar("T")


def _scaled_budget(bench: Benchmark, values: Dict[str, object], ctx: PlanContext) -> Dict[str, object]:
    if ctx.budget_scale == 1.0 or not bench.has_param("budget"):
        return values
    budget = float(values.get("budget", bench.param("budget").default))
    return {**values, "budget": max(MIN_POINT_BUDGET_S, budget * ctx.budget_scale)}


# A simulated platform gives a point nearly the same time every sample (its network is a model,
# the communication binaries charge no computation): three samples a point, unless asked for
# more, serve as well as ten at a third of the wall time (the comm suite at 1,024 simulated
# ranks: p2p's 957 points 222 s, rma 198 s at 10 samples each).
REPS_SIMULATED = {"min-reps": 3}


def _fewer_reps(bench: Benchmark, values: Dict[str, object], ctx: PlanContext) -> Dict[str, object]:
    if ctx.fewer_reps:
        lean, asked = budget.REPS_LEAN, {}
    elif ctx.simulated:
        lean, asked = REPS_SIMULATED, values       # what the user or the entry set stays
    else:
        return values
    have = bench.settings(values)
    return {**values, **{name: min(int(have[name]), most) for name, most in lean.items()
                         if bench.has_param(name) and name not in asked}}


def plan_rungs(bench: Benchmark, values: Dict[str, object], ctx: PlanContext,
               memo: Optional[Memo] = None) -> List[LaunchSpec]:
    """A benchmark's launches; a rank parameter with ladder words (hpceval/catalog/ladder.py)
    is planned rung by rung, and a rung the benchmark refuses (memory, a grid that does not
    divide, NPB's powers of two) is left out and noted: a ladder takes what fits the
    allocation. A rung across nodes that its rank rule refuses at K a node runs with fewer
    ranks a node (said). A plan left with nothing at all is refused by its caller
    (plan_targets). `memo` keeps each entry's plan, and each rung's, across the attempts of
    one budget fit (hundreds at 10,000 nodes)."""
    memo = {} if memo is None else memo
    values = _fewer_reps(bench, _scaled_budget(bench, values, ctx), ctx)
    entry = (bench.name, repr(sorted(values.items())))
    return _remembered(memo, entry + (ctx.thin, ctx.ladder_nodes), ctx,
                       lambda: _plan_ladder(bench, values, ctx, memo, entry))


def _plan_ladder(bench: Benchmark, values: Dict[str, object], ctx: PlanContext, memo: Memo,
                 entry: tuple) -> List[LaunchSpec]:
    text = bench.rank_text(values)
    rule = bench.rank_rule(bench.settings(values)) if text is not None and bench.rank_rule else None
    rungs = ladder.expand_rungs(text, ctx.per_node, ctx.ladder_nodes, rule=rule) \
        if text is not None else None
    if rungs is None:
        return bench.plan(values, ctx)
    if not rungs:
        ctx.note(f"{bench.name} ranks={text}: no such rung in {ctx.nodes} node(s) x "
                 f"{ctx.per_node} ranks, left out")
    by_rung = {r: specs for r in rungs if (specs := _remembered(
        memo, entry + (r,), ctx, lambda: _plan_rung(bench, values, r, ctx))) is not None}
    # Thinned among the rungs the benchmark takes: its own top rung stays (thinning the whole
    # ladder first lost psst's 1,600 ranks, kept 800, and then refused 3,200).
    taken = sorted(by_rung)
    kept = ladder.thin(taken, ctx.thin, ladder.anchors(taken))
    fewer = [r for r in kept if r.ppn < ctx.per_node and r.nodes > 1]
    if fewer:
        ctx.note(f"{bench.name}: " + ", ".join(f"{r.ranks} ranks as {r.nodes} nodes x {r.ppn}"
                                               for r in fewer)
                 + f" ({ctx.per_node} a node breaks its rule: {rule.says})")
    return [spec for r in kept for spec in by_rung[r]]


def _plan_rung(bench: Benchmark, values: Dict[str, object], rung: ladder.Rung,
               ctx: PlanContext) -> Optional[List[LaunchSpec]]:
    """One rung's launches (None: refused, and said), planned on the nodes it runs on (fewer
    ranks a node: a context of that many)."""
    fewer = rung.ppn < ctx.per_node and rung.nodes > 1
    on = replace(ctx, **({"ppn": rung.ppn, "nodes": rung.nodes} if fewer else {}))
    try:
        specs = bench.plan({**values, bench.rank_param: str(rung.ranks)}, on)
    except UsageError as exc:
        ctx.note(f"{bench.name} at {rung.ranks} ranks left out: {exc}")
        return None
    for spec in specs:
        spec.ppn = rung.ppn if fewer else None
    return specs


def _remembered(memo: Memo, key: tuple, ctx: PlanContext, make: Callable[[], T]) -> T:
    """make()'s result once per key, and the notes it made said again on every call (an
    attempt of a budget fit drops the notes of the one before)."""
    if key not in memo:
        saved, ctx.notes = ctx.notes, []
        try:
            memo[key] = (make(), ctx.notes)
        finally:
            ctx.notes = saved
    result, notes = memo[key]
    for text in notes:
        ctx.note(text)
    return result


def plan_targets(names: Sequence[str], sets: Sequence[str], ctx: PlanContext,
                 budget_s: Optional[float] = None) -> List[LaunchSpec]:
    """The launches of suites and benchmarks with --set overrides; with budget_s, fitted to it
    (hpceval/catalog/budget.py: areas' shares, shorter budgets, thinner ladders)."""
    memo: Memo = {}
    plan_entry = partial(plan_rungs, memo=memo)
    entries = _buildable(resolve_entries(names, sets), ctx, plan_entry)
    if budget_s is not None:
        specs = budget.fit(entries, ctx, plan_entry, budget_s)
    else:
        specs = estimate.stamp([spec for bench, values in entries
                              for spec in plan_entry(bench, values, ctx)], ctx)
    specs = [replace(s) for s in specs]      # the memo's are shared by its attempts
    if not specs:
        why = f": {ctx.notes[0]}" + (f" (and {len(ctx.notes) - 1} more)" if len(ctx.notes) > 1
                                     else "") if ctx.notes else ""
        raise UsageError(f"nothing to run in {' + '.join(names)}{why}")
    if budget_s is not None:
        ctx.note(estimate.startup_note(ctx))
    return specs


def unbuilt_note(binary: str, why: str) -> str:
    return f"{binary} left out: not in this build ({why})"


def _buildable(entries: List[Tuple[Benchmark, Dict[str, object]]], ctx: PlanContext,
               plan_entry) -> List[Tuple[Benchmark, Dict[str, object]]]:
    """The entries whose binaries the build has (ctx.unbuilt says why not: shmem-halo under
    MPICH, the threaded memory benchmarks under SMPI), the others noted and left out before a
    budget is fitted, so their share goes to the rest and a dry run shows what a run makes.
    Every entry when the build has none of them: the run refuses with the reason."""
    if ctx.unbuilt is None or len(entries) < 2:
        return entries
    mark, keep, gone = len(ctx.notes), [], {}
    for bench, values in entries:
        binaries = {s.binary for s in plan_entry(bench, values, ctx)}
        why = {b: w for b in binaries if (w := ctx.unbuilt(b))}
        if binaries and len(why) == len(binaries):
            gone.update(why)
        else:
            keep.append((bench, values))
    del ctx.notes[mark:]
    if not keep:
        return entries
    for binary, why in sorted(gone.items()):
        ctx.note(unbuilt_note(binary, why))
    return keep


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
