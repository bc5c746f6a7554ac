"""A plan fitted to a time budget (`hpceval run --budget`, the study): the budget is divided over
the plan's areas by their shares, and each area is fitted to its share by shortening every
point's time budget (down to a floor) and then thinning its rank ladders (every 2nd, 4th ...
rung, the ends kept), re-planned each time; an area that still does not fit is left out. What
was shortened, thinned or left out is noted in the plan (PlanContext.notes).

The estimate of a launch is its start-up, which grows with the ranks (tree spawn and MPI_Init's
wire-up), plus the measuring time its planner budgeted (every point spending its whole budget:
an upper bound, as converged points stop early)."""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from hpceval.catalog.common import planned_seconds
from hpceval.catalog.params import YEAR_S, item_text
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext
from hpceval.errors import UsageError

STARTUP_S = 1.0            # one launch of a few ranks here: 0.5-1.3 s (mpirun, 2 ranks)
STARTUP_PER_RANK_S = 1e-3  # wire-up grows with the ranks; 10,000 ranks: about 11 s a launch
MAX_THIN = 4               # at most every 16th rung (and the ends)
MIN_SCALE = 1e-3           # budgets are shortened at most this much before rungs are thinned

# Each area's share of a budget (normalised over the areas a plan has): communication and the
# applications carry the study's curves against processor count.
AREA_SHARES = {"memory": 0.10, "communication": 0.30, "kernels": 0.15, "proxies": 0.30,
               "nas": 0.15}
DEFAULT_SHARE = 0.10

Entry = Tuple[Benchmark, Dict[str, Any]]
PlanEntry = Callable[[Benchmark, Dict[str, Any], PlanContext], List[LaunchSpec]]


def startup_s(nranks: int, base: Optional[float] = None) -> float:
    """A launch's start-up: `base` (one measured on this allocation, else STARTUP_S) plus the
    wire-up that grows with the ranks."""
    return (STARTUP_S if base is None else base) + STARTUP_PER_RANK_S * nranks


def stamp(specs: List[LaunchSpec], ctx: PlanContext) -> List[LaunchSpec]:
    """Each launch's start-up as this allocation's (ctx.launch_s, measured) makes it."""
    for s in specs:
        s.startup_s = startup_s(s.nranks, ctx.launch_s)
    return specs


def spec_startup_s(spec: LaunchSpec) -> float:
    return spec.startup_s if spec.startup_s is not None else startup_s(spec.nranks)


def measure_s(spec: LaunchSpec) -> float:
    """The planner's expectation where it gave one, else the measuring time it budgeted."""
    return spec.estimate_s if spec.estimate_s is not None else planned_seconds(spec)


def estimate_s(spec: LaunchSpec) -> float:
    return spec_startup_s(spec) + measure_s(spec)


def total_s(specs: Sequence[LaunchSpec]) -> float:
    return sum(estimate_s(s) for s in specs)


# A duration: ASCII digits with an optional decimal point, then an optional unit (seconds by
# default). float() would also take '1_0', '\uff11', '1e3', 'nan' and ' 10 '.
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(s|m|min|h|d)?", re.IGNORECASE | re.ASCII)
_UNIT_S = {"": 1, "s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def parse_budget(text: str) -> float:
    """'1h', '10m', '90s', '3600', '1.5h' -> seconds, from 1 s to a year."""
    m = _DURATION.fullmatch(str(text))
    if not m:
        raise UsageError(f"--budget {text}: expected a duration such as 90s, 10m or 1h (ASCII "
                         "digits, a decimal point, a unit s, m, min, h or d)")
    value = float(m.group(1)) * _UNIT_S[(m.group(2) or "").lower()]
    if not 1 <= value <= YEAR_S:
        raise UsageError(f"--budget {text}: between 1 s and a year")
    return value


def shares(entries: Sequence[Entry]) -> Dict[str, float]:
    areas = list(dict.fromkeys(b.area for b, _ in entries))
    raw = {a: AREA_SHARES.get(a, DEFAULT_SHARE) for a in areas}
    return {a: w / sum(raw.values()) for a, w in raw.items()}


def _attempt(entries, ctx, plan_entry, thin, scale) -> List[LaunchSpec]:
    ctx.thin, ctx.budget_scale = thin, scale
    return stamp([s for b, v in entries for s in plan_entry(b, v, ctx)], ctx)


def _fit_area(entries: Sequence[Entry], ctx: PlanContext, plan_entry: PlanEntry,
              seconds: float) -> Tuple[List[LaunchSpec], Dict[str, Any]]:
    """The area's launches within `seconds`, and how they were fitted: point budgets
    shortened, then ladders thinned, then the costliest entry left out (said), until it fits."""
    entries = list(entries)
    dropped: List[str] = []
    while entries:
        specs, how = _fit_entries(entries, ctx, plan_entry, seconds)
        if how is not None:
            return specs, {**how, "left_out": dropped}
        costs = [total_s(_attempt([e], ctx, plan_entry, MAX_THIN, MIN_SCALE)) for e in entries]
        worst = entries.pop(costs.index(max(costs)))
        dropped.append(_entry_name(worst))
    return [], {"thin": None, "budget_scale": None, "left_out": dropped}


def _entry_name(entry: Entry) -> str:
    bench, values = entry
    shown = {k: v for k, v in values.items() if k in ("grids", "truncation", "class", "cells",
                                                        "per-rank", "patterns", "ranks", "nranks")}
    text = {k: ",".join(map(item_text, v)) if isinstance(v, list) else v for k, v in shown.items()}
    return bench.name + "".join(f" {k}={v}" for k, v in text.items())


def _fit_entries(entries: Sequence[Entry], ctx: PlanContext, plan_entry: PlanEntry,
                 seconds: float) -> Tuple[List[LaunchSpec], Optional[Dict[str, Any]]]:
    mark = len(ctx.notes)
    for thin in range(MAX_THIN + 1):
        del ctx.notes[mark:]
        scale = 1.0
        specs = _attempt(entries, ctx, plan_entry, thin, scale)
        for _ in range(4):              # budgets are only part of a launch's time: converge
            start = sum(spec_startup_s(s) for s in specs)
            est = total_s(specs)
            if est <= seconds or est - start <= 0 or seconds <= start:
                break
            scale = max(scale * (seconds - start) / (est - start), MIN_SCALE)
            specs = _attempt(entries, ctx, plan_entry, thin, scale)
        if total_s(specs) <= seconds:
            return specs, {"thin": thin, "budget_scale": scale}
    del ctx.notes[mark:]
    return [], None


def fit(entries: Sequence[Entry], ctx: PlanContext, plan_entry: PlanEntry,
        budget_s: float) -> List[LaunchSpec]:
    """Every area fitted to its share of budget_s, then what the areas left unused given to
    those that had to shorten, thin or leave out (one more pass); ctx.areas says how each was
    fitted, ctx.notes what changed."""
    by_area = {a: [(b, v) for b, v in entries if b.area == a] for a in shares(entries)}
    given = {a: share * budget_s for a, share in shares(entries).items()}
    fitted = {a: _fit_area(mine, ctx, plan_entry, given[a]) for a, mine in by_area.items()}
    squeezed = [a for a, (_, how) in fitted.items() if _squeezed(how)]
    for a, (specs, how) in fitted.items():
        if a not in squeezed:
            given[a] = total_s(specs)          # what an area does not use, it gives away
    spare0 = budget_s - sum(given.values())
    weights = {a: given[a] / sum(given[x] for x in squeezed) for a in squeezed}
    for a in squeezed:
        mark = len(ctx.notes)
        more = given[a] + spare0 * weights[a]
        again = _fit_area(by_area[a], ctx, plan_entry, more)
        if total_s(again[0]) <= more and _better(again[1], fitted[a][1]):
            given[a], fitted[a] = more, again
        else:
            del ctx.notes[mark:]
    ctx.thin, ctx.budget_scale = 0, 1.0
    ctx.areas = []
    for a, (specs, how) in fitted.items():
        _note(ctx, a, given[a], how)
        ctx.areas.append({"area": a, "share_s": round(given[a], 1),
                          "estimate_s": round(total_s(specs), 1), "launches": len(specs),
                          "max_ranks": max((s.nranks for s in specs), default=0), **how})
    return [s for specs, _ in fitted.values() for s in specs]


def _squeezed(how: Dict[str, Any]) -> bool:
    return bool(how["left_out"]) or how["thin"] != 0 or how["budget_scale"] != 1.0


def _better(new: Dict[str, Any], old: Dict[str, Any]) -> bool:
    key = lambda h: (len(h["left_out"]), h["thin"] if h["thin"] is not None else 99,
                     -(h["budget_scale"] or 0))
    return key(new) < key(old)


def _note(ctx: PlanContext, area: str, seconds: float, how: Dict[str, Any]) -> None:
    for name in how["left_out"]:
        ctx.note(f"{area}: {name} left out: it does not fit the area's {seconds:.0f} s share "
                 "of the budget even with the shortest point budgets and the thinnest ladders")
    if how["thin"] is None:
        return
    if how["budget_scale"] < 1.0:
        ctx.note(f"{area}: every point's budget x{how['budget_scale']:.3g} to fit its "
                 f"{seconds:.0f} s share")
    if how["thin"]:
        ctx.note(f"{area}: rank ladders thinned to every {2 ** how['thin']}th rung (ends, one "
                 f"node and two nodes kept) to fit its {seconds:.0f} s share")
