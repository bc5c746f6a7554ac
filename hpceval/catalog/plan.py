"""Plan: suite/benchmark names and --set overrides -> a list of launches."""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from hpceval.catalog.registry import LaunchSpec, PlanContext, resolve_targets
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


def plan_targets(names: Sequence[str], sets: Sequence[str], ctx: PlanContext) -> List[LaunchSpec]:
    targets = resolve_targets(names)
    overrides = parse_sets(sets)
    used = [False] * len(overrides)
    specs: List[LaunchSpec] = []
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
        specs.extend(bench.plan(values, ctx))
    for (only, name, _), ok in zip(overrides, used):
        if not ok:
            where = only or ", ".join(sorted({b.name for b, _ in targets}))
            raise UsageError(f"--set {name}: no parameter '{name}' in {where}")
    return specs
